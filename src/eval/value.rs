//! A node of code as a value: each node evaluated spends one unit of the
//! case's budget; with a trace, the names it reads are noted.
//!
//! Nodes that always give a number or a boolean (arithmetic, rounding,
//! comparisons, logic) are computed by `number`, which holds no value per
//! node; here they are wrapped once. Everything else is here: reads,
//! fields, choices, comprehensions, and what a fault says of a value it
//! cannot use.
use std::sync::Arc;

use crate::model::code::{Code, CodeKind};
use crate::model::*;
use crate::num::exact::Num;
use crate::span::Span;
use crate::value::{compare, describe_value, text_units, Value};

use super::machine::{Fault, FaultKind, Machine, Res, Slot};
use super::number::Off;
use super::tracer::Tracer;
use crate::model::ops;

impl<'a, T: Tracer> Machine<'a, T> {
    /// Spends one unit of the budget, at the node `span` is of. A traced
    /// evaluation whose trace has grown past its bound stops here too.
    #[inline]
    pub(super) fn spend(&mut self, span: Span) -> Res<()> {
        if self.budget == 0 || (T::ON && self.tracer.over()) {
            return Err(self.exhaust(span));
        }
        self.budget -= 1;
        Ok(())
    }

    #[cold]
    fn exhaust(&mut self, span: Span) -> Fault {
        if T::ON && self.tracer.over() {
            return Fault::at(
                span,
                format!(
                    "the trace exceeded its limit of {} records; the case can be evaluated untraced",
                    super::tracer::MAX_TRACE_RECORDS
                ),
            );
        }
        self.exhausted = true;
        Fault::at(
            span,
            format!(
                "evaluation exceeded its limit of {} steps",
                self.rb.limits.max_eval_steps
            ),
        )
    }

    /// Spends `n` units at once (a shortcut standing for `n` nodes).
    pub(super) fn spend_many(&mut self, n: u64, span: Span) -> Res<()> {
        if self.budget < n || (T::ON && self.tracer.over()) {
            self.budget = self.budget.saturating_sub(n);
            return Err(self.exhaust(span));
        }
        self.budget -= n;
        Ok(())
    }

    /// The node's value, its reads noted.
    #[inline]
    pub(super) fn value(&mut self, c: &'a Code) -> Res<Value> {
        self.eval(c, true)
    }

