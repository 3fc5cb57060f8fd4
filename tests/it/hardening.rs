//! Regressions of the hardening round: each test failed before its fix.

use bareme::{evaluate_value, parse_rulebook, EvalError, Outcome, Rulebook};

/// A rulebook of one decimal input `x`, the given steps (name, formula), and
/// one answer field `v` reading `answer`.
fn rulebook(steps: &[(&str, &str)], answer: &str) -> Rulebook {
    let mut text = String::from(
        "[rulebook]\nid = \"h\"\nversion = 1\nschema = 1\n\n[inputs.x]\ntype = \"decimal\"\nnumbers = \"plain\"\n\n",
    );
    for (name, expr) in steps {
        text.push_str(&format!("[steps.{name}]\nexpr = \"{expr}\"\n\n"));
    }
    text.push_str(&format!(
        "[[checks]]\ndecision = \"d\"\n\n[decisions.d.answer]\nv = {{ expr = \"{answer}\" }}\n"
    ));
    match parse_rulebook("h.toml", &text) {
        Ok(rb) => rb,
        Err(d) => panic!("{}", d.render(100, false)),
    }
}

/// The rulebook's fault on `x`, traced and untraced (they must agree).
fn fault(rb: &Rulebook, x: &str) -> EvalError {
    let case = serde_json::json!({ "x": x });
    let traced = evaluate_value(rb, &case, true).expect_err("a rulebook fault");
    let untraced = evaluate_value(rb, &case, false).expect_err("a rulebook fault");
    assert_eq!(traced, untraced, "both roads name the same fault");
    traced
}

#[test]
fn a_fault_snippet_keeps_its_brackets() {
    let rb = rulebook(&[("s", "(1) / (x - x)")], "s");
    let e = fault(&rb, "1");
    assert_eq!(e.snippet, "(1) / (x - x)");
    assert_eq!(e.message, "division by zero (1 / 0)");
}

#[test]
fn a_vanishing_negative_power_is_an_overflow_not_a_division() {
    let rb = rulebook(&[("s", "pow(x, -4096)")], "s");
    let e = fault(&rb, "0.5");
    assert_eq!(e.message, "0.5^-4096 overflows the exact decimal range");
}

#[test]
fn an_answer_still_comes_out() {
    let rb = rulebook(&[("s", "(x + 1) * 2")], "s");
    let case = serde_json::json!({ "x": "1.5" });
    let (outcome, _) = evaluate_value(&rb, &case, false).expect("no fault");
    assert_eq!(
        bareme::unstable::outcome::outcome_json(Ok(&outcome)),
        serde_json::json!({ "v": "5.0" })
    );
}

/// Steps `s1…sn`, each reading the one before through a chain of `+`
/// `terms` long: a formula `terms` levels deep per step.
fn chain(n: usize, terms: usize) -> Vec<(String, String)> {
    (1..=n)
        .map(|i| {
            let prev = if i == 1 {
                "x".to_string()
            } else {
                format!("s{}", i - 1)
            };
            (format!("s{i}"), format!("{prev}{}", " + 1".repeat(terms)))
        })
        .collect()
}

fn chain_rulebook(n: usize, terms: usize) -> Result<Rulebook, String> {
    let steps = chain(n, terms);
    let mut text = String::from(
        "[rulebook]\nid = \"h\"\nversion = 1\nschema = 1\n\n[inputs.x]\ntype = \"decimal\"\nnumbers = \"plain\"\n\n",
    );
    for (name, expr) in &steps {
        text.push_str(&format!("[steps.{name}]\nexpr = \"{expr}\"\n\n"));
    }
    text.push_str(&format!(
        "[[checks]]\ndecision = \"d\"\n\n[decisions.d.answer]\nv = {{ expr = \"s{n}\" }}\n"
    ));
    parse_rulebook("h.toml", &text).map_err(|d| d.render(100, false))
}

/// A chain of steps deeper than the evaluator may nest is refused at load,
/// located at the first step past the limit; it used to abort evaluation
/// with a stack overflow.
#[test]
fn a_chain_of_steps_too_deep_to_evaluate_is_refused_at_load() {
    let d = match chain_rulebook(8_000, 1) {
        Ok(_) => panic!("an 8,000-step chain was accepted"),
        Err(d) => d,
    };
    assert!(d.contains("check::too_deep"), "{d}");
    assert!(
        d.contains("step `s751` evaluates 1502 formula levels deep"),
        "{d}"
    );
    let d = match chain_rulebook(40, 250) {
        Ok(_) => panic!("40 steps of 250-term sums were accepted"),
        Err(d) => d,
    };
    assert!(d.contains("step `s6` evaluates"), "{d}");
}

