//! The JSON Schema of a rulebook's cases (`bareme schema --case`), checked
//! with the `jsonschema` crate against every conformance case.
//!
//! The schema is sound, not complete: a case the validator accepts is never
//! refused by it; it sees only shape (types, forms, patterns, bounds of JSON
//! numbers, sizes, required and unknown keys), so a case it refuses is one
//! the validator refuses too, and a case the validator refuses may pass it
//! (a bound on a decimal string, a `ref`, a field rule, a condition). The
//! rulebook's checks run after validation and are no business of the schema.

use serde_json::json;

use super::cli::bareme;

/// The bundled rulebooks, and the test rulebooks whose constructs the
/// bundled ones lack (a pattern, fractions, maps with keys).
fn dirs() -> Vec<std::path::PathBuf> {
    let mut dirs = super::rulebook_dirs();
    for extra in ["tests/lang", "tests/bands"] {
        dirs.push(super::root().join(extra));
    }
    dirs
}

#[test]
fn every_conformance_case_the_validator_accepts_passes_the_case_schema() {
    for dir in dirs() {
        let rb = match bareme::load_rulebook(&dir) {
            Ok(rb) => rb,
            Err(e) => panic!("{}: {e:?}", dir.display()),
        };
        let schema = rb.case_schema();
        assert!(
            jsonschema::draft202012::meta::is_valid(&schema),
            "{}: the schema is not draft 2020-12",
            dir.display()
        );
        let validator = match jsonschema::draft202012::new(&schema) {
            Ok(v) => v,
            Err(e) => panic!("{}: {e}", dir.display()),
        };
        let cases = bareme::unstable::conformance::cases(&dir).expect("conformance cases");
        let (mut accepted, mut refused_by_both) = (0, 0);
        for (name, case) in &cases {
            let valid = bareme::validate_case(&rb, case).is_ok();
            let passes = validator.is_valid(case);
            if valid {
                // Answers, and rejections by the rulebook's checks alike.
                assert!(
                    passes,
                    "{} {name}: the validator accepts it, the schema refuses it: {:?}",
                    dir.display(),
                    validator
                        .iter_errors(case)
                        .map(|e| e.to_string())
                        .collect::<Vec<_>>()
                );
                accepted += 1;
            } else if !passes {
                refused_by_both += 1;
            }
        }
        assert!(accepted > 0, "{}: no case accepted", dir.display());
        // Faults of shape the schema sees: every bundled set has some.
        if dir.starts_with(super::root().join("rulebooks")) {
            assert!(
                refused_by_both > 0,
                "{}: the schema refused no case",
                dir.display()
            );
        }
    }
}

#[test]
fn a_misspelt_key_is_refused_by_the_schema_and_the_validator() {
    for dir in super::rulebook_dirs() {
        let rb = super::rulebook(&dir.to_string_lossy());
        let validator = jsonschema::draft202012::new(&rb.case_schema()).expect("a schema");
        let cases = bareme::unstable::conformance::cases(&dir).expect("conformance cases");
        let (name, case) = cases
            .iter()
            .find(|(_, c)| c.is_object() && bareme::validate_case(&rb, c).is_ok())
            .expect("a valid case");
        let mut misspelt = case.clone();
        let object = misspelt.as_object_mut().expect("an object");
        let Some(first) = object.keys().next().cloned() else {
            continue;
        };
        let value = object.shift_remove(&first).unwrap_or_default();
        object.insert(format!("{first}s"), value);
        assert!(
            !validator.is_valid(&misspelt),
            "{} {name}: the schema takes {first}s",
            dir.display()
        );
        let refused = bareme::validate_case(&rb, &misspelt).expect_err("refused");
        assert_eq!(refused.path, format!("{first}s"));
        assert_eq!(
            refused.message,
            format!("unknown input; did you mean {first}?")
        );
    }
}

#[test]
fn the_schema_says_what_a_case_is_written_with() {
    let rb = super::rulebook("rulebooks/luma-payroll/v3");
    let validator = jsonschema::draft202012::new(&rb.case_schema()).expect("a schema");
    let base = json!({"task": "payslip", "gross_pay": "3000.00", "payroll_month": "2026-03"});
    assert!(validator.is_valid(&base));
    let with = |key: &str, value: serde_json::Value| {
        let mut case = base.clone();
        case[key] = value;
        validator.is_valid(&case)
    };
    // Money: a string of at most two decimals, or a plain JSON number; never negative.
    assert!(with("gross_pay", json!("3000.5")));
    assert!(!with("gross_pay", json!("3000.505")));
    assert!(!with("gross_pay", json!("-1.00")));
    assert!(with(
        "gross_pay",
        serde_json::from_str("3000.5").expect("a number")
    ));
    assert!(!with(
        "gross_pay",
        serde_json::from_str("-3").expect("a number")
    ));
    // Optional money may be null (absent); a month is YYYY-MM.
    assert!(with("allowed_deduction", json!(null)));
    assert!(!with("payroll_month", json!("2026-13")));
    assert!(!with("task", json!("holiday")));
    // `field` is read only for a retrieval: any value passes here.
    assert!(with("field", json!("anything")));
    // The supplied schedule allows extra rows and columns (reading 1).
    let row = json!({"rate": "0.05", "cap": "4800.00", "deduction": "300.00", "free": "1000.00",
                     "upper": "3300.00", "middle_rate": "0.10", "upper_rate": "0.22", "note": 1});
    assert!(with(
        "reference_tables",
        json!({"first-half": row, "second-half": row, "2025": row})
    ));
    assert!(!with("reference_tables", json!({"first-half": row})));
}

#[test]
fn the_luma_case_schema_is_stable() {
    let rb = super::rulebook("rulebooks/luma-payroll/v3");
    insta::assert_json_snapshot!("luma_v3_case_schema", rb.case_schema());
}

#[test]
fn schema_case_prints_it_and_schema_alone_the_rulebook_format() {
    let out = bareme(&["schema", "--case", "rulebooks/luma-payroll/v3"], None);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let rb = super::rulebook("rulebooks/luma-payroll/v3");
    assert_eq!(printed, rb.case_schema());
    let out = bareme(&["schema"], None);
    let doc = std::fs::read(super::root().join("docs/rulebook.schema.json")).expect("the doc");
    assert_eq!(out.stdout, doc);
    let out = bareme(&["schema", "--case", "no/such/rulebook"], None);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}
