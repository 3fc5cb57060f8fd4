//! `bareme sweep` from the command line: the CSV of exact answers, the
//! plot written, and the errors of a range it cannot sweep.

use super::cli::{bareme, stderr, stdout, tempdir};

const LUMA: &str = "rulebooks/luma-payroll/v3";
const CASE: &str = "examples/luma-payroll/sweep-payslip.json";

#[test]
fn sweep_prints_exact_answers_and_draws_the_plot() {
    let svg = tempdir("sweep").join("luma.svg");
    let svg_arg = svg.display().to_string();
    let vary = "gross_pay=1000.00..1100.00:50.00";
    let o = bareme(
        &["sweep", LUMA, CASE, "--vary", vary, "--plot", &svg_arg],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Luma v3, March (first-half row of the spec): 5 % contribution, 1,000.00
    // of taxable pay free, 10 % above (R5): at 1,100, 1,100 − 55 = 1,045 and
    // 45 × 10 % = 4.50; at 1,000, 950 is all free.
    let csv = stdout(&o);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        // The answer's own gross_pay apart from the field varied (both
        // were headed `gross_pay`, and a reader keyed by name lost one).
        "gross_pay,answer.gross_pay,employee_contribution,allowed_deduction,taxable_pay,income_tax,net_pay,error"
    );
    assert_eq!(lines[1], "1000.00,1000.00,50.00,0.00,950.00,0.00,950.00,");
    assert_eq!(lines[3], "1100.00,1100.00,55.00,0.00,1045.00,4.50,1040.50,");
    assert_eq!(lines.len(), 4);
    let text = std::fs::read_to_string(&svg).expect("the plot");
    assert!(text.starts_with("<svg") && text.contains("marginal rate"));
}

#[test]
fn sweep_refuses_a_range_it_cannot_sweep() {
    for (vary, message) in [
        ("gross_pay=0..1:0", "the step must be positive"),
        ("gross_pay=0..1000000:1", "a sweep evaluates at most 100000"),
        ("gross_pay:0..1", "FIELD=FROM..TO:STEP"),
    ] {
        let o = bareme(&["sweep", LUMA, CASE, "--vary", vary], None);
        assert_eq!(o.status.code(), Some(2), "{vary}");
        assert!(stderr(&o).contains(message), "{vary}: {}", stderr(&o));
    }
    // A rejected value is a row with its error, not a failure.
    let o = bareme(
        &["sweep", LUMA, CASE, "--vary", "gross_pay=-1.00..0.00:1.00"],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let second = stdout(&o)
        .lines()
        .nth(1)
        .map(str::to_string)
        .unwrap_or_default();
    assert_eq!(
        second,
        r#"-1.00,,,,,,,"gross_pay: must not be negative, found ""-1.00"" (R2)""#
    );
}
