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
mod html;
mod index;
mod json;
mod markdown;
mod page;
mod text;

use std::borrow::Cow;
use std::sync::Arc;

use crate::facts::{CaseError, Given};
use crate::num::rounding::Rounded;
use crate::value::Value;

pub use answer::answer_summary;
/// A trace as JSON text, the one road (see `json.rs`).
pub use compact::write_trace_json_compact;
pub use html::{escape_html, render_html};
pub use index::{render_html_index, render_markdown_index, IndexEntry};
pub use json::write_trace_json;
pub use markdown::{escape_markdown, render_markdown};
pub use page::PageSource;
pub use text::{escape_text, render_text};

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

/// One thing the evaluation did.
#[derive(Clone, Debug)]
pub enum Event {
    /// A check tested.
    Check(CheckTrace),
    /// A step computed.
    Step(Box<StepTrace>),
    /// A conditional citation tested.
    Cite(CiteTrace),
}

/// A check and whether it held.
#[derive(Clone, Debug)]
pub struct CheckTrace {
    /// 1-based position among the checks.
    pub index: usize,
    /// Human label.
    pub label: Option<Arc<str>>,
    /// The condition (`None`: always holds).
    pub when: Option<Arc<str>>,
    /// Values the condition read.
    pub reads: Vec<ReadTrace>,
    /// Whether it held.
    pub held: bool,
    /// What it gives when it holds: `decision calculate`, `reject allowed_deduction`.
    pub gives: Arc<str>,
}

/// A step: its formula, its inputs, its exact value and its rounding.
#[derive(Clone, Debug)]
pub struct StepTrace {
    /// Step name.
    pub step: Arc<str>,
    /// For a per-item step, the item: `lines[3]`.
    pub item: Option<Arc<str>>,
    /// Human label.
    pub label: Option<Arc<str>>,
    /// Clauses it applies: its own, then those its `cite` conditions that
    /// held add (the step's own list, shared, when none did).
    pub clauses: Arc<[Arc<str>]>,
    /// Its `cite` conditions, in order, and whether each held.
    pub cites: Vec<CiteTrace>,
    /// A helper step (`detail = true`): shown on one line in text.
    pub detail: bool,
    /// The formula as written.
    pub formula: Arc<str>,
    /// Its applicability condition, and whether it held.
    pub condition: Option<ConditionTrace>,
    /// Every name it read, with its value.
    pub reads: Vec<ReadTrace>,
    /// Table rows chosen, and why.
    pub lookups: Vec<Lookup>,
    /// Roundings inside the formula and at the step's rounding point.
    pub roundings: Vec<RoundingTrace>,
    /// The exact value before the step's own rounding point; `None` when
    /// it is the value (no rounding point, or the condition did not hold),
    /// which most steps' is: no copy kept (see [`StepTrace::exact`]).
    pub exact: Option<Value>,
    /// The step's value.
    pub value: Value,
}

impl StepTrace {
    /// The exact value before the step's own rounding point.
    pub fn exact(&self) -> &Value {
        self.exact.as_ref().unwrap_or(&self.value)
    }
}

/// A step's `when`.
#[derive(Clone, Debug)]
pub struct ConditionTrace {
    /// The condition as written.
    pub formula: Arc<str>,
    /// Whether it held.
    pub held: bool,
}

/// A name read and its value.
#[derive(Clone, Debug)]
pub struct ReadTrace {
    /// `gross_pay`, `row.rate`.
    pub name: Arc<str>,
    /// The value read.
    pub value: Value,
}

/// A table row chosen, or a scale applied.
#[derive(Clone, Debug)]
pub struct Lookup {
    /// `period` (a row by date or month), `key` (a row by key) or `scale` (bands applied).
    pub kind: &'static str,
    /// Table name.
    pub table: Arc<str>,
    /// `rulebook`, or `case:<input>` when the case supplied the rows.
    pub source: Cow<'static, str>,
    /// The key looked up.
    pub key: String,
    /// The row chosen, if any.
    pub row: Option<String>,
    /// Why that row (or none).
    pub why: Cow<'static, str>,
}

/// A rounding that happened.
#[derive(Clone, Debug)]
pub struct RoundingTrace {
    /// `step` for the step's rounding point, else the `round(…)` text.
    pub at: String,
    /// Mode, places, before, after, margin.
    pub rounded: Rounded,
}

/// A conditional citation, of a decision or of a step.
#[derive(Clone, Debug)]
pub struct CiteTrace {
    /// The condition.
    pub when: Arc<str>,
    /// Whether it held.
    pub held: bool,
    /// Clauses added when it holds.
    pub clauses: Arc<[Arc<str>]>,
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
