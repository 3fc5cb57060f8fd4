//! The bytes of an outcome's line, pinned by hand (`outcome::write_outcome`,
//! the one writer, as `eval --batch` writes a line) on the corners a
//! bundled rulebook's cases do not reach: a keyed list with a repeated key
//! and a fault after it, a fault halfway through an answer, the budget
//! running out in an answer, texts to escape, every format. Each line is
//! also what serde_json writes for the `serde_json::Value` the library
//! gives at its edge (`outcome_json`); `readers.rs` checks that over every
//! bundled rulebook's conformance and generated cases.

use bareme::unstable::case::CaseText;
use bareme::unstable::evaluation::{evaluate_text, write_evaluation};
use bareme::unstable::outcome::{outcome_json, write_outcome};
use bareme::{parse_rulebook, Rulebook};

/// Items with an id and an amount, each answered under its key; the
/// answer holds every format (`tests/formats`), under `budget`.
fn keyed(budget: u64) -> Rulebook {
    let text = include_str!("../formats/rulebook.toml").replace(
        "max_eval_steps = 10000",
        &format!("max_eval_steps = {budget}"),
    );
    match parse_rulebook("written.toml", &text) {
        Ok(rb) => rb,
        Err(d) => panic!("{}", d.render(100, false)),
    }
}

/// The line `eval --batch` writes for one case text (untraced), checked to
/// be serde_json's text of the library's `Value` of the same outcome.
fn line_of(rb: &Rulebook, text: &str) -> String {
    let case = CaseText::parse(text).expect("a case the one-pass reader takes");
    // Written after other bytes, as a batch buffer holds earlier lines.
    let mut written = b"earlier\n".to_vec();
    write_evaluation(&mut written, rb, &case);
    let line = String::from_utf8(written[8..].to_vec()).expect("UTF-8");
    let result = evaluate_text(rb, &case, false);
    assert_eq!(
        outcome_json(result.as_ref().map(|(o, _)| o)).to_string(),
        line,
        "{text}"
    );
    line
}

/// The line a traced evaluation of the same case gives, without its trace.
fn traced_line_of(rb: &Rulebook, text: &str) -> String {
    let case = CaseText::parse(text).expect("a case the one-pass reader takes");
    let result = evaluate_text(rb, &case, true);
    let mut out = Vec::new();
    write_outcome(&mut out, result.as_ref().map(|(o, _)| o));
    String::from_utf8(out).expect("UTF-8")
}

#[test]
fn every_format_is_written_as_checked_by_hand() {
    let rb = keyed(10_000);
    let line = line_of(
        &rb,
        r#"{"items": [{"id": "a", "amount": "1.5"}, {"id": "b\"\n\u00e9", "amount": "4"}], "day": "2026-03-01", "note": "tab\there é"}"#,
    );
    assert_eq!(
        line,
        r#"{"note":"tab\there é","day":"2026-03-01","by_id":{"a":{"amount":"3.00","exact":3},"b\"\né":{"amount":"8.00","exact":8}},"total":11,"big":true,"clauses":["R1","R2"]}"#
    );
}

#[test]
fn a_repeated_key_is_reported_after_every_item() {
    let rb = keyed(10_000);
    let repeated = line_of(
        &rb,
        r#"{"items": [{"id": "a", "amount": "1"}, {"id": "a", "amount": "2"}, {"id": "c", "amount": "3"}], "day": "2026-03-01"}"#,
    );
    assert_eq!(
        repeated,
        r#"{"error":{"path":"$","message":"the rulebook failed on this case: two items have the key \"a\" (in answer field by_id: `item.id`)"}}"#
    );
    // A later item's fault comes first: every item is evaluated before the keys are compared.
    let later_fault = line_of(
        &rb,
        r#"{"items": [{"id": "a", "amount": "1"}, {"id": "a", "amount": "2"}, {"id": "c", "amount": "0.001"}], "day": "2026-03-01"}"#,
    );
    // 0.001 × 2 = 0.002, item 2's amount, cannot be written in money's two places.
    assert_eq!(
        later_fault,
        r#"{"error":{"path":"$","message":"the rulebook failed on this case: 0.002 has more than 2 decimals: round it in a step (in the answer of item 2 of group lines: `double`)"}}"#
    );
}

