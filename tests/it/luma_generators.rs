//! The Luma generators as seed 004 builds them: generator 4's trap reasons
//! balanced within a set (a stratified pick), its complete payslips with a
//! matching contract, the citation rules and the demonstration mode in its
//! prompts; the transfer set's inbox messages, two-problem records decided
//! by R7's order, one-cent-off amendments and the exception account's
//! schedule. Every task's expected answer is `bareme eval` of its case, and
//! the reference reply scores 1.0 under rubric 8.

use std::collections::BTreeMap;
use std::process::Command;

use bareme::unstable::coverage::Task;
use bareme::unstable::generate::{load_generator, parse_generator, Generator, TaskDrawer};
use bareme::unstable::score::{load_rubric, Scorer};
use bareme::{evaluate_value, Outcome, Rulebook};
use rust_decimal::Decimal;
use serde_json::{json, Value as Json};

use super::root;

const G4: &str = "rulebooks/luma-payroll/generator-4.toml";
const TRANSFER: &str = "rulebooks/luma-payroll/generator-transfer-1.toml";
const REASONS: [&str; 4] = [
    "MISSING_GROSS_PAY",
    "MISSING_PAYROLL_MONTH",
    "NO_APPLICABLE_REFERENCE",
    "CONFLICTING_GROSS_PAY",
];

fn load(rel: &str) -> (Generator, Rulebook) {
    match load_generator(&root().join(rel), None) {
        Ok(pair) => pair,
        Err(bareme::unstable::generate::GeneratorError::Invalid(d)) => {
            panic!("{}", d.render(100, false))
        }
        Err(e) => panic!("{e}"),
    }
}

