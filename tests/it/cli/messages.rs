//! Exit codes as the README lists them, and messages that name the cause
//! and show numbers as written.

use super::*;

/// The exit codes README's command table lists, each one run.
#[test]
fn exit_codes_are_those_the_readme_lists() {
    let broken = tempdir("exit-broken");
    let text =
        std::fs::read_to_string(crate::root().join(LUMA).join("rulebook.toml")).expect("read");
    std::fs::write(
        broken.join("rulebook.toml"),
        text.replace("min(gross_pay, row.cap)", "min(gross_pey, row.cap)"),
    )
    .expect("write");
    let no_cases = tempdir("exit-no-cases");
    std::fs::copy(
        crate::root().join(LUMA).join("rulebook.toml"),
        no_cases.join("rulebook.toml"),
    )
    .expect("copy");
    let fault = tempdir("exit-fault");
    std::fs::write(
        fault.join("rulebook.toml"),
        "[rulebook]\nid = \"h\"\nversion = 1\nschema = 1\n\n[inputs.x]\ntype = \"decimal\"\nrequired = true\n\n[steps.s]\nexpr = \"1 / x\"\n\n[[checks]]\ndecision = \"d\"\n\n[decisions.d.answer]\nv = { expr = \"s\" }\n",
    )
    .expect("write");
    // An empty cases/ folder: `test` has no case to run.
    std::fs::create_dir_all(fault.join("cases")).expect("mkdir");
    let (broken, no_cases, fault) = (
        broken.to_string_lossy().to_string(),
        no_cases.to_string_lossy().to_string(),
        fault.to_string_lossy().to_string(),
    );
    // A rulebook folder `bareme new x` would write: it is never overwritten.
    let taken = tempdir("exit-new");
    std::fs::create_dir_all(taken.join("x/v1")).expect("mkdir");
    let taken = taken.to_string_lossy().to_string();
    let payslip = "examples/luma-payroll/payslip.json";
    let batch = "examples/luma-payroll/batch.jsonl";
    let zero = r#"{"x": "0"}"#;
    let rejected = r#"{"task": "payslip", "gross_pay": "12.345", "payroll_month": "2026-01"}"#;
    let runs: Vec<(Vec<&str>, Option<&str>, i32)> = vec![
        (vec!["check", LUMA], None, 0),
        (vec!["check", "rulebooks/nowhere"], None, 2),
        (vec!["check", &broken], None, 3),
        (vec!["check", "--bogus", LUMA], None, 2),
        (vec!["eval", LUMA, payslip], None, 0),
        (vec!["eval", LUMA, "-"], Some(rejected), 2),
        (vec!["eval", LUMA, "nowhere.json"], None, 2),
        (vec!["eval", LUMA, "-"], Some("not json"), 2),
        (vec!["eval", LUMA, payslip, "--ablate", "nope"], None, 2),
        (vec!["eval", &broken, payslip], None, 3),
        (vec!["eval", &fault, "-"], Some(zero), 4),
        (vec!["eval", LUMA, "--batch", batch], None, 0),
        (vec!["eval", &fault, "--batch"], Some(zero), 0),
        (vec!["eval", LUMA, "--batch", "nowhere.jsonl"], None, 2),
        (vec!["eval", &broken, "--batch", batch], None, 3),
        (vec!["test", LUMA], None, 0),
        (vec!["test", &fault], None, 1),
        (vec!["test", &no_cases], None, 2),
        (vec!["test", &broken], None, 3),
        (vec!["compile", LUMA], None, 0),
        (vec!["compile", LUMA, "-o", "nowhere/module.rs"], None, 2),
        (vec!["compile", LUMA, "--ablate", "nope"], None, 2),
        (vec!["compile", &broken], None, 3),
        (
            vec!["check", "--effective", "rulebooks/paie-fr/v2025"],
            None,
            0,
        ),
        (vec!["check", "--effective", &broken], None, 3),
        (
            vec!["sweep", LUMA, payslip, "--vary", "gross_pay=1..2:1"],
            None,
            0,
        ),
        (
            vec!["sweep", LUMA, payslip, "--vary", "gross_pay=2..1:1"],
            None,
            2,
        ),
        (
            vec!["sweep", LUMA, "nowhere.json", "--vary", "gross_pay=1..2:1"],
            None,
            2,
        ),
        (
            vec![
                "sweep",
                LUMA,
                payslip,
                "--vary",
                "gross_pay=1..2:1",
                "--plot",
                "nowhere/p.svg",
            ],
            None,
            2,
        ),
        (
            vec!["sweep", &broken, payslip, "--vary", "gross_pay=1..2:1"],
            None,
            3,
        ),
        (vec!["schema"], None, 0),
        (vec!["new", "x", "--dir", &taken], None, 2),
        (vec!["new", "Not An Id"], None, 2),
    ];
    for (args, stdin, code) in runs {
        let o = bareme(&args, stdin);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {}", stderr(&o));
    }
}