#[test]
fn a_fault_halfway_through_an_answer_leaves_only_the_error() {
    let rb = keyed(10_000);
    // `day` is written, then the amount of the second item cannot be.
    let line = line_of(
        &rb,
        r#"{"items": [{"id": "a", "amount": "1"}, {"id": "b", "amount": "0.1251"}], "day": "2026-03-01"}"#,
    );
    // 0.1251 × 2 = 0.2502: nothing of the answer built so far is written.
    assert_eq!(
        line,
        r#"{"error":{"path":"$","message":"the rulebook failed on this case: 0.2502 has more than 2 decimals: round it in a step (in the answer of item 1 of group lines: `double`)"}}"#
    );
}

/// `fixed28` of a value with two integer digits needs 30 digits, more
/// than a decimal holds: it was written with 27 decimals (a format that
/// promises exactly 28, and a receipt the verifier then refused), and is
/// now an error; one integer digit fits.
#[test]
fn a_fixed_format_a_decimal_cannot_hold_is_an_error() {
    let text = "[rulebook]\nid = \"f\"\nversion = 1\nschema = 1\n\n[inputs.x]\ntype = \"decimal\"\nrequired = true\n\n\
                [[checks]]\ndecision = \"d\"\n\n[decisions.d.answer]\nv = { expr = \"x\", format = \"fixed28\" }\n";
    let rb = parse_rulebook("f.toml", text).expect("valid");
    assert_eq!(
        line_of(&rb, r#"{"x": "1.5"}"#),
        r#"{"v":"1.5000000000000000000000000000"}"#
    );
    let line = line_of(&rb, r#"{"x": "10"}"#);
    assert_eq!(
        line,
        r#"{"error":{"path":"$","message":"the rulebook failed on this case: 10.000000000000000000000000000 cannot be written with 28 decimals: more digits than a decimal holds (in answer field v: `x`)"}}"#
    );
    assert_eq!(line, traced_line_of(&rb, r#"{"x": "10"}"#));
}

#[test]
fn the_budget_running_out_in_an_answer_is_named_as_a_trace_names_it() {
    let items: Vec<String> = (0..40)
        .map(|i| format!(r#"{{"id": "i{i}", "amount": "{i}"}}"#))
        .collect();
    let case = format!(
        r#"{{"items": [{}], "day": "2026-03-01"}}"#,
        items.join(", ")
    );
    let (mut exhausted, mut answered) = (0, 0);
    for budget in (20..3000).step_by(37) {
        let rb = keyed(budget);
        let line = line_of(&rb, &case);
        // Untraced, the evaluation takes shortcuts, and runs again without
        // them where the budget ran out, so the fault is the traced one.
        assert_eq!(line, traced_line_of(&rb, &case), "budget {budget}");
        if line.contains("exceeded its limit") {
            exhausted += 1;
        } else if line.contains(r#""total":1560"#) {
            answered += 1;
        }
    }
    assert!(
        exhausted > 5 && answered > 5,
        "the budget bound in {exhausted} runs, {answered} answered"
    );
}

/// An error line written straight is serde_json's text of the same error,
/// whatever its path and message hold (quotes, backslashes, every control
/// character, text beyond ASCII).
#[test]
fn an_error_line_is_serde_s_text_of_it() {
    let awkward: String = (0u8..0x20)
        .map(char::from)
        .chain("\"\\/é€ 𝄞 and some plain text".chars())
        .collect();
    for (path, message) in [
        ("$", "plain"),
        ("lines[0].id", awkward.as_str()),
        (awkward.as_str(), ""),
    ] {
        let mut out = Vec::new();
        bareme::unstable::outcome::write_error(&mut out, path, message);
        assert_eq!(
            String::from_utf8(out).expect("UTF-8"),
            serde_json::json!({"error": {"path": path, "message": message}}).to_string()
        );
    }
}
