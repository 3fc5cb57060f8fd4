//! Hostile input never panics or hangs: it is refused fast with a clear message.

use bareme::{evaluate_value, parse_rulebook, Outcome};

fn luma() -> bareme::Rulebook {
    super::rulebook("rulebooks/luma-payroll/v3")
}

fn rejected_at(rb: &bareme::Rulebook, case: &str) -> String {
    let value: serde_json::Value = serde_json::from_str(case).expect("test case is JSON");
    match evaluate_value(rb, &value, false).expect("no rulebook fault") {
        (Outcome::Rejected(e), _) => e.path,
        (other, _) => panic!("expected a rejection, got {other:?}"),
    }
}

#[test]
fn huge_and_odd_numbers_are_rejected_not_parsed_into_floats() {
    let rb = luma();
    for gross in [
        "\"1e1000000\"",
        "1e1000000",
        "\"99999999999999999999999999999999999999\"",
        "\"NaN\"",
        "\"Infinity\"",
        "\"1_000.00\"",
        "\" 12\"",
        "\"\"",
        "true",
        "[1]",
        "{}",
    ] {
        let case =
            format!(r#"{{"task": "payslip", "gross_pay": {gross}, "payroll_month": "2026-01"}}"#);
        assert_eq!(rejected_at(&rb, &case), "gross_pay", "{gross}");
    }
}

#[test]
fn deeply_nested_json_is_refused_by_the_parser() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(serde_json::from_str::<serde_json::Value>(&deep).is_err());
}

#[test]
fn hostile_expressions_in_a_rulebook_are_diagnostics() {
    let deep = format!("{}1{}", "(".repeat(5000), ")".repeat(5000));
    let long = "x + ".repeat(2000) + "x";
    for expr in [deep.as_str(), long.as_str(), "not not not not x", "1 / 0"] {
        let text = format!(
            "[rulebook]\nid = \"h\"\nversion = 1\nschema = 1\n\n[inputs.x]\ntype = \"bool\"\n\n[steps.s]\nexpr = \"{expr}\"\n\n[[checks]]\ndecision = \"d\"\n\n[decisions.d.answer]\nv = {{ expr = \"s\" }}\n"
        );
        // Accepted or refused, never a panic; the deep and the long ones are refused.
        let res = parse_rulebook("h.toml", &text);
        if expr.len() > 1000 {
            let d = res.expect_err("refused");
            assert!(
                d.problems[0].message.contains("limit") || d.problems[0].message.contains("nests"),
                "{}",
                d.problems[0].message
            );
        }
    }
}

#[test]
fn division_by_zero_is_an_evaluation_error_not_a_panic() {
    let text = "[rulebook]\nid = \"h\"\nversion = 1\nschema = 1\n\n[inputs.x]\ntype = \"decimal\"\nrequired = true\n\n[steps.s]\nexpr = \"1 / x\"\n\n[[checks]]\ndecision = \"d\"\n\n[decisions.d.answer]\nv = { expr = \"s\" }\n";
    let rb = parse_rulebook("h.toml", text).expect("valid");
    let err = evaluate_value(&rb, &serde_json::json!({"x": "0"}), false).expect_err("fault");
    assert_eq!(err.message, "division by zero (1 / 0)");
    assert_eq!(err.context, "step s");
}

#[test]
fn the_evaluation_budget_stops_runaway_work() {
    let text = "[rulebook]\nid = \"h\"\nversion = 1\nschema = 1\n\n[limits]\nmax_eval_steps = 20\n\n[inputs.x]\ntype = \"decimal\"\nrequired = true\n\n[steps.a]\nexpr = \"x + x + x + x + x + x\"\n\n[steps.b]\nexpr = \"a + a + a + a + a + a + a + a\"\n\n[[checks]]\ndecision = \"d\"\n\n[decisions.d.answer]\nv = { expr = \"b\" }\n";
    let rb = parse_rulebook("h.toml", text).expect("valid");
    let err = evaluate_value(&rb, &serde_json::json!({"x": "1"}), false).expect_err("budget");
    assert!(err.message.contains("limit of 20 steps"), "{}", err.message);
}

