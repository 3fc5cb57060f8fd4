//! Regressions of the hardening round: each test failed before its fix.

use bareme::{evaluate_json, parse_rulebook, EvalError, Outcome, Rulebook};

/// A rulebook of one decimal input `x`, the given steps (name, formula), and
/// one answer field `v` reading `answer`.
fn rulebook(steps: &[(&str, &str)], answer: &str) -> Rulebook {
    let mut text = String::from(
        "[rulebook]\nid = \"h\"\nversion = 1\nschema = 1\n\n[inputs.x]\ntype = \"decimal\"\nnumbers = \"plain\"\n\n",
    );
    for (name, expr) in steps {
        text.push_str(&format!("[steps.{name}]\nexpr = \"{expr}\"\n\n"));
    }
    text.push_str(&format!(
        "[[checks]]\ndecision = \"d\"\n\n[decisions.d.answer]\nv = {{ expr = \"{answer}\" }}\n"
    ));
    match parse_rulebook("h.toml", &text) {
        Ok(rb) => rb,
        Err(d) => panic!("{}", d.render(100, false)),
    }
}

/// The rulebook's fault on `x`, traced and untraced (they must agree).
fn fault(rb: &Rulebook, x: &str) -> EvalError {
    let case = serde_json::json!({ "x": x });
    let traced = evaluate_json(rb, &case, true).expect_err("a rulebook fault");
    let untraced = evaluate_json(rb, &case, false).expect_err("a rulebook fault");
    assert_eq!(traced, untraced, "both roads name the same fault");
    traced
}

#[test]
fn a_fault_snippet_keeps_its_brackets() {
    let rb = rulebook(&[("s", "(1) / (x - x)")], "s");
    let e = fault(&rb, "1");
    assert_eq!(e.snippet, "(1) / (x - x)");
    assert_eq!(e.message, "division by zero (1 / 0)");
}

#[test]
fn a_vanishing_negative_power_is_an_overflow_not_a_division() {
    let rb = rulebook(&[("s", "pow(x, -4096)")], "s");
    let e = fault(&rb, "0.5");
    assert_eq!(e.message, "0.5^-4096 overflows the exact decimal range");
}

#[test]
fn an_answer_still_comes_out() {
    let rb = rulebook(&[("s", "(x + 1) * 2")], "s");
    let case = serde_json::json!({ "x": "1.5" });
    let (outcome, _) = evaluate_json(&rb, &case, false).expect("no fault");
    assert_eq!(outcome, Outcome::Answer(serde_json::json!({ "v": "5.0" })));
}
