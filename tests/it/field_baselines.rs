//! Per-field exploit strategies (issue 25, item 8): the rulebook's answer
//! with one amount field zeroed or copied from the case's matching input,
//! the reply each writes on a hand-made payslip and retrieval and on
//! sales-tax invoices, and the scores paie-fr rubric 1 and Luma rubric 8
//! give them, worked out from the rubrics' own points.

use rust_decimal::Decimal;
use serde_json::{json, Value};
use std::collections::HashMap;

use bareme::unstable::coverage::Task;
use bareme::unstable::score::{load_rubric, Baselines, Means, Scorer};

use super::baselines::{hand_made, mean, replies, task};
use super::root;
use super::score::generated;

const LUMA_GENERATOR: &str = "rulebooks/luma-payroll/generator-4.toml";

/// Each strategy's means under a rubric and its rulebook, by name.
fn measured_with_rulebook(rubric: &str, tasks: &[Task]) -> (Baselines, HashMap<String, Means>) {
    let (r, rb) = load_rubric(&root().join(rubric), None).expect("rubric");
    let b = Baselines::with_rulebook(&r, &rb, tasks);
    let means = b.measure(&Scorer::new(r, false), tasks).expect("measured");
    let by_name = b
        .strategies()
        .iter()
        .map(|s| s.name.clone())
        .zip(means)
        .collect();
    (b, by_name)
}

#[test]
fn per_field_strategies_zero_or_copy_one_field_of_the_rulebooks_answer() {
    let (r, rb) =
        load_rubric(&root().join("rulebooks/luma-payroll/rubric-8.toml"), None).expect("rubric");
    let tasks = hand_made();
    let b = Baselines::with_rulebook(&r, &rb, &tasks);
    let names: Vec<&str> = b.strategies().iter().map(|s| s.name.as_str()).collect();
    // Last, one per amount field of each decision; a copy where the field
    // is no input itself, from the first money input, gross pay.
    let at = names
        .iter()
        .position(|n| *n == "calculate: `gross_pay` = 0")
        .expect("per-field strategies");
    assert_eq!(
        &names[at..],
        [
            "calculate: `gross_pay` = 0",
            "calculate: `employee_contribution` = 0",
            "calculate: `employee_contribution` = `gross_pay`",
            "calculate: `allowed_deduction` = 0",
            "calculate: `taxable_pay` = 0",
            "calculate: `taxable_pay` = `gross_pay`",
            "calculate: `income_tax` = 0",
            "calculate: `income_tax` = `gross_pay`",
            "calculate: `net_pay` = 0",
            "calculate: `net_pay` = `gross_pay`",
            "retrieve: `value` = 0",
        ]
    );
    assert!(b.strategies()[at..]
        .iter()
        .all(|s| s.exploit && !s.constant));
    // The payslip: the rulebook's answer (the reference), net pay the gross.
    let payslip = replies(&r, &b, &tasks[0]);
    let mut want = tasks[0].expected.clone();
    want["net_pay"] = json!("3084.04");
    assert_eq!(
        payslip["calculate: `net_pay` = `gross_pay`"],
        want.to_string()
    );
    want["net_pay"] = json!("0.00");
    assert_eq!(payslip["calculate: `net_pay` = 0"], want.to_string());
    // Another decision's field leaves the answer as it is.
    assert_eq!(
        payslip["retrieve: `value` = 0"],
        tasks[0].expected.to_string()
    );
    // A retrieval the rulebook answers (the schedule's 300.00 in March).
    let case = json!({"task": "retrieval", "field": "deduction_cap", "payroll_month": "2026-03"});
    let expected = bareme::unstable::score::reference_outcome(&rb, &case);
    assert_eq!(expected["value"], "300.00");
    let asked = task("r2", case, expected.clone(), "retrieval");
    let retrieval = replies(&r, &b, &asked);
    assert_eq!(
        retrieval["retrieve: `value` = 0"],
        r#"{"decision":"retrieve","field":"deduction_cap","value":"0","clauses":["R1","R4"]}"#
    );
    assert_eq!(
        retrieval["calculate: `net_pay` = `gross_pay`"],
        expected.to_string()
    );
    // A case the rulebook refuses: refused in prose, as a reading's.
    let refused = replies(&r, &b, &tasks[4]);
    assert_eq!(
        refused["retrieve: `value` = 0"],
        "I cannot answer this from the information given."
    );
    // Sales-tax: an item field zeroed in every line, the rest untouched; no
    // copy (no top-level money input).
    let sales = generated("rulebooks/sales-tax/generator-1.toml", 4);
    let (r, rb) =
        load_rubric(&root().join("rulebooks/sales-tax/rubric-1.toml"), None).expect("rubric");
    let b = Baselines::with_rulebook(&r, &rb, &sales);
    assert!(!b.strategies().iter().any(|s| s.name.contains("= `")));
    let line_tax = b
        .strategies()
        .iter()
        .find(|s| s.name == "`lines.tax` = 0")
        .expect("lines.tax zeroed");
    let reply: Value = serde_json::from_str(&b.reply(&r, line_tax, &sales[0]).unwrap()).unwrap();
    let mut want = sales[0].expected.clone();
    for line in want["lines"].as_array_mut().unwrap() {
        line["tax"] = json!("0.00");
    }
    assert_eq!(reply, want);
}

