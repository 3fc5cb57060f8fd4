//! The CLI contract other tools rely on: outputs, exit codes, batch lines.

mod messages;
mod outputs;

use std::io::Write;
use std::process::{Command, Output, Stdio};

pub(crate) fn bareme(args: &[&str], stdin: Option<&str>) -> Output {
    bareme_bytes(args, stdin.map(str::as_bytes))
}

/// Runs bareme with `stdin` as raw bytes (which need not be UTF-8).
fn bareme_bytes(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_bareme"));
    cmd.args(args).current_dir(super::root());
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("bareme runs");
    // Fed from another thread: a batch writes answers while it reads, so a
    // large input would fill both pipes if it were written before reading.
    let feeder = stdin.map(|text| {
        let mut pipe = child.stdin.take().expect("stdin");
        let text = text.to_vec();
        std::thread::spawn(move || {
            // A child that stops reading early (a refused option) closes the pipe.
            let _ = pipe.write_all(&text);
        })
    });
    let output = child.wait_with_output().expect("bareme finishes");
    if let Some(feeder) = feeder {
        feeder.join().expect("the feeder thread");
    }
    output
}

pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

const LUMA: &str = "rulebooks/luma-payroll/v3";

#[test]
fn check_accepts_the_luma_rulebook_by_folder_and_by_file() {
    for path in [LUMA, "rulebooks/luma-payroll/v3/rulebook.toml"] {
        let o = bareme(&["check", path], None);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(
            stdout(&o).starts_with("ok: luma-payroll@3#"),
            "{}",
            stdout(&o)
        );
    }
}

#[test]
fn check_reports_a_broken_rulebook_with_exit_3() {
    let dir = tempdir("broken");
    let file = dir.join("rulebook.toml");
    let text =
        std::fs::read_to_string(super::root().join(LUMA).join("rulebook.toml")).expect("read");
    std::fs::write(
        &file,
        text.replace(
            "row.rate * min(gross_pay, row.cap)",
            "row.rate * min(gross_pey, row.cap)",
        ),
    )
    .expect("write");
    let o = bareme(&["check", file.to_str().expect("utf-8 path")], None);
    assert_eq!(o.status.code(), Some(3));
    let err = stderr(&o);
    assert!(err.contains("check::unknown_name"), "{err}");
    assert!(err.contains("unknown name `gross_pey`"), "{err}");
    assert!(err.contains("did you mean `gross_pay`?"), "{err}");
}

