//! What the verifier does not read is refused, and what a trace claims
//! besides its events (conditions, reports, order, outcome) is checked.

use super::*;

/// What the verifier would not read is refused, not passed as verified: a
/// format that is not 1 or 2, a key the line or the trace does not have,
/// an answer beside an error.
#[test]
fn keys_and_formats_the_verifier_does_not_read_are_refused() {
    let rb = crate::rulebook("rulebooks/luma-payroll/v3");
    let case: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("examples/luma-payroll/payslip.json").expect("the example"),
    )
    .expect("JSON");
    let line = traced(&rb, &case).expect("a trace");
    let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    assert!(verdict(&rb, &line, &case).follows());
    let changed = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut j = json.clone();
        edit(&mut j);
        match verify_line(&rb, &j.to_string(), Some(&case)) {
            Err(e) => e.to_string(),
            Ok(v) => format!("verified: {:?}", v.findings),
        }
    };
    for (edit, says) in [
        (
            &(|j: &mut serde_json::Value| j["trace"]["format"] = serde_json::json!(1.5))
                as &dyn Fn(&mut serde_json::Value),
            "a trace of format 1.5",
        ),
        (
            &|j: &mut serde_json::Value| j["trace"]["format"] = serde_json::json!({}),
            "a trace of format {}",
        ),
        (
            &|j: &mut serde_json::Value| j["trace"]["note"] = serde_json::json!("x"),
            "the trace holds an unknown key \"note\"",
        ),
        (
            &|j: &mut serde_json::Value| j["trace"]["steps"] = serde_json::json!([]),
            "the trace holds an unknown key \"steps\"",
        ),
        (
            &|j: &mut serde_json::Value| j["score"] = serde_json::json!(1),
            "the line holds an unknown key \"score\"",
        ),
        (
            &|j: &mut serde_json::Value| j["error"] = serde_json::json!({"path": "$"}),
            "holds \"answer\" or \"error\", not both",
        ),
    ] {
        let got = changed(edit);
        assert!(got.contains(says), "{says}: {got}");
    }
}

/// A step's condition is the rulebook's: `when children > 5 → held true`
/// (in either format) is no receipt; only what it held was compared.
#[test]
fn a_step_s_condition_formula_changed_does_not_follow() {
    let rb = part_rulebook(
        "cond",
        "[inputs.children]\ntype = \"integer\"\ndefault = 0\n\
         [steps.part]\nexpr = \"children * 125.50\"\nwhen = \"children > 0\"\notherwise = \"0\"\n",
    );
    let case = serde_json::json!({"children": 2});
    let line = traced(&rb, &case).expect("a trace");
    let compact = compact_line(&rb, &case, &line).expect("a compact trace");
    for line in [line, compact] {
        assert!(verdict(&rb, &line, &case).follows(), "{line}");
        let changed = line.replacen("\"children > 0\"", "\"children > 5\"", 1);
        assert_ne!(changed, line);
        let v = verdict(&rb, &changed, &case);
        let found: Vec<String> = v.findings.iter().map(|f| f.to_string()).collect();
        assert_eq!(
            found,
            ["step part: condition formula: recorded children > 5, follows children > 0"],
            "{changed}"
        );
    }
}

