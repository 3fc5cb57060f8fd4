//! The bundled generators, run through the library: 40 to 80 tasks of a fixed
//! seed from each, checked against properties their specs require (every
//! level in the mix, ids, the reference answer of each case, no computed
//! amount in any prompt, the level-specific redraw rules, the features each
//! task must exercise), and the same lines from a run split into shards.
//! (`.ci/run` checks 400 of each, against the Python readings too.)

use bareme::unstable::coverage::{Coverage, Task as CoverageTask};
use bareme::unstable::generate::{
    load_generator, run, Generator, Manifest, RunOptions, TaskDrawer,
};
use bareme::{evaluate_value, Outcome, Rulebook};
use rust_decimal::Decimal;
use serde_json::Value as Json;

use super::root;

/// A bundled generator and its rulebook.
fn load(rel: &str) -> (Generator, Rulebook) {
    match load_generator(&root().join(rel), None) {
        Ok(pair) => pair,
        Err(bareme::unstable::generate::GeneratorError::Invalid(d)) => {
            panic!("{}", d.render(100, false))
        }
        Err(e) => panic!("{e}"),
    }
}

/// The lines of indices `start..start + count` of a run, and its manifest.
fn lines(
    g: &Generator,
    rb: &Rulebook,
    seed: u64,
    start: u64,
    count: u64,
    jobs: usize,
) -> (String, Manifest) {
    let engine = TaskDrawer::new(g, rb).expect("engine");
    let options = RunOptions {
        seed,
        start,
        count,
        level: None,
        jobs,
    };
    let mut out = Vec::new();
    let manifest = run(&engine, options, &mut out, &|_| {}).expect("run");
    (String::from_utf8(out).expect("UTF-8"), manifest)
}

/// `n` tasks of a generator with a seed, as JSON, and its rulebook.
fn generate(rel: &str, n: u64, seed: u64) -> (Vec<Json>, Rulebook) {
    let (generator, rb) = load(rel);
    let (out, manifest) = lines(&generator, &rb, seed, 0, n, 2);
    assert_eq!(manifest.tasks, n, "every index gives a task");
    let tasks = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    (tasks, rb)
}

/// The answer of a case, as `bareme eval` prints it.
fn answer(rb: &Rulebook, case: &Json) -> Json {
    match evaluate_value(rb, case, false) {
        Ok((Outcome::Answer(a), _)) => a.to_json(),
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

/// Whether `needle` stands in `text` as a whole number (not a part of a
/// longer number, `131.76` holding no `76`, nor of a name such as `L12`).
fn stands_in(text: &str, needle: &str) -> bool {
    text.match_indices(needle).any(|(at, _)| {
        let mut prior = text[..at].chars().rev();
        let (before, before2) = (prior.next(), prior.next());
        let mut after = text[at + needle.len()..].chars();
        let (next, next2) = (after.next(), after.next());
        let digit_before = before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            || (matches!(before, Some('.' | ',' | ' ' | '\u{a0}' | '\u{202f}'))
                && before2.is_some_and(|c| c.is_ascii_digit()));
        let digit_after = next.is_some_and(|c| c.is_ascii_digit())
            || (matches!(next, Some('.' | ',' | ' ' | '\u{a0}' | '\u{202f}'))
                && next2.is_some_and(|c| c.is_ascii_digit()));
        !digit_before && !digit_after
    })
}

/// Checks what every generated set shares: the mix, the ids (`prefix-level-i`,
/// or `prefix-i` with a single level), the answers, no computed amount in
/// its prompt (`copyable` fields excepted when the case holds their value).
fn common(
    tasks: &[Json],
    rb: &Rulebook,
    (prefix, mix): (&str, &[i64]),
    amounts: &[&str],
    copyable: &[&str],
) {
    for (i, t) in tasks.iter().enumerate() {
        let level = t["level"].as_i64().expect("level");
        assert_eq!(
            level,
            mix[i % mix.len()],
            "task {i} follows the mix {mix:?}"
        );
        assert_eq!(t["index"].as_u64(), Some(i as u64));
        let id = if mix.len() > 1 {
            format!("{prefix}-{level}-{i}")
        } else {
            format!("{prefix}-{i}")
        };
        assert_eq!(t["id"], id, "the id scheme");
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
                // A whole amount that the case holds as a number (a quantity
                // of 76 beside a tax of 76.00) is there in its own right:
                // only its spellings with decimals would be the answer's.
                let whole_in_case = d.fract().is_zero() && held.contains(&d);
                for s in spellings(d) {
                    if whole_in_case && !s.contains(['.', ',']) {
                        continue;
                    }
                    assert!(
                        !stands_in(prompt, &s),
                        "{}: {field} {d} appears in the prompt as `{s}`",
                        t["id"]
                    );
                }
            }
        }
    }
    for level in mix {
        assert!(
            tasks.iter().any(|t| t["level"] == *level),
            "level {level} is present"
        );
    }
}

