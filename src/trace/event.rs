//! The events of a trace (checks, steps, citations, with what each read,
//! looked up and rounded): plain data that depends on values and numbers
//! alone. It sits below the model (`tests/it/layers.rs`), so that the model
//! can keep the very event a per-item step known at load records
//! (`model::KnownTrace`) and every later traced evaluation shares it.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use crate::num::rounding::Rounded;
use crate::value::Value;

/// One thing the evaluation did.
#[derive(Clone, Debug)]
pub enum Event {
    /// A check tested.
    Check(CheckTrace),
    /// A step computed.
    Step(StepEvent),
    /// A conditional citation tested.
    Cite(CiteTrace),
}

/// A step's event: its own, or the one a per-item step known at load
/// records for every case (`eval/known.rs`), which a traced evaluation
/// that replays the step shares instead of copying. Read through `Deref`
/// either way.
#[derive(Clone, Debug)]
pub enum StepEvent {
    /// This evaluation's own.
    Own(Box<StepTrace>),
    /// Shared with every evaluation that replays the step.
    Shared(Arc<SharedStep>),
}

impl std::ops::Deref for StepEvent {
    type Target = StepTrace;

    fn deref(&self) -> &StepTrace {
        match self {
            StepEvent::Own(step) => step,
            StepEvent::Shared(shared) => &shared.step,
        }
    }
}

/// A step event every traced evaluation that replays the step shares,
/// with its JSON (format 1), which is the same bytes in every trace:
/// written once, by the first trace that holds it, then copied
/// (`trace/json.rs`).
#[derive(Debug)]
pub struct SharedStep {
    step: StepTrace,
    pub(crate) json: OnceLock<Box<[u8]>>,
}

impl SharedStep {
    /// The event, to be shared.
    pub fn new(step: StepTrace) -> Self {
        SharedStep {
            step,
            json: OnceLock::new(),
        }
    }

    /// The event.
    pub fn step(&self) -> &StepTrace {
        &self.step
    }
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
