//! The machine that runs one case: its state (slots, budget, tracer),
//! where a formula sits (`Site`), why it stopped (`Fault`), and the checks
//! in order. The steps, values, calls and the answer extend it from their
//! own files; this file names none of them, so every arrow points here.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;

use crate::facts::{CaseError, Facts};
use crate::model::code::Code;
use crate::model::*;
use crate::outcome::{EvalError, Outcome};
use crate::span::Span;
use crate::trace::{CheckTrace, Event, OutcomeTrace};
use crate::value::{describe_value, Record, Value};

use super::tracer::{NoTrace, Tracer};

thread_local! {
    /// Units of budget every machine done on this thread has spent.
    static STEPS: Cell<u64> = const { Cell::new(0) };
}

/// Units of evaluation budget spent on this thread so far, by every
/// machine done (dropped): the difference across a stretch of work on one
/// thread bounds a series of evaluations as one budget bounds one (a
/// generated task's draws, `generate::budget`). Deterministic: the same
/// evaluations spend the same units on any machine.
pub(crate) fn steps_on_this_thread() -> u64 {
    STEPS.with(Cell::get)
}

impl<T: Tracer> Drop for Machine<'_, T> {
    fn drop(&mut self) {
        let spent = self.began.saturating_sub(self.budget);
        STEPS.with(|s| s.set(s.get().saturating_add(spent)));
    }
}

/// Stack left free before a step is computed: the deepest one formula can
/// nest (the parser bounds it) with room to spare, in a debug build.
pub(super) const STACK_RED_ZONE: usize = 1024 * 1024;
/// Stack added when less than the red zone is left.
pub(super) const STACK_SEGMENT: usize = 8 * 1024 * 1024;

/// Runs `f`, the computation of a step read inside another formula (or of
/// a group's items), on a fresh stack segment when the thread's stack runs
/// low. Steps nest as deep as their chain of reads (bounded at load by
/// `rulebook::depth`), which on a small thread stack (a test's, a
/// worker's) would overflow and abort.
// INVARIANT: every computation of a step or group from inside another
// formula passes through here.
pub(super) fn nested<T>(f: impl FnOnce() -> T) -> T {
    stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, f)
}

/// Where a formula sits, spelled out only when an error needs it.
#[derive(Clone, Copy)]
pub(super) enum Site {
    Check(usize),
    Step(StepId),
    Param(usize),
    Answer(usize, usize),
    Cite(usize),
    InputCondition,
    Free,
    GroupOver(usize),
    ItemStep(usize, usize, usize),
    ItemAnswer(usize, usize),
    /// A `cite` condition of a top-level step.
    StepCite(StepId),
    /// A `cite` condition of step `.1` of group `.0`, for item `.2`.
    ItemStepCite(usize, usize, usize),
}

impl Site {
    pub(super) fn describe(self, rb: &Rulebook) -> String {
        match self {
            Site::Check(i) => format!("check {}", i + 1),
            Site::Step(i) => format!("step {}", rb.steps[i.index()].name),
            Site::Param(i) => format!("parameter {}", rb.params[i].name),
            Site::Answer(d, o) => format!("answer field {}", rb.decisions[d].answer[o].key),
            Site::Cite(d) => format!("citation of decision {}", rb.decisions[d].name),
            Site::InputCondition => "input condition".to_string(),
            Site::Free => "formula".to_string(),
            Site::GroupOver(g) => format!("`over` of group {}", rb.groups[g].name),
            Site::ItemStep(g, j, i) => format!(
                "step {}.{} of item {i}",
                rb.groups[g].name, rb.groups[g].steps[j].name
            ),
            Site::ItemAnswer(g, i) => {
                format!("the answer of item {i} of group {}", rb.groups[g].name)
            }
            Site::StepCite(i) => format!("citation of step {}", rb.steps[i.index()].name),
            Site::ItemStepCite(g, j, i) => format!(
                "citation of step {}.{} of item {i}",
                rb.groups[g].name, rb.groups[g].steps[j].name
            ),
        }
    }

