//! The compact trace (format 2): read back byte for byte as format 1, a
//! quarter of its bytes, and nothing its expansion would drop.

use super::*;

#[test]
fn a_compact_trace_reads_back_as_the_full_one_byte_for_byte() {
    let mut checked = 0;
    for dir in versions() {
        let rb = load_rulebook(Path::new(&dir)).expect("bundled rulebook");
        for (name, case) in cases(Path::new(&dir)).expect("cases") {
            let Some((one, two)) = both_formats(&rb, &case) else {
                continue;
            };
            let compact: serde_json::Value = serde_json::from_str(&two).expect("JSON");
            assert_eq!(compact["format"], 2);
            let expanded = bareme::unstable::audit::expand_compact(&compact).expect("expands");
            assert_eq!(
                serde_json::to_string(&expanded).expect("text"),
                one,
                "{dir} {name}"
            );
            // And the verifier reads it as it reads the full trace (the
            // line's answer or error left out).
            let line = format!("{{\"trace\":{two}}}");
            let v = verify_line(&rb, &line, Some(&case)).expect("a trace");
            assert!(
                v.findings
                    .iter()
                    .all(|f| (f.at == "outcome" && f.what == "answer")
                        || (f.at == "error" && f.what == "rejection" && f.recorded == "null")),
                "{dir} {name}: {:?}",
                v.findings
            );
            checked += 1;
        }
    }
    assert!(checked > 300);
}

#[test]
fn a_level_4_payslips_compact_trace_is_at_most_a_quarter() {
    let (g, rb) = bareme::load_generator(Path::new("rulebooks/paie-fr/generator-1.toml"), None)
        .expect("generator");
    let drawer = bareme::TaskDrawer::new(&g, &rb).expect("drawer");
    let (mut full, mut compact) = (0usize, 0usize);
    for i in 0..20 {
        let task = drawer.task(2026, i, Some(4)).expect("task").task;
        let (one, two) = both_formats(&rb, &task.case).expect("traced");
        assert!(
            two.len() * 4 <= one.len(),
            "case {i}: {} of {} bytes",
            two.len(),
            one.len()
        );
        full += one.len();
        compact += two.len();
    }
    assert!(compact * 4 <= full, "{compact} of {full} bytes");
}

/// A compact trace's parts the expansion would drop (a truth value past a
/// step's citations, a fourth part of a rounding point, a seventh of a
/// rounding, `held` on a step without a condition) and an `ablation` that
/// is not a text were read as if absent, and the trace said to follow
/// (hostile probe): each is refused. So is an answer written `+1377.42`.
#[test]
fn what_the_expansion_would_drop_is_refused() {
    let rb = crate::rulebook("rulebooks/paie-fr/v2026");
    let case: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("examples/paie-fr/level4-entry.json").expect("the example"),
    )
    .expect("JSON");
    let line = traced(&rb, &case).expect("a trace");
    let two: serde_json::Value =
        serde_json::from_str(&compact_line(&rb, &case, &line).expect("compact")).expect("JSON");
    assert_eq!(outcome_of(&rb, &two, &case), "follows");
    let defs = two["trace"]["steps"]
        .as_array()
        .expect("definitions")
        .clone();
    let events = two["trace"]["events"].as_array().expect("events").clone();
    let def_of = |e: &serde_json::Value| &defs[e["s"].as_u64().expect("a step event") as usize];
    let find = |what: &str, test: &dyn Fn(&serde_json::Value) -> bool| {
        events
            .iter()
            .position(|e| e.get("s").is_some() && test(e))
            .unwrap_or_else(|| panic!("paie-fr's trace has {what}"))
    };
    let cited = find("a step with citations", &|e| {
        def_of(e).get("cites").is_some()
    });
    let rounded = find("a rounding point", &|e| e.get("round").is_some());
    let inner = find("a rounding inside a formula", &|e| {
        e["roundings"].as_array().is_some_and(|r| !r.is_empty())
    });
    let plain = find("a step without a condition", &|e| {
        def_of(e).get("condition").is_none()
    });
    type Change = Box<dyn Fn(&mut serde_json::Value)>;
    let changes: Vec<(Change, &str)> = vec![
        (
            Box::new(move |t| {
                t["events"][cited]["cites"]
                    .as_array_mut()
                    .unwrap()
                    .push(true.into())
            }),
            "truth values for the",
        ),
        (
            Box::new(move |t| {
                t["events"][cited]["cites"].as_array_mut().unwrap().pop();
            }),
            "truth values for the",
        ),
        (
            Box::new(move |t| {
                t["events"][rounded]["round"]
                    .as_array_mut()
                    .unwrap()
                    .push(1.into())
            }),
            "a rounding point is [MODE, PLACES, MARGIN]",
        ),
        (
            Box::new(move |t| {
                t["events"][inner]["roundings"][0]
                    .as_array_mut()
                    .unwrap()
                    .push("junk".into())
            }),
            "a rounding is [AT, MODE, PLACES, BEFORE, AFTER, MARGIN]",
        ),
        (
            Box::new(move |t| t["events"][plain]["held"] = true.into()),
            "\"held\" on a step without a condition",
        ),
        (
            Box::new(|t| t["ablation"] = serde_json::json!(["half_even"])),
            "\"trace.ablation\" is not a text naming ablations",
        ),
    ];
    for (change, says) in &changes {
        let mut changed = two.clone();
        change(&mut changed["trace"]);
        let got = outcome_of(&rb, &changed, &case);
        assert!(
            got.starts_with("refused") && got.contains(says),
            "{says}: {got}"
        );
    }
    // An answer field is checked as the engine writes it, not only by value.
    let net = two["answer"]["net_a_payer"]
        .as_str()
        .expect("net pay")
        .to_string();
    for text in [format!("+{net}"), format!("0{net}"), format!("{net}0")] {
        let mut changed = two.clone();
        changed["answer"]["net_a_payer"] = text.clone().into();
        assert_eq!(
            outcome_of(&rb, &changed, &case),
            "answer net_a_payer value",
            "{text}"
        );
    }
}

