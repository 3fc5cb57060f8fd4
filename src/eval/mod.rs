//! The evaluator: one validated case through a checked rulebook.
//!
//! One interpreter runs the lowered code of every formula (`model::plan`):
//! checks in order, steps computed on first use and memoised (so a check
//! may read a step and a clarification never computes the payslip), then
//! the decision's answer. Tracing is its type parameter ([`tracer`]): the
//! traced machine records every check, step, read, row choice and rounding;
//! the untraced one is the same code with the recording compiled away, and
//! takes the lowered code's shortcuts (constants folded, groups over
//! constant rows specialised, sums read in place), which only a trace
//! would tell apart.
//!
//! Here: the entry points, the machine's state, whole formulas and the
//! checks. Steps, groups and parameters are in `steps`; a formula's nodes
//! in `value` (any value) and `number` (where a number or a boolean is
//! expected: no value per node); built-in calls in `call`; the answer, in
//! one walk over the decision's outputs, in `answer` (its JSON is written
//! by `outcome`).
//!
//! INVARIANT: bounded — every node evaluated spends one unit of the case's
//! budget (`limits.max_eval_steps`); recursion depth is bounded by the
//! parser's nesting limit and the step graph is acyclic (checked at load).

mod answer;
mod call;
mod known;
mod machine;
mod number;
mod recorded;
mod steps;
mod tracer;
mod value;

pub(crate) use answer::{answer_clauses, cite_clauses, format_value};
pub(crate) use machine::steps_on_this_thread;
use machine::{Machine, Site};
pub(crate) use steps::rows_in_force;
use steps::supplied_rows;
use tracer::{NoTrace, Recorder, Tracer};

use std::cell::Cell;

use rayon::prelude::*;

use crate::facts::Facts;
use crate::model::*;
pub use crate::outcome::{EvalError, Outcome};
use crate::trace::{InputTrace, OutcomeTrace, Trace};
use crate::value::Value;

/// Evaluates validated facts: checks in order, then the decision's answer.
///
/// ```
/// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// # let case = serde_json::json!({"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"});
/// let facts = bareme::validate_case(&rb, &case)?;
/// let (outcome, trace) = bareme::evaluate(&rb, &facts, true)?;
/// assert_eq!(bareme::unstable::outcome::outcome_json(Ok(&outcome))["income_tax"], "137.50");
/// assert!(trace.is_some());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn evaluate(
    rb: &Rulebook,
    facts: &Facts,
    trace: bool,
) -> Result<(Outcome, Option<Trace>), EvalError> {
    if trace {
        run::<Recorder>(rb, facts)
    } else {
        run::<NoTrace>(rb, facts)
    }
}

fn run<T: Tracer>(rb: &Rulebook, facts: &Facts) -> Result<(Outcome, Option<Trace>), EvalError> {
    let mut m = Machine::<T>::new(rb, facts);
    let outcome = m.run_retried()?;
    let trace = std::mem::replace(&mut m.tracer, T::new())
        .finish()
        .map(|t| {
            let inputs = rb
                .inputs
                .iter()
                .zip(facts.values.iter().zip(&facts.given))
                .map(|(input, (value, given))| {
                    let value = match &input.kind {
                        InputKind::Table { table } => {
                            supplied_rows(rb, facts, *table).unwrap_or_else(|| value.clone())
                        }
                        _ => value.clone(),
                    };
                    InputTrace {
                        name: input.name.clone(),
                        given: *given,
                        value,
                    }
                })
                .collect();
            Trace {
                rulebook: rb.reference(),
                ablation: rb.ablation_label(),
                reports: t.reports,
                inputs,
                events: t.events,
                outcome: t.outcome.unwrap_or(OutcomeTrace::Decision {
                    decision: String::new(),
                    reason: None,
                    clauses: vec![],
                }),
            }
        });
    Ok((outcome, trace))
}

/// An untraced evaluation that also says which check ended it, the one
/// that rejected the case or chose its decision (generators sort tasks by it).
pub(crate) fn evaluate_ended(rb: &Rulebook, facts: &Facts) -> Result<(Outcome, usize), EvalError> {
    let mut m = Machine::<NoTrace>::new(rb, facts);
    let outcome = m.run_retried()?;
    Ok((outcome, m.ended_at.unwrap_or(0)))
}

