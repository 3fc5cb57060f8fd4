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

#[test]
fn sales_tax_lines_text() {
    let rb = super::rulebook("rulebooks/sales-tax/v1");
    let text = std::fs::read_to_string(super::root().join("examples/sales-tax/cart.json"))
        .expect("case file");
    let case: serde_json::Value = serde_json::from_str(&text).expect("JSON case");
    let (_, trace) = evaluate_json(&rb, &case, true).expect("evaluates");
    insta::assert_snapshot!(render_text(&trace.expect("trace requested")));
}

#[test]
fn sales_tax_supplied_rules_json() {
    let rb = super::rulebook("rulebooks/sales-tax/v1");
    let case = serde_json::json!({
        "cart": {"cart_id": "C9", "customer_id": "K1", "lines": [
            {"id": "A", "product_id": "P1", "quantity": 2, "jurisdiction": "ZONE_1"}
        ]},
        "customers": {"K1": {"billing_jurisdiction": "STATE_A"}},
        "products": {"P1": {"category": "GROCERY", "unit_price": "0.05"}},
        "rules": {"ZONE_1": {"rate": "0.05", "categories": {"STANDARD": "taxable", "DIGITAL": "taxable", "GROCERY": "taxable", "MEDICAL": "exempt"}}}
    });
    let (outcome, trace) = evaluate_json(&rb, &case, true).expect("evaluates");
    // 0.05 × 0.10 = 0.005, a half-cent tie: half-up gives 0.01, with a margin of 0.
    assert_eq!(
        outcome,
        bareme::Outcome::Answer(serde_json::json!({
            "cart_id": "C9",
            "lines": [{"id": "A", "jurisdiction": "ZONE_1", "net": "0.10", "tax": "0.01", "total": "0.11"}],
            "subtotal": "0.10", "tax": "0.01", "total": "0.11"
        }))
    );
    insta::assert_json_snapshot!(trace.expect("trace requested"), { ".rulebook" => "[reference]" });
}
