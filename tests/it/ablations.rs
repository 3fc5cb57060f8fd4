//! Ablations applied together (`Rulebook::ablated_all`, `eval --ablate a,b`)
//! and the coverage of a task set (`bareme ablations`).

use bareme::{evaluate_value, parse_rulebook, Outcome, Rulebook};
use serde_json::json;

/// Three steps and four readings: `doubled` and `tripled` replace one step
/// each, `also_a` replaces the step `doubled` does, and `loop_a`/`loop_b`
/// are acyclic alone but read each other's step together.
const DEMO: &str = r#"[rulebook]
id = "combo-demo"
version = 1
schema = 1

[inputs.x]
type = "decimal"
required = true

[steps.a]
expr = "x"

[steps.b]
expr = "a + 1"

[steps.c]
expr = "10"

[[checks]]
decision = "ok"

[decisions.ok.answer]
a = { expr = "a", format = "decimal" }
b = { expr = "b", format = "decimal" }
c = { expr = "c", format = "decimal" }

[ablations.doubled]
steps = { a = "x * 2" }

[ablations.tripled]
steps = { b = "a * 3" }

[ablations.also_a]
steps = { a = "x + 100" }

[ablations.loop_a]
steps = { c = "b" }

[ablations.loop_b]
steps = { a = "c" }
"#;

fn demo() -> Rulebook {
    match parse_rulebook("combo-demo.toml", DEMO) {
        Ok(rb) => rb,
        Err(d) => panic!("{}", d.render(100, false)),
    }
}

fn answer(rb: &Rulebook, case: &serde_json::Value) -> serde_json::Value {
    match evaluate_value(rb, case, false).expect("evaluates").0 {
        Outcome::Answer(a) => a.to_json(),
        other => panic!("not an answer: {other:?}"),
    }
}

#[test]
fn ablations_apply_together_each_on_its_own_steps() {
    let rb = demo();
    let case = json!({"x": "5"});
    assert_eq!(answer(&rb, &case), json!({"a": "5", "b": "6", "c": "10"}));
    // doubled alone: a = 10, b = 11; tripled alone: a = 5, b = 15.
    let doubled = rb.ablated("doubled").expect("declared");
    assert_eq!(
        answer(&doubled, &case),
        json!({"a": "10", "b": "11", "c": "10"})
    );
    let tripled = rb.ablated_all(&["tripled"]).expect("declared");
    assert_eq!(
        answer(&tripled, &case),
        json!({"a": "5", "b": "15", "c": "10"})
    );
    // Together b reads the doubled a: 10 × 3 = 30, in either order.
    for names in [["doubled", "tripled"], ["tripled", "doubled"]] {
        let both = rb.ablated_all(&names).expect("combinable");
        assert_eq!(
            answer(&both, &case),
            json!({"a": "10", "b": "30", "c": "10"})
        );
        assert_eq!(
            both.applied_ablations().collect::<Vec<_>>(),
            names.to_vec(),
            "listed in the order given"
        );
        assert_eq!(both.ablation_label().as_deref(), Some(&*names.join(",")));
    }
    // One more on an ablated copy adds to its list.
    let more = doubled.ablated("tripled").expect("combinable");
    assert_eq!(more.ablation_label().as_deref(), Some("doubled,tripled"));
    // None at all is the rulebook as written.
    let none = rb.ablated_all(&[]).expect("nothing to apply");
    assert_eq!(none.ablation_label(), None);
    assert_eq!(answer(&none, &case), answer(&rb, &case));
}

#[test]
fn ablations_that_cannot_apply_together_are_refused_by_name() {
    let rb = demo();
    // Each refusal's code, then the message `--ablate` prints.
    let err = |names: &[&str]| {
        let e = rb.ablated_all(names).expect_err("refused");
        format!("{}: {e}", e.code())
    };
    assert_eq!(
        err(&["doubled", "tripled", "also_a"]),
        "ablation::same_step: ablations `doubled` and `also_a` both replace step `a`, so they cannot apply together"
    );
    assert_eq!(
        err(&["doubled", "doubled"]),
        "ablation::twice: ablation `doubled` is named twice"
    );
    assert_eq!(
        err(&["doubled", "nope"]),
        "ablation::unknown: unknown ablation `nope`; combo-demo declares: doubled, tripled, also_a, loop_a, loop_b"
    );
    assert_eq!(
        err(&["doubled", ""]),
        "ablation::empty_name: an empty ablation name: separate the names with commas, as in `a,b`"
    );
    // Each alone is acyclic (the checker proved it); together c → b → a → c.
    assert!(rb.ablated("loop_a").is_ok() && rb.ablated("loop_b").is_ok());
    assert_eq!(
        err(&["loop_a", "loop_b"]),
        "ablation::cycle: ablations loop_a,loop_b together make steps depend on each other in a cycle: a → c → b → a"
    );
}

