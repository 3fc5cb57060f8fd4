//! `verify-trace` (issue 30): every bundled rulebook's conformance cases,
//! traced, verify; a trace changed in one place does not, and the change
//! is named.

mod command;
mod compact;
mod inputs;
mod numbers;
mod shapes;
mod tamper;

use std::path::Path;

use bareme::unstable::audit::{verify_line, TraceVerdict};
use bareme::unstable::conformance::cases;
use bareme::unstable::outcome::write_traced;
use bareme::{evaluate_value, load_rulebook, Rulebook};

/// The traced line `eval --trace json` prints for a case, or `None` when
/// the rulebook faults on it (exit 4, no trace).
pub fn traced(rb: &Rulebook, case: &serde_json::Value) -> Option<String> {
    let (outcome, trace) = evaluate_value(rb, case, true).ok()?;
    let mut out = Vec::new();
    write_traced(&mut out, &outcome, &trace?).expect("a trace within its bound");
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

fn verdict(rb: &Rulebook, line: &str, case: &serde_json::Value) -> TraceVerdict {
    verify_line(rb, line, Some(case)).expect("a trace of this rulebook")
}

#[test]
fn every_conformance_trace_follows() {
    let mut failed = Vec::new();
    let mut verified = 0;
    // The language's own rulebooks too: `tests/lang` answers a sum over a
    // group with no items, which the verifier read as "before the trace ran it".
    let mut dirs = versions();
    dirs.extend(["tests/lang".to_string(), "tests/bands".to_string()]);
    for dir in dirs {
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

/// A rulebook `id` of the inputs and steps in `body` whose one decision
/// answers the step `part` in money.
fn part_rulebook(id: &str, body: &str) -> Rulebook {
    let text = format!(
        "[rulebook]\nid = \"{id}\"\nversion = 1\nschema = 1\n{body}\n\
         [decisions.ok.answer]\npart = {{ expr = \"part\", format = \"money\" }}\n\n\
         [[checks]]\ndecision = \"ok\"\n"
    );
    bareme::parse_rulebook(&format!("{id}.toml"), &text).expect("the rulebook loads")
}

/// The trace of a case in both formats: format 1 as `--trace json` writes
/// it, and format 2 (`--trace json-compact`).
fn both_formats(rb: &Rulebook, case: &serde_json::Value) -> Option<(String, String)> {
    let (_, trace) = evaluate_value(rb, case, true).ok()?;
    let trace = trace?;
    let mut one = Vec::new();
    bareme::unstable::trace::write_trace_json(&mut one, &trace).expect("a trace within its bound");
    let mut two = Vec::new();
    bareme::unstable::trace::write_trace_json_compact(&mut two, &trace)
        .expect("a trace within its bound");
    Some((String::from_utf8(one).ok()?, String::from_utf8(two).ok()?))
}

/// The Luma example payslip, its rulebook, and its traced line as JSON.
fn luma_payslip() -> (Rulebook, serde_json::Value, serde_json::Value) {
    let rb = load_rulebook(Path::new("rulebooks/luma-payroll/v3")).expect("luma");
    let text = std::fs::read_to_string("examples/luma-payroll/payslip.json").expect("example");
    let case: serde_json::Value = serde_json::from_str(&text).expect("case JSON");
    let line = traced(&rb, &case).expect("traced");
    let json = serde_json::from_str(&line).expect("trace JSON");
    (rb, case, json)
}

fn findings(rb: &Rulebook, line: &serde_json::Value, case: &serde_json::Value) -> Vec<String> {
    let v = verdict(rb, &line.to_string(), case);
    v.findings.iter().map(|f| f.to_string()).collect()
}

/// The outcome of verifying `line` against `case`: its findings' places
/// and kinds, or the error that refused it.
fn outcome_of(rb: &Rulebook, line: &serde_json::Value, case: &serde_json::Value) -> String {
    match verify_line(rb, &line.to_string(), Some(case)) {
        Err(e) => format!("refused: {e}"),
        Ok(v) if v.follows() => "follows".into(),
        Ok(v) => v
            .findings
            .iter()
            .map(|f| format!("{} {}", f.at, f.what))
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// The `at` of an event as the verifier names it.
fn event_at(ev: &serde_json::Value) -> String {
    let s = |k: &str| ev.get(k).and_then(|v| v.as_str()).map(str::to_string);
    match s("event").as_deref() {
        Some("check") => format!("check {}", ev["index"]),
        _ => match s("item") {
            Some(item) => format!("step {item}.{}", s("step").unwrap_or_default()),
            None => format!("step {}", s("step").unwrap_or_default()),
        },
    }
}

/// The traced line of `eval --trace json-compact` for the same evaluation
/// as a format-1 line: its answer (or error), the trace in format 2.
fn compact_line(rb: &Rulebook, case: &serde_json::Value, line: &str) -> Option<String> {
    let (_, two) = both_formats(rb, case)?;
    let mut json: serde_json::Value = serde_json::from_str(line).ok()?;
    json["trace"] = serde_json::from_str(&two).ok()?;
    Some(json.to_string())
}
