//! Task and reply files read strictly (a key twice at any depth, a byte
//! order mark: refused, exit 2, the line named), and a task drawn in
//! process scored without its JSON text: what `bareme score` writes for it.

use std::path::PathBuf;
use std::process::Command;

use bareme::unstable::generate::{load_generator, TaskDrawer};
use bareme::unstable::score::{load_rubric, Scorer};
use bareme::unstable::tasks::{ReplyLine, ReplyText, Task};
use serde_json::{json, Map, Value};

use super::{root, rulebook};

const RUBRIC: &str = "rulebooks/luma-payroll/rubric-8.toml";
const GENERATOR: &str = "rulebooks/luma-payroll/generator-4.toml";

fn bareme(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_bareme"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run bareme");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// A folder of this test's own.
fn dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bareme-tasks-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    dir
}

/// Writes `text` to `name` in `dir` and gives its path.
fn file(dir: &std::path::Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path.display().to_string()
}

/// A Luma payslip task line, its `expected` the rulebook's own answer:
/// 1,205.12 gross, 74.70 allowed deduction.
fn payslip(id: &str) -> String {
    let rb = rulebook("rulebooks/luma-payroll/v3");
    let case = json!({"task": "payslip", "gross_pay": "1205.12", "payroll_month": "2026-07", "allowed_deduction": "74.70"});
    let expected = bareme::unstable::score::reference_outcome(&rb, &case);
    json!({"id": id, "level": 1, "tier": "payslip", "rulebook": "luma-payroll@3",
        "rulebook_hash": rb.hash(), "case": case, "expected": expected})
    .to_string()
}

fn score(tasks: &str, replies: &str) -> (i32, String, String) {
    bareme(&["score", RUBRIC, "--tasks", tasks, "--replies", replies])
}

