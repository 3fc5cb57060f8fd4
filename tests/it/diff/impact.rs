//! A diff's impact on a sample of cases: answers moved and refusals,
//! each explained by the first step where the versions diverge.

use super::*;

#[test]
fn impact_counts_moved_answers_and_explains_them_by_the_first_diverging_step() {
    let new = MINI.replace(
        r#"{ region = "south", rate = "0.20" }"#,
        r#"{ region = "south", rate = "0.25" }"#,
    );
    let (old_rb, new_rb) = (
        bareme::parse_rulebook("old.toml", MINI).unwrap(),
        bareme::parse_rulebook("new.toml", &new).unwrap(),
    );
    let at = |id: &str, level: i64, case: Value| task(id, Some((level, "t")), case);
    let tasks = [
        at("a", 1, json!({"amount": "100.00", "region": "north"})),
        at("b", 1, json!({"amount": "100.00", "region": "south"})),
        at("c", 2, json!({"amount": "10.00", "region": "south"})),
        at("d", 2, json!({"amount": "-1", "region": "south"})),
    ];
    let report = impact(
        &old_rb,
        &new_rb,
        &tasks,
        ImpactOptions {
            examples: 1,
            old_years: 0,
        },
    );
    let v = serde_json::to_value(&report).unwrap();
    // south: tax 100 × 0.20 = 20.00 → 25.00, total 121.50 → 126.50; 10 × 0.20 = 2.00 → 2.50.
    assert_eq!(v["changed"], json!(2));
    assert_eq!(v["fields"]["tax"]["changed"], json!(2));
    assert_eq!(v["fields"]["tax"]["by_level"], json!({"1": 1, "2": 1}));
    let d = &v["fields"]["tax"]["examples"][0]["divergence"];
    assert_eq!(d["step"], json!("tax"));
    assert_eq!(
        (d["old_value"].clone(), d["new_value"].clone()),
        (json!("20.00"), json!("25.00"))
    );
    assert_eq!(d["clauses"], json!(["R1"]));
    assert_eq!(d["lookups"], json!(["rates row south"]));
    // `total` moved because `tax`, which it reads, did: the chain is followed up.
    assert_eq!(
        v["fields"]["total"]["examples"][0]["divergence"]["step"],
        json!("tax")
    );
    insta::assert_snapshot!("diff_impact", pretty(&v));
}

