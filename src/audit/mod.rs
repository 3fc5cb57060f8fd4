//! `bareme verify-trace`: a traced evaluation checked without trusting the
//! engine that made it (issue 30, `docs/audit.md`).
//!
//! The verifier reads a line of `eval --trace json` (`{"answer", "trace"}`
//! or `{"error", "trace"}`) and, for every event, re-reads the formula the
//! rulebook gives for that step or check with the engine's parser,
//! recomputes it from the values the trace and the rulebook give with the
//! exact numbers and the model's pure operations, re-applies the recorded
//! rounding, redoes each table lookup on the rulebook's rows (or the
//! case's), and compares every read, lookup, rounding, exact value and
//! value with what the trace recorded; then the outcome and the answer's
//! fields. It never runs the interpreter (`eval`) nor the lowered code
//! (`model::code`), compiled or not: `tests/it/layers.rs` refuses any
//! import of them here.

mod answer;
mod calc;
mod compact;
mod decode;
mod inputs;
mod reports;
mod shape;
mod walk;
mod world;

use std::fmt;
use std::sync::Arc;

use serde_json::Value as Json;

use crate::model::{CheckOutcome, Rulebook};

pub use walk::Finding;
use walk::State;

/// Why a trace could not be verified at all (as opposed to a trace that
/// does not follow, which is a [`TraceVerdict`] with findings).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuditError {
    /// The line is not JSON.
    #[error("the trace is not JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The JSON is not a traced evaluation.
    #[error("not a traced evaluation: {0}")]
    Shape(String),
    /// The trace names another rulebook (or version, or file).
    #[error("the trace is of {trace}, not of {rulebook}")]
    Rulebook {
        /// The reference the trace records.
        trace: String,
        /// The reference of the rulebook given.
        rulebook: String,
    },
}

impl AuditError {
    /// A stable code, `area::kind`.
    pub fn code(&self) -> &'static str {
        match self {
            AuditError::Json(_) => "audit::json",
            AuditError::Shape(_) => "audit::shape",
            AuditError::Rulebook { .. } => "audit::rulebook",
        }
    }
}

/// What the verifier found of one trace.
#[derive(Clone, Debug)]
pub struct TraceVerdict {
    /// The rulebook's reference.
    pub rulebook: String,
    /// Steps recomputed.
    pub steps: usize,
    /// Checks recomputed.
    pub checks: usize,
    /// Reads compared with their sources.
    pub reads: usize,
    /// Table lookups redone.
    pub lookups: usize,
    /// Roundings re-applied.
    pub roundings: usize,
    /// Answer fields recomputed.
    pub answer_fields: usize,
    /// Everything that does not follow, in trace order.
    pub findings: Vec<Finding>,
    /// The case was rejected while it was validated: the trace records no
    /// input and nothing that ran, and the verifier, which shares no
    /// validator with the engine, takes the rejection as recorded.
    pub rejected_while_validated: bool,
    /// The ablations the trace ran under (`a,b`): its receipt is of an
    /// alternative reading, not of the rules, and says so.
    pub ablation: Option<String>,
}

impl TraceVerdict {
    /// Whether everything the trace records follows.
    pub fn follows(&self) -> bool {
        self.findings.is_empty()
    }
}

impl fmt::Display for TraceVerdict {
    /// The one-line summary `verify-trace` prints when the trace follows.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}: {} steps, {} checks, {} reads, {} lookups, {} roundings, {} answer fields",
            if self.follows() {
                "follows"
            } else {
                "does not follow"
            },
            self.rulebook,
            self.steps,
            self.checks,
            self.reads,
            self.lookups,
            self.roundings,
            self.answer_fields
        )?;
        match &self.ablation {
            Some(a) => write!(
                f,
                ", under the ablation {a} (an alternative reading, not the rules)"
            ),
            None => Ok(()),
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: recorded {}, follows {}",
            Clipped(&self.at),
            Clipped(&self.what),
            Clipped(&self.recorded),
            Clipped(&self.follows)
        )?;
        // A value is shown as its text (`decode::shown`): the same text on
        // both sides is the same words in another JSON kind (`146.00`
        // recorded as a number where the engine writes the string).
        if self.recorded == self.follows {
            f.write_str(" (the same text, written as another kind of JSON value: a string against a number, a boolean or null)")?;
        }
        Ok(())
    }
}

