//! Unit tests of rubric loading and grading: hand-computed scores of
//! specific replies under each bundled rubric.

use rust_decimal::Decimal;
use serde_json::{json, Value};
use std::path::Path;
use std::str::FromStr;

use super::*;

fn rubric(rel: &str) -> Rubric {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    match load_rubric(&path, None) {
        Ok((r, _)) => r,
        Err(RubricError::Invalid(d)) => panic!("{}", d.render(100, false)),
        Err(e) => panic!("{e}"),
    }
}

fn d(s: &str) -> Decimal {
    Decimal::from_str(s).unwrap()
}

/// The score, or the malformed reason's code when it is malformed.
fn check(r: &Rubric, expected: &Value, reply: &str, want: &str) {
    let g = grade(r, expected, reply, None).unwrap();
    let got = match &g.malformed {
        Some(m) => format!("{} {}", g.score.normalize(), m.code),
        None => g.score.normalize().to_string(),
    };
    assert_eq!(got, want, "reply: {reply}");
}

fn with(expected: &Value, changes: &[(&str, Value)]) -> String {
    let mut v = expected.clone();
    for (k, x) in changes {
        v[*k] = x.clone();
    }
    v.to_string()
}

fn luma_payslip() -> Value {
    json!({"decision": "calculate", "currency": "LCR", "gross_pay": "3084.04",
        "employee_contribution": "123.36", "allowed_deduction": "131.70", "taxable_pay": "2828.98",
        "income_tax": "138.32", "net_pay": "2690.66", "clauses": ["R1", "R2", "R3", "R4", "R5", "R6"]})
}

#[test]
fn luma_rubric_8_payslips() {
    let r = rubric("rulebooks/luma-payroll/rubric-8.toml");
    let e = luma_payslip();
    check(&r, &e, &e.to_string(), "1");
    check(&r, &e, &format!("\n  {e}\r\n"), "1");
    // J = 5/6: 0.95 + 0.05 × 5/6.
    let five = with(&e, &[("clauses", json!(["R1", "R2", "R3", "R4", "R5"]))]);
    let g = grade(&r, &e, &five, None).unwrap();
    assert!((g.score - d("0.9916666666666666666666666667")).abs() < d("0.000000001"));
    check(&r, &e, &with(&e, &[("clauses", json!([]))]), "0.95");
    check(
        &r,
        &e,
        &with(
            &e,
            &[("clauses", json!(["R1", "R2", "R3", "R4", "R5", "R6", "R9"]))],
        ),
        "0.9928571428571428571428571429",
    );
    // Two of four derived fields right: -0.5 + 0.2 × 1/2.
    check(
        &r,
        &e,
        &with(
            &e,
            &[
                ("income_tax", json!("138.33")),
                ("net_pay", json!("2690.65")),
            ],
        ),
        "-0.4",
    );
    // Copied inputs only: -0.5.
    let copied = with(
        &e,
        &[
            ("employee_contribution", json!("0.00")),
            ("taxable_pay", json!("0.00")),
            ("income_tax", json!("0.00")),
            ("net_pay", json!("0.00")),
        ],
    );
    check(&r, &e, &copied, "-0.5");
    // All derived right, currency wrong (a number is a wrong field, not a format failure): capped at -0.3.
    check(&r, &e, &with(&e, &[("currency", json!(5))]), "-0.3");
    check(
        &r,
        &e,
        &with(&e, &[("gross_pay", json!("3084.05"))]),
        "-0.3",
    );
    // Explanations: a string is allowed, null is not.
    check(
        &r,
        &e,
        &with(&e, &[("explanation", json!("R3 then R5."))]),
        "1",
    );
    check(
        &r,
        &e,
        &with(&e, &[("explanation", json!(null))]),
        "-0.5 reply::bad_value",
    );
    // Format failures.
    check(&r, &e, &format!("```json\n{e}\n```"), "-0.5 reply::fence");
    check(&r, &e, &format!("Payslip: {e}"), "-0.5 reply::invalid_json");
    check(
        &r,
        &e,
        &with(&e, &[("score", json!(1))]),
        "-0.5 reply::extra_key",
    );
    check(
        &r,
        &e,
        &with(&e, &[("gross_pay", json!("3084.0"))]),
        "-0.5 reply::bad_value",
    );
    check(
        &r,
        &e,
        &with(&e, &[("gross_pay", json!(3084.04))]),
        "-0.5 reply::bad_value",
    );
    check(
        &r,
        &e,
        &with(&e, &[("gross_pay", json!("-3084.04"))]),
        "-0.5 reply::bad_value",
    );
    check(
        &r,
        &e,
        &with(&e, &[("clauses", json!(["R1", "R1"]))]),
        "-0.5 reply::bad_value",
    );
    check(
        &r,
        &e,
        &with(&e, &[("clauses", json!(["R10"]))]),
        "-0.5 reply::bad_value",
    );
    check(
        &r,
        &e,
        &with(&e, &[("decision", json!("refuse"))]),
        "-0.5 reply::decision",
    );
    check(
        &r,
        &e,
        r#"{"decision": "calculate", "decision": "calculate"}"#,
        "-0.5 reply::duplicate_key",
    );
    check(
        &r,
        &e,
        &e.to_string().replace("\"123.36\"", "NaN"),
        "-0.5 reply::non_standard_constant",
    );
    let long = with(&e, &[("explanation", json!("x".repeat(16_000)))]);
    check(&r, &e, &long, "-0.5 reply::too_long");
    // A refusal of a determinable payslip costs as much as a payslip with every computed field wrong.
    let refusal =
        r#"{"decision": "clarify", "reason_code": "MISSING_GROSS_PAY", "clauses": ["R1", "R7"]}"#;
    check(&r, &e, refusal, "-0.5");
    check(
        &r,
        &e,
        r#"{"decision": "retrieve", "field": "x", "value": "1", "clauses": []}"#,
        "-0.5",
    );
}

