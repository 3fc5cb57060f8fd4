//! The hand-written Luma program (`tests/handwritten/luma.rs`, the limit of
//! the benchmarks) against bareme on the conformance cases and on 3,000
//! cases drawn by generator 4: the same answer bytes, and a rejection at
//! the same path.

#[path = "../handwritten/luma.rs"]
mod luma;

use bareme::generate::{load_generator, run, Engine, RunOptions};

/// Case lines: every conformance case, then `n` generated ones.
fn luma_cases(n: u64) -> Vec<String> {
    let root = super::root();
    let mut lines: Vec<String> =
        bareme::conformance::cases(&root.join("rulebooks/luma-payroll/v3"))
            .expect("conformance cases")
            .into_iter()
            .map(|(_, case)| case.to_string())
            .collect();
    let (generator, rb) =
        load_generator(&root.join("rulebooks/luma-payroll/generator-4.toml"), None)
            .expect("generator");
    let engine = Engine::new(&generator, &rb).expect("engine");
    let options = RunOptions {
        seed: 7,
        start: 0,
        count: n,
        level: None,
        jobs: 2,
    };
    let mut out = Vec::new();
    run(&engine, options, &mut out, &|_| {}).expect("tasks");
    for task in String::from_utf8(out).expect("UTF-8").lines() {
        let task: serde_json::Value = serde_json::from_str(task).expect("a task line");
        lines.push(task["case"].to_string());
    }
    lines
}

#[test]
fn the_handwritten_luma_program_gives_bareme_s_answers() {
    let rb = super::rulebook("rulebooks/luma-payroll/v3");
    let (mut answered, mut rejected) = (0, 0);
    for line in luma_cases(3000) {
        let case: serde_json::Value = serde_json::from_str(&line).expect("JSON");
        let expected = bareme::outcome_json(
            bareme::evaluate_json(&rb, &case, false)
                .as_ref()
                .map(|(o, _)| o),
        );
        let mut mine = String::new();
        luma::evaluate_line(&line, &mut mine);
        match expected.get("error") {
            None => {
                answered += 1;
                assert_eq!(mine, expected.to_string(), "{line}");
            }
            Some(error) => {
                rejected += 1;
                let mine: serde_json::Value = serde_json::from_str(&mine).expect("JSON");
                assert_eq!(mine["error"]["path"], error["path"], "{line}");
            }
        }
    }
    assert!(
        answered > 1000 && rejected > 10,
        "{answered} answered, {rejected} rejected"
    );
}
