//! The judge seam: who grades a non-empty explanation on a correct answer
//! the rubric's explanation rule covers (Luma rubric 8's clarifications).
//!
//! A [`Judge`] is given a [`JudgeRequest`] (the verified blocker, the
//! clauses that govern it and the explanation, as data) and returns a
//! [`Verdict`], the seed's three booleans; the grade is their mean. The
//! rubric never asks a judge about an empty or missing explanation (it
//! scores 0) nor about any other answer. [`Recorded`] keeps every verdict
//! keyed by a hash of its request, written as one JSON line to the
//! caller's writer as it comes, and answers a request it has seen from
//! that record, so re-scoring never asks twice and a record alone replays
//! a run. A judge's failure is a [`JudgeError`], never a score.
//!
//! Invariant: no IO but the caller's reader and writer; how a judge is
//! reached (a command, an endpoint) is the caller's (`bareme score --judge`
//! runs a command, `cli/judge.rs`).

use rust_decimal::Decimal;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fmt::Debug;
use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};

use crate::tasks::{read_json, JsonFault};

/// What a judge is asked: data, never instructions.
///
/// ```
/// let request = bareme::judge::JudgeRequest {
///     blocker: serde_json::json!({"reason_code": "MISSING_PAYROLL_MONTH"}),
///     clauses: vec!["R7".into()],
///     explanation: "Which payroll month is it?".into(),
/// };
/// assert_eq!(request.to_json()["clauses"][0], "R7");
/// assert_eq!(request.key().len(), 64);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JudgeRequest {
    /// The verified blocker: the reference answer's fields but its decision
    /// and clauses (Luma: `{"reason_code": "MISSING_PAYROLL_MONTH"}`).
    pub blocker: Value,
    /// The clauses that govern the explanation (the rubric's explanation
    /// clauses, then the reference's own not already named).
    pub clauses: Vec<String>,
    /// The reply's explanation, as written (never empty).
    pub explanation: String,
}

impl JudgeRequest {
    /// `{"blocker", "clauses", "explanation"}`: the one line a judge reads.
    pub fn to_json(&self) -> Value {
        json!({
            "blocker": self.blocker,
            "clauses": self.clauses,
            "explanation": self.explanation,
        })
    }

    /// The record's key: the SHA-256 of [`JudgeRequest::to_json`]'s text, in hex.
    pub fn key(&self) -> String {
        let digest = Sha256::digest(self.to_json().to_string().as_bytes());
        digest.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// A judge's verdict: the three criteria of the seed's judge prompt.
///
/// ```
/// let v = bareme::judge::Verdict::from_text(r#"{"identifies_blocker": true, "requests_resolution": true, "avoids_unsupported_answer": false}"#)?;
/// assert_eq!(v.grade(), rust_decimal::Decimal::from(2) / rust_decimal::Decimal::from(3));
/// assert_eq!(bareme::judge::Verdict::from_text("yes").unwrap_err().code(), "judge::malformed");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The explanation names the supplied blocker without inventing facts.
    pub identifies_blocker: bool,
    /// It asks for what resolves the blocker.
    pub requests_resolution: bool,
    /// It gives no confident final answer and claims nothing resolved.
    pub avoids_unsupported_answer: bool,
}

/// The verdict's keys, in the order they are written.
const CRITERIA: [&str; 3] = [
    "identifies_blocker",
    "requests_resolution",
    "avoids_unsupported_answer",
];

impl Verdict {
    /// The grade: the mean of the three booleans (0, 1/3, 2/3 or 1, to 28 digits).
    pub fn grade(&self) -> Decimal {
        let n = [
            self.identifies_blocker,
            self.requests_resolution,
            self.avoids_unsupported_answer,
        ]
        .iter()
        .filter(|b| **b)
        .count();
        Decimal::from(n as u64) / Decimal::from(3u64)
    }

    /// A judge's output: one JSON object holding exactly the three boolean
    /// criteria (JSON whitespace around it allowed), else `JudgeError::Malformed`.
    pub fn from_text(text: &str) -> Result<Verdict, JudgeError> {
        let bad = |why: &str| JudgeError::Malformed(why.to_string());
        let value = match read_json(text.trim()) {
            Ok(value) => value,
            Err(JsonFault::DuplicateKey { key, .. }) => {
                return Err(JudgeError::Malformed(format!(
                    "the judge's output holds `{key}` twice"
                )))
            }
            Err(_) => return Err(bad("the judge's output is not one JSON object")),
        };
        Verdict::from_json(&value)
    }

