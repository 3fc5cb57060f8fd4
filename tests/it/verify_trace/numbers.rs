//! Numbers past a decimal's places, at another scale, as fractions, and
//! as the engine writes them in an answer.

use super::*;

/// A value changed past its 28th place is a change: read the way
/// rust_decimal's `parse` reads it (rounded to 28 places), `302.40` with a
/// 1 in its 31st place passed for the value computed.
#[test]
fn a_value_changed_past_28_places_does_not_follow() {
    let rb = load_rulebook(Path::new("rulebooks/luma-payroll/v3")).expect("bundled rulebook");
    let case = serde_json::json!({"task": "payslip", "gross_pay": "3650.00",
        "payroll_month": "2026-09", "allowed_deduction": "120.00", "contract_gross_pay": "3500.00"});
    let line = traced(&rb, &case).expect("a trace");
    assert!(verdict(&rb, &line, &case).follows());
    let mut json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    let events = json["trace"]["events"].as_array_mut().expect("events");
    let step = events
        .iter_mut()
        .find(|e| e["event"] == "step" && e["value"].as_str().is_some_and(|v| v.contains('.')))
        .expect("a step with a decimal value");
    let at = event_at(step);
    let changed = format!(
        "{}{}1",
        step["value"].as_str().unwrap_or(""),
        "0".repeat(28)
    );
    step["value"] = serde_json::Value::String(changed.clone());
    let v = verdict(&rb, &json.to_string(), &case);
    assert!(!v.follows(), "{changed} passed");
    assert!(
        v.findings.iter().any(|f| f.to_string().contains(&at)),
        "{changed} at {at}: {:?}",
        v.findings.iter().map(|f| f.to_string()).collect::<Vec<_>>()
    );
}

/// A `decimal` answer is written as held, scale kept, so its text is the
/// answer: Luma's retrieval of a supplied `"275.5"` deduction (money, held
/// at two places) answers `"275.50"`, and `"275.5"` or `"275.500"`, the
/// same value, are not what the engine writes. The verifier compared them
/// by value (its decoding dropped money's scale).
#[test]
fn a_decimal_answer_at_another_scale_does_not_follow() {
    let rb = load_rulebook(Path::new("rulebooks/luma-payroll/v3")).expect("bundled rulebook");
    let case = serde_json::json!({"task": "retrieval", "payroll_month": "2026-04",
        "field": "deduction_cap", "reference_tables": {
            "first-half": {"rate": "0.05", "cap": "4800.00", "deduction": "275.5",
                "free": "1000.00", "upper": "3300.00", "middle_rate": "0.10", "upper_rate": "0.22"},
            "second-half": {"rate": "0.04", "cap": "5000.00", "deduction": "350.00",
                "free": "1100.00", "upper": "3000.00", "middle_rate": "0.08", "upper_rate": "0.20"}}});
    let line = traced(&rb, &case).expect("a trace");
    let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    assert_eq!(json["answer"]["value"], "275.50", "{line}");
    assert!(findings(&rb, &json, &case).is_empty(), "{line}");
    for other in ["275.5", "275.500", "0275.50"] {
        let mut j = json.clone();
        j["answer"]["value"] = serde_json::json!(other);
        let found = findings(&rb, &j, &case);
        assert_eq!(
            found,
            [format!(
                "answer value: value: recorded {other}, follows 275.50"
            )],
            "{other}"
        );
    }
}

/// A finite fraction too long for a decimal (a share of 1/2^39, and its
/// product with an amount) is written as every digit of it: the verifier
/// reads those digits as the exact fraction, in the inputs and in a step,
/// and a digit changed in the 41st place is a finding.
#[test]
fn a_long_finite_fraction_is_written_in_full_and_verified() {
    let rb = part_rulebook(
        "share",
        r#"
[inputs.share]
type = "fraction"
required = true

[inputs.amount]
type = "money"
required = true

[steps.part]
expr = "amount * share"
round = { places = 2, mode = "half_up" }
"#,
    );
    let case = serde_json::json!({"share": "1/549755813888", "amount": "12345678.91"});
    let line = traced(&rb, &case).expect("a trace");
    let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    let trace = &json["trace"];
    assert_eq!(
        trace["inputs"][0]["value"],
        "0.000000000001818989403545856475830078125"
    );
    let step = &trace["events"][1];
    // 12345678.91 / 2^39, exactly: 41 places.
    let exact = "0.00002245665911686955951154232025146484375";
    assert_eq!(
        (&step["step"], &step["exact"]),
        (&"part".into(), &exact.into())
    );
    assert!(verdict(&rb, &line, &case).follows());

    let changed = line.replace(exact, "0.00002245665911686955951154232025146484376");
    assert_ne!(changed, line);
    let v = verdict(&rb, &changed, &case);
    assert!(!v.follows(), "a change in the 41st place passed");
    assert!(v.findings.iter().any(|f| f.to_string().contains("part")));
}