#[test]
fn per_field_strategies_score_what_the_rubrics_own_points_give() {
    // paie-fr rubric 1 (seed 000): a wrong answer with `brut` right earns
    // 0.5 × the weights of its right fields (net à payer 0.35, coût
    // employeur 0.25, cotisations 0.15, net imposable 0.15, prélèvement
    // 0.10 only with net imposable right); a wrong `brut`, 0.
    let tasks = generated("rulebooks/paie-fr/generator-1.toml", 24);
    let (_, m) = measured_with_rulebook("rulebooks/paie-fr/rubric-1.toml", &tasks);
    for (name, points) in [
        ("`brut` = 0", Decimal::ZERO),
        ("`net_a_payer` = 0", Decimal::new(325, 3)),
        ("`net_a_payer` = `base_salary`", Decimal::new(325, 3)),
        ("`cout_employeur` = 0", Decimal::new(375, 3)),
        ("`total_cotisations_salariales` = 0", Decimal::new(425, 3)),
        // Net imposable wrong takes the withholding's 0.10 with it.
        ("`net_imposable` = 0", Decimal::new(375, 3)),
    ] {
        assert_eq!(mean(&m, name), points, "{name}");
    }
    // Luma rubric 8: a payslip with one derived field wrong scores
    // -0.5 + 0.2 × 3/4 = -0.35; gross pay wrong, every derived field
    // right, -0.3 (the cap); a retrieval is untouched (1), a trap too
    // (0.9: the reference carries no explanation).
    let tasks = generated(LUMA_GENERATOR, 60);
    let (_, m) = measured_with_rulebook("rulebooks/luma-payroll/rubric-8.toml", &tasks);
    let tier = |name: &str, tier: &str| m[name].tiers[tier].mean();
    for name in [
        "calculate: `net_pay` = 0",
        "calculate: `net_pay` = `gross_pay`",
        "calculate: `employee_contribution` = `gross_pay`",
    ] {
        assert_eq!(tier(name, "payslip"), Decimal::new(-35, 2), "{name}");
        assert_eq!(tier(name, "retrieval"), Decimal::ONE, "{name}");
        assert_eq!(tier(name, "trap"), Decimal::new(9, 1), "{name}");
    }
    assert_eq!(
        tier("calculate: `gross_pay` = 0", "payslip"),
        Decimal::new(-3, 1)
    );
    assert_eq!(
        tier("retrieve: `value` = 0", "retrieval"),
        Decimal::new(-5, 1)
    );
}