    /// A verdict read from JSON: exactly the three boolean criteria.
    pub fn from_json(value: &Value) -> Result<Verdict, JudgeError> {
        let bad = |why: String| JudgeError::Malformed(why);
        let map = value
            .as_object()
            .ok_or_else(|| bad("the judge's output is not a JSON object".into()))?;
        if let Some(k) = map.keys().find(|k| !CRITERIA.contains(&k.as_str())) {
            return Err(bad(format!("the judge's output has an unknown key `{k}`")));
        }
        let get = |k: &str| match map.get(k) {
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(bad(format!("the judge's `{k}` is not a boolean"))),
            None => Err(bad(format!("the judge's output has no `{k}`"))),
        };
        Ok(Verdict {
            identifies_blocker: get(CRITERIA[0])?,
            requests_resolution: get(CRITERIA[1])?,
            avoids_unsupported_answer: get(CRITERIA[2])?,
        })
    }

    /// The three criteria as a JSON object, in the seed's order.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert(CRITERIA[0].into(), json!(self.identifies_blocker));
        m.insert(CRITERIA[1].into(), json!(self.requests_resolution));
        m.insert(CRITERIA[2].into(), json!(self.avoids_unsupported_answer));
        Value::Object(m)
    }
}

/// Why a judge gave no verdict: an infrastructure error, never a score.
///
/// ```
/// let err = bareme::judge::Verdict::from_text(r#"{"identifies_blocker": 1}"#).unwrap_err();
/// assert_eq!(err.code(), "judge::malformed");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JudgeError {
    /// The judge could not be reached or run.
    #[error("the judge could not run: {0}")]
    Unavailable(String),
    /// The judge ended with a failure (a command's exit status, an HTTP status).
    #[error("the judge failed: {0}")]
    Failed(String),
    /// The judge gave no verdict in time.
    #[error("the judge gave no verdict within {0} s")]
    Timeout(u64),
    /// The judge's output is not the three booleans.
    #[error("the judge's verdict is malformed: {0}")]
    Malformed(String),
    /// Replaying a record without a judge, a request it does not hold.
    #[error("no verdict is recorded for this explanation (key {0}) and no judge is configured")]
    NotRecorded(String),
    /// A line of a verdict record cannot be read, or the record cannot be written.
    #[error("verdict record: {0}")]
    Record(String),
}

impl JudgeError {
    /// A stable code: `judge::unavailable`, `judge::failed`, `judge::timeout`,
    /// `judge::malformed`, `judge::not_recorded`, `judge::record`.
    pub fn code(&self) -> &'static str {
        match self {
            JudgeError::Unavailable(_) => "judge::unavailable",
            JudgeError::Failed(_) => "judge::failed",
            JudgeError::Timeout(_) => "judge::timeout",
            JudgeError::Malformed(_) => "judge::malformed",
            JudgeError::NotRecorded(_) => "judge::not_recorded",
            JudgeError::Record(_) => "judge::record",
        }
    }
}

/// A lock a panicking grading thread left behind.
fn poisoned<T>(_: T) -> JudgeError {
    JudgeError::Record("a grading thread failed".into())
}

/// Who grades explanations. Called from grading threads, hence `Sync`.
///
/// ```
/// #[derive(Debug)]
/// struct Lenient;
/// impl bareme::judge::Judge for Lenient {
///     fn judge(&self, _: &bareme::judge::JudgeRequest) -> Result<bareme::judge::Verdict, bareme::judge::JudgeError> {
///         Ok(bareme::judge::Verdict { identifies_blocker: true, requests_resolution: true, avoids_unsupported_answer: true })
///     }
/// }
/// let (rubric, _) = bareme::load_rubric("rulebooks/luma-payroll/rubric-8.toml".as_ref(), None)?;
/// let _scorer = bareme::Scorer::new(rubric, false).with_judge(std::sync::Arc::new(Lenient));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait Judge: Send + Sync + Debug {
    /// The verdict on one explanation.
    fn judge(&self, request: &JudgeRequest) -> Result<Verdict, JudgeError>;
}

