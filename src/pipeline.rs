//! The road from a JSON case to an outcome: validate, then evaluate; and the
//! outcome as one JSON value, as `bareme eval --batch` prints it, or written
//! straight to text.
//!
//! It sits above both the validator (`case`) and the evaluator (`eval`), so
//! neither calls the other to compose them.

use crate::case::{validate_case, validate_case_json, CaseJson};
use crate::eval::{evaluate, evaluate_written, EvalError, Outcome};
use crate::facts::{CaseError, Facts};
use crate::model::Rulebook;
use crate::trace::{write_json_string, write_trace_json, OutcomeTrace, Trace};

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
/// its outcome to `out`: the bytes [`write_outcome`] writes for what
/// [`evaluate_case_json`] gives, the answer written as it is evaluated
/// rather than built as a `serde_json::Value` first (for `eval --batch`,
/// where that value cost a sales-tax cart more than its evaluation).
pub fn evaluate_case_json_to(out: &mut Vec<u8>, rb: &Rulebook, case: &CaseJson<'_>) {
    match validate_case_json(rb, case) {
        Err(error) => write_error(out, &error.path, &error.message),
        Ok(facts) => match evaluate_written(rb, &facts, out) {
            Ok(None) => {}
            Ok(Some(error)) => write_error(out, &error.path, &error.message),
            Err(e) => write_error(out, "$", &fault_message(&e)),
        },
    }
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

/// An outcome as one JSON value, as `bareme eval --batch` prints it: the
/// answer, or `{"error": {"path", "message"}}` for a rejection, and for a
/// fault of the rulebook with the path `$`. Two outcomes are the same answer
/// (or rejection) exactly when these values are equal.
pub fn outcome_json(result: Result<&Outcome, &EvalError>) -> serde_json::Value {
    match result {
        Ok(Outcome::Answer(answer)) => answer.clone(),
        Ok(Outcome::Rejected(err)) => error_json(&err.path, &err.message),
        Err(e) => error_json("$", &fault_message(e)),
    }
}

/// `{"error": {"path": PATH, "message": MESSAGE}}`: a batch line that is no answer.
pub fn error_json(path: &str, message: &str) -> serde_json::Value {
    serde_json::json!({"error": {"path": path, "message": message}})
}

/// Writes what [`outcome_json`] gives as text, without building it: the
/// answer serialised where it lies, a rejection or a fault written out.
/// The bytes are those of `outcome_json(result).to_string()`.
pub fn write_outcome(out: &mut Vec<u8>, result: Result<&Outcome, &EvalError>) {
    match result {
        Ok(Outcome::Answer(answer)) => write_json(out, answer),
        Ok(Outcome::Rejected(err)) => write_error(out, &err.path, &err.message),
        Err(e) => write_error(out, "$", &fault_message(e)),
    }
}

/// Writes what [`error_json`] gives as text, without building it.
pub fn write_error(out: &mut Vec<u8>, path: &str, message: &str) {
    out.extend_from_slice(b"{\"error\":{\"path\":");
    write_json_string(out, path);
    out.extend_from_slice(b",\"message\":");
    write_json_string(out, message);
    out.extend_from_slice(b"}}");
}

/// The message of a batch line whose case the rulebook failed on.
fn fault_message(e: &EvalError) -> String {
    format!("the rulebook failed on this case: {e}")
}

/// `{KEY: VALUE, "trace": TRACE}` on one line, as `eval --trace json` and
/// `eval --batch --trace json` write a case (`KEY` is `answer`, or `error`
/// for a rejection), written straight to the buffer: building it as a
/// `serde_json::Value` first took most of a traced line's time (a map per
/// trace event), and serde's own writer most of the rest.
pub fn write_traced(
    out: &mut Vec<u8>,
    key: &str,
    value: &(impl serde::Serialize + ?Sized),
    trace: &Trace,
) {
    out.push(b'{');
    write_json(out, key);
    out.push(b':');
    write_json(out, value);
    out.extend_from_slice(b",\"trace\":");
    write_trace_json(out, trace);
    out.push(b'}');
}

/// serde_json's compact text of a value; writing to a `Vec` cannot fail,
/// and a `Value` or a text has nothing that cannot be written.
fn write_json(out: &mut Vec<u8>, value: &(impl serde::Serialize + ?Sized)) {
    let _ = serde_json::to_writer(out, value);
}
