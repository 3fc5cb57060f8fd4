//! Per-field exploit strategies (issue 25, item 8): the rulebook's answer
//! with one amount field zeroed or copied from an input its formula reads,
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
    // is no input itself, from a money input its formula reads (gross pay
    // or, below taxable pay, the deduction; never the contract's gross
    // pay, which only the conflict reads): the copy right most often, the
    // first read (gross pay) when none is; the second payslip's income tax
    // is 0.00, as its deduction (absent, copied as zero).
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
            "calculate: `income_tax` = `allowed_deduction`",
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

/// A rulebook small enough to score by hand: `fee` is money that only a
/// check reads, `rate` a decimal, `cap` money read only inside a per-item
/// group; `fee` comes first, where the first money input used to be taken
/// for every copied field.
const TINY: &str = r#"
[rulebook]
id = "tiny-pay"
version = 1
schema = 1

[inputs.fee]
type = "money"
required = true

[inputs.gross]
type = "money"
required = true

[inputs.bonus]
type = "money"
required = true

[inputs.rate]
type = "decimal"
required = true

[inputs.items]
type = "list"
required = true
items = { type = "record", fields = { amount = { type = "money", required = true } } }

[inputs.cap]
type = "money"
required = true

[steps.pay]
expr = "gross + bonus"

[steps.tax]
expr = "pay * rate"
round = { places = 2, mode = "half_up" }

[steps.net]
expr = "pay - tax"

[per_item.extras]
over = "items"
item = "x"

[per_item.extras.steps.kept]
expr = "min(x.amount, cap)"

[steps.extra]
expr = "sum(extras.kept)"

[[checks]]
when = "fee > gross"
reject = "fee"
message = "the fee exceeds gross pay"

[[checks]]
decision = "calculate"

[decisions.calculate.answer]
gross = { expr = "gross", format = "money" }
tax = { expr = "tax", format = "money" }
net = { expr = "net", format = "money" }
extra = { expr = "extra", format = "money" }
"#;

/// Exact 1; else, with `gross` right, 0.5 × the weighted share of right fields.
const TINY_RUBRIC: &str = r#"
[rubric]
number = 1
rulebook = "tiny-pay@1"

[reply]

[score]
malformed = "0"
wrong_decision = "0"
wrong = "0"
exact = "1"

[decisions.calculate.fields]
gross = { format = "money" }
tax = { format = "money" }
net = { format = "money" }
extra = { format = "money" }

[decisions.calculate.partial]
gates = ["gross"]
otherwise = "0"
scale = "0.5"
weights = { tax = "1", net = "1", extra = "2" }
"#;