/// Just under the limit, both roads evaluate it on a test thread's small
/// stack, traced and untraced, and the code generator writes it out.
#[test]
fn a_chain_just_under_the_limit_evaluates_on_every_road() {
    let rb = chain_rulebook(5, 250).expect("accepted");
    let case = serde_json::json!({ "x": "1" });
    for trace in [false, true] {
        let (outcome, _) = evaluate_value(&rb, &case, trace).expect("no fault");
        assert_eq!(
            bareme::unstable::outcome::outcome_json(Ok(&outcome)),
            serde_json::json!({ "v": "1251" })
        );
    }
    let generated = bareme::unstable::codegen::generate(&rb);
    assert!(generated.fallbacks.is_empty(), "{:?}", generated.fallbacks);
    assert!(
        generated.source.contains("s4"),
        "the module computes the chain"
    );
}

/// A rulebook of a month `m` and a date `d`, with answer fields in the
/// given formats (name, formula, format).
fn calendar_rulebook(answers: &[(&str, &str, &str)]) -> Rulebook {
    let mut text = String::from(
        "[rulebook]\nid = \"h\"\nversion = 1\nschema = 1\n\n[inputs.m]\ntype = \"month\"\n\n[inputs.d]\ntype = \"date\"\n\n[[checks]]\ndecision = \"c\"\n\n[decisions.c.answer]\n",
    );
    for (name, expr, format) in answers {
        text.push_str(&format!(
            "{name} = {{ expr = \"{expr}\", format = \"{format}\" }}\n"
        ));
    }
    match parse_rulebook("h.toml", &text) {
        Ok(rb) => rb,
        Err(d) => panic!("{}", d.render(100, false)),
    }
}

/// One calendar, 0001 to 9999: its last month has its days, and a function
/// that would leave it faults instead of writing a date no input accepts.
#[test]
fn the_calendar_is_the_same_at_input_and_in_every_function() {
    let rb = calendar_rulebook(&[("days", "days_in_month(m)", "integer")]);
    let case = serde_json::json!({ "m": "9999-12", "d": "9999-12-31" });
    let (outcome, _) = evaluate_value(&rb, &case, false).expect("no fault");
    assert_eq!(
        bareme::unstable::outcome::outcome_json(Ok(&outcome)),
        serde_json::json!({ "days": 31 })
    );

    let rb = calendar_rulebook(&[("later", "add_years(d, 7974)", "date")]);
    let case = serde_json::json!({ "m": "2026-01", "d": "2026-01-31" });
    let e = evaluate_value(&rb, &case, false).expect_err("leaves the calendar");
    assert_eq!(e.message, "the result is outside the calendar");
    let rb = calendar_rulebook(&[("later", "add_years(d, 7973)", "date")]);
    let (outcome, _) = evaluate_value(&rb, &case, false).expect("no fault");
    assert_eq!(
        bareme::unstable::outcome::outcome_json(Ok(&outcome)),
        serde_json::json!({ "later": "9999-01-31" })
    );

    for (case, path) in [
        (
            serde_json::json!({ "m": "0000-12", "d": "2026-01-31" }),
            "m",
        ),
        (
            serde_json::json!({ "m": "2026-01", "d": "0000-01-31" }),
            "d",
        ),
        (
            serde_json::json!({ "m": "2026-01", "d": "+10000-01-31" }),
            "d",
        ),
    ] {
        match evaluate_value(&rb, &case, false).expect("no fault") {
            (Outcome::Rejected(e), _) => assert_eq!(e.path, path),
            (other, _) => panic!("{case} accepted: {other:?}"),
        }
    }
}

