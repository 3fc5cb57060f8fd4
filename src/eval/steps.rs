//! Steps on first use: the memo of top-level steps, per-item groups (each
//! item its own memo), parameters, and the rounding point of each step.
//!
//! A group over constant rows runs, when the shortcuts are taken, over the
//! items and the per-row steps specialised at load (`rulebook::fold`),
//! and never runs a step whose value is known for its row.
use std::rc::Rc;
use std::sync::Arc;

use crate::facts::Facts;
use crate::model::code::{Code, CodeKind};
use crate::model::*;
use crate::num::exact::Num;
use crate::num::{rounding, NumError, RoundingMode};
use crate::span::Span;
use crate::trace::{CiteTrace, ConditionTrace, Event, RoundingTrace, StepEvent, StepTrace};
use crate::value::{describe_value, Value};

use super::machine::{Fault, GroupResult, ItemCtx, Machine, Res, Site, Slot};
use super::tracer::Tracer;
use crate::model::ops;

impl<'a, T: Tracer> Machine<'a, T> {
    pub(super) fn step(&mut self, id: StepId, span: Span) -> Res<Value> {
        let i = id.index();
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
        let rb = self.rb;
        let value = super::machine::nested(|| self.run_step(&rb.steps[i], Site::Step(id), None))?;
        self.steps[i] = Slot::Done(value.clone());
        Ok(value)
    }

    /// A step of the current item's group, computed on first use.
    pub(super) fn item_step(&mut self, j: usize, span: Span) -> Res<Value> {
        let slot = self.current.as_mut().and_then(|c| c.slots.get_mut(j));
        match slot {
            None => {
                return Err(Fault::at(
                    span,
                    "a per-item step is read outside its group".into(),
                ))
            }
            Some(Slot::Done(v)) => return Ok(v.clone()),
            Some(Slot::Busy) => {
                return Err(Fault::at(span, "a per-item step depends on itself".into()))
            }
            Some(slot @ Slot::Todo) => *slot = Slot::Busy,
        }
        let (g, index) = match &self.current {
            Some(c) => (c.group, c.index),
            None => (0, 0),
        };
        let value = super::machine::nested(|| self.compute_item_step(g, index, j))?;
        if let Some(slot) = self.current.as_mut().and_then(|c| c.slots.get_mut(j)) {
            *slot = Slot::Done(value.clone());
        }
        Ok(value)
    }

    /// `lines[3]`: how a trace names an item's steps; `None` without a
    /// trace. A group over constant rows has its labels made at load.
    fn item_label(&self, g: usize, index: usize) -> Option<Arc<str>> {
        if !T::ON {
            return None;
        }
        let group = &self.rb.groups[g];
        let made = (group.specialized.as_deref()).and_then(|s| s.labels.get(index));
        Some(match made {
            Some(label) => label.clone(),
            None => crate::model::item_label(&group.name, index),
        })
    }

    /// Step `j` of item `index` of group `g`, the current item: with its
    /// row folded in when the shortcuts are taken and the group has one.
    fn compute_item_step(&mut self, g: usize, index: usize, j: usize) -> Res<Value> {
        if T::ON {
            if let Some(res) = self.known_item_step(g, index, j) {
                return res;
            }
        }
        let rb = self.rb;
        let group = &rb.groups[g];
        let label = match self.current.as_ref() {
            Some(ItemCtx { label: Some(l), .. }) => Some(l.clone()),
            _ => self.item_label(g, index),
        };
        let step = match (&group.specialized, self.shortcuts) {
            (Some(s), true) => s
                .rows
                .get(index)
                .and_then(|r| r.steps.get(j))
                .unwrap_or(&group.steps[j]),
            _ => self.traced_row_step(g, index, j).unwrap_or(&group.steps[j]),
        };
        self.run_step(step, Site::ItemStep(g, j, index), label)
    }

