//! What evaluating a case gives, as data and as one line of JSON text.
//!
//! An evaluation ends in an [`Outcome`]: a typed [`Answer`] (the decision's
//! fields in declared order, each in its format) or a rejection; or in an
//! [`EvalError`], a fault of the rulebook. The interpreter builds the answer
//! in one walk over the decision's outputs (`eval::answer`), and compiled
//! code builds the same one (`compiled::rt`).
//!
//! Every JSON text of an outcome is written here, by one writer: the answer
//! ([`Answer::write_json`], and its `Display`), the line `bareme eval
//! --batch` prints for a case ([`write_outcome`]: the answer, or
//! `{"error": {"path", "message"}}`), and the `{"answer", "trace"}` line of
//! a traced evaluation ([`write_traced`], [`write_traced_compact`]). The bytes are those `serde_json`
//! writes for the same JSON (compact, keys in declared order): callers that
//! want a `serde_json::Value` take it at the edge ([`Answer::to_json`],
//! [`outcome_json`]), and tests hold it to the written text.

use chrono::NaiveDate;
use rust_decimal::Decimal;
use std::fmt;
use std::sync::Arc;

use crate::facts::CaseError;
use crate::json::{
    write_bool, write_decimal, write_list, write_object, write_quoted_decimal,
    write_string as write_json_string,
};
use crate::span::Span;
use crate::trace::{write_trace_json, write_trace_json_compact, Trace, TraceTooLarge};
use crate::value::{decimal_text, Month};

/// A fault of the rulebook met while evaluating a case (not a fault of the case).
///
/// ```
/// // A rulebook whose formula divides by an input that may be zero:
/// // a fault of the rulebook, not of the case.
/// let text = "[rulebook]\nid = \"h\"\nversion = 1\nschema = 1\n\n[inputs.x]\ntype = \"decimal\"\nrequired = true\n\n[steps.s]\nexpr = \"1 / x\"\n\n[[checks]]\ndecision = \"d\"\n\n[decisions.d.answer]\nv = { expr = \"s\" }\n";
/// let rb = bareme::parse_rulebook("h.toml", text)?;
/// let fault = bareme::evaluate_value(&rb, &serde_json::json!({"x": "0"}), false).unwrap_err();
/// assert_eq!((fault.message.as_str(), fault.context.as_str()), ("division by zero (1 / 0)", "step s"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{message} (in {context}: `{snippet}`)")]
pub struct EvalError {
    /// What went wrong.
    pub message: String,
    /// Where: `step employee_contribution`, `check 3`, `answer field net_pay`.
    pub context: String,
    /// The text of the failing part of the formula.
    pub snippet: String,
    /// Its span in the formula.
    pub span: Span,
}

impl EvalError {
    /// The stable code of a rulebook's fault met while evaluating,
    /// `eval::fault`: the case was fine, the rulebook could not answer it
    /// (division by zero, a budget spent, an overflow).
    pub fn code(&self) -> &'static str {
        "eval::fault"
    }
}

/// How an evaluation ended.
///
/// ```
/// let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// let case = serde_json::json!({"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"});
/// match bareme::evaluate_value(&rb, &case, false)?.0 {
///     bareme::Outcome::Answer(answer) => assert_eq!(answer.to_json()["taxable_pay"], "2375.00"),
///     bareme::Outcome::Rejected(why) => panic!("{why}"),
///     _ => unreachable!("no other outcome today"),
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Outcome {
    /// The decision's answer.
    Answer(Answer),
    /// The case was rejected by validation or by a check.
    Rejected(CaseError),
}

/// A decision's answer: its fields in declared order, each in its format.
///
/// Two answers are equal when their JSON is: the decision that chose them
/// is not part of it (an answer shows it only through a field).
///
/// ```
/// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// # let case = serde_json::json!({"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"});
/// let bareme::Outcome::Answer(answer) = bareme::evaluate_value(&rb, &case, false)?.0 else { panic!() };
/// assert_eq!(&*answer.decision, "calculate");
/// assert_eq!(answer.to_string(), answer.to_json().to_string());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Answer {
    /// The decision taken (its name, shared with the rulebook).
    pub decision: Arc<str>,
    /// The answer's fields.
    pub fields: Fields,
}