/// Where the budget runs out, traced and untraced evaluations stop at the
/// same node with the same message: the untraced road used to name the
/// whole formula of the step its lowered code was running.
#[test]
fn the_budget_runs_out_at_the_same_place_on_both_roads() {
    for (dir, case) in [
        (
            "rulebooks/luma-payroll/v3",
            "examples/luma-payroll/payslip.json",
        ),
        (
            "rulebooks/paie-fr/v2026",
            "examples/paie-fr/level4-entry.json",
        ),
    ] {
        let root = super::root();
        let text = std::fs::read_to_string(root.join(dir).join("rulebook.toml")).expect("rulebook");
        let case: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(root.join(case)).expect("case"))
                .expect("case JSON");
        let mut faults = 0;
        for budget in (5..1_500).step_by(29) {
            let limited = format!("{text}\n[limits]\nmax_eval_steps = {budget}\n");
            let rb = parse_rulebook("limited.toml", &limited).expect("rulebook with a limit");
            let untraced = evaluate_value(&rb, &case, false).map(|(o, _)| o);
            let traced = evaluate_value(&rb, &case, true).map(|(o, _)| o);
            // Without a trace, a group over constant rows runs its rows
            // specialised and spends less, so near the limit it may finish
            // where a traced evaluation runs out (noted as open); where both
            // run out, they name the same place.
            if untraced.is_err() || dir.contains("luma") {
                assert_eq!(untraced, traced, "{dir} with a budget of {budget}");
            }
            faults += usize::from(untraced.is_err());
        }
        assert!(faults > 3, "{dir}: the budget ran out {faults} times");
    }
}

/// A list of `n` numbers whose items a field rule judges, under a budget of
/// `budget` evaluated nodes; the answer counts the items.
fn judged_list(budget: u64) -> Rulebook {
    let text = format!(
        "[rulebook]\nid = \"h\"\nversion = 1\nschema = 1\n\n[limits]\nmax_eval_steps = {budget}\nmax_list_items = 100000\nmax_case_bytes = 10000000\n\n[inputs.xs]\ntype = \"list\"\n\n[inputs.xs.items]\ntype = \"integer\"\nreject = [{{ when = \"value + 1 + 1 + 1 < 0\", message = \"negative\" }}]\n\n[[checks]]\ndecision = \"d\"\n\n[decisions.d.answer]\nn = {{ expr = \"count(xs)\", format = \"integer\" }}\n"
    );
    match parse_rulebook("h.toml", &text) {
        Ok(rb) => rb,
        Err(d) => panic!("{}", d.render(100, false)),
    }
}

/// One budget per case, whatever spends it: field rules used to start a
/// fresh budget for every item, so a long list ran far past the limit.
#[test]
fn field_rules_spend_the_case_budget() {
    let items: Vec<serde_json::Value> = (0..10_000).map(|i| serde_json::json!(i)).collect();
    let case = serde_json::json!({ "xs": items });
    // Each item's rule evaluates 9 nodes: 10,000 items need 90,000 units.
    let rb = judged_list(100_000);
    let (outcome, _) = evaluate_value(&rb, &case, false).expect("within the budget");
    assert_eq!(
        bareme::unstable::outcome::outcome_json(Ok(&outcome)),
        serde_json::json!({ "n": 10000 })
    );
    let rb = judged_list(50_000);
    match evaluate_value(&rb, &case, false).expect("a rejection, not a fault") {
        (Outcome::Rejected(e), _) => {
            assert!(
                e.message
                    .contains("evaluation exceeded its limit of 50000 steps"),
                "{e}"
            );
            assert!(e.path.starts_with("xs["), "{}", e.path);
        }
        (other, _) => panic!("the budget did not bind: {other:?}"),
    }
}

/// The problems of a rulebook text, as `code line:col-line:col`, or none.
fn locations(text: &str) -> Vec<String> {
    match parse_rulebook("h.toml", text) {
        Ok(_) => Vec::new(),
        Err(d) => d.locations(),
    }
}

/// A per-item group whose `over` does not parse is dropped from the built
/// groups; the ablation check then numbered groups as declared and indexed
/// past the end of its graph ("index out of bounds"). The rulebook is now
/// refused with its diagnostics.
#[test]
fn a_group_that_fails_to_resolve_beside_ablations_is_refused_not_a_panic() {
    let root = super::root();
    let text = std::fs::read_to_string(root.join("rulebooks/paie-fr/v2026/rulebook.toml"))
        .expect("rulebook");
    assert!(text.contains("[ablations."), "the rulebook has ablations");
    let broken = text.replacen("over = \"rows(schedule)\"", "over = \"\"", 1);
    assert_ne!(broken, text, "the group's `over` is replaced");
    let found = std::panic::catch_unwind(|| locations(&broken)).expect("no panic");
    assert!(
        found.iter().any(|p| p.starts_with("check::syntax ")),
        "{found:?}"
    );
    // A per-item step, then a top-level step, whose formula does not parse.
    for (from, to) in [
        ("match line.base {", "match line.base {{"),
        (
            "[steps.ceiling]\n",
            "[steps.aaa_broken]\nexpr = \"(\"\n\n[steps.ceiling]\n",
        ),
    ] {
        let broken = text.replacen(from, to, 1);
        assert_ne!(broken, text, "{from}");
        let found = std::panic::catch_unwind(|| locations(&broken)).expect("no panic");
        assert!(
            found.iter().any(|p| p.starts_with("check::syntax ")),
            "{found:?}"
        );
    }
}

