//! The succession-fr and paie-fr sets as seeds 002 and 000 draw them
//! (issue 25, items 5 and 6): at succession levels 3–4 the 790 G age trap
//! is a minority and level 4 has four beneficiaries on average, measured on
//! 400 tasks at two seeds; the "prior 790 G gifts recalled" misreading is
//! declared and detected; the prompt says what the rubric does with fences
//! and padded amounts, and the rubric does it; "né"/"née" agree with the
//! person. paie-fr's level 1 states only the rules it needs, and counts
//! agree ("aucun salarié", "1 salarié"). No Luma prompt nests a title in
//! itself. Every task's expected answer is the reference's evaluation of its
//! case and its reference reply scores the rubric's maximum.

use std::process::Command;

use bareme::unstable::coverage::Task;
use bareme::unstable::generate::parse_generator;
use bareme::unstable::score::{load_rubric, Scorer};
use bareme::{evaluate_value, Outcome, Rulebook};
use rust_decimal::Decimal;
use serde_json::Value as Json;

use super::{root, rulebook};

const SUCCESSION: &str = "rulebooks/succession-fr/generator-1.toml";
const PAIE: &str = "rulebooks/paie-fr/generator-1.toml";

/// `bareme generate REL -n N --seed S`, as task lines.
fn generate(rel: &str, n: u64, seed: u64) -> Vec<Task> {
    let out = Command::new(env!("CARGO_BIN_EXE_bareme"))
        .current_dir(root())
        .args([
            "generate",
            rel,
            "-n",
            &n.to_string(),
            "--seed",
            &seed.to_string(),
        ])
        .output()
        .expect("bareme runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .map(|l| Task::from_json(l).expect("a task line"))
        .collect()
}

fn scorer(rel: &str) -> Scorer {
    match load_rubric(&root().join(rel), None) {
        Ok((r, _)) => Scorer::new(r, false),
        Err(e) => panic!("{e:?}"),
    }
}

fn tagged(t: &Task, tag: &str) -> bool {
    t.tags
        .as_ref()
        .is_some_and(|tags| tags.iter().any(|x| x == tag))
}

fn prompt(t: &Task) -> &str {
    t.prompt.as_deref().unwrap_or("")
}

/// Every expected answer is the reference's, and the reference reply scores 1.
fn references_hold(tasks: &[Task], rb: &Rulebook, rubric: &Scorer) {
    for t in tasks {
        match evaluate_value(rb, &t.case, false) {
            Ok((Outcome::Answer(a), _)) => assert_eq!(a.to_json(), t.expected, "{}", t.id),
            other => panic!("{}: {other:?}", t.id),
        }
        let reply = rubric.reference_reply(&t.expected);
        let graded = rubric.score(t, &reply, None).expect("scored");
        assert_eq!(
            graded.score,
            Decimal::ONE,
            "{}: {:?}",
            t.id,
            graded.components
        );
    }
}

/// Whether the ablation moves the task's answer away from its expected one.
fn changes(rb: &Rulebook, ablation: &str, t: &Task) -> bool {
    let ablated = rb.ablated(ablation).expect("the ablation is declared");
    match evaluate_value(&ablated, &t.case, false) {
        Ok((Outcome::Answer(a), _)) => a.to_json() != t.expected,
        _ => true,
    }
}

#[test]
fn succession_levels_3_and_4_hold_the_seeds_proportions_at_two_seeds() {
    let rb = rulebook("rulebooks/succession-fr/v2026");
    let rubric = scorer("rulebooks/succession-fr/rubric-1.toml");
    for seed in [2026, 7] {
        let tasks = generate(SUCCESSION, 400, seed);
        assert_eq!(tasks.len(), 400);
        let upper: Vec<&Task> = tasks.iter().filter(|t| t.level >= Some(3)).collect();
        assert_eq!(upper.len(), 200, "seed {seed}");
        // Applying 790 G despite the age conditions stays right on most tasks
        // (seed: 87-90 %); the trap is there, a minority. Before: 64 %.
        let traps = upper
            .iter()
            .filter(|t| tagged(t, "ablation:ignore_790g_age_conditions"))
            .count();
        assert!(
            (12..=32).contains(&traps),
            "seed {seed}: {traps} of 200 age traps"
        );
        // Both kinds of trap are drawn: a donor of 80 or more, a minor donee.
        let age = |b: &str, d: &str| -> i64 {
            let p = |s: &str, a: usize, z: usize| s[a..z].parse::<i64>().unwrap_or(0);
            let (by, bm, bd) = (p(b, 0, 4), p(b, 5, 7), p(b, 8, 10));
            let (y, m, dd) = (p(d, 0, 4), p(d, 5, 7), p(d, 8, 10));
            y - by - i64::from((m, dd) < (bm, bd))
        };
        let (mut old_donor, mut minor) = (0, 0);
        for t in upper
            .iter()
            .filter(|t| tagged(t, "ablation:ignore_790g_age_conditions"))
        {
            let act = t.case["act_date"].as_str().unwrap_or("");
            if age(t.case["person"]["birth_date"].as_str().unwrap_or(""), act) >= 80 {
                old_donor += 1;
            }
            let beneficiaries = t.case["beneficiaries"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            if beneficiaries
                .iter()
                .any(|b| age(b["birth_date"].as_str().unwrap_or(""), act) < 18)
            {
                minor += 1;
            }
        }
        assert!(
            old_donor > 0 && minor > 0,
            "seed {seed}: {old_donor} old donors, {minor} minors"
        );
        // Four beneficiaries on average at level 4 (seed: 4.0).
        let level_4: Vec<usize> = tasks
            .iter()
            .filter(|t| t.level == Some(4))
            .map(|t| t.case["beneficiaries"].as_array().map_or(0, Vec::len))
            .collect();
        let total: usize = level_4.iter().sum();
        assert!(
            (380..=420).contains(&total),
            "seed {seed}: mean {} beneficiaries at level 4",
            total as f64 / 100.0
        );
        // The misreading "prior 790 G gifts recalled" is detected by tasks of
        // both levels, and tagged exactly where it moves the answer.
        for level in [3, 4] {
            let n = tasks
                .iter()
                .filter(|t| t.level == Some(level) && tagged(t, "ablation:recall_prior_790g"))
                .count();
            assert!(n >= 10, "seed {seed}: level {level}: {n} tasks detect it");
        }
        for t in &upper {
            for name in ["recall_prior_790g", "ignore_790g_age_conditions"] {
                let tag = format!("ablation:{name}");
                assert_eq!(tagged(t, &tag), changes(&rb, name, t), "{}: {name}", t.id);
            }
        }
        references_hold(&tasks, &rb, &rubric);
    }
}

/// The two new readings, by hand: a donee of 17 gets no 790 G exemption, and
/// a 790 G gift of 20,000 € made in 2020 only lowers the ceiling.
/// The seed's opening: levels 1, 4, 2, 3, 3, 4, 2, 1 and the six calibration
/// variants, whatever the seed; a single-level run (`--level`) has none.
#[test]
fn succession_opens_with_the_seeds_first_eight_tasks() {
    let want = [
        ("succession-1-0", "l1_estate_only_child"),
        ("succession-4-1", "l4_usufruct_representation"),
        ("succession-2-2", "l2_spouse_2_children"),
        ("succession-3-3", "l3_gift_790g_2_children"),
        ("succession-3-4", "l3_estate_representation"),
        ("succession-4-5", "l4_bare_gift_3_donees"),
        ("succession-2-6", "l2_2_siblings_1_legatee"),
        ("succession-1-7", "l1_gift_child"),
    ];
    for seed in [2026, 0] {
        let tasks = generate(SUCCESSION, 12, seed);
        for (t, (id, branch)) in tasks.iter().zip(want) {
            assert_eq!((t.id.as_str(), t.branch.as_deref()), (id, Some(branch)));
        }
        // The cycle resumes: task 8 is level 1, task 11 level 3.
        assert_eq!(tasks[8].level, Some(1));
        assert_eq!(tasks[11].level, Some(3));
        // Gifts of levels 3-4 work the recall and 790 G example, its figures
        // the reference's (hand: 240,000 − 21,865 = 218,135; 20 % of it
        // 43,627); estates work a recall without 790 G (hand: the allowance
        // used up, T = 30,000; 300,000 from 30,000 to 330,000 lies wholly in
        // the 20 % band: 60,000).
        let gift = prompt(&tasks[3]).replace('\u{202f}', " ");
        assert!(
            gift.contains("arrondi(240 000 − 21 865 − 0) = 218 135 € ; droits"),
            "{gift}"
        );
        assert!(gift.contains("− barème(30 000)) = 43 627 €."), "{gift}");
        let estate = prompt(&tasks[4]).replace('\u{202f}', " ");
        assert!(
            estate.contains("− barème(30 000)) = 60 000 €, tout entier dans la tranche à 20 %."),
            "{estate}"
        );
        assert!(!estate.contains("21 865"), "{estate}");
        // Every prompt states the seed's simplifications; estates their own.
        assert!(estate.contains("jamais à recalculer (ni réserve héréditaire"));
        assert!(!gift.contains("jamais à recalculer"));
        assert!(gift.contains("ne bénéficie qu'aux enfants et petits-enfants"));
        assert!(prompt(&tasks[0]).contains("abrogée en 2017"));
        // The level-4 estate holds 8 beneficiaries, as the seed's does.
        assert_eq!(
            tasks[1].case["beneficiaries"].as_array().map(Vec::len),
            Some(8)
        );
    }
    let out = Command::new(env!("CARGO_BIN_EXE_bareme"))
        .current_dir(root())
        .args(["generate", SUCCESSION, "-n", "8", "--level", "3"])
        .output()
        .expect("bareme runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), 8);
    assert!(
        text.lines()
            .all(|l| l.starts_with("{\"id\":\"succession-3-")),
        "{text}"
    );
    // An opening naming no drawn profile is refused where it is written.
    let rb = rulebook("rulebooks/succession-fr/v2026");
    let source = std::fs::read_to_string(root().join(SUCCESSION)).expect("file");
    for bad in ["\"l9_nothing\"", "\"base\""] {
        let text = source.replacen("\"l1_gift_child\"]", &format!("{bad}]"), 1);
        let Err(d) = parse_generator("g.toml", &text, &rb) else {
            panic!("an opening naming {bad} loads")
        };
        let shown = d.render(100, false);
        assert!(
            shown.contains("generate::opening") && shown.contains("the opening names"),
            "{shown}"
        );
    }
}

#[test]
fn succession_declares_the_age_and_recall_misreadings() {
    let rb = rulebook("rulebooks/succession-fr/v2026");
    let case: Json = serde_json::from_str(
        r#"{"kind": "gift", "act_date": "2026-05-20",
            "person": {"name": "Marc Petit", "birth_date": "1960-01-10"},
            "beneficiaries": [
              {"id": "B1", "name": "Luc Petit", "relationship": "child", "birth_date": "1990-02-14"},
              {"id": "B2", "name": "Zoé Petit", "relationship": "grandchild", "birth_date": "2009-03-01"}],
            "gifts": [
              {"beneficiary": "B1", "label": "Virement", "value": 150000, "fraction": "1", "cash": true},
              {"beneficiary": "B2", "label": "Virement", "value": 80000, "fraction": "1", "cash": true}],
            "prior_gifts": [{"beneficiary": "B1", "date": "2020-01-10", "value": 20000, "cash_790g": true}]}"#,
    )
    .expect("JSON");
    let answer = |rb: &Rulebook| match evaluate_value(rb, &case, false) {
        Ok((Outcome::Answer(a), _)) => a.to_json(),
        other => panic!("{other:?}"),
    };
    // B1: 150,000 − E (31,865 − 20,000 = 11,865) − 100,000 = 38,135;
    // tax 1,380.75 + 20 % × (38,135 − 15,932) = 5,821.35 → 5,821.
    // B2 (17): no E; 80,000 − 31,865 = 48,135; 1,380.75 + 20 % × 32,203 = 7,821.35 → 7,821.
    let right = answer(&rb);
    assert_eq!(right["beneficiaires"]["B1"]["part_taxable"], 38135);
    assert_eq!(right["beneficiaires"]["B1"]["droits"], 5821);
    assert_eq!(right["beneficiaires"]["B2"]["part_taxable"], 48135);
    assert_eq!(right["beneficiaires"]["B2"]["droits"], 7821);
    // Recalling the 790 G gift: S = 20,000 uses the allowance, 80,000 left:
    // 150,000 − 11,865 − 80,000 = 58,135.
    let recalled = answer(&rb.ablated("recall_prior_790g").expect("declared"));
    assert_eq!(recalled["beneficiaires"]["B1"]["part_taxable"], 58135);
    assert_eq!(
        recalled["beneficiaires"]["B2"],
        right["beneficiaires"]["B2"]
    );
    // Ignoring the ages: the 17-year-old gets E = 31,865 too: 80,000 − 31,865 − 31,865.
    let ageless = answer(&rb.ablated("ignore_790g_age_conditions").expect("declared"));
    assert_eq!(ageless["beneficiaires"]["B2"]["part_taxable"], 16270);
    assert_eq!(ageless["beneficiaires"]["B1"], right["beneficiaires"]["B1"]);
}

#[test]
fn succession_prompts_state_the_fence_and_amount_rules_the_rubric_applies() {
    let tasks = generate(SUCCESSION, 8, 2026);
    let rubric = scorer("rulebooks/succession-fr/rubric-1.toml");
    for t in &tasks {
        let p = prompt(t);
        assert!(p.contains("sans bloc de code"), "{}", t.id);
        assert!(p.contains("entouré de ``` vaut 0"), "{}", t.id);
        assert!(
            p.contains("41169.00") && p.contains("41169.000"),
            "{}",
            t.id
        );
        let json = serde_json::to_string(&t.expected).expect("JSON");
        let score = |reply: String| rubric.score(t, &reply, None).expect("scored").score;
        // What the prompt says: fenced → 0; ".00" right; three decimals → 0.
        assert_eq!(score(format!("<droits>{json}</droits>")), Decimal::ONE);
        assert_eq!(
            score(format!("<droits>\n```json\n{json}\n```\n</droits>")),
            Decimal::ZERO
        );
        assert_eq!(
            score(format!("<droits>{}</droits>", pad(&json, ".00"))),
            Decimal::ONE,
            "{}",
            t.id
        );
        assert_eq!(
            score(format!("<droits>{}</droits>", pad(&json, ".000"))),
            Decimal::ZERO,
            "{}",
            t.id
        );
    }
}

/// Writes every JSON number of `json` (whole numbers here) with `places` after it.
fn pad(json: &str, places: &str) -> String {
    let (mut out, mut in_string, mut in_number) = (String::new(), false, false);
    for c in json.chars() {
        if in_number && !c.is_ascii_digit() {
            out.push_str(places);
            in_number = false;
        }
        if c == '"' {
            in_string = !in_string;
        } else if !in_string && c.is_ascii_digit() {
            in_number = true;
        }
        out.push(c);
    }
    out
}

#[test]
fn succession_prompts_agree_born_with_the_person() {
    let tasks = generate(SUCCESSION, 400, 2026);
    let (mut feminine, mut masculine, mut epicene) = (0, 0, 0);
    for t in &tasks {
        let p = prompt(t);
        for b in t.case["beneficiaries"].as_array().into_iter().flatten() {
            let name = b["name"].as_str().unwrap_or("");
            let line = p
                .lines()
                .find(|l| l.starts_with(&format!("- {} : {name},", b["id"].as_str().unwrap_or(""))))
                .unwrap_or_else(|| panic!("{}: {name} listed", t.id));
            let first = name.split(' ').next().unwrap_or("");
            let form = match first {
                "Jeanne" | "Claire" | "Sophie" | "Zoé" | "Élodie" | "Hélène" => {
                    feminine += 1;
                    " née le "
                }
                "Luc" | "Paul" | "Marc" | "Noé" | "Hugo" | "Gérard" => {
                    masculine += 1;
                    " né le "
                }
                "Camille" | "Claude" => {
                    epicene += 1;
                    " né(e) le "
                }
                _ => continue,
            };
            assert!(line.contains(form), "{}: {line}", t.id);
        }
        let person = t.case["person"]["name"].as_str().unwrap_or("");
        if person.starts_with("Jeanne ") {
            let estate = t.case["kind"] == "estate";
            let head = if estate {
                "Défunte : Jeanne"
            } else {
                "Donatrice : Jeanne"
            };
            assert!(p.contains(head) && p.contains(", née le "), "{}", t.id);
        }
        if person.starts_with("Marc ") && t.case["kind"] == "gift" {
            assert!(
                p.contains("Donateur : Marc") && !p.contains("ou donatrice"),
                "{}",
                t.id
            );
        }
    }
    assert!(
        feminine > 50 && masculine > 50 && epicene > 0,
        "{feminine} {masculine} {epicene}"
    );
}

#[test]
fn paie_fr_level_1_is_reduced_and_counts_agree() {
    let rb = rulebook("rulebooks/paie-fr/v2026");
    let rubric = scorer("rulebooks/paie-fr/rubric-1.toml");
    let tasks = generate(PAIE, 400, 2026);
    let pmss: Decimal = "4005.00".parse().expect("decimal");
    let mut level_1_chars = 0;
    let mut heads = [false; 3];
    for t in &tasks {
        let p = prompt(t);
        if t.level == Some(1) {
            level_1_chars += p.chars().count();
            // Only the rules it needs: no overtime, health, meal vouchers, T2.
            for absent in [
                "Heures supplémentaires :",
                "Complémentaire santé :",
                "Titres-restaurant :",
                "Tranche 2",
            ] {
                assert!(!p.contains(absent), "{}: {absent}", t.id);
            }
            // The prompt says the gross stays below the ceiling: it does.
            let brut: Decimal = t.expected["brut"]
                .as_str()
                .and_then(|s| s.parse().ok())
                .expect("brut");
            assert!(brut <= pmss, "{}: {brut}", t.id);
        }
        let n = t.case["headcount"].as_i64().expect("headcount");
        let line = match n {
            0 => "Effectif de l'entreprise : aucun salarié\n".to_string(),
            1 => "Effectif de l'entreprise : 1 salarié\n".to_string(),
            _ => format!("Effectif de l'entreprise : {n} salariés\n"),
        };
        heads[n.clamp(0, 2) as usize] = true;
        assert!(p.contains(&line), "{}: {line}", t.id);
        assert!(
            !p.contains(" 1 salariés") && !p.contains(" 0 salarié"),
            "{}",
            t.id
        );
        if let Some(k) = t.case["meal_vouchers"]["count"].as_i64() {
            let unit = if k == 1 { "titre" } else { "titres" };
            assert!(
                p.contains(&format!("Titres-restaurant : {k} {unit} d'une")),
                "{}",
                t.id
            );
        }
    }
    assert_eq!(heads, [true; 3], "0, 1 and several employees are drawn");
    // The seed's level 1 prompt is about 3.9k characters (before: 6.2k).
    let mean = level_1_chars / 100;
    assert!((3500..=4300).contains(&mean), "level 1: {mean} characters");
    references_hold(&tasks, &rb, &rubric);
}

#[test]
fn no_luma_prompt_nests_a_title_in_itself() {
    for rel in [
        "rulebooks/luma-payroll/generator-4.toml",
        "rulebooks/luma-payroll/generator-transfer-1.toml",
    ] {
        for t in generate(rel, 12, 2026) {
            let p = prompt(&t);
            assert!(
                p.contains("Reference schedule (fictional values), the default:"),
                "{rel}"
            );
            assert!(
                !p.contains("schedule (Reference schedule"),
                "{rel}: {}",
                t.id
            );
        }
    }
}

/// Levels 3 and 4 state what seed 002 says their rules give (its rule 7's
/// dated example of the recall boundary; the 790 G ages, the failure modes
/// it names: a donor of 80, a donee of 17) and what a level-4 gift and a
/// representative need (cash counted as the value received; no recall of
/// the parent's gifts); levels 1 and 2 state none of it. Each statement is
/// what the rulebook does, worked by hand.
#[test]
fn succession_prompts_of_levels_3_and_4_state_the_boundaries_of_their_rules() {
    let boundary = "pour un acte du 10 mars 2026, une donation du 10 mars 2011 ne l'est pas, \
                    une donation du 11 mars 2011 l'est)";
    let ages = "Les âges sont ceux du jour du don : un donateur qui a 80 ans ce jour-là n'y a \
                pas droit ; un bénéficiaire qui a 18 ans ce jour-là y a droit.";
    let bare = "multipliée par le pourcentage de nue-propriété quand le donateur s'en réserve \
                l'usufruit";
    let represents = "un petit-enfant qui représente son parent prédécédé ne reprend pas les \
                      donations faites à ce parent : seules celles qu'il a reçues lui-même sont \
                      rappelées";
    let tasks = generate(SUCCESSION, 40, 4099);
    let mut seen = std::collections::BTreeSet::new();
    for t in &tasks {
        let (p, level) = (prompt(t), t.level.unwrap_or(0));
        let gift = t.case["kind"] == "gift";
        seen.insert((level, gift));
        assert_eq!(p.contains(boundary), level >= 3, "{}", t.id);
        assert_eq!(p.contains(ages), level >= 3 && gift, "{}", t.id);
        assert_eq!(p.contains(bare), level == 4 && gift, "{}", t.id);
        assert_eq!(p.contains(represents), level >= 3 && !gift, "{}", t.id);
    }
    for kind in [(3, true), (3, false), (4, true), (4, false)] {
        assert!(seen.contains(&kind), "{kind:?} drawn");
    }
    let rb = rulebook("rulebooks/succession-fr/v2026");
    let answer = |case: serde_json::Value| match evaluate_value(&rb, &case, false) {
        Ok((Outcome::Answer(a), _)) => a.to_json()["beneficiaires"]["E1"].clone(),
        other => panic!("{other:?}"),
    };
    let gift = |donor: &str, donee: &str, gifts: serde_json::Value, prior: serde_json::Value| {
        serde_json::json!({"kind": "gift", "act_date": "2026-03-10",
            "person": {"name": "X", "birth_date": donor},
            "beneficiaries": [{"id": "E1", "name": "Y", "relationship": "child", "birth_date": donee}],
            "gifts": gifts, "prior_gifts": prior})
    };
    let cash = serde_json::json!([{"beneficiary": "E1", "label": "Somme", "value": 131865,
        "fraction": "1", "cash": true}]);
    // A donor 80 on the day: no exemption; 131 865 − 100 000 = 31 865
    // taxed 403.60 + 403.70 + 573.45 + 0.20 × 15 933 = 4 567.35 → 4 567.
    assert_eq!(
        answer(gift(
            "1946-03-10",
            "1990-01-01",
            cash.clone(),
            serde_json::json!([])
        )),
        serde_json::json!({"part_taxable": 31865, "droits": 4567})
    );
    // A donee 18 on the day: 131 865 − 31 865 − 100 000 = 0.
    assert_eq!(
        answer(gift(
            "1950-01-01",
            "2008-03-10",
            cash,
            serde_json::json!([])
        )),
        serde_json::json!({"part_taxable": 0, "droits": 0})
    );
    // A house of 100 000 after a gift of 100 000: dated exactly 15 years
    // before, not recalled (taxable 0); a day later, recalled: U = 100 000,
    // T = 0, taxable 100 000, tax 1 380.75 + 0.20 × 84 068 = 18 194.35.
    let house = serde_json::json!([{"beneficiary": "E1", "label": "Maison", "value": 100000,
        "fraction": "1"}]);
    for (date, want) in [
        (
            "2011-03-10",
            serde_json::json!({"part_taxable": 0, "droits": 0}),
        ),
        (
            "2011-03-11",
            serde_json::json!({"part_taxable": 100000, "droits": 18194}),
        ),
    ] {
        let prior = serde_json::json!([{"beneficiary": "E1", "date": date, "value": 100000}]);
        assert_eq!(
            answer(gift("1950-01-01", "1980-01-01", house.clone(), prior)),
            want,
            "{date}"
        );
    }
}