/// An object of an answer: named values in declared order, the names shared
/// with the rulebook. Equal as JSON objects are, whatever their order.
///
/// ```
/// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// # let case = serde_json::json!({"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"});
/// let bareme::Outcome::Answer(answer) = bareme::evaluate_value(&rb, &case, false)?.0 else { panic!() };
/// let names: Vec<&str> = answer.fields.iter().map(|(name, _)| name).collect();
/// assert_eq!(names[..2], ["decision", "currency"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Fields(pub Vec<(Arc<str>, AnswerValue)>);

/// One value of an answer, in the format its rulebook declares.
///
/// ```
/// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// # let case = serde_json::json!({"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"});
/// let bareme::Outcome::Answer(answer) = bareme::evaluate_value(&rb, &case, false)?.0 else { panic!() };
/// let (name, value) = answer.fields.iter().next().expect("a field");
/// assert_eq!(name, "decision");
/// assert!(matches!(value, bareme::AnswerValue::Text(t) if &**t == "calculate"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum AnswerValue {
    /// A decimal written as a JSON string, every digit of its scale kept
    /// (`fixed` brings it to its places, `decimal` keeps it as computed).
    Amount(Decimal),
    /// A decimal written as a JSON number (`integer`, `number`).
    Number(Decimal),
    /// A text.
    Text(Arc<str>),
    /// `true` or `false`.
    Bool(bool),
    /// A date, written `YYYY-MM-DD` (`calendar`).
    Date(NaiveDate),
    /// A month, written `YYYY-MM` (`calendar`).
    Month(Month),
    /// The clauses the answer cites, in order.
    Clauses(Vec<Arc<str>>),
    /// A group's items in order, one object each.
    List(Vec<Fields>),
    /// A group's items by their keys, in order, one object each.
    Keyed(Vec<(Arc<str>, Fields)>),
}

impl Answer {
    /// The answer's value under `key`, if it has that field.
    ///
    /// ```
    /// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
    /// # let case = serde_json::json!({"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"});
    /// # let bareme::Outcome::Answer(answer) = bareme::evaluate_value(&rb, &case, false)?.0 else { panic!() };
    /// let net = answer.get("net_pay");
    /// assert!(matches!(net, Some(bareme::AnswerValue::Amount(d)) if d.to_string() == "2237.50"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get(&self, key: &str) -> Option<&AnswerValue> {
        self.fields.get(key)
    }

    /// Appends the answer's JSON text to `out`.
    ///
    /// ```
    /// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
    /// # let case = serde_json::json!({"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"});
    /// # let bareme::Outcome::Answer(answer) = bareme::evaluate_value(&rb, &case, false)?.0 else { panic!() };
    /// let mut out = Vec::new();
    /// answer.write_json(&mut out);
    /// assert_eq!(out, answer.to_string().into_bytes());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_json(&self, out: &mut Vec<u8>) {
        write_fields(out, &self.fields);
    }

    /// The answer as a `serde_json::Value`: the value `serde_json` reads
    /// from [`Answer::write_json`]'s text.
    ///
    /// ```
    /// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
    /// # let case = serde_json::json!({"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"});
    /// # let bareme::Outcome::Answer(answer) = bareme::evaluate_value(&rb, &case, false)?.0 else { panic!() };
    /// assert_eq!(answer.to_json()["clauses"][0], "R1");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::Value::from(self)
    }
}

impl PartialEq for Answer {
    fn eq(&self, other: &Answer) -> bool {
        self.fields == other.fields
    }
}

/// The answer's JSON text, compact.
impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = Vec::new();
        self.write_json(&mut out);
        f.write_str(&String::from_utf8_lossy(&out))
    }
}

impl Fields {
    /// The value under `key`.
    pub fn get(&self, key: &str) -> Option<&AnswerValue> {
        self.0.iter().find(|(k, _)| &**k == key).map(|(_, v)| v)
    }

