//! Inputs against the case: what it gave, left out, spelt, supplied, and
//! called invalid, read as the engine reads them.

use super::*;

/// A receipt built on input the case never gave does not verify against
/// that case: a record field the case leaves out given a value, a map
/// given a key, a list item's field filled in, a field the case gives
/// recorded as absent. Each was compared only where the case had a value.
#[test]
fn an_input_the_case_never_gave_does_not_follow() {
    let rb = part_rulebook(
        "gaps",
        "[inputs.pay]\ntype = \"record\"\nrequired = true\n\
         fields = { base = { type = \"money\", required = true }, bonus = { type = \"money\" }, \
         rate = { type = \"decimal\", default = \"0.5\" } }\n\
         [inputs.m]\ntype = \"map\"\nitems = { type = \"money\" }\n\
         [inputs.xs]\ntype = \"list\"\nitems = { type = \"record\", fields = { v = { type = \"money\", required = true }, w = { type = \"money\" } } }\n\
         [steps.part]\nexpr = \"pay.base + coalesce(pay.bonus, 0) + sum(values(m)) + sum([coalesce(x.w, 0) for x in xs])\"\n",
    );
    let case =
        serde_json::json!({"pay": {"base": "1000.00"}, "m": {"a": "1.00"}, "xs": [{"v": "1.00"}]});
    let line = traced(&rb, &case).expect("a trace");
    let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    assert!(findings(&rb, &json, &case).is_empty(), "{line}");
    // The default a field the case leaves out takes is recorded, and follows.
    assert!(line.contains(r#""rate":"0.5""#), "{line}");
    let input = |j: &mut serde_json::Value, name: &str| -> Option<serde_json::Value> {
        let inputs = j["trace"]["inputs"].as_array_mut()?;
        let at = inputs.iter().position(|i| i["name"] == name)?;
        Some(inputs[at]["value"].take())
    };
    type Edit<'a> = (&'a str, &'a dyn Fn(&mut serde_json::Value));
    let edits: [Edit; 5] = [
        ("pay", &|v| v["bonus"] = serde_json::json!("500.00")),
        ("pay", &|v| v["rate"] = serde_json::json!("0.7")),
        ("m", &|v| v["b"] = serde_json::json!("5.00")),
        ("xs", &|v| v[0]["w"] = serde_json::json!("7.00")),
        ("xs", &|v| v[0]["v"] = serde_json::Value::Null),
    ];
    for (name, edit) in edits {
        let mut j = json.clone();
        let mut value = input(&mut j, name).expect("the input recorded");
        edit(&mut value);
        let inputs = j["trace"]["inputs"].as_array_mut().expect("inputs");
        if let Some(i) = inputs.iter_mut().find(|i| i["name"] == name) {
            i["value"] = value.clone();
        }
        let found = findings(&rb, &j, &case);
        assert!(
            found
                .iter()
                .any(|f| f.contains(&format!("input {name}: input against the case"))),
            "{name} {value}: {found:?}"
        );
    }
}

/// Honest traces the verifier refused: a null inside a list, a map or a
/// record (read as absent, so `is_null` of it false, and a trace forged
/// to say so verified); a group with no items read by a step a check runs
/// first; a record field whose invalid value reads as its default.
#[test]
fn nulls_inside_values_empty_groups_and_defaults_read_as_the_engine_reads_them() {
    let follows = |rb: &Rulebook, case: serde_json::Value| {
        let line = traced(rb, &case).expect("a trace");
        let found: Vec<String> = verdict(rb, &line, &case)
            .findings
            .iter()
            .map(|f| f.to_string())
            .collect();
        assert!(found.is_empty(), "{case}: {found:?}");
        line
    };
    let nulls = part_rulebook(
        "nulls",
        "[inputs.xs]\ntype = \"list\"\nitems = { type = \"money\", nullable = true }\n\
         [inputs.mp]\ntype = \"map\"\nitems = { type = \"money\", nullable = true }\n\
         [inputs.rec]\ntype = \"record\"\nnullable = true\nfields = { f = { type = \"money\" } }\n\
         [steps.part]\nexpr = \"count([x for x in xs if is_null(x)]) + (if is_null(get(mp, 'k')) then 10 else 0) + (if is_null(rec.f) then 100 else 0)\"\n",
    );
    let line = follows(
        &nulls,
        serde_json::json!({"xs": [null, "1"], "mp": {"k": null, "j": "2"}, "rec": null}),
    );
    assert!(line.contains(r#"{"answer":{"part":"111.00"}"#), "{line}");
    // The same trace, its step and answer forged to read the nulls as absent.
    let forged = line
        .replace("\"111.00\"", "\"0.00\"")
        .replace("\"111\"", "\"0\"");
    let case = serde_json::json!({"xs": [null, "1"], "mp": {"k": null, "j": "2"}, "rec": null});
    assert!(!verdict(&nulls, &forged, &case).follows(), "{forged}");
    follows(
        &nulls,
        serde_json::json!({"xs": ["1"], "mp": {"j": "2"}, "rec": {}}),
    );

    let empty = part_rulebook(
        "empty",
        "[inputs.xs]\ntype = \"list\"\nitems = { type = \"decimal\" }\n\
         [per_item.g]\nover = \"xs\"\nitem = \"x\"\n\
         [per_item.g.steps.y]\nexpr = \"x * 2\"\n\
         [steps.part]\nexpr = \"sum(g.y)\"\n\
         [[checks]]\nwhen = \"part > 100\"\nreject = \"xs\"\n",
    );
    follows(&empty, serde_json::json!({"xs": []}));
    follows(&empty, serde_json::json!({}));
    follows(&empty, serde_json::json!({"xs": ["1", "2"]}));

    let defaults = part_rulebook(
        "defaults",
        "[inputs.r]\ntype = \"record\"\n[inputs.r.fields.tag]\ntype = \"text\"\ninvalid = \"absent\"\ndefault = \"none\"\n\
         [steps.part]\nexpr = \"if coalesce(r.tag, 'x') == 'none' then 1 else 0\"\n",
    );
    let line = follows(&defaults, serde_json::json!({"r": {"tag": 5}}));
    assert!(line.contains(r#"{"answer":{"part":"1.00"}"#), "{line}");
}

/// A trace of the case written another way does not follow the case: a
/// decimal's scale is as written (`"2.34500"` is not `"2.345"`: a
/// `decimal` answer then writes the other scale), a text is its characters
/// (`"2.05"` is not `"2.050"`); both were compared as numbers, by value.
#[test]
fn a_trace_of_another_spelling_of_the_case_does_not_follow() {
    use serde_json::json;
    let rb = load_rulebook(Path::new("tests/lang")).expect("tests/lang");
    for (written, other, input) in [
        (json!({"x": "2.34500"}), json!({"x": "2.345"}), "x"),
        (
            json!({"x": "1", "code": "2.05"}),
            json!({"x": "1", "code": "2.050"}),
            "code",
        ),
    ] {
        let line = traced(&rb, &written).expect("a trace");
        assert!(verdict(&rb, &line, &written).follows(), "{line}");
        let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
        let found = findings(&rb, &json, &other);
        assert!(
            found
                .iter()
                .any(|f| f.starts_with(&format!("input {input}: input against the case"))),
            "{other}: {found:?}"
        );
    }
}

/// A text read through a `pattern` agrees with the case by its groups: the
/// receipt of tax code K1000L verified for a case giving K1257L (another
/// allowance, another tax), and for an invalid code.
#[test]
fn a_code_read_through_a_pattern_is_compared_with_the_case() {
    use serde_json::json;
    let rb = load_rulebook(Path::new("examples/regional-payroll/v2026")).expect("regional");
    let case = |code: &str| json!({"tax_code": code, "tax_month": 1, "gross_pay": "3000.00", "category": "A"});
    let line = traced(&rb, &case("K1000L")).expect("a trace");
    assert!(verdict(&rb, &line, &case("K1000L")).follows(), "{line}");
    let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    for other in ["K1257L", "K12L"] {
        let found = findings(&rb, &json, &case(other));
        assert!(
            found
                .iter()
                .any(|f| f.starts_with("input tax_code: input against the case")),
            "{other}: {found:?}"
        );
    }
}

/// `--cases` read a case line that is not JSON as no case, and verified
/// the trace beside it without its inputs (exit 0, "follows"); `--case`
/// refused the same line.
#[test]
fn a_case_line_that_is_not_json_is_refused_beside_a_trace() {
    let dir = std::env::temp_dir().join(format!("bareme-vt-cases-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let rb = "rulebooks/sales-tax/v1";
    let cart = std::fs::read_to_string("examples/sales-tax/cart.json").expect("the example");
    let one: serde_json::Value = serde_json::from_str(&cart).expect("JSON");
    let cases = dir.join("cases.jsonl");
    std::fs::write(&cases, format!("{one}\n")).expect("write");
    let bin = env!("CARGO_BIN_EXE_bareme");
    let run = |args: &[&str]| {
        std::process::Command::new(bin)
            .args(args)
            .output()
            .expect("runs")
    };
    let o = run(&[
        "eval",
        rb,
        "--batch",
        cases.to_str().expect("utf-8"),
        "--trace",
        "json",
    ]);
    assert!(o.status.success());
    let traces = dir.join("traces.jsonl");
    std::fs::write(&traces, &o.stdout).expect("write");
    let verify = |cases_text: &str| {
        std::fs::write(&cases, cases_text).expect("write");
        let o = run(&[
            "verify-trace",
            traces.to_str().expect("utf-8"),
            "--rulebook",
            rb,
            "--cases",
            cases.to_str().expect("utf-8"),
        ]);
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).to_string(),
        )
    };
    assert_eq!(verify(&format!("{one}\n")).0, Some(0));
    for bad in [
        "garbage\n".to_string(),
        format!("\u{feff}{one}\n"),
        format!("{one} x\n"),
    ] {
        let (code, stderr) = verify(&bad);
        assert_eq!(code, Some(2), "{bad:?}: {stderr}");
        assert!(
            stderr.contains("error: case line 1: not JSON")
                && stderr.contains("and trace line 1 is a traced evaluation of a case"),
            "{stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// `eval --batch` answers a blank case line with an error line; `--cases`
/// skipped blank lines, so every trace after one was paired with the next
/// case (exit 2, "the cases file is shorter"). A line with a key written
/// twice is no case either: its error line is let by too.
#[test]
fn a_blank_case_line_pairs_with_its_error_line() {
    let dir = std::env::temp_dir().join(format!("bareme-vt-blank-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let rb = "rulebooks/luma-payroll/v3";
    let case = std::fs::read_to_string("examples/luma-payroll/payslip.json").expect("the example");
    let one: serde_json::Value = serde_json::from_str(&case).expect("JSON");
    let cases = dir.join("cases.jsonl");
    // The last line writes a key twice: the engine reads no case there.
    std::fs::write(&cases, format!("{one}\n\n{one}\n{{\"a\":1,\"a\":2}}\n")).expect("write");
    let bin = env!("CARGO_BIN_EXE_bareme");
    let path = |p: &std::path::Path| p.to_str().expect("utf-8").to_string();
    let o = std::process::Command::new(bin)
        .args(["eval", rb, "--batch", &path(&cases), "--trace", "json"])
        .output()
        .expect("runs");
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 4);
    let traces = dir.join("traces.jsonl");
    std::fs::write(&traces, &o.stdout).expect("write");
    let o = std::process::Command::new(bin)
        .args([
            "verify-trace",
            &path(&traces),
            "--rulebook",
            rb,
            "--cases",
            &path(&cases),
        ])
        .output()
        .expect("runs");
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        out.starts_with("2 of 2 traces follow")
            && out.contains("(2 unread case lines without a trace)"),
        "{out}"
    );
    // The first receipt swapped for an error line without a trace: its
    // case line is JSON, so it was read and traced (hostile probe: the
    // swap was counted an unread line and the batch said to follow).
    let written = std::fs::read_to_string(&traces).expect("read");
    let blank_error = written.lines().nth(1).expect("the blank line's error");
    let swapped: Vec<&str> = std::iter::once(blank_error)
        .chain(written.lines().skip(1))
        .collect();
    std::fs::write(&traces, swapped.join("\n") + "\n").expect("write");
    let o = std::process::Command::new(bin)
        .args([
            "verify-trace",
            &path(&traces),
            "--rulebook",
            rb,
            "--cases",
            &path(&cases),
        ])
        .output()
        .expect("runs");
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.starts_with("line 1: case: trace: recorded an error line without a trace, {\"error\":")
            && out.contains("follows a traced evaluation: the case line is JSON")
            && out.contains("1 of 2 traces follow")
            && out.contains("(2 unread case lines without a trace)"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// What the case says of an input it leaves out or gives `null` is one
/// `given`, as validation records it: a receipt claiming another passed
/// wherever no step read the input (hostile probe: `absent` for a `null`,
/// `absent` for an input that took its default, `null` for a key the case
/// leaves out).
#[test]
fn the_given_of_an_input_left_out_or_null_is_the_one_the_case_says() {
    let rb = part_rulebook(
        "givens",
        "[inputs.a]\ntype = \"money\"\ndefault = \"5.00\"\n\
         [inputs.b]\ntype = \"money\"\n\
         [inputs.c]\ntype = \"money\"\nnullable = true\n\
         [inputs.x]\ntype = \"money\"\nrequired = true\n\
         [steps.part]\nexpr = \"x\"\n",
    );
    let given = |line: &serde_json::Value, name: &str| -> String {
        let inputs = line["trace"]["inputs"].as_array().expect("inputs");
        let i = inputs.iter().find(|i| i["name"] == name).expect("recorded");
        i["given"].as_str().expect("a text").to_string()
    };
    let with = |line: &serde_json::Value, name: &str, claim: &str| {
        let mut j = line.clone();
        let inputs = j["trace"]["inputs"].as_array_mut().expect("inputs");
        let i = inputs
            .iter_mut()
            .find(|i| i["name"] == name)
            .expect("recorded");
        i["given"] = claim.into();
        if claim != "default" {
            i["value"] = serde_json::Value::Null;
        }
        j
    };
    // Left out: the default, else absent; `null`: the default of an input
    // that keeps no null, null where it is kept or there is no default.
    for (case, want) in [
        (
            serde_json::json!({"x": "1.00"}),
            [("a", "default"), ("b", "absent"), ("c", "absent")],
        ),
        (
            serde_json::json!({"x": "1.00", "a": null, "b": null, "c": null}),
            [("a", "default"), ("b", "null"), ("c", "null")],
        ),
    ] {
        let line: serde_json::Value =
            serde_json::from_str(&traced(&rb, &case).expect("a trace")).expect("JSON");
        assert!(findings(&rb, &line, &case).is_empty(), "{line}");
        for (name, follows) in want {
            assert_eq!(given(&line, name), follows, "{case}");
            for claim in ["absent", "null", "default", "value"] {
                if claim == follows {
                    continue;
                }
                let found = findings(&rb, &with(&line, name, claim), &case);
                let named = format!("input {name}: given: recorded {claim}, follows ");
                assert!(
                    found.iter().any(|f| f.starts_with(&named)),
                    "{case} {name} {claim}: {found:?}"
                );
            }
        }
    }
}

/// A supplied table's input is recorded as the rows the case gave
/// (`rows first-half, second-half of table schedule`): another text
/// verified (hostile probe).
#[test]
fn a_supplied_tables_rows_are_named_as_the_case_gives_them() {
    let rb = load_rulebook(Path::new("rulebooks/luma-payroll/v3")).expect("luma");
    let text = std::fs::read_to_string(
        "rulebooks/luma-payroll/v3/cases/23-supplied-tables-distractor-row.toml",
    )
    .expect("the case");
    let file: toml::Table = toml::from_str(&text).expect("TOML");
    let case: serde_json::Value =
        serde_json::from_str(file["case"].as_str().expect("the case text")).expect("JSON");
    let mut line: serde_json::Value =
        serde_json::from_str(&traced(&rb, &case).expect("a trace")).expect("JSON");
    assert!(findings(&rb, &line, &case).is_empty());
    let inputs = line["trace"]["inputs"].as_array_mut().expect("inputs");
    let tables = inputs
        .iter_mut()
        .find(|i| i["name"] == "reference_tables")
        .expect("recorded");
    assert_eq!(
        tables["value"],
        "rows first-half, second-half of table schedule"
    );
    tables["value"] = "rows first-half of table schedule".into();
    assert_eq!(
        findings(&rb, &line, &case),
        ["input reference_tables: value: recorded rows first-half of table schedule, follows rows first-half, second-half of table schedule"]
    );
}

/// A map is read in the case's order (`values`, comprehensions): a trace
/// recording its entries in another order verified (hostile probe).
#[test]
fn a_map_recorded_in_another_order_does_not_follow() {
    let rb = part_rulebook(
        "order",
        "[inputs.m]\ntype = \"map\"\nitems = { type = \"money\" }\n\
         [steps.part]\nexpr = \"sum(values(m))\"\n",
    );
    let case = serde_json::json!({"m": {"b": "2.00", "a": "1.00"}});
    let line = traced(&rb, &case).expect("a trace");
    let mut json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    assert!(findings(&rb, &json, &case).is_empty(), "{line}");
    let inputs = json["trace"]["inputs"].as_array_mut().expect("inputs");
    assert_eq!(inputs[0]["value"].to_string(), r#"{"b":"2.00","a":"1.00"}"#);
    inputs[0]["value"] = serde_json::json!({"a": "1.00", "b": "2.00"});
    let found = findings(&rb, &json, &case);
    assert!(
        found
            .iter()
            .any(|f| f.starts_with("input m: input against the case")),
        "{found:?}"
    );
}

/// `given: "invalid"` is the validator's to say, which the verifier does
/// not share; but a value the declaration alone finds valid is not
/// invalid: the receipt of a case whose bonus was "x" (pay 1000.00)
/// verified for the case whose bonus is "500.00" (pay 1500.00), at the
/// top level and inside a record (hostile probe).
#[test]
fn a_plainly_valid_value_called_invalid_does_not_follow() {
    let rb = part_rulebook(
        "invalid",
        "[inputs.salary]\ntype = \"money\"\nrequired = true\n\
         [inputs.bonus]\ntype = \"money\"\ninvalid = \"absent\"\n\
         [inputs.extra]\ntype = \"record\"\nfields = { tip = { type = \"money\", invalid = \"absent\" } }\n\
         [steps.part]\nexpr = \"salary + coalesce(bonus, 0) + coalesce(extra.tip, 0)\"\n",
    );
    let case =
        serde_json::json!({"salary": "1000.00", "bonus": "500.00", "extra": {"tip": "7.00"}});
    for (minted_from, named) in [
        (
            serde_json::json!({"salary": "1000.00", "bonus": "x", "extra": {"tip": "7.00"}}),
            "input bonus: given: recorded invalid, follows value: the case's value is valid by the input's declaration",
        ),
        (
            serde_json::json!({"salary": "1000.00", "bonus": "500.00", "extra": {"tip": "7.001"}}),
            "input extra: input against the case: recorded {\"tip\":null}, follows {\"tip\":\"7.00\"}",
        ),
    ] {
        let line = traced(&rb, &minted_from).expect("a trace");
        // Honest against the case it was made of: the invalid value is
        // taken as recorded.
        assert!(verdict(&rb, &line, &minted_from).follows(), "{line}");
        let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
        let found = findings(&rb, &json, &case);
        assert!(found.iter().any(|f| f == named), "{found:?}");
    }
}

/// As above, for a whole number, a date, a month and a decimal read from
/// a JSON number: each was judged no more, so a receipt minted from a case
/// with that input invalid verified for a case where it is valid.
#[test]
fn a_valid_number_date_or_month_called_invalid_does_not_follow() {
    let rb = part_rulebook(
        "invalid_kinds",
        "[inputs.salary]\ntype = \"money\"\nrequired = true\n\
         [inputs.n]\ntype = \"integer\"\nmin = \"0\"\nmax = \"9\"\ninvalid = \"absent\"\n\
         [inputs.d]\ntype = \"date\"\ninvalid = \"absent\"\n\
         [inputs.m]\ntype = \"month\"\ninvalid = \"absent\"\n\
         [inputs.r]\ntype = \"decimal\"\nnumbers = \"plain\"\nplaces = 2\ninvalid = \"absent\"\n\
         [steps.part]\nexpr = \"salary + coalesce(n, 0) + coalesce(r, 0) + (if is_missing(d) then 0 else 10) + (if is_missing(m) then 0 else 100)\"\n",
    );
    let valid = serde_json::json!({"salary": "1000.00", "n": 3, "d": "2026-02-28", "m": "2026-02", "r": 0.25});
    let line = traced(&rb, &valid).expect("a trace");
    let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    assert_eq!(json["answer"]["part"], "1113.25", "{line}");
    assert!(findings(&rb, &json, &valid).is_empty(), "{line}");
    for (name, bad) in [
        ("n", serde_json::from_str("-0").expect("JSON")),
        ("n", serde_json::from_str("2.0").expect("JSON")),
        ("n", serde_json::json!(10)),
        ("d", serde_json::json!("2026-02-30")),
        ("m", serde_json::json!("2026-13")),
        ("r", serde_json::json!(0.125)),
    ] {
        let mut minted_from = valid.clone();
        minted_from[name] = bad;
        let line = traced(&rb, &minted_from).expect("a trace");
        assert!(verdict(&rb, &line, &minted_from).follows(), "{line}");
        let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
        let found = findings(&rb, &json, &valid);
        let named = format!(
            "input {name}: given: recorded invalid, follows value: the case's value is valid by the input's declaration"
        );
        assert!(found.contains(&named), "{name}: {found:?}");
    }
}

/// `null` given to an input that is not nullable reads as absent
/// (`is_null` of it false), as the engine reads it: the verifier read it
/// as null, so the honest trace failed and one forged to say `true`
/// followed (hostile probe). A map with `keys` is read in their order,
/// whatever the case's: its honest trace failed.
#[test]
fn a_null_the_input_does_not_keep_and_declared_keys_read_as_the_engine_reads_them() {
    let rb = part_rulebook(
        "nulls",
        "[inputs.t]\ntype = \"text\"\n\
         [inputs.rates]\ntype = \"map\"\nkeys = [\"low\", \"high\"]\nitems = { type = \"decimal\" }\n\
         [steps.part]\nexpr = \"if is_null(t) then 1 else sum(values(rates))\"\n",
    );
    let case = serde_json::json!({"t": null, "rates": {"high": "0.2", "low": "0.1"}});
    let line = traced(&rb, &case).expect("a trace");
    let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    assert_eq!(json["answer"]["part"], "0.30", "{line}");
    assert!(findings(&rb, &json, &case).is_empty(), "{line}");
    let forged = line
        .replace("\"0.30\"", "\"1.00\"")
        .replace("\"0.3\"", "\"1\"");
    let forged: serde_json::Value = serde_json::from_str(&forged).expect("JSON");
    assert_ne!(forged, json);
    let found = findings(&rb, &forged, &case);
    assert!(
        found
            .iter()
            .any(|f| f.starts_with("step part: value: recorded 1")),
        "{found:?}"
    );
}

/// An input is written as the engine writes it: the same number spelt
/// otherwise (`3650e0`, `+3650.00`, `03650.00`), a whole number with
/// places, or a default at another scale does not follow, though each
/// reads as the same number (hostile probe).
#[test]
fn an_input_spelt_otherwise_does_not_follow() {
    let (rb, case, json) = luma_payslip();
    for spelling in ["3650e0", "365.000e1", "+3650.00", "03650.00", "3650.0"] {
        let mut changed = json.clone();
        changed["trace"]["inputs"][1]["value"] = serde_json::json!(spelling);
        let expected = format!(
            "input gross_pay: input against the case: recorded {spelling}, follows 3650.00"
        );
        assert_eq!(findings(&rb, &changed, &case), [expected], "{spelling}");
    }

    let rb = part_rulebook(
        "spelt",
        "[inputs.count]\ntype = \"integer\"\nrequired = true\n\
         [inputs.divisor]\ntype = \"decimal\"\ndefault = \"1\"\n\
         [steps.part]\nexpr = \"count / divisor\"\n",
    );
    let case = serde_json::json!({"count": 3});
    let line: serde_json::Value =
        serde_json::from_str(&traced(&rb, &case).expect("a trace")).expect("JSON");
    assert!(findings(&rb, &line, &case).is_empty());
    for (input, spelling, named) in [
        (
            0,
            "3.0",
            "input count: input against the case: recorded 3.0, follows 3",
        ),
        (
            0,
            "3e0",
            "input count: input against the case: recorded 3e0, follows 3",
        ),
        (
            1,
            "1.0",
            "input divisor: default: recorded 1.0, follows \"1\"",
        ),
    ] {
        let mut changed = line.clone();
        changed["trace"]["inputs"][input]["value"] = serde_json::json!(spelling);
        let found = findings(&rb, &changed, &case);
        assert!(found.iter().any(|f| f == named), "{spelling}: {found:?}");
    }
}