#[test]
fn check_of_a_missing_file_is_an_io_error() {
    let o = bareme(&["check", "rulebooks/nowhere"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot read"), "{}", stderr(&o));
}

#[test]
fn eval_prints_the_answer_on_one_line() {
    let o = bareme(&["eval", LUMA, "examples/luma-payroll/payslip.json"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        concat!(
            r#"{"decision":"calculate","currency":"LCR","gross_pay":"3650.00","employee_contribution":"146.00","#,
            r#""allowed_deduction":"120.00","taxable_pay":"3384.00","income_tax":"228.80","net_pay":"3155.20","#,
            r#""clauses":["R1","R2","R3","R4","R5","R6","R9"]}"#,
            "\n"
        )
    );
}

#[test]
fn eval_reads_standard_input_and_traces_as_json() {
    let case = r#"{"task": "retrieval", "payroll_month": "2026-11", "field": "contribution_cap"}"#;
    let o = bareme(&["eval", LUMA, "-", "--trace", "json"], Some(case));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON object");
    assert_eq!(v["answer"]["value"], "5000.00");
    assert_eq!(v["trace"]["outcome"]["kind"], "decision");
    assert_eq!(
        v["trace"]["outcome"]["clauses"],
        serde_json::json!(["R1", "R3"])
    );
    assert_eq!(stdout(&o).lines().count(), 1);
}

#[test]
fn eval_of_a_rejected_case_exits_2_with_the_path_on_stderr() {
    let case = r#"{"task": "payslip", "gross_pay": "12.345", "payroll_month": "2026-01"}"#;
    let o = bareme(&["eval", LUMA, "-"], Some(case));
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o), "");
    assert_eq!(
        stderr(&o),
        "rejected: gross_pay: has 3 decimals, more than 2: \"12.345\" (R2)\n"
    );
}

#[test]
fn eval_of_text_that_is_not_json_exits_2() {
    let o = bareme(&["eval", LUMA, "-"], Some("{\"task\": "));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not valid JSON"));
}

#[test]
fn batch_answers_every_line_in_order() {
    let o = bareme(
        &["eval", LUMA, "--batch", "examples/luma-payroll/batch.jsonl"],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[0]["net_pay"], "1082.22");
    assert_eq!(lines[1]["reason_code"], "MISSING_GROSS_PAY");
    assert_eq!(lines[2]["value"], "0.05");
    assert_eq!(lines[3]["error"]["path"], "gross_pay");
    assert_eq!(lines[4]["error"]["path"], "$");
}

#[test]
fn batch_from_standard_input_keeps_blank_and_bad_lines() {
    let input = "{\"task\": \"payslip\", \"gross_pay\": \"100\", \"payroll_month\": \"2026-01\"}\n\n[1]\r\n{\"task\":\"retrieval\"}";
    let o = bareme(&["eval", LUMA, "--batch"], Some(input));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert!(lines[0].contains("\"net_pay\":\"95.00\""), "{}", lines[0]);
    assert!(lines[1].contains("\"path\":\"$\""));
    assert!(lines[2].contains("\"path\":\"$\""));
    assert!(lines[3].contains("\"path\":\"field\""), "{}", lines[3]);
}

#[test]
fn test_command_reports_passes_and_failures() {
    let o = bareme(&["test", LUMA], None);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        stdout(&o).trim_end().ends_with("passed, 0 failed"),
        "{}",
        stdout(&o)
    );
    // `--list` names every case run, with its description.
    let o = bareme(&["test", LUMA, "--list"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let out = stdout(&o);
    assert_eq!(out.matches("\nok   ").count() + 1, 84, "{out}");
    assert!(
        out.starts_with("ok   01-spec-example-below-free\n  "),
        "{out}"
    );

    let dir = tempdir("failing");
    std::fs::copy(
        super::root().join(LUMA).join("rulebook.toml"),
        dir.join("rulebook.toml"),
    )
    .expect("copy");
    std::fs::create_dir_all(dir.join("cases")).expect("mkdir");
    let case = "description = \"wrong on purpose\"\ncase = '''{\"task\": \"payslip\", \"gross_pay\": \"1000.00\", \"payroll_month\": \"2026-02\"}'''\n\n[expect.answer]\ndecision = \"calculate\"\ncurrency = \"LCR\"\ngross_pay = \"1000.00\"\nemployee_contribution = \"50.00\"\nallowed_deduction = \"0.00\"\ntaxable_pay = \"950.00\"\nincome_tax = \"1.00\"\nnet_pay = \"949.00\"\nclauses = [\"R1\", \"R2\", \"R3\", \"R4\", \"R5\", \"R6\"]\n";
    std::fs::write(dir.join("cases/01-wrong.toml"), case).expect("write");
    let o = bareme(&["test", dir.to_str().expect("utf-8")], None);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("FAIL 01-wrong"), "{out}");
    assert!(
        out.contains("income_tax: expected \"1.00\", got \"0.00\""),
        "{out}"
    );
    assert!(
        out.contains("net_pay: expected \"949.00\", got \"950.00\""),
        "{out}"
    );
    assert!(out.contains("0 passed, 1 failed"), "{out}");
}

pub(crate) fn tempdir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("bareme-it-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[test]
fn eval_traces_a_rejection_as_json_too() {
    let case = r#"{"task": "payslip", "gross_pay": "100.00", "payroll_month": "2026-02", "allowed_deduction": "300.01"}"#;
    let o = bareme(&["eval", LUMA, "-", "--trace", "json"], Some(case));
    assert_eq!(o.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON object");
    assert_eq!(v["error"]["path"], "allowed_deduction");
    assert_eq!(v["trace"]["outcome"]["kind"], "rejected");
    let events = v["trace"]["events"].as_array().expect("events");
    let check = events
        .iter()
        .find(|e| e["event"] == "check")
        .expect("a check");
    assert_eq!(check["when"], "allowed_deduction > deduction_cap");
    assert_eq!(check["held"], true);
    assert_eq!(check["reads"][1]["value"], "300.00");
}

#[test]
fn eval_under_an_ablation_changes_the_answer_and_names_it() {
    // A child inherits 300,000 with a 2,300 funeral invoice: capped at 1,500 the net is
    // 298,500 (taxable 198,500, tax 37,894); uncapped it is 297,700 (197,700, 37,734).
    let case = r#"{"kind": "estate", "act_date": "2026-04-15", "person": {"birth_date": "1950-01-10"},
        "assets": [{"value": 300000}], "funeral_costs": 2300, "residue_shares": {"C1": "1"},
        "beneficiaries": [{"id": "C1", "relationship": "child", "birth_date": "1980-06-01"}]}"#;
    let rules = bareme(&["eval", "rulebooks/succession-fr/v2026", "-"], Some(case));
    assert_eq!(
        stdout(&rules).trim(),
        r#"{"beneficiaires":{"C1":{"part_taxable":198500,"droits":37894}},"total_droits":37894}"#
    );
    let ablated = bareme(
        &[
            "eval",
            "rulebooks/succession-fr/v2026",
            "-",
            "--ablate",
            "uncapped_funeral_costs",
            "--trace",
            "text",
        ],
        Some(case),
    );
    let out = stdout(&ablated);
    assert!(out.starts_with(r#"{"beneficiaires":{"C1":{"part_taxable":197700,"droits":37734}},"total_droits":37734}"#), "{out}");
    assert!(
        out.contains("ablation uncapped_funeral_costs (an alternative reading, not the rules)"),
        "{out}"
    );
    let unknown = bareme(
        &[
            "eval",
            "rulebooks/succession-fr/v2026",
            "-",
            "--ablate",
            "nope",
        ],
        Some(case),
    );
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains("unknown ablation `nope`; succession-fr declares: ignore_790g"),
        "{}",
        stderr(&unknown)
    );
}

#[test]
fn eval_under_two_ablations_applies_both_and_names_them() {
    // Three units of 0.50 in STATE_C (rate 0.09), the cart of sales-tax cases 87-88 and 99.
    // The rules: 0.09 × 1.50 = 0.135 → 0.14 (half-up). Per unit: 0.09 × 0.50 = 0.045 → 0.05,
    // × 3 = 0.15. Half-even on the line: 0.135 → 0.14 (3 is odd). Both: 0.045 → 0.04, × 3 = 0.12.
    let case = r#"{"cart": {"cart_id": "PUE", "customer_id": "K1",
        "lines": [{"id": "L1", "product_id": "C1", "quantity": 3, "jurisdiction": "STATE_C"}]},
        "customers": {"K1": {"billing_jurisdiction": "STATE_A"}},
        "products": {"C1": {"category": "STANDARD", "unit_price": "0.50"}}}"#;
    let sales = "rulebooks/sales-tax/v1";
    let invoice = |tax: &str, total: &str| {
        format!(
            r#"{{"cart_id":"PUE","lines":[{{"id":"L1","jurisdiction":"STATE_C","net":"1.50","tax":"{tax}","total":"{total}"}}],"subtotal":"1.50","tax":"{tax}","total":"{total}"}}"#
        )
    };
    for (ablate, tax, total) in [
        (None, "0.14", "1.64"),
        (Some("tax_per_unit"), "0.15", "1.65"),
        (Some("half_even"), "0.14", "1.64"),
        (Some("tax_per_unit,half_even"), "0.12", "1.62"),
        (Some("half_even,tax_per_unit"), "0.12", "1.62"),
    ] {
        let mut args = vec!["eval", sales, "-"];
        args.extend(ablate.iter().flat_map(|a| ["--ablate", *a]));
        let o = bareme(&args, Some(case));
        assert_eq!(o.status.code(), Some(0), "{ablate:?}: {}", stderr(&o));
        assert_eq!(stdout(&o).trim_end(), invoice(tax, total), "{ablate:?}");
    }
    let traced = bareme(
        &[
            "eval",
            sales,
            "-",
            "--ablate",
            "tax_per_unit,half_even",
            "--trace",
            "text",
        ],
        Some(case),
    );
    let out = stdout(&traced);
    assert!(
        out.contains("\nablation tax_per_unit,half_even (an alternative reading, not the rules)\n"),
        "{out}"
    );
    let json = bareme(
        &[
            "eval",
            sales,
            "-",
            "--ablate",
            "tax_per_unit,half_even",
            "--trace",
            "json",
        ],
        Some(case),
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&json)).expect("json");
    assert_eq!(v["trace"]["ablation"], "tax_per_unit,half_even");
    // Through a batch too.
    let batch = bareme(
        &[
            "eval",
            sales,
            "--batch",
            "--ablate",
            "tax_per_unit,half_even",
        ],
        Some(&case.replace('\n', " ")),
    );
    assert_eq!(stdout(&batch).trim_end(), invoice("0.12", "1.62"));
    // Unknown names list the declared ones; a name twice is refused.
    let unknown = bareme(
        &["eval", sales, "-", "--ablate", "half_even,nope"],
        Some(case),
    );
    assert_eq!(unknown.status.code(), Some(2));
    assert_eq!(
        stderr(&unknown),
        "error: unknown ablation `nope`; sales-tax declares: billing_jurisdiction, exemption_ignored, tax_per_unit, half_even, rounded_per_invoice, exempt_lines_out_of_subtotal, repeated_products_merged, rate_rounded_to_cents\n"
    );
    let twice = bareme(
        &["eval", sales, "-", "--ablate", "half_even,half_even"],
        Some(case),
    );
    assert_eq!(twice.status.code(), Some(2));
    assert_eq!(
        stderr(&twice),
        "error: ablation `half_even` is named twice\n"
    );
    // Two readings of the same step cannot apply together (succession-fr).
    let clash = bareme(
        &[
            "compile",
            "rulebooks/succession-fr/v2026",
            "--ablate",
            "round_each_band,restart_scale_after_recall",
        ],
        None,
    );
    assert_eq!(clash.status.code(), Some(2));
    assert_eq!(
        stderr(&clash),
        "error: ablations `round_each_band` and `restart_scale_after_recall` both replace step `heirs.tax_before`, so they cannot apply together\n"
    );
}

