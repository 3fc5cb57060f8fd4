//! `bareme verify-trace` on the Luma example payslip: taxable pay
//! 3650.00 − 146.00 − 120.00 = 3384.00, income tax 0.08 × 1900.00 +
//! 0.20 × 384.00 = 228.80 (rounded half-up at the step).

use crate::cli::bareme;

/// The sales-tax example cart's rulebook and case paths.
const SALES: (&str, &str) = ("rulebooks/sales-tax/v1", "examples/sales-tax/cart.json");

/// The sales-tax cart traced as JSON, under `ablate` when given.
fn sales_trace(ablate: Option<&str>) -> String {
    let (rulebook, cart) = SALES;
    let mut args = vec!["eval", rulebook, cart, "--trace", "json"];
    args.extend(ablate.iter().flat_map(|a| ["--ablate", *a]));
    let out = bareme(&args, None);
    assert!(out.status.success());
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn trace() -> String {
    let out = bareme(
        &[
            "eval",
            "rulebooks/luma-payroll/v3",
            "examples/luma-payroll/payslip.json",
            "--trace",
            "json",
        ],
        None,
    );
    assert!(out.status.success());
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn verify(trace: &str) -> (Option<i32>, String, String) {
    let out = bareme(
        &[
            "verify-trace",
            "-",
            "--rulebook",
            "rulebooks/luma-payroll/v3",
        ],
        Some(trace),
    );
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_trace_as_written_follows_in_one_line() {
    let (code, stdout, _) = verify(&trace());
    assert_eq!(code, Some(0));
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(
        stdout.starts_with("1 of 1 traces follow luma-payroll@3#114555701f02: "),
        "{stdout}"
    );
}

/// A receipt of an ablation follows that reading, not the rules: the
/// summary says so (only the JSON's `ablation` key did).
#[test]
fn an_ablated_trace_is_named_so_in_the_summary() {
    let (rulebook, cart) = SALES;
    let traced = sales_trace(Some("billing_jurisdiction"));
    let out = bareme(
        &["verify-trace", "-", "--rulebook", rulebook, "--case", cart],
        Some(&traced),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.trim_end().ends_with(
            " (1 under an ablation, an alternative reading and not the rules: billing_jurisdiction)"
        ),
        "{stdout}"
    );
}

/// An ablation named twice is refused by `eval --ablate`, so no trace
/// of it is honest: the verifier said one that names it twice follows
/// (hostile probe).
#[test]
fn an_ablation_named_twice_does_not_follow() {
    let (rulebook, cart) = SALES;
    let traced = sales_trace(Some("billing_jurisdiction"));
    let from = "\"ablation\":\"billing_jurisdiction\"";
    assert!(traced.contains(from), "{traced}");
    let twice = traced.replacen(
        from,
        "\"ablation\":\"billing_jurisdiction,billing_jurisdiction\"",
        1,
    );
    let out = bareme(
        &["verify-trace", "-", "--rulebook", rulebook, "--case", cart],
        Some(&twice),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.starts_with(
            "line 1: ablation: names an ablation twice, which the engine refuses: recorded billing_jurisdiction"
        ),
        "{stdout}"
    );
}

/// An ablation the rulebook does not declare is named beside those it
/// does (the finding's "follows" was empty), and the summary does not
/// count the trace as under an ablation.
#[test]
fn an_undeclared_ablation_names_the_declared_ones() {
    let (rulebook, cart) = SALES;
    let traced = sales_trace(Some("half_even"));
    let nope = traced.replacen("\"ablation\":\"half_even\"", "\"ablation\":\"nope\"", 1);
    assert_ne!(nope, traced);
    let out = bareme(
        &["verify-trace", "-", "--rulebook", rulebook, "--case", cart],
        Some(&nope),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.starts_with(
            "line 1: ablation: names an ablation the rulebook does not declare: recorded nope, follows one the rulebook declares: billing_jurisdiction, exemption_ignored, "
        ),
        "{stdout}"
    );
    assert!(!stdout.contains("under an ablation"), "{stdout}");
}

/// `--case` is the case of one trace: a second trace line is a usage
/// error that says to give `--cases` (it spoke of a cases file no one
/// gave), once the first line's verdict is written.
#[test]
fn case_with_two_traces_asks_for_cases() {
    let (rulebook, cart) = SALES;
    let traced = sales_trace(None);
    let two = format!("{traced}{traced}");
    let out = bareme(
        &["verify-trace", "-", "--rulebook", rulebook, "--case", cart],
        Some(&two),
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.trim_end(),
        "error: trace line 2 is a second trace, and `--case` gives the case of one: give a file of cases, a line for each trace, with `--cases`"
    );
}

#[test]
fn a_changed_step_is_named_with_what_follows() {
    let t = trace();
    for (from, to, finding) in [
        (
            "\"value\":\"228.80\"",
            "\"value\":\"228.81\"",
            "line 1: step income_tax: value: recorded 228.81, follows 228.80",
        ),
        (
            "{\"name\":\"row.rate\",\"value\":\"0.04\"}",
            "{\"name\":\"row.rate\",\"value\":\"0.05\"}",
            "line 1: step employee_contribution: read row.rate: recorded 0.05, follows 0.04",
        ),
        (
            // `field` is asked only of a retrieval: ignored here.
            "{\"name\":\"field\",\"given\":\"ignored\"",
            "{\"name\":\"field\",\"given\":\"absent\"",
            "line 1: input field: given: recorded absent, follows ignored",
        ),
        (
            "{\"name\":\"reference_tables\",\"given\":\"absent\"",
            "{\"name\":\"reference_tables\",\"given\":\"bogus\"",
            "line 1: input reference_tables: given: recorded bogus, follows value, absent",
        ),
        (
            // What a citation says is the rulebook's, not only whether it held.
            "\"held\":true,\"clauses\":[\"R9\"]",
            "\"held\":true,\"clauses\":[\"R1\",\"R2\"]",
            "line 1: citation 1: clauses: recorded [\"R1\",\"R2\"], follows [\"R9\"]",
        ),
        (
            "\"mode\":\"half_up\",\"places\":2,\"before\":\"228.8000\"",
            "\"mode\":\"half_even\",\"places\":2,\"before\":\"228.8000\"",
            "line 1: step income_tax: rounding: recorded",
        ),
    ] {
        assert!(t.contains(from), "{from}");
        let (code, stdout, _) = verify(&t.replacen(from, to, 1));
        assert_eq!(code, Some(1), "{stdout}");
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), 2, "{stdout}");
        assert!(lines[0].starts_with(finding), "{stdout}");
        assert!(lines[1].starts_with("0 of 1 traces follow"), "{stdout}");
    }
}

/// A receipt lost from the end of a batch, or none at all, is not
/// verified: "2 of 2 traces follow" hid a third case without one.
#[test]
fn a_case_without_its_trace_or_no_trace_is_a_usage_error() {
    let dir = std::env::temp_dir().join(format!("bareme-vt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let case = std::fs::read_to_string(crate::root().join("examples/luma-payroll/payslip.json"))
        .expect("the example");
    let one_line: serde_json::Value = serde_json::from_str(&case).expect("JSON");
    let cases = dir.join("cases.jsonl");
    std::fs::write(&cases, format!("{one_line}\n{one_line}\n")).expect("written");
    let t = trace();
    let run = |traces: &str| {
        let out = bareme(
            &[
                "verify-trace",
                "-",
                "--rulebook",
                "rulebooks/luma-payroll/v3",
                "--cases",
                cases.to_str().expect("UTF-8"),
            ],
            Some(traces),
        );
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stdout, _) = run(&format!("{}\n{}\n", t.trim_end(), t.trim_end()));
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.starts_with("2 of 2 traces follow"), "{stdout}");
    let (code, _, stderr) = run(&t);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("case line 2 has no trace (the trace file is shorter)"),
        "{stderr}"
    );
    let (code, _, stderr) = verify("\n");
    assert_eq!(code, Some(2));
    assert!(stderr.contains("no trace to verify"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn another_rulebooks_trace_or_no_json_is_a_usage_error() {
    let out = bareme(
        &["verify-trace", "-", "--rulebook", "rulebooks/sales-tax/v1"],
        Some(&trace()),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("[audit::rulebook]"));
    let (code, _, stderr) = verify("not json\n");
    assert_eq!(code, Some(2));
    assert!(stderr.contains("[audit::json]"), "{stderr}");
}