/// The most characters of one part of a finding shown on its line.
const SHOWN: usize = 400;

/// A part of a finding as its line shows it: whole up to [`SHOWN`]
/// characters, else its start and its length. What a trace recorded is
/// untrusted, and a formula or value in it may be megabytes long; the
/// finding itself keeps it whole.
struct Clipped<'a>(&'a str);

impl fmt::Display for Clipped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(SHOWN) {
            None => f.write_str(self.0),
            Some((at, _)) => {
                let start = self.0.get(..at).unwrap_or_default();
                write!(f, "{start}… ({} bytes)", self.0.len())
            }
        }
    }
}

/// One line of `eval --trace json` verified against the rulebook, and the
/// case when the caller has it (the rows a case supplies are checked only
/// then; without it, each input is taken as recorded).
pub fn verify_line(
    rb: &Rulebook,
    line: &str,
    case: Option<&Json>,
) -> Result<TraceVerdict, AuditError> {
    // serde_json keeps the last of two equal keys: a field written twice
    // would be verified on one value and read by a person on the other.
    let mut nodes = Vec::new();
    if let Err(e) = crate::json::read(line, 128, &mut nodes) {
        if let crate::json::ErrorKind::DuplicateKey(key) = &e.kind {
            return Err(AuditError::Shape(format!(
                "the key {key:?} is written twice in {}",
                e.dollar_path()
            )));
        }
    }
    let json: Json = serde_json::from_str(line)?;
    verify_json(rb, &json, case)
}

/// A shape error when object `v` holds a key not in `known`.
fn unknown_key(v: &Json, known: &[&str], what: &str) -> Result<(), AuditError> {
    shape::keys(v, known, what).map_err(AuditError::Shape)
}

/// A compact trace (format 2) read back as format 1, the trace `eval
/// --trace json` writes for the same evaluation.
pub fn expand_compact(trace: &Json) -> Result<Json, AuditError> {
    compact::expand(trace).map_err(AuditError::Shape)
}

