//! Exploit baselines and rescoring: the scripted strategies' replies, read
//! field by field on a hand-made task; Luma rubric 8's prices on generated
//! tasks (parity of a refusal and a wrong payslip, every constant strategy
//! negative); the incentives the seed reports for rubrics 3 to 8; the CLI.

use rust_decimal::Decimal;
use serde_json::{json, Value};
use std::collections::HashMap;

use bareme::unstable::coverage::Task;
use bareme::unstable::score::{load_rubric, Baselines, Means, Rubric, Scorer};

use super::cli::{bareme, tempdir};
use super::root;
use super::score::generated;

const LUMA_GENERATOR: &str = "rulebooks/luma-payroll/generator-4.toml";

fn rubric(n: u32) -> Rubric {
    let path = root().join(format!("rulebooks/luma-payroll/rubric-{n}.toml"));
    load_rubric(&path, None).expect("rubric").0
}

pub(super) fn task(id: &str, case: Value, expected: Value, tier: &str) -> Task {
    let line = json!({"id": id, "rulebook": "luma-payroll@3", "rulebook_hash": "h",
        "case": case, "expected": expected, "tier": tier, "level": 1});
    Task::from_json(&line.to_string()).expect("task")
}

/// Two payslips, traps of two reasons, a retrieval.
pub(super) fn hand_made() -> Vec<Task> {
    vec![
        task(
            "p",
            json!({"task": "payslip", "gross_pay": "3084.04", "payroll_month": "2026-12", "allowed_deduction": "131.70"}),
            json!({"decision": "calculate", "currency": "LCR", "gross_pay": "3084.04",
                "employee_contribution": "123.36", "allowed_deduction": "131.70", "taxable_pay": "2828.98",
                "income_tax": "138.32", "net_pay": "2690.66", "clauses": ["R1", "R2", "R3", "R4", "R5", "R6"]}),
            "payslip",
        ),
        task(
            "t1",
            json!({"task": "payslip", "payroll_month": "2026-12"}),
            json!({"decision": "clarify", "reason_code": "MISSING_GROSS_PAY", "clauses": ["R1", "R7"]}),
            "trap",
        ),
        task(
            "t2",
            json!({"task": "payslip", "gross_pay": "100.00"}),
            json!({"decision": "clarify", "reason_code": "MISSING_PAYROLL_MONTH", "clauses": ["R1", "R7"]}),
            "trap",
        ),
        task(
            "t3",
            json!({"task": "payslip", "gross_pay": "200.00"}),
            json!({"decision": "clarify", "reason_code": "MISSING_PAYROLL_MONTH", "clauses": ["R1", "R7"]}),
            "trap",
        ),
        task(
            "r",
            json!({"task": "retrieve", "field": "deduction_cap", "payroll_month": "2026-03"}),
            json!({"decision": "retrieve", "field": "deduction_cap", "value": "300.00", "clauses": ["R1", "R4"]}),
            "retrieval",
        ),
        task(
            "p2",
            json!({"task": "payslip", "gross_pay": "1000.00", "payroll_month": "2026-03"}),
            json!({"decision": "calculate", "currency": "LCR", "gross_pay": "1000.00",
                "employee_contribution": "50.00", "allowed_deduction": "0.00", "taxable_pay": "950.00",
                "income_tax": "0.00", "net_pay": "950.00", "clauses": ["R1", "R2", "R3", "R4", "R5", "R6"]}),
            "payslip",
        ),
    ]
}

pub(super) fn replies(rubric: &Rubric, b: &Baselines, task: &Task) -> HashMap<String, String> {
    b.strategies()
        .iter()
        .map(|s| (s.name.clone(), b.reply(rubric, s, task).expect("a reply")))
        .collect()
}

