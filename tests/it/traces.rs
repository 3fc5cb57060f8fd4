//! Snapshots of traces: what an auditor reads (text) and what tools read
//! (JSON). A trace's JSON is written one way (`bareme::unstable::trace::write_trace_json`,
//! the format of `docs/trace-format.md`): the JSON snapshots show it read
//! back and indented, and a digest of the bytes written for every
//! conformance case pins them all.

use bareme::unstable::trace::write_trace_json;
use bareme::{evaluate_value, render_text, Trace};
use sha2::{Digest, Sha256};

fn trace_of(case_file: &str) -> bareme::Trace {
    let rb = super::rulebook("rulebooks/luma-payroll/v3");
    let text = std::fs::read_to_string(super::root().join(case_file)).expect("case file");
    let case: serde_json::Value = serde_json::from_str(&text).expect("JSON case");
    let (_, trace) = evaluate_value(&rb, &case, true).expect("evaluates");
    trace.expect("trace requested")
}

/// The trace's JSON as written, read back.
fn trace_json(trace: &Trace) -> serde_json::Value {
    let mut written = Vec::new();
    write_trace_json(&mut written, trace).expect("a trace within its bound");
    serde_json::from_slice(&written).expect("a written trace is JSON")
}

/// The trace's JSON, indented, its rulebook reference (which holds the
/// rulebook's hash) redacted: what a JSON snapshot holds.
fn pinned(trace: &Trace) -> String {
    let mut json = trace_json(trace);
    json["rulebook"] = "[reference]".into();
    serde_json::to_string_pretty(&json).expect("JSON text")
}

#[test]
fn payslip_with_an_amendment_text() {
    insta::assert_snapshot!(render_text(&trace_of("examples/luma-payroll/payslip.json")));
}

#[test]
fn supplied_schedule_json() {
    insta::assert_snapshot!(pinned(&trace_of(
        "examples/luma-payroll/supplied-schedule.json"
    )));
}

#[test]
fn clarification_text() {
    insta::assert_snapshot!(render_text(&trace_of(
        "examples/luma-payroll/clarify-conflict.json"
    )));
}

#[test]
fn the_same_case_gives_the_same_bytes() {
    let written = || {
        let mut out = Vec::new();
        write_trace_json(&mut out, &trace_of("examples/luma-payroll/payslip.json"))
            .expect("a trace within its bound");
        out
    };
    assert_eq!(written(), written());
}

#[test]
fn sales_tax_lines_text() {
    let rb = super::rulebook("rulebooks/sales-tax/v1");
    let text = std::fs::read_to_string(super::root().join("examples/sales-tax/cart.json"))
        .expect("case file");
    let case: serde_json::Value = serde_json::from_str(&text).expect("JSON case");
    let (_, trace) = evaluate_value(&rb, &case, true).expect("evaluates");
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
    let (outcome, trace) = evaluate_value(&rb, &case, true).expect("evaluates");
    // 0.05 × 0.10 = 0.005, a half-cent tie: half-up gives 0.01, with a margin of 0.
    assert_eq!(
        bareme::unstable::outcome::outcome_json(Ok(&outcome)),
        serde_json::json!({
            "cart_id": "C9",
            "lines": [{"id": "A", "jurisdiction": "ZONE_1", "net": "0.10", "tax": "0.01", "total": "0.11"}],
            "subtotal": "0.10", "tax": "0.01", "total": "0.11"
        })
    );
    insta::assert_snapshot!(pinned(&trace.expect("trace requested")));
}

#[test]
fn paie_fr_payslip_report_text() {
    let rb = super::rulebook("rulebooks/paie-fr/v2026");
    let text = std::fs::read_to_string(super::root().join("examples/paie-fr/level4-entry.json"))
        .expect("case file");
    let case: serde_json::Value = serde_json::from_str(&text).expect("JSON case");
    let (_, trace) = evaluate_value(&rb, &case, true).expect("evaluates");
    let rendered = render_text(&trace.expect("trace requested"));
    // The payslip as a reader sees it: the report table and its totals, before the inputs.
    let report: String = rendered
        .split("\ninputs\n")
        .next()
        .unwrap_or_default()
        .to_string();
    insta::assert_snapshot!(report);
}