#[test]
fn a_field_is_copied_from_each_input_its_formula_reads_and_no_other() {
    let rb = bareme::parse_rulebook("tiny.toml", TINY).expect("rulebook");
    let r = bareme::unstable::score::parse_rubric("rubric-1.toml", TINY_RUBRIC, &rb)
        .unwrap_or_else(|d| panic!("{}", d.render(100, false)));
    let tiny = |id: &str, case: Value| {
        let expected = bareme::unstable::score::reference_outcome(&rb, &case);
        let line = json!({"id": id, "rulebook": "tiny-pay@1", "rulebook_hash": rb.hash(),
            "case": case, "expected": expected, "tier": "pay", "level": 1});
        Task::from_json(&line.to_string()).expect("task")
    };
    // A: pay 1000.00 + 100.00 = 1100.00; tax 0.10 × 1100.00 = 110.00; net
    // 990.00; extra min(50.00, 200.00) + min(300.00, 200.00) = 250.00.
    // B: pay 900.00 + 100.00 = 1000.00; tax 100.00 (the bonus); net 900.00
    // (the gross); extra min(500.00, 200.00) = 200.00 (the cap).
    let tasks = [
        tiny(
            "a",
            json!({"fee": "10.00", "gross": "1000.00", "bonus": "100.00", "rate": "0.10",
                "items": [{"amount": "50.00"}, {"amount": "300.00"}], "cap": "200.00"}),
        ),
        tiny(
            "b",
            json!({"fee": "0.00", "gross": "900.00", "bonus": "100.00", "rate": "0.10",
                "items": [{"amount": "500.00"}], "cap": "200.00"}),
        ),
    ];
    assert_eq!(
        tasks[0].expected,
        json!({"gross": "1000.00", "tax": "110.00", "net": "990.00", "extra": "250.00"})
    );
    assert_eq!(
        tasks[1].expected,
        json!({"gross": "900.00", "tax": "100.00", "net": "900.00", "extra": "200.00"})
    );
    let b = Baselines::with_rulebook(&r, &rb, &tasks);
    let names: Vec<&str> = b.strategies().iter().map(|s| s.name.as_str()).collect();
    let at = names
        .iter()
        .position(|n| *n == "`gross` = 0")
        .expect("per-field strategies");
    // `gross` is an input itself; `tax` and `net` read gross and bonus
    // (through `pay`), not the fee (a check's) nor the rate (a decimal);
    // `extra` reads the cap inside its group, not the items' list. On B
    // the bonus is the tax and the gross the net: those copies win.
    let tail = |b: &Baselines| -> Vec<String> {
        let names = b.strategies().iter().map(|s| s.name.clone());
        names.skip_while(|n| n != "`gross` = 0").collect()
    };
    assert_eq!(
        tail(&b),
        [
            "`gross` = 0",
            "`tax` = 0",
            "`tax` = `bonus`",
            "`net` = 0",
            "`net` = `gross`",
            "`extra` = 0",
            "`extra` = `cap`",
        ]
    );
    // With no copy ever right (A alone), the first input read.
    let a_only = Baselines::with_rulebook(&r, &rb, &tasks[..1]);
    assert_eq!(
        tail(&a_only),
        [
            "`gross` = 0",
            "`tax` = 0",
            "`tax` = `gross`",
            "`net` = 0",
            "`net` = `gross`",
            "`extra` = 0",
            "`extra` = `cap`",
        ]
    );
    let copied: Value = serde_json::from_str(
        &b.reply(&r, &b.strategies()[at + 2], &tasks[0])
            .expect("reply"),
    )
    .expect("JSON");
    assert_eq!(
        copied,
        json!({"gross": "1000.00", "tax": "100.00", "net": "990.00", "extra": "250.00"})
    );
    // One field wrong: 0.5 × (4 − its weight) / 4, so 0.375 for `tax` or
    // `net`, 0.25 for `extra`; right on B alone: the mean of that and 1.
    let means = b
        .measure(&Scorer::new(r.clone(), false), &tasks)
        .expect("measured");
    let m: HashMap<String, Means> = names.iter().map(|n| n.to_string()).zip(means).collect();
    for (name, score) in [
        ("`gross` = 0", Decimal::ZERO),
        ("`tax` = 0", Decimal::new(375, 3)),
        ("`tax` = `bonus`", Decimal::new(6875, 4)),
        ("`net` = 0", Decimal::new(375, 3)),
        ("`net` = `gross`", Decimal::new(6875, 4)),
        ("`extra` = 0", Decimal::new(25, 2)),
        ("`extra` = `cap`", Decimal::new(625, 3)),
    ] {
        assert_eq!(mean(&m, name), score, "{name}");
    }
    let best = b.best_exploits(&b.measure(&Scorer::new(r, false), &tasks).expect("measured"));
    // The best exploit overall: the first of the two copies right on B
    // (the usual answer, A's reference, scores (1 + 0) / 2 = 0.5).
    assert_eq!(best[0].0, "all");
    assert_eq!(best[0].1.name, "`tax` = `bonus`");
    assert_eq!(best[0].2, Decimal::new(6875, 4));
}