    /// The node's value; `record` says whether a name read is noted in the
    /// trace (off for the base of `a.b`, whose full path is noted instead).
    // INVARIANT: a node spends its unit before it reads or computes
    // anything, here or in the typed paths of `number` it is sent to.
    pub(super) fn eval(&mut self, c: &'a Code, record: bool) -> Res<Value> {
        match &c.kind {
            CodeKind::Arith(..) | CodeKind::Neg(_) | CodeKind::Round(..) => {
                return number_value(self.dec(c))
            }
            CodeKind::Folded { .. } | CodeKind::SumColumn { .. } | CodeKind::SumRows { .. } => {
                return match self.shortcut_whole(c) {
                    Some(whole) => self.eval(whole, record),
                    None => number_value(self.dec(c)),
                };
            }
            CodeKind::Compare(..)
            | CodeKind::And(..)
            | CodeKind::Or(..)
            | CodeKind::Not(_)
            | CodeKind::IsMissing(_) => return self.truth(c).map(Value::Bool),
            CodeKind::Recorded(r) => return self.replayed(r, record),
            _ => {}
        }
        self.spend(c.span)?;
        let rb = self.rb;
        match &c.kind {
            CodeKind::Const(v) => Ok(v.clone()),
            CodeKind::Input(i) => {
                let v = self
                    .facts
                    .values
                    .get(i.index())
                    .cloned()
                    .unwrap_or(Value::Absent);
                if T::ON && record {
                    self.tracer.read(&rb.inputs[i.index()].name, &v);
                }
                Ok(v)
            }
            CodeKind::Step(i) => {
                let v = match self.steps.get(i.index()) {
                    Some(Slot::Done(v)) => v.clone(),
                    _ => self.step(*i, c.span)?,
                };
                if T::ON && record {
                    self.tracer.read(&rb.steps[i.index()].name, &v);
                }
                Ok(v)
            }
            CodeKind::Fixed(i, v) => {
                if T::ON && record {
                    self.tracer.read(&rb.params[*i].name, v);
                }
                Ok(v.clone())
            }
            CodeKind::Param(i) => {
                let v = self.param(*i)?;
                if T::ON && record {
                    self.tracer.read(&rb.params[*i].name, &v);
                }
                Ok(v)
            }
            CodeKind::Local(i) | CodeKind::InItem(i) => {
                Ok(self.locals.get(*i).cloned().unwrap_or(Value::Absent))
            }
            CodeKind::Item => {
                let v = self
                    .current
                    .as_ref()
                    .map_or(Value::Absent, |c| c.item.clone());
                if T::ON && record {
                    if let Some(g) = self.current.as_ref().map(|c| c.group) {
                        self.tracer.read(&rb.groups[g].item, &v);
                    }
                }
                Ok(v)
            }
            CodeKind::ItemStep(j) => {
                let done = self.current.as_ref().and_then(|c| c.slots.get(*j));
                let v = match done {
                    Some(Slot::Done(v)) => v.clone(),
                    _ => self.item_step(*j, c.span)?,
                };
                if T::ON && record {
                    if let Some(g) = self.current.as_ref().map(|c| c.group) {
                        self.tracer.read(&rb.groups[g].steps[*j].name, &v);
                    }
                }
                Ok(v)
            }
            CodeKind::Group(g) => {
                let v = self.group(*g)?.list();
                if T::ON && record {
                    self.tracer.read(&rb.groups[*g].name, &v);
                }
                Ok(v)
            }
            CodeKind::Table(_) | CodeKind::Mode(_) => Err(Fault::at(
                c.span,
                "a table or rounding mode is not a value".into(),
            )),
            CodeKind::Decision => Ok(self
                .decision
                .as_ref()
                .map_or(Value::Absent, |d| Value::Text(d.name.clone()))),
            CodeKind::Reason => Ok(self
                .decision
                .as_ref()
                .and_then(|d| d.reason.clone())
                .map_or(Value::Absent, Value::Text)),
            CodeKind::Clauses => Ok(Value::Absent),
            CodeKind::Field(base, index, path) => self.field(c, base, *index, path, record),
            CodeKind::RowField(index, _) => {
                self.spend(c.span)?;
                match &self.row {
                    Some((rows, i)) => Ok(rows.field(*i, *index).cloned().unwrap_or(Value::Absent)),
                    None => Err(Fault::at(
                        c.span,
                        "a row field is read outside its sum".into(),
                    )),
                }
            }
            CodeKind::If(parts) => {
                if self.truth(&parts.0)? {
                    self.value(&parts.1)
                } else {
                    self.value(&parts.2)
                }
            }
            CodeKind::Let(value, body) => {
                let v = self.value(value)?;
                self.locals.push(v);
                let res = self.value(body);
                self.locals.pop();
                res
            }
            CodeKind::Match(scrutinee, arms, otherwise) => {
                let v = self.present(scrutinee)?;
                let texts = text_units(&v);
                if texts > 0 {
                    self.spend_many(texts, c.span)?;
                }
                for (literals, value) in arms {
                    if literals
                        .iter()
                        .any(|literal| compare(&v, literal).is_some_and(|o| o.is_eq()))
                    {
                        return self.value(value);
                    }
                }
                self.value(otherwise)
            }
            CodeKind::Extremum(func, args) => self.extremum(*func == Func::Max, args, c.span),
            CodeKind::Coalesce(args) => {
                for a in args {
                    let v = self.value(a)?;
                    if !v.is_missing() {
                        return Ok(v);
                    }
                }
                Ok(Value::Absent)
            }
            CodeKind::Call(func, args) => self.call(*func, args, c.span),
            CodeKind::Comprehension {
                indexed,
                body,
                list,
                filter,
                ..
            } => self.comprehension(*indexed, body, list, filter.as_deref()),
            // Computed above, before a unit is spent.
            CodeKind::Arith(..)
            | CodeKind::Neg(_)
            | CodeKind::Round(..)
            | CodeKind::Folded { .. }
            | CodeKind::SumColumn { .. }
            | CodeKind::SumRows { .. }
            | CodeKind::Compare(..)
            | CodeKind::And(..)
            | CodeKind::Or(..)
            | CodeKind::Not(_)
            | CodeKind::IsMissing(_)
            | CodeKind::Recorded(_) => Err(Fault::at(c.span, "misplaced code".into())),
        }
    }