#[test]
fn succession_gift_with_recall_json() {
    let rb = super::rulebook("rulebooks/succession-fr/v2026");
    let case = serde_json::json!({
        "kind": "gift",
        "act_date": "2026-05-20",
        "person": {"birth_date": "1955-10-03"},
        "gifts": [
            {"beneficiary": "B1", "label": "House", "value": 300000, "fraction": "1/3", "cash": false, "reserved_usufruct": true},
            {"beneficiary": "B1", "label": "Cash", "value": 40000, "fraction": "1", "cash": true}
        ],
        "beneficiaries": [{"id": "B1", "relationship": "child", "birth_date": "1990-02-14"}],
        "prior_gifts": [{"beneficiary": "B1", "date": "2014-02-01", "value": 120000}]
    });
    // Donor aged 70: bare ownership 60 %; 300,000 × 1/3 × 0.6 = 60,000; cash 40,000 of which
    // 31,865 exempt (790 G). Recalled 120,000 uses the 100,000 allowance: T = 20,000.
    // Taxable = 100,000 − 31,865 − 0 = 68,135; tax = scale(88,135) − scale(20,000), where the
    // bands up to 15,932 give 403.6 + 403.7 + 573.45 = 1,380.75 and the 20 % band the rest:
    // (1,380.75 + 0.2 × 72,203) − (1,380.75 + 0.2 × 4,068) = 15,821.35 − 2,194.35 = 13,627.
    let (outcome, trace) = evaluate_value(&rb, &case, true).expect("evaluates");
    assert_eq!(
        bareme::unstable::outcome::outcome_json(Ok(&outcome)),
        serde_json::json!({
            "beneficiaires": {"B1": {"part_taxable": 68135, "droits": 13627}},
            "total_droits": 13627
        })
    );
    insta::assert_snapshot!(pinned(&trace.expect("trace requested")));
}

/// What an auditor reads, made to show each help the text gives: a list
/// input of twelve values shown by its first eight, a formula written on
/// several lines kept as written, a helper step on one line, and an item
/// whose steps are all nothing folded to one line.
const AUDIT: &str = r#"[rulebook]
id = "audit-demo"
version = 1
schema = 1

[clauses]
A1 = "Each hour is paid at its rate when it is worked."

[inputs.hours]
type = "list"
items = { type = "decimal" }
required = true

[steps.rate]
label = "Hourly rate"
detail = true
expr = "12.50"

[steps.worked]
label = "Hours worked"
clauses = ["A1"]
expr = """
sum(
    [h for h in hours if h > 0]
)"""

[per_item.paid]
over = "hours"
item = "h"

[per_item.paid.steps.counted]
expr = "h > 0"

[per_item.paid.steps.pay]
clauses = ["A1"]
expr = "if counted then h * rate else 0"

[steps.total]
clauses = ["A1"]
expr = "sum(paid.pay)"

[[checks]]
decision = "pay"

[decisions.pay.answer]
total = { expr = "total", format = "decimal" }
worked = { expr = "worked", format = "decimal" }
"#;