fn changes(rb: &Rulebook, ablation: &str, case: &Json, expected: &Json) -> bool {
    let ablated = rb.ablated(ablation).expect("the ablation is declared");
    match evaluate_value(&ablated, case, false) {
        Ok((Outcome::Answer(a), _)) => a.to_json() != *expected,
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
    common(&tasks, &rb, ("paie", &[1, 4, 2, 3]), &six, &["brut"]);
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
    // The mix 1, 4, 2, 3, but the seed's opening swaps the levels of tasks 4 and 7.
    let levels: Vec<i64> = (0..40)
        .map(|i| match i {
            4 => 3,
            7 => 1,
            _ => [1, 4, 2, 3][i % 4],
        })
        .collect();
    common(
        &tasks,
        &rb,
        ("succession", &levels),
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

/// The feature each one-feature profile of sales-tax generator 1 aims at,
/// and the wrong reading of it that must change the answer.
const SALES_FEATURES: [(&str, &str); 4] = [
    ("billing_differs", "billing_jurisdiction"),
    ("half_cent_tie", "half_even"),
    ("exempt_line", "exemption_ignored"),
    ("repeated_product", "repeated_products_merged"),
];

#[test]
fn sales_tax_generator_1() {
    let (tasks, rb) = generate("rulebooks/sales-tax/generator-1.toml", 80, 2026);
    common(
        &tasks,
        &rb,
        ("sales", &[1]),
        &["net", "tax", "total", "subtotal"],
        &["net", "subtotal", "total"],
    );
    let dec = |v: &Json| decimal(v).unwrap_or_default();
    let mut branches = std::collections::BTreeMap::new();
    let mut tags = std::collections::BTreeSet::new();
    for t in &tasks {
        let (case, expected, id) = (&t["case"], &t["expected"], &t["id"]);
        let branch = t["branch"].as_str().unwrap_or("");
        *branches.entry(branch.to_string()).or_insert(0) += 1;
        let task_tags: Vec<&str> = t["tags"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Json::as_str)
            .collect();
        tags.extend(task_tags.iter().map(|s| s.to_string()));
        let prompt = t["prompt"].as_str().unwrap_or("");
        assert!(
            prompt.contains("R5. Each line's tax is rounded once, to the cent, half-up."),
            "{id}: the clauses"
        );
        assert!(
            prompt.contains(
                "- STATE_B: rate 0.0525; taxable: STANDARD; exempt: DIGITAL, GROCERY, MEDICAL"
            ),
            "{id}: the default table"
        );
        // The spec's ranges.
        let lines = case["cart"]["lines"].as_array().expect("lines");
        assert!((1..=24).contains(&lines.len()), "{id}: 1 to 24 lines");
        for line in lines {
            let q = line["quantity"].as_i64().expect("an integer quantity");
            assert!((1..=1000).contains(&q), "{id}: quantity {q}");
        }
        for (pid, p) in case["products"].as_object().expect("products") {
            let price = p["unit_price"].as_str().expect("a price string");
            let d = dec(&p["unit_price"]);
            assert!(
                d > Decimal::ZERO && d <= Decimal::from(1_000_000),
                "{id}: {pid} {price}"
            );
            assert!(
                price.split_once('.').is_none_or(|(_, f)| f.len() <= 2),
                "{id}: {price}"
            );
        }
        if let Some(rules) = case.get("rules").and_then(Json::as_object) {
            for (j, row) in rules {
                let rate = row["rate"].as_str().expect("a rate string");
                assert!(
                    rate.split_once('.').is_none_or(|(_, f)| f.len() <= 6),
                    "{id}: {j} {rate}"
                );
                assert!(dec(&row["rate"]) <= Decimal::ONE, "{id}: {j} {rate}");
            }
        }
        // Every task exercises a feature; a one-feature profile its own, and
        // the wrong reading of it changes the answer.
        assert!(
            SALES_FEATURES
                .iter()
                .any(|(f, _)| task_tags.contains(&format!("feature:{f}").as_str())),
            "{id}: no feature of the spec: {task_tags:?}"
        );
        assert!(
            SALES_FEATURES
                .iter()
                .any(|(_, a)| changes(&rb, a, case, expected)),
            "{id}: no feature's wrong reading changes the answer"
        );
        if let Some((feature, ablation)) = SALES_FEATURES.iter().find(|(f, _)| *f == branch) {
            assert!(changes(&rb, ablation, case, expected), "{id}: {ablation}");
            assert!(
                task_tags.contains(&format!("feature:{feature}").as_str()),
                "{id}: {task_tags:?}"
            );
        }
        // The watched readings are tagged exactly when they change the answer.
        for name in rb.ablation_names() {
            assert_eq!(
                task_tags.contains(&format!("ablation:{name}").as_str()),
                changes(&rb, name, case, expected),
                "{id}: {name}"
            );
        }
        if branch.contains("supplied") {
            assert!(case["rules"].is_object(), "{id}: a supplied table");
        }
        if branch == "half_cent_tie_supplied" {
            assert!(changes(&rb, "half_even", case, expected), "{id}: a tie");
            let rate = case["rules"]["STATE_A"]["rate"].as_str().unwrap_or("");
            assert_eq!(rate.len(), 8, "{id}: a six-decimal rate, {rate}");
        }
    }
    for branch in [
        "billing_differs",
        "half_cent_tie",
        "half_cent_tie_supplied",
        "exempt_line",
        "repeated_product",
        "supplied_rules",
        "full_cart",
    ] {
        assert!(
            branches.contains_key(branch),
            "branch {branch}: {branches:?}"
        );
    }
    for tag in [
        "feature:billing_differs",
        "feature:half_cent_tie",
        "feature:exempt_line",
        "feature:repeated_product",
        "rules:supplied",
        "zero_rate_line",
        "lines:24",
    ] {
        assert!(tags.contains(tag), "tag {tag}: {tags:?}");
    }

    // The set catches every wrong reading and every pair of them; without its
    // tasks that half-even changes, it misses that reading alone.
    let coverage = |keep: &dyn Fn(&Json) -> bool| {
        let mut c = Coverage::new(&rb, Some(2)).expect("ablations");
        for t in tasks.iter().filter(|t| keep(t)) {
            let task = CoverageTask::from_json(&t.to_string()).expect("a task line");
            c.add(&task).expect("its expected is the reference");
        }
        c.undetected()
            .map(|r| r.ablations.join(","))
            .collect::<Vec<_>>()
    };
    assert_eq!(coverage(&|_| true), Vec::<String>::new());
    let tagged = |t: &Json| {
        t["tags"]
            .as_array()
            .is_some_and(|a| a.contains(&Json::from("ablation:half_even")))
    };
    assert_eq!(coverage(&|t| !tagged(t)), ["half_even"]);
}

/// Two runs give the same bytes, whatever their threads, and a run split into
/// shards the full run's lines (Luma's generator has its own test).
#[test]
fn every_bundled_generator_repeats_its_lines_in_shards() {
    for (rel, n, cut) in [
        ("rulebooks/sales-tax/generator-1.toml", 40, 15),
        ("rulebooks/paie-fr/generator-1.toml", 24, 10),
        ("rulebooks/succession-fr/generator-1.toml", 24, 13),
    ] {
        let (g, rb) = load(rel);
        let (full, manifest) = lines(&g, &rb, 11, 0, n, 2);
        assert_eq!(full.lines().count() as u64, manifest.tasks, "{rel}");
        let (a, _) = lines(&g, &rb, 11, 0, cut, 1);
        let (b, _) = lines(&g, &rb, 11, cut, n - cut, 2);
        assert_eq!(
            full,
            format!("{a}{b}"),
            "{rel}: two shards write the full run's lines"
        );
    }
}

/// The rulebook beside a generator or rubric is `v<version>` of its
/// `rulebook = "id@version"`: a version that is not a whole number is
/// refused before any file is read (`1/../../secret` read and quoted a
/// file anywhere), and a file that is not TOML is named as such, where it
/// said it could not read a folder `v`.
#[test]
fn a_companion_names_its_rulebook_by_a_whole_version() {
    use super::cli::{bareme, tempdir};
    let dir = tempdir("companion-version");
    let set = dir.join("set/p");
    std::fs::create_dir_all(&set).expect("set");
    std::fs::write(dir.join("secret.txt"), "[rulebook]\nid = \"secret line\"\n").expect("secret");
    let generator = set.join("generator-1.toml");
    let rubric = set.join("rubric-1.toml");
    let path = |p: &std::path::Path| p.to_str().expect("utf-8").to_string();
    // A version written otherwise than the rulebook writes it (`p@01`
    // loaded `v1`, then failed its pin as another version).
    for pin in ["p@1/../../../secret.txt", "p@01", "p@+1", "p@0"] {
        std::fs::write(
            &generator,
            format!("[generator]\nrulebook = \"{pin}\"\nid = \"p-{{index}}\"\n"),
        )
        .expect("generator");
        std::fs::write(&rubric, format!("[rubric]\nrulebook = \"{pin}\"\n")).expect("rubric");
        let runs = [
            bareme(&["generate", &path(&generator), "-n", "1"], None),
            bareme(
                &[
                    "score",
                    &path(&rubric),
                    "--tasks",
                    "/dev/null",
                    "--replies",
                    "/dev/null",
                ],
                None,
            ),
        ];
        for o in &runs {
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(3), "{err}");
            assert!(err.contains("companion::rulebook"), "{err}");
            assert!(err.contains("names no version"), "{err}");
            assert!(!err.contains("secret line"), "{err}");
        }
    }
    std::fs::write(&generator, "garbage [[[\n").expect("generator");
    let o = bareme(&["generate", &path(&generator), "-n", "1"], None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("companion::toml"), "{err}");
    assert!(err.contains("generator-1.toml:1:9"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The rubric a generator names is read beside it against the same
/// rulebook: `rubric = 99` with no `rubric-99.toml` wrote 40 tasks naming
/// rubric 99 and exited 0, and so did a rubric grading another version.
#[test]
fn generate_refuses_a_rubric_it_cannot_name() {
    use super::cli::{bareme, tempdir};
    let dir = tempdir("named-rubric");
    let set = dir.join("sales-tax");
    std::fs::create_dir_all(&set).expect("set");
    let bundled = root().join("rulebooks/sales-tax");
    let generator = set.join("generator-1.toml");
    let text = std::fs::read_to_string(bundled.join("generator-1.toml")).expect("generator");
    let rubric = std::fs::read_to_string(bundled.join("rubric-1.toml")).expect("rubric");
    std::fs::write(set.join("rubric-1.toml"), &rubric).expect("rubric");
    let rulebook = bundled.join("v1");
    let generate = || {
        bareme(
            &[
                "generate",
                generator.to_str().expect("utf-8"),
                "-n",
                "2",
                "--rulebook",
                rulebook.to_str().expect("utf-8"),
            ],
            None,
        )
    };
    // As bundled: two tasks.
    std::fs::write(&generator, &text).expect("generator");
    let o = generate();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 2);
    // A rubric that is not there.
    std::fs::write(
        &generator,
        text.replacen("\nrubric = 1\n", "\nrubric = 99\n", 1),
    )
    .expect("generator");
    let o = generate();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("names rubric 99"), "{err}");
    assert!(err.contains("rubric-99.toml"), "{err}");
    assert!(o.stdout.is_empty());
    // A rubric grading another version.
    std::fs::write(&generator, &text).expect("generator");
    let other = rubric.replacen(
        "rulebook = \"sales-tax@1\"",
        "rulebook = \"sales-tax@2\"",
        1,
    );
    assert_ne!(other, rubric);
    std::fs::write(set.join("rubric-1.toml"), other).expect("rubric");
    let o = generate();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("score::rulebook_version"), "{err}");
    assert!(o.stdout.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}
