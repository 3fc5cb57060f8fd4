//! The road from a JSON case to an outcome: validate, then evaluate.
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