    /// The context of a `cite` condition of the step in this context.
    pub(super) fn cite(self) -> Site {
        match self {
            Site::Step(i) => Site::StepCite(i),
            Site::ItemStep(g, j, i) => Site::ItemStepCite(g, j, i),
            other => other,
        }
    }
}

#[derive(Clone)]
pub(super) enum Slot {
    Todo,
    Busy,
    Done(Value),
}

/// Why a node failed, before the formula around it is known. Boxed, so that a
/// `Res<Value>` is no larger than the value on the success path every node takes.
pub(super) struct Fault(pub(super) Box<FaultKind>);

pub(super) enum FaultKind {
    /// A fault at this node of the formula being evaluated.
    At(Span, String),
    /// A value missing where it cannot be; `what` names it, or else the
    /// text of the node is shown (taken from the formula when it is named),
    /// as the list it is an item of when `item`.
    Missing {
        span: Span,
        what: Option<String>,
        item: bool,
        null: bool,
    },
    /// A fault of a whole formula, named.
    Eval(EvalError),
}

/// What a missing value's fault says: `what` it is (or the text at `span`
/// of the formula `text`, or an item of it), and that it cannot be used.
pub(super) fn missing_message(
    what: Option<String>,
    item: bool,
    null: bool,
    text: &str,
    span: Span,
) -> String {
    let what = what.unwrap_or_else(|| {
        let shown = text.get(span.start as usize..span.end as usize);
        match (shown, item) {
            (Some(text), false) => format!("`{text}`"),
            (Some(text), true) => format!("an item of `{text}`"),
            (None, false) => "the value".into(),
            (None, true) => "an item of the list".into(),
        }
    });
    let how = if null { "null" } else { "missing" };
    format!("{what} is {how}, so it cannot be used here (test it with is_missing first)")
}

impl Fault {
    pub(super) fn at(span: Span, message: String) -> Fault {
        Fault(Box::new(FaultKind::At(span, message)))
    }

    pub(super) fn eval(e: EvalError) -> Fault {
        Fault(Box::new(FaultKind::Eval(e)))
    }
}

/// A fault out of a whole formula, which names it (`Machine::in_formula`).
impl From<Fault> for EvalError {
    fn from(fault: Fault) -> EvalError {
        match *fault.0 {
            FaultKind::Eval(e) => e,
            FaultKind::At(span, message) => EvalError {
                message,
                context: "evaluation".into(),
                snippet: String::new(),
                span,
            },
            FaultKind::Missing {
                span,
                what,
                item,
                null,
            } => EvalError {
                message: missing_message(what, item, null, "", span),
                context: "evaluation".into(),
                snippet: String::new(),
                span,
            },
        }
    }
}

pub(super) type Res<T> = Result<T, Fault>;

/// How the checks ended: a rejection, or a decision (its index, reason and
/// the deciding check's clauses) whose answer is still to be made.
pub(super) enum Ended<'a> {
    Rejected(CaseError),
    Decided {
        decision: usize,
        reason: Option<Arc<str>>,
        clauses: &'a [Arc<str>],
    },
}

/// What the deciding check chose; read by `decision`, `reason` in answers.
pub(super) struct Chosen {
    pub(super) name: Arc<str>,
    pub(super) reason: Option<Arc<str>>,
}

/// A group's results: the items it ran over and each item's step values.
pub(super) struct GroupResult {
    pub(super) items: Arc<[Value]>,
    /// The step values, item after item, `width` to an item: one allocation
    /// for the whole group, where a record per item would take two each.
    /// Kept as the items' memo slots, so an item's pass is appended whole.
    pub(super) fields: Vec<Slot>,
    pub(super) width: usize,
    pub(super) names: Arc<[Arc<str>]>,
    /// The results as a list of records, made the first time a formula reads
    /// the group whole (most untraced reads take a column, and need none).
    pub(super) list: std::cell::OnceCell<Value>,
}