/// A scale or a lookup went through its table for one unit of budget: a
/// 12 KB rulebook scanned 250 bands thousands of times a case within it
/// (49 s for a repair candidate whose reference took 0.14 s). Each row
/// gone through is a unit, as `rows` spends them.
#[test]
fn a_scale_or_lookup_spends_a_unit_per_row_of_its_table() {
    let bands: Vec<String> = (1..250)
        .map(|i| format!("{{ upto = {}, rate = \"0.01\" }}", i * 7))
        .chain(["{ rate = \"0.3\" }".to_string()])
        .collect();
    let rulebook = |limit: u64, expr: &str| {
        format!(
            "[rulebook]\nid = \"h\"\nversion = 1\nschema = 1\n\n[limits]\nmax_eval_steps = {limit}\n\n\
             [inputs.x]\ntype = \"decimal\"\nrequired = true\n\n[tables.big]\nkind = \"scale\"\nrows = [{}]\n\n\
             [steps.a]\nexpr = \"{expr}\"\n\n[[checks]]\ndecision = \"d\"\n\n[decisions.d.answer]\nv = {{ expr = \"a\" }}\n",
            bands.join(", ")
        )
    };
    let case = serde_json::json!({"x": "100"});
    // One scale: its 250 rows and a few nodes.
    let one = parse_rulebook("h.toml", &rulebook(300, "scale(big, x)")).expect("valid");
    let (outcome, _) = evaluate_value(&one, &case, false).expect("within 300 steps");
    assert!(format!("{outcome:?}").contains("1.00"), "{outcome:?}");
    let tight = parse_rulebook("h.toml", &rulebook(200, "scale(big, x)")).expect("valid");
    let err = evaluate_value(&tight, &case, false).expect_err("past 200 steps");
    assert!(
        err.message.contains("limit of 200 steps"),
        "{}",
        err.message
    );
    // A scale for each of the table's rows: 62,500 rows gone through,
    // past a budget of 5,000 (it was about 500 units).
    let many = rulebook(5_000, "sum([scale(big, x) for r in rows(big)])");
    let many = parse_rulebook("h.toml", &many).expect("valid");
    let err = evaluate_value(&many, &case, false).expect_err("past 5,000 steps");
    assert!(
        err.message.contains("limit of 5000 steps"),
        "{}",
        err.message
    );
}

/// `pow` works in big integers (a 28-place base to the 4095th, a root of
/// a thousand-digit power: up to ~20 µs a call), and went for one unit: a
/// formula calling it per item spent minutes within a budget of seconds.
/// A call now spends `POW_UNITS` (256) besides its nodes.
#[test]
fn a_power_spends_its_work_from_the_budget() {
    let rulebook = |limit: u64| {
        format!(
            "[rulebook]\nid = \"h\"\nversion = 1\nschema = 1\n\n[limits]\nmax_eval_steps = {limit}\n\n\
             [inputs.x]\ntype = \"decimal\"\nrequired = true\n\n\
             [steps.a]\nexpr = \"pow(x, 4095)\"\n\n[[checks]]\ndecision = \"d\"\n\n[decisions.d.answer]\nv = {{ expr = \"a\" }}\n"
        )
    };
    let case = serde_json::json!({"x": "1.0000000000000000000000000001"});
    let within = parse_rulebook("h.toml", &rulebook(300)).expect("valid");
    let (outcome, _) = evaluate_value(&within, &case, false).expect("within 300 steps");
    assert!(
        format!("{outcome:?}").contains("1.0000000000000000000000004095"),
        "{outcome:?}"
    );
    let tight = parse_rulebook("h.toml", &rulebook(256)).expect("valid");
    let err = evaluate_value(&tight, &case, false).expect_err("past 256 steps");
    assert!(
        err.message.contains("limit of 256 steps"),
        "{}",
        err.message
    );
}

