//! The paie-fr and succession-fr repair tasks: every reading their
//! rulebooks declare baked into a seeded candidate and caught by its group,
//! groups selecting the cases a reading gets wrong as the verifier measures
//! them, and `exclusive` groups that fail on their own reading alone.

use bareme::unstable::repair::{bake_text, load_repair, Verifier};
use rust_decimal::Decimal;

use super::{root, rulebook};

/// The paie-fr and succession-fr repair tasks, and every reading each
/// seeded candidate holds (`bake` of it, checked in).
const OTHER_TASKS: [(&str, &str, &str, &[&str]); 3] = [
    (
        "paie-fr",
        "v2026",
        "repair-1",
        &[
            "hourly_rate_rounded_before_premium",
            "daily_salary_rounded_before_proration",
            "meal_vouchers_rounded_per_voucher",
            "ignore_overtime_cap",
            "unprorated_ceiling",
        ],
    ),
    (
        "succession-fr",
        "v2026",
        "repair-1",
        &[
            "ignore_790g",
            "ignore_790g_age_conditions",
            "ignore_recall",
            "ignore_representation",
            "restart_scale_after_recall",
            "uncapped_funeral_costs",
            "full_ownership_instead_of_bare",
        ],
    ),
    (
        "succession-fr",
        "v2026",
        "repair-2",
        &[
            "recall_prior_790g",
            "round_each_band",
            "full_ownership_instead_of_bare",
        ],
    ),
];

/// The paie-fr and succession-fr repair tasks: between them every reading
/// their rulebooks declare is baked into a seeded candidate; the reference
/// scores 1.0, the seeded candidate 0.0, every incomplete repair at most
/// 0.45, and a reading left alone fails exactly the groups that hold a
/// case it gets wrong: its own group, the group of every case, and no
/// `exclusive` group of another reading.
#[test]
fn other_repair_tasks_hold_the_same() {
    let mut baked_somewhere: Vec<&str> = Vec::new();
    for (set, version, file, readings) in OTHER_TASKS {
        let at = format!("{set} {file}");
        let (task, rb) = load_repair(&root().join(format!("rulebooks/{set}/{file}.toml")), None)
            .unwrap_or_else(|e| panic!("{at}: {e}"));
        let v = Verifier::new(task, rb).unwrap_or_else(|e| panic!("{at}: {e}"));
        // The prompt names no reading, nor does any record an agent sees.
        let records = serde_json::to_string(&v.task.business).expect("json");
        for name in readings {
            assert!(!v.task.prompt.contains(name), "{at}: {name}");
            assert!(!records.contains(name), "{at}: {name}");
        }
        let reference = std::fs::read_to_string(
            root().join(format!("rulebooks/{set}/{version}/rulebook.toml")),
        )
        .expect("read");
        let verdict = v.verify_text(&reference);
        assert_eq!(verdict.reward, Decimal::ONE, "{at}");
        assert_eq!((verdict.cases_passed, verdict.cases), (149, 149), "{at}");
        let seeded = std::fs::read_to_string(
            root().join(format!("rulebooks/{set}/{file}/candidate/rulebook.toml")),
        )
        .expect("read");
        let baked = bake_text("rulebook.toml", &reference, readings).expect("bake");
        assert_eq!(
            baked.text, seeded,
            "{at}: the candidate is the bake of its readings"
        );
        let verdict = v.verify_text(&seeded);
        assert_eq!(verdict.reward, Decimal::ZERO, "{at}");
        assert!(verdict.groups.values().all(|g| !*g), "{at}");
        // One group per reading, selecting what the verifier measures.
        for name in readings {
            let groups = v.task.groups.iter().filter(|g| g.readings == [*name]);
            assert_eq!(groups.count(), 1, "{at}: {name}");
        }
        for mask in 1u32..(1 << readings.len()) {
            let names: Vec<&str> = (0..readings.len())
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| readings[i])
                .collect();
            let verdict = v.verify_rulebook(
                &bake_text("rulebook.toml", &reference, &names)
                    .expect("bake")
                    .rulebook,
            );
            assert!(verdict.reward <= Decimal::new(45, 2), "{at} {names:?}");
            if let [one] = names[..] {
                let failed: Vec<&str> = verdict
                    .groups
                    .iter()
                    .filter(|(_, ok)| !**ok)
                    .map(|(g, _)| g.as_str())
                    .collect();
                let expected: Vec<&str> = v
                    .task
                    .groups
                    .iter()
                    .zip(&v.members)
                    .filter(|(_, m)| {
                        m.iter()
                            .any(|&i| v.cases[i].readings.iter().any(|r| r == one))
                    })
                    .map(|(g, _)| g.name.as_str())
                    .collect();
                let own = v
                    .task
                    .groups
                    .iter()
                    .find(|g| g.readings == [one])
                    .expect("own");
                assert!(expected.contains(&own.name.as_str()), "{at} {one}");
                assert!(expected.contains(&v.task.groups.last().expect("a group").name.as_str()));
                assert_eq!(failed, expected, "{at} {one}");
                for g in v.task.groups.iter().filter(|g| g.exclusive) {
                    let fails = failed.contains(&g.name.as_str());
                    assert_eq!(fails, g.readings == [one], "{at} {one}: {}", g.name);
                }
            }
        }
        baked_somewhere.extend(readings.iter().copied());
    }
    for set in ["rulebooks/paie-fr/v2026", "rulebooks/succession-fr/v2026"] {
        for name in rulebook(set).ablation_names() {
            assert!(
                baked_somewhere.contains(&name),
                "{set} {name}: in no seeded candidate"
            );
        }
    }
}