#[test]
fn each_strategy_writes_what_its_name_says() {
    let r = rubric(8);
    let tasks = hand_made();
    let b = Baselines::new(&r, &tasks);
    let names: Vec<&str> = b.strategies().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "reference",
            "fenced reference",
            "malformed (reference cut short)",
            "refuse in prose",
            "all zeros",
            "copy the inputs",
            "right decision, no arithmetic",
            "usual calculate answer (the prompt's example)",
            "always clarify with reason_code = MISSING_GROSS_PAY",
            "always clarify with reason_code = MISSING_PAYROLL_MONTH",
            "always calculate",
            "always clarify",
            "always retrieve",
            "calculate tasks answered clarify",
            "calculate tasks answered retrieve",
            "calculate tasks answered wrongly",
        ]
    );
    let payslip = replies(&r, &b, &tasks[0]);
    assert_eq!(payslip["reference"], tasks[0].expected.to_string());
    assert!(payslip["fenced reference"].starts_with("```json\n{\"decision\""));
    assert_eq!(
        payslip["malformed (reference cut short)"],
        tasks[0].expected.to_string().trim_end_matches('}')
    );
    // Amounts zero; the currency is the same in every payslip, so it is given.
    assert_eq!(
        payslip["all zeros"],
        r#"{"decision":"calculate","currency":"LCR","gross_pay":"0.00","employee_contribution":"0.00","allowed_deduction":"0.00","taxable_pay":"0.00","income_tax":"0.00","net_pay":"0.00","clauses":[]}"#
    );
    // Inputs of the field's name copied, the usual clauses, no arithmetic.
    assert_eq!(
        payslip["copy the inputs"],
        r#"{"decision":"calculate","currency":"LCR","gross_pay":"3084.04","employee_contribution":"0.00","allowed_deduction":"131.70","taxable_pay":"0.00","income_tax":"0.00","net_pay":"0.00","clauses":["R1","R2","R3","R4","R5","R6"]}"#
    );
    // Every computed field one unit off; copied and constant fields kept.
    assert_eq!(
        payslip["calculate tasks answered wrongly"],
        r#"{"decision":"calculate","currency":"LCR","gross_pay":"3084.04","employee_contribution":"124.36","allowed_deduction":"131.70","taxable_pay":"2829.98","income_tax":"139.32","net_pay":"2691.66","clauses":["R1","R2","R3","R4","R5","R6"]}"#
    );
    // The refusal of a payslip: the most common clarification.
    assert_eq!(
        payslip["calculate tasks answered clarify"],
        r#"{"decision":"clarify","reason_code":"MISSING_PAYROLL_MONTH","clauses":["R1","R7"]}"#
    );
    let trap = replies(&r, &b, &tasks[1]);
    assert_eq!(trap["always clarify"], tasks[1].expected.to_string());
    assert_eq!(
        trap["calculate tasks answered wrongly"],
        tasks[1].expected.to_string()
    );
    // Calculating through a trap: no gross pay in the case, so nothing to copy.
    assert_eq!(
        trap["copy the inputs"],
        r#"{"decision":"calculate","currency":"LCR","gross_pay":"0.00","employee_contribution":"0.00","allowed_deduction":"0.00","taxable_pay":"0.00","income_tax":"0.00","net_pay":"0.00","clauses":["R1","R2","R3","R4","R5","R6"]}"#
    );
    assert_eq!(
        trap["always clarify with reason_code = MISSING_GROSS_PAY"],
        r#"{"decision":"clarify","reason_code":"MISSING_GROSS_PAY","clauses":["R1","R7"]}"#
    );
    assert_eq!(
        trap["refuse in prose"],
        "I cannot answer this from the information given."
    );
    let retrieval = replies(&r, &b, &tasks[4]);
    assert_eq!(
        retrieval["right decision, no arithmetic"],
        r#"{"decision":"retrieve","field":"deduction_cap","value":"0","clauses":["R1","R4"]}"#
    );
}

#[test]
fn a_tagged_rubric_gets_its_tag_around_every_json_reply() {
    let path = root().join("rulebooks/paie-fr/rubric-1.toml");
    let (r, _) = load_rubric(&path, None).expect("rubric");
    let tasks = generated("rulebooks/paie-fr/generator-1.toml", 8);
    let b = Baselines::new(&r, &tasks);
    for s in b.strategies() {
        let reply = b.reply(&r, s, &tasks[0]).expect("reply");
        if s.name == "refuse in prose" {
            assert!(!reply.contains("<bulletin>"));
        } else {
            assert!(
                reply.starts_with("<bulletin>\n") && reply.ends_with("\n</bulletin>"),
                "{}: {reply}",
                s.name
            );
        }
    }
    // One decision only: no `always` strategies.
    assert!(b.strategies().iter().all(|s| !s.name.starts_with("always")));
}