    /// The value of a node that gives a number (arithmetic, a rounding point).
    pub(super) fn number_value(&mut self, c: &'a Code) -> Res<Value> {
        number_value(self.dec(c))
    }

    /// `base.field`.
    fn field(
        &mut self,
        c: &'a Code,
        base: &'a Code,
        index: usize,
        path: &'a Option<Arc<str>>,
        record: bool,
    ) -> Res<Value> {
        // A field of the current item, an input or a local, read in place
        // (no clone of the whole record), where no read is noted.
        if !(T::ON && record) {
            let direct = match &base.kind {
                CodeKind::Item => self.current.as_ref().map(|c| &c.item),
                CodeKind::Input(i) => self.facts.values.get(i.index()),
                CodeKind::Local(i) => self.locals.get(*i),
                _ => None,
            };
            if let Some(Value::Record(r)) = direct {
                let v = r.fields.get(index).cloned().unwrap_or(Value::Absent);
                self.spend(base.span)?;
                return Ok(v);
            }
        }
        // A column of a group (`lines.net`), taken from its results
        // without the list of records the whole group would be. Unless the
        // group's own read is noted (no path): that needs the list.
        let notes_group = T::ON && record && path.is_none();
        if let (CodeKind::Group(g), false) = (&base.kind, notes_group) {
            self.spend(base.span)?;
            let group = self.group(*g)?;
            // A column is a list made item by item, as a projection is.
            self.spend_many(group.items.len() as u64, c.span)?;
            let v = group.column(index);
            if T::ON && record {
                if let Some(p) = path {
                    self.tracer.read(p, &v);
                }
            }
            return Ok(v);
        }
        let b = self.eval(base, path.is_none())?;
        // A field of each item of a list (`lines.net`): one unit per item.
        if let Value::List(items) = &b {
            self.spend_many(items.len() as u64, c.span)?;
        }
        let v = ops::field(&b, index).map_err(|m| Fault::at(c.span, m))?;
        if T::ON && record {
            if let Some(p) = path {
                self.tracer.read(p, &v);
            }
        }
        Ok(v)
    }

    /// `min`/`max` of two or more values, compared as they are read.
    pub(super) fn extremum(&mut self, max: bool, args: &'a [Code], span: Span) -> Res<Value> {
        let Some((first, rest)) = args.split_first() else {
            return Ok(Value::Absent);
        };
        // Decimals compared as decimals, anything else as values.
        let mut best = self.comparand(first)?;
        for a in rest {
            let v = self.comparand(a)?;
            let ord = match (&v, &best) {
                (Ok(x), Ok(y)) => Some(x.cmp(y)),
                _ => compare(&as_value(&v), &as_value(&best)),
            }
            .ok_or_else(|| Fault::at(span, "cannot compare these values".into()))?;
            if ops::prefers(ord, max) {
                best = v;
            }
        }
        Ok(best.map_or_else(|v| v, Value::Number))
    }