    /// Runs every item of a group once; later reads use the memo.
    pub(super) fn group(&mut self, g: usize) -> Res<Rc<GroupResult>> {
        let Some(memo) = self.groups.get(g) else {
            let span = self.rb.groups[g].over.code.span;
            return Err(Fault::at(
                span,
                "a group cannot be read while the case is validated".into(),
            ));
        };
        if let Some(res) = memo {
            return Ok(res.clone());
        }
        let res = super::machine::nested(|| self.run_group(g))?;
        self.groups[g] = Some(res.clone());
        Ok(res)
    }

    fn run_group(&mut self, g: usize) -> Res<Rc<GroupResult>> {
        let rb = self.rb;
        let group = &rb.groups[g];
        let specialized = group.specialized.as_deref().filter(|_| self.shortcuts);
        let over = match specialized {
            Some(s) => s.items.clone(),
            None => self.formula(&group.over, Site::GroupOver(g))?,
        };
        let items: Arc<[Value]> = match over {
            Value::List(items) => items,
            v if v.is_missing() => Arc::from(Vec::new()),
            other => {
                return Err(Fault::at(
                    group.over.code.span,
                    format!("`over` must be a list, found {}", describe_value(&other)),
                ))
            }
        };
        let saved = self.current.take();
        let n = group.steps.len();
        let mut fields = Vec::with_capacity(items.len() * n);
        if T::ON {
            // The machine planned room for one item of a group over the
            // case (`Machine::new`); the others are counted now, or the
            // events list grows by copying, item after item (bounded: a
            // budget may end the group early).
            let planned = group.specialized.as_ref().map_or(1, |s| s.rows.len());
            let more = items.len().saturating_sub(planned).min(1 << 16);
            self.tracer.reserve(more.saturating_mul(n));
        }
        // One slot buffer serves every item in turn.
        let mut slots: Vec<Slot> = Vec::with_capacity(n);
        for (index, item) in items.iter().enumerate() {
            slots.clear();
            let steps = match specialized.and_then(|s| s.rows.get(index)) {
                Some(row) => {
                    slots.extend(row.known.iter().map(|k| match k {
                        Some(v) => Slot::Done(v.clone()),
                        None => Slot::Todo,
                    }));
                    &row.steps
                }
                None => {
                    slots.resize(n, Slot::Todo);
                    &group.steps
                }
            };
            self.current = Some(ItemCtx {
                group: g,
                index,
                item: item.clone(),
                slots,
                label: self.item_label(g, index),
            });
            let pass = self.item_pass(g, index, steps);
            let ctx = match (pass, self.current.take()) {
                (Ok(()), Some(ctx)) => ctx,
                (pass, _) => {
                    self.current = saved;
                    return Err(pass.err().unwrap_or_else(|| {
                        Fault::at(group.over.code.span, "a group lost its item".into())
                    }));
                }
            };
            slots = ctx.slots;
            fields.append(&mut slots);
        }
        self.current = saved;
        Ok(Rc::new(GroupResult {
            items,
            fields,
            width: n,
            names: group.names.clone(),
            list: std::cell::OnceCell::new(),
        }))
    }

    /// Computes, in order, every step of the current item (item `index` of
    /// group `g`, whose steps are `steps`) not known yet.
    fn item_pass(&mut self, g: usize, index: usize, steps: &'a [Step]) -> Res<()> {
        for (j, step) in steps.iter().enumerate() {
            let label = match self
                .current
                .as_mut()
                .and_then(|c| c.slots.get_mut(j).zip(Some(&c.label)))
            {
                Some((slot @ Slot::Todo, label)) => {
                    *slot = Slot::Busy;
                    if T::ON {
                        label.clone()
                    } else {
                        None
                    }
                }
                _ => continue,
            };
            let known = if T::ON {
                self.known_item_step(g, index, j)
            } else {
                None
            };
            let value = match known {
                Some(res) => res?,
                None => {
                    let step = self.traced_row_step(g, index, j).unwrap_or(step);
                    self.run_step(step, Site::ItemStep(g, j, index), label)?
                }
            };
            if let Some(slot) = self.current.as_mut().and_then(|c| c.slots.get_mut(j)) {
                *slot = Slot::Done(value);
            }
        }
        Ok(())
    }