/// The outcomes of one validated case under several readings of the
/// rulebook it was validated against (that rulebook and its ablated copies,
/// `Rulebook::ablated_all`), untraced, in parallel and in the order of
/// `readings`. An ablation replaces step formulas only, never validation,
/// so the case is validated once, whatever the number of readings.
pub fn evaluate_under<'a>(
    facts: &'a Facts,
    readings: &'a [&'a Rulebook],
) -> impl IndexedParallelIterator<Item = Result<Outcome, EvalError>> + 'a {
    readings
        .par_iter()
        .map(move |rb| Machine::<NoTrace>::new(rb, facts).run_retried())
}

/// The value of a free formula (`Rulebook::free_formula`) over a case, its
/// steps computed on first use, as a check's condition would read them.
/// `locals` are the formula's first local names (as resolved).
pub(crate) fn evaluate_formula(
    rb: &Rulebook,
    facts: &Facts,
    formula: &Formula,
    locals: &[Value],
) -> Result<Value, EvalError> {
    let mut m = Machine::<NoTrace>::new(rb, facts);
    m.locals.extend(locals.iter().cloned());
    m.formula(formula, Site::Free).map_err(EvalError::from)
}

/// Free formulas read over one case, sharing the memo of its steps: a
/// generator reads several conditions, tags and a signature of each case.
pub(crate) struct FormulaReader<'a>(Machine<'a, NoTrace>);

impl<'a> FormulaReader<'a> {
    pub(crate) fn new(rb: &'a Rulebook, facts: &'a Facts) -> Self {
        FormulaReader(Machine::new(rb, facts))
    }

    /// The value of a free formula (`Rulebook::free_formula`).
    pub(crate) fn read(&mut self, formula: &'a Formula) -> Result<Value, EvalError> {
        self.0.formula(formula, Site::Free).map_err(EvalError::from)
    }

    /// Whether the one budget of every formula read ran out: a later read
    /// fails for that alone.
    pub(crate) fn spent(&self) -> bool {
        self.0.exhausted
    }
}

/// Whether a field rule rejects `value` (in its record `item`), and its message.
/// What it spends is added to `spent`, the case's validation so far.
pub(crate) fn field_rule_message(
    rb: &Rulebook,
    facts: &Facts,
    spent: &Cell<u64>,
    rule: &FieldRule,
    value: &Value,
    item: Option<&Value>,
) -> Result<Option<String>, EvalError> {
    let mut m = Machine::for_inputs(rb, facts, spent);
    m.locals.push(value.clone());
    if let Some(item) = item {
        m.locals.push(item.clone());
    }
    let res = match m.bool_formula(&rule.when, Site::InputCondition) {
        Ok(true) => m.render(&rule.message, Site::InputCondition).map(Some),
        Ok(false) => Ok(None),
        Err(e) => Err(e.into()),
    };
    m.settle(spent);
    res
}

/// A check run right after an input: the rejection's path and message when it holds.
pub(crate) fn after_check(
    rb: &Rulebook,
    facts: &Facts,
    spent: &Cell<u64>,
    when: &Formula,
    path: &[MessagePart],
    message: &[MessagePart],
) -> Result<Option<(String, String)>, EvalError> {
    let mut m = Machine::for_inputs(rb, facts, spent);
    let mut fired = || -> Result<Option<(String, String)>, EvalError> {
        if !m.bool_formula(when, Site::InputCondition)? {
            return Ok(None);
        }
        Ok(Some((
            m.render(path, Site::InputCondition)?,
            m.render(message, Site::InputCondition)?,
        )))
    };
    let res = fired();
    m.settle(spent);
    res
}

/// Evaluates a boolean formula over (possibly partial) facts; used by an input's `when`.
pub(crate) fn evaluate_condition(
    rb: &Rulebook,
    facts: &Facts,
    spent: &Cell<u64>,
    formula: &Formula,
) -> Result<bool, EvalError> {
    let mut m = Machine::for_inputs(rb, facts, spent);
    let res = m.condition(formula);
    m.settle(spent);
    res
}