impl GroupResult {
    /// Item `i`'s step slots (all computed).
    pub(super) fn row(&self, i: usize) -> &[Slot] {
        self.fields
            .get(i * self.width..(i + 1) * self.width)
            .unwrap_or(&[])
    }

    /// Step `j` of item `i`.
    pub(super) fn field(&self, i: usize, j: usize) -> Option<&Value> {
        match self.row(i).get(j) {
            Some(Slot::Done(v)) => Some(v),
            _ => None,
        }
    }

    /// Step `j` of every item, in order: `ops::field` of [`Self::list`]
    /// at `j`, without making the list.
    pub(super) fn column(&self, j: usize) -> Value {
        Value::List(
            (0..self.items.len())
                .map(|i| self.field(i, j).cloned().unwrap_or(Value::Absent))
                .collect(),
        )
    }

    pub(super) fn list(&self) -> Value {
        self.list
            .get_or_init(|| {
                Value::List(
                    (0..self.items.len())
                        .map(|i| {
                            Value::Record(Arc::new(Record {
                                name: None,
                                names: self.names.clone(),
                                fields: (0..self.width)
                                    .map(|j| self.field(i, j).cloned().unwrap_or(Value::Absent))
                                    .collect(),
                            }))
                        })
                        .collect(),
                )
            })
            .clone()
    }
}

/// The item being evaluated inside a group.
pub(super) struct ItemCtx {
    pub(super) group: usize,
    pub(super) index: usize,
    pub(super) item: Value,
    pub(super) slots: Vec<Slot>,
    /// `lines[3]`, for the trace of each of the item's steps (written once per item).
    pub(super) label: Option<Arc<str>>,
}

/// One evaluation's state; `T` records what it does, or nothing.
pub(super) struct Machine<'a, T: Tracer> {
    pub(super) rb: &'a Rulebook,
    pub(super) facts: &'a Facts,
    pub(super) steps: Vec<Slot>,
    pub(super) params: Vec<Option<Value>>,
    pub(super) groups: Vec<Option<Rc<GroupResult>>>,
    pub(super) current: Option<ItemCtx>,
    /// Values of names bound inside formulas, innermost last.
    pub(super) locals: Vec<Value>,
    pub(super) budget: u64,
    /// The budget it started from: what it spent is added to this
    /// thread's tally when it is done ([`steps_on_this_thread`]).
    pub(super) began: u64,
    /// Whether the budget ran out.
    pub(super) exhausted: bool,
    /// Whether the lowered code's shortcuts are taken (folded constants,
    /// specialised groups, sums read in place): never with a trace, which
    /// shows what they skip, nor where a fault must be named as a trace
    /// names it (case validation, and after the budget ran out).
    pub(super) shortcuts: bool,
    /// Whether a traced evaluation replays the per-item steps known at load
    /// from what the first traced evaluation recorded (`eval::known`).
    pub(super) replay: bool,
    /// The budget spent so far computing known per-item steps, each with
    /// the known steps it computed on the way (`eval::known`).
    pub(super) known_spent: u64,
    pub(super) tracer: T,
    /// The text of the formula being evaluated, kept with a trace (which
    /// shows the text of each `round()`).
    pub(super) formula_text: &'a str,
    /// The decision taken, its reason and clauses, once a check decides.
    pub(super) decision: Option<Chosen>,
    /// The group item a `SumRows` is at.
    pub(super) row: Option<(Rc<GroupResult>, usize)>,
    /// The check that ended the evaluation (rejected or decided).
    pub(super) ended_at: Option<usize>,
}