/// A group's `readings` must be readings the reference declares, and must
/// select a hidden case: a reading no hidden case tells apart could never
/// fail its group.
#[test]
fn groups_by_reading_are_checked() {
    let path = root().join("rulebooks/paie-fr/repair-1.toml");
    let text = std::fs::read_to_string(&path).expect("read");
    let rb = rulebook("rulebooks/paie-fr/v2026");
    let unknown = text.replace(
        "readings = [\"unprorated_ceiling\"]",
        "readings = [\"unprorated_floor\"]",
    );
    assert_ne!(unknown, text);
    let err = bareme::unstable::repair::parse_repair("repair-1.toml", &unknown, &rb).unwrap_err();
    assert_eq!(err.problems.len(), 1);
    assert_eq!(err.problems[0].code, "repair::group");
    assert!(
        err.problems[0].message.contains("unprorated_floor"),
        "{}",
        err.problems[0].message
    );
    let loose = text.replace(
        "[groups.every_payslip]\n",
        "[groups.every_payslip]\nexclusive = true\n",
    );
    assert_ne!(loose, text);
    let err = bareme::unstable::repair::parse_repair("repair-1.toml", &loose, &rb).unwrap_err();
    assert_eq!(err.problems[0].code, "repair::group");
    assert!(
        err.problems[0]
            .message
            .contains("`exclusive` goes with `readings`"),
        "{}",
        err.problems[0].message
    );
    // Exclusive groups keep what a repair fixed: the overtime cap alone left
    // fails its group and the group of every payslip, 4 of 6 right, 0.45 ×
    // 4/6 = 0.3.
    let (task, reference) = load_repair(&path, None).expect("load");
    let v = Verifier::new(task, reference.clone()).expect("verifier");
    let reference_text =
        std::fs::read_to_string(root().join("rulebooks/paie-fr/v2026/rulebook.toml"))
            .expect("read");
    let one = bake_text("rulebook.toml", &reference_text, &["ignore_overtime_cap"]).expect("bake");
    let verdict = v.verify_rulebook(&one.rulebook);
    assert_eq!(verdict.reward, Decimal::new(3, 1));
    let failed: Vec<&str> = (verdict.groups.iter().filter(|(_, ok)| !**ok))
        .map(|(g, _)| g.as_str())
        .collect();
    assert_eq!(failed, ["overtime_cap", "every_payslip"]);
    // Two hidden payslips (levels 1 and 4): the first group's reading, the
    // premium hourly rate rounded, changes neither.
    let few = text.replace("count = 146", "count = 2");
    let mut task =
        bareme::unstable::repair::parse_repair("repair-1.toml", &few, &rb).expect("parse");
    task.hidden.generator = root().join("rulebooks/paie-fr/generator-1.toml");
    let err = Verifier::new(task, rb).unwrap_err();
    assert_eq!(err.code(), "repair::empty_group");
    assert!(err.to_string().contains("`overtime_rate`"), "{err}");
}