/// What a forged line claims besides the events: a rejection with no
/// check that rejects holding, an answer field the decision does not
/// have, another `gives` for a check, a read recorded twice, and a key
/// written twice (serde_json would keep the second).
#[test]
fn claims_beyond_the_events_are_checked() {
    let (rb, case, line) = luma_payslip();
    assert!(findings(&rb, &line, &case).is_empty());

    // A rejection claimed after the inputs were read and steps ran.
    let mut forged = line.clone();
    let error = serde_json::json!({ "path": "gross_pay", "message": "must not be negative" });
    forged["trace"]["outcome"] = serde_json::json!({ "kind": "rejected", "error": error });
    forged["trace"]["events"] = serde_json::json!([]);
    forged.as_object_mut().expect("object").remove("answer");
    forged["error"] = error.clone();
    assert_eq!(
        findings(&rb, &forged, &case),
        ["outcome: kind: recorded rejected after the inputs were read, follows no check held"]
    );
    // The same with nothing recorded is a rejection while validated:
    // taken as recorded, and said so.
    forged["trace"]["inputs"] = serde_json::json!([]);
    let v = verdict(&rb, &forged.to_string(), &case);
    assert!(v.follows() && v.rejected_while_validated);
    assert!(!verdict(&rb, &line.to_string(), &case).rejected_while_validated);

    let mut extra = line.clone();
    extra["answer"]["bonus_paid"] = serde_json::json!("10000.00");
    assert_eq!(
        findings(&rb, &extra, &case),
        ["answer bonus_paid: field: recorded 10000.00, follows none"]
    );

    let mut gives = line.clone();
    let events = gives["trace"]["events"].as_array_mut().expect("events");
    let check = events
        .iter_mut()
        .find(|e| e["event"] == "check")
        .expect("a check");
    let was = check["gives"].as_str().expect("gives").to_string();
    check["gives"] = serde_json::json!("reject gross_pay");
    assert_eq!(
        findings(&rb, &gives, &case),
        [format!(
            "check 1: gives: recorded reject gross_pay, follows {was}"
        )]
    );

    let mut twice = line.clone();
    let events = twice["trace"]["events"].as_array_mut().expect("events");
    let step = events
        .iter_mut()
        .find(|e| e["event"] == "step" && !e["reads"].as_array().expect("reads").is_empty())
        .expect("a step that reads");
    let at = step["step"].as_str().expect("name").to_string();
    let reads = step["reads"].as_array_mut().expect("reads");
    let first = reads[0].clone();
    reads.push(first.clone());
    let name = first["name"].as_str().expect("read name");
    // A finding shows a text without its quotes.
    let value = match &first["value"] {
        serde_json::Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    assert_eq!(
        findings(&rb, &twice, &case),
        [format!(
            "step {at}: read {name}: recorded {value}, follows recorded once"
        )]
    );

    // A lookup's reason is recomputed: the row's period, not another's.
    let mut why = line.clone();
    let events = why["trace"]["events"].as_array_mut().expect("events");
    let step = events
        .iter_mut()
        .find(|e| e["lookups"].as_array().is_some_and(|l| !l.is_empty()))
        .expect("a step with a lookup");
    let at = step["step"].as_str().expect("name").to_string();
    assert_eq!(
        step["lookups"][0]["why"],
        "2026-09 is within 2026-07…2026-12"
    );
    step["lookups"][0]["why"] = serde_json::json!("2026-09 is within 2026-01…2026-12");
    let found = findings(&rb, &why, &case);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with(&format!("step {at}: lookup: "))
            && found[0].ends_with("why: 2026-09 is within 2026-07…2026-12}"),
        "{found:?}"
    );

    // A table has no default to take (nor has any input declared without one).
    let mut default = line.clone();
    let inputs = default["trace"]["inputs"].as_array_mut().expect("inputs");
    let tables = inputs
        .iter_mut()
        .find(|i| i["name"] == "reference_tables")
        .expect("the table input");
    assert_eq!(tables["given"], "absent");
    tables["given"] = serde_json::json!("default");
    assert_eq!(
        findings(&rb, &default, &case),
        ["input reference_tables: given: recorded default, follows not default: it has none"]
    );

    let text = line.to_string();
    let net = line["answer"]["net_pay"].to_string();
    let dup = text.replacen(
        &format!("\"net_pay\":{net}"),
        &format!("\"net_pay\":\"9999.99\",\"net_pay\":{net}"),
        1,
    );
    assert_ne!(dup, text);
    let e = verify_line(&rb, &dup, Some(&case)).expect_err("refused");
    assert_eq!(e.code(), "audit::shape");
    assert!(
        e.to_string()
            .contains("\"net_pay\" is written twice in $.answer"),
        "{e}"
    );
}