    /// `[body for x in list if filter]`.
    fn comprehension(
        &mut self,
        indexed: bool,
        body: &'a Code,
        list: &'a Code,
        filter: Option<&'a Code>,
    ) -> Res<Value> {
        let items = self.list(list)?;
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            if indexed {
                self.locals.push(Value::Number(i.into()));
            }
            self.locals.push(item.clone());
            let kept = match filter {
                Some(f) => self.truth(f),
                None => Ok(true),
            };
            let res = match kept {
                Ok(true) => self.value(body).map(Some),
                Ok(false) => Ok(None),
                Err(e) => Err(e),
            };
            self.locals.pop();
            if indexed {
                self.locals.pop();
            }
            if let Some(v) = res? {
                out.push(v);
            }
        }
        Ok(Value::List(out.into()))
    }

    /// The code a shortcut stands for, when the shortcut is not taken.
    pub(super) fn shortcut_whole(&self, c: &'a Code) -> Option<&'a Code> {
        match &c.kind {
            CodeKind::Folded { whole, .. }
            | CodeKind::SumColumn { whole, .. }
            | CodeKind::SumRows { whole, .. } => (!self.shortcuts).then_some(&**whole),
            _ => None,
        }
    }

    /// A value that is missing, where it cannot be used.
    pub(super) fn missing(&self, c: &Code, v: &Value) -> Fault {
        let rb = self.rb;
        let what = match &c.kind {
            // Named as the part it stands for (at the same span).
            CodeKind::Recorded(r) => return self.missing(&r.whole, v),
            CodeKind::Input(i) => Some(format!("input `{}`", rb.inputs[i.index()].name)),
            CodeKind::Step(i) => Some(format!("step `{}`", rb.steps[i.index()].name)),
            CodeKind::Param(i) | CodeKind::Fixed(i, _) => {
                Some(format!("parameter `{}`", rb.params[*i].name))
            }
            CodeKind::Field(_, _, Some(p)) | CodeKind::RowField(_, Some(p)) => {
                Some(format!("`{p}`"))
            }
            _ => None,
        };
        Fault(Box::new(FaultKind::Missing {
            span: c.span,
            what,
            item: matches!(c.kind, CodeKind::InItem(_)),
            null: *v == Value::Null,
        }))
    }

    /// A number, decimal or exact fraction, that `c` gave.
    pub(super) fn judge_num(&self, c: &Code, v: Value) -> Res<Num> {
        match v {
            Value::Number(n) => Ok(Num::Dec(n)),
            Value::Fraction(f) => Ok(Num::Frac(*f)),
            v if v.is_missing() => Err(self.missing(c, &v)),
            other => Err(Fault::at(
                c.span,
                format!("expected a number, found {}", describe_value(&other)),
            )),
        }
    }

    /// A number, decimal or exact fraction.
    pub(super) fn numeric(&mut self, c: &'a Code) -> Res<Num> {
        match self.dec(c) {
            Ok(d) => Ok(Num::Dec(d)),
            Err(Off::Fault(f)) => Err(f),
            Err(Off::Value(v)) => self.judge_num(c, v),
        }
    }

    /// A decimal number (counts of days, months, years).
    pub(super) fn number(&mut self, c: &'a Code) -> Res<rust_decimal::Decimal> {
        match self.numeric(c)? {
            Num::Dec(d) => Ok(d),
            Num::Frac(f) => Err(Fault::at(
                c.span,
                format!("expected a whole number, found the fraction {f}"),
            )),
        }
    }

    /// A boolean that `c` gave.
    pub(super) fn judge_bool(&self, c: &Code, v: Value) -> Res<bool> {
        match v {
            Value::Bool(b) => Ok(b),
            v if v.is_missing() => Err(self.missing(c, &v)),
            other => Err(Fault::at(
                c.span,
                format!("expected true or false, found {}", describe_value(&other)),
            )),
        }
    }

    pub(super) fn present(&mut self, c: &'a Code) -> Res<Value> {
        let v = self.value(c)?;
        if v.is_missing() {
            return Err(self.missing(c, &v));
        }
        Ok(v)
    }

    /// A list operand of a built-in or a comprehension (a missing list is
    /// empty), which reads it item by item: one unit per item, besides the
    /// node's own. A node's unit alone let `sum([sum(xs) for x in xs])`
    /// run for minutes within any budget.
    pub(super) fn list(&mut self, c: &'a Code) -> Res<Arc<[Value]>> {
        match self.value(c)? {
            Value::List(items) => {
                self.spend_many(items.len() as u64, c.span)?;
                Ok(items)
            }
            v if v.is_missing() => Ok(Arc::from([])),
            other => Err(Fault::at(
                c.span,
                format!("expected a list, found {}", describe_value(&other)),
            )),
        }
    }

    pub(super) fn date(&mut self, c: &'a Code) -> Res<chrono::NaiveDate> {
        match self.present(c)? {
            Value::Date(d) => Ok(d),
            other => Err(Fault::at(
                c.span,
                format!("expected a date, found {}", describe_value(&other)),
            )),
        }
    }
}

/// A comparand as a value.
fn as_value(c: &Result<rust_decimal::Decimal, Value>) -> std::borrow::Cow<'_, Value> {
    match c {
        Ok(d) => std::borrow::Cow::Owned(Value::Number(*d)),
        Err(v) => std::borrow::Cow::Borrowed(v),
    }
}

/// What a node that gives a number gave, as a value.
#[inline]
fn number_value(r: Result<rust_decimal::Decimal, Off>) -> Res<Value> {
    match r {
        Ok(d) => Ok(Value::Number(d)),
        Err(Off::Value(v)) => Ok(v),
        Err(Off::Fault(f)) => Err(f),
    }
}