#[test]
fn lists_longer_than_their_bound_are_rejected_before_item_checks() {
    let text = "[rulebook]\nid = \"h\"\nversion = 1\nschema = 1\n\n[inputs.items]\ntype = \"list\"\nmax_items = 24\nitems = { type = \"integer\", min = \"1\" }\n\n[steps.n]\nexpr = \"count(items)\"\n\n[[checks]]\ndecision = \"d\"\n\n[decisions.d.answer]\nn = { expr = \"n\", format = \"integer\" }\n";
    let rb = parse_rulebook("h.toml", text).expect("valid");
    let many: Vec<i64> = vec![0; 1_000_000];
    let err = match evaluate_value(&rb, &serde_json::json!({ "items": many }), false)
        .expect("no fault")
    {
        (Outcome::Rejected(e), _) => e,
        other => panic!("{other:?}"),
    };
    assert_eq!(err.path, "items");
    assert_eq!(err.message, "has 1000000 items, more than the limit of 24");
    let ok =
        evaluate_value(&rb, &serde_json::json!({ "items": [1, 2, 3] }), false).expect("no fault");
    assert_eq!(
        bareme::unstable::outcome::outcome_json(Ok(&ok.0)),
        serde_json::json!({"n": 3})
    );
    assert_eq!(rejected_at(&rb, r#"{"items": [1, 0]}"#), "items[1]");
}

#[test]
fn a_non_object_case_is_rejected_at_the_root() {
    let rb = luma();
    for case in ["[]", "\"payslip\"", "null", "42"] {
        assert_eq!(rejected_at(&rb, case), "$");
    }
}

#[test]
fn a_huge_cart_on_the_command_line_is_refused_before_parsing() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_bareme"))
        .args(["eval", "rulebooks/sales-tax/v1", "-"])
        .current_dir(super::root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bareme runs");
    let mut stdin = child.stdin.take().expect("stdin");
    // Ten million lines would be ~600 MB; the reader stops after its 1 MiB limit,
    // so writing stops with a broken pipe long before that.
    let line = br#"{"id": "L", "product_id": "P1", "quantity": 1, "jurisdiction": "STATE_A"},"#;
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(br#"{"cart": {"cart_id": "C", "customer_id": "K", "lines": ["#);
        for _ in 0..10_000_000u32 {
            if stdin.write_all(line).is_err() {
                return false;
            }
        }
        true
    });
    let out = child.wait_with_output().expect("bareme finishes");
    let wrote_everything = writer.join().expect("writer");
    assert!(!wrote_everything, "the whole cart was read");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("larger than the limit of 1048576 bytes"));
}

#[test]
fn a_cart_over_its_line_bound_is_rejected_at_the_list() {
    let rb = super::rulebook("rulebooks/sales-tax/v1");
    let lines: Vec<serde_json::Value> = (0..100_000)
        .map(|i| serde_json::json!({"id": format!("L{i}"), "product_id": "P1", "quantity": 1, "jurisdiction": "STATE_A"}))
        .collect();
    let case = serde_json::json!({
        "products": {"P1": {"category": "STANDARD", "unit_price": "1.00"}},
        "customers": {"K": {}},
        "cart": {"cart_id": "C", "customer_id": "K", "lines": lines}
    });
    let (outcome, _) = evaluate_value(&rb, &case, false).expect("no fault");
    let Outcome::Rejected(err) = outcome else {
        panic!("accepted")
    };
    assert_eq!(err.path, "cart.lines");
    assert!(
        err.message
            .starts_with("has 100000 items, more than the limit of 24"),
        "{}",
        err.message
    );
}

#[test]
fn string_literals_do_not_count_as_nesting() {
    let parens = "(".repeat(200);
    let text = format!(
        "[rulebook]\nid = \"h\"\nversion = 1\nschema = 1\n\n[steps.s]\nexpr = \"'{parens}'\"\n\n[[checks]]\ndecision = \"d\"\n\n[decisions.d.answer]\nv = {{ expr = \"s\" }}\n"
    );
    let rb = parse_rulebook("h.toml", &text).expect("valid");
    let (outcome, _) = evaluate_value(&rb, &serde_json::json!({}), false).expect("no fault");
    assert_eq!(
        bareme::unstable::outcome::outcome_json(Ok(&outcome)),
        serde_json::json!({ "v": parens })
    );
}

#[test]
fn an_input_named_case_is_refused_so_the_envelope_stays_unambiguous() {
    let text = "[rulebook]\nid = \"h\"\nversion = 1\nschema = 1\n\n[inputs.case]\ntype = \"integer\"\n\n[[checks]]\ndecision = \"d\"\n\n[decisions.d.answer]\nv = { expr = \"case\", format = \"integer\" }\n";
    let d = parse_rulebook("h.toml", text).expect_err("refused");
    // At the input's header, where its name is written.
    assert_eq!(d.locations(), vec!["check::bad_name 6:1-6:14".to_string()]);
    assert_eq!(
        d.problems[0].message,
        "`case` cannot name an input: `{\"case\": …}` is the envelope around a case"
    );
}