/// The messages of a rulebook text's problems, or none.
fn messages(text: &str) -> Vec<String> {
    match parse_rulebook("h.toml", text) {
        Ok(_) => Vec::new(),
        Err(d) => d.problems.iter().map(|p| p.message.clone()).collect(),
    }
}

/// A rulebook of one answer and the given declarations (tables, parameters).
fn with_declarations(declarations: &str) -> String {
    format!(
        "[rulebook]\nid = \"h\"\nversion = 1\nschema = 1\n\n[inputs.x]\ntype = \"decimal\"\n\n{declarations}\n[[checks]]\ndecision = \"d\"\n\n[decisions.d.answer]\nv = {{ expr = \"x\" }}\n"
    )
}

/// Day `i` after 1 January 2000, as `YYYY-MM-DD`.
fn day(i: usize) -> String {
    let start = chrono::NaiveDate::from_ymd_opt(2000, 1, 1).expect("a date");
    (start + chrono::Days::new(i as u64)).to_string()
}

// Duplicate keys and overlapping periods were found by comparing every pair
// of rows (30,000 rows took seconds, a million never finished) and reported
// once a pair. Rows are now sorted, and each row at fault reported once; a
// table of 200,000 rows with one fault has that one problem (one load each:
// reading 200,000 rows of TOML alone takes seconds in a debug build).
const HUGE: usize = 200_000;

#[test]
fn a_huge_keyed_table_has_its_one_repeated_key_reported() {
    // Row 7's key again, last.
    let rows: String = (0..HUGE)
        .map(|i| format!("  {{ code = \"k{i}\", v = \"1\" }},\n"))
        .chain(["  { code = \"k7\", v = \"2\" },\n".to_string()])
        .collect();
    let table = format!(
        "[tables.t]\nkind = \"keyed\"\nkeys = [\"code\"]\ncolumns = {{ code = {{ type = \"text\" }}, v = {{ type = \"decimal\" }} }}\nrows = [\n{rows}]\n"
    );
    assert_eq!(
        messages(&with_declarations(&table)),
        vec!["table `t` has two rows with the same key"]
    );
}

#[test]
fn a_huge_period_table_has_its_one_overlap_reported() {
    // One day a row, and a last row on the day of row 5.
    let rows: String = (0..HUGE)
        .map(|i| (format!("r{i}"), day(i)))
        .chain([("late".to_string(), day(5))])
        .map(|(name, d)| {
            format!("  {{ name = \"{name}\", from = \"{d}\", to = \"{d}\", v = \"1\" }},\n")
        })
        .collect();
    let table = format!(
        "[tables.p]\nkind = \"periods\"\ncolumns = {{ v = {{ type = \"decimal\" }} }}\nrows = [\n{rows}]\n"
    );
    assert_eq!(
        messages(&with_declarations(&table)),
        vec!["rows `r5` and `late` of table `p` overlap"]
    );
}

#[test]
fn a_huge_dated_parameter_has_its_one_overlap_reported() {
    // One day a period, and a last one open from the last day.
    let periods: String = (0..HUGE)
        .map(|i| {
            format!(
                "  {{ from = \"{0}\", to = \"{0}\", value = \"1\" }},\n",
                day(i)
            )
        })
        .chain([format!(
            "  {{ from = \"{}\", value = \"1\" }},\n",
            day(HUGE - 1)
        )])
        .collect();
    let text = with_declarations(&format!(
        "[steps.on]\nexpr = \"date('2000-01-01')\"\n\n[parameters.q]\nat = \"on\"\nperiods = [\n{periods}]\n"
    ));
    assert_eq!(messages(&text), vec!["periods of parameter `q` overlap"]);
}