/// A line a check rejects carries that check's error, rendered from the
/// steps, and no answer: an answer in its place passed, and so did any
/// error text. An input declared without `invalid = "absent"` is never
/// recorded `given: "invalid"` (a receipt that dropped the case's
/// deduction as invalid passed, with another net pay).
#[test]
fn a_rejection_and_an_invalid_input_are_what_the_rules_give() {
    use serde_json::json;
    let rb = load_rulebook(Path::new("rulebooks/luma-payroll/v3")).expect("luma");
    let case = json!({"task": "payslip", "gross_pay": "2000.00", "payroll_month": "2026-04",
        "allowed_deduction": "300.01"});
    let line = traced(&rb, &case).expect("a trace");
    let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    assert!(findings(&rb, &json, &case).is_empty(), "{line}");
    let error = json!({"path": "allowed_deduction",
        "message": "300.01 exceeds the deduction cap 300.00 (R4)"});
    assert_eq!(json["error"], error);
    let mut answered = json.clone();
    let object = answered.as_object_mut().expect("object");
    object.remove("error");
    object.insert(
        "answer".into(),
        json!({"decision": "calculate", "net_pay": "1700.00"}),
    );
    assert_eq!(
        findings(&rb, &answered, &case),
        [
            "outcome: answer: recorded {\"decision\":\"calculate\",\"net_pay\":\"1700.00\"}, follows none: a check rejects".to_string(),
            format!("error: rejection: recorded null, follows {error}"),
        ]
    );
    let mut reworded = json.clone();
    reworded["trace"]["outcome"]["error"]["message"] =
        json!("300.00 exceeds the deduction cap 300.00 (R4)");
    let found = findings(&rb, &reworded, &case);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("outcome error: rejection: recorded "),
        "{found:?}"
    );

    let (rb, case, line) = luma_payslip();
    let mut invalid = line.clone();
    let inputs = invalid["trace"]["inputs"].as_array_mut().expect("inputs");
    let deduction = (inputs.iter_mut())
        .find(|i| i["name"] == "allowed_deduction")
        .expect("the deduction");
    deduction["given"] = json!("invalid");
    deduction["value"] = serde_json::Value::Null;
    let found = findings(&rb, &invalid, &case);
    assert!(
        found.contains(&"input allowed_deduction: given: recorded invalid, follows not invalid: the input refuses an invalid value".to_string()),
        "{found:?}"
    );
}

/// A change made to a report table of a trace line.
type Edit<'a> = &'a dyn Fn(&mut serde_json::Value);

/// A payslip's report as a reader reads it: its column titles, its totals'
/// labels, a cell per column. An extra column or total, titles swapped, a
/// label renamed all passed as following, in both formats.
#[test]
fn a_report_s_layout_changed_does_not_follow() {
    let dir = "rulebooks/paie-fr/v2026";
    let rb = load_rulebook(Path::new(dir)).expect("paie-fr");
    let case: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("examples/paie-fr/level3-cadre.json").expect("the example"),
    )
    .expect("JSON");
    let line = traced(&rb, &case).expect("traced");
    let one: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    let compact = compact_line(&rb, &case, &line).expect("compact");
    let two: serde_json::Value = serde_json::from_str(&compact).expect("JSON");
    let name = "bulletin";
    let edits: [(Edit, String); 6] = [
        (
            &|r| {
                if let Some(h) = r["header"].as_array_mut() {
                    h.push("Bonus".into());
                }
                for row in r["rows"].as_array_mut().into_iter().flatten() {
                    if let Some(cells) = row.as_array_mut() {
                        cells.push("1000.00".into());
                    }
                }
            },
            format!("report {name} header"),
        ),
        (
            &|r| {
                if let Some(t) = r["totals"].as_array_mut() {
                    t.push(serde_json::json!(["Prime", "5000.00"]));
                }
            },
            format!("report {name} totals"),
        ),
        (
            &|r| {
                if let Some(h) = r["header"].as_array_mut() {
                    h.swap(3, 5);
                }
            },
            format!("report {name} header"),
        ),
        (
            &|r| r["totals"][5][0] = "Net (après prime)".into(),
            "label".into(),
        ),
        (
            &|r| {
                if let Some(cells) = r["rows"][0].as_array_mut() {
                    cells.push("".into());
                }
            },
            "cells".into(),
        ),
        (
            &|r| r["title"] = "Another payslip".into(),
            format!("report {name} title"),
        ),
    ];
    for (k, (edit, says)) in edits.iter().enumerate() {
        for json in [&one, &two] {
            let mut changed = json.clone();
            edit(&mut changed["trace"]["reports"][0]);
            let got = outcome_of(&rb, &changed, &case);
            assert!(got.contains(says.as_str()), "edit {k}: {says}: {got}");
        }
    }
}

