//! Ablations applied together (`Rulebook::ablated_all`, `eval --ablate a,b`)
//! and the coverage of a task set (`bareme ablations`).

use bareme::{evaluate_json, parse_rulebook, Outcome, Rulebook};
use serde_json::json;

/// Three steps and four readings: `doubled` and `tripled` replace one step
/// each, `also_a` replaces the step `doubled` does, and `loop_a`/`loop_b`
/// are acyclic alone but read each other's step together.
const DEMO: &str = r#"[rulebook]
id = "combo-demo"
version = 1
schema = 1

[inputs.x]
type = "decimal"
required = true

[steps.a]
expr = "x"

[steps.b]
expr = "a + 1"

[steps.c]
expr = "10"

[[checks]]
decision = "ok"

[decisions.ok.answer]
a = { expr = "a", format = "decimal" }
b = { expr = "b", format = "decimal" }
c = { expr = "c", format = "decimal" }

[ablations.doubled]
steps = { a = "x * 2" }

[ablations.tripled]
steps = { b = "a * 3" }

[ablations.also_a]
steps = { a = "x + 100" }

[ablations.loop_a]
steps = { c = "b" }

[ablations.loop_b]
steps = { a = "c" }
"#;

fn demo() -> Rulebook {
    match parse_rulebook("combo-demo.toml", DEMO) {
        Ok(rb) => rb,
        Err(d) => panic!("{}", d.render(100, false)),
    }
}

fn answer(rb: &Rulebook, case: &serde_json::Value) -> serde_json::Value {
    match evaluate_json(rb, case, false).expect("evaluates").0 {
        Outcome::Answer(a) => a,
        Outcome::Rejected(e) => panic!("rejected: {e:?}"),
    }
}

#[test]
fn ablations_apply_together_each_on_its_own_steps() {
    let rb = demo();
    let case = json!({"x": "5"});
    assert_eq!(answer(&rb, &case), json!({"a": "5", "b": "6", "c": "10"}));
    // doubled alone: a = 10, b = 11; tripled alone: a = 5, b = 15.
    let doubled = rb.ablated("doubled").expect("declared");
    assert_eq!(
        answer(&doubled, &case),
        json!({"a": "10", "b": "11", "c": "10"})
    );
    let tripled = rb.ablated_all(&["tripled"]).expect("declared");
    assert_eq!(
        answer(&tripled, &case),
        json!({"a": "5", "b": "15", "c": "10"})
    );
    // Together b reads the doubled a: 10 × 3 = 30, in either order.
    for names in [["doubled", "tripled"], ["tripled", "doubled"]] {
        let both = rb.ablated_all(&names).expect("combinable");
        assert_eq!(
            answer(&both, &case),
            json!({"a": "10", "b": "30", "c": "10"})
        );
        assert_eq!(
            both.applied_ablations().collect::<Vec<_>>(),
            names.to_vec(),
            "listed in the order given"
        );
        assert_eq!(both.ablation_label().as_deref(), Some(&*names.join(",")));
    }
    // One more on an ablated copy adds to its list.
    let more = doubled.ablated("tripled").expect("combinable");
    assert_eq!(more.ablation_label().as_deref(), Some("doubled,tripled"));
    // None at all is the rulebook as written.
    let none = rb.ablated_all(&[]).expect("nothing to apply");
    assert_eq!(none.ablation_label(), None);
    assert_eq!(answer(&none, &case), answer(&rb, &case));
}

#[test]
fn ablations_that_cannot_apply_together_are_refused_by_name() {
    let rb = demo();
    let err = |names: &[&str]| rb.ablated_all(names).expect_err("refused");
    assert_eq!(
        err(&["doubled", "tripled", "also_a"]),
        "ablations `doubled` and `also_a` both replace step `a`, so they cannot apply together"
    );
    assert_eq!(
        err(&["doubled", "doubled"]),
        "ablation `doubled` is named twice"
    );
    assert_eq!(
        err(&["doubled", "nope"]),
        "unknown ablation `nope`; combo-demo declares: doubled, tripled, also_a, loop_a, loop_b"
    );
    assert_eq!(
        err(&["doubled", ""]),
        "an empty ablation name: separate the names with commas, as in `a,b`"
    );
    // Each alone is acyclic (the checker proved it); together c → b → a → c.
    assert!(rb.ablated("loop_a").is_ok() && rb.ablated("loop_b").is_ok());
    assert_eq!(
        err(&["loop_a", "loop_b"]),
        "ablations loop_a,loop_b together make steps depend on each other in a cycle: a → c → b → a"
    );
}

#[test]
fn a_single_ablation_is_named_in_traces_as_before_and_several_joined() {
    let rb = demo();
    let case = json!({"x": "5"});
    let trace = |rb: &Rulebook| {
        let (_, trace) = evaluate_json(rb, &case, true).expect("evaluates");
        trace.expect("asked for")
    };
    let one = trace(&rb.ablated("doubled").expect("declared"));
    assert_eq!(one.ablation.as_deref(), Some("doubled"));
    assert!(bareme::render_text(&one)
        .contains("\nablation doubled (an alternative reading, not the rules)\n"));
    let two = trace(&rb.ablated_all(&["doubled", "tripled"]).expect("combinable"));
    assert_eq!(two.ablation.as_deref(), Some("doubled,tripled"));
    assert!(bareme::render_text(&two)
        .contains("\nablation doubled,tripled (an alternative reading, not the rules)\n"));
    // A rejection's trace names them too.
    let (outcome, rejected) = evaluate_json(
        &rb.ablated_all(&["doubled", "tripled"]).expect("combinable"),
        &json!({}),
        true,
    )
    .expect("evaluates");
    assert!(matches!(outcome, Outcome::Rejected(_)));
    assert_eq!(
        rejected.expect("asked for").ablation.as_deref(),
        Some("doubled,tripled")
    );
}