/// Three rows of one key, or of one name and period, are three rows at
/// fault with the first, not three pairs: two problems, one for each row
/// after the first (per pair, a million equal keys gave 10^12 problems).
#[test]
fn each_row_at_fault_is_reported_once() {
    let keyed = "[tables.t]\nkind = \"keyed\"\nkeys = [\"code\"]\ncolumns = { code = { type = \"text\" } }\nrows = [{ code = \"a\" }, { code = \"a\" }, { code = \"b\" }, { code = \"a\" }]\n";
    assert_eq!(
        messages(&with_declarations(keyed)),
        vec!["table `t` has two rows with the same key"; 2]
    );
    let periods = "[tables.p]\nkind = \"periods\"\ncolumns = { v = { type = \"decimal\" } }\nrows = [{ name = \"a\", from = \"2026-01\", v = \"1\" }, { name = \"a\", from = \"2026-02\", v = \"1\" }, { name = \"a\", from = \"2026-03\", v = \"1\" }]\n";
    assert_eq!(
        messages(&with_declarations(periods)),
        vec![
            "table `p` has two rows named `a`",
            "rows `a` and `a` of table `p` overlap",
            "table `p` has two rows named `a`",
            "rows `a` and `a` of table `p` overlap",
        ]
    );
}

/// A rejection always names a place: an empty `reject` path is refused at
/// load, and one that renders empty names the case itself, `$`. The fuzz
/// harness found a rulebook that rejected cases at an empty path.
#[test]
fn a_rejection_always_names_a_path() {
    let text = |reject: &str| {
        format!(
            "[rulebook]\nid = \"h\"\nversion = 1\nschema = 1\n\n[inputs.t]\ntype = \"text\"\n\n[[checks]]\nwhen = \"t == ''\"\nreject = \"{reject}\"\nmessage = \"is empty\"\n\n[[checks]]\ndecision = \"d\"\n\n[decisions.d.answer]\nv = {{ expr = \"t\", format = \"text\" }}\n"
        )
    };
    let d = match parse_rulebook("h.toml", &text("")) {
        Ok(_) => panic!("an empty reject path was accepted"),
        Err(d) => d.render(100, false),
    };
    assert!(
        d.contains("`reject` needs the path of what it rejects"),
        "{d}"
    );
    let rb = parse_rulebook("h.toml", &text("{t}")).expect("a templated path");
    let case = serde_json::json!({ "t": "" });
    match evaluate_value(&rb, &case, false).expect("no fault") {
        (Outcome::Rejected(e), _) => {
            assert_eq!((e.path.as_str(), e.message.as_str()), ("$", "is empty"))
        }
        (other, _) => panic!("not rejected: {other:?}"),
    }
}

/// A chain whose links are `cite` conditions alone nests as deep as any
/// other (each condition reads the step before), so it is refused at load
/// too.
#[test]
fn a_chain_through_citations_is_measured_too() {
    let mut text = String::from(
        "[rulebook]\nid = \"h\"\nversion = 1\nschema = 1\n\n[inputs.x]\ntype = \"decimal\"\nnumbers = \"plain\"\n\n",
    );
    for i in 1..=2_000 {
        let prev = if i == 1 {
            "x".to_string()
        } else {
            format!("s{}", i - 1)
        };
        text.push_str(&format!(
            "[steps.s{i}]\nexpr = \"1\"\ncite = [{{ when = \"{prev} > 0\", clauses = [] }}]\n\n"
        ));
    }
    text.push_str(
        "[[checks]]\ndecision = \"d\"\n\n[decisions.d.answer]\nv = { expr = \"s2000\" }\n",
    );
    let d = match parse_rulebook("h.toml", &text) {
        Ok(_) => panic!("a 2,000-step chain of citations was accepted"),
        Err(d) => d.render(100, false),
    };
    assert!(d.contains("check::too_deep"), "{d}");
}

/// Issue 24, item 3: a batch line (or an `eval` case) giving a key twice
/// was read as its last value, serde_json's choice, without a word; it is
/// refused at the key's path, naming the key, and the batch goes on.
#[test]
fn a_key_given_twice_is_refused_by_name() {
    use crate::cli::{bareme, stderr, stdout};
    const LUMA: &str = "rulebooks/luma-payroll/v3";
    let twice =
        r#"{"task": "payslip", "gross_pay": "1", "gross_pay": "2", "payroll_month": "2026-01"}"#;
    let input = [
        twice,
        r#"{"case": {"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03", "payroll_month": "2026-04"}}"#,
        r#"{"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"}"#,
    ]
    .join("\n");
    let untraced = ["eval", LUMA, "--batch", "-"];
    let traced = ["eval", LUMA, "--batch", "-", "--trace", "json"];
    for args in [&untraced[..], &traced[..]] {
        let o = bareme(args, Some(&input));
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let out = stdout(&o);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3, "{out}");
        assert_eq!(
            lines[0],
            r#"{"error":{"path":"gross_pay","message":"duplicate key \"gross_pay\": an object of a case gives each key once"}}"#
        );
        assert_eq!(
            lines[1],
            r#"{"error":{"path":"payroll_month","message":"duplicate key \"payroll_month\": an object of a case gives each key once"}}"#
        );
        let answer: serde_json::Value = serde_json::from_str(lines[2]).expect("a JSON line");
        let answer = answer.get("answer").unwrap_or(&answer);
        assert!(answer.get("net_pay").is_some(), "{}", lines[2]);
    }
    let o = bareme(&["eval", LUMA, "-"], Some(twice));
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o), "");
    assert_eq!(
        stderr(&o),
        "error: gross_pay: duplicate key \"gross_pay\": an object of a case gives each key once\n"
    );
}