#[test]
fn escape_text_shows_controls_line_breaks_and_bidi_as_escapes() {
    use bareme::unstable::trace::escape_text;
    for (text, shown) in [
        ("plain é — ok", "plain é — ok"),
        ("a\nb\r\tc", "a\\nb\\r\\tc"),
        ("\u{1b}[2J\u{7f}\u{85}\0", "\\u{1b}[2J\\u{7f}\\u{85}\\u{0}"),
        (
            "\u{202a}\u{202e}\u{2066}\u{2069}",
            "\\u{202a}\\u{202e}\\u{2066}\\u{2069}",
        ),
        (
            "\u{200e}\u{200f}\u{61c}\u{2028}\u{2029}",
            "\\u{200e}\\u{200f}\\u{61c}\\u{2028}\\u{2029}",
        ),
        // Invisible: a key refused for itself read `gross_pay: unknown
        // input; did you mean gross_pay?`.
        (
            "gross_pay\u{200b}\u{ad}\u{2060}\u{feff}\u{200d}\u{e0041}",
            "gross_pay\\u{200b}\\u{ad}\\u{2060}\\u{feff}\\u{200d}\\u{e0041}",
        ),
    ] {
        assert_eq!(escape_text(text), shown, "{text:?}");
        // Escaping twice changes nothing more.
        assert_eq!(escape_text(shown), shown);
    }
}

/// Each reference into a list or a table scanned it: 120,000 bequests
/// naming one of 120,000 heirs ran past a minute (hostile probe). A long
/// target is indexed once; the answers are those of a scan: the last heir
/// found, a name no heir has refused at its own item, a supplied table's
/// keys likewise.
#[test]
fn references_into_long_lists_and_tables_are_looked_up_not_scanned() {
    let rb = parse_rulebook(
        "refs.toml",
        r#"[rulebook]
id = "refs"
version = 1
schema = 1

[tables.codes]
kind = "keyed"
keys = ["code"]
columns = { code = { type = "text" }, rate = { type = "decimal" } }
rows = [{ code = "A", rate = "0.1" }]

[inputs.supplied]
type = "table"
table = "codes"

[inputs.heirs]
type = "list"
items = { type = "record", fields = { id = { type = "text", required = true } } }

[inputs.beq]
type = "list"
items = { type = "record", fields = { to = { type = "text", ref = "heirs.id" }, code = { type = "text", ref = "codes" } } }

[inputs.shares]
type = "map"
key_ref = "heirs.id"
items = { type = "money" }

[steps.n]
expr = "count(beq)"

[[checks]]
decision = "d"

[decisions.d.answer]
n = { expr = "n", format = "integer" }

[limits]
max_list_items = 200000
max_case_bytes = 67108864
"#,
    )
    .expect("the rulebook loads");
    let n = 100_000;
    let heirs: Vec<serde_json::Value> = (0..n)
        .map(|i| serde_json::json!({"id": format!("h{i}")}))
        .collect();
    let codes: serde_json::Map<String, serde_json::Value> = (0..n)
        .map(|i| (format!("c{i}"), serde_json::json!({"rate": "0.2"})))
        .collect();
    let case = |last_to: &str, last_code: &str, share: &str| {
        let mut beq: Vec<serde_json::Value> = (0..n)
            .map(|i| serde_json::json!({"to": format!("h{}", n - 1 - i), "code": format!("c{i}")}))
            .collect();
        beq.push(serde_json::json!({"to": last_to, "code": last_code}));
        serde_json::json!({"heirs": heirs, "supplied": codes, "beq": beq, "shares": {share: "1.00"}})
    };
    let outcome = |case: serde_json::Value| match evaluate_value(&rb, &case, false) {
        Ok((Outcome::Answer(a), _)) => a.to_json().to_string(),
        Ok((Outcome::Rejected(e), _)) => format!("{}: {}", e.path, e.message),
        Ok((other, _)) => panic!("neither an answer nor a rejection: {other:?}"),
        Err(e) => panic!("a fault: {e}"),
    };
    assert_eq!(outcome(case("h0", "c99999", "h99999")), r#"{"n":100001}"#);
    assert_eq!(
        outcome(case("h100000", "c0", "h1")),
        r#"beq[100000].to: "h100000" is not the id of any of heirs"#
    );
    assert_eq!(
        outcome(case("h5", "A", "h1")),
        r#"beq[100000].code: "A" is not in table codes (as supplied at supplied)"#
    );
    assert_eq!(
        outcome(case("h5", "c5", "nobody")),
        r#"shares.nobody: "nobody" is not the id of any of heirs"#
    );
}