/// A key the verifier does not read passed unverified below the top of the
/// line (in an event, a read, an input, the outcome, a report, a compact
/// step or its definition), and a check's fields of the wrong type were
/// reported as values never recorded (`check 0` for an index of `"1"`).
#[test]
fn a_key_or_type_out_of_shape_anywhere_is_refused() {
    let rb = crate::rulebook("rulebooks/luma-payroll/v3");
    let case: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("examples/luma-payroll/payslip.json").expect("the example"),
    )
    .expect("JSON");
    let line = traced(&rb, &case).expect("a trace");
    let one: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    let two: serde_json::Value =
        serde_json::from_str(&compact_line(&rb, &case, &line).expect("compact")).expect("JSON");
    assert_eq!(outcome_of(&rb, &one, &case), "follows");
    assert_eq!(outcome_of(&rb, &two, &case), "follows");
    let events =
        |j: &serde_json::Value| j["trace"]["events"].as_array().cloned().unwrap_or_default();
    let first = |j: &serde_json::Value, kind: Option<&str>| {
        events(j)
            .iter()
            .position(|e| e.get("event").and_then(|k| k.as_str()) == kind)
            .expect("such an event")
    };
    let check = first(&one, Some("check"));
    let step = first(&one, Some("step"));
    let read = events(&one)
        .iter()
        .position(|e| e["reads"].as_array().is_some_and(|r| !r.is_empty()))
        .expect("an event that reads");
    let cases: Vec<(serde_json::Value, &str, &str)> = vec![
        (
            serde_json::json!(["trace", "events", check, "extra"]),
            "1",
            "holds an unknown key \"extra\"",
        ),
        (
            serde_json::json!(["trace", "events", step, "extra"]),
            "1",
            "holds an unknown key \"extra\"",
        ),
        (
            serde_json::json!(["trace", "events", read, "reads", 0, "extra"]),
            "1",
            "holds an unknown key \"extra\"",
        ),
        (
            serde_json::json!(["trace", "inputs", 0, "extra"]),
            "1",
            "holds an unknown key \"extra\"",
        ),
        (
            serde_json::json!(["trace", "outcome", "extra"]),
            "1",
            "holds an unknown key \"extra\"",
        ),
        (
            serde_json::json!(["trace", "events", check, "index"]),
            "\"1\"",
            "\"index\" is not a check's position",
        ),
        (
            serde_json::json!(["trace", "events", check, "index"]),
            "0",
            "\"index\" is not a check's position",
        ),
        (
            serde_json::json!(["trace", "events", check, "held"]),
            "\"yes\"",
            "\"held\" is not true or false",
        ),
        (
            serde_json::json!(["trace", "events", check, "gives"]),
            "5",
            "\"gives\" is not a text",
        ),
        (
            serde_json::json!(["trace", "events", check, "when"]),
            "1",
            "\"when\" is neither a formula nor null",
        ),
    ];
    for (path, value, says) in &cases {
        let mut changed = one.clone();
        let path = path.as_array().expect("a path");
        let mut at = &mut changed;
        for key in &path[..path.len() - 1] {
            at = match key {
                serde_json::Value::String(k) => &mut at[k.as_str()],
                n => &mut at[n.as_u64().expect("an index") as usize],
            };
        }
        let last = path[path.len() - 1].as_str().expect("a key");
        at[last] = serde_json::from_str(value).expect("JSON");
        let got = outcome_of(&rb, &changed, &case);
        assert!(
            got.starts_with("refused") && got.contains(says),
            "{path:?} = {value}: {got}"
        );
    }
    // A compact step event and its definition.
    let step = first(&two, None);
    let mut changed = two.clone();
    changed["trace"]["events"][step]["extra"] = 1.into();
    let got = outcome_of(&rb, &changed, &case);
    assert!(got.contains("holds an unknown key \"extra\""), "{got}");
    let mut changed = two.clone();
    changed["trace"]["steps"][0]["extra"] = 1.into();
    let got = outcome_of(&rb, &changed, &case);
    assert!(
        got.contains("step definition 0 holds an unknown key \"extra\""),
        "{got}"
    );
}