    /// Computes a step and then its `cite` conditions (a condition can
    /// fault, so both roads evaluate them); with a trace, in a frame of its
    /// own, and records it.
    #[inline]
    pub(super) fn run_step(
        &mut self,
        step: &'a Step,
        context: Site,
        item: Option<Arc<str>>,
    ) -> Res<Value> {
        if T::ON {
            self.run_step_traced(step, context, item)
        } else {
            let value = self.compute_step(step, context, &mut None, &mut None)?;
            for (when, _) in &step.cite {
                // A condition folded to a constant (a specialised row's)
                // cannot fault; with the shortcuts it is not evaluated, and
                // spends nothing (see `run` for a budget that runs out).
                if self.shortcuts && matches!(when.code.kind, CodeKind::Const(Value::Bool(_))) {
                    continue;
                }
                self.bool_formula(when, context.cite())?;
            }
            Ok(value)
        }
    }

    /// The step's `cite` conditions, in order, each with whether it held;
    /// and its clauses: its own, then those of each condition that held,
    /// each once.
    fn traced_cites(&mut self, step: &'a Step, context: Site) -> Res<(Vec<CiteTrace>, Clauses)> {
        let mut clauses = step.clauses.clone();
        let mut cites = Vec::with_capacity(step.cite.len());
        for (when, extra) in &step.cite {
            let held = self.bool_formula(when, context.cite())?;
            if held && extra.iter().any(|c| !clauses.contains(c)) {
                let mut more = clauses.to_vec();
                super::answer::cite_clauses(&mut more, extra);
                clauses = more.into();
            }
            cites.push(CiteTrace {
                when: when.text.clone(),
                held,
                clauses: extra.clone(),
            });
        }
        Ok((cites, clauses))
    }

    #[inline(never)]
    fn run_step_traced(
        &mut self,
        step: &'a Step,
        context: Site,
        item: Option<Arc<str>>,
    ) -> Res<Value> {
        self.tracer.push_frame();
        let (mut exact, mut condition) = (None, None);
        let res = self
            .compute_step(step, context, &mut exact, &mut condition)
            .and_then(|value| Ok((value, self.traced_cites(step, context)?)));
        let frame = self.tracer.pop_frame();
        let (value, (cites, clauses)) = res?;
        self.tracer
            .event(Event::Step(StepEvent::Own(Box::new(StepTrace {
                step: step.name.clone(),
                item,
                label: step.label.clone(),
                clauses,
                cites,
                detail: step.detail,
                formula: step.expr.text.clone(),
                condition,
                reads: frame.reads,
                lookups: frame.lookups,
                roundings: frame.roundings,
                exact,
                value: value.clone(),
            }))));
        Ok(value)
    }

    /// A step's value: its condition, formula (or `otherwise`) and rounding
    /// point. With a trace, its condition and its exact value before the
    /// rounding point are kept in `condition` and `exact`.
    #[inline]
    fn compute_step(
        &mut self,
        step: &'a Step,
        context: Site,
        exact: &mut Option<Value>,
        condition: &mut Option<ConditionTrace>,
    ) -> Res<Value> {
        // Most steps are a formula alone.
        if step.when.is_none() && step.round.is_none() {
            if !T::ON {
                return self.in_formula(&step.expr, context, |m, code| m.step_value(code));
            }
            return self.formula(&step.expr, context);
        }
        self.compute_full_step(step, context, exact, condition)
    }