/// The problems of a rulebook that fails to load, as (message, help).
fn helped(text: &str) -> Vec<(String, Option<String>)> {
    match parse_rulebook("h.toml", text) {
        Ok(_) => panic!("the rulebook loads"),
        Err(d) => d
            .problems
            .iter()
            .map(|p| (p.message.clone(), p.help.clone()))
            .collect(),
    }
}

// Each unknown name was compared with every known one for a "did you mean":
// 2,000 steps each reading a misspelt name took 214 s to check in a debug
// build. The searches of one check now share a bounded amount of work; every
// unknown name is still reported, the first ones with the near name.
#[test]
fn thousands_of_misspelt_names_are_each_reported() {
    const N: usize = 2_000;
    let mut steps = String::new();
    for i in 0..N {
        steps.push_str(&format!(
            "[steps.step_{i:05}]\nexpr = \"stpe_{i:05} + x\"\n\n"
        ));
    }
    let problems = helped(&with_declarations(&steps));
    let unknown: Vec<&(String, Option<String>)> = problems
        .iter()
        .filter(|(m, _)| m.starts_with("unknown name"))
        .collect();
    assert_eq!(unknown.len(), N, "{:?}", &problems[..3]);
    assert_eq!(
        unknown[0],
        &(
            "unknown name `stpe_00000`".to_string(),
            Some("did you mean `step_00000`?".to_string())
        )
    );
    assert_eq!(
        unknown[N - 1],
        &(
            format!("unknown name `stpe_{:05}`", N - 1),
            Some(
                "names are inputs, steps, per-item groups, parameters and tables of this rulebook"
                    .to_string()
            )
        )
    );
}

// 6,000 checks naming a misspelt decision: each reported, with the decision
// meant (one known decision: the searches stay cheap).
#[test]
fn thousands_of_checks_are_each_reported() {
    const N: usize = 6_000;
    let mut text = String::from(
        "[rulebook]\nid = \"h\"\nversion = 1\nschema = 1\n\n[inputs.x]\ntype = \"decimal\"\n\n",
    );
    for i in 0..N {
        text.push_str(&format!(
            "[[checks]]\nwhen = \"x > {i}\"\ndecision = \"dcision\"\n\n"
        ));
    }
    text.push_str("[[checks]]\ndecision = \"decision\"\n\n[decisions.decision.answer]\nv = { expr = \"x\" }\n");
    let problems = helped(&text);
    assert_eq!(problems.len(), N);
    assert!(
        problems.iter().all(|p| p
            == &(
                "unknown decision `dcision`".to_string(),
                Some("did you mean `decision`?".to_string())
            )),
        "{:?}",
        &problems[..3]
    );
}

/// A rulebook of one list input `xs` (decimals) and one map input `m`,
/// the given steps, and one answer field `v`.
fn lists_rulebook(steps: &[(&str, &str)], answer: &str) -> Rulebook {
    let mut text = String::from(
        "[rulebook]\nid = \"l\"\nversion = 1\nschema = 1\n\n\
         [inputs.xs]\ntype = \"list\"\nitems = { type = \"decimal\", numbers = \"plain\" }\n\n\
         [inputs.m]\ntype = \"map\"\nitems = { type = \"decimal\", numbers = \"plain\" }\n\n",
    );
    for (name, expr) in steps {
        text.push_str(&format!("[steps.{name}]\nexpr = \"{expr}\"\n\n"));
    }
    text.push_str(&format!(
        "[[checks]]\ndecision = \"d\"\n\n[decisions.d.answer]\nv = {{ expr = \"{answer}\" }}\n"
    ));
    match parse_rulebook("l.toml", &text) {
        Ok(rb) => rb,
        Err(d) => panic!("{}", d.render(100, false)),
    }
}

/// `n` items of `xs`, each 1, and `n` entries of `m`.
fn lists_case(n: usize) -> serde_json::Value {
    let m: serde_json::Map<String, serde_json::Value> = (0..n)
        .map(|i| (format!("k{i}"), serde_json::json!("1")))
        .collect();
    serde_json::json!({ "xs": vec!["1"; n], "m": m })
}

