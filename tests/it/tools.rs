//! What a tool environment's tools compute (`bareme::tools::calculate`,
//! `bareme::tools::table_rows`): the calculator against rust_decimal on drawn
//! operands, its bounds and its refusals, and a table's rows as a case's
//! own schedule replaces the rulebook's.

use bareme::tools::{calculate, table_rows, CalcError, LookupError};
use proptest::prelude::*;
use rust_decimal::{Decimal, RoundingStrategy};

/// A money-like decimal: up to 9 digits before the point and 0 to 3 after.
fn decimal() -> impl Strategy<Value = Decimal> {
    (-999_999_999_999i64..999_999_999_999, 0u32..4).prop_map(|(n, s)| Decimal::new(n, s))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn the_calculator_computes_what_rust_decimal_computes(a in decimal(), b in decimal()) {
        // Negative literals are written in brackets, as a model would.
        let (x, y) = (format!("({a})"), format!("({b})"));
        prop_assert_eq!(calculate(&format!("{x} + {y}")).unwrap(), (a + b).to_string());
        prop_assert_eq!(calculate(&format!("{x} - {y}")).unwrap(), (a - b).to_string());
        prop_assert_eq!(calculate(&format!("{x} * {y}")).unwrap(), (a * b).to_string());
        let half_up = (a * b).round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero);
        prop_assert_eq!(calculate(&format!("round({x} * {y}, 2)")).unwrap(), format!("{half_up:.2}"));
        prop_assert_eq!(calculate(&format!("min({x}, {y})")).unwrap(), a.min(b).to_string());
        prop_assert_eq!(calculate(&format!("{x} <= {y}")).unwrap(), (a <= b).to_string());
    }
}

#[test]
fn a_quotient_is_exact_until_rounded() {
    assert_eq!(calculate("7 / 8").unwrap(), "0.875");
    assert_eq!(calculate("round(2 / 3, 4)").unwrap(), "0.6667");
    assert_eq!(calculate("(1 / 3) * 3").unwrap(), "1");
    assert_eq!(
        calculate("2 / 3"),
        Err(CalcError::Result(
            "2/3 has no finite decimal form: round it, e.g. round(…, 2)".into()
        ))
    );
}

#[test]
fn the_seed_s_payslip_program() {
    // A July payslip on the default second-half row (seed 004, section 5):
    // contribution, taxable pay, tax and net pay of 3450.00 with 120.00 deducted.
    let contribution = calculate("round(0.04 * min(3450.00, 5000.00), 2)").unwrap();
    assert_eq!(contribution, "138.00");
    let taxable = calculate("3450.00 - 138.00 - 120.00").unwrap();
    assert_eq!(taxable, "3192.00");
    let tax = calculate(
        "round(0.08 * clamp(3192.00 - 1100.00, 0, 3000.00 - 1100.00) + 0.20 * max(3192.00 - 3000.00, 0), 2)",
    )
    .unwrap();
    assert_eq!(tax, "190.40");
    assert_eq!(calculate("3192.00 - 190.40").unwrap(), "3001.60");
}

#[test]
fn the_calculator_refuses_clearly_and_within_bounds() {
    let refused = |e: &str| calculate(e).unwrap_err();
    assert_eq!(refused(&"1+".repeat(1_001)), CalcError::TooLong);
    assert_eq!(
        refused("1 / 0"),
        CalcError::Evaluation("division by zero (1 / 0)".into())
    );
    assert_eq!(refused("pow(10, 40)").code(), "calculate::evaluation");
    assert_eq!(
        refused("net_pay + 1").to_string(),
        "unknown name `net_pay` (at byte 0; the calculator knows no names: write each value as a number)"
    );
    assert_eq!(
        refused("Please compute 5% of 2000").code(),
        "calculate::expression"
    );
    assert_eq!(
        refused("'LCR'").to_string(),
        "the expression gives a text, not a number"
    );
    // A sum of 100 terms evaluates; one of 400 is refused by the parser's
    // nesting bound, before any work.
    assert_eq!(
        calculate(&format!("0{}", " + 1".repeat(100))).unwrap(),
        "100"
    );
    let deep = refused(&format!("0{}", " + 1".repeat(400)));
    assert!(
        deep.to_string().contains("nested 401 levels deep"),
        "{deep}"
    );
}

#[test]
fn a_case_s_schedule_replaces_the_rulebook_s_rows() {
    let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref()).unwrap();
    let row = r#"{"rate": "0.030", "cap": "4700.00", "deduction": "420.00", "free": "850.00", "upper": "2700.00", "middle_rate": "0.11", "upper_rate": "0.25"}"#;
    let case = format!(
        r#"{{"task": "payslip", "reference_tables": {{"first-half": {row}, "second-half": {row}, "2025-second-half": {row}}}}}"#
    );
    let rows = table_rows(&rb, case.as_bytes(), "schedule").unwrap();
    // The rows the rules read, by name, with the months they cover; the
    // row no rule reads (a 2025 distractor) is not one of them.
    let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["first-half", "second-half"]);
    assert_eq!(
        rows[1].json,
        r#"{"name":"second-half","from":"2026-07","to":"2026-12","rate":"0.030","cap":"4700.00","deduction":"420.00","free":"850.00","upper":"2700.00","middle_rate":"0.11","upper_rate":"0.25"}"#
    );
    let own = table_rows(&rb, br#"{"task": "payslip"}"#, "schedule").unwrap();
    assert!(own[0].json.contains(r#""rate":"0.05","cap":"4800.00""#));
    let unknown = table_rows(&rb, b"{}", "rates").unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "unknown table \"rates\"; the tables are: schedule"
    );
    assert_eq!(unknown.code(), "lookup::table");
    let refused = table_rows(&rb, b"[", "schedule").unwrap_err();
    assert!(matches!(refused, LookupError::Case(ref e) if e.path == "$"));
}