/// Each strategy's mean under a rubric, by name.
fn measured(n: u32, tasks: &[Task]) -> HashMap<String, Means> {
    let r = rubric(n);
    let scorer = Scorer::new(r.clone(), false);
    // Generated tasks carry the real rulebook hash; the scorer checks it.
    let b = Baselines::new(&r, tasks);
    let means = b.measure(&scorer, tasks).expect("measured");
    b.strategies()
        .iter()
        .map(|s| s.name.clone())
        .zip(means)
        .collect()
}

/// What the reference strategy earns: the maximum, but (1 − w) × it on a
/// decision an explanation rule of weight w covers (the reference carries
/// no explanation, which scores 0), as a mean over `tasks` to 6 places.
fn reference_mean(r: &Rubric, tasks: &[Task]) -> Decimal {
    let sum: Decimal = tasks
        .iter()
        .map(|t| match &r.score.explanation {
            Some(e)
                if e.decisions
                    .iter()
                    .any(|d| t.expected["decision"] == d.as_str()) =>
            {
                (Decimal::ONE - e.weight) * r.max()
            }
            _ => r.max(),
        })
        .sum();
    (sum / Decimal::from(tasks.len() as u64)).round_dp(6)
}

pub(super) fn mean(m: &HashMap<String, Means>, name: &str) -> Decimal {
    m.get(name)
        .unwrap_or_else(|| panic!("no strategy {name}"))
        .all
        .mean()
}

#[test]
fn luma_rubric_8_prices_refusal_and_a_wrong_payslip_alike_and_every_constant_below_zero() {
    let tasks = generated(LUMA_GENERATOR, 240);
    let r = rubric(8);
    let m = measured(8, &tasks);
    assert_eq!(mean(&m, "reference"), reference_mean(&r, &tasks));
    assert!(reference_mean(&r, &tasks) < r.max());
    let refusal = mean(&m, "calculate tasks answered clarify");
    let wrong = mean(&m, "calculate tasks answered wrongly");
    assert!(
        (refusal - wrong).abs() <= Decimal::new(1, 2),
        "{refusal} vs {wrong}"
    );
    let b = Baselines::new(&r, &tasks);
    let constants: Vec<&str> = b
        .strategies()
        .iter()
        .filter(|s| s.constant)
        .map(|s| s.name.as_str())
        .collect();
    assert!(constants.len() >= 8, "{constants:?}");
    for name in constants {
        assert!(mean(&m, name) < Decimal::ZERO, "{name}: {}", mean(&m, name));
    }
    // Traps are balanced over the four reasons: four single-reason strategies.
    let reasons = b
        .strategies()
        .iter()
        .filter(|s| s.name.starts_with("always clarify with reason_code"))
        .count();
    assert_eq!(reasons, 4);
}

#[test]
fn rescoring_under_rubrics_3_to_8_shows_the_incentives_the_seed_reports() {
    let tasks = generated(LUMA_GENERATOR, 240);
    let m: HashMap<u32, HashMap<String, Means>> =
        (3..=8).map(|n| (n, measured(n, &tasks))).collect();
    for n in 3..=8 {
        let r = rubric(n);
        assert_eq!(
            mean(&m[&n], "reference"),
            reference_mean(&r, &tasks),
            "rubric {n}"
        );
    }
    // 3: copying inputs pays; 4: almost nothing (an income tax of 0.00 is copied right).
    assert!(mean(&m[&3], "copy the inputs") > Decimal::new(3, 2));
    assert!(mean(&m[&4], "copy the inputs") < mean(&m[&3], "copy the inputs") / Decimal::from(4));
    // 5: always calculating beats always clarifying.
    assert!(mean(&m[&5], "always calculate") > mean(&m[&5], "always clarify"));
    // 6: a refused payslip and a wrong one both score 0.
    let payslip = |n: u32, name: &str| m[&n][name].tiers["payslip"].mean();
    assert_eq!(
        payslip(6, "calculate tasks answered clarify"),
        Decimal::ZERO
    );
    assert_eq!(
        payslip(6, "calculate tasks answered wrongly"),
        Decimal::ZERO
    );
    // 7: a refusal below a wrong payslip; 8: parity at -0.5.
    assert_eq!(
        payslip(7, "calculate tasks answered clarify"),
        Decimal::new(-5, 1)
    );
    assert_eq!(
        payslip(7, "calculate tasks answered wrongly"),
        Decimal::ZERO
    );
    assert_eq!(
        payslip(8, "calculate tasks answered clarify"),
        Decimal::new(-5, 1)
    );
    assert_eq!(
        payslip(8, "calculate tasks answered wrongly"),
        Decimal::new(-5, 1)
    );
}