/// `bareme generate REL -n N --seed S [args]`, as task lines (the command
/// line, so the set is the one a user writes).
fn generate(rel: &str, n: u64, seed: u64, args: &[&str]) -> Vec<Task> {
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
        .args(args)
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

fn dec(v: &Json) -> Decimal {
    v.as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not a decimal string: {v}"))
}

fn reasons(tasks: &[Task]) -> BTreeMap<String, u64> {
    let mut counts = BTreeMap::new();
    for t in tasks {
        if let Some(r) = t.expected.get("reason_code").and_then(Json::as_str) {
            *counts.entry(r.to_string()).or_default() += 1;
        }
    }
    counts
}

/// The reference's answer: what `bareme eval` prints for the case.
fn eval(rb: &Rulebook, case: &Json) -> Json {
    match evaluate_value(rb, case, false).expect("evaluates") {
        (Outcome::Answer(a), _) => a.to_json(),
        (Outcome::Rejected(e), _) => json!({"error": {"path": e.path, "message": e.message}}),
        (other, _) => panic!("an outcome this test does not know: {other:?}"),
    }
}

fn rubric_8() -> Scorer {
    let path = root().join("rulebooks/luma-payroll/rubric-8.toml");
    match load_rubric(&path, None) {
        Ok((r, _)) => Scorer::new(r, false),
        Err(e) => panic!("{e:?}"),
    }
}

/// Every task's expected answer is the reference's, and its reference
/// reply scores 1.0 under rubric 8: a clarification's carries an
/// explanation, which with no judge is reported ungraded (an empty one
/// would score 0 on explanation, 0.9 in all).
fn references_hold(tasks: &[Task], rb: &Rulebook) {
    let scorer = rubric_8();
    for t in tasks {
        assert_eq!(eval(rb, &t.case), t.expected, "{}", t.id);
        let reply = scorer.reference_reply(&t.expected);
        let graded = scorer.score(t, &reply, None).expect("scored");
        let clarify = t.expected["decision"] == "clarify";
        assert_eq!(
            graded.explanation_graded,
            clarify.then_some(false),
            "{}",
            t.id
        );
        assert_eq!(
            graded.score.normalize(),
            Decimal::ONE,
            "{}: {:?}",
            t.id,
            graded.components
        );
    }
}

/// Seeds no other test draws at: the issue's "held-back reading" of the
/// seed's generator, beside the seeds the generators were tuned at.
const HELD_BACK: [u64; 2] = [4099, 8191];

#[test]
fn generator_4_balances_trap_reasons_within_a_set_of_400() {
    for seed in [2026, 7].into_iter().chain(HELD_BACK) {
        let tasks = generate(G4, 400, seed, &[]);
        let counts = reasons(&tasks);
        assert_eq!(counts.len(), 4, "{counts:?}");
        let total: u64 = counts.values().sum();
        // Each within ±20% of the mean: 5 × count within [4, 6] × mean.
        for r in REASONS {
            let n = counts[r];
            assert!(
                5 * n * 4 >= 4 * total && 5 * n * 4 <= 6 * total,
                "seed {seed}: {r} {n} of {total}: {counts:?}"
            );
        }
        // The tier mix, our reading (the seed states none): per run of
        // 148, 72 payslips, 48 traps and 28 retrievals; within 8 tasks of
        // those shares of 400 (docs/generators.md).
        for (tier, weight) in [("payslip", 72i64), ("trap", 48), ("retrieval", 28)] {
            let n = tasks
                .iter()
                .filter(|t| t.tier.as_deref() == Some(tier))
                .count() as i64;
            assert!(
                (148 * n - 400 * weight).abs() <= 8 * 148,
                "seed {seed}: {n} {tier} tasks"
            );
        }
    }
}

#[test]
fn a_stratified_pick_deals_each_profile_its_weight_in_every_run() {
    // Generator 4's weights sum to 148: tasks 148..296 (the second run),
    // drawn alone, hold each profile exactly its weight's times.
    let (g, rb) = load(G4);
    let drawer = TaskDrawer::new(&g, &rb).expect("drawer");
    let mut branches: BTreeMap<String, u32> = BTreeMap::new();
    for index in 148..296 {
        let t = drawer.task(5, index, None).expect("task").task;
        *branches.entry(t.branch.expect("branch")).or_default() += 1;
    }
    let want: BTreeMap<String, u32> = [
        ("below_free", 9),
        ("middle_bracket", 9),
        ("upper_bracket", 9),
        ("above_cap", 9),
        ("on_cap", 9),
        ("on_upper_line", 5),
        ("on_free_line", 4),
        ("amendment_resolved", 9),
        ("contract_matches", 9),
        ("gross_absent", 6),
        ("gross_null", 6),
        ("month_absent", 6),
        ("month_null", 6),
        ("month_past_year", 6),
        ("month_next_year", 6),
        ("conflict_no_amendment", 3),
        ("conflict_draft_amendment", 3),
        ("conflict_future_amendment", 3),
        ("conflict_other_amount", 3),
        ("retrieval", 28),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(branches, want);
    // Another seed deals the same run in another order.
    let order = |seed| -> Vec<String> {
        (148..160)
            .map(|i| {
                drawer
                    .task(seed, i, None)
                    .expect("task")
                    .task
                    .branch
                    .expect("branch")
            })
            .collect()
    };
    assert_ne!(order(5), order(6));
}

#[test]
fn a_pick_or_name_the_loader_does_not_know_is_refused() {
    let rb = super::rulebook("rulebooks/luma-payroll/v3");
    let text = std::fs::read_to_string(root().join(G4)).expect("file");
    let bad = text.replace("pick = \"stratified\"", "pick = \"round-robin\"");
    let Err(d) = parse_generator("g.toml", &bad, &rb) else {
        panic!("an unknown pick loads")
    };
    assert!(d.render(100, false).contains("unknown pick `round-robin`"));
    let bad = text.replace("pick = \"stratified\"", "name = \"Transfer Set\"");
    let Err(d) = parse_generator("g.toml", &bad, &rb) else {
        panic!("a bad name loads")
    };
    assert!(d
        .render(100, false)
        .contains("generator name `Transfer Set`"));
    let bad = text.replace("demonstrations = false", "Demos = false");
    let Err(d) = parse_generator("g.toml", &bad, &rb) else {
        panic!("a bad option name loads")
    };
    assert!(d.render(100, false).contains("prompt option `Demos`"));
}

#[test]
fn generator_4_draws_complete_payslips_whose_contract_matches() {
    let (_, rb) = load(G4);
    for seed in [2026].into_iter().chain(HELD_BACK) {
        let tasks = generate(G4, 400, seed, &[]);
        let matching: Vec<&Task> = tasks
            .iter()
            .filter(|t| {
                t.expected["decision"] == "calculate"
                    && t.case.get("contract_gross_pay").is_some()
                    && dec(&t.case["contract_gross_pay"]) == dec(&t.case["gross_pay"])
            })
            .collect();
        assert!(
            matching.len() >= 10,
            "seed {seed}: {} matching contracts",
            matching.len()
        );
        for t in &matching {
            // No conflict: R9 is not cited, even beside an approved amendment.
            assert_eq!(
                t.expected["clauses"],
                json!(["R1", "R2", "R3", "R4", "R5", "R6"])
            );
        }
    }
    // The seed's record: gross 1170.19, month 2026-09, matching contract.
    // July to December: 0.04 × 1170.19 = 46.8076 → 46.81; taxable
    // 1170.19 − 46.81 = 1123.38; tax 0.08 × (1123.38 − 1100.00) = 1.8704
    // → 1.87; net 1123.38 − 1.87 = 1121.51.
    let case = json!({"task": "payslip", "gross_pay": "1170.19", "payroll_month": "2026-09",
        "contract_gross_pay": "1170.19"});
    assert_eq!(
        eval(&rb, &case),
        json!({"decision": "calculate", "currency": "LCR", "gross_pay": "1170.19",
            "employee_contribution": "46.81", "allowed_deduction": "0.00",
            "taxable_pay": "1123.38", "income_tax": "1.87", "net_pay": "1121.51",
            "clauses": ["R1", "R2", "R3", "R4", "R5", "R6"]})
    );
}

#[test]
fn luma_prompts_state_the_citation_rules_and_offer_the_demonstrations() {
    let plain = generate(G4, 6, 3, &[]);
    let shown = generate(G4, 6, 3, &["--option", "demonstrations"]);
    for (p, s) in plain.iter().zip(&shown) {
        let (p, s) = (p.prompt.as_deref().unwrap(), s.prompt.as_deref().unwrap());
        for rule in [
            "a payslip cites R1 to R6, and R9 too when an approved amendment resolved a conflict",
            "a retrieval cites R1 and the rule of the value (R3 for contribution_rate and \
             contribution_cap, R4 for deduction_cap), not R8",
            "or a month without a reference row cites R1 and R7; one for an unresolved contract \
             conflict cites R7 and R9",
        ] {
            assert!(p.contains(rule), "{rule}");
        }
        assert!(!p.contains("Worked examples"));
        assert!(s.contains("Worked examples"));
        // The six examples, each answered by the reference: the first
        // payslip by hand (January to June): 0.05 × 2450.00 = 122.50;
        // taxable 2450.00 − 122.50 − 120.00 = 2207.50; tax 0.10 ×
        // (2207.50 − 1000.00) = 120.75; net 2086.75.
        assert!(s.contains("6. A clarification: the contract conflict is not resolved"));
        assert!(s.contains(
            r#"{"decision":"calculate","currency":"LCR","gross_pay":"2450.00","employee_contribution":"122.50","allowed_deduction":"120.00","taxable_pay":"2207.50","income_tax":"120.75","net_pay":"2086.75","clauses":["R1","R2","R3","R4","R5","R6"]}"#
        ));
        assert!(s.contains(r#""clauses":["R1","R2","R3","R4","R5","R6","R9"]"#));
        for r in REASONS {
            assert!(s.contains(&format!(r#""reason_code":"{r}""#)), "{r}");
        }
        // A clarification's reply carries the example's explanation last.
        assert!(s.contains(
            r#"{"decision":"clarify","reason_code":"MISSING_PAYROLL_MONTH","clauses":["R1","R7"],"explanation":"The payroll month is missing, so no reference row can be chosen. Please provide the payroll month."}"#
        ));
    }
    // The cases are the same; only the prompt changes, and the line says
    // which switches were on.
    for (p, s) in plain.iter().zip(&shown) {
        assert_eq!(p.case, s.case);
        assert_eq!(p.expected, s.expected);
        assert_eq!(p.options, None);
        assert_eq!(
            s.options.as_deref(),
            Some(
                &[
                    ("demonstrations".to_string(), true),
                    ("documents".to_string(), false)
                ][..]
            )
        );
    }
    // An option the generator does not declare is refused.
    let (mut g, _) = load(G4);
    let err = g.set_option("hints", true).unwrap_err();
    assert_eq!(err.code(), "generate::unknown_option");
    assert!(err.to_string().contains("demonstrations"), "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_bareme"))
        .current_dir(root())
        .args([
            "generate",
            G4,
            "-n",
            "1",
            "--option",
            "demonstrations=maybe",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    // Given twice, one of the two is not silently dropped.
    let twice = [
        "--option",
        "demonstrations=true",
        "--option",
        "demonstrations=false",
    ];
    let out = Command::new(env!("CARGO_BIN_EXE_bareme"))
        .current_dir(root())
        .args([&["generate", G4, "-n", "1"][..], &twice[..]].concat())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--option demonstrations is given twice"),
        "{err}"
    );
}

/// The seed's tool mode (`--option documents`): the prompt leaves out the
/// record and the default schedule and says they come as documents; the
/// cases, answers and the rest of the prompt are the single-turn ones.
#[test]
fn luma_prompts_leave_the_record_out_as_documents() {
    let plain = generate(G4, 12, 3, &[]);
    let told = generate(G4, 12, 3, &["--option", "documents"]);
    for (p, t) in plain.iter().zip(&told) {
        assert_eq!((&p.case, &p.expected), (&t.case, &t.expected));
        let (p, t) = (p.prompt.as_deref().unwrap(), t.prompt.as_deref().unwrap());
        let (rules, record) = p
            .split_once("\n\nReference schedule")
            .expect("the default table");
        let record = &record[record.find("Record:\n").expect("the record")..];
        let (record, format) = record.split_once("\n\n").expect("the format follows");
        // The plain prompt, its record and default table replaced by one sentence.
        let rules = rules.replacen("to the record below:", "to the record:", 1);
        assert_eq!(
            t,
            format!(
                "{rules}\n\nThe record and the reference schedule it is read with are not \
                 shown here: they come as documents.\n\n{format}"
            ),
            "{record}"
        );
    }
    assert_eq!(
        told[0].options.as_deref(),
        Some(
            &[
                ("demonstrations".to_string(), false),
                ("documents".to_string(), true)
            ][..]
        )
    );
}

#[test]
fn every_generated_luma_task_is_the_reference_and_scores_one() {
    for (rel, args) in [
        (G4, &[][..]),
        (G4, &["--option", "demonstrations"][..]),
        (TRANSFER, &[][..]),
    ] {
        let (_, rb) = load(rel);
        let tasks = generate(rel, 400, 2026, args);
        assert!(tasks.len() >= 380, "{rel}: {}", tasks.len());
        references_hold(&tasks, &rb);
    }
}

/// The payslip of an exception-account record, computed apart from the
/// rulebook: the case's own row, half-up to the cent.
fn payslip(case: &Json) -> [Decimal; 4] {
    let month = case["payroll_month"].as_str().expect("month");
    let row = if month <= "2026-06" {
        &case["reference_tables"]["first-half"]
    } else {
        &case["reference_tables"]["second-half"]
    };
    let round = |d: Decimal| {
        d.round_dp_with_strategy(2, rust_decimal::RoundingStrategy::MidpointAwayFromZero)
    };
    let gross = dec(&case["gross_pay"]);
    let deduction = case.get("allowed_deduction").map_or(Decimal::ZERO, dec);
    let contribution = round(dec(&row["rate"]) * gross.min(dec(&row["cap"])));
    let taxable = gross - contribution - deduction;
    let (free, upper) = (dec(&row["free"]), dec(&row["upper"]));
    let middle = (taxable - free).max(Decimal::ZERO).min(upper - free);
    let above = (taxable - upper).max(Decimal::ZERO);
    let tax = round(dec(&row["middle_rate"]) * middle + dec(&row["upper_rate"]) * above);
    [contribution, taxable, tax, taxable - tax]
}

#[test]
fn the_transfer_set_holds_the_seeds_hard_cases() {
    let (g, rb) = load(TRANSFER);
    assert_eq!(g.name(), "luma-payroll/generator-transfer-1");
    for seed in [2026].into_iter().chain(HELD_BACK) {
        transfer_set_holds(&generate(TRANSFER, 400, seed, &[]), seed);
    }
    // The exception account, one of each by hand. Taxable pay on the
    // July-December line: 0.04 × 4054.49 = 162.1796 → 162.18; 4054.49 −
    // 162.18 − 92.31 = 3800.00; tax 0.08 × (3800.00 − 1100.00) = 216.00;
    // net 3584.00.
    let schedule = json!({
        "first-half": {"rate": "0.05", "cap": "4800.00", "deduction": "300.00", "free": "1000.00",
            "upper": "4230.00", "middle_rate": "0.10", "upper_rate": "0.22"},
        "second-half": {"rate": "0.04", "cap": "5000.00", "deduction": "350.00", "free": "1100.00",
            "upper": "3800.00", "middle_rate": "0.08", "upper_rate": "0.20"}});
    let case = json!({"task": "payslip", "payroll_month": "2026-08", "allowed_deduction": "92.31",
        "reference_tables": schedule, "gross_pay": "4054.49"});
    assert_eq!(
        eval(&rb, &case),
        json!({"decision": "calculate", "currency": "LCR", "gross_pay": "4054.49",
            "employee_contribution": "162.18", "allowed_deduction": "92.31",
            "taxable_pay": "3800.00", "income_tax": "216.00", "net_pay": "3584.00",
            "clauses": ["R1", "R2", "R3", "R4", "R5", "R6"]})
    );
    // Gross on the January-June cap: 0.05 × 4800.00 = 240.00; taxable
    // 4800.00 − 240.00 − 100.00 = 4460.00; tax 0.10 × 3230.00 + 0.22 ×
    // 230.00 = 323.00 + 50.60 = 373.60; net 4086.40. (On the default
    // schedule the line is 3300.00: tax 230.00 + 255.20 = 485.20.)
    let case = json!({"task": "payslip", "payroll_month": "2026-04", "allowed_deduction": "100.00",
        "reference_tables": schedule, "gross_pay": "4800.00"});
    assert_eq!(
        eval(&rb, &case),
        json!({"decision": "calculate", "currency": "LCR", "gross_pay": "4800.00",
            "employee_contribution": "240.00", "allowed_deduction": "100.00",
            "taxable_pay": "4460.00", "income_tax": "373.60", "net_pay": "4086.40",
            "clauses": ["R1", "R2", "R3", "R4", "R5", "R6"]})
    );
}

/// A transfer set of 400 holds each hard case of the seed, and each is
/// what it claims: two problems decided by R7's order, an approved
/// amendment one cent off, the exception account's schedule with gross
/// pay on the cap or taxable pay on the moved line.
fn transfer_set_holds(tasks: &[Task], seed: u64) {
    let of = |branch: &str| -> Vec<&Task> {
        tasks
            .iter()
            .filter(|t| t.branch.as_deref() == Some(branch))
            .collect()
    };
    let missing = |t: &Task, key: &str| t.case.get(key).is_none_or(Json::is_null);
    let conflict = |t: &Task| {
        t.case
            .get("contract_gross_pay")
            .is_some_and(|c| dec(c) != dec(&t.case["gross_pay"]))
    };

    // Two problems, the first in R7's order decides the reason.
    let two: Vec<&Task> = tasks
        .iter()
        .filter(|t| t.tags.iter().flatten().any(|g| g == "two_problems"))
        .collect();
    assert!(
        two.len() >= 30,
        "seed {seed}: {} two-problem traps",
        two.len()
    );
    for t in of("two_gross_and_year") {
        assert!(missing(t, "gross_pay"));
        assert!(t.case["payroll_month"]
            .as_str()
            .unwrap()
            .starts_with("2027-"));
        assert_eq!(
            t.expected,
            json!({"decision": "clarify",
            "reason_code": "MISSING_GROSS_PAY", "clauses": ["R1", "R7"]})
        );
    }
    for t in of("two_month_and_conflict") {
        assert!(missing(t, "payroll_month") && conflict(t), "{}", t.id);
        assert_eq!(
            t.expected,
            json!({"decision": "clarify",
            "reason_code": "MISSING_PAYROLL_MONTH", "clauses": ["R1", "R7"]})
        );
    }
    for t in of("two_year_and_conflict") {
        assert!(t.case["payroll_month"]
            .as_str()
            .unwrap()
            .starts_with("2025-"));
        assert!(conflict(t), "{}", t.id);
        assert_eq!(
            t.expected,
            json!({"decision": "clarify",
            "reason_code": "NO_APPLICABLE_REFERENCE", "clauses": ["R1", "R7"]})
        );
    }
    for b in [
        "two_gross_and_year",
        "two_month_and_conflict",
        "two_year_and_conflict",
    ] {
        assert!(of(b).len() >= 10, "seed {seed}: {b}: {}", of(b).len());
    }

    // An approved amendment in force, one cent off: the conflict stands.
    let cent = Decimal::new(1, 2);
    let one_cent = of("one_cent_off");
    assert!(one_cent.len() >= 10, "seed {seed}: {}", one_cent.len());
    for t in one_cent {
        let a = &t.case["amendment"];
        assert_eq!(a["approved"], true);
        assert!(a["effective_month"].as_str() <= t.case["payroll_month"].as_str());
        assert_eq!(
            (dec(&a["gross_pay"]) - dec(&t.case["gross_pay"])).abs(),
            cent
        );
        assert!(conflict(t));
        assert_eq!(
            t.expected,
            json!({"decision": "clarify",
            "reason_code": "CONFLICTING_GROSS_PAY", "clauses": ["R7", "R9"]})
        );
    }

    // The exception account: the upper line moved to 4230.00 and 3800.00,
    // gross pay on the wage cap or taxable pay on that line.
    let exception: Vec<&Task> = tasks
        .iter()
        .filter(|t| t.tags.iter().flatten().any(|g| g == "exception_account"))
        .collect();
    assert!(exception.len() >= 30, "seed {seed}: {}", exception.len());
    let (mut on_cap, mut on_line) = (0, 0);
    for t in exception {
        let tables = &t.case["reference_tables"];
        assert_eq!(tables["first-half"]["upper"], "4230.00");
        assert_eq!(tables["second-half"]["upper"], "3800.00");
        let [contribution, taxable, tax, net] = payslip(&t.case);
        assert_eq!(
            dec(&t.expected["employee_contribution"]),
            contribution,
            "{}",
            t.id
        );
        assert_eq!(dec(&t.expected["taxable_pay"]), taxable, "{}", t.id);
        assert_eq!(dec(&t.expected["income_tax"]), tax, "{}", t.id);
        assert_eq!(dec(&t.expected["net_pay"]), net, "{}", t.id);
        let month = t.case["payroll_month"].as_str().unwrap();
        let (cap, line) = if month <= "2026-06" {
            ("4800.00", "4230.00")
        } else {
            ("5000.00", "3800.00")
        };
        if t.case["gross_pay"] == cap {
            on_cap += 1;
        }
        if t.expected["taxable_pay"] == line {
            on_line += 1;
        }
    }
    assert!(
        on_cap >= 10 && on_line >= 10,
        "seed {seed}: {on_cap} on the cap, {on_line} on the line"
    );
    // The other scenarios are there, and no message names a reason code.
    for b in [
        "colleague_figure",
        "upload_date",
        "amendment_approved",
        "stale_rates_suggested",
        "called_approved",
        "take_gross_from_amendment",
        "take_month_from_amendment",
        "stale_amendment",
        "future_amendment",
        "rates_carried_forward",
    ] {
        assert!(of(b).len() >= 10, "seed {seed}: {b}: {}", of(b).len());
    }
    for t in tasks {
        let prompt = t.prompt.as_deref().unwrap();
        let inbox = prompt
            .split("From the payroll inbox:")
            .nth(1)
            .and_then(|rest| rest.split("Record:").next())
            .expect("an inbox message");
        assert!(inbox.trim().len() > 40, "{}", t.id);
        for r in REASONS {
            assert!(!inbox.contains(r), "{}: {r}", t.id);
        }
    }
    // A payslip whose message carries someone's figure: the net is not it.
    for t in of("colleague_figure") {
        assert_ne!(t.expected["net_pay"], t.case["gross_pay"]);
        assert_eq!(t.expected["income_tax"], "0.00");
    }
}