    /// The named values, in order.
    ///
    /// ```
    /// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
    /// # let case = serde_json::json!({"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"});
    /// # let bareme::Outcome::Answer(answer) = bareme::evaluate_value(&rb, &case, false)?.0 else { panic!() };
    /// assert_eq!(answer.fields.iter().count(), 9);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = (&str, &AnswerValue)> {
        self.0.iter().map(|(k, v)| (&**k, v))
    }
}

impl PartialEq for Fields {
    fn eq(&self, other: &Fields) -> bool {
        same_object(&self.0, &other.0)
    }
}

impl PartialEq for AnswerValue {
    /// Equal when their JSON is: a decimal by its digits and scale, as it is
    /// written (`12.30` is not `12.3`), objects whatever their order.
    fn eq(&self, other: &AnswerValue) -> bool {
        use AnswerValue::*;
        match (self, other) {
            (Amount(a), Amount(b)) | (Number(a), Number(b)) => same_digits(a, b),
            (Text(a), Text(b)) => a == b,
            (Bool(a), Bool(b)) => a == b,
            (Date(a), Date(b)) => a == b,
            (Month(a), Month(b)) => a == b,
            (Clauses(a), Clauses(b)) => a == b,
            (List(a), List(b)) => a == b,
            (Keyed(a), Keyed(b)) => same_object(a, b),
            // Values of two formats can still write the same JSON (an
            // amount and a text `"12.30"`, no clauses and no items).
            _ => serde_json::Value::from(self) == serde_json::Value::from(other),
        }
    }
}

/// Whether two decimals are written alike: the same digits at the same scale.
fn same_digits(a: &Decimal, b: &Decimal) -> bool {
    a.mantissa() == b.mantissa() && a.scale() == b.scale()
}

/// Whether two objects are equal as JSON objects: the same keys, each with
/// an equal value, in any order (keys are unique within an object).
fn same_object<V: PartialEq>(a: &[(Arc<str>, V)], b: &[(Arc<str>, V)]) -> bool {
    a.len() == b.len()
        && a.iter().enumerate().all(|(i, (key, value))| {
            // Most objects compared hold their keys in one order.
            match b.get(i) {
                Some((k, v)) if k == key => v == value,
                _ => b.iter().any(|(k, v)| k == key && v == value),
            }
        })
}

/// `{"key":value,…}`.
fn write_fields(out: &mut Vec<u8>, fields: &Fields) {
    write_object(out, fields.0.iter().map(|(k, v)| (&**k, v)), write_value);
}

/// One value's JSON text.
pub(crate) fn write_value(out: &mut Vec<u8>, value: &AnswerValue) {
    match value {
        AnswerValue::Amount(d) => write_quoted_decimal(out, d),
        // A decimal's text is a JSON number, which serde_json (with
        // `arbitrary_precision`) keeps and writes as written.
        AnswerValue::Number(d) => write_decimal(out, d),
        AnswerValue::Text(t) => write_json_string(out, t),
        AnswerValue::Bool(b) => write_bool(out, *b),
        AnswerValue::Date(_) | AnswerValue::Month(_) => {
            write_json_string(out, &calendar_text(value).unwrap_or_default())
        }
        AnswerValue::Clauses(clauses) => write_list(out, clauses.iter(), write_json_string),
        AnswerValue::List(items) => write_list(out, items.iter(), write_fields),
        AnswerValue::Keyed(items) => {
            write_object(out, items.iter().map(|(k, f)| (&**k, f)), write_fields)
        }
    }
}

/// A calendar value's text, as a trace shows it (`Value`'s `Display`).
fn calendar_text(value: &AnswerValue) -> Option<String> {
    match value {
        AnswerValue::Date(d) => Some(d.format("%Y-%m-%d").to_string()),
        AnswerValue::Month(m) => Some(m.to_string()),
        _ => None,
    }
}