#[test]
fn audit_helps_text() {
    let rb = bareme::parse_rulebook("audit-demo.toml", AUDIT).expect("valid");
    let case = serde_json::json!({"hours": ["1", "0", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"]});
    let (_, trace) = evaluate_value(&rb, &case, true).expect("evaluates");
    let text = render_text(&trace.expect("trace requested"));
    assert!(
        text.contains("hours = [1, 0, 2, 3, 4, 5, 6, 7, … 4 more]"),
        "{text}"
    );
    assert!(
        text.contains("paid[1]: counted false; pay 0 (folded)"),
        "{text}"
    );
    assert!(text.contains("\n  · rate = 12.50\n"), "{text}");
    assert!(
        text.contains("    = sum(\n          [h for h in hours if h > 0]\n      )\n"),
        "{text}"
    );
    insta::assert_snapshot!(text);
}

/// The bytes written for the trace of every conformance case of every
/// bundled rulebook and of the language and bands rulebooks, pinned by a
/// digest per rulebook, the rulebook's reference redacted (taken when these
/// bytes were held equal to serde_json's text of the trace's former
/// `Serialize`, on every case):
/// a change of the format, or of what a case computes, shows here. Each is
/// JSON, and every field the format documents as always present is there.
#[test]
fn every_conformance_trace_is_written_as_pinned() {
    let mut dirs = super::rulebook_dirs();
    dirs.push(super::root().join("tests/lang"));
    dirs.push(super::root().join("tests/bands"));
    let mut digests = Vec::new();
    let mut compared = 0;
    for dir in dirs {
        let rb = bareme::load_rulebook(&dir).expect("a bundled rulebook loads");
        let mut hash = Sha256::new();
        let (mut traces, mut bytes) = (0, 0);
        for (name, case) in bareme::unstable::conformance::cases(&dir).expect("cases") {
            let Ok((_, Some(trace))) = evaluate_value(&rb, &case, true) else {
                continue;
            };
            let mut written = Vec::new();
            write_trace_json(&mut written, &trace).expect("a trace within its bound");
            let json: serde_json::Value = serde_json::from_slice(&written)
                .unwrap_or_else(|e| panic!("{}: {name}: {e}", dir.display()));
            for key in ["rulebook", "inputs", "events", "outcome"] {
                assert!(
                    json.get(key).is_some(),
                    "{}: {name}: no {key}",
                    dir.display()
                );
            }
            // The reference holds the rulebook file's hash, which a comment changes.
            let text =
                String::from_utf8_lossy(&written).replacen(&rb.reference(), "[reference]", 1);
            hash.update(name.as_bytes());
            hash.update(b"\n");
            hash.update(text.as_bytes());
            hash.update(b"\n");
            traces += 1;
            bytes += written.len();
        }
        let rel = dir.strip_prefix(super::root()).unwrap_or(&dir);
        let hex: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
        digests.push(format!(
            "{}: {traces} traces, {bytes} bytes, sha256 {hex}",
            rel.display()
        ));
        compared += traces;
    }
    assert!(compared > 300, "only {compared} traces written");
    insta::assert_snapshot!(digests.join("\n"));
}

/// A per-item step known at load is replayed by the traced evaluations
/// after the first that ran it in full (`eval/known.rs`): every paie-fr
/// case's trace is the same bytes on a rulebook fresh from loading, where
/// every step runs in full, as on one every case ran through first.
#[test]
fn replayed_steps_trace_as_run_in_full() {
    let written = |rb: &bareme::Rulebook, case: &serde_json::Value| {
        let (_, trace) = evaluate_value(rb, case, true).ok()?;
        let mut out = Vec::new();
        write_trace_json(&mut out, &trace?).expect("a trace within its bound");
        Some(out)
    };
    let mut compared = 0;
    for set in ["rulebooks/paie-fr/v2026", "rulebooks/paie-fr/v2025"] {
        let dir = super::root().join(set);
        let cases = bareme::unstable::conformance::cases(&dir).expect("cases");
        let warm = bareme::load_rulebook(&dir).expect("paie-fr loads");
        for (_, case) in &cases {
            let _ = evaluate_value(&warm, case, true);
        }
        for (name, case) in &cases {
            let fresh = bareme::load_rulebook(&dir).expect("paie-fr loads");
            let full = written(&fresh, case);
            assert_eq!(full, written(&warm, case), "{set}: {name}");
            compared += usize::from(full.is_some());
        }
    }
    assert!(compared > 60, "only {compared} traces compared");
}

/// Texts in a trace are escaped as JSON requires and no further: the
/// quote, the backslash and controls below U+0020; DEL, é, U+2028 and an
/// emoji are written as they are.
#[test]
fn trace_texts_are_escaped_as_json_requires() {
    let rb = super::rulebook("rulebooks/sales-tax/v1");
    let case = serde_json::json!({
        "cart": {"cart_id": "C\"9\\\u{0}\u{8}\t\n\u{c}\r\u{1f}\u{7f}é\u{2028}😀", "customer_id": "K1", "lines": [
            {"id": "A", "product_id": "P1", "quantity": 2, "jurisdiction": "ZONE_1"}
        ]},
        "customers": {"K1": {"billing_jurisdiction": "STATE_A"}},
        "products": {"P1": {"category": "GROCERY", "unit_price": "0.05"}},
        "rules": {"ZONE_1": {"rate": "0.05", "categories": {"STANDARD": "taxable", "DIGITAL": "taxable", "GROCERY": "taxable", "MEDICAL": "exempt"}}}
    });
    let (outcome, trace) = evaluate_value(&rb, &case, true).expect("evaluates");
    assert!(matches!(outcome, bareme::Outcome::Answer(_)), "{outcome:?}");
    let trace = trace.expect("trace requested");
    let mut written = Vec::new();
    write_trace_json(&mut written, &trace).expect("a trace within its bound");
    let text = String::from_utf8(written).expect("UTF-8");
    let escaped = concat!(
        r#""cart_id":"C\"9\\\u0000\b\t\n\f\r\u001f"#,
        "\u{7f}é\u{2028}😀\""
    );
    assert!(text.contains(escaped), "{text}");
    let json = trace_json(&trace);
    let cart = json["inputs"]
        .as_array()
        .and_then(|inputs| inputs.iter().find(|i| i["name"] == "cart"))
        .expect("the cart input");
    assert_eq!(cart["value"]["cart_id"], case["cart"]["cart_id"]);
}
