//! What list built-ins spend (`tests/lists`): each reads or makes a whole
//! list or map in one node and spends a unit per item (a text read whole,
//! a unit per 64 bytes), on the interpreter's
//! roads and in compiled code (`tests/compiled/lists.rs`), which must never
//! answer a case the interpreter's budget stops. Before the compiled code
//! counted items, `sum(xs)` over 5,000 amounts spent 4 units there and
//! 5,001 in the interpreter.

use bareme::{evaluate, validate_case, Outcome};

#[rustfmt::skip]
#[path = "../compiled/lists.rs"]
mod lists_compiled;

const DIR: &str = "tests/lists";

#[test]
fn the_lists_rulebook_passes_its_cases() {
    let rb = super::rulebook(DIR);
    let (cases, failures) = super::conformance::failures_of(&rb, &super::root().join(DIR));
    assert_eq!(cases, 1);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn its_compiled_module_is_current_and_agrees_with_the_interpreter() {
    super::compiled::agrees_on_its_cases(&lists_compiled::COMPILED, DIR, "lists");
}

/// At every budget from what the interpreter needs down to a few hundred
/// units below it, the compiled module gives the interpreter's fault and
/// hands the case back; with the budget whole, it answers by itself.
#[test]
fn compiled_code_never_answers_where_the_interpreter_runs_out() {
    let rb = super::rulebook(DIR);
    let bound = super::compiled::bind(&lists_compiled::COMPILED, &rb, "lists");
    let amounts: Vec<String> = (1..=5_000).map(|i| format!("{i}.25")).collect();
    let names: serde_json::Map<String, serde_json::Value> = (0..3_000)
        .map(|i| (format!("k{i}"), serde_json::json!("1")))
        .collect();
    // 64,000 bytes: 1,000 units each time it is read or made whole.
    let note = "memo".repeat(16_000);
    let case = serde_json::json!({ "amounts": amounts, "names": names, "note": note });
    let mut facts = validate_case(&rb, &case).expect("a valid case");
    let max = rb.limits().max_eval_steps;
    let answers =
        |facts: &bareme::Facts| matches!(evaluate(&rb, facts, false), Ok((Outcome::Answer(_), _)));
    assert!(answers(&facts));
    assert!(bound.compiled_only(&facts).is_some());
    // The least budget left with which the interpreter answers.
    let (mut low, mut high) = (0, max - facts.spent);
    while low < high {
        let mid = low + (high - low) / 2;
        facts.spent = max - mid;
        match answers(&facts) {
            true => high = mid,
            false => low = mid + 1,
        }
    }
    let need = low;
    // sum and max read 5,000 items each, keys makes 3,000; the note is
    // read or made whole 8 times (upper's argument and result, len's
    // argument, slice's argument and result, both sides of `==`, match).
    assert!(need > 21_000, "{need}");
    for left in need.saturating_sub(300)..need {
        facts.spent = max - left;
        let interpreted = evaluate(&rb, &facts, false).map(|(o, _)| o);
        assert!(interpreted.is_err(), "{left}");
        assert_eq!(bound.compiled_only(&facts), None, "{left} of {need}");
        assert_eq!(
            bound.evaluate(&facts).map_err(|e| e.to_string()),
            interpreted.map_err(|e| e.to_string()),
            "{left}"
        );
    }
}
