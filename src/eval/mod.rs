//! The evaluator: one validated case through a checked rulebook.
//!
//! Checks run in order; steps are computed on first use and memoised, so a
//! check may read a step and a clarification never computes the payslip.
//! With tracing on, this tree walker records every check, step, read, row
//! choice and rounding. With it off, nothing is allocated for the trace, and
//! steps, check conditions and answers run as code lowered at load
//! (`plan.rs`), which hands back to the walker whatever it does not hold.
//!
//! Invariant: bounded — every node evaluated spends one unit of the case's
//! budget (`limits.max_eval_steps`); recursion depth is bounded by the
//! parser's nesting limit and the step graph is acyclic (checked at load).

pub(crate) mod ops;
pub(crate) mod plan;

use rust_decimal::Decimal;
use std::rc::Rc;
use std::sync::Arc;

use crate::expr::BinOp;
use crate::facts::{CaseError, Facts};
use crate::model::*;
use crate::num::exact::Num;
use crate::num::{rounding, RoundingMode};
use crate::span::Span;
use crate::trace::{
    CheckTrace, CiteTrace, ConditionTrace, Event, InputTrace, Lookup, OutcomeTrace, Read,
    ReportTrace, RoundingTrace, StepTrace, Trace,
};
use crate::value::{compare, decimal_text, describe_value, plain, Month, Record, Value};

/// A fault of the rulebook met while evaluating a case (not a fault of the case).
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

/// How an evaluation ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The answer JSON.
    Answer(serde_json::Value),
    /// The case was rejected by validation or by a check.
    Rejected(CaseError),
}