/// The case runs out of the default budget, at the same place traced or not.
fn runs_out_on_both_roads(rb: &Rulebook, case: &serde_json::Value) {
    let traced = evaluate_value(rb, case, true).expect_err("past the budget");
    let untraced = evaluate_value(rb, case, false).expect_err("past the budget");
    assert_eq!(traced, untraced);
    assert!(
        traced
            .message
            .contains("evaluation exceeded its limit of 1000000 steps"),
        "{}",
        traced.message
    );
}

/// The case's answer `v` is `want`, traced or not.
fn answers_on_both_roads(rb: &Rulebook, case: &serde_json::Value, want: &str) {
    for trace in [false, true] {
        let (outcome, _) = evaluate_value(rb, case, trace).expect("within the budget");
        let Outcome::Answer(answer) = outcome else {
            panic!("an answer");
        };
        assert_eq!(
            answer.to_json()["v"],
            serde_json::json!(want),
            "trace {trace}"
        );
    }
}

/// A built-in that reads or makes a list spends a unit per item: a sum
/// of sums over the same list was one unit a sum, and ran for minutes
/// (10,000 items: 10^8 additions) within the default budget of 10^6;
/// `[keys(m) for x in xs]` built 10^8 items, gigabytes, and aborted. Now
/// both end at the budget, on both roads, in a moment; smaller, they
/// still answer what the rules say (500 items: 500 sums of 500).
#[test]
fn lists_read_or_made_by_built_ins_spend_the_budget_per_item() {
    let sums = lists_rulebook(&[("s", "sum([sum(xs) for x in xs])")], "s");
    let made = lists_rulebook(&[("s", "count([keys(m) for x in xs])")], "s");
    for rb in [&sums, &made] {
        let case = lists_case(2_000);
        runs_out_on_both_roads(rb, &case);
    }
    let case = lists_case(500);
    for (rb, want) in [(&sums, "250000"), (&made, "500")] {
        answers_on_both_roads(rb, &case, want);
    }
}

/// A text read or made whole spends a unit per 64 bytes: `slice` of a
/// 900 KB text was one unit, and 150,000 of them (well within the default
/// budget) ran for minutes. Now a step slicing, comparing or matching a
/// 200 KB text 2,000 times ends at the budget, on both roads, in a moment;
/// with a short text it still answers what the rules say.
#[test]
fn texts_read_or_made_whole_spend_the_budget_per_64_bytes() {
    let text = |expr: &str| {
        let body = format!(
            "[rulebook]\nid = \"t\"\nversion = 1\nschema = 1\n\n\
             [limits]\nmax_case_bytes = 1000000\n\n\
             [inputs.t]\ntype = \"text\"\nmax_length = 900000\n\n\
             [inputs.xs]\ntype = \"list\"\nitems = {{ type = \"decimal\", numbers = \"plain\" }}\n\n\
             [steps.s]\nexpr = \"{expr}\"\n\n\
             [[checks]]\ndecision = \"d\"\n\n[decisions.d.answer]\nv = {{ expr = \"s\" }}\n"
        );
        match parse_rulebook("t.toml", &body) {
            Ok(rb) => rb,
            Err(d) => panic!("{}", d.render(100, false)),
        }
    };
    let sliced = text("sum([len(slice(t, 1, 900000)) for x in xs])");
    let compared = text("count([x for x in xs if t == t])");
    let matched = text("sum([match t { 'a' => 1, else => 2 } for x in xs])");
    let long = serde_json::json!({ "t": "a".repeat(200_000), "xs": vec!["1"; 2_000] });
    for rb in [&sliced, &compared, &matched] {
        runs_out_on_both_roads(rb, &long);
    }
    // "abc" sliced from 1 is 2 characters; the text equals itself; it is not 'a'.
    let short = serde_json::json!({ "t": "abc", "xs": vec!["1"; 3] });
    for (rb, want) in [(&sliced, "6"), (&compared, "3"), (&matched, "6")] {
        answers_on_both_roads(rb, &short, want);
    }
}