    /// An untraced step's formula alone. Most steps of a payslip's lines
    /// are the read of a value at hand ([`Machine::at_hand`]: `base` is
    /// `t1`, `employee_part` is `employee`) or arithmetic: taken here
    /// without the frame of the general `eval`, spending the unit `eval`
    /// would (such a read cannot fault otherwise).
    #[inline(always)]
    fn step_value(&mut self, code: &'a Code) -> Res<Value> {
        if let CodeKind::Arith(..) | CodeKind::Round(..) = code.kind {
            return self.number_value(code);
        }
        match self.at_hand(code) {
            Some(v) => {
                let v = v.clone();
                self.spend(code.span)?;
                Ok(v)
            }
            None => self.value(code),
        }
    }

    #[inline(never)]
    fn compute_full_step(
        &mut self,
        step: &'a Step,
        context: Site,
        exact: &mut Option<Value>,
        condition: &mut Option<ConditionTrace>,
    ) -> Res<Value> {
        if let Some(when) = &step.when {
            let held = self.bool_formula(when, context)?;
            if T::ON {
                *condition = Some(ConditionTrace {
                    formula: when.text.clone(),
                    held,
                });
            }
            if !held {
                return match &step.otherwise {
                    Some(o) => self.formula(o, context),
                    None => Ok(Value::Absent),
                };
            }
        }
        let Some((places, mode)) = step.round else {
            return self.formula(&step.expr, context);
        };
        let value = self.formula(&step.expr, context)?;
        let rounded = self.round_step(step, context, places, mode, &value)?;
        if T::ON {
            *exact = Some(value);
        }
        Ok(rounded)
    }

    /// Applies the step's rounding point, recording it in the trace.
    fn round_step(
        &mut self,
        step: &'a Step,
        context: Site,
        places: u32,
        mode: RoundingMode,
        exact: &Value,
    ) -> Res<Value> {
        let n = match exact {
            Value::Number(d) => Num::Dec(*d),
            Value::Fraction(f) => Num::Frac(**f),
            v if v.is_missing() => return Ok(v.clone()),
            other => {
                return Err(Fault::eval(self.error(
                    &step.expr,
                    context,
                    step.expr.code.span,
                    format!(
                        "only a number can be rounded, found {}",
                        describe_value(other)
                    ),
                )))
            }
        };
        let fail = |m: NumError| {
            Fault::eval(self.error(&step.expr, context, step.expr.code.span, m.to_string()))
        };
        if !T::ON {
            return Ok(Value::Number(
                rounding::round_value(n, places, mode).map_err(fail)?,
            ));
        }
        let r = rounding::round_num(n, places, mode).map_err(fail)?;
        let after = r.after;
        self.tracer.rounding(RoundingTrace {
            at: "step".into(),
            rounded: r,
        });
        Ok(Value::Number(after))
    }

    pub(super) fn param(&mut self, i: usize) -> Res<Value> {
        if let Some(Some(v)) = self.params.get(i) {
            return Ok(v.clone());
        }
        let rb = self.rb;
        let value = match &rb.params[i].value {
            ParamValue::Fixed(v) => v.clone(),
            ParamValue::Dated { at, periods } => {
                let key = self.formula(at, Site::Param(i))?;
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
    match facts.tables.get(t.index()).and_then(Option::as_ref) {
        Some(rows) => rows,
        None => rb
            .tables
            .get(t.index())
            .map_or(&[][..], |table| &table.rows),
    }
}

/// `rows first-half, second-half of table schedule` when the case supplied them.
pub(super) fn supplied_rows(rb: &Rulebook, facts: &Facts, table: TableId) -> Option<Value> {
    let rows = facts.tables.get(table.index())?.as_ref()?;
    let names: Vec<&str> = rows.iter().filter_map(|r| r.name.as_deref()).collect();
    let text = format!(
        "rows {} of table {}",
        names.join(", "),
        rb.tables[table.index()].name
    );
    Some(Value::Text(Arc::from(text)))
}
