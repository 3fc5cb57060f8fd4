//! The road from a JSON case to an outcome: validate, then evaluate (its
//! JSON is written by `outcome`, the one writer).
//!
//! It sits above both the validator (`case`) and the evaluator (`eval`), so
//! neither calls the other to compose them.

use crate::case::{validate_case, validate_case_text, CaseText};
use crate::eval::evaluate;
use crate::facts::{CaseError, Facts};
use crate::model::Rulebook;
use crate::outcome::{write_outcome, EvalError, Outcome};
use crate::trace::{OutcomeTrace, Trace};

/// Validates and evaluates a JSON case, optionally tracing.
///
/// ```
/// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// let case = serde_json::json!({"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"});
/// let (outcome, _) = bareme::evaluate_value(&rb, &case, false)?;
/// let bareme::Outcome::Answer(answer) = outcome else { panic!("rejected") };
/// assert_eq!(answer.to_json()["net_pay"], "2237.50");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn evaluate_value(
    rb: &Rulebook,
    case: &serde_json::Value,
    trace: bool,
) -> Result<(Outcome, Option<Trace>), EvalError> {
    evaluate_validated(rb, validate_case(rb, case), trace)
}

/// Validates and evaluates a case read from its text, as [`evaluate_value`]
/// does the same case read into a `serde_json::Value`.
///
/// ```
/// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// let text = bareme::unstable::case::CaseText::from_bytes(br#"{"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-13"}"#)?;
/// let (outcome, _) = bareme::unstable::evaluation::evaluate_text(&rb, &text, false)?;
/// assert!(matches!(outcome, bareme::Outcome::Rejected(e) if e.path == "payroll_month"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn evaluate_text(
    rb: &Rulebook,
    case: &CaseText<'_>,
    trace: bool,
) -> Result<(Outcome, Option<Trace>), EvalError> {
    evaluate_validated(rb, validate_case_text(rb, case), trace)
}

/// Validates and evaluates a case read from its text, untraced, and writes
/// its outcome to `out` as `eval --batch` writes a line ([`write_outcome`]).
///
/// ```
/// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// let text = bareme::unstable::case::CaseText::from_bytes(br#"{"task": "retrieval", "field": "contribution_rate", "payroll_month": "2026-03"}"#)?;
/// let mut line = Vec::new();
/// bareme::unstable::evaluation::write_evaluation(&mut line, &rb, &text);
/// assert!(String::from_utf8(line)?.contains(r#""value":"0.05""#));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_evaluation(out: &mut Vec<u8>, rb: &Rulebook, case: &CaseText<'_>) {
    let result = evaluate_validated(rb, validate_case_text(rb, case), false);
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