impl AnswerValue {
    /// The text of a value written as a JSON string (an amount, a text, a
    /// date or a month), without its quotes; `None` for any other.
    pub fn as_text(&self) -> Option<String> {
        match self {
            AnswerValue::Amount(d) => Some(decimal_text(d)),
            AnswerValue::Text(t) => Some(String::from(&**t)),
            AnswerValue::Date(_) | AnswerValue::Month(_) => calendar_text(self),
            _ => None,
        }
    }
}

impl From<&Fields> for serde_json::Value {
    fn from(fields: &Fields) -> serde_json::Value {
        serde_json::Value::Object(
            fields
                .0
                .iter()
                .map(|(k, v)| (String::from(&**k), serde_json::Value::from(v)))
                .collect(),
        )
    }
}

impl From<&AnswerValue> for serde_json::Value {
    fn from(value: &AnswerValue) -> serde_json::Value {
        use serde_json::Value as Json;
        match value {
            AnswerValue::Number(d) => {
                let text = decimal_text(d);
                // A decimal's text is always a JSON number.
                match serde_json::from_str::<serde_json::Number>(&text) {
                    Ok(n) => Json::Number(n),
                    Err(_) => Json::String(text),
                }
            }
            AnswerValue::Bool(b) => Json::Bool(*b),
            AnswerValue::Clauses(clauses) => Json::Array(
                clauses
                    .iter()
                    .map(|c| Json::String(String::from(&**c)))
                    .collect(),
            ),
            AnswerValue::List(items) => Json::Array(items.iter().map(Json::from).collect()),
            AnswerValue::Keyed(items) => Json::Object(
                items
                    .iter()
                    .map(|(k, item)| (String::from(&**k), Json::from(item)))
                    .collect(),
            ),
            AnswerValue::Amount(_)
            | AnswerValue::Text(_)
            | AnswerValue::Date(_)
            | AnswerValue::Month(_) => Json::String(value.as_text().unwrap_or_default()),
        }
    }
}

/// The answer as a `serde_json::Value` ([`Answer::to_json`]).
impl From<&Answer> for serde_json::Value {
    fn from(answer: &Answer) -> serde_json::Value {
        serde_json::Value::from(&answer.fields)
    }
}

/// The message of a line whose case the rulebook failed on (its path is `$`).
pub fn fault_message(e: &EvalError) -> String {
    format!("the rulebook failed on this case: {e}")
}

/// Writes an outcome as one line of `bareme eval --batch`: the answer, or
/// `{"error": {"path", "message"}}` for a rejection, and for a fault of the
/// rulebook with the path `$`. Two outcomes are the same answer (or
/// rejection) exactly when these texts are equal as JSON.
///
/// ```
/// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// # let case = serde_json::json!({"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"});
/// let result = bareme::evaluate_value(&rb, &case, false);
/// let mut line = Vec::new();
/// bareme::unstable::outcome::write_outcome(&mut line, result.as_ref().map(|(outcome, _)| outcome));
/// assert!(line.starts_with(br#"{"decision":"calculate""#));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_outcome(out: &mut Vec<u8>, result: Result<&Outcome, &EvalError>) {
    match result {
        Ok(Outcome::Answer(answer)) => answer.write_json(out),
        Ok(Outcome::Rejected(err)) => write_error(out, &err.path, &err.message),
        Err(e) => write_error(out, "$", &fault_message(e)),
    }
}

/// Writes `{"error": {"path": PATH, "message": MESSAGE}}`: a batch line that
/// is no answer.
pub fn write_error(out: &mut Vec<u8>, path: &str, message: &str) {
    out.extend_from_slice(b"{\"error\":");
    write_case_error(out, path, message);
    out.push(b'}');
}

/// `{"path": PATH, "message": MESSAGE}`, a rejection as JSON.
fn write_case_error(out: &mut Vec<u8>, path: &str, message: &str) {
    out.extend_from_slice(b"{\"path\":");
    write_json_string(out, path);
    out.extend_from_slice(b",\"message\":");
    write_json_string(out, message);
    out.push(b'}');
}