#[test]
fn a_key_twice_in_a_task_line_is_refused_with_its_line() {
    let d = dir("dup-task");
    let good = payslip("p1");
    // The second task says `gross_pay` twice inside its case: serde_json
    // would keep the last without a word.
    let twice = payslip("p2").replacen(
        r#""gross_pay":"1205.12""#,
        r#""gross_pay":"9999.99","gross_pay":"1205.12""#,
        1,
    );
    assert_ne!(twice, payslip("p2"), "the key is written twice");
    let tasks = file(&d, "tasks.jsonl", &format!("{good}\n{twice}\n"));
    let replies = file(&d, "replies.jsonl", "{\"id\": \"p1\", \"reply\": \"{}\"}\n");
    let (code, out, err) = score(&tasks, &replies);
    assert_eq!(code, 2, "{err}");
    assert_eq!(out, "");
    assert_eq!(
        err,
        format!("error: {tasks}, line 2: the task holds the key `gross_pay` twice, in the object at $.case\n")
    );
    // At the top, in `bareme ablations` too.
    let top = good.replacen(r#"{"id":"p1","#, r#"{"id":"p1","id":"p3","#, 1);
    let tasks = file(&d, "top.jsonl", &format!("{top}\n"));
    let (code, _, err) = bareme(&["ablations", &tasks]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err,
        format!("error: {tasks}, line 1: the task holds the key `id` twice, in the object at $\n")
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_key_twice_in_a_reply_line_is_refused_with_its_line() {
    let d = dir("dup-reply");
    let tasks = file(&d, "tasks.jsonl", &format!("{}\n", payslip("p1")));
    let replies = file(
        &d,
        "replies.jsonl",
        "{\"id\": \"p1\", \"reply\": \"{}\"}\n\n{\"id\": \"p1\", \"reply\": \"{}\", \"reply\": \"[]\"}\n",
    );
    let (code, out, err) = score(&tasks, &replies);
    assert_eq!(code, 2, "{err}");
    // The reply before the fault is graded and written.
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(
        err.starts_with(&format!(
            "error: {replies}, line 3: the line holds the key `reply` twice, in the object at $\n"
        )),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_byte_order_mark_is_named_in_a_task_and_a_replies_file() {
    let d = dir("bom");
    let line = payslip("p1");
    let bom_tasks = file(&d, "bom-tasks.jsonl", &format!("\u{feff}{line}\n"));
    let tasks = file(&d, "tasks.jsonl", &format!("{line}\n"));
    let replies = file(&d, "replies.jsonl", "{\"id\": \"p1\", \"reply\": \"{}\"}\n");
    let bom_replies = file(
        &d,
        "bom-replies.jsonl",
        "\u{feff}{\"id\": \"p1\", \"reply\": \"{}\"}\n",
    );
    let (code, _, err) = score(&bom_tasks, &replies);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!("error: {bom_tasks}, line 1: the task starts with a byte order mark (U+FEFF), which JSON text may not: save the file as UTF-8 without one\n")
    );
    let (code, out, err) = score(&tasks, &bom_replies);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.starts_with(&format!(
            "error: {bom_replies}, line 1: the line starts with a byte order mark (U+FEFF)"
        )),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// The line `bareme score` writes for a graded reply: its id, then the grade.
fn score_line(id: &str, graded: &bareme::unstable::score::Graded) -> String {
    let mut line = Map::new();
    line.insert("id".into(), json!(id));
    if let Value::Object(rest) = graded.to_json() {
        line.extend(rest);
    }
    Value::Object(line).to_string()
}

#[test]
fn a_task_drawn_in_process_scores_as_bareme_score_scores_its_line() {
    let (generator, rb) = load_generator(&root().join(GENERATOR), None).expect("generator");
    let engine = TaskDrawer::new(&generator, &rb).expect("engine");
    let (rubric, _) = load_rubric(&root().join(RUBRIC), None).expect("rubric");
    let scorer = Scorer::new(rubric, false);
    let d = dir("in-process");
    let tasks_path = d.join("tasks.jsonl").display().to_string();
    let (code, _, err) = bareme(&[
        "generate",
        GENERATOR,
        "-n",
        "3",
        "--seed",
        "7",
        "--out",
        &tasks_path,
    ]);
    assert_eq!(code, 0, "{err}");
    let written = std::fs::read_to_string(&tasks_path).expect("the task file");
    let mut replies = String::new();
    let mut in_process = Vec::new();
    for line in written.lines() {
        // The task drawn here is the line `bareme generate` wrote, read back.
        let read = Task::from_json(line).expect("a task line");
        let index = read.index.expect("a drawn task's index");
        let task = engine.task(7, index, None).expect("a task").task;
        assert_eq!(read, task);
        assert_eq!(serde_json::to_string(&task).expect("a line"), line);
        // Three replies each: the reference, an empty object, a reply that
        // keeps the reference's JSON but fences it.
        let reference = scorer.reference_reply(&task.expected);
        for reply in [
            reference,
            "{}".to_string(),
            format!("```json\n{}\n```", task.expected),
        ] {
            let graded = scorer.score(&task, &reply, None).expect("graded");
            in_process.push(score_line(&task.id, &graded));
            let reply_line = json!({"id": task.id, "reply": reply}).to_string();
            assert_eq!(
                ReplyLine::from_json(&reply_line)
                    .expect("a reply line")
                    .reply,
                ReplyText::Text(reply)
            );
            replies.push_str(&reply_line);
            replies.push('\n');
        }
    }
    assert_eq!(in_process.len(), 9);
    let replies_path = file(&d, "replies.jsonl", &replies);
    let (code, out, err) = score(&tasks_path, &replies_path);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().collect::<Vec<_>>(), in_process);
    // The reference scores the maximum, 1; the others less.
    let scores: Vec<Value> = in_process
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON")["score"].clone())
        .collect();
    assert_eq!(scores[0], json!(1));
    assert!(scores[1] != json!(1) && scores[2] != json!(1), "{scores:?}");
    let _ = std::fs::remove_dir_all(&d);
}
