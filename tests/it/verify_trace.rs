//! `verify-trace` (issue 30): every bundled rulebook's conformance cases,
//! traced, verify; a trace changed in one place does not, and the change
//! is named.

use std::path::Path;

use bareme::unstable::audit::{verify_line, Verdict};
use bareme::unstable::conformance::cases;
use bareme::{evaluate_value, load_rulebook, write_traced, Rulebook};

/// The traced line `eval --trace json` prints for a case, or `None` when
/// the rulebook faults on it (exit 4, no trace).
pub fn traced(rb: &Rulebook, case: &serde_json::Value) -> Option<String> {
    let (outcome, trace) = evaluate_value(rb, case, true).ok()?;
    let mut out = Vec::new();
    write_traced(&mut out, &outcome, &trace?);
    String::from_utf8(out).ok()
}

pub fn versions() -> Vec<String> {
    let mut out = Vec::new();
    for set in std::fs::read_dir("rulebooks").expect("rulebooks/") {
        let set = set.expect("entry").path();
        let Ok(versions) = std::fs::read_dir(&set) else {
            continue;
        };
        for v in versions {
            let v = v.expect("entry").path();
            if v.join("cases").is_dir() {
                out.push(v.display().to_string());
            }
        }
    }
    out.sort();
    out
}

fn verdict(rb: &Rulebook, line: &str, case: &serde_json::Value) -> Verdict {
    verify_line(rb, line, Some(case)).expect("a trace of this rulebook")
}

#[test]
fn every_conformance_trace_follows() {
    let mut failed = Vec::new();
    let mut verified = 0;
    for dir in versions() {
        let rb = load_rulebook(Path::new(&dir)).expect("bundled rulebook");
        for (name, case) in cases(Path::new(&dir)).expect("cases") {
            let Some(line) = traced(&rb, &case) else {
                continue;
            };
            let v = verdict(&rb, &line, &case);
            verified += 1;
            if !v.follows() {
                failed.push(format!(
                    "{dir} {name}:\n  {}",
                    v.findings
                        .iter()
                        .map(|f| f.to_string())
                        .collect::<Vec<_>>()
                        .join("\n  ")
                ));
            }
        }
    }
    assert!(verified > 300, "only {verified} traces verified");
    assert!(
        failed.is_empty(),
        "{} traces do not follow:\n{}",
        failed.len(),
        failed.join("\n")
    );
}