/// A judge behind a record of its verdicts: a request seen before is
/// answered from the record; a new one is asked of the judge (if there is
/// one) and its verdict written to the record's writer at once, one line
/// `{"key", "verdict"}`, so an interrupted run keeps what it paid for.
///
/// ```
/// use bareme::judge::Judge;
/// let line = r#"{"key": "abc", "verdict": {"identifies_blocker": true, "requests_resolution": false, "avoids_unsupported_answer": true}}"#;
/// // Replay only: no judge, no sink; a request the record lacks is an error.
/// let record = bareme::judge::Recorded::new(None, line.as_bytes(), None)?;
/// assert_eq!(record.len(), 1);
/// let request = bareme::judge::JudgeRequest { blocker: serde_json::json!({}), clauses: vec![], explanation: "x".into() };
/// assert_eq!(record.judge(&request).unwrap_err().code(), "judge::not_recorded");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Recorded {
    judge: Option<Arc<dyn Judge>>,
    known: Mutex<HashMap<String, Verdict>>,
    sink: Mutex<Option<Box<dyn Write + Send>>>,
}

impl Debug for Recorded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorded")
            .field("judge", &self.judge)
            .finish_non_exhaustive()
    }
}

impl Recorded {
    /// A record read from `lines` (a verdicts file, possibly empty), in front
    /// of `judge` (none: replay only), new verdicts appended to `sink`.
    pub fn new(
        judge: Option<Arc<dyn Judge>>,
        lines: impl BufRead,
        sink: Option<Box<dyn Write + Send>>,
    ) -> Result<Recorded, JudgeError> {
        let mut known = HashMap::new();
        for (n, line) in lines.lines().enumerate() {
            let line = line.map_err(|e| JudgeError::Record(format!("line {}: {e}", n + 1)))?;
            if line.trim().is_empty() {
                continue;
            }
            let bad = |why: String| JudgeError::Record(format!("line {}: {why}", n + 1));
            let value = read_json(&line).map_err(|e| bad(e.to_string()))?;
            if let Some(k) = (value.as_object().into_iter().flat_map(Map::keys))
                .find(|k| !matches!(k.as_str(), "key" | "verdict"))
            {
                return Err(bad(format!("an unknown key `{k}`")));
            }
            let key = value
                .get("key")
                .and_then(Value::as_str)
                .ok_or_else(|| bad("no `key` string".into()))?;
            let verdict = value
                .get("verdict")
                .ok_or_else(|| bad("no `verdict`".into()))
                .and_then(|v| Verdict::from_json(v).map_err(|e| bad(e.to_string())))?;
            // A request graded twice differently: which one scores is not
            // the record's to choose.
            if known
                .insert(key.to_string(), verdict)
                .is_some_and(|v| v != verdict)
            {
                return Err(bad(format!(
                    "key {key} is recorded before with another verdict"
                )));
            }
        }
        Ok(Recorded {
            judge,
            known: Mutex::new(known),
            sink: Mutex::new(sink),
        })
    }

    /// How many verdicts the record holds.
    pub fn len(&self) -> usize {
        self.known.lock().map(|k| k.len()).unwrap_or(0)
    }

    /// Whether the record holds no verdict.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Judge for Recorded {
    fn judge(&self, request: &JudgeRequest) -> Result<Verdict, JudgeError> {
        let key = request.key();
        if let Some(v) = self.known.lock().map_err(poisoned)?.get(&key) {
            return Ok(*v);
        }
        let judge = self
            .judge
            .as_ref()
            .ok_or_else(|| JudgeError::NotRecorded(key.clone()))?;
        let verdict = judge.judge(request)?;
        let mut known = self.known.lock().map_err(poisoned)?;
        if known.insert(key.clone(), verdict).is_none() {
            if let Some(sink) = self.sink.lock().map_err(poisoned)?.as_mut() {
                let line = json!({"key": key, "verdict": verdict.to_json()});
                writeln!(sink, "{line}")
                    .and_then(|_| sink.flush())
                    .map_err(|e| JudgeError::Record(format!("cannot write a verdict: {e}")))?;
            }
        }
        Ok(verdict)
    }
}
