//! The bundled generators, run through the library: 40 tasks of a fixed seed
//! from each, checked against properties their specs require (every level
//! in the mix, ids, the reference answer of each case, no computed amount in
//! any prompt, the level-specific redraw rules).

use bareme::generate::{load_generator, run, Engine, RunOptions};
use bareme::{evaluate_json, Outcome, Rulebook};
use rust_decimal::Decimal;
use serde_json::Value as Json;

use super::root;

/// `n` tasks of a generator with a seed, as JSON, and its rulebook.
fn generate(rel: &str, n: u64, seed: u64) -> (Vec<Json>, Rulebook) {
    let (generator, rb) = match load_generator(&root().join(rel), None) {
        Ok(pair) => pair,
        Err(bareme::generate::GeneratorError::Invalid(d)) => panic!("{}", d.render(100, false)),
        Err(e) => panic!("{e}"),
    };
    let engine = Engine::new(&generator, &rb).expect("engine");
    let options = RunOptions {
        seed,
        start: 0,
        count: n,
        level: None,
        jobs: 2,
    };
    let mut out = Vec::new();
    let manifest = run(&engine, options, &mut out, &|_| {}).expect("run");
    assert_eq!(manifest.tasks, n, "every index gives a task");
    let tasks = String::from_utf8(out)
        .expect("UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    (tasks, rb)
}

/// The answer of a case, as `bareme eval` prints it.
fn answer(rb: &Rulebook, case: &Json) -> Json {
    match evaluate_json(rb, case, false) {
        Ok((Outcome::Answer(a), _)) => a,
        other => panic!("no answer for {case}: {other:?}"),
    }
}

/// Every decimal held under `key` anywhere in `json`.
fn amounts_under(json: &Json, key: &str, out: &mut Vec<Decimal>) {
    match json {
        Json::Object(map) => {
            for (k, v) in map {
                if k == key {
                    if let Some(d) = decimal(v) {
                        out.push(d);
                    }
                }
                amounts_under(v, key, out);
            }
        }
        Json::Array(items) => items.iter().for_each(|v| amounts_under(v, key, out)),
        _ => {}
    }
}

/// Every decimal anywhere in `json`.
fn all_amounts(json: &Json, out: &mut Vec<Decimal>) {
    match json {
        Json::Object(map) => map.values().for_each(|v| all_amounts(v, out)),
        Json::Array(items) => items.iter().for_each(|v| all_amounts(v, out)),
        v => out.extend(decimal(v)),
    }
}

fn decimal(v: &Json) -> Option<Decimal> {
    match v {
        Json::String(s) => s.parse().ok(),
        Json::Number(n) => n.to_string().parse().ok(),
        _ => None,
    }
}

/// How a reader writes an amount: `1234.5`, `1234,5`, `1,234.5`, `1 234,5`
/// (with a space, a no-break or a narrow no-break space).
fn spellings(d: Decimal) -> Vec<String> {
    let plain = d.normalize().to_string();
    let two = format!("{:.2}", d);
    let mut out = Vec::new();
    for text in [plain, two] {
        let (whole, fraction) = match text.split_once('.') {
            Some((w, f)) => (w.to_string(), Some(f.to_string())),
            None => (text.clone(), None),
        };
        let grouped = |sep: &str| {
            let mut g = String::new();
            for (i, c) in whole.chars().enumerate() {
                if i > 0 && (whole.len() - i) % 3 == 0 {
                    g.push_str(sep);
                }
                g.push(c);
            }
            g
        };
        for (sep, point) in [
            ("", "."),
            ("", ","),
            (",", "."),
            (" ", ","),
            ("\u{a0}", ","),
            ("\u{202f}", ","),
        ] {
            let mut s = grouped(sep);
            if let Some(f) = &fraction {
                s.push_str(point);
                s.push_str(f);
            }
            out.push(s);
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Whether `needle` stands in `text` as a whole number.
fn stands_in(text: &str, needle: &str) -> bool {
    text.match_indices(needle).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let mut after = text[at + needle.len()..].chars();
        let (next, next2) = (after.next(), after.next());
        let digit_before = before.is_some_and(|c| c.is_ascii_digit());
        let digit_after = next.is_some_and(|c| c.is_ascii_digit())
            || (matches!(next, Some('.' | ',' | ' ' | '\u{a0}' | '\u{202f}'))
                && next2.is_some_and(|c| c.is_ascii_digit()));
        !digit_before && !digit_after
    })
}

/// Checks what every generated set shares: the mix, the ids, the answers,
/// no computed amount in its prompt (`copyable` fields excepted when the
/// case holds their value).
fn common(tasks: &[Json], rb: &Rulebook, prefix: &str, amounts: &[&str], copyable: &[&str]) {
    let mix = [1, 4, 2, 3];
    for (i, t) in tasks.iter().enumerate() {
        let level = t["level"].as_i64().expect("level");
        assert_eq!(level, mix[i % 4], "task {i} follows the mix 1, 4, 2, 3");
        assert_eq!(t["index"].as_u64(), Some(i as u64));
        assert_eq!(t["id"], format!("{prefix}-{level}-{i}"), "the id scheme");
        assert_eq!(
            t["expected"],
            answer(rb, &t["case"]),
            "{}: expected",
            t["id"]
        );
        let prompt = t["prompt"].as_str().expect("prompt");
        let mut held = Vec::new();
        all_amounts(&t["case"], &mut held);
        for field in amounts {
            let mut values = Vec::new();
            amounts_under(&t["expected"], field, &mut values);
            for d in values {
                if d.is_zero() || (copyable.contains(field) && held.contains(&d)) {
                    continue;
                }
                for s in spellings(d) {
                    assert!(
                        !stands_in(prompt, &s),
                        "{}: {field} {d} appears in the prompt as `{s}`",
                        t["id"]
                    );
                }
            }
        }
    }
    for level in 1..=4 {
        assert!(
            tasks.iter().any(|t| t["level"] == level),
            "level {level} is present"
        );
    }
}

fn changes(rb: &Rulebook, ablation: &str, case: &Json, expected: &Json) -> bool {
    let ablated = rb.ablated(ablation).expect("the ablation is declared");
    match evaluate_json(&ablated, case, false) {
        Ok((Outcome::Answer(a), _)) => a != *expected,
        _ => true,
    }
}

#[test]
fn paie_fr_generator_1() {
    let (tasks, rb) = generate("rulebooks/paie-fr/generator-1.toml", 40, 2026);
    let six = [
        "brut",
        "total_cotisations_salariales",
        "net_imposable",
        "prelevement_source",
        "net_a_payer",
        "cout_employeur",
    ];
    common(&tasks, &rb, "paie", &six, &["brut"]);
    let dec = |v: &Json| decimal(v).unwrap_or_default();
    for t in &tasks {
        let (case, id) = (&t["case"], &t["id"]);
        let level = t["level"].as_i64().unwrap_or(0);
        let prompt = t["prompt"].as_str().unwrap_or("");
        assert_eq!(case["level"], level, "{id}: the case's level");
        assert!(prompt.contains("<bulletin>"), "{id}: the answer format");
        assert!(prompt.contains("Règles de calcul"), "{id}: French rules");
        assert!(
            prompt.contains("4\u{202f}005,00"),
            "{id}: the ceiling written as a French amount"
        );
        let ot = ["overtime_25_hours", "overtime_50_hours"];
        match level {
            1 => {
                assert_eq!(case["status"], "non_cadre", "{id}: level 1 is non-cadre");
                assert!(
                    dec(&t["expected"]["brut"]) <= Decimal::from(4005),
                    "{id}: level 1 is below the ceiling"
                );
                assert!(case.get("overtime_25_hours").is_none(), "{id}: no overtime");
                assert!(case.get("rgdu_coefficient").is_some(), "{id}: C given");
            }
            2 => assert!(case.get("rgdu_coefficient").is_some(), "{id}: C given"),
            3 => assert!(case.get("rgdu_coefficient").is_none(), "{id}: C computed"),
            _ => {
                assert!(
                    case.get("unpaid_absence_hours").is_none(),
                    "{id}: no absence"
                );
                assert!(
                    case.get("entry_date").is_none() || case.get("exit_date").is_none(),
                    "{id}: never an entry and an exit"
                );
                let overtime = ot.iter().any(|k| case.get(*k).is_some());
                if overtime {
                    assert!(
                        ot.iter().all(|k| case.get(*k).is_some()),
                        "{id}: both rates"
                    );
                    let month = case["month"].as_str().unwrap_or("");
                    assert!(month >= "2026-08", "{id}: overtime from August");
                    assert_eq!(case["contract_hours"], "151.67", "{id}: full time");
                    assert!(case.get("entry_date").is_none(), "{id}: never on entry");
                    assert!(case.get("overtime_exempt_ytd").is_some(), "{id}: ytd");
                }
                for key in ["entry_date", "exit_date"] {
                    if let Some(day) = case.get(key).and_then(Json::as_str) {
                        assert!(!day.ends_with("-01"), "{id}: {key} mid-month");
                    }
                }
            }
        }
        // The watched readings are tagged exactly when they change the answer.
        for tag in t["tags"].as_array().into_iter().flatten() {
            if let Some(name) = tag.as_str().and_then(|s| s.strip_prefix("ablation:")) {
                assert!(changes(&rb, name, case, &t["expected"]), "{id}: {name}");
            }
        }
    }
}

#[test]
fn succession_fr_generator_1() {
    let (tasks, rb) = generate("rulebooks/succession-fr/generator-1.toml", 40, 2026);
    common(
        &tasks,
        &rb,
        "succession",
        &["part_taxable", "droits", "total_droits"],
        &[],
    );
    let level_3 = [
        "ignore_recall",
        "restart_scale_after_recall",
        "ignore_790g",
        "ignore_representation",
    ];
    for t in &tasks {
        let (case, expected, id) = (&t["case"], &t["expected"], &t["id"]);
        let level = t["level"].as_i64().unwrap_or(0);
        let prompt = t["prompt"].as_str().unwrap_or("");
        assert!(prompt.contains("<droits>"), "{id}: the answer format");
        assert!(prompt.contains("Abattements"), "{id}: French rules");
        assert!(
            expected["total_droits"].as_i64().unwrap_or(0) > 0,
            "{id}: someone owes tax"
        );
        // Fewer than two taxable beneficiaries owing tax while two or more are taxable: redrawn.
        let estate = case["kind"] == "estate";
        let beneficiaries = case["beneficiaries"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let taxable: Vec<&Json> = beneficiaries
            .iter()
            .filter(|b| {
                !(estate && (b["relationship"] == "spouse" || b["relationship"] == "pacs_partner"))
            })
            .collect();
        let owing = taxable
            .iter()
            .filter(|b| {
                let bid = b["id"].as_str().unwrap_or("");
                expected["beneficiaires"][bid]["droits"]
                    .as_i64()
                    .unwrap_or(0)
                    > 0
            })
            .count();
        assert!(
            taxable.len() < 2 || owing >= 2,
            "{id}: at least two owe tax"
        );
        let n = beneficiaries.len();
        match level {
            1 => {
                assert_eq!(n, 1, "{id}: one beneficiary");
                assert_eq!(beneficiaries[0]["relationship"], "child", "{id}: a child");
            }
            2 => {
                assert!(estate, "{id}: level 2 is an estate");
                assert!((3..=7).contains(&n), "{id}: 3 to 7 beneficiaries");
            }
            3 => assert!(
                level_3.iter().any(|a| changes(&rb, a, case, expected)),
                "{id}: a level-3 rule changes the answer"
            ),
            _ => {
                assert!(
                    changes(&rb, "full_ownership_instead_of_bare", case, expected),
                    "{id}: split ownership changes the answer"
                );
                assert!(
                    level_3.iter().any(|a| changes(&rb, a, case, expected)),
                    "{id}: a level-3 rule changes the answer too"
                );
            }
        }
        if estate {
            assert_eq!(
                bareme_sum(&case["residue_shares"]),
                (1, 1),
                "{id}: the residue shares add up to 1"
            );
        }
    }
}

/// The sum of a map of fractions `"a/b"` (or `"1"`), reduced.
fn bareme_sum(shares: &Json) -> (i64, i64) {
    let gcd = |mut a: i64, mut b: i64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a.abs()
    };
    let (mut n, mut d) = (0i64, 1i64);
    for v in shares.as_object().into_iter().flat_map(|m| m.values()) {
        let s = v.as_str().unwrap_or("0");
        let (a, b) = s
            .split_once('/')
            .map_or((s.parse().unwrap_or(0), 1), |(a, b)| {
                (a.parse().unwrap_or(0), b.parse().unwrap_or(1))
            });
        (n, d) = (n * b + a * d, d * b);
        let g = gcd(n, d).max(1);
        (n, d) = (n / g, d / g);
    }
    (n, d)
}