/// An outcome as the `serde_json::Value` of the line [`write_outcome`]
/// writes, for callers that compare it with JSON read elsewhere (a task's
/// `expected`).
///
/// ```
/// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// let case = serde_json::json!({"task": "payslip", "gross_pay": "-1", "payroll_month": "2026-03"});
/// let result = bareme::evaluate_value(&rb, &case, false);
/// let json = bareme::unstable::outcome::outcome_json(result.as_ref().map(|(outcome, _)| outcome));
/// assert_eq!(json["error"]["path"], "gross_pay");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn outcome_json(result: Result<&Outcome, &EvalError>) -> serde_json::Value {
    let error = |path: &str, message: &str| serde_json::json!({"error": {"path": path, "message": message}});
    match result {
        Ok(Outcome::Answer(answer)) => answer.to_json(),
        Ok(Outcome::Rejected(err)) => error(&err.path, &err.message),
        Err(e) => error("$", &fault_message(e)),
    }
}

/// Whether two results write the same line ([`write_outcome`]) as JSON,
/// without writing either: a fault's line is a rejection at `$`.
pub fn same_line(a: Result<&Outcome, &EvalError>, b: Result<&Outcome, &EvalError>) -> bool {
    match (a, b) {
        (Ok(Outcome::Answer(a)), Ok(Outcome::Answer(b))) => a == b,
        (Ok(Outcome::Answer(_)), _) | (_, Ok(Outcome::Answer(_))) => false,
        (Ok(Outcome::Rejected(a)), Ok(Outcome::Rejected(b))) => a == b,
        (Err(a), Err(b)) => fault_message(a) == fault_message(b),
        (Ok(Outcome::Rejected(r)), Err(e)) | (Err(e), Ok(Outcome::Rejected(r))) => {
            r.path == "$" && r.message == fault_message(e)
        }
    }
}

/// Writes `{KEY: VALUE, "trace": TRACE}` on one line, as `eval --trace json`
/// and `eval --batch --trace json` write a case: `KEY` is `answer`, or
/// `error` for a rejection (`{"path", "message"}`); nothing when the trace
/// would pass `trace::MAX_TRACE_BYTES`.
///
/// ```
/// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// # let case = serde_json::json!({"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"});
/// let (outcome, trace) = bareme::evaluate_value(&rb, &case, true)?;
/// let mut line = Vec::new();
/// bareme::unstable::outcome::write_traced(&mut line, &outcome, &trace.expect("asked for"))?;
/// let json: serde_json::Value = serde_json::from_slice(&line)?;
/// assert_eq!(json["answer"]["net_pay"], "2237.50");
/// assert!(json["trace"].is_object());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_traced(
    out: &mut Vec<u8>,
    outcome: &Outcome,
    trace: &Trace,
) -> Result<(), TraceTooLarge> {
    traced_line(out, outcome, trace, write_trace_json)
}

/// The same line with the trace in the compact format 2, as `eval --trace
/// json-compact` writes a case (`trace::write_trace_json_compact`).
pub fn write_traced_compact(
    out: &mut Vec<u8>,
    outcome: &Outcome,
    trace: &Trace,
) -> Result<(), TraceTooLarge> {
    traced_line(out, outcome, trace, write_trace_json_compact)
}

/// `{KEY: VALUE, "trace": TRACE}` with the trace written by `write`; the
/// line taken back whole when the trace is too large (the trace writers
/// take back only what they wrote).
fn traced_line(
    out: &mut Vec<u8>,
    outcome: &Outcome,
    trace: &Trace,
    write: fn(&mut Vec<u8>, &Trace) -> Result<(), TraceTooLarge>,
) -> Result<(), TraceTooLarge> {
    let start = out.len();
    match outcome {
        Outcome::Answer(answer) => {
            out.extend_from_slice(b"{\"answer\":");
            answer.write_json(out);
        }
        Outcome::Rejected(err) => {
            out.extend_from_slice(b"{\"error\":");
            write_case_error(out, &err.path, &err.message);
        }
    }
    out.extend_from_slice(b",\"trace\":");
    if let Err(e) = write(out, trace) {
        out.truncate(start);
        return Err(e);
    }
    out.push(b'}');
    Ok(())
}

#[cfg(test)]
mod tests;
