//! Snapshots of traces: what an auditor reads (text) and what tools read (JSON).

use bareme::{evaluate_json, render_text};

fn trace_of(case_file: &str) -> bareme::Trace {
    let rb = super::rulebook("rulebooks/luma-payroll/v3");
    let text = std::fs::read_to_string(super::root().join(case_file)).expect("case file");
    let case: serde_json::Value = serde_json::from_str(&text).expect("JSON case");
    let (_, trace) = evaluate_json(&rb, &case, true).expect("evaluates");
    trace.expect("trace requested")
}

#[test]
fn payslip_with_an_amendment_text() {
    insta::assert_snapshot!(render_text(&trace_of("examples/luma-payroll/payslip.json")));
}

#[test]
fn supplied_schedule_json() {
    insta::assert_json_snapshot!(trace_of("examples/luma-payroll/supplied-schedule.json"), {
        ".rulebook" => "[reference]"
    });
}

#[test]
fn clarification_text() {
    insta::assert_snapshot!(render_text(&trace_of(
        "examples/luma-payroll/clarify-conflict.json"
    )));
}

#[test]
fn the_same_case_gives_the_same_bytes() {
    let a = serde_json::to_string(&trace_of("examples/luma-payroll/payslip.json")).expect("json");
    let b = serde_json::to_string(&trace_of("examples/luma-payroll/payslip.json")).expect("json");
    assert_eq!(a, b);
}
