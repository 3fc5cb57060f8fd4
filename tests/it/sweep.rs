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
        "gross_pay,decision,answer.gross_pay,employee_contribution,allowed_deduction,taxable_pay,income_tax,net_pay,error"
    );
    assert_eq!(
        lines[1],
        "1000.00,calculate,1000.00,50.00,0.00,950.00,0.00,950.00,"
    );
    assert_eq!(
        lines[3],
        "1100.00,calculate,1100.00,55.00,0.00,1045.00,4.50,1040.50,"
    );
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
        // A month, a true-or-false, a record: every row was the same
        // refusal, and the sweep exited 0.
        (
            "payroll_month=1..2:1",
            "`payroll_month` holds a month: a sweep gives it numbers, which it never takes",
        ),
        (
            "amendment.approved=0..1:1",
            "`amendment.approved` holds true or false",
        ),
        ("amendment=0..1:1", "`amendment` holds a record"),
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
        r#"-1.00,,,,,,,,"gross_pay: must not be negative, found ""-1.00"" (R2)""#
    );
}

/// A value the rulebook faults on (as `eval` exits 4 on it) is its row's
/// `error`, and the sweep exits 4 with every row written: it exited 0.
#[test]
fn a_sweep_with_a_fault_exits_4_after_its_rows() {
    let dir = tempdir("sweep-fault");
    let book = dir.join("rulebook.toml");
    std::fs::write(
        &book,
        "[rulebook]\nid = \"f\"\nversion = 1\nschema = 1\n\n[inputs.pay]\ntype = \"money\"\nrequired = true\n\n\
         [steps.share]\nexpr = \"100 / (pay - 2)\"\n\n[[checks]]\ndecision = \"ok\"\n\n\
         [decisions.ok.answer]\nshare = { expr = \"share\", format = \"decimal\" }\n",
    )
    .expect("written");
    let case = dir.join("case.json");
    std::fs::write(&case, r#"{"pay": "1.00"}"#).expect("written");
    let (book, case) = (book.display().to_string(), case.display().to_string());
    let o = bareme(&["sweep", &book, &case, "--vary", "pay=1..3:1"], None);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("faulted on 1 of 3 values"),
        "{}",
        stderr(&o)
    );
    let csv = stdout(&o);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[..2], ["pay,decision,share,error", "1,ok,-100,"]);
    assert!(lines[2].starts_with("2,,,fault: division by zero"), "{csv}");
    assert_eq!(lines[3], "3,ok,100,");
}

/// An integer input is written as a whole number (`9`, where `9.0..11:1`
/// wrote `9.0` and every row was the refusal "must be a whole number,
/// found 9.0"), and a fractional step over one is refused up front.
#[test]
fn an_integer_input_is_swept_by_whole_numbers() {
    let dir = tempdir("sweep-integer");
    let case = dir.join("case.json");
    let payslip = std::fs::read_to_string(
        super::root().join("rulebooks/paie-fr/v2026/cases/02-level-1-non-cadre-headcount-10.toml"),
    )
    .expect("a bundled case");
    let table: toml::Table = toml::from_str(&payslip).expect("TOML");
    let text = table["case"].as_str().expect("the case as JSON text");
    std::fs::write(&case, text).expect("case");
    let case = case.display().to_string();
    let paie = "rulebooks/paie-fr/v2026";
    let o = bareme(
        &["sweep", paie, &case, "--vary", "headcount=9.0..11:1"],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let firsts: Vec<String> = stdout(&o)
        .lines()
        .skip(1)
        .map(|l| l.split(',').take(2).collect::<Vec<_>>().join(","))
        .collect();
    assert_eq!(firsts, ["9,payslip", "10,payslip", "11,payslip"]);
    let o = bareme(
        &["sweep", paie, &case, "--vary", "headcount=9..10:0.5"],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "`headcount` is an integer input: FROM and STEP must be whole numbers, not 9 and 0.5"
        ),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}
