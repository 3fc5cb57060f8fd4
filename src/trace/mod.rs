//! The explanation trace: what an evaluation did, step by step.
//!
//! A trace is plain data; the evaluator fills it only when asked, and
//! renderers turn it into text for auditors (`text.rs`), JSON for tools
//! (`json.rs`, the one writer of the format `docs/trace-format.md`
//! documents: a trace has no `Serialize`, so its JSON is written one way),
//! or an audit page (`page.rs` works it out, `html.rs` and `markdown.rs`
//! write it, `index.rs` a batch's index of them: `docs/audit-page.md`).
//!
//! Invariant: everything in a trace is deterministic (no clock, no addresses),
//! so the same rulebook and case give the same bytes.

mod answer;
mod compact;
pub(crate) mod event;
mod html;
mod index;
mod json;
mod markdown;
mod page;
mod text;

use std::sync::Arc;

use crate::facts::{CaseError, Given};
use crate::value::Value;

pub use answer::answer_summary;
/// A trace as compact JSON, format 2 (see `compact.rs`).
pub use compact::write_trace_json_compact;
pub use event::{
    CheckTrace, CiteTrace, ConditionTrace, Event, Lookup, ReadTrace, RoundingTrace, SharedStep,
    StepEvent, StepTrace,
};
pub use html::{escape_html, render_html};
pub use index::{render_html_index, render_markdown_index, IndexEntry};
/// A trace as JSON text, format 1: the one road (see `json.rs`).
pub use json::write_trace_json;
pub use markdown::{escape_markdown, render_markdown};
pub use page::PageSource;
pub use text::{escape_text, render_text};

/// The most bytes a trace's JSON takes, in either format: the writers stop
/// past it ([`TraceTooLarge`]). A value a trace reads again is written again,
/// so per-item steps that each read a case's whole list write it once per
/// item: a 20,000-item list made 2.6 GB of JSON and the writer aborted on
/// memory, and a trace's records are bounded apart (`eval::tracer`). Below
/// `verify-trace`'s longest line (64 MiB) with room for the answer, so a
/// line `eval --trace json` writes can be verified; and small enough that
/// the verifier, which holds a line as a JSON tree (about thirty times
/// its bytes), stays within a few gigabytes (at 192 MiB, 8 GB and an abort).
pub const MAX_TRACE_BYTES: usize = 48 << 20;

/// A trace whose JSON would pass [`MAX_TRACE_BYTES`]; nothing of it is
/// written.
///
/// ```
/// let e = bareme::unstable::trace::TraceTooLarge;
/// assert_eq!(e.code(), "trace::too_large");
/// assert!(e.to_string().contains("48 MiB"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the trace's JSON is over {} MiB; the case can be evaluated untraced, or traced as text or a page",
    MAX_TRACE_BYTES >> 20
)]
pub struct TraceTooLarge;

impl TraceTooLarge {
    /// The stable code of this failure, `trace::too_large`.
    pub fn code(&self) -> &'static str {
        "trace::too_large"
    }
}

/// Whether the JSON written since `start` has passed [`MAX_TRACE_BYTES`]:
/// if so it is taken back, for the writer to stop.
pub(crate) fn past_bound(out: &mut Vec<u8>, start: usize) -> Result<(), TraceTooLarge> {
    if out.len().saturating_sub(start) > MAX_TRACE_BYTES {
        out.truncate(start);
        return Err(TraceTooLarge);
    }
    Ok(())
}

/// The whole explanation of one evaluation.
///
/// ```
/// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// # let case = serde_json::json!({"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"});
/// let (_, trace) = bareme::evaluate_value(&rb, &case, true)?;
/// let trace = trace.expect("asked for");
/// assert!(trace.rulebook.starts_with("luma-payroll@3#"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Trace {
    /// `id@version#hash` of the rulebook.
    pub rulebook: String,
    /// The ablations evaluated under, if any, joined with `,` (`a,b`).
    pub ablation: Option<String>,
    /// Tables the rulebook declares for readers (a payslip's lines).
    pub reports: Vec<ReportTrace>,
    /// The inputs as validated.
    pub inputs: Vec<InputTrace>,
    /// Checks, steps and citations in the order they were evaluated.
    pub events: Vec<Event>,
    /// How it ended.
    pub outcome: OutcomeTrace,
}

/// A report table, rendered to text cells.
#[derive(Clone, Debug)]
pub struct ReportTrace {
    /// Title.
    pub title: Option<String>,
    /// Column titles.
    pub header: Vec<String>,
    /// One row of cells per item shown.
    pub rows: Vec<Vec<String>>,
    /// Label and value of each line under the table.
    pub totals: Vec<(String, String)>,
}

/// One input as the evaluation saw it.
#[derive(Clone, Debug)]
pub struct InputTrace {
    /// Field name.
    pub name: Arc<str>,
    /// Given, absent, null or defaulted.
    pub given: Given,
    /// The value used.
    pub value: Value,
}

/// How the evaluation ended.
#[derive(Clone, Debug)]
pub enum OutcomeTrace {
    /// A decision with its answer.
    Decision {
        /// Decision name.
        decision: String,
        /// Reason code.
        reason: Option<String>,
        /// Clauses cited.
        clauses: Vec<String>,
    },
    /// The case was rejected.
    Rejected {
        /// Where and why.
        error: CaseError,
    },
}
