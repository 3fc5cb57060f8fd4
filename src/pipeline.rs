//! The road from a JSON case to an outcome: validate, then evaluate; and the
//! outcome as one JSON value, as `bareme eval --batch` prints it.
//!
//! It sits above both the validator (`case`) and the evaluator (`eval`), so
//! neither calls the other to compose them.

use crate::case::validate_case;
use crate::eval::{evaluate, EvalError, Outcome};
use crate::model::Rulebook;
use crate::trace::{OutcomeTrace, Trace};

/// Validates and evaluates a JSON case, optionally tracing.
pub fn evaluate_json(
    rb: &Rulebook,
    case: &serde_json::Value,
    trace: bool,
) -> Result<(Outcome, Option<Trace>), EvalError> {
    match validate_case(rb, case) {
        Ok(facts) => evaluate(rb, &facts, trace),
        Err(error) => {
            let trace = trace.then(|| Trace {
                rulebook: rb.reference(),
                ablation: rb.ablation_label(),
                reports: Vec::new(),
                inputs: Vec::new(),
                events: Vec::new(),
                outcome: OutcomeTrace::Rejected {
                    error: error.clone(),
                },
            });
            Ok((Outcome::Rejected(error), trace))
        }
    }
}

/// An outcome as one JSON value, as `bareme eval --batch` prints it: the
/// answer, or `{"error": {"path", "message"}}` for a rejection, and for a
/// fault of the rulebook with the path `$`. Two outcomes are the same answer
/// (or rejection) exactly when these values are equal.
pub fn outcome_json(result: Result<&Outcome, &EvalError>) -> serde_json::Value {
    match result {
        Ok(Outcome::Answer(answer)) => answer.clone(),
        Ok(Outcome::Rejected(err)) => error_json(&err.path, &err.message),
        Err(e) => error_json("$", &format!("the rulebook failed on this case: {e}")),
    }
}

/// `{"error": {"path": PATH, "message": MESSAGE}}`: a batch line that is no answer.
pub fn error_json(path: &str, message: &str) -> serde_json::Value {
    serde_json::json!({"error": {"path": path, "message": message}})
}