impl<'a, T: Tracer> Machine<'a, T> {
    pub(super) fn new(rb: &'a Rulebook, facts: &'a Facts) -> Self {
        let mut tracer = T::new();
        if T::ON {
            // Every check and step at most once; a group over constant
            // rows has as many items as rows, any other group at least one.
            let items = |g: &Group| g.specialized.as_ref().map_or(1, |s| s.rows.len());
            let per_item: usize = rb.groups.iter().map(|g| g.steps.len() * items(g)).sum();
            tracer.reserve(rb.checks.len() + rb.steps.len() + per_item);
        }
        let mut m = Machine::new_empty(rb, facts);
        m.tracer = tracer;
        m.steps = vec![Slot::Todo; rb.steps.len()];
        m.params = vec![None; rb.params.len()];
        m.groups = (0..rb.groups.len()).map(|_| None).collect();
        m.shortcuts = !T::ON;
        m.replay = T::ON;
        m
    }

    pub(super) fn new_empty(rb: &'a Rulebook, facts: &'a Facts) -> Self {
        Machine {
            rb,
            facts,
            steps: Vec::new(),
            params: Vec::new(),
            groups: Vec::new(),
            current: None,
            locals: Vec::new(),
            budget: rb.limits.max_eval_steps.saturating_sub(facts.spent),
            began: rb.limits.max_eval_steps.saturating_sub(facts.spent),
            exhausted: false,
            shortcuts: false,
            replay: false,
            known_spent: 0,
            tracer: T::new(),
            formula_text: "",
            decision: None,
            row: None,
            ended_at: None,
        }
    }

    pub(super) fn error(
        &self,
        f: &Formula,
        context: Site,
        span: Span,
        message: String,
    ) -> EvalError {
        let snippet = f
            .text
            .get(span.start as usize..span.end as usize)
            .unwrap_or(&f.text)
            .to_string();
        EvalError {
            message,
            context: context.describe(self.rb),
            snippet,
            span,
        }
    }