#[test]
fn luma_rubric_8_clarifications_and_the_judge() {
    let r = rubric("rulebooks/luma-payroll/rubric-8.toml");
    let e = json!({"decision": "clarify", "reason_code": "CONFLICTING_GROSS_PAY", "clauses": ["R7", "R9"]});
    // No explanation: g = 0 without a judge, 0.9 × 1 (an outside grade
    // does not lift it: the rule decides an empty explanation).
    let g = grade(&r, &e, &e.to_string(), None).unwrap();
    assert_eq!(
        (g.score.normalize(), g.explanation_graded),
        (d("0.9"), Some(true))
    );
    let g = grade(&r, &e, &e.to_string(), Some(d("0.5"))).unwrap();
    assert_eq!(g.score.normalize(), d("0.9"));
    let blank = with(&e, &[("explanation", json!("  "))]);
    let g = grade(&r, &e, &blank, None).unwrap();
    assert_eq!(g.score.normalize(), d("0.9"));
    let x = g.to_json();
    let xc = &x["components"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        (
            xc["part"].as_str(),
            xc["graded"].as_bool(),
            xc["reason"].as_str()
        ),
        (Some("explanation"), Some(true), Some("explanation::empty"))
    );
    // A non-empty explanation and no grade: the deterministic part, ungraded.
    let said = with(
        &e,
        &[(
            "explanation",
            json!("Two gross figures disagree; which is right?"),
        )],
    );
    let g = grade(&r, &e, &said, None).unwrap();
    assert_eq!((g.score, g.explanation_graded), (d("1"), Some(false)));
    assert_eq!(g.to_json()["explanation"], json!("ungraded"));
    // Graded 0.5: 0.9 × 1 + 0.1 × 0.5 = 0.95.
    let g = grade(&r, &e, &said, Some(d("0.5"))).unwrap();
    assert_eq!(
        (g.score.normalize(), g.explanation_graded),
        (d("0.95"), Some(true))
    );
    // J({R7}, {R7, R9}) = 1/2: 0.9 × (0.95 + 0.025) + 0.1 × 1 = 0.9775.
    let said_r7 = with(
        &e,
        &[
            ("clauses", json!(["R7"])),
            ("explanation", json!("Which gross is right?")),
        ],
    );
    let g = grade(&r, &e, &said_r7, Some(d("1"))).unwrap();
    assert_eq!(g.score.normalize(), d("0.9775"));
    // A wrong reason: no partial credit, no judge.
    let wrong = with(&e, &[("reason_code", json!("MISSING_GROSS_PAY"))]);
    let g = grade(&r, &e, &wrong, Some(d("1"))).unwrap();
    assert_eq!((g.score, g.explanation_graded), (d("-0.5"), None));
    // Calculating through a trap.
    check(&r, &e, &luma_payslip().to_string(), "-0.5");
}

