//! Unit tests of the coverage: combinations counted and listed, task lines read.

use super::*;

#[test]
fn combinations_are_counted_and_listed_in_order() {
    assert_eq!(combination_count(8, 1), Some(8));
    assert_eq!(combination_count(8, 2), Some(8 + 28));
    assert_eq!(combination_count(8, 8), Some(255));
    assert_eq!(combination_count(8, 20), Some(255), "no more than all");
    assert_eq!(combination_count(12, 12), Some(4095));
    assert_eq!(combination_count(13, 13), None, "8191 is past the cap");
    assert_eq!(combination_count(90, 2), Some(90 + 4005));
    assert_eq!(combination_count(91, 2), None, "91 + 4095 is past the cap");
    let mut members = vec![0, 1];
    let mut all = vec![members.clone()];
    while next_combination(&mut members, 4) {
        all.push(members.clone());
    }
    assert_eq!(
        all,
        [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]].map(Vec::from)
    );
}

#[test]
fn a_task_line_names_its_rulebook_as_id_at_version() {
    let task = Task::from_json(
        r#"{"id": "t1", "rulebook": "sales-tax@1", "rulebook_hash": "ab", "case": {}, "expected": {"x": 1}, "prompt": "…"}"#,
    )
    .expect("a task");
    assert_eq!((task.rulebook_id.as_str(), task.version), ("sales-tax", 1));
    assert_eq!(task.rulebook_dir(), PathBuf::from("rulebooks/sales-tax/v1"));
    for (line, error) in [
        ("[]", "a task must be a JSON object"),
        (r#"{"id": 1}"#, "the task's `id` must be a string"),
        (r#"{"id": "t"}"#, "the task has no `rulebook`"),
        (
            r#"{"id": "t", "rulebook": "../x@1", "rulebook_hash": ""}"#,
            "task t: `rulebook` must be ID@VERSION, as `sales-tax@1`, found \"../x@1\"",
        ),
        (
            r#"{"id": "t", "rulebook": "x@0", "rulebook_hash": ""}"#,
            "task t: `rulebook` must be ID@VERSION, as `sales-tax@1`, found \"x@0\"",
        ),
        (
            r#"{"id": "t", "rulebook": "x@1", "rulebook_hash": "", "case": {}}"#,
            "task t has no `expected`",
        ),
    ] {
        assert_eq!(Task::from_json(line).expect_err(line), error);
    }
}