    /// Runs `eval` on a whole formula's code; a fault located in it is
    /// named as a fault of the formula in `context`.
    #[inline]
    pub(super) fn in_formula<V>(
        &mut self,
        f: &'a Formula,
        context: Site,
        eval: impl FnOnce(&mut Self, &'a Code) -> Res<V>,
    ) -> Res<V> {
        // Only a trace shows formula text while evaluating (at `round()`);
        // a fault takes it from `f` here.
        let saved = T::ON.then(|| std::mem::replace(&mut self.formula_text, &f.text));
        let res = eval(self, &f.code);
        if let Some(saved) = saved {
            self.formula_text = saved;
        }
        match res {
            Ok(v) => Ok(v),
            Err(fault) => Err(self.name(fault, f, context)),
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn name(&self, fault: Fault, f: &Formula, context: Site) -> Fault {
        match *fault.0 {
            FaultKind::At(span, message) => Fault::eval(self.error(f, context, span, message)),
            FaultKind::Missing {
                span,
                what,
                item,
                null,
            } => {
                let message = missing_message(what, item, null, &f.text, span);
                Fault::eval(self.error(f, context, span, message))
            }
            eval => Fault(Box::new(eval)),
        }
    }

    /// A whole formula's value.
    pub(super) fn formula(&mut self, f: &'a Formula, context: Site) -> Res<Value> {
        self.in_formula(f, context, |m, code| m.value(code))
    }

    /// A formula that must be true or false: a check's or a step's condition.
    pub(super) fn bool_formula(&mut self, f: &'a Formula, context: Site) -> Res<bool> {
        if f.code.is_boolean() {
            return self.in_formula(f, context, |m, code| m.truth(code));
        }
        match self.formula(f, context)? {
            Value::Bool(b) => Ok(b),
            other => Err(Fault::eval(self.error(
                f,
                context,
                f.code.span,
                format!(
                    "a condition must be true or false, found {}",
                    describe_value(&other)
                ),
            ))),
        }
    }

    pub(super) fn run(&mut self) -> Result<Outcome, EvalError> {
        match self.checks()? {
            Ended::Rejected(error) => Ok(Outcome::Rejected(error)),
            Ended::Decided {
                decision,
                reason,
                clauses,
            } => self.answer(decision, reason, clauses).map(Outcome::Answer),
        }
    }

    /// The checks, then the decision's answer, as [`Machine::run`] gives them;
    /// when the budget runs out where a shortcut was taken, the evaluation
    /// is run again on a fresh machine without shortcuts, which takes this
    /// one's place (every untraced evaluation goes through here).
    // INVARIANT: where the budget runs out is named as a trace names it. The
    // shortcuts spend less than the code they stand for (a specialised row)
    // or at once (a folded constant): the same machine without them names
    // the very place a traced evaluation names.
    pub(super) fn run_retried(&mut self) -> Result<Outcome, EvalError> {
        match self.run() {
            Err(_) if self.exhausted && self.shortcuts => {
                *self = Machine::new(self.rb, self.facts);
                self.shortcuts = false;
                self.run()
            }
            other => other,
        }
    }

    /// Runs the checks in order until one holds: its rejection, or the
    /// decision whose answer follows.
    pub(super) fn checks(&mut self) -> Result<Ended<'a>, EvalError> {
        let rb = self.rb;
        for (i, check) in rb.checks.iter().enumerate() {
            let context = Site::Check(i);
            self.tracer.push_frame();
            let held = match &check.when {
                Some(w) => self.bool_formula(w, context),
                None => Ok(true),
            };
            let frame = self.tracer.pop_frame();
            let held = held?;
            if T::ON {
                self.tracer.event(Event::Check(CheckTrace {
                    index: i + 1,
                    label: check.label.clone(),
                    when: check.when.as_ref().map(|w| w.text.clone()),
                    reads: frame.reads,
                    held,
                    gives: check.gives.clone(),
                }));
            }
            if !held {
                continue;
            }
            self.ended_at = Some(i);
            return match &check.outcome {
                CheckOutcome::Reject { path, message } => {
                    let error = CaseError::at_rendered(
                        self.render(path, context)?,
                        self.render(message, context)?,
                    );
                    if T::ON {
                        self.tracer.outcome(OutcomeTrace::Rejected {
                            error: error.clone(),
                        });
                    }
                    Ok(Ended::Rejected(error))
                }
                CheckOutcome::Decide {
                    decision,
                    reason,
                    clauses,
                } => Ok(Ended::Decided {
                    decision: *decision,
                    reason: reason.clone(),
                    clauses,
                }),
            };
        }
        // INVARIANT: the checker requires a last check without `when`, so the loop returns.
        Err(EvalError {
            message: "no check held".into(),
            context: "checks".into(),
            snippet: String::new(),
            span: Span::default(),
        })
    }
}

impl<'a> Machine<'a, NoTrace> {
    /// A machine for the conditions of case validation, which read inputs and
    /// parameters only (the checker refuses steps and groups there): it
    /// allocates no memo (a condition reads a parameter a few times at most),
    /// and names a fault as a trace would.
    pub(super) fn for_inputs(rb: &'a Rulebook, facts: &'a Facts, spent: &Cell<u64>) -> Self {
        let mut m = Machine::new_empty(rb, facts);
        m.budget = rb.limits.max_eval_steps.saturating_sub(spent.get());
        m.began = m.budget;
        m
    }

    /// An input's `when` or `required_when`: a boolean over the inputs so far.
    pub(super) fn condition(&mut self, formula: &'a Formula) -> Result<bool, EvalError> {
        match self.formula(formula, Site::InputCondition)? {
            Value::Bool(b) => Ok(b),
            other => Err(self.error(
                formula,
                Site::InputCondition,
                formula.code.span,
                format!("expected a boolean, found {}", other.kind_name()),
            )),
        }
    }

    /// The case's count after a validation machine ran: it started from
    /// what the count left, so all it has not left is spent.
    pub(super) fn settle(&self, spent: &Cell<u64>) {
        spent.set(self.rb.limits.max_eval_steps.saturating_sub(self.budget));
    }
}