#[test]
fn a_single_ablation_is_named_in_traces_as_before_and_several_joined() {
    let rb = demo();
    let case = json!({"x": "5"});
    let trace = |rb: &Rulebook| {
        let (_, trace) = evaluate_value(rb, &case, true).expect("evaluates");
        trace.expect("asked for")
    };
    let one = trace(&rb.ablated("doubled").expect("declared"));
    assert_eq!(one.ablation.as_deref(), Some("doubled"));
    assert!(bareme::render_text(&one)
        .contains("\nablation doubled (an alternative reading, not the rules)\n"));
    let two = trace(&rb.ablated_all(&["doubled", "tripled"]).expect("combinable"));
    assert_eq!(two.ablation.as_deref(), Some("doubled,tripled"));
    assert!(bareme::render_text(&two)
        .contains("\nablation doubled,tripled (an alternative reading, not the rules)\n"));
    // A rejection's trace names them too.
    let (outcome, rejected) = evaluate_value(
        &rb.ablated_all(&["doubled", "tripled"]).expect("combinable"),
        &json!({}),
        true,
    )
    .expect("evaluates");
    assert!(matches!(outcome, Outcome::Rejected(_)));
    assert_eq!(
        rejected.expect("asked for").ablation.as_deref(),
        Some("doubled,tripled")
    );
}

// ---------------------------------------------------------------- bareme ablations

use super::cli::{bareme, stderr, stdout, tempdir};

const SALES: &str = "rulebooks/sales-tax/v1";

/// TOML data as the JSON an answer holds (strings, integers, booleans, arrays, tables).
fn toml_to_json(value: &toml::Value) -> serde_json::Value {
    match value {
        toml::Value::String(s) => json!(s),
        toml::Value::Integer(i) => json!(i),
        toml::Value::Boolean(b) => json!(b),
        toml::Value::Array(items) => items.iter().map(toml_to_json).collect(),
        toml::Value::Table(t) => t
            .iter()
            .map(|(k, v)| (k.clone(), toml_to_json(v)))
            .collect::<serde_json::Map<_, _>>()
            .into(),
        other => panic!("no such value in an expected answer: {other:?}"),
    }
}

/// A task line from a sales-tax conformance case: its case, and as `expected`
/// its hand-computed `[expect.answer]`, or `rejection` as `eval --batch` prints it.
fn task(rb: &Rulebook, name: &str, rejection: Option<serde_json::Value>) -> String {
    let file = super::root()
        .join(SALES)
        .join("cases")
        .join(format!("{name}.toml"));
    let text = std::fs::read_to_string(&file).expect("a conformance case");
    let raw: toml::Value = toml::from_str(&text).expect("TOML");
    let case: serde_json::Value =
        serde_json::from_str(raw["case"].as_str().expect("case text")).expect("case JSON");
    let expected = rejection.unwrap_or_else(|| toml_to_json(&raw["expect"]["answer"]));
    json!({"id": name, "index": 0, "rulebook": "sales-tax@1", "rulebook_hash": rb.hash(),
           "case": case, "expected": expected, "prompt": "…", "tags": ["conformance"]})
    .to_string()
}

/// Writes task lines to a file of their own.
fn task_file(name: &str, lines: &[String]) -> String {
    let file = tempdir("ablations").join(format!("{name}.jsonl"));
    std::fs::write(&file, lines.join("\n") + "\n").expect("write tasks");
    file.to_str().expect("a UTF-8 path").to_string()
}