/// A fraction with terms past a case's bound (10^12) is read by value:
/// the same value written unreduced follows, a numerator one more does not.
#[test]
fn a_wide_fraction_is_compared_by_value() {
    let rb = part_rulebook(
        "seventh",
        r#"
[inputs.amount]
type = "money"
required = true

[steps.seventh]
expr = "amount / 7"

[steps.part]
expr = "seventh"
round = { places = 2, mode = "half_up" }
"#,
    );
    let case = serde_json::json!({"amount": "123456789012345.68"});
    let line = traced(&rb, &case).expect("a trace");
    let exact = "3086419725308642/175";
    assert!(line.contains(&format!(r#""value":"{exact}""#)), "{line}");
    assert!(verdict(&rb, &line, &case).follows());
    let unreduced = line.replace(exact, "6172839450617284/350");
    assert!(verdict(&rb, &unreduced, &case).follows());
    let changed = line.replace(exact, "3086419725308643/175");
    let v = verdict(&rb, &changed, &case);
    assert!(!v.follows(), "a numerator one more passed");
    assert!(v.findings.iter().any(|f| f.to_string().contains("seventh")));
}

#[test]
fn a_long_recorded_text_is_shown_clipped_and_kept_whole() {
    let dir = "rulebooks/luma-payroll/v3";
    let rb = load_rulebook(Path::new(dir)).expect("bundled rulebook");
    let (_, case) = cases(Path::new(dir))
        .expect("cases")
        .into_iter()
        .next()
        .expect("a case");
    let line = traced(&rb, &case).expect("a trace");
    let mut json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    let long = vec!["1"; 50_000].join(" + ");
    let step = json["trace"]["events"]
        .as_array_mut()
        .and_then(|events| events.iter_mut().find(|e| e["event"] == "step"))
        .expect("a step event");
    step["formula"] = serde_json::Value::String(long.clone());
    let v = verdict(&rb, &json.to_string(), &case);
    let finding = v
        .findings
        .iter()
        .find(|f| f.recorded == long)
        .expect("the changed formula is named");
    let shown = finding.to_string();
    assert!(shown.len() < 1_000, "{} bytes shown", shown.len());
    assert!(
        shown.contains(&format!("… ({} bytes), follows ", long.len())),
        "{shown}"
    );
}

/// An answer's numbers are as the engine writes them, not only their
/// values: an `integer` field a JSON integer (`12570`, not `12570.0`,
/// `"12570"` or `1.257e4`), a money field without a sign on zero.
#[test]
fn answer_numbers_are_written_as_the_engine_writes_them() {
    use serde_json::json;
    let rb = load_rulebook(Path::new("examples/regional-payroll/v2026")).expect("regional");
    let case =
        json!({"tax_code": "K1257L", "tax_month": 1, "gross_pay": "3000.00", "category": "A"});
    let line = traced(&rb, &case).expect("a trace");
    let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    assert!(findings(&rb, &json, &case).is_empty(), "{line}");
    assert_eq!(json["answer"]["annual_allowance"], json!(12570));
    assert_eq!(json["answer"]["pension"], json!("0.00"));
    let forged: [(&str, serde_json::Value); 5] = [
        ("annual_allowance", json!(12570.0)),
        ("annual_allowance", json!("12570")),
        (
            "annual_allowance",
            serde_json::from_str("1.257e4").expect("a number"),
        ),
        ("pension", json!("-0.00")),
        ("pension", json!("+0.00")),
    ];
    for (field, value) in forged {
        let mut j = json.clone();
        j["answer"][field] = value.clone();
        let found = findings(&rb, &j, &case);
        assert!(
            found.len() == 1 && found[0].starts_with(&format!("answer {field}: value: ")),
            "{field} {value}: {found:?}"
        );
    }
    // The same text in another kind of JSON value says so: it read
    // "recorded 12570, follows 12570", which shows no difference.
    let mut j = json.clone();
    j["answer"]["annual_allowance"] = json!("12570");
    assert_eq!(
        findings(&rb, &j, &case),
        ["answer annual_allowance: value: recorded 12570, follows 12570 (the same text, written as another kind of JSON value: a string against a number, a boolean or null)"]
    );
}
