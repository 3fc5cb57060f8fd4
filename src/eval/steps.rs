//! Steps on first use: the memo of top-level steps, per-item groups (each
//! item its own memo), parameters, and the rounding point of each step.
use std::rc::Rc;
use std::sync::Arc;

use crate::facts::Facts;
use crate::model::*;
use crate::num::exact::Num;
use crate::num::rounding;
use crate::span::Span;
use crate::trace::{ConditionTrace, Event, RoundingTrace, StepTrace};
use crate::value::{describe_value, Value};

use super::{Ctx, EvalError, Fault, GroupResult, ItemCtx, Machine, Res, Slot};
use crate::model::ops;

impl<'a> Machine<'a> {
    pub(super) fn step(&mut self, i: usize, span: Span) -> Res<Value> {
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
        // INVARIANT: a step read while it is Busy is a cycle, which the
        // checker refuses; meeting one here is a fault, never a loop.
        self.steps[i] = Slot::Busy;
        let value = super::nested(|| match self.planned_step(i)? {
            Some(v) => Ok(v),
            None => self.run_step(&self.rb.steps[i], Ctx::Step(i), None),
        })?;
        self.steps[i] = Slot::Done(value.clone());
        Ok(value)
    }

    /// A step of the current item's group, computed on first use.
    pub(super) fn item_step(&mut self, j: usize, span: Span) -> Res<Value> {
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
        let value = super::nested(|| match self.planned_item_step(g, index, j)? {
            Some(v) => Ok(v),
            None => self.walk_item_step(g, index, j),
        })?;
        if let Some(ctx) = &mut self.current {
            ctx.slots[j] = Slot::Done(value.clone());
        }
        Ok(value)
    }

    /// `lines[3]`: how a trace names an item's steps; `None` without a trace.
    pub(super) fn item_label(&self, g: usize, index: usize) -> Option<Arc<str>> {
        self.tracer
            .as_ref()
            .map(|_| Arc::from(format!("{}[{index}]", self.rb.groups[g].name)))
    }

    /// Item step `j` computed by the walker.
    pub(super) fn walk_item_step(&mut self, g: usize, index: usize, j: usize) -> Res<Value> {
        let rb = self.rb;
        let group = &rb.groups[g];
        let label = match self.current.as_ref() {
            Some(ItemCtx { label: Some(l), .. }) => Some(l.clone()),
            _ => self.item_label(g, index),
        };
        // On the lowered road, a group over constant rows runs its steps with the row folded in.
        let step = match (&group.specialized, self.lowered) {
            (Some(rows), true) => rows
                .get(index)
                .and_then(|r| r.steps.get(j))
                .unwrap_or(&group.steps[j]),
            _ => &group.steps[j],
        };
        self.run_step(step, Ctx::ItemStep(g, j, index), label)
    }

    /// Runs every item of a group once; later reads use the memo.
    pub(super) fn group(&mut self, g: usize) -> Res<Rc<GroupResult>> {
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
        let over = match self.rb.plan.constant_items(g).filter(|_| self.lowered) {
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
        let specialized = match (&group.specialized, self.lowered) {
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
    pub(super) fn run_step(
        &mut self,
        step: &'a Step,
        context: Ctx,
        item: Option<Arc<str>>,
    ) -> Res<Value> {
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

    pub(super) fn compute_step(
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
    pub(super) fn round_step(
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

    pub(super) fn param(&mut self, i: usize) -> Res<Value> {
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
}

/// The rows of table `t` for this case: the case's, if it supplies them.
pub(crate) fn rows_in_force<'a>(rb: &'a Rulebook, facts: &'a Facts, t: TableId) -> &'a [Row] {
    match facts.tables.get(t).and_then(Option::as_ref) {
        Some(rows) => rows,
        None => rb.tables.get(t).map_or(&[][..], |table| &table.rows),
    }
}

/// `rows first-half, second-half of table schedule` when the case supplied them.
pub(super) fn supplied_rows(rb: &Rulebook, facts: &Facts, table: TableId) -> Option<Value> {
    let rows = facts.tables.get(table)?.as_ref()?;
    let names: Vec<&str> = rows.iter().filter_map(|r| r.name.as_deref()).collect();
    let text = format!(
        "rows {} of table {}",
        names.join(", "),
        rb.tables[table].name
    );
    Some(Value::Text(Arc::from(text)))
}
