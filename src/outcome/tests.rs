//! Tests of the one outcome writer: every format and item shape written as
//! checked by hand, the `serde_json::Value` at the edge, and equality as the
//! JSON's.

use super::*;
use rust_decimal::Decimal;
use std::str::FromStr;

fn key(k: &str) -> Arc<str> {
    Arc::from(k)
}

fn dec(text: &str) -> Decimal {
    Decimal::from_str(text).unwrap_or_default()
}

fn fields(pairs: Vec<(&str, AnswerValue)>) -> Fields {
    Fields(pairs.into_iter().map(|(k, v)| (key(k), v)).collect())
}

fn answer(pairs: Vec<(&str, AnswerValue)>) -> Answer {
    Answer {
        decision: key("payslip"),
        fields: fields(pairs),
    }
}

fn written(result: Result<&Outcome, &EvalError>) -> String {
    let mut out = Vec::new();
    write_outcome(&mut out, result);
    String::from_utf8(out).unwrap_or_default()
}

/// One answer with every leaf format, a list and a keyed list of items, and
/// texts that need escaping: its bytes written out by hand.
fn every_format() -> Answer {
    let line = |amount: &str, label: &str| {
        fields(vec![
            ("amount", AnswerValue::Amount(dec(amount))),
            ("label", AnswerValue::Text(key(label))),
        ])
    };
    answer(vec![
        ("net", AnswerValue::Amount(dec("1234.50"))),
        ("rate", AnswerValue::Amount(dec("0.0725"))),
        ("days", AnswerValue::Number(dec("31"))),
        ("ratio", AnswerValue::Number(dec("-0.5"))),
        ("note", AnswerValue::Text(key("a \"b\"\\\n\u{1}é"))),
        ("eligible", AnswerValue::Bool(true)),
        ("late", AnswerValue::Bool(false)),
        (
            "paid",
            AnswerValue::Date(NaiveDate::from_ymd_opt(2026, 3, 31).unwrap_or_default()),
        ),
        (
            "month",
            AnswerValue::Month(Month::parse("2026-03").unwrap_or(Month { year: 0, month: 1 })),
        ),
        (
            "citations",
            AnswerValue::Clauses(vec![key("art. 2"), key("art. \"3\"")]),
        ),
        (
            "lines",
            AnswerValue::List(vec![line("10.00", "tea"), line("-2.50", "refund")]),
        ),
        (
            "by_sku",
            AnswerValue::Keyed(vec![
                (key("A-1"), line("10.00", "tea")),
                (key("B\t2"), line("0.00", "gift")),
            ]),
        ),
        ("none", AnswerValue::List(vec![])),
        ("nobody", AnswerValue::Keyed(vec![])),
    ])
}

const EVERY_FORMAT: &str = concat!(
    r#"{"net":"1234.50","rate":"0.0725","days":31,"ratio":-0.5,"#,
    r#""note":"a \"b\"\\\n\u0001é","eligible":true,"late":false,"#,
    r#""paid":"2026-03-31","month":"2026-03","citations":["art. 2","art. \"3\""],"#,
    r#""lines":[{"amount":"10.00","label":"tea"},{"amount":"-2.50","label":"refund"}],"#,
    r#""by_sku":{"A-1":{"amount":"10.00","label":"tea"},"B\t2":{"amount":"0.00","label":"gift"}},"#,
    r#""none":[],"nobody":{}}"#
);

#[test]
fn every_format_is_written_as_checked_by_hand() {
    let a = every_format();
    let outcome = Outcome::Answer(a.clone());
    assert_eq!(written(Ok(&outcome)), EVERY_FORMAT);
    assert_eq!(a.to_string(), EVERY_FORMAT);
}

#[test]
fn the_json_value_is_what_serde_reads_from_the_text() {
    let a = every_format();
    let read: serde_json::Value = serde_json::from_str(EVERY_FORMAT).unwrap_or_default();
    assert_eq!(a.to_json(), read);
    // And serde_json writes it back as the one writer does.
    assert_eq!(a.to_json().to_string(), EVERY_FORMAT);
    let outcome = Outcome::Answer(a);
    assert_eq!(outcome_json(Ok(&outcome)), read);
}

