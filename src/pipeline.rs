//! The road from a JSON case to an outcome: validate, then evaluate (its
//! JSON is written by `outcome`, the one writer).
//!
//! It sits above both the validator (`case`) and the evaluator (`eval`), so
//! neither calls the other to compose them.

use crate::case::{validate_case, validate_case_json, CaseJson};
use crate::eval::evaluate;
use crate::facts::{CaseError, Facts};
use crate::model::Rulebook;
use crate::outcome::{write_outcome, EvalError, Outcome};
use crate::trace::{OutcomeTrace, Trace};

/// Validates and evaluates a JSON case, optionally tracing.
pub fn evaluate_json(
    rb: &Rulebook,
    case: &serde_json::Value,
    trace: bool,
) -> Result<(Outcome, Option<Trace>), EvalError> {
    evaluate_validated(rb, validate_case(rb, case), trace)
}

/// Validates and evaluates a case read from its text, as [`evaluate_json`]
/// does the same case read into a `serde_json::Value`.
pub fn evaluate_case_json(
    rb: &Rulebook,
    case: &CaseJson<'_>,
    trace: bool,
) -> Result<(Outcome, Option<Trace>), EvalError> {
    evaluate_validated(rb, validate_case_json(rb, case), trace)
}

/// Validates and evaluates a case read from its text, untraced, and writes
/// its outcome to `out` as `eval --batch` writes a line ([`write_outcome`]).
pub fn evaluate_case_json_to(out: &mut Vec<u8>, rb: &Rulebook, case: &CaseJson<'_>) {
    let result = evaluate_validated(rb, validate_case_json(rb, case), false);
    write_outcome(out, result.as_ref().map(|(outcome, _)| outcome));
}

/// Evaluates a validated case; a rejection is the outcome (with a trace
/// that holds only it).
fn evaluate_validated(
    rb: &Rulebook,
    validated: Result<Facts, CaseError>,
    trace: bool,
) -> Result<(Outcome, Option<Trace>), EvalError> {
    match validated {
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