#[test]
fn tasks_from_the_conformance_cases_detect_all_255_combinations() {
    let rb = super::rulebook(SALES);
    // Four carts and a rejection. Case 19 (24 lines over the default table) is
    // changed by every reading but half_even; case 04 (one line of 0.10 at the
    // supplied rate 0.05, tax 0.005 → 0.01 half-up, 0.00 half-even) by half_even.
    let rejected = json!({"error": {"path": "cart.lines[2].id",
                                    "message": "repeats \"L1\" of cart.lines[0] (VALIDATION)"}});
    let lines = [
        task(&rb, "01-spec-example", None),
        task(&rb, "04-half-cent-tie-supplied-rate", None),
        task(&rb, "11-repeated-product", None),
        task(&rb, "19-twenty-four-lines", None),
        task(&rb, "59-reject-duplicate-line-id", Some(rejected)),
    ];
    let file = task_file("all", &lines);
    let o = bareme(&["ablations", &file], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!(
            "{}: 5 tasks; 255 combinations of 8 ablations (up to 8 at once): 255 detected, 0 undetected\n",
            rb.reference()
        )
    );
    // The same from standard input, with the rulebook named.
    let piped = bareme(
        &["ablations", "-", "--rulebook", SALES],
        Some(&(lines.join("\n") + "\n")),
    );
    assert_eq!(stdout(&piped), stdout(&o));

    let json_out = bareme(&["ablations", &file, "--format", "json"], None);
    assert_eq!(json_out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_str(&stdout(&json_out)).expect("one JSON line");
    assert_eq!(v["tasks"], 5);
    assert_eq!(v["max_size"], 8);
    assert_eq!(
        (v["detected"].clone(), v["undetected"].clone()),
        (json!(255), json!(0))
    );
    let combinations = v["combinations"].as_array().expect("the table");
    assert_eq!(combinations.len(), 255);
    let detected = |names: &[&str]| {
        combinations
            .iter()
            .find(|c| c["ablations"] == json!(names))
            .map(|c| c["detected"].clone())
            .expect("listed")
    };
    // Only case 04 has a tie that half-even rounds the other way.
    assert_eq!(detected(&["half_even"]), 1);
    // Only cases 11 and 19 repeat a product (01 and 04 have one line each).
    assert_eq!(detected(&["repeated_products_merged"]), 2);
    // The spec example (0.0525 → 0.05), 11 (0.075 → 0.08) and 19 round a rate differently;
    // case 04's supplied rate 0.05 is already in cents.
    assert_eq!(detected(&["rate_rounded_to_cents"]), 3);
    assert_eq!(
        combinations.first().map(|c| c["ablations"].clone()),
        Some(json!(["billing_jurisdiction"]))
    );
    assert_eq!(
        combinations
            .last()
            .map(|c| c["ablations"].as_array().map(Vec::len)),
        Some(Some(8))
    );

    let pairs = bareme(&["ablations", &file, "--subsets", "2"], None);
    assert_eq!(pairs.status.code(), Some(0));
    assert!(
        stdout(&pairs).contains(": 5 tasks; 36 combinations of 8 ablations (up to 2 at once): 36 detected, 0 undetected\n"),
        "{}",
        stdout(&pairs)
    );
}

/// Each evaluation is bounded by the rulebook's limits, but a task is
/// evaluated once per combination: a 1 KB rulebook of ten ablations kept
/// one task busy for minutes (hostile probe). What a task's evaluations
/// spend together is bounded (`--max-steps`), and the task named is the
/// same whatever order the combinations ran in.
#[test]
fn a_task_whose_evaluations_spend_past_the_budget_stops_the_measure() {
    let rb = super::rulebook(SALES);
    let lines = [
        task(&rb, "01-spec-example", None),
        task(&rb, "04-half-cent-tie-supplied-rate", None),
        task(&rb, "11-repeated-product", None),
        task(&rb, "19-twenty-four-lines", None),
    ];
    let file = task_file("budget", &lines);
    let spent = |most: &str| bareme(&["ablations", &file, "--max-steps", most], None);
    let enough = spent("3000000");
    assert_eq!(enough.status.code(), Some(0), "{}", stderr(&enough));
    // Case 01's one line spends under 30,000 units under all 255, case
    // 19's 24 lines over 1,000,000: 19 is named, on every run, whichever
    // combinations passed its budget first; under 20,000 the first task.
    // The task's own line is named (found after the chunk was read).
    for (most, named, line) in [
        ("1000000", "19-twenty-four-lines", 4),
        ("1000000", "19-twenty-four-lines", 4),
        ("100000", "19-twenty-four-lines", 4),
        ("20000", "01-spec-example", 1),
    ] {
        let o = spent(most);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert_eq!(
            stderr(&o),
            format!("error: {file}, line {line}: task {named}: its evaluations under the 255 combinations spend more than {most} steps: measure fewer combinations (--subsets) or allow more (--max-steps, at most 10000000000)\n")
        );
        assert_eq!(stdout(&o), "");
    }
    let o = spent("0");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn a_task_set_that_misses_a_combination_lists_it_and_exits_1() {
    let rb = super::rulebook(SALES);
    // No cart of these three repeats a product, so merging repeated products
    // changes nothing alone, and with other readings gives what they give
    // without it: every other combination is detected, that one is not.
    let lines = [
        task(&rb, "03-billing-differs-from-fulfillment", None),
        task(&rb, "05-half-cent-ties-default-table", None),
        task(&rb, "08-six-decimal-rate", None),
    ];
    let file = task_file("miss", &lines);
    let o = bareme(&["ablations", &file], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!(
            "{}: 3 tasks; 255 combinations of 8 ablations (up to 8 at once): 254 detected, 1 undetected\nundetected: repeated_products_merged\n",
            rb.reference()
        )
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&bareme(
        &["ablations", &file, "--format", "json"],
        None,
    )))
    .expect("JSON");
    assert_eq!(v["undetected"], 1);
    let zero: Vec<&serde_json::Value> = v["combinations"]
        .as_array()
        .expect("the table")
        .iter()
        .filter(|c| c["detected"] == 0)
        .map(|c| &c["ablations"])
        .collect();
    assert_eq!(zero, [&json!(["repeated_products_merged"])]);
}

#[test]
fn ablations_refuses_tasks_it_cannot_score() {
    let rb = super::rulebook(SALES);
    let good = task(&rb, "01-spec-example", None);
    let run = |name: &str, lines: &[String], extra: &[&str]| {
        let file = task_file(name, lines);
        let mut args = vec!["ablations", file.as_str()];
        args.extend(extra);
        let o = bareme(&args, None);
        (
            o.status.code(),
            stderr(&o).replace(&file, "TASKS"),
            stdout(&o),
        )
    };
    // Written for another version of the file: refused, naming both hashes.
    let other = good.replace(rb.hash(), &"0".repeat(64));
    let (code, err, out) = run("hash", &[good.clone(), other], &[]);
    assert_eq!(code, Some(2));
    assert_eq!(out, "", "nothing is reported");
    assert_eq!(
        err,
        format!(
            "error: TASKS, line 2: task 01-spec-example was written for sales-tax@1#{}, not for the rulebook given, sales-tax@1#{}\n",
            "0".repeat(64),
            rb.hash()
        )
    );
    // Another version, against the rulebook named.
    let v2 = good.replace("\"sales-tax@1\"", "\"sales-tax@2\"");
    let (code, err, _) = run("version", std::slice::from_ref(&v2), &["--rulebook", SALES]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("was written for sales-tax@2#")
            && err.contains("not for the rulebook given, sales-tax@1#"),
        "{err}"
    );
    // By default its rulebook is rulebooks/sales-tax/v2, which does not exist.
    let (code, err, _) = run("no-v2", &[v2], &[]);
    assert_eq!(code, Some(2));
    assert!(err.contains("rulebooks/sales-tax/v2"), "{err}");
    // Another rulebook altogether.
    let (code, err, _) = run(
        "other",
        std::slice::from_ref(&good),
        &["--rulebook", "rulebooks/succession-fr/v2026"],
    );
    assert_eq!(code, Some(2));
    assert!(
        err.contains("was written for sales-tax@1#") && err.contains("succession-fr@2026#"),
        "{err}"
    );
    // An `expected` that is not the rulebook's answer: the task is named.
    let wrong = good.replace("\"3.15\"", "\"3.14\"");
    let (code, err, _) = run("expected", &[wrong], &[]);
    assert_eq!(code, Some(2));
    assert!(
        err.starts_with(
            "error: TASKS, line 1: task 01-spec-example: `expected` is not what sales-tax@1#"
        ),
        "{err}"
    );
    // One task twice: its detections were counted twice.
    let (code, err, _) = run("twice", &[good.clone(), good.clone()], &[]);
    assert_eq!(
        (code, err.as_str()),
        (
            Some(2),
            "error: TASKS, line 2: task 01-spec-example appears twice\n"
        )
    );
    let file = task_file("twice-impact", &[good.clone(), good.clone()]);
    let o = bareme(&["diff", SALES, SALES, "--impact", &file], None);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o).replace(&file, "TASKS"),
        "error: TASKS: task 01-spec-example appears twice\n"
    );
    // Lines that are no task.
    let (code, err, _) = run("bad", &[good.clone(), "{\"id\": \"x\"".into()], &[]);
    assert_eq!(code, Some(2));
    assert!(
        err.starts_with("error: TASKS, line 2: the task is not JSON: "),
        "{err}"
    );
    let (code, err, _) = run("no-case", &[good.replace("\"case\":", "\"kase\":")], &[]);
    assert_eq!(
        (code, err.as_str()),
        (
            Some(2),
            "error: TASKS, line 1: task 01-spec-example has no `case`\n"
        )
    );
    let (code, err, _) = run("empty", &[], &[]);
    assert_eq!(
        (code, err.as_str()),
        (Some(2), "error: TASKS holds no task\n")
    );
    // A rulebook with no ablations has nothing to measure.
    let (code, err, _) = run(
        "none",
        &[good],
        &["--rulebook", "rulebooks/luma-payroll/v3"],
    );
    assert_eq!(code, Some(2));
    assert!(
        err.starts_with("error: rulebook luma-payroll@3#")
            && err.ends_with(" declares no ablations\n"),
        "{err}"
    );
    let missing = bareme(&["ablations", "no/such/tasks.jsonl"], None);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).starts_with("error: cannot read no/such/tasks.jsonl: "));
}