/// A byte order mark and a lone surrogate escape are named as what they
/// are, in single eval and in a batch; they used to read as "expected value
/// at line 1 column 1" and "unexpected end of hex escape".
#[test]
fn malformed_json_is_named_by_its_cause() {
    let luma = "rulebooks/luma-payroll/v3";
    let bom = b"\xef\xbb\xbf{\"task\": \"payslip\"}";
    let o = bareme_bytes(&["eval", luma, "-"], Some(bom));
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o).trim(),
        "error: the case starts with a byte order mark (U+FEFF), which JSON text may not: save it as UTF-8 without one"
    );
    let lone = r#"{"task": "payslip", "gross_pay": "\ud800"}"#;
    let o = bareme(&["eval", luma, "-"], Some(lone));
    assert_eq!(
        stderr(&o).trim(),
        r"error: the case is not valid JSON: a string holds a lone surrogate escape (\uD800–\uDFFF without its pair), which is no character, at line 1 column 41"
    );
    let o = bareme(&["eval", luma, "--batch", "-"], Some(&format!("{lone}\n")));
    assert!(
        stdout(&o).contains("lone surrogate escape"),
        "{}",
        stdout(&o)
    );
}

/// A number is quoted in a rejection at most 40 characters long: an
/// over-long integer used to be echoed whole (a megabyte on stderr).
#[test]
fn an_over_long_number_is_quoted_short() {
    let cart = std::fs::read_to_string(crate::root().join("examples/sales-tax/cart.json"))
        .expect("bundled cart");
    let case = cart.replacen(
        "\"quantity\": 3",
        &format!("\"quantity\": {}", "9".repeat(100_000)),
        1,
    );
    assert_ne!(case, cart);
    let o = bareme(&["eval", "rulebooks/sales-tax/v1", "-"], Some(&case));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("… is too large"), "{}", stderr(&o));
    assert!(
        stderr(&o).len() < 300,
        "{} bytes on stderr",
        stderr(&o).len()
    );
}

/// One case alone and in a batch gives the same bytes, a number in a
/// message as written: `eval` read a case into a `serde_json::Value`,
/// which spells `1E+1` and `3e0` as `1e+1` and `3e+0`, while `--batch`
/// kept the text.
#[test]
fn a_number_in_a_message_is_as_written_alone_and_in_a_batch() {
    let dir = tempdir("eval-number-as-written");
    let case = |quantity: &str| {
        format!(
            r#"{{"cart": {{"cart_id": "N", "customer_id": "K1", "lines": [{{"id": "L1", "product_id": "P1", "quantity": {quantity}, "jurisdiction": "STATE_N"}}]}}, "customers": {{"K1": {{"billing_jurisdiction": "STATE_A"}}}}, "products": {{"P1": {{"category": "STANDARD", "name": "Mug", "unit_price": "12.34"}}}}, "rules": {{"STATE_N": {{"rate": "0.0625", "categories": {{"STANDARD": "taxable", "DIGITAL": "exempt", "GROCERY": "exempt", "MEDICAL": "exempt"}}}}}}}}"#
        )
    };
    let mut batch = String::new();
    for quantity in ["1E+1", "3e0"] {
        let path = dir.join("case.json");
        std::fs::write(&path, case(quantity)).expect("write");
        let alone = bareme(
            &["eval", "rulebooks/sales-tax/v1", path.to_str().unwrap()],
            None,
        );
        assert_eq!(alone.status.code(), Some(2), "{}", stderr(&alone));
        assert_eq!(
            stderr(&alone),
            format!("rejected: cart.lines[0].quantity: must be a whole number, found {quantity} (VALIDATION)\n")
        );
        batch.push_str(&case(quantity));
        batch.push('\n');
    }
    let path = dir.join("cases.jsonl");
    std::fs::write(&path, batch).expect("write");
    let out = bareme(
        &[
            "eval",
            "rulebooks/sales-tax/v1",
            "--batch",
            path.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(
        stdout(&out),
        "{\"error\":{\"path\":\"cart.lines[0].quantity\",\"message\":\"must be a whole number, found 1E+1 (VALIDATION)\"}}\n\
         {\"error\":{\"path\":\"cart.lines[0].quantity\",\"message\":\"must be a whole number, found 3e0 (VALIDATION)\"}}\n"
    );
}