/// [`verify_line`] on a line already read.
pub fn verify_json(
    rb: &Rulebook,
    line: &Json,
    case: Option<&Json>,
) -> Result<TraceVerdict, AuditError> {
    let trace = line
        .get("trace")
        .ok_or_else(|| AuditError::Shape("no \"trace\"".into()))?;
    // The line is `{"answer" or "error", "trace"}` (without either, the
    // outcome is a finding), and the trace holds
    // the keys of its format only: what the verifier would not read is
    // not let through as if it were verified.
    let outcomes = ["answer", "error"]
        .iter()
        .filter(|k| line.get(**k).is_some())
        .count();
    if outcomes > 1 {
        return Err(AuditError::Shape(
            "a traced line holds \"answer\" or \"error\", not both".into(),
        ));
    }
    unknown_key(line, &["answer", "error", "trace"], "the line")?;
    let format = match trace.get("format") {
        None => 1,
        Some(f) => match f.as_u64() {
            Some(n @ (1 | 2)) => n,
            _ => return Err(AuditError::Shape(format!("a trace of format {f}"))),
        },
    };
    const KEYS: [&str; 7] = [
        "format", "rulebook", "ablation", "reports", "inputs", "events", "outcome",
    ];
    let steps = ["steps"];
    let keys: Vec<&str> = match format {
        2 => KEYS.iter().chain(&steps).copied().collect(),
        _ => KEYS.to_vec(),
    };
    unknown_key(trace, &keys, "the trace")?;
    let expanded;
    let trace = match format {
        2 => {
            expanded = compact::expand(trace).map_err(AuditError::Shape)?;
            &expanded
        }
        _ => trace,
    };
    shape::check(trace).map_err(AuditError::Shape)?;
    let reference = trace
        .get("rulebook")
        .and_then(Json::as_str)
        .ok_or_else(|| AuditError::Shape("no \"trace.rulebook\"".into()))?;
    if reference != rb.reference() {
        return Err(AuditError::Rulebook {
            trace: reference.to_string(),
            rulebook: rb.reference(),
        });
    }
    let events = trace
        .get("events")
        .and_then(Json::as_array)
        .ok_or_else(|| AuditError::Shape("no \"trace.events\"".into()))?;
    let inputs = trace
        .get("inputs")
        .and_then(Json::as_array)
        .ok_or_else(|| AuditError::Shape("no \"trace.inputs\"".into()))?;
    let outcome = trace
        .get("outcome")
        .ok_or_else(|| AuditError::Shape("no \"trace.outcome\"".into()))?;
    let mut st = State::new(rb, case);
    let ablation = match trace.get("ablation") {
        None => None,
        Some(Json::String(a)) => {
            st.ablation(a);
            // Only the names the rulebook declares are a reading the
            // receipt is of; any other is a finding.
            let declared: Vec<&str> = (a.split(','))
                .filter(|n| rb.ablations.iter().any(|x| &*x.name == *n))
                .collect();
            (!declared.is_empty()).then(|| declared.join(","))
        }
        // Read as none, the trace would be checked as the main reading.
        Some(other) => {
            return Err(AuditError::Shape(format!(
                "\"trace.ablation\" is not a text naming ablations: {other}"
            )))
        }
    };
    st.inputs(inputs);
    let mut next_check = 1;
    let mut decided: Option<usize> = None;
    let mut cites = 0;
    let mut cited: Vec<Arc<str>> = Vec::new();
    for ev in events {
        match ev.get("event").and_then(Json::as_str) {
            Some("step") => st.step(ev),
            Some("check") => {
                if decided.is_some() {
                    st.findings
                        .push(finding("checks", "a check after the deciding one", ev));
                }
                decided = st.check(ev, next_check);
                next_check += 1;
            }
            Some("cite") => {
                let decision =
                    decided
                        .and_then(|i| rb.checks.get(i - 1))
                        .and_then(|c| match &c.outcome {
                            CheckOutcome::Decide { decision, .. } => Some(*decision),
                            CheckOutcome::Reject { .. } => None,
                        });
                match decision {
                    Some(d) => {
                        if st.cite(ev, d, cites) {
                            if let Some((_, clauses)) =
                                rb.decisions.get(d).and_then(|x| x.cite.get(cites))
                            {
                                cited.extend(clauses.iter().cloned());
                            }
                        }
                        cites += 1;
                    }
                    None => st
                        .findings
                        .push(finding("citation", "before a decision", ev)),
                }
            }
            _ => st.findings.push(finding("events", "not an event", ev)),
        }
    }
    st.complete_groups();
    let reports = trace
        .get("reports")
        .and_then(Json::as_array)
        .map_or(&[][..], Vec::as_slice);
    // What a rejection while the case was validated cannot have recorded.
    let validated = if !inputs.is_empty() {
        Some("the inputs were read")
    } else if !events.is_empty() {
        Some("events ran")
    } else {
        None
    };
    outcome_follows(
        &mut st,
        rb,
        (line, validated),
        (outcome, reports),
        decided,
        cites,
        &cited,
    );
    let [steps, checks, reads, lookups, roundings, answer_fields] = st.counts;
    let rejected_while_validated = decided.is_none()
        && validated.is_none()
        && outcome.get("kind").and_then(Json::as_str) == Some("rejected");
    Ok(TraceVerdict {
        rulebook: rb.reference(),
        steps,
        checks,
        reads,
        lookups,
        roundings,
        answer_fields,
        findings: st.findings,
        rejected_while_validated,
        ablation,
    })
}