#[test]
fn combinations_that_replace_one_step_twice_are_not_combinable_not_undetected() {
    // succession-fr: round_each_band and restart_scale_after_recall both
    // replace heirs.tax_before (and ignore_recall and recall_prior_790g
    // heirs.recalled), so no combination holding both is measured.
    let rb = super::rulebook("rulebooks/succession-fr/v2026");
    let case = json!({"kind": "estate", "act_date": "2026-04-15", "person": {"birth_date": "1950-01-10"},
        "assets": [{"value": 300000}], "funeral_costs": 2300, "residue_shares": {"C1": "1"},
        "beneficiaries": [{"id": "C1", "relationship": "child", "birth_date": "1980-06-01"}]});
    let line = json!({"id": "s1", "rulebook": "succession-fr@2026", "rulebook_hash": rb.hash(), "case": case,
        "expected": {"beneficiaires": {"C1": {"part_taxable": 198500, "droits": 37894}}, "total_droits": 37894}});
    let file = task_file("succession", &[line.to_string()]);
    let o = bareme(&["ablations", &file, "--subsets", "2"], None);
    // 9 + 36 combinations, two not combinable. The heir's 2,300 of funeral costs
    // are capped at 1,500, so uncapped_funeral_costs changes the answer, and so
    // does round_each_band; the other seven readings change nothing here. Detected:
    // those two alone, the 8 pairs with uncapped_funeral_costs, and the 6 other
    // pairs with round_each_band (not the one with restart_scale_after_recall).
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    let mut lines = out.lines();
    assert_eq!(
        lines.next(),
        Some(format!(
            "{}: 1 task; 45 combinations of 9 ablations (up to 2 at once): 16 detected, 27 undetected, 2 not combinable (two of their ablations replace the same step)",
            rb.reference()
        ).as_str())
    );
    assert_eq!(lines.next(), Some("undetected: ignore_790g"));
    assert_eq!(lines.count(), 26);
    let v: serde_json::Value = serde_json::from_str(&stdout(&bareme(
        &["ablations", &file, "--subsets", "2", "--format", "json"],
        None,
    )))
    .expect("JSON");
    assert_eq!(v["refused"], 2);
    let refused: Vec<&serde_json::Value> = v["combinations"]
        .as_array()
        .expect("the table")
        .iter()
        .filter(|c| c.get("refused").is_some())
        .collect();
    assert_eq!(
        refused,
        [
            &json!({"ablations": ["ignore_recall", "recall_prior_790g"],
                 "refused": "ablations `ignore_recall` and `recall_prior_790g` both replace step `heirs.recalled`, so they cannot apply together"}),
            &json!({"ablations": ["restart_scale_after_recall", "round_each_band"],
                 "refused": "ablations `restart_scale_after_recall` and `round_each_band` both replace step `heirs.tax_before`, so they cannot apply together"})
        ]
    );
}

#[cfg(target_os = "linux")]
#[test]
fn ablations_fails_with_exit_2_when_its_report_cannot_be_written() {
    let rb = super::rulebook(SALES);
    let file = task_file("full", &[task(&rb, "01-spec-example", None)]);
    for format in ["text", "json"] {
        let o = super::cli::bareme_into_a_full_disk(&["ablations", &file, "--format", format]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("No space left on device"),
            "{}",
            stderr(&o)
        );
    }
}