/// Evaluates validated facts: checks in order, then the decision's answer.
pub fn evaluate(
    rb: &Rulebook,
    facts: &Facts,
    trace: bool,
) -> Result<(Outcome, Option<Trace>), EvalError> {
    let mut m = Machine::new(rb, facts, trace);
    let outcome = m.run()?;
    let trace = m.tracer.map(|t| {
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
            ablation: rb.applied_ablation.as_ref().map(|a| a.to_string()),
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

/// Whether a field rule rejects `value` (in its record `item`), and its message.
pub(crate) fn field_rule_message(
    rb: &Rulebook,
    facts: &Facts,
    rule: &FieldRule,
    value: &Value,
    item: Option<&Value>,
) -> Result<Option<String>, EvalError> {
    let mut m = Machine::for_inputs(rb, facts);
    m.locals.push(value.clone());
    if let Some(item) = item {
        m.locals.push(item.clone());
    }
    if !m.bool_formula(&rule.when, Ctx::InputCondition)? {
        return Ok(None);
    }
    m.render(&rule.message, Ctx::InputCondition).map(Some)
}

/// A check run right after an input: the rejection's path and message when it holds.
pub(crate) fn after_check(
    rb: &Rulebook,
    facts: &Facts,
    when: &Formula,
    path: &[MessagePart],
    message: &[MessagePart],
) -> Result<Option<(String, String)>, EvalError> {
    let mut m = Machine::for_inputs(rb, facts);
    if !m.bool_formula(when, Ctx::InputCondition)? {
        return Ok(None);
    }
    Ok(Some((
        m.render(path, Ctx::InputCondition)?,
        m.render(message, Ctx::InputCondition)?,
    )))
}

/// Evaluates a boolean formula over (possibly partial) facts; used by an input's `when`.
pub(crate) fn evaluate_condition(
    rb: &Rulebook,
    facts: &Facts,
    formula: &Formula,
) -> Result<bool, EvalError> {
    let mut m = Machine::for_inputs(rb, facts);
    match m.formula(formula, Ctx::InputCondition)? {
        Value::Bool(b) => Ok(b),
        other => Err(m.error(
            formula,
            Ctx::InputCondition,
            formula.node.span,
            format!("expected a boolean, found {}", other.kind_name()),
        )),
    }
}

/// Where a formula sits, spelled out only when an error needs it.
#[derive(Clone, Copy)]
enum Ctx {
    Check(usize),
    Step(usize),
    Param(usize),
    Answer(usize, usize),
    Cite(usize),
    InputCondition,
    GroupOver(usize),
    ItemStep(usize, usize, usize),
    ItemAnswer(usize, usize),
}

impl Ctx {
    fn describe(self, rb: &Rulebook) -> String {
        match self {
            Ctx::Check(i) => format!("check {}", i + 1),
            Ctx::Step(i) => format!("step {}", rb.steps[i].name),
            Ctx::Param(i) => format!("parameter {}", rb.params[i].name),
            Ctx::Answer(d, o) => format!("answer field {}", rb.decisions[d].answer[o].key),
            Ctx::Cite(d) => format!("citation of decision {}", rb.decisions[d].name),
            Ctx::InputCondition => "input condition".to_string(),
            Ctx::GroupOver(g) => format!("`over` of group {}", rb.groups[g].name),
            Ctx::ItemStep(g, j, i) => format!(
                "step {}.{} of item {i}",
                rb.groups[g].name, rb.groups[g].steps[j].name
            ),
            Ctx::ItemAnswer(g, i) => {
                format!("the answer of item {i} of group {}", rb.groups[g].name)
            }
        }
    }
}

#[derive(Clone)]
enum Slot {
    Todo,
    Busy,
    Done(Value),
}

/// Why a node failed, before the formula around it is known. Boxed, so that a
/// `Res<Value>` is no larger than the value on the success path every node takes.
struct Fault(Box<FaultKind>);

enum FaultKind {
    At(Span, String),
    Eval(EvalError),
}

impl Fault {
    fn at(span: Span, message: String) -> Fault {
        Fault(Box::new(FaultKind::At(span, message)))
    }

    fn eval(e: EvalError) -> Fault {
        Fault(Box::new(FaultKind::Eval(e)))
    }
}

type Res<T> = Result<T, Fault>;

#[derive(Default)]
struct Frame {
    reads: Vec<Read>,
    lookups: Vec<Lookup>,
    roundings: Vec<RoundingTrace>,
}

struct Tracer {
    events: Vec<Event>,
    frames: Vec<Frame>,
    outcome: Option<OutcomeTrace>,
    reports: Vec<ReportTrace>,
}

/// What the deciding check chose; read by `decision`, `reason` in answers.
struct Chosen {
    name: Arc<str>,
    reason: Option<Arc<str>>,
}

/// A group's results: the items it ran over and each item's step values.
struct GroupResult {
    items: Arc<[Value]>,
    /// The step values, item after item, `width` to an item: one allocation
    /// for the whole group, where a record per item would take two each.
    /// Kept as the items' memo slots, so an item's pass is appended whole.
    fields: Vec<Slot>,
    width: usize,
    names: Arc<[Arc<str>]>,
    /// The results as a list of records, made the first time a formula reads
    /// the group whole (most untraced reads take a column, and need none).
    list: std::cell::OnceCell<Value>,
}

impl GroupResult {
    /// Item `i`'s step slots (all computed).
    fn row(&self, i: usize) -> &[Slot] {
        self.fields
            .get(i * self.width..(i + 1) * self.width)
            .unwrap_or(&[])
    }

    /// Step `j` of item `i`.
    fn field(&self, i: usize, j: usize) -> Option<&Value> {
        match self.row(i).get(j) {
            Some(Slot::Done(v)) => Some(v),
            _ => None,
        }
    }

    fn list(&self) -> Value {
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
struct ItemCtx {
    group: usize,
    index: usize,
    item: Value,
    slots: Vec<Slot>,
    /// `lines[3]`, for the trace of each of the item's steps (written once per item).
    label: Option<Arc<str>>,
}

struct Machine<'a> {
    rb: &'a Rulebook,
    facts: &'a Facts,
    steps: Vec<Slot>,
    params: Vec<Option<Value>>,
    groups: Vec<Option<Rc<GroupResult>>>,
    current: Option<ItemCtx>,
    /// Values of names bound inside formulas, innermost last.
    locals: Vec<Value>,
    budget: u64,
    tracer: Option<Tracer>,
    /// The text of the formula being evaluated, for messages.
    formula_text: &'a str,
    /// The decision taken, its reason and clauses, once a check decides.
    decision: Option<Chosen>,
    /// The group item a `SumRows` of the plan is at.
    row: Option<(Rc<GroupResult>, usize)>,
}

impl<'a> Machine<'a> {
    fn new(rb: &'a Rulebook, facts: &'a Facts, trace: bool) -> Self {
        Machine {
            steps: vec![Slot::Todo; rb.steps.len()],
            params: vec![None; rb.params.len()],
            groups: (0..rb.groups.len()).map(|_| None).collect(),
            tracer: trace.then(|| Tracer {
                events: Vec::new(),
                frames: Vec::new(),
                outcome: None,
                reports: Vec::new(),
            }),
            ..Machine::new_empty(rb, facts)
        }
    }

    fn new_empty(rb: &'a Rulebook, facts: &'a Facts) -> Self {
        Machine {
            rb,
            facts,
            steps: Vec::new(),
            params: Vec::new(),
            groups: Vec::new(),
            current: None,
            locals: Vec::new(),
            budget: rb.limits.max_eval_steps,
            tracer: None,
            formula_text: "",
            decision: None,
            row: None,
        }
    }

    /// A machine for the conditions of case validation, which read inputs and
    /// parameters only (the checker refuses steps and groups there): it
    /// allocates no memo (a condition reads a parameter a few times at most).
    fn for_inputs(rb: &'a Rulebook, facts: &'a Facts) -> Self {
        Machine::new_empty(rb, facts)
    }

    fn error(&self, f: &Formula, context: Ctx, span: Span, message: String) -> EvalError {
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

    /// Evaluates a whole formula, turning a located fault into an `EvalError`.
    fn formula(&mut self, f: &'a Formula, context: Ctx) -> Result<Value, EvalError> {
        let saved = std::mem::replace(&mut self.formula_text, &f.text);
        let res = self.eval(&f.node);
        self.formula_text = saved;
        res.map_err(|fault| match *fault.0 {
            FaultKind::At(span, message) => self.error(f, context, span, message),
            FaultKind::Eval(e) => e,
        })
    }

    fn bool_formula(&mut self, f: &'a Formula, context: Ctx) -> Result<bool, EvalError> {
        match self.formula(f, context)? {
            Value::Bool(b) => Ok(b),
            other => Err(self.error(
                f,
                context,
                f.node.span,
                format!(
                    "a condition must be true or false, found {}",
                    describe_value(&other)
                ),
            )),
        }
    }

    fn push_frame(&mut self) {
        if let Some(t) = &mut self.tracer {
            t.frames.push(Frame::default());
        }
    }

    fn pop_frame(&mut self) -> Frame {
        self.tracer
            .as_mut()
            .and_then(|t| t.frames.pop())
            .unwrap_or_default()
    }

    fn run(&mut self) -> Result<Outcome, EvalError> {
        let rb = self.rb;
        for (i, check) in rb.checks.iter().enumerate() {
            let context = Ctx::Check(i);
            self.push_frame();
            let held = match &check.when {
                Some(w) => match self.planned_check(i) {
                    Ok(Some(held)) => Ok(held),
                    Ok(None) => self.bool_formula(w, context),
                    Err(e) => Err(e),
                },
                None => Ok(true),
            };
            let frame = self.pop_frame();
            let held = held?;
            if let Some(t) = &mut self.tracer {
                let gives = match &check.outcome {
                    CheckOutcome::Decide {
                        decision, reason, ..
                    } => {
                        let reason = reason.as_ref().map(|r| format!(" {r}")).unwrap_or_default();
                        format!("decision {}{reason}", rb.decisions[*decision].name)
                    }
                    CheckOutcome::Reject { path, .. } => format!("reject {}", template_text(path)),
                };
                t.events.push(Event::Check(CheckTrace {
                    index: i + 1,
                    label: check.label.clone(),
                    when: check.when.as_ref().map(|w| w.text.clone()),
                    reads: frame.reads,
                    held,
                    gives,
                }));
            }
            if !held {
                continue;
            }
            return match &check.outcome {
                CheckOutcome::Reject { path, message } => {
                    let error = CaseError {
                        path: self.render(path, context)?,
                        message: self.render(message, context)?,
                    };
                    if let Some(t) = &mut self.tracer {
                        t.outcome = Some(OutcomeTrace::Rejected {
                            error: error.clone(),
                        });
                    }
                    Ok(Outcome::Rejected(error))
                }
                CheckOutcome::Decide {
                    decision,
                    reason,
                    clauses,
                } => self.answer(*decision, reason.clone(), clauses),
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

    fn answer(
        &mut self,
        index: usize,
        reason: Option<Arc<str>>,
        check_clauses: &[Arc<str>],
    ) -> Result<Outcome, EvalError> {
        let decision = &self.rb.decisions[index];
        let mut clauses = answer_clauses(check_clauses, decision);
        for (when, extra) in &decision.cite {
            let held = self.bool_formula(when, Ctx::Cite(index))?;
            if let Some(t) = &mut self.tracer {
                t.events.push(Event::Cite(CiteTrace {
                    when: when.text.clone(),
                    held,
                    clauses: extra.clone(),
                }));
            }
            if held {
                cite_clauses(&mut clauses, extra);
            }
        }
        self.decision = Some(Chosen {
            name: decision.name.clone(),
            reason: reason.clone(),
        });
        let mut object = serde_json::Map::with_capacity(decision.answer.len());
        for (o, out) in decision.answer.iter().enumerate() {
            let context = Ctx::Answer(index, o);
            let json = match (&out.value, self.planned_answer(index, o)?) {
                (OutputValue::Value { expr, format }, Some(value)) => {
                    self.formatted(&value, expr, *format, context, &clauses)?
                }
                _ => self.output(out, context, &clauses)?,
            };
            object.insert(out.key.to_string(), json);
        }
        if self.tracer.is_some() {
            let reports = self.reports(&clauses)?;
            if let Some(t) = &mut self.tracer {
                t.reports = reports;
            }
        }
        if let Some(t) = &mut self.tracer {
            t.outcome = Some(OutcomeTrace::Decision {
                decision: decision.name.to_string(),
                reason: reason.map(|r| r.to_string()),
                clauses: clauses.iter().map(|c| c.to_string()).collect(),
            });
        }
        Ok(Outcome::Answer(serde_json::Value::Object(object)))
    }

    /// The rulebook's report tables, for the trace: one row of cells per item shown.
    fn reports(&mut self, clauses: &[Arc<str>]) -> Result<Vec<ReportTrace>, EvalError> {
        let rb = self.rb;
        let mut out = Vec::with_capacity(rb.reports.len());
        for report in &rb.reports {
            let g = report.group;
            let rows: Vec<Vec<String>> = self
                .each_item(g, |m, i| {
                    let shown = match &report.when {
                        Some(w) => m.bool_formula(w, Ctx::ItemAnswer(g, i))?,
                        None => true,
                    };
                    if !shown {
                        return Ok(None);
                    }
                    report
                        .columns
                        .iter()
                        .map(|c| m.cell(c, Ctx::ItemAnswer(g, i), clauses))
                        .collect::<Result<Vec<_>, _>>()
                        .map(Some)
                })?
                .into_iter()
                .flatten()
                .collect();
            let totals = report
                .totals
                .iter()
                .map(|t| Ok((t.key.to_string(), self.cell(t, Ctx::Answer(0, 0), clauses)?)))
                .collect::<Result<Vec<_>, EvalError>>()?;
            let header = report.columns.iter().map(|c| c.key.to_string()).collect();
            out.push(ReportTrace {
                title: report.title.clone(),
                header,
                rows,
                totals,
            });
        }
        Ok(out)
    }

    /// Runs `f` once in the scope of each item of group `g` (its steps computed
    /// once, read from the memo), restoring the enclosing scope even on error.
    fn each_item<T>(
        &mut self,
        g: usize,
        mut f: impl FnMut(&mut Self, usize) -> Result<T, EvalError>,
    ) -> Result<Vec<T>, EvalError> {
        let over = &self.rb.groups[g].over;
        let res = self.group(g).map_err(|fault| match *fault.0 {
            FaultKind::Eval(e) => e,
            FaultKind::At(span, message) => self.error(over, Ctx::GroupOver(g), span, message),
        })?;
        let saved = self.current.take();
        let mut out = Vec::with_capacity(res.items.len());
        let mut failure = None;
        for (i, item) in res.items.iter().enumerate() {
            let slots = res.row(i).to_vec();
            self.current = Some(ItemCtx {
                group: g,
                index: i,
                item: item.clone(),
                slots,
                label: None,
            });
            match f(self, i) {
                Ok(v) => out.push(v),
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        self.current = saved;
        match failure {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    /// One report cell: the value in its format, as text; a missing value is blank.
    fn cell(
        &mut self,
        out: &'a Output,
        context: Ctx,
        clauses: &[Arc<str>],
    ) -> Result<String, EvalError> {
        if let OutputValue::Value { expr, .. } = &out.value {
            if self.formula(expr, context)?.is_missing() {
                return Ok(String::new());
            }
        }
        Ok(match self.output(out, context, clauses)? {
            serde_json::Value::String(s) => s,
            other => other.to_string(),
        })
    }

    /// A text with `{expr}` parts filled in.
    fn render(&mut self, parts: &'a [MessagePart], context: Ctx) -> Result<String, EvalError> {
        let mut text = String::new();
        for part in parts {
            match part {
                MessagePart::Text(t) => text.push_str(t),
                MessagePart::Value(f) => match self.formula(f, context)? {
                    Value::Text(t) => text.push_str(&t),
                    other => text.push_str(&other.to_string()),
                },
            }
        }
        Ok(text)
    }

    /// One answer field as JSON; a list over a group gives one object per item, in order.
    fn output(
        &mut self,
        out: &'a Output,
        context: Ctx,
        clauses: &[Arc<str>],
    ) -> Result<serde_json::Value, EvalError> {
        match &out.value {
            OutputValue::Value { expr, format } => {
                let value = self.formula(expr, context)?;
                self.formatted(&value, expr, *format, context, clauses)
            }
            OutputValue::Each { group, fields, key } => {
                let g = *group;
                let items = self.each_item(g, |m, i| {
                    let mut object = serde_json::Map::with_capacity(fields.len());
                    for field in fields {
                        object.insert(
                            field.key.to_string(),
                            m.output(field, Ctx::ItemAnswer(g, i), clauses)?,
                        );
                    }
                    let name = match key {
                        None => None,
                        Some(k) => Some(match m.formula(k, context)? {
                            Value::Text(t) => t.to_string(),
                            v if v.is_missing() => {
                                let message = format!("the key of item {i} is {}", v.kind_name());
                                return Err(m.error(k, context, k.node.span, message));
                            }
                            other => other.to_string(),
                        }),
                    };
                    Ok((name, serde_json::Value::Object(object)))
                })?;
                let Some(k) = key else {
                    return Ok(serde_json::Value::Array(
                        items.into_iter().map(|(_, o)| o).collect(),
                    ));
                };
                let mut keyed = serde_json::Map::with_capacity(items.len());
                for (name, object) in items {
                    let name = name.unwrap_or_default();
                    if keyed.insert(name.clone(), object).is_some() {
                        return Err(self.error(
                            k,
                            context,
                            k.node.span,
                            format!("two items have the key {name:?}"),
                        ));
                    }
                }
                Ok(serde_json::Value::Object(keyed))
            }
        }
    }

    /// An answer value written in its format; a value the format cannot
    /// write is a fault of the answer's formula.
    fn formatted(
        &self,
        value: &Value,
        expr: &Formula,
        format: Format,
        context: Ctx,
        clauses: &[Arc<str>],
    ) -> Result<serde_json::Value, EvalError> {
        format_value(value, format, clauses)
            .map_err(|m| self.error(expr, context, expr.node.span, m))
    }

    fn read(&mut self, name: &Arc<str>, value: &Value) {
        if let Some(frame) = self.tracer.as_mut().and_then(|t| t.frames.last_mut()) {
            if !frame.reads.iter().any(|r| r.name == *name) {
                frame.reads.push(Read {
                    name: name.clone(),
                    value: value.clone(),
                });
            }
        }
    }

    fn step(&mut self, i: usize, span: Span) -> Res<Value> {
        match self.steps.get(i) {
            None => {
                return Err(Fault::at(
                    span,
                    format!(
                        "step `{}` cannot be read while the case is validated",
                        self.rb.steps[i].name
                    ),
                ))
            }
            Some(Slot::Done(v)) => return Ok(v.clone()),
            Some(Slot::Busy) => {
                return Err(Fault::at(
                    span,
                    format!("step `{}` depends on itself", self.rb.steps[i].name),
                ))
            }
            Some(Slot::Todo) => {}
        }
        self.steps[i] = Slot::Busy;
        let value = match self.planned_step(i)? {
            Some(v) => v,
            None => self.run_step(&self.rb.steps[i], Ctx::Step(i), None)?,
        };
        self.steps[i] = Slot::Done(value.clone());
        Ok(value)
    }

    /// A step of the current item's group, computed on first use.
    fn item_step(&mut self, j: usize, span: Span) -> Res<Value> {
        let Some(ctx) = &mut self.current else {
            return Err(Fault::at(
                span,
                "a per-item step is read outside its group".into(),
            ));
        };
        match &ctx.slots[j] {
            Slot::Done(v) => return Ok(v.clone()),
            Slot::Busy => return Err(Fault::at(span, "a per-item step depends on itself".into())),
            Slot::Todo => {}
        }
        ctx.slots[j] = Slot::Busy;
        let (g, index) = (ctx.group, ctx.index);
        let value = match self.planned_item_step(g, index, j)? {
            Some(v) => v,
            None => self.walk_item_step(g, index, j)?,
        };
        if let Some(ctx) = &mut self.current {
            ctx.slots[j] = Slot::Done(value.clone());
        }
        Ok(value)
    }

    /// `lines[3]`: how a trace names an item's steps; `None` without a trace.
    fn item_label(&self, g: usize, index: usize) -> Option<Arc<str>> {
        self.tracer
            .as_ref()
            .map(|_| Arc::from(format!("{}[{index}]", self.rb.groups[g].name)))
    }

    /// Item step `j` computed by the walker.
    fn walk_item_step(&mut self, g: usize, index: usize, j: usize) -> Res<Value> {
        let rb = self.rb;
        let group = &rb.groups[g];
        let label = match self.current.as_ref() {
            Some(ItemCtx { label: Some(l), .. }) => Some(l.clone()),
            _ => self.item_label(g, index),
        };
        // Without a trace, a group over constant rows runs its steps with the row folded in.
        let step = match (&group.specialized, self.tracer.is_none()) {
            (Some(rows), true) => rows
                .get(index)
                .and_then(|r| r.steps.get(j))
                .unwrap_or(&group.steps[j]),
            _ => &group.steps[j],
        };
        self.run_step(step, Ctx::ItemStep(g, j, index), label)
    }

    /// Runs every item of a group once; later reads use the memo.
    fn group(&mut self, g: usize) -> Res<Rc<GroupResult>> {
        let Some(memo) = self.groups.get(g) else {
            let span = self.rb.groups[g].over.node.span;
            return Err(Fault::at(
                span,
                "a group cannot be read while the case is validated".into(),
            ));
        };
        if let Some(res) = memo {
            return Ok(res.clone());
        }
        let group = &self.rb.groups[g];
        let over = match self
            .rb
            .plan
            .constant_items(g)
            .filter(|_| self.tracer.is_none())
        {
            Some(items) => items.clone(),
            None => self
                .formula(&group.over, Ctx::GroupOver(g))
                .map_err(Fault::eval)?,
        };
        let items: Arc<[Value]> = match over {
            Value::List(items) => items,
            v if v.is_missing() => Arc::from(Vec::new()),
            other => {
                return Err(Fault::at(
                    group.over.node.span,
                    format!("`over` must be a list, found {}", describe_value(&other)),
                ))
            }
        };
        let saved = self.current.take();
        let n = group.steps.len();
        let mut fields = Vec::with_capacity(items.len() * n);
        // One slot buffer serves every item in turn.
        let mut slots: Vec<Slot> = Vec::with_capacity(n);
        let specialized = match (&group.specialized, self.tracer.is_none()) {
            (Some(rows), true) => Some(rows.clone()),
            _ => None,
        };
        for (index, item) in items.iter().enumerate() {
            slots.clear();
            match specialized.as_ref().and_then(|rows| rows.get(index)) {
                Some(row) => slots.extend(row.known.iter().map(|k| match k {
                    Some(v) => Slot::Done(v.clone()),
                    None => Slot::Todo,
                })),
                None => slots.resize(n, Slot::Todo),
            }
            self.current = Some(ItemCtx {
                group: g,
                index,
                item: item.clone(),
                slots,
                label: self.item_label(g, index),
            });
            let planned = match self.planned_item_pass(g, index) {
                Ok(planned) => planned,
                Err(e) => {
                    self.current = saved;
                    return Err(e);
                }
            };
            // The walker's pass (with a trace); item_step skips a step already computed.
            for j in (0..n).filter(|_| !planned) {
                if let Err(e) = self.item_step(j, group.over.node.span) {
                    self.current = saved;
                    return Err(e);
                }
            }
            let Some(ctx) = self.current.take() else {
                self.current = saved;
                return Err(Fault::at(
                    group.over.node.span,
                    "a group lost its item".into(),
                ));
            };
            slots = ctx.slots;
            fields.append(&mut slots);
        }
        self.current = saved;
        let res = Rc::new(GroupResult {
            items,
            fields,
            width: n,
            names: group.names.clone(),
            list: std::cell::OnceCell::new(),
        });
        self.groups[g] = Some(res.clone());
        Ok(res)
    }

    /// Computes a step in a frame of its own and records it in the trace.
    fn run_step(&mut self, step: &'a Step, context: Ctx, item: Option<Arc<str>>) -> Res<Value> {
        if self.tracer.is_none() {
            let (_, value, _) = self.compute_step(step, context).map_err(Fault::eval)?;
            return Ok(value);
        }
        self.push_frame();
        let res = self.compute_step(step, context);
        let frame = self.pop_frame();
        let (exact, value, condition) = res.map_err(Fault::eval)?;
        if let Some(t) = &mut self.tracer {
            t.events.push(Event::Step(Box::new(StepTrace {
                step: step.name.clone(),
                item,
                label: step.label.clone(),
                clauses: step.clauses.clone(),
                formula: step.expr.text.clone(),
                condition,
                reads: frame.reads,
                lookups: frame.lookups,
                roundings: frame.roundings,
                exact,
                value: value.clone(),
            })));
        }
        Ok(value)
    }

    fn compute_step(
        &mut self,
        step: &'a Step,
        context: Ctx,
    ) -> Result<(Value, Value, Option<ConditionTrace>), EvalError> {
        let mut condition = None;
        if let Some(when) = &step.when {
            let held = self.bool_formula(when, context)?;
            if self.tracer.is_some() {
                condition = Some(ConditionTrace {
                    formula: when.text.clone(),
                    held,
                });
            }
            if !held {
                let value = match &step.otherwise {
                    Some(o) => self.formula(o, context)?,
                    None => Value::Absent,
                };
                return Ok((value.clone(), value, condition));
            }
        }
        let exact = self.formula(&step.expr, context)?;
        let value = self.round_step(step, context, &exact)?;
        Ok((exact, value, condition))
    }

    /// Applies the step's rounding point, if any, recording it in the trace.
    fn round_step(
        &mut self,
        step: &'a Step,
        context: Ctx,
        exact: &Value,
    ) -> Result<Value, EvalError> {
        let Some((places, mode)) = step.round else {
            return Ok(exact.clone());
        };
        let n = match exact {
            Value::Number(d) => Num::Dec(*d),
            Value::Fraction(f) => Num::Frac(**f),
            v if v.is_missing() => return Ok(v.clone()),
            other => {
                return Err(self.error(
                    &step.expr,
                    context,
                    step.expr.node.span,
                    format!(
                        "only a number can be rounded, found {}",
                        describe_value(other)
                    ),
                ))
            }
        };
        let fail = |m: String| self.error(&step.expr, context, step.expr.node.span, m);
        if self.tracer.is_none() {
            return Ok(Value::Number(
                rounding::round_value(n, places, mode).map_err(fail)?,
            ));
        }
        let r = rounding::round_num(n, places, mode).map_err(fail)?;
        let after = r.after;
        if let Some(frame) = self.tracer.as_mut().and_then(|t| t.frames.last_mut()) {
            frame.roundings.push(RoundingTrace {
                at: "step".into(),
                rounded: r,
            });
        }
        Ok(Value::Number(after))
    }

    fn param(&mut self, i: usize) -> Res<Value> {
        if let Some(Some(v)) = self.params.get(i) {
            return Ok(v.clone());
        }
        let param = &self.rb.params[i];
        let value = match &param.value {
            ParamValue::Fixed(v) => v.clone(),
            ParamValue::Dated { at, periods } => {
                let key = self.formula(at, Ctx::Param(i)).map_err(Fault::eval)?;
                ops::in_period(periods, &key)
            }
        };
        if let Some(memo) = self.params.get_mut(i) {
            *memo = Some(value.clone());
        }
        Ok(value)
    }

    fn spend(&mut self, span: Span) -> Res<()> {
        if self.budget == 0 {
            return Err(Fault::at(
                span,
                format!(
                    "evaluation exceeded its limit of {} steps",
                    self.rb.limits.max_eval_steps
                ),
            ));
        }
        self.budget -= 1;
        Ok(())
    }

    fn eval(&mut self, node: &Node) -> Res<Value> {
        self.eval_read(node, true)
    }

    /// Evaluates a node; `record` says whether a name read is noted in the trace
    /// (off for the base of `a.b`, whose full path is noted instead).
    fn eval_read(&mut self, node: &Node, record: bool) -> Res<Value> {
        self.spend(node.span)?;
        match &node.kind {
            NodeKind::Const(v) => Ok(v.clone()),
            NodeKind::Input(i) => {
                let v = self.facts.values.get(*i).cloned().unwrap_or(Value::Absent);
                if record && self.tracer.is_some() {
                    self.read(&self.rb.inputs[*i].name.clone(), &v);
                }
                Ok(v)
            }
            NodeKind::Step(i) => {
                let v = self.step(*i, node.span)?;
                if record && self.tracer.is_some() {
                    self.read(&self.rb.steps[*i].name.clone(), &v);
                }
                Ok(v)
            }
            NodeKind::Param(i) => {
                let v = self.param(*i)?;
                if record && self.tracer.is_some() {
                    self.read(&self.rb.params[*i].name.clone(), &v);
                }
                Ok(v)
            }
            NodeKind::Local(i) => Ok(self.locals.get(*i).cloned().unwrap_or(Value::Absent)),
            NodeKind::Match {
                scrutinee,
                arms,
                otherwise,
            } => {
                let v = self.present(scrutinee)?;
                for (literal, value) in arms {
                    if compare(&v, literal).is_some_and(|o| o.is_eq()) {
                        return self.eval(value);
                    }
                }
                self.eval(otherwise)
            }
            NodeKind::Comprehension { body, list, filter } => {
                let items = self.list(list)?;
                let mut out = Vec::with_capacity(items.len());
                for item in items.iter() {
                    self.locals.push(item.clone());
                    let kept = match filter {
                        Some(f) => self.boolean(f),
                        None => Ok(true),
                    };
                    let res = match kept {
                        Ok(true) => self.eval(body).map(Some),
                        Ok(false) => Ok(None),
                        Err(e) => Err(e),
                    };
                    self.locals.pop();
                    if let Some(v) = res? {
                        out.push(v);
                    }
                }
                Ok(Value::List(out.into()))
            }
            NodeKind::Item => {
                let v = self
                    .current
                    .as_ref()
                    .map_or(Value::Absent, |c| c.item.clone());
                if record && self.tracer.is_some() {
                    if let Some(c) = &self.current {
                        let name = self.rb.groups[c.group].item.clone();
                        self.read(&name, &v);
                    }
                }
                Ok(v)
            }
            NodeKind::ItemStep(j) => {
                let v = self.item_step(*j, node.span)?;
                if record && self.tracer.is_some() {
                    if let Some(c) = &self.current {
                        let name = self.rb.groups[c.group].steps[*j].name.clone();
                        self.read(&name, &v);
                    }
                }
                Ok(v)
            }
            NodeKind::Group(g) => {
                let v = self.group(*g)?.list();
                if record && self.tracer.is_some() {
                    self.read(&self.rb.groups[*g].name.clone(), &v);
                }
                Ok(v)
            }
            NodeKind::Table(_) | NodeKind::Mode(_) => Err(Fault::at(
                node.span,
                "a table or rounding mode is not a value".into(),
            )),
            NodeKind::Decision => Ok(self
                .decision
                .as_ref()
                .map_or(Value::Absent, |d| Value::Text(d.name.clone()))),
            NodeKind::Reason => Ok(self
                .decision
                .as_ref()
                .and_then(|d| d.reason.clone())
                .map_or(Value::Absent, Value::Text)),
            NodeKind::Clauses => Ok(Value::Absent),
            NodeKind::Field { base, index, path } => {
                // Fast path: a field of the current item or of an input, read in place
                // (no clone of the whole record).
                if !(record && self.tracer.is_some()) {
                    let direct = match &base.kind {
                        NodeKind::Item => self.current.as_ref().map(|c| &c.item),
                        NodeKind::Input(i) => self.facts.values.get(*i),
                        NodeKind::Local(i) => self.locals.get(*i),
                        _ => None,
                    };
                    if let Some(Value::Record(r)) = direct {
                        let v = r.fields.get(*index).cloned().unwrap_or(Value::Absent);
                        self.spend(base.span)?;
                        return Ok(v);
                    }
                }
                let b = self.eval_read(base, path.is_none())?;
                let v = ops::field(&b, *index).map_err(|m| Fault::at(node.span, m))?;
                if let (Some(p), true) = (path, record && self.tracer.is_some()) {
                    self.read(p, &v);
                }
                Ok(v)
            }
            NodeKind::Neg(inner) => Ok(Value::from_num(-self.numeric(inner)?)),
            NodeKind::Not(inner) => Ok(Value::Bool(!self.boolean(inner)?)),
            NodeKind::Binary(op, a, b) => self.binary(*op, a, b, node.span),
            NodeKind::If(parts) => {
                let (c, a, b) = &**parts;
                if self.boolean(c)? {
                    self.eval(a)
                } else {
                    self.eval(b)
                }
            }
            NodeKind::Call(func, args) => self.call(*func, args, node.span),
        }
    }

    fn missing(&self, node: &Node, v: &Value) -> Fault {
        let what = self.describe_node(node);
        let how = if *v == Value::Null { "null" } else { "missing" };
        Fault::at(
            node.span,
            format!("{what} is {how}, so it cannot be used here (test it with is_missing first)"),
        )
    }

    fn describe_node(&self, node: &Node) -> String {
        match &node.kind {
            NodeKind::Input(i) => format!("input `{}`", self.rb.inputs[*i].name),
            NodeKind::Step(i) => format!("step `{}`", self.rb.steps[*i].name),
            NodeKind::Param(i) => format!("parameter `{}`", self.rb.params[*i].name),
            NodeKind::Field { path: Some(p), .. } => format!("`{p}`"),
            _ => {
                let text = self
                    .formula_text
                    .get(node.span.start as usize..node.span.end as usize)
                    .unwrap_or("the value");
                format!("`{text}`")
            }
        }
    }

    /// A number, decimal or exact fraction.
    fn numeric(&mut self, node: &Node) -> Res<Num> {
        match self.eval(node)? {
            Value::Number(n) => Ok(Num::Dec(n)),
            Value::Fraction(f) => Ok(Num::Frac(*f)),
            v if v.is_missing() => Err(self.missing(node, &v)),
            other => Err(Fault::at(
                node.span,
                format!("expected a number, found {}", describe_value(&other)),
            )),
        }
    }

    /// A decimal number (counts of days, months, years).
    fn number(&mut self, node: &Node) -> Res<Decimal> {
        match self.numeric(node)? {
            Num::Dec(d) => Ok(d),
            Num::Frac(f) => Err(Fault::at(
                node.span,
                format!("expected a whole number, found the fraction {f}"),
            )),
        }
    }

    fn boolean(&mut self, node: &Node) -> Res<bool> {
        match self.eval(node)? {
            Value::Bool(b) => Ok(b),
            v if v.is_missing() => Err(self.missing(node, &v)),
            other => Err(Fault::at(
                node.span,
                format!("expected true or false, found {}", describe_value(&other)),
            )),
        }
    }

    fn present(&mut self, node: &Node) -> Res<Value> {
        let v = self.eval(node)?;
        if v.is_missing() {
            return Err(self.missing(node, &v));
        }
        Ok(v)
    }

    fn binary(&mut self, op: BinOp, a: &Node, b: &Node, span: Span) -> Res<Value> {
        match op {
            BinOp::And => Ok(Value::Bool(self.boolean(a)? && self.boolean(b)?)),
            BinOp::Or => Ok(Value::Bool(self.boolean(a)? || self.boolean(b)?)),
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div => {
                let x = self.numeric(a)?;
                let y = self.numeric(b)?;
                x.arith(op, y)
                    .map(Value::from_num)
                    .map_err(|m| Fault::at(span, m))
            }
            _ => {
                let x = self.present(a)?;
                let y = self.present(b)?;
                let ord = compare(&x, &y).ok_or_else(|| {
                    Fault::at(
                        span,
                        format!(
                            "cannot compare {} with {}",
                            describe_value(&x),
                            describe_value(&y)
                        ),
                    )
                })?;
                Ok(Value::Bool(op.holds(ord)))
            }
        }
    }

    fn call(&mut self, func: Func, args: &[Node], span: Span) -> Res<Value> {
        let fault = |m: String| Fault::at(span, m);
        match func {
            Func::Min | Func::Max if args.len() == 1 => {
                ops::extremum_of(&self.list(&args[0])?, func == Func::Max).map_err(fault)
            }
            Func::Sum => ops::sum(&self.list(&args[0])?)
                .map(Value::from_num)
                .map_err(fault),
            Func::Any | Func::All => ops::any_all(&self.list(&args[0])?, func == Func::Any)
                .map(Value::Bool)
                .map_err(fault),
            Func::Keys | Func::Values => {
                ops::keys_values(&self.eval_read(&args[0], false)?, func == Func::Keys)
                    .map_err(fault)
            }
            Func::Rows => {
                let t = self.table_arg(&args[0])?;
                Ok(Value::List(
                    self.rows(t)
                        .iter()
                        .map(|r| Value::Record(r.record.clone()))
                        .collect(),
                ))
            }
            Func::FindIndex => ops::find_index(&self.list(&args[0])?).map_err(fault),
            Func::RangeRow => {
                let t = self.table_arg(&args[0])?;
                let x = self.numeric(&args[1])?;
                let found = ops::range_row(self.rows(t), x).map_err(&fault)?.map(|r| {
                    match r.record.fields.first() {
                        Some(Value::Number(upto)) => (r, format!("{x} ≤ {upto}")),
                        _ => (r, format!("{x} is above every bound")),
                    }
                });
                if self.tracer.is_some() {
                    let lookup = Lookup {
                        kind: "range",
                        table: self.rb.tables[t].name.clone(),
                        source: self.source(t),
                        key: x.to_string(),
                        row: found
                            .as_ref()
                            .map(|(r, _)| Value::Record(r.record.clone()).to_string()),
                        why: found
                            .as_ref()
                            .map_or_else(|| "no row".to_string(), |(_, why)| why.clone()),
                    };
                    if let Some(frame) = self.tracer.as_mut().and_then(|tr| tr.frames.last_mut()) {
                        frame.lookups.push(lookup);
                    }
                }
                Ok(found.map_or(Value::Absent, |(r, _)| Value::Record(r.record.clone())))
            }
            Func::Get => {
                // The whole map is not noted as read: the entry taken is the step's value.
                let map = self.eval_read(&args[0], false)?;
                let key = self.present(&args[1])?;
                ops::get(&map, &key).map_err(fault)
            }
            Func::Min | Func::Max => {
                let mut best = self.present(&args[0])?;
                for a in &args[1..] {
                    let v = self.present(a)?;
                    let ord = compare(&v, &best)
                        .ok_or_else(|| fault("cannot compare these values".into()))?;
                    if ops::prefers(ord, func == Func::Max) {
                        best = v;
                    }
                }
                Ok(best)
            }
            Func::Abs => Ok(Value::from_num(self.numeric(&args[0])?.abs())),
            Func::Clamp => {
                let x = self.numeric(&args[0])?;
                let lo = self.numeric(&args[1])?;
                let hi = self.numeric(&args[2])?;
                ops::clamp(x, lo, hi).map(Value::from_num).map_err(fault)
            }
            Func::Round | Func::Floor | Func::Ceil => {
                let x = self.numeric(&args[0])?;
                let places = match &args[1].kind {
                    NodeKind::Const(Value::Number(p)) => {
                        u32::try_from(ops::whole(*p, "places").map_err(&fault)?)
                            .map_err(|_| fault("bad places".into()))?
                    }
                    _ => return Err(fault("places must be a literal".into())),
                };
                let mode = match &args[2].kind {
                    NodeKind::Mode(m) => *m,
                    _ => RoundingMode::HalfUp,
                };
                if self.tracer.is_none() {
                    return rounding::round_value(x, places, mode)
                        .map(Value::Number)
                        .map_err(&fault);
                }
                let r = rounding::round_num(x, places, mode).map_err(&fault)?;
                let after = r.after;
                if let Some(frame) = self.tracer.as_mut().and_then(|t| t.frames.last_mut()) {
                    let at = self
                        .formula_text
                        .get(span.start as usize..span.end as usize)
                        .unwrap_or("round")
                        .to_string();
                    frame.roundings.push(RoundingTrace { at, rounded: r });
                }
                Ok(Value::Number(after))
            }
            Func::Pow => {
                let approx = |n: Num| {
                    n.approx()
                        .ok_or_else(|| fault("the fraction is too large".into()))
                };
                let x = approx(self.numeric(&args[0])?)?;
                let y = approx(self.numeric(&args[1])?)?;
                ops::pow(x, y).map(Value::Number).map_err(fault)
            }
            Func::IsMissing => Ok(Value::Bool(self.eval(&args[0])?.is_missing())),
            Func::IsNull => Ok(Value::Bool(self.eval(&args[0])? == Value::Null)),
            Func::Coalesce => {
                for a in args {
                    let v = self.eval(a)?;
                    if !v.is_missing() {
                        return Ok(v);
                    }
                }
                Ok(Value::Absent)
            }
            Func::Date | Func::Month => self.eval(&args[0]),
            Func::DaysInMonth => ops::days_in_month(&self.present(&args[0])?)
                .map(Value::Number)
                .map_err(fault),
            Func::DaysBetween => {
                let (a, b) = (self.date(&args[0])?, self.date(&args[1])?);
                Ok(Value::Number((b - a).num_days().into()))
            }
            Func::Age => {
                let (a, b) = (self.date(&args[0])?, self.date(&args[1])?);
                Ok(Value::Number(ops::age(a, b).into()))
            }
            Func::AddMonths => {
                let base = self.present(&args[0])?;
                let n = ops::whole(self.number(&args[1])?, "a number of months").map_err(&fault)?;
                let res = match base {
                    Value::Month(m) => m.plus_months(n).map(Value::Month),
                    Value::Date(d) => ops::add_months_date(d, n).map(Value::Date),
                    other => {
                        return Err(fault(format!(
                            "expected a month or a date, found {}",
                            describe_value(&other)
                        )))
                    }
                };
                res.ok_or_else(|| fault("the result is outside the calendar".into()))
            }
            Func::AddYears => {
                let d = self.date(&args[0])?;
                let n = ops::whole(self.number(&args[1])?, "a number of years").map_err(&fault)?;
                ops::add_years(d, n)
                    .map(Value::Date)
                    .ok_or_else(|| fault("the result is outside the calendar".into()))
            }
            Func::MonthOf => Ok(Value::Month(Month::of(self.date(&args[0])?))),
            Func::Day => Ok(Value::Number(
                chrono::Datelike::day(&self.date(&args[0])?).into(),
            )),
            Func::Year => ops::month_of_value(&self.present(&args[0])?)
                .map(|m| Value::Number(m.year.into()))
                .map_err(fault),
            Func::Count => ops::count(&self.eval(&args[0])?)
                .map(Value::Number)
                .map_err(fault),
            Func::Scale => {
                let t = self.table_arg(&args[0])?;
                let x = self.numeric(&args[1])?;
                let table = &self.rb.tables[t];
                let bands = ops::scale_bands(self.rows(t));
                let round_each = match args.get(2).map(|a| &a.kind) {
                    Some(NodeKind::Const(Value::Number(p))) => {
                        u32::try_from(ops::whole(*p, "places").map_err(&fault)?).ok()
                    }
                    _ => None,
                };
                let (total, lines) = ops::scale(&bands, x, round_each).map_err(&fault)?;
                let source = self.source(t);
                if let Some(frame) = self.tracer.as_mut().and_then(|tr| tr.frames.last_mut()) {
                    frame.lookups.push(Lookup {
                        kind: "scale",
                        table: table.name.clone(),
                        source,
                        key: x.to_string(),
                        row: None,
                        why: if lines.is_empty() {
                            "nothing above zero".into()
                        } else {
                            lines.join(" + ")
                        },
                    });
                }
                Ok(Value::from_num(total))
            }
            Func::PeriodRow => {
                let t = self.table_arg(&args[0])?;
                let key = self.eval(&args[1])?;
                if key.is_missing() {
                    return Ok(Value::Absent);
                }
                let rows = self.rows(t);
                let found = ops::period_row(rows, &key);
                let value = found.map_or(Value::Absent, |r| Value::Record(r.record.clone()));
                if self.tracer.is_some() {
                    let why = match found {
                        Some(r) => format!(
                            "{key} is within {}",
                            r.period.map(period_text).unwrap_or_default()
                        ),
                        None => {
                            let covered: Vec<String> = rows
                                .iter()
                                .map(|r| {
                                    format!(
                                        "{} {}",
                                        r.name.as_deref().unwrap_or("?"),
                                        r.period.map(period_text).unwrap_or_default()
                                    )
                                })
                                .collect();
                            format!("no row covers {key} (rows: {})", covered.join(", "))
                        }
                    };
                    let lookup = Lookup {
                        kind: "period",
                        table: self.rb.tables[t].name.clone(),
                        source: self.source(t),
                        key: key.to_string(),
                        row: found.and_then(|r| r.name.as_ref().map(|n| n.to_string())),
                        why,
                    };
                    if let Some(frame) = self.tracer.as_mut().and_then(|tr| tr.frames.last_mut()) {
                        frame.lookups.push(lookup);
                    }
                }
                Ok(value)
            }
            Func::Lookup => {
                let t = self.table_arg(&args[0])?;
                let mut keys = Vec::with_capacity(args.len() - 1);
                for a in &args[1..] {
                    let k = self.eval(a)?;
                    if k.is_missing() {
                        return Ok(Value::Absent);
                    }
                    keys.push(k);
                }
                let TableKind::Keyed { keys: key_cols } = &self.rb.tables[t].kind else {
                    return Err(fault("not a keyed table".into()));
                };
                let found = ops::key_row(self.rows(t), key_cols, &keys);
                let value = found.map_or(Value::Absent, |r| Value::Record(r.record.clone()));
                if self.tracer.is_some() {
                    let key: Vec<String> = keys.iter().map(plain).collect();
                    let lookup = Lookup {
                        kind: "key",
                        table: self.rb.tables[t].name.clone(),
                        source: self.source(t),
                        key: key.join(", "),
                        row: found.map(|_| key.join(", ")),
                        why: if found.is_some() {
                            "the row with this key".into()
                        } else {
                            "no row has this key".into()
                        },
                    };
                    if let Some(frame) = self.tracer.as_mut().and_then(|tr| tr.frames.last_mut()) {
                        frame.lookups.push(lookup);
                    }
                }
                Ok(value)
            }
        }
    }

    /// A list argument; a missing list is empty.
    fn list(&mut self, node: &Node) -> Res<Arc<[Value]>> {
        match self.eval(node)? {
            Value::List(items) => Ok(items),
            v if v.is_missing() => Ok(Arc::from([])),
            other => Err(Fault::at(
                node.span,
                format!("expected a list, found {}", describe_value(&other)),
            )),
        }
    }

    fn table_arg(&mut self, node: &Node) -> Res<TableId> {
        match &node.kind {
            NodeKind::Table(t) => Ok(*t),
            _ => Err(Fault::at(node.span, "expected a table name".into())),
        }
    }

    fn rows(&self, t: TableId) -> &'a [Row] {
        rows_in_force(self.rb, self.facts, t)
    }

    fn source(&self, t: TableId) -> String {
        if self.facts.tables.get(t).is_some_and(Option::is_some) {
            let input = self
                .rb
                .inputs
                .iter()
                .find(|i| matches!(i.kind, InputKind::Table { table } if table == t));
            format!("case:{}", input.map_or("?", |i| &*i.name))
        } else {
            "rulebook".into()
        }
    }

    fn date(&mut self, node: &Node) -> Res<chrono::NaiveDate> {
        match self.present(node)? {
            Value::Date(d) => Ok(d),
            other => Err(Fault::at(
                node.span,
                format!("expected a date, found {}", describe_value(&other)),
            )),
        }
    }
}

/// The clauses an answer cites before its `cite` rules: the deciding
/// check's, else its decision's.
pub(crate) fn answer_clauses(check_clauses: &[Arc<str>], decision: &Decision) -> Vec<Arc<str>> {
    if check_clauses.is_empty() {
        decision.clauses.clone()
    } else {
        check_clauses.to_vec()
    }
}

/// Adds a held `cite` rule's clauses, each once.
pub(crate) fn cite_clauses(clauses: &mut Vec<Arc<str>>, extra: &[Arc<str>]) {
    for c in extra {
        if !clauses.contains(c) {
            clauses.push(c.clone());
        }
    }
}

/// The rows of table `t` for this case: the case's, if it supplies them.
pub(crate) fn rows_in_force<'a>(rb: &'a Rulebook, facts: &'a Facts, t: TableId) -> &'a [Row] {
    match facts.tables.get(t).and_then(Option::as_ref) {
        Some(rows) => rows,
        None => rb.tables.get(t).map_or(&[][..], |table| &table.rows),
    }
}

/// `rows first-half, second-half of table schedule` when the case supplied them.
fn supplied_rows(rb: &Rulebook, facts: &Facts, table: TableId) -> Option<Value> {
    let rows = facts.tables.get(table)?.as_ref()?;
    let names: Vec<&str> = rows.iter().filter_map(|r| r.name.as_deref()).collect();
    let text = format!(
        "rows {} of table {}",
        names.join(", "),
        rb.tables[table].name
    );
    Some(Value::Text(Arc::from(text)))
}

/// A template as written, `{…}` parts shown as their formulas.
fn template_text(parts: &[MessagePart]) -> String {
    parts
        .iter()
        .map(|p| match p {
            MessagePart::Text(t) => t.clone(),
            MessagePart::Value(f) => format!("{{{}}}", f.text),
        })
        .collect()
}

fn period_text(p: Period) -> String {
    match p {
        Period::Months(f, Some(t)) => format!("{f}…{t}"),
        Period::Months(f, None) => format!("{f}…"),
        Period::Dates(f, Some(t)) => format!("{f}…{t}"),
        Period::Dates(f, None) => format!("{f}…"),
    }
}

/// Writes an answer value; an amount with more decimals than its format is an error, never a silent rounding.
pub(crate) fn format_value(
    v: &Value,
    format: Format,
    clauses: &[Arc<str>],
) -> Result<serde_json::Value, String> {
    let number = |n: &Decimal| {
        let mut n = *n;
        if n.is_zero() {
            n.set_sign_positive(true);
        }
        n
    };
    let json_number = |text: String| {
        serde_json::from_str::<serde_json::Number>(&text)
            .map(serde_json::Value::Number)
            .map_err(|e| e.to_string())
    };
    match (format, v) {
        (Format::Clauses, _) => Ok(serde_json::Value::Array(
            clauses
                .iter()
                .map(|c| serde_json::Value::String(c.to_string()))
                .collect(),
        )),
        (_, v) if v.is_missing() => Err(format!("the answer value is {}", v.kind_name())),
        (Format::Fixed(places), Value::Number(n)) => {
            let mut n = number(n);
            if n.scale() > places {
                let r = n.round_dp(places);
                if r != n {
                    return Err(format!(
                        "{n} has more than {places} decimals: round it in a step"
                    ));
                }
                n = r;
            }
            n.rescale(places);
            Ok(serde_json::Value::String(decimal_text(&n)))
        }
        (Format::Decimal, Value::Number(n)) => {
            Ok(serde_json::Value::String(decimal_text(&number(n))))
        }
        (Format::Integer, Value::Number(n)) => {
            if !n.fract().is_zero() {
                return Err(format!("{n} is not a whole number: round it in a step"));
            }
            json_number(decimal_text(&number(&n.trunc())))
        }
        (Format::Number, Value::Number(n)) => json_number(decimal_text(&number(&n.normalize()))),
        (Format::Text, Value::Text(t)) => Ok(serde_json::Value::String(t.to_string())),
        (Format::Bool, Value::Bool(b)) => Ok(serde_json::Value::Bool(*b)),
        (Format::Calendar, Value::Date(_) | Value::Month(_)) => {
            Ok(serde_json::Value::String(v.to_string()))
        }
        (_, Value::Fraction(f)) => Err(format!(
            "{f} is an exact fraction with no finite decimal form: round it in a step"
        )),
        (_, other) => Err(format!(
            "cannot write {} in this format",
            describe_value(other)
        )),
    }
}