fn finding(at: &str, what: &str, ev: &Json) -> Finding {
    Finding {
        at: at.into(),
        what: what.into(),
        recorded: ev.to_string(),
        follows: String::new(),
    }
}

/// The outcome against the check that held, and the answer against the steps.
fn outcome_follows(
    st: &mut State<'_>,
    rb: &Rulebook,
    (line, validated): (&Json, Option<&str>),
    (outcome, reports): (&Json, &[Json]),
    decided: Option<usize>,
    cites: usize,
    cited: &[Arc<str>],
) {
    let kind = outcome.get("kind").and_then(Json::as_str).unwrap_or("");

    let check = decided.and_then(|i| rb.checks.get(i - 1));
    let push = |st: &mut State<'_>, what: &str, recorded: String, follows: String| {
        st.findings.push(Finding {
            at: "outcome".into(),
            what: what.into(),
            recorded,
            follows,
        })
    };
    // Reports are made from a decision's steps: a rejected case has none,
    // and a table beside its rejection would be read as vouched for.
    let decided = matches!(check.map(|c| &c.outcome), Some(CheckOutcome::Decide { .. }));
    if !decided && !reports.is_empty() {
        push(
            st,
            "reports",
            match reports.len() {
                1 => "1 table".into(),
                n => format!("{n} tables"),
            },
            "none: only a decision has reports".into(),
        );
    }
    match (kind, check.map(|c| &c.outcome)) {
        (
            "decision",
            Some(CheckOutcome::Decide {
                decision,
                reason,
                clauses,
            }),
        ) => {
            let Some(d) = rb.decisions.get(*decision) else {
                return;
            };
            let name = outcome.get("decision").and_then(Json::as_str).unwrap_or("");
            if name != &*d.name {
                push(st, "decision", name.into(), d.name.to_string());
            }
            let r = outcome.get("reason").and_then(Json::as_str);
            if r != reason.as_deref() {
                push(
                    st,
                    "reason",
                    r.unwrap_or("none").into(),
                    reason.as_deref().unwrap_or("none").into(),
                );
            }
            if cites != d.cite.len() {
                push(st, "citations", cites.to_string(), d.cite.len().to_string());
            }
            let mut all: Vec<Arc<str>> = if clauses.is_empty() {
                d.clauses.clone()
            } else {
                clauses.clone()
            };
            for c in cited {
                if !all.contains(c) {
                    all.push(c.clone());
                }
            }
            let follows: Json = all.iter().map(|c| Json::String(c.to_string())).collect();
            let recorded = outcome.get("clauses").cloned().unwrap_or(Json::Null);
            if recorded != follows {
                push(st, "clauses", recorded.to_string(), follows.to_string());
            }
            match line.get("answer") {
                Some(answer) => st.answer(answer, *decision, reason.as_ref(), &all),
                None => push(st, "answer", "none".into(), "an answer".into()),
            }
            st.reports(reports);
        }
        ("rejected", Some(CheckOutcome::Reject { path, message })) => {
            if let Some(answer) = line.get("answer") {
                push(
                    st,
                    "answer",
                    decode::shown(answer),
                    "none: a check rejects".into(),
                );
            }
            let errors = [line.get("error"), outcome.get("error")];
            st.rejection(errors, path, message);
        }
        // Rejected while the case was validated: no input was read and
        // nothing ran. That the case is invalid is the validator's to say,
        // which the verifier does not share (docs/audit.md).
        ("rejected", None) if line.get("answer").is_none() && validated.is_none() => {}
        ("rejected", None) if line.get("answer").is_none() => push(
            st,
            "kind",
            format!("rejected after {}", validated.unwrap_or_default()),
            "no check held".into(),
        ),
        (kind, _) => push(
            st,
            "kind",
            kind.to_string(),
            match check.map(|c| &c.outcome) {
                Some(CheckOutcome::Decide { .. }) => "decision".into(),
                Some(CheckOutcome::Reject { .. }) => "rejected".into(),
                None => "no check held".into(),
            },
        ),
    }
}