#[test]
fn rejections_and_faults_are_error_lines() {
    let rejected = Outcome::Rejected(CaseError {
        path: "lines[2].qty".into(),
        message: "must be \"positive\"".into(),
    });
    let line = r#"{"error":{"path":"lines[2].qty","message":"must be \"positive\""}}"#;
    assert_eq!(written(Ok(&rejected)), line);
    assert_eq!(outcome_json(Ok(&rejected)).to_string(), line);
    let fault = EvalError {
        message: "division by zero".into(),
        context: "step rate".into(),
        snippet: "a / b".into(),
        span: Span::default(),
    };
    let line = concat!(
        r#"{"error":{"path":"$","message":"the rulebook failed on this case: "#,
        r#"division by zero (in step rate: `a / b`)"}}"#
    );
    assert_eq!(written(Err(&fault)), line);
    assert_eq!(outcome_json(Err(&fault)).to_string(), line);
    let mut out = Vec::new();
    write_error(&mut out, "$", "line 3 is not JSON");
    assert_eq!(
        String::from_utf8(out).unwrap_or_default(),
        r#"{"error":{"path":"$","message":"line 3 is not JSON"}}"#
    );
}

#[test]
fn answers_are_equal_as_their_json_is() {
    let one = |v: AnswerValue| answer(vec![("v", v)]);
    // Digits and scale, as written: 12.30 is not 12.3, though equal in value.
    assert_ne!(
        one(AnswerValue::Amount(dec("12.30"))),
        one(AnswerValue::Amount(dec("12.3")))
    );
    assert_ne!(
        one(AnswerValue::Number(dec("1.0"))),
        one(AnswerValue::Number(dec("1")))
    );
    assert_eq!(
        one(AnswerValue::Amount(dec("12.30"))),
        one(AnswerValue::Amount(dec("12.30")))
    );
    // Two formats writing one JSON string, or one empty list.
    assert_eq!(
        one(AnswerValue::Amount(dec("12.30"))),
        one(AnswerValue::Text(key("12.30")))
    );
    assert_eq!(
        one(AnswerValue::Clauses(vec![])),
        one(AnswerValue::List(vec![]))
    );
    assert_ne!(
        one(AnswerValue::Amount(dec("12"))),
        one(AnswerValue::Number(dec("12")))
    );
    // Objects whatever their order; not the decision, which is no field.
    let a = answer(vec![
        ("x", AnswerValue::Bool(true)),
        ("y", AnswerValue::Bool(false)),
    ]);
    let mut b = answer(vec![
        ("y", AnswerValue::Bool(false)),
        ("x", AnswerValue::Bool(true)),
    ]);
    b.decision = key("other");
    assert_eq!(a, b);
    assert_ne!(a, answer(vec![("x", AnswerValue::Bool(true))]));
    assert_ne!(
        a,
        answer(vec![
            ("x", AnswerValue::Bool(true)),
            ("z", AnswerValue::Bool(false)),
        ])
    );
}

#[test]
fn lines_are_the_same_as_their_json_is() {
    let answered = Outcome::Answer(answer(vec![("v", AnswerValue::Bool(true))]));
    let fault = EvalError {
        message: "m".into(),
        context: "c".into(),
        snippet: "s".into(),
        span: Span::default(),
    };
    let as_fault = Outcome::Rejected(CaseError {
        path: "$".into(),
        message: fault_message(&fault),
    });
    let elsewhere = Outcome::Rejected(CaseError {
        path: "x".into(),
        message: fault_message(&fault),
    });
    assert!(same_line(Ok(&answered), Ok(&answered.clone())));
    assert!(!same_line(Ok(&answered), Ok(&as_fault)));
    assert!(!same_line(Err(&fault), Ok(&answered)));
    assert!(same_line(Err(&fault), Ok(&as_fault)));
    assert!(same_line(Ok(&as_fault), Err(&fault)));
    assert!(!same_line(Ok(&elsewhere), Err(&fault)));
    assert!(same_line(Err(&fault), Err(&fault.clone())));
    for (a, b) in [
        (Ok(&answered), Ok(&as_fault)),
        (Err(&fault), Ok(&as_fault)),
        (Ok(&elsewhere), Err(&fault)),
    ] {
        assert_eq!(same_line(a, b), outcome_json(a) == outcome_json(b));
    }
}
