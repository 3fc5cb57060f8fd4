//! The language constructs of issue 16 (`tests/lang`): the test rulebook's
//! conformance cases pass on both interpreter roads, and its compiled module
//! (`tests/compiled/lang.rs`) is what the generator writes now and gives the
//! interpreter's outcome on every case, answering them itself.


#[rustfmt::skip]
#[path = "../compiled/lang.rs"]
mod lang_compiled;

const DIR: &str = "tests/lang";

#[test]
fn the_language_rulebook_passes_its_cases() {
    let rb = super::rulebook(DIR);
    let (cases, failures) = super::conformance::failures_of(&rb, &super::root().join(DIR));
    assert!(cases >= 3);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn its_compiled_module_is_current_and_agrees_with_the_interpreter() {
    super::compiled::agrees_on_its_cases(&lang_compiled::COMPILED, DIR, "lang");
}

/// A text that is not a decimal is a fault located at the call, the same on
/// both interpreter roads; the compiled module hands the case back and so
/// gives the same fault.
#[test]
fn a_malformed_code_is_a_located_fault_on_every_road() {
    let rb = super::rulebook(DIR);
    let case = serde_json::json!({"x": "1", "code": "S12X4L"});
    let facts = bareme::validate_case(&rb, &case).expect("a valid case");
    let want = "`to_decimal`: \"12X4\" is not a decimal number (in step code_amount: \
                `to_decimal(slice(code, if code_region == 'none' then 0 else 1, n - 1))`)";
    for traced in [false, true] {
        let err = bareme::evaluate(&rb, &facts, traced)
            .err()
            .map(|e| e.to_string());
        assert!(err.as_deref().is_some_and(|e| e.contains(want)), "{err:?}");
    }
    let bound = super::compiled::bind(&lang_compiled::COMPILED, &rb, "lang");
    let (got, by_code) = super::compiled::compiled(&bound, &rb, &case);
    assert_eq!(got, super::compiled::interpreted(&rb, &case));
    assert!(!by_code);
}

/// A pattern input holds a text: anything else is refused at its path,
/// before the pattern is tried.
#[test]
fn a_pattern_input_must_be_a_text() {
    let rb = super::rulebook(DIR);
    let case = serde_json::json!({"x": "1", "tax_code": 1250});
    let err = bareme::validate_case(&rb, &case)
        .err()
        .map(|e| (e.path, e.message));
    assert_eq!(
        err,
        Some((
            "tax_code".to_string(),
            "must be a text, found a number".to_string()
        ))
    );
}

/// A list of texts read through a pattern whose group is `unique`:
/// every item, valid or not, was refused as "must be an object, found a
/// string" (its road for unique fields read records only).
#[test]
fn pattern_items_with_a_unique_group_are_read_as_texts() {
    let rb = bareme::parse_rulebook(
        "codes.toml",
        r#"[rulebook]
id = "codes"
version = 1
schema = 1

[inputs.codes]
type = "list"
items = { type = "text", pattern = '^(?P<letter>[A-Z])(?P<n>\d)$', fields = { letter = { type = "text", unique = true }, n = { type = "integer" } } }

[steps.total]
expr = "sum([c.n for c in codes])"

[[checks]]
decision = "d"

[decisions.d.answer]
total = { expr = "total", format = "integer" }
"#,
    )
    .expect("the rulebook loads");
    let outcome = |codes: serde_json::Value| match bareme::evaluate_value(
        &rb,
        &serde_json::json!({ "codes": codes }),
        false,
    ) {
        Ok((bareme::Outcome::Answer(a), _)) => a.to_json().to_string(),
        Ok((bareme::Outcome::Rejected(e), _)) => format!("{}: {}", e.path, e.message),
        other => panic!("{other:?}"),
    };
    assert_eq!(outcome(serde_json::json!(["A1", "B2"])), r#"{"total":3}"#);
    assert_eq!(
        outcome(serde_json::json!(["A1", "A2"])),
        r#"codes[1].letter: repeats "A" of codes[0]"#
    );
    assert_eq!(
        outcome(serde_json::json!(["A1", null])),
        "codes[1]: must be a text, found null"
    );
    assert_eq!(
        outcome(serde_json::json!(["A1", "zz"])),
        r#"codes[1]: "zz" does not match the pattern ^(?P<letter>[A-Z])(?P<n>\d)$"#
    );
    // `\d` matches a digit of any script: the group is quoted, as it is
    // no whole number (the message said only "found a string").
    assert_eq!(
        outcome(serde_json::json!(["A\u{0663}"])),
        "codes[0].n: must be a whole number, found the string \"\u{0663}\""
    );
}

/// The trace of a step with a clause per branch: each `cite` condition is
/// shown with its verdict under the step, and the clauses of those that
/// held follow the step's own (`[L1, L2]`); a per-item step cites only on
/// the items where its condition holds.
#[test]
fn a_clause_per_branch_in_the_trace_text() {
    let rb = super::rulebook(DIR);
    let case = serde_json::json!({"x": "50", "amounts": ["0.5", "3"], "cite_case": true});
    let (_, trace) = bareme::evaluate_value(&rb, &case, true).expect("evaluates");
    let text = bareme::render_text(&trace.expect("trace requested"));
    assert!(
        text.contains("  step relief — Relief, tapered above 100 [L1, L2]\n"),
        "{text}"
    );
    assert!(text.contains("  step parts[0].kept\n"), "{text}");
    assert!(text.contains("  step parts[1].kept [L4]\n"), "{text}");
    insta::assert_snapshot!(text);
}

/// In JSON, the step's `clauses` are its own and then the held citations',
/// and `cites` lists every condition with its verdict (above the taper,
/// L3 and not L2).
#[test]
fn a_clause_per_branch_in_the_trace_json() {
    let rb = super::rulebook(DIR);
    let case = serde_json::json!({"x": "160", "cite_case": true});
    let (_, trace) = bareme::evaluate_value(&rb, &case, true).expect("evaluates");
    let mut written = Vec::new();
    bareme::unstable::trace::write_trace_json(&mut written, &trace.expect("trace requested"))
        .expect("a trace within its bound");
    let trace: serde_json::Value = serde_json::from_slice(&written).expect("JSON");
    let relief = trace["events"]
        .as_array()
        .and_then(|events| events.iter().find(|e| e["step"] == "relief"))
        .expect("the step relief");
    insta::assert_snapshot!(serde_json::to_string_pretty(relief).expect("JSON text"));
}

/// A `cite` condition can fault (here a division by zero): the fault is
/// named at the citation, the same on both interpreter roads, and the
/// compiled module, which evaluates the conditions too, hands the case back.
#[test]
fn a_faulting_citation_is_named_there_on_every_road() {
    let rb = super::rulebook(DIR);
    let case = serde_json::json!({"x": "50", "divisor": "0", "cite_case": true});
    let facts = bareme::validate_case(&rb, &case).expect("a valid case");
    let want = "division by zero (50 / 0) (in citation of step relief: `x / divisor`)";
    for traced in [false, true] {
        let err = bareme::evaluate(&rb, &facts, traced)
            .err()
            .map(|e| e.to_string());
        assert!(err.as_deref().is_some_and(|e| e.contains(want)), "{err:?}");
    }
    let bound = super::compiled::bind(&lang_compiled::COMPILED, &rb, "lang");
    let (got, by_code) = super::compiled::compiled(&bound, &rb, &case);
    assert_eq!(got, super::compiled::interpreted(&rb, &case));
    assert!(!by_code);
}

/// Prefix `-` never makes a negative zero: `-x` of `0.00` is `0.00` in the
/// trace (as the case's `-0.00` is read, and as the answer writes it), and
/// a position computed by negation is a position, traced or not; any other
/// number is negated with its places.
#[test]
fn negating_a_zero_gives_a_zero_not_a_negative_zero() {
    let rb = bareme::parse_rulebook(
        "negate.toml",
        r#"[rulebook]
id = "negate"
version = 1
schema = 1

[inputs.x]
type = "decimal"
required = true

[steps.n]
expr = "-x"

[steps.m]
expr = "-(x + 1.25)"

[steps.s]
expr = "slice('abc', -x, 2)"

[[checks]]
decision = "ok"

[decisions.ok.answer]
n = { expr = "n", format = "decimal" }
m = { expr = "m", format = "decimal" }
s = { expr = "s", format = "text" }
"#,
    )
    .expect("the rulebook loads");
    for x in ["0.00", "-0.00"] {
        let case = serde_json::json!({ "x": x });
        for traced in [false, true] {
            let (outcome, trace) = bareme::evaluate_value(&rb, &case, traced).expect("evaluates");
            let answer = bareme::unstable::outcome::outcome_json(Ok(&outcome));
            assert_eq!(answer["n"], "0.00", "{x} traced {traced}");
            assert_eq!(answer["m"], "-1.25", "{x} traced {traced}");
            assert_eq!(answer["s"], "ab", "{x} traced {traced}");
            if let Some(trace) = trace {
                let mut written = Vec::new();
                bareme::unstable::trace::write_trace_json(&mut written, &trace)
                    .expect("a trace within its bound");
                let text = String::from_utf8(written).expect("UTF-8");
                assert!(text.contains(r#""exact":"0.00","value":"0.00""#), "{text}");
                assert!(!text.contains("-0.00"), "{text}");
            }
        }
    }
}

/// `+ - *` are exact on both roads: a zero operand keeps the places of both
/// (rust_decimal's shortcut gave `1.5` and `0`), and a product of more places
/// than a decimal holds is an exact fraction, never rounded (rust_decimal gave
/// `0.0000000000000000000000000000` for 10^-16 × 10^-16).
#[test]
fn sums_and_products_are_exact_and_keep_their_places() {
    let rb = bareme::parse_rulebook(
        "exact.toml",
        r#"[rulebook]
id = "exact"
version = 1
schema = 1

[inputs.x]
type = "decimal"
required = true

[inputs.y]
type = "decimal"
required = true

[steps.s]
expr = "x + y"

[steps.p]
expr = "x * y"

[steps.back]
expr = "p * 10000000000000000"

[steps.r]
expr = "round(p * 1000000000000000 * 1000000000000000, 2)"

[[checks]]
decision = "ok"

[decisions.ok.answer]
s = { expr = "s", format = "decimal" }
back = { expr = "back", format = "decimal" }
r = { expr = "r", format = "money" }
"#,
    )
    .expect("the rulebook loads");
    let tiny = "0.0000000000000001";
    // (x, y) → (s, back, r, p as the trace writes it)
    let expected = [
        (("0.00", "1.5"), ("1.50", "0.000", "0.00", "0.000")),
        (
            (tiny, tiny),
            // 10^-32 × 10^16 is 10^-16 again, and × 10^30 it is 0.01
            // (rounded at 28 places first, it was 0.00).
            (
                "0.0000000000000002",
                tiny,
                "0.01",
                "0.00000000000000000000000000000001",
            ),
        ),
    ];
    for ((x, y), (s, back, r, p)) in expected {
        let case = serde_json::json!({ "x": x, "y": y });
        for traced in [false, true] {
            let (outcome, trace) = bareme::evaluate_value(&rb, &case, traced).expect("evaluates");
            let a = bareme::unstable::outcome::outcome_json(Ok(&outcome));
            assert_eq!(
                (&a["s"], &a["back"], &a["r"]),
                (&s.into(), &back.into(), &r.into()),
                "{x} {y} traced {traced}"
            );
            if let Some(trace) = trace {
                let mut written = Vec::new();
                bareme::unstable::trace::write_trace_json(&mut written, &trace)
                    .expect("a trace within its bound");
                let text = String::from_utf8(written).expect("UTF-8");
                let step = r#""formula":"x * y","#;
                let value = format!(r#""exact":"{p}","value":"{p}""#);
                assert!(text.contains(step) && text.contains(&value), "{text}");
            }
        }
    }
}