#[test]
fn the_2025_and_2026_payslips_differ_only_where_the_law_did() {
    let case = std::fs::read_to_string(super::root().join("examples/paie-fr/level3-cadre.json"))
        .expect("example");
    let case_2025 = case.replace("\"2026-03\"", "\"2025-03\"");
    let now = bareme(&["eval", "rulebooks/paie-fr/v2026", "-"], Some(&case));
    let before = bareme(&["eval", "rulebooks/paie-fr/v2025", "-"], Some(&case_2025));
    let now: serde_json::Value = serde_json::from_str(&stdout(&now)).expect("answer");
    let before: serde_json::Value = serde_json::from_str(&stdout(&before)).expect("answer");
    // Same gross and employee side; the employer cost moves with the 2025 rates and reduction.
    for key in [
        "brut",
        "total_cotisations_salariales",
        "net_imposable",
        "prelevement_source",
        "net_a_payer",
    ] {
        assert_eq!(now[key], before[key], "{key}");
    }
    assert_eq!(now["cout_employeur"], "5015.12");
    assert_eq!(before["cout_employeur"], "4926.43");
}

#[test]
fn compile_writes_the_checked_in_module_whole() {
    let o = bareme(&["compile", "rulebooks/paie-fr/v2026"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let module = std::fs::read_to_string(super::root().join("tests/compiled/paie_fr_v2026.rs"))
        .expect("the checked-in module");
    assert!(
        stdout(&o) == module,
        "stdout differs from tests/compiled/paie_fr_v2026.rs"
    );
    assert_eq!(stderr(&o), "");

    // Every bundled rulebook compiles whole: nothing is left to the interpreter.
    for dir in super::rulebook_dirs() {
        let o = bareme(&["compile", &dir.to_string_lossy()], None);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stdout(&o).contains("pub static COMPILED: Compiled"));
        assert_eq!(stderr(&o), "", "{}", dir.display());
    }

    let o = bareme(
        &[
            "compile",
            "rulebooks/paie-fr/v2026",
            "--ablate",
            "no_such_reading",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    let dir = tempdir("compile");
    let file = dir.join("paie.rs");
    let o = bareme(
        &[
            "compile",
            "rulebooks/paie-fr/v2026",
            "--ablate",
            "unprorated_ceiling",
            "-o",
            &file.to_string_lossy(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let ablated = std::fs::read_to_string(&file).expect("the written module");
    assert!(ablated.contains("paie-fr@2026") && ablated != module);
}

#[test]
fn batch_refuses_a_line_that_is_not_utf8_and_goes_on() {
    let good =
        br#"{"task": "retrieval", "payroll_month": "2026-03", "field": "contribution_rate"}"#;
    // Repaired to U+FFFD, these two distinct lines would read as the same case and answer.
    let bad_ff = b"{\"task\": \"retrieval\", \"payroll_month\": \"2026-03\", \"field\": \"contribution_rate\", \"id\": \"\xff\"}";
    let bad_fe = b"{\"task\": \"retrieval\", \"payroll_month\": \"2026-03\", \"field\": \"contribution_rate\", \"id\": \"\xfe\"}";
    let input = [&good[..], bad_ff, bad_fe, good].join(&b'\n');
    let o = bareme_bytes(&["eval", LUMA, "--batch"], Some(&input));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(lines.len(), 4, "{}", stdout(&o));
    assert_eq!(lines[0]["value"], "0.05");
    let refusal = serde_json::json!({"error": {
        "path": "$",
        "message": "the case is not UTF-8 text: invalid byte at offset 87"
    }});
    assert_eq!(lines[1], refusal);
    assert_eq!(lines[2], refusal);
    assert_eq!(lines[3]["value"], "0.05");

    // The same bytes as one case are refused with the same message.
    let o = bareme_bytes(&["eval", LUMA, "-"], Some(bad_ff));
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: the case is not UTF-8 text: invalid byte at offset 87\n"
    );
}

#[test]
fn a_case_envelope_reads_the_same_in_eval_and_in_a_batch() {
    let case = r#"{"task": "retrieval", "payroll_month": "2026-03", "field": "contribution_rate"}"#;
    let envelope = format!(r#"{{"case": {case}}}"#);
    let answer = r#"{"decision":"retrieve","field":"contribution_rate","value":"0.05","clauses":["R1","R3"]}"#;
    for input in [case, envelope.as_str()] {
        let one = bareme(&["eval", LUMA, "-"], Some(input));
        assert_eq!(one.status.code(), Some(0), "{input}: {}", stderr(&one));
        assert_eq!(stdout(&one).trim_end(), answer, "{input}");
        let batch = bareme(&["eval", LUMA, "--batch"], Some(input));
        assert_eq!(stdout(&batch).trim_end(), answer, "{input}");
    }
    // An object with other keys besides `case` is a case, in both commands,
    // and `case` is then a key no input declares.
    let not_an_envelope = format!(r#"{{"case": {case}, "note": 1}}"#);
    let one = bareme(&["eval", LUMA, "-"], Some(&not_an_envelope));
    assert_eq!(one.status.code(), Some(2));
    assert_eq!(stderr(&one), "rejected: case: unknown input\n");
    let batch = bareme(&["eval", LUMA, "--batch"], Some(&not_an_envelope));
    assert_eq!(
        stdout(&batch).trim_end(),
        r#"{"error":{"path":"case","message":"unknown input"}}"#
    );
}

#[test]
fn case_text_cannot_forge_lines_in_a_trace_or_a_rejection() {
    let sales = "rulebooks/sales-tax/v1";
    // A map key holding a line break, a fake step, ESC and a bidi override.
    let case = r#"{"cart": {"cart_id": "C1", "customer_id": "K1", "lines": [{"id": "L1", "product_id": "P1", "quantity": 1, "jurisdiction": "STATE_A"}]},
        "customers": {"K1": {}, "K2\n  step forged\n    → 0\u001b[2J\u202e": {}},
        "products": {"P1": {"category": "STANDARD", "unit_price": "1.00"}}}"#;
    let o = bareme(&["eval", sales, "-", "--trace", "text"], Some(case));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains(
            "\n  customers = {K1: {billing_jurisdiction: absent}, K2\\n  step forged\\n    → 0\\u{1b}[2J\\u{202e}: {billing_jurisdiction: absent}}\n"
        ),
        "{out}"
    );
    assert!(!out.lines().any(|l| l.trim() == "step forged"), "{out}");
    assert!(
        !out.contains('\u{1b}') && !out.contains('\u{202e}'),
        "{out}"
    );

    let case = r#"{"cart": {"cart_id": "C1", "customer_id": "K1", "lines": []}, "customers": {"K1": {}},
        "products": {"P1\n  forged\u001b[31m": {"category": "STANDARD", "unit_price": "x"}}}"#;
    let o = bareme(&["eval", sales, "-"], Some(case));
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "rejected: products.P1\\n  forged\\u{1b}[31m.unit_price: must be an amount with at most 2 decimals, found \"x\" (VALIDATION)\n"
    );
}

#[test]
fn test_reports_an_unreadable_case_file_as_failed_and_runs_the_others() {
    let dir = tempdir("unreadable-case");
    let luma = super::root().join(LUMA);
    std::fs::copy(luma.join("rulebook.toml"), dir.join("rulebook.toml")).expect("copy");
    let cases = dir.join("cases");
    std::fs::create_dir_all(&cases).expect("mkdir");
    std::fs::copy(
        luma.join("cases/01-spec-example-below-free.toml"),
        cases.join("01-good.toml"),
    )
    .expect("copy");
    std::fs::write(cases.join("02-latin1.toml"), b"description = \"caf\xe9\"\n").expect("write");
    // A folder named like a case file cannot be read as one.
    std::fs::create_dir_all(cases.join("03-folder.toml")).expect("mkdir");
    let o = bareme(&["test", dir.to_str().expect("utf-8")], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    assert_eq!(lines[0], "FAIL 02-latin1");
    assert_eq!(
        lines[1],
        "  the case file is not UTF-8 text: invalid byte at offset 18"
    );
    assert_eq!(lines[2], "FAIL 03-folder");
    assert!(
        lines[3].starts_with("  ") && lines[3].ends_with("03-folder.toml is not a regular file"),
        "{out}"
    );
    assert!(lines[4].ends_with(": 1 passed, 2 failed"), "{out}");
}

/// A conformance case is read as `eval` reads a case: out of its
/// `{"case": …}` envelope too (`test` refused `case` as an unknown input
/// where `eval` answered).
#[test]
fn test_reads_a_case_in_its_envelope_as_eval_does() {
    let dir = tempdir("envelope-case");
    let luma = super::root().join(LUMA);
    std::fs::copy(luma.join("rulebook.toml"), dir.join("rulebook.toml")).expect("copy");
    let cases = dir.join("cases");
    std::fs::create_dir_all(&cases).expect("mkdir");
    let text = std::fs::read_to_string(luma.join("cases/01-spec-example-below-free.toml"))
        .expect("a bundled case");
    let mut file: toml::Table = toml::from_str(&text).expect("TOML");
    let case = file["case"].as_str().expect("the case as JSON").to_string();
    file.insert(
        "case".into(),
        toml::Value::String(format!("{{\"case\": {case}}}")),
    );
    std::fs::write(
        cases.join("01-enveloped.toml"),
        toml::to_string(&file).expect("TOML"),
    )
    .expect("write");
    let o = bareme(&["test", dir.to_str().expect("utf-8")], None);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).ends_with(": 1 passed, 0 failed\n"),
        "{}",
        stdout(&o)
    );
}

/// Runs bareme with standard output on `/dev/full`, where every write fails (ENOSPC).
#[cfg(target_os = "linux")]
pub(crate) fn bareme_into_a_full_disk(args: &[&str]) -> Output {
    bareme_onto_full(args, true)
}

/// Runs bareme with standard output (`stdout`) or standard error on
/// `/dev/full`; standard error, when full, with standard output discarded.
#[cfg(target_os = "linux")]
fn bareme_onto_full(args: &[&str], stdout: bool) -> Output {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full opens");
    let mut command = Command::new(env!("CARGO_BIN_EXE_bareme"));
    command
        .args(args)
        .current_dir(crate::root())
        .stdin(Stdio::null());
    match stdout {
        true => command.stdout(full),
        false => command.stdout(Stdio::null()).stderr(full),
    };
    command.output().expect("bareme runs")
}