/// A name read twice in one event of a compact trace is refused before it
/// is expanded: by its name alone each read would copy its value again
/// (a payslip's `lines`, 10,000 times in 72 KB, took more than a gigabyte).
#[test]
fn a_read_written_twice_in_one_compact_event_is_refused() {
    let (rb, case, json) = luma_payslip();
    let line = compact_line(&rb, &case, &json.to_string()).expect("compact");
    let mut compact: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    assert!(verdict(&rb, &compact.to_string(), &case).follows());
    let event = compact["trace"]["events"]
        .as_array_mut()
        .expect("events")
        .iter_mut()
        .find(|ev| ev["r"].as_array().is_some_and(|r| !r.is_empty()))
        .expect("an event with reads");
    let first = event["r"][0].clone();
    event["r"].as_array_mut().expect("reads").push(first);
    let refused = verify_line(&rb, &compact.to_string(), Some(&case))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        refused.contains("is written twice in one event"),
        "{refused}"
    );
}

/// A read by name alone whose name refers to no value (a definition's
/// read renamed) is read as null, so the walk names the step whose read it
/// is: the line was refused as no trace, naming nothing. A compact line
/// the expansion cannot read names the event where it stops.
#[test]
fn a_read_of_nothing_is_a_finding_at_its_step() {
    let (rb, case, json) = luma_payslip();
    let line = compact_line(&rb, &case, &json.to_string()).expect("compact");
    let mut compact: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    let steps = compact["trace"]["steps"]
        .as_array_mut()
        .expect("definitions");
    let def = (steps.iter_mut())
        .find(|d| d["step"] == "employee_contribution")
        .expect("the step's definition");
    assert_eq!(def["reads"][1], "gross_pay");
    def["reads"][1] = "gross_pax".into();
    assert_eq!(
        outcome_of(&rb, &compact, &case),
        "step employee_contribution read gross_pay; step employee_contribution read gross_pax"
    );
    // An event whose read positions its (new) definition does not have.
    let mut compact: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    compact["trace"]["events"][3]["r"] = serde_json::json!([[7]]);
    let refused = outcome_of(&rb, &compact, &case);
    assert!(
        refused.starts_with("refused: ")
            && refused.contains("trace.events[3]: no name at position 7"),
        "{refused}"
    );
}