#[test]
fn a_changed_parameter_is_named_among_the_reads_of_the_diverging_step() {
    let new = MINI.replace(r#"value = "1.50""#, r#"value = "2.00""#);
    let (old_rb, new_rb) = (
        bareme::parse_rulebook("old.toml", MINI).unwrap(),
        bareme::parse_rulebook("new.toml", &new).unwrap(),
    );
    let tasks = [task(
        "a",
        None,
        json!({"amount": "100.00", "region": "north"}),
    )];
    let v = serde_json::to_value(impact(
        &old_rb,
        &new_rb,
        &tasks,
        ImpactOptions {
            examples: 3,
            old_years: 0,
        },
    ))
    .unwrap();
    // tax 10.00 is the same; total 100 + 10 + 1.50 = 111.50 → 112.00.
    assert_eq!(
        v["fields"].as_object().unwrap().keys().collect::<Vec<_>>(),
        ["total"]
    );
    let e = &v["fields"]["total"]["examples"][0];
    assert_eq!(
        (e["old"].clone(), e["new"].clone()),
        (json!("111.50"), json!("112.00"))
    );
    assert_eq!(e["divergence"]["step"], json!("total"));
    assert_eq!(
        e["divergence"]["reads"],
        json!([{"name": "fee", "old": "1.50", "new": "2.00"}])
    );
    assert_eq!(v["fields"]["total"]["by_level"], json!({"none": 1}));
}

#[test]
fn the_impact_of_a_sample_is_in_the_text_report() {
    let set = root().join("rulebooks/paie-fr");
    let v2026 = set.join("v2026");
    let out = bareme(
        &[
            "diff",
            v2026.to_str().unwrap(),
            v2026.to_str().unwrap(),
            "--sample",
            "8",
            "--seed",
            "1",
            "--generator",
            set.join("generator-1.toml").to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("\nimpact: 0 of 8 tasks change\n"), "{text}");
    // rubric-1 and generator-1 name paie-fr@2026: both load against itself.
    assert!(
        text.contains("  loads ") && !text.contains("BREAKS"),
        "{text}"
    );
}

/// The paie-fr pair bareme ships, on tasks of the 2026 generator: v2025
/// refuses every 2026 month by its input bounds, which the impact counts
/// apart from moved answers; with the months moved back a year the old
/// rules answer, and an example lists every step that moved with its delta.
#[test]
fn the_paie_fr_impact_separates_refusals_from_moved_answers() {
    let set = root().join("rulebooks/paie-fr");
    let old = bareme::load_rulebook(&set.join("v2025")).unwrap();
    let new = bareme::load_rulebook(&set.join("v2026")).unwrap();
    let (generator, grb) = bareme::load_generator(&set.join("generator-1.toml"), None).unwrap();
    let drawer = bareme::TaskDrawer::new(&generator, &grb).unwrap();
    let tasks: Vec<bareme::Task> = (0..12)
        .map(|i| drawer.task(1, i, None).unwrap().task)
        .collect();
    let as_is = impact(
        &old,
        &new,
        &tasks,
        ImpactOptions {
            examples: 2,
            old_years: 0,
        },
    );
    assert_eq!(
        (
            as_is.changed,
            as_is.old_rejects.count,
            as_is.new_rejects.count
        ),
        (0, 12, 0)
    );
    assert_eq!(as_is.old_rejects.by_path.get("month"), Some(&12));
    assert!(as_is.old_rejects.examples[0]
        .message
        .contains("is outside the range 2025-01…2025-12"));
    let moved = impact(
        &old,
        &new,
        &tasks,
        ImpactOptions {
            examples: 2,
            old_years: -1,
        },
    );
    assert_eq!((moved.old_rejects.count, moved.new_rejects.count), (0, 0));
    assert!(moved.changed > 0);
    let cost = &moved.fields["cout_employeur"];
    let e = &cost.examples[0];
    // The field's own step is listed with the answer's move as its delta.
    let own = e
        .steps
        .iter()
        .find(|m| m.step == "cout_employeur" && m.item.is_none())
        .unwrap();
    let (a, b): (rust_decimal::Decimal, rust_decimal::Decimal) = (
        e.old.as_str().unwrap().parse().unwrap(),
        e.new.as_str().unwrap().parse().unwrap(),
    );
    let delta: rust_decimal::Decimal = own
        .delta
        .as_deref()
        .unwrap()
        .trim_start_matches('+')
        .parse()
        .unwrap();
    assert_eq!(delta, b - a);
    assert!(e.steps_moved >= e.steps.len() && e.steps.len() > 1);
    // A 2026 row with a rate moved is matched to its 2025 row, not to the
    // row at its position: vieillesse déplafonnée 2.02 → 2.11 (employer).
    assert!(
        e.steps.iter().any(|m| m.step == "employer_rate"
            && m.old == Some(json!("2.02"))
            && m.new == Some(json!("2.11"))),
        "{:?}",
        e.steps
    );
}

#[test]
fn the_old_version_reads_months_and_dates_moved_by_whole_years() {
    let text = "[rulebook]\nid = \"y\"\nversion = 1\nschema = 1\n\n[inputs.m]\ntype = \"month\"\n\n[inputs.d]\ntype = \"date\"\n\n[inputs.n]\ntype = \"integer\"\n\n[[checks]]\ndecision = \"ok\"\n\n[decisions.ok.answer]\nn = { expr = \"n\", format = \"integer\" }\n";
    let rb = bareme::parse_rulebook("y.toml", text).unwrap();
    let case = json!({"m": "2026-02", "d": "2028-02-29", "n": 2026});
    assert_eq!(
        bareme::unstable::diff::shift_years(&rb, &case, -1),
        json!({"m": "2025-02", "d": "2027-02-28", "n": 2026})
    );
    assert_eq!(bareme::unstable::diff::shift_years(&rb, &case, 0), case);
    // What is no month or date is left for validation to refuse.
    let odd = json!({"m": "soon", "d": 3});
    assert_eq!(bareme::unstable::diff::shift_years(&rb, &odd, 1), odd);
}

/// A task of the mini rulebook's set as a task file gives it, at a level
/// and tier when given (the impact reads its id, case, level and tier).
fn task(id: &str, level_and_tier: Option<(i64, &str)>, case: Value) -> Task {
    let mut line =
        json!({"id": id, "rulebook": "mini@1", "rulebook_hash": "", "case": case, "expected": {}});
    if let Some((level, tier)) = level_and_tier {
        line["level"] = json!(level);
        line["tier"] = json!(tier);
    }
    Task::from_json(&line.to_string()).expect("a task line")
}