/// A receipt whose answer holds the right values in another order than
/// the engine writes them (the decision's) is not what `eval` printed:
/// two fields swapped, at the top or in an item, verified.
#[test]
fn an_answer_with_its_fields_reordered_does_not_follow() {
    let (rb, case, json) = luma_payslip();
    assert!(findings(&rb, &json, &case).is_empty());
    let swapped = |object: &serde_json::Value, a: &str, b: &str| -> serde_json::Value {
        let map = object.as_object().expect("an object");
        let mut out = serde_json::Map::new();
        // Each key, with its own value, where the other stood.
        for k in map.keys() {
            let k = match k.as_str() {
                k if k == a => b,
                k if k == b => a,
                k => k,
            };
            out.insert(k.to_string(), map[k].clone());
        }
        serde_json::Value::Object(out)
    };
    let mut j = json.clone();
    j["answer"] = swapped(&json["answer"], "gross_pay", "net_pay");
    let found = findings(&rb, &j, &case);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("answer: order: "), "{found:?}");

    let rb = load_rulebook(Path::new("rulebooks/sales-tax/v1")).expect("sales-tax");
    let text = std::fs::read_to_string("examples/sales-tax/cart.json").expect("example");
    let case: serde_json::Value = serde_json::from_str(&text).expect("case JSON");
    let json: serde_json::Value =
        serde_json::from_str(&traced(&rb, &case).expect("traced")).expect("JSON");
    assert!(findings(&rb, &json, &case).is_empty());
    let mut j = json.clone();
    let line = &json["answer"]["lines"][0];
    let keys: Vec<String> = line.as_object().expect("a line").keys().cloned().collect();
    j["answer"]["lines"][0] = swapped(line, &keys[0], &keys[1]);
    let found = findings(&rb, &j, &case);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("answer lines[0]: order: "),
        "{found:?}"
    );

    // An answer keyed by item (succession-fr's heirs by id): its items in
    // the group's order.
    let rb = load_rulebook(Path::new("rulebooks/succession-fr/v2026")).expect("succession");
    let file =
        std::fs::read_to_string("rulebooks/succession-fr/v2026/cases/01-spec-example-estate.toml")
            .expect("case file");
    let table: toml::Table = toml::from_str(&file).expect("TOML");
    let case: serde_json::Value =
        serde_json::from_str(table["case"].as_str().expect("case text")).expect("case JSON");
    let json: serde_json::Value =
        serde_json::from_str(&traced(&rb, &case).expect("traced")).expect("JSON");
    assert!(findings(&rb, &json, &case).is_empty());
    let heirs = &json["answer"]["beneficiaires"];
    let ids: Vec<String> = heirs.as_object().expect("keyed").keys().cloned().collect();
    assert!(ids.len() >= 2, "{heirs}");
    let mut j = json.clone();
    j["answer"]["beneficiaires"] = swapped(heirs, &ids[0], &ids[1]);
    let found = findings(&rb, &j, &case);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("answer beneficiaires: order: "),
        "{found:?}"
    );
}

/// Reports are made from a decision's steps: a payslip table beside a
/// rejection, where the engine writes none, does not follow (it would be
/// read as vouched for); nor an item index the engine never writes
/// (`lines[02]`, `lines[+2]`, which parse as 2) (hostile probe).
#[test]
fn reports_beside_a_rejection_and_odd_item_indices_do_not_follow() {
    let dir = "rulebooks/paie-fr/v2026";
    let rb = crate::rulebook(dir);
    let all = cases(Path::new(dir)).expect("cases");
    let case_named = |prefix: &str| {
        all.iter()
            .find(|(name, _)| name.starts_with(prefix))
            .map(|(_, case)| case.clone())
            .expect("the case")
    };
    let answered = case_named("01-spec-example");
    let answered_line: serde_json::Value =
        serde_json::from_str(&traced(&rb, &answered).expect("traced")).expect("JSON");
    let table = answered_line["trace"]["reports"].clone();
    assert_eq!(table.as_array().map(Vec::len), Some(1));
    for rejected in ["51-reject", "28-reject"] {
        let case = case_named(rejected);
        let mut line: serde_json::Value =
            serde_json::from_str(&traced(&rb, &case).expect("traced")).expect("JSON");
        assert!(line["trace"].get("reports").is_none());
        assert!(findings(&rb, &line, &case).is_empty());
        line["trace"]["reports"] = table.clone();
        assert_eq!(
            findings(&rb, &line, &case),
            ["outcome: reports: recorded 1 table, follows none: only a decision has reports"],
            "{rejected}"
        );
    }

    for odd in ["lines[02]", "lines[+2]"] {
        let mut line = answered_line.clone();
        for ev in line["trace"]["events"].as_array_mut().expect("events") {
            if ev["item"] == "lines[2]" {
                ev["item"] = serde_json::json!(odd);
            }
        }
        let found = findings(&rb, &line, &answered);
        let named = format!("not a step of the rulebook: recorded {odd}");
        assert!(found.iter().any(|f| f.contains(&named)), "{odd}: {found:?}");
    }
}