/// Bounds no value can meet are refused at load: `min_items` above
/// `max_items`, or above the rulebook's limit, and a `min` above `max`
/// passed the check and then rejected every case.
#[test]
fn bounds_no_value_can_meet_are_refused_at_load() {
    let text = "[rulebook]\nid = \"b\"\nversion = 1\nschema = 1\n\n\
        [inputs.xs]\ntype = \"list\"\nmin_items = 5\nmax_items = 1\nitems = { type = \"integer\" }\n\n\
        [inputs.ys]\ntype = \"list\"\nmin_items = 99999999999\nitems = { type = \"integer\" }\n\n\
        [inputs.m]\ntype = \"map\"\nmin_items = 3\nmax_items = 2\nitems = { type = \"integer\" }\n\n\
        [inputs.d]\ntype = \"decimal\"\nmin = \"2\"\nmax = \"1\"\n\n\
        [inputs.day]\ntype = \"date\"\nmin = \"2026-02-01\"\nmax = \"2026-01-01\"\n\n\
        [inputs.pay]\ntype = \"money\"\nmax = \"-5\"\n\n\
        [inputs.ok]\ntype = \"integer\"\nmin = \"1\"\nmax = \"1\"\n\n\
        [[checks]]\ndecision = \"d\"\n\n[decisions.d.answer]\nv = { expr = \"ok\" }\n";
    let d = parse_rulebook("b.toml", text).expect_err("refused");
    let messages: Vec<String> = d
        .problems
        .iter()
        .filter(|p| p.code == "check::bad_input")
        .map(|p| p.message.clone())
        .collect();
    assert_eq!(
        messages,
        [
            "no list fits: `min_items` 5 is above the most items allowed, 1",
            "no list fits: `min_items` 99999999999 is above the most items allowed, 10000",
            "no map fits: `min_items` 3 is above the most entries allowed, 2",
            "no value fits: `min` 2 is above `max` 1",
            "no value fits: `min` 2026-02-01 is above `max` 2026-01-01",
            "no value fits: `min` 0 is above `max` -5",
        ]
    );
}

/// The `fraction` table of the format (§4.6), row by row: `"-0.5"` was
/// refused as no fraction at all, where a plain decimal may carry a sign;
/// `"-0"` passed a `min` of 0 that refuses it for every other number.
#[test]
fn a_fraction_input_reads_as_the_format_says() {
    let text = "[rulebook]\nid = \"fractions-demo\"\nversion = 1\nschema = 1\n\n\
        [inputs.estate]\ntype = \"money\"\nrequired = true\n\n\
        [inputs.share]\ntype = \"fraction\"\nmin = \"0\"\nmax = \"1\"\nrequired = true\n\n\
        [steps.received]\nexpr = \"estate * share\"\n\n\
        [steps.received_rounded]\nexpr = \"received\"\nround = { places = 2, mode = \"half_up\" }\n\n\
        [[checks]]\ndecision = \"d\"\n\n\
        [decisions.d.answer]\nreceived = { expr = \"received_rounded\", format = \"money\" }\n";
    let rb = match parse_rulebook("fractions-demo.toml", text) {
        Ok(rb) => rb,
        Err(d) => panic!("{}", d.render(100, false)),
    };
    let run = |share: serde_json::Value| {
        let case = serde_json::json!({ "estate": "100000.00", "share": share });
        match evaluate_value(&rb, &case, false).expect("no fault") {
            (Outcome::Answer(a), _) => a.to_json()["received"].to_string(),
            (Outcome::Rejected(e), _) => format!("{}: {}", e.path, e.message),
            (other, _) => panic!("{other:?}"),
        }
    };
    use serde_json::json;
    assert_eq!(run(json!("1/3")), "\"33333.33\"");
    assert_eq!(run(json!("2/6")), "\"33333.33\"");
    assert_eq!(run(json!("3/8")), "\"37500.00\"");
    assert_eq!(run(json!("0.25")), "\"25000.00\"");
    assert_eq!(run(json!(1)), "\"100000.00\"");
    assert_eq!(run(json!("3/2")), "share: 1.5 is outside the range 0…1");
    // A sign where none is allowed is refused as a decimal's is, zero too.
    assert_eq!(
        run(json!("-0.5")),
        "share: must not be negative, found \"-0.5\""
    );
    assert_eq!(
        run(json!("-0")),
        "share: must not be negative, found \"-0\""
    );
    for refused in [
        json!("-1/3"),
        json!("1/0"),
        json!(" 1/3"),
        json!("1 / 3"),
        json!("1/3.0"),
        json!(".5"),
        json!(0.5),
        json!(-1),
        json!("1000000000001/3"),
    ] {
        let got = run(refused.clone());
        assert!(
            got.starts_with("share: must be a fraction like \"3/8\", \"0.25\" or 1, found"),
            "{refused}: {got}"
        );
    }
}