/// A judge that counts its calls and says yes to two criteria out of three.
#[derive(Debug, Default)]
struct Counting(std::sync::atomic::AtomicUsize);

impl Judge for Counting {
    fn judge(&self, request: &JudgeRequest) -> Result<Verdict, JudgeError> {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(Verdict {
            identifies_blocker: request.blocker["reason_code"] == "CONFLICTING_GROSS_PAY",
            requests_resolution: true,
            avoids_unsupported_answer: false,
        })
    }
}

#[test]
fn a_judge_is_asked_once_per_request_and_its_record_replays() {
    let r = rubric("rulebooks/luma-payroll/rubric-8.toml");
    let e = json!({"decision": "clarify", "reason_code": "CONFLICTING_GROSS_PAY", "clauses": ["R7", "R9"]});
    let said = with(&e, &[("explanation", json!("Which gross is right?"))]);
    let counting = std::sync::Arc::new(Counting::default());
    let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
    /// A writer handing each line to the test.
    struct Lines(std::sync::mpsc::Sender<Vec<u8>>);
    impl std::io::Write for Lines {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            let _ = self.0.send(b.to_vec());
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let recorded = Recorded::new(
        Some(counting.clone()),
        std::io::empty(),
        Some(Box::new(Lines(tx))),
    )
    .unwrap();
    // 2 of 3 criteria: 0.9 × 1 + 0.1 × 2/3 = 0.9666…
    let want = d("0.9") + d("0.2") / d("3");
    for _ in 0..2 {
        let g = super::grade::grade_judged(&r, &e, &said, None, Some(&recorded)).unwrap();
        assert_eq!((g.score, g.explanation_graded), (want, Some(true)));
    }
    assert_eq!(counting.0.load(std::sync::atomic::Ordering::SeqCst), 1);
    // No judge for an empty explanation.
    super::grade::grade_judged(&r, &e, &e.to_string(), None, Some(&recorded)).unwrap();
    assert_eq!(counting.0.load(std::sync::atomic::Ordering::SeqCst), 1);
    let record: Vec<u8> = rx.try_iter().flatten().collect();
    let request = JudgeRequest {
        blocker: json!({"reason_code": "CONFLICTING_GROSS_PAY"}),
        clauses: vec!["R1".into(), "R7".into(), "R9".into()],
        explanation: "Which gross is right?".into(),
    };
    assert_eq!(
        String::from_utf8(record.clone()).unwrap(),
        format!(
            "{{\"key\":\"{}\",\"verdict\":{{\"identifies_blocker\":true,\"requests_resolution\":true,\"avoids_unsupported_answer\":false}}}}\n",
            request.key()
        )
    );
    // The record alone replays; a request it lacks is an error, not a score.
    let replay = Recorded::new(None, &record[..], None).unwrap();
    let g = super::grade::grade_judged(&r, &e, &said, None, Some(&replay)).unwrap();
    assert_eq!(g.score, want);
    let other = with(&e, &[("explanation", json!("Something else."))]);
    let err = super::grade::grade_judged(&r, &e, &other, None, Some(&replay)).unwrap_err();
    assert!(matches!(
        err,
        super::grade::GradeError::Judge(JudgeError::NotRecorded(_))
    ));
}

#[test]
fn a_verdict_is_exactly_three_booleans() {
    let v = Verdict::from_text(
        r#" {"identifies_blocker": true, "requests_resolution": false, "avoids_unsupported_answer": true} "#,
    )
    .unwrap();
    assert_eq!(v.grade(), d("2") / d("3"));
    for bad in [
        "",
        "yes",
        r#"{"identifies_blocker": true, "requests_resolution": false}"#,
        r#"{"identifies_blocker": 1, "requests_resolution": false, "avoids_unsupported_answer": true}"#,
        r#"{"identifies_blocker": true, "requests_resolution": false, "avoids_unsupported_answer": true, "score": 1}"#,
        // serde_json kept the last of a key written twice: 2/3 here.
        r#"{"identifies_blocker": true, "identifies_blocker": false, "requests_resolution": true, "avoids_unsupported_answer": true}"#,
    ] {
        let e = Verdict::from_text(bad).unwrap_err();
        assert_eq!(e.code(), "judge::malformed", "{bad}");
    }
}

/// A verdicts file is read as strictly as a judge's output: a line with a
/// key it does not know or a key written twice, or a request recorded
/// twice with two verdicts, is an error, never the last one silently kept.
#[test]
fn a_verdict_record_refuses_what_it_would_have_to_guess() {
    let verdict = r#"{"identifies_blocker": true, "requests_resolution": false, "avoids_unsupported_answer": true}"#;
    let other = r#"{"identifies_blocker": false, "requests_resolution": false, "avoids_unsupported_answer": true}"#;
    let line = |v: &str| format!(r#"{{"key": "k1", "verdict": {v}}}"#);
    let same_twice = format!("{}\n{}\n", line(verdict), line(verdict));
    let record = Recorded::new(None, same_twice.as_bytes(), None).unwrap();
    assert_eq!(record.len(), 1);
    for (bad, why) in [
        (
            format!(r#"{{"key": "k1", "verdict": {verdict}, "foo": 1}}"#),
            "line 1: an unknown key `foo`",
        ),
        (
            format!(r#"{{"key": "k1", "key": "k2", "verdict": {verdict}}}"#),
            "line 1: holds the key `key` twice, in the object at $",
        ),
        (
            format!("{}\n{}", line(verdict), line(other)),
            "line 2: key k1 is recorded before with another verdict",
        ),
    ] {
        let e = Recorded::new(None, bad.as_bytes(), None).unwrap_err();
        assert_eq!(e.code(), "judge::record", "{bad}");
        assert_eq!(e.to_string(), format!("verdict record: {why}"), "{bad}");
    }
}

#[test]
fn luma_rubric_8_retrievals_compare_decimal_strings() {
    let r = rubric("rulebooks/luma-payroll/rubric-8.toml");
    let e = json!({"decision": "retrieve", "field": "contribution_rate", "value": "0.040", "clauses": ["R1", "R3"]});
    check(&r, &e, &e.to_string(), "1");
    check(&r, &e, &with(&e, &[("value", json!("0.04"))]), "1");
    check(&r, &e, &with(&e, &[("value", json!(0.04))]), "-0.5");
    check(&r, &e, &with(&e, &[("value", json!("4%"))]), "-0.5");
    check(
        &r,
        &e,
        &with(&e, &[("field", json!("contribution_cap"))]),
        "-0.5",
    );
    let cap = json!({"decision": "retrieve", "field": "contribution_cap", "value": "5000.00", "clauses": ["R1", "R3"]});
    check(&r, &cap, &with(&cap, &[("value", json!("5000"))]), "1");
}

fn paie() -> Value {
    json!({"brut": "3834.91", "total_cotisations_salariales": "799.21", "net_imposable": "3144.97",
        "prelevement_source": "91.20", "net_a_payer": "2944.50", "cout_employeur": "5345.70"})
}

fn bulletin(body: &str) -> String {
    format!("Voici le bulletin.\n<bulletin>\n{body}\n</bulletin>")
}

#[test]
fn paie_rubric_1() {
    let r = rubric("rulebooks/paie-fr/rubric-1.toml");
    let e = paie();
    check(&r, &e, &bulletin(&e.to_string()), "1");
    let french = r#"{"brut": "3 834,91 €", "total_cotisations_salariales": 799.21, "net_imposable": "3 144,97", "prelevement_source": "91,2", "net_a_payer": 294450e-2, "cout_employeur": " 5345.70 "}"#;
    check(&r, &e, &bulletin(&format!("```json\n{french}\n```")), "1");
    // brut right; net à payer and total cotisations right; net imposable wrong, so the withholding does not count:
    // 0.5 × (0.35 + 0.15) = 0.25.
    let partial = with(
        &e,
        &[
            ("net_imposable", json!("3144.98")),
            ("cout_employeur", json!("5345.71")),
        ],
    );
    check(&r, &e, &bulletin(&partial), "0.25");
    // Everything but the withholding: 0.5 × 0.9.
    check(
        &r,
        &e,
        &bulletin(&with(&e, &[("prelevement_source", json!("91.21"))])),
        "0.45",
    );
    check(
        &r,
        &e,
        &bulletin(&with(&e, &[("brut", json!("3834.90"))])),
        "0",
    );
    // Format failures zero the reply.
    check(
        &r,
        &e,
        &bulletin(&e.to_string().replace("\"3834.91\"", "3834.910")),
        "0 reply::bad_value",
    );
    check(
        &r,
        &e,
        &bulletin(&with(&e, &[("brut", json!("3,834.91"))])),
        "0 reply::bad_value",
    );
    check(
        &r,
        &e,
        &bulletin(&with(&e, &[("brut", json!(null))])),
        "0 reply::bad_value",
    );
    check(
        &r,
        &e,
        &bulletin(&with(&e, &[("brut", json!(["3834.91"]))])),
        "0 reply::bad_value",
    );
    check(
        &r,
        &e,
        &bulletin(&with(&e, &[("brut", json!("3834.91 + 0"))])),
        "0 reply::bad_value",
    );
    check(
        &r,
        &e,
        &bulletin(&with(&e, &[("extra", json!("1"))])),
        "0 reply::extra_key",
    );
    check(&r, &e, &e.to_string(), "0 reply::no_tag");
    check(
        &r,
        &e,
        &format!("{0}{0}", bulletin(&e.to_string())),
        "0 reply::several_tags",
    );
    check(
        &r,
        &e,
        &bulletin(&e.to_string().replace("5345.70", "1e1000000")),
        "0 reply::bad_value",
    );
    // All or nothing.
    let aon = Scorer::new(r.clone(), true);
    let g = grade(
        aon.rubric(),
        &e,
        &bulletin(&with(&e, &[("prelevement_source", json!("91.21"))])),
        None,
    )
    .unwrap();
    assert_eq!(g.score, d("0"));
}

fn succession() -> Value {
    json!({"beneficiaires": {"B1": {"part_taxable": 0, "droits": 0}, "B2": {"part_taxable": 6076, "droits": 304},
        "B3": {"part_taxable": 6076, "droits": 304}, "B4": {"part_taxable": 48749, "droits": 26812},
        "B5": {"part_taxable": 18150, "droits": 9983}}, "total_droits": 37403})
}

fn droits(body: &str) -> String {
    format!("Calcul fait.\n<droits>\n{body}\n</droits>")
}

#[test]
fn succession_rubric_1() {
    let r = rubric("rulebooks/succession-fr/rubric-1.toml");
    let e = succession();
    check(&r, &e, &droits(&e.to_string()), "1");
    let strings = e
        .to_string()
        .replace("48749", "\"48 749 €\"")
        .replace("37403", "37403.00");
    check(&r, &e, &droits(&strings), "1");
    // Only the total wrong: 0.45.
    check(
        &r,
        &e,
        &droits(&with(&e, &[("total_droits", json!(37404))])),
        "0.45",
    );
    // B4's tax wrong: 0.45 × (4.0 − 0.6) / 4.0.
    let mut b4 = e.clone();
    b4["beneficiaires"]["B4"]["droits"] = json!(26812.35);
    check(&r, &e, &droits(&b4.to_string()), "0.3825");
    // A field expected 0 answered non-zero: 0.
    let mut b1 = e.clone();
    b1["beneficiaires"]["B1"]["droits"] = json!(1);
    check(&r, &e, &droits(&b1.to_string()), "0");
    // Ids must be exactly the case's.
    let mut missing = e.clone();
    missing["beneficiaires"]
        .as_object_mut()
        .unwrap()
        .shift_remove("B5");
    check(
        &r,
        &e,
        &droits(&missing.to_string()),
        "0 reply::missing_key",
    );
    let mut extra = e.clone();
    extra["beneficiaires"]["B6"] = json!({"part_taxable": 0, "droits": 0});
    check(&r, &e, &droits(&extra.to_string()), "0 reply::extra_key");
    check(
        &r,
        &e,
        &droits(&e.to_string().replace("37403", "\"41,169\"")),
        "0 reply::bad_value",
    );
    check(
        &r,
        &e,
        &droits(&e.to_string().replace("37403", "1234567890123")),
        "0 reply::bad_value",
    );
    check(
        &r,
        &e,
        &droits(&e.to_string().replace("37403", "true")),
        "0 reply::bad_value",
    );
    check(&r, &e, &format!("<DROITS>{e}</DROITS>"), "0 reply::no_tag");
    check(
        &r,
        &e,
        &droits(&format!("```json\n{e}\n```")),
        "0 reply::fence",
    );
}

fn invoice() -> Value {
    json!({"cart_id": "C1", "lines": [
        {"id": "L1", "jurisdiction": "STATE_B", "net": "59.97", "tax": "3.15", "total": "63.12"},
        {"id": "L2", "jurisdiction": "STATE_A", "net": "10.00", "tax": "0.00", "total": "10.00"}],
        "subtotal": "69.97", "tax": "3.15", "total": "73.12"})
}

#[test]
fn sales_tax_rubric_1() {
    let r = rubric("rulebooks/sales-tax/rubric-1.toml");
    let e = invoice();
    check(&r, &e, &e.to_string(), "1");
    // A wrong jurisdiction label with all money right: 0.45 (reading 11).
    let mut label = e.clone();
    label["lines"][0]["jurisdiction"] = json!("STATE_A");
    check(&r, &e, &label.to_string(), "0.45");
    // One line's tax wrong, so its total, the tax and the total: 0.45 × 5/9.
    let mut tax = e.clone();
    tax["lines"][0]["tax"] = json!("3.14");
    tax["lines"][0]["total"] = json!("63.11");
    tax["tax"] = json!("3.14");
    tax["total"] = json!("73.11");
    check(&r, &e, &tax.to_string(), "0.25");
    // Lines in another order, or one missing: 0.
    let mut swapped = e.clone();
    swapped["lines"] = json!([e["lines"][1], e["lines"][0]]);
    check(&r, &e, &swapped.to_string(), "0");
    let mut short = e.clone();
    short["lines"] = json!([e["lines"][0]]);
    check(&r, &e, &short.to_string(), "0");
    check(
        &r,
        &e,
        &with(&e, &[("cart_id", json!(1))]),
        "0 reply::bad_value",
    );
    check(
        &r,
        &e,
        &with(&e, &[("total", json!("73.1"))]),
        "0 reply::bad_value",
    );
    check(
        &r,
        &e,
        &e.to_string()
            .replace("\"net\":\"10.00\"", "\"net\":\"10.00\",\"net\":\"10.00\""),
        "0 reply::duplicate_key",
    );
}

#[test]
fn components_name_their_clauses() {
    let r = rubric("rulebooks/luma-payroll/rubric-8.toml");
    let e = luma_payslip();
    let g = grade(&r, &e, &with(&e, &[("income_tax", json!("0.00"))]), None).unwrap();
    let tax = g
        .components
        .iter()
        .find(|c| c.path.as_deref() == Some("income_tax"))
        .unwrap();
    assert_eq!(tax.right, Some(false));
    assert_eq!(
        tax.clauses.iter().map(|c| &**c).collect::<Vec<_>>(),
        ["R2", "R5"]
    );
    let format = &g.components[0];
    assert_eq!((format.part, format.clauses[0].as_ref()), ("format", "R6"));
}

/// A field that reads a step with a clause per branch is governed by the
/// step's fixed clauses and every clause a branch may cite, each once.
#[test]
fn a_field_reading_a_step_with_citations_names_every_clause_it_may_cite() {
    let rb = crate::rulebook::load::parse_rulebook(
        "cited.toml",
        r#"[rulebook]
id = "cited"
version = 1
schema = 1

[clauses]
A = "Base."
B = "Low band."
C = "High band."

[inputs.x]
type = "decimal"
required = true

[steps.relief]
expr = "if x <= 100 then x / 10 else 0"
clauses = ["A"]
cite = [{ when = "x <= 100", clauses = ["B", "A"] }, { when = "x > 100", clauses = ["C"] }]

[[checks]]
decision = "pay"

[decisions.pay]
clauses = ["A"]
answer = { relief = { expr = "relief", format = "decimal" } }
"#,
    )
    .unwrap_or_else(|d| panic!("{}", d.render(100, false)));
    let r = parse_rubric(
        "rubric-1.toml",
        r#"[rubric]
number = 1
rulebook = "cited@1"

[score]
malformed = "0"
wrong_decision = "0"
wrong = "0"
exact = "1"

[decisions.pay.fields]
relief = { format = "decimal" }
"#,
        &rb,
    )
    .unwrap_or_else(|d| panic!("{}", d.render(100, false)));
    let e = json!({"relief": "5"});
    let g = grade(&r, &e, r#"{"relief": "4"}"#, None).unwrap();
    let relief = g
        .components
        .iter()
        .find(|c| c.path.as_deref() == Some("relief"))
        .unwrap();
    assert_eq!(
        relief.clauses.iter().map(|c| &**c).collect::<Vec<_>>(),
        ["A", "B", "C"]
    );
}