fn write_tasks(dir: &std::path::Path, tasks_from: &str, n: u64) -> std::path::PathBuf {
    let path = dir.join("tasks.jsonl");
    let out = bareme(
        &[
            "generate",
            tasks_from,
            "-n",
            &n.to_string(),
            "--seed",
            "11",
            "--out",
            path.to_str().unwrap(),
        ],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    path
}

#[test]
fn baselines_and_rescore_on_the_command_line() {
    let dir = tempdir("baselines-cli");
    let tasks = write_tasks(&dir, LUMA_GENERATOR, 60);
    let replies = dir.join("replies.jsonl");
    let out = bareme(
        &[
            "baselines",
            "rulebooks/luma-payroll/rubric-8.toml",
            "--tasks",
            tasks.to_str().unwrap(),
            "--replies-out",
            replies.to_str().unwrap(),
            "--format",
            "json",
        ],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(report["rubric"], "luma-payroll/rubric-8");
    let strategies = report["strategies"].as_array().expect("strategies");
    assert_eq!(strategies[0]["name"], "reference");
    // The reference carries no explanation: each clarification scores
    // 0.9 (rubric 8's explanation rule), every other task 1.
    let text = std::fs::read_to_string(&tasks).expect("tasks");
    let clarify = text.matches(r#""decision":"clarify""#).count();
    assert!(clarify > 0);
    let mean = (Decimal::from(60) - Decimal::new(1, 1) * Decimal::from(clarify as u64))
        / Decimal::from(60);
    let mean = mean.round_dp(6).normalize().to_string();
    assert_eq!(strategies[0]["mean"].to_string(), mean);
    let lines = std::fs::read_to_string(&replies).expect("replies written");
    let tasks_n = report["tasks"].as_u64().expect("tasks") as usize;
    assert_eq!(lines.lines().count(), tasks_n * strategies.len());

    let out = bareme(
        &[
            "rescore",
            "--rubric",
            "rulebooks/luma-payroll/rubric-7.toml",
            "--rubric",
            "rulebooks/luma-payroll/rubric-8.toml",
            "--tasks",
            tasks.to_str().unwrap(),
            "--replies",
            replies.to_str().unwrap(),
            "--format",
            "json",
        ],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rescored: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    // Rescoring under rubric 8 gives what `baselines` measured under it.
    for s in strategies {
        let name = s["name"].as_str().unwrap();
        assert_eq!(
            rescored["strategies"][name]["luma-payroll/rubric-8"]["mean"], s["mean"],
            "{name}"
        );
    }
    assert_eq!(
        rescored["strategies"]["refuse in prose"]["luma-payroll/rubric-7"]["mean"],
        json!(-0.5)
    );
    let text = bareme(
        &[
            "rescore",
            "--rubric",
            "rulebooks/luma-payroll/rubric-3.toml",
            "--rubric",
            "rulebooks/luma-payroll/rubric-8.toml",
            "--tasks",
            tasks.to_str().unwrap(),
            "--replies",
            replies.to_str().unwrap(),
        ],
        None,
    );
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.lines()
            .nth(1)
            .unwrap()
            .split_whitespace()
            .eq(["replies", "rubric-3", "rubric-8"]),
        "{text}"
    );

    // A rubric of another rulebook refuses the tasks.
    let out = bareme(
        &[
            "rescore",
            "--rubric",
            "rulebooks/luma-payroll/rubric-8.toml",
            "--rubric",
            "rulebooks/paie-fr/rubric-1.toml",
            "--tasks",
            tasks.to_str().unwrap(),
            "--replies",
            replies.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("paie-fr/rubric-1 grades paie-fr@2026"),
        "{err}"
    );
    // Two rubrics of one name (a rubric and its edited copy): the report,
    // keyed by name, would show one's numbers for both.
    let copy = dir.join("rubric-8.toml");
    std::fs::copy("rulebooks/luma-payroll/rubric-8.toml", &copy).expect("copied");
    let out = bareme(
        &[
            "rescore",
            "--rubric",
            "rulebooks/luma-payroll/rubric-8.toml",
            "--rubric",
            copy.to_str().unwrap(),
            "--rulebook",
            "rulebooks/luma-payroll/v3",
            "--tasks",
            tasks.to_str().unwrap(),
            "--replies",
            replies.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("two rubrics are named luma-payroll/rubric-8"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rubric_7_to_8_changes_exactly_the_settings_the_seed_describes() {
    use bareme::unstable::score::{setting_changes, settings};
    let changes = setting_changes(&settings(&rubric(7)), &settings(&rubric(8)));
    let lines: Vec<String> = changes
        .iter()
        .map(|c| format!("{}: {:?} -> {:?}", c.key, c.old, c.new))
        .collect();
    insta::assert_snapshot!("rubric_7_to_8_settings", lines.join("\n"));
    // A rubric against itself: nothing.
    assert!(setting_changes(&settings(&rubric(8)), &settings(&rubric(8))).is_empty());
}

#[test]
fn diff_of_two_rubrics_names_the_settings_and_the_strategies_that_lose() {
    let dir = tempdir("rubric-diff");
    let tasks = write_tasks(&dir, LUMA_GENERATOR, 60);
    let tasks = tasks.to_str().unwrap();
    let (r7, r8) = (
        "rulebooks/luma-payroll/rubric-7.toml",
        "rulebooks/luma-payroll/rubric-8.toml",
    );
    // Settings alone.
    let out = bareme(&["diff", r7, r8], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("  ~ score.wrong: 0 → -0.5\n"), "{text}");
    assert!(
        text.contains("  + decisions.calculate.partial.cap: -0.3\n"),
        "{text}"
    );
    // With tasks: the strategies' replies under both.
    let out = bareme(
        &["diff", r7, r8, "--tasks", tasks, "--format", "json"],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(report["settings"].as_array().map(Vec::len), Some(13));
    let by_name = |name: &str| {
        report["scores"]["strategies"]
            .as_array()
            .and_then(|s| s.iter().find(|x| x["name"] == name))
            .cloned()
            .unwrap_or_else(|| panic!("no {name}"))
    };
    // Rubric 8 restores the parity of a refused and a wrong payslip.
    let refused = by_name("calculate tasks answered clarify");
    let wrong = by_name("calculate tasks answered wrongly");
    assert_eq!(refused["change"], json!(0));
    assert!(wrong["change"].as_f64().unwrap() < 0.0, "{wrong}");
    assert_eq!(refused["new"], wrong["new"]);
    // The reference: no explanation, 0.9 on each clarification under both.
    assert!(by_name("reference")["new"].as_f64().unwrap() < 1.0);
    assert_eq!(by_name("reference")["change"], json!(0));
    // With replies: each reply's move, counted.
    let replies = dir.join("one.jsonl");
    let task_id = std::fs::read_to_string(tasks)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|t| t["tier"] == "payslip")
        .map(|t| t["id"].as_str().unwrap().to_string())
        .expect("a payslip task");
    let reply =
        json!({"decision": "clarify", "reason_code": "MISSING_GROSS_PAY", "clauses": ["R1", "R7"]});
    std::fs::write(
        &replies,
        format!("{}\n", json!({"id": task_id, "reply": reply.to_string()})),
    )
    .unwrap();
    let out = bareme(
        &[
            "diff",
            r7,
            r8,
            "--tasks",
            tasks,
            "--replies",
            replies.to_str().unwrap(),
            "--format",
            "json",
        ],
        None,
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    // A refused payslip scores -0.5 under both: nothing moves.
    assert_eq!(report["scores"]["replies"], json!(1));
    assert_eq!(report["scores"]["lower"], json!(0));
    assert_eq!(report["scores"]["new"]["mean"], json!(-0.5));
    // Rubric options on rulebooks are a usage error.
    let out = bareme(
        &[
            "diff",
            "rulebooks/luma-payroll/v3",
            "rulebooks/luma-payroll/v3",
            "--tasks",
            tasks,
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn baselines_find_the_no_tax_exploit_on_400_sales_tax_tasks() {
    // The reply of "the rate dropped" on one task, by hand: every line's
    // tax 0.00, the invoice's tax 0.00, its total the subtotal of the nets.
    let tasks = generated("rulebooks/sales-tax/generator-1.toml", 400);
    let (r, rb) =
        load_rubric(&root().join("rulebooks/sales-tax/rubric-1.toml"), None).expect("rubric");
    let b = Baselines::with_rulebook(&r, &rb, &tasks);
    let no_tax = b
        .strategies()
        .iter()
        .find(|s| s.name == "step `lines.rate` dropped (0)")
        .expect("the no-tax strategy");
    assert!(no_tax.exploit && !no_tax.constant);
    let reply: Value = serde_json::from_str(&b.reply(&r, no_tax, &tasks[0]).unwrap()).unwrap();
    let e = &tasks[0].expected;
    assert_eq!(reply["subtotal"], e["subtotal"]);
    assert_eq!(reply["tax"], "0.00");
    assert_eq!(reply["total"], e["subtotal"]);
    assert_ne!(e["tax"], "0.00");
    for (line, want) in reply["lines"]
        .as_array()
        .unwrap()
        .iter()
        .zip(e["lines"].as_array().unwrap())
    {
        assert_eq!(
            (&line["tax"], &line["net"], &line["total"]),
            (&json!("0.00"), &want["net"], &want["net"])
        );
    }
    // On the command line (seed 11): listed with its mean (the issue
    // measured 0.303 on its own 200 invoices; 0.2818 on the baseline's
    // seed 2026), and the best exploit per group printed: a wrong reading
    // of the rules earns more than charging no tax.
    let text = baselines_text(
        "baselines-no-tax",
        "sales-tax/generator-1",
        "sales-tax/rubric-1",
        400,
    );
    let row = text
        .lines()
        .find(|l| l.starts_with("step `lines.rate` dropped (0)"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(row.contains(" 0.2796 "), "{row}");
    assert!(
        text.contains(
            "best exploit (a strategy that reads no reference) per group:\n  all: reading `"
        ),
        "{text}"
    );
}

/// A strategy that answers a group as the reference does is no exploit of
/// it: on Luma, dropping `retrieved_value` leaves every payslip right
/// (1, the reference's mean there) and was printed as the payslips' best
/// exploit; dropping `employee_contribution` leaves traps at the
/// reference's 0.9 (explanations ungraded). Each best exploit now scores
/// below the reference on its group.
#[test]
fn a_best_exploit_scores_below_the_reference_on_its_group() {
    let text = baselines_text(
        "baselines-below-reference",
        "luma-payroll/generator-4",
        "luma-payroll/rubric-8",
        200,
    );
    let cells = |line: &str| -> Vec<String> {
        line.split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(str::to_string)
            .collect()
    };
    let mut lines = text.lines();
    let header = cells(
        lines
            .find(|l| l.starts_with("strategy "))
            .unwrap_or_else(|| panic!("{text}")),
    );
    let reference = cells(
        lines
            .find(|l| l.starts_with("reference "))
            .unwrap_or_else(|| panic!("{text}")),
    );
    let top: HashMap<String, Decimal> = header[1..]
        .iter()
        .zip(&reference[1..])
        .map(|(g, m)| {
            let group = if g == "mean" {
                "all".to_string()
            } else {
                g.clone()
            };
            (group, m.parse().expect("a mean"))
        })
        .collect();
    let best: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("best exploit"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert!(best.len() >= 4, "{text}");
    for line in best {
        let (group, rest) = line
            .trim()
            .split_once(": ")
            .expect("group: strategy (mean)");
        let mean: Decimal = rest
            .rsplit_once(" (")
            .and_then(|(_, m)| m.strip_suffix(')'))
            .and_then(|m| m.parse().ok())
            .unwrap_or_else(|| panic!("{line}"));
        assert!(
            mean < top[group],
            "{line}: the reference scores {} there",
            top[group]
        );
    }
}

/// `bareme baselines RUBRIC --tasks` on `n` tasks (seed 11) of a bundled
/// generator (`set/generator-k`), its standard output once it succeeds.
fn baselines_text(dir: &str, generator: &str, rubric: &str, n: u64) -> String {
    let dir = tempdir(dir);
    let file = write_tasks(&dir, &format!("rulebooks/{generator}.toml"), n);
    let rubric = format!("rulebooks/{rubric}.toml");
    let out = bareme(
        &["baselines", &rubric, "--tasks", file.to_str().unwrap()],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
