//! The tree walker: one node of a formula at a time, each spending one unit
//! of the case's budget, reads and lookups recorded when tracing.
use rust_decimal::Decimal;
use std::sync::Arc;

use crate::expr::BinOp;
use crate::model::*;
use crate::num::exact::Num;
use crate::span::Span;
use crate::value::{compare, describe_value, Value};

use super::{Fault, Machine, Res};
use crate::model::ops;

impl<'a> Machine<'a> {
    pub(super) fn spend(&mut self, span: Span) -> Res<()> {
        if self.budget == 0 {
            self.exhausted = true;
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

    pub(super) fn eval(&mut self, node: &Node) -> Res<Value> {
        self.eval_read(node, true)
    }

    /// Evaluates a node; `record` says whether a name read is noted in the trace
    /// (off for the base of `a.b`, whose full path is noted instead).
    pub(super) fn eval_read(&mut self, node: &Node, record: bool) -> Res<Value> {
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

    pub(super) fn missing(&self, node: &Node, v: &Value) -> Fault {
        let what = self.describe_node(node);
        let how = if *v == Value::Null { "null" } else { "missing" };
        Fault::at(
            node.span,
            format!("{what} is {how}, so it cannot be used here (test it with is_missing first)"),
        )
    }

    pub(super) fn describe_node(&self, node: &Node) -> String {
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
    pub(super) fn numeric(&mut self, node: &Node) -> Res<Num> {
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
    pub(super) fn number(&mut self, node: &Node) -> Res<Decimal> {
        match self.numeric(node)? {
            Num::Dec(d) => Ok(d),
            Num::Frac(f) => Err(Fault::at(
                node.span,
                format!("expected a whole number, found the fraction {f}"),
            )),
        }
    }

    pub(super) fn boolean(&mut self, node: &Node) -> Res<bool> {
        match self.eval(node)? {
            Value::Bool(b) => Ok(b),
            v if v.is_missing() => Err(self.missing(node, &v)),
            other => Err(Fault::at(
                node.span,
                format!("expected true or false, found {}", describe_value(&other)),
            )),
        }
    }

    pub(super) fn present(&mut self, node: &Node) -> Res<Value> {
        let v = self.eval(node)?;
        if v.is_missing() {
            return Err(self.missing(node, &v));
        }
        Ok(v)
    }

    pub(super) fn binary(&mut self, op: BinOp, a: &Node, b: &Node, span: Span) -> Res<Value> {
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

    /// A list argument; a missing list is empty.
    pub(super) fn list(&mut self, node: &Node) -> Res<Arc<[Value]>> {
        match self.eval(node)? {
            Value::List(items) => Ok(items),
            v if v.is_missing() => Ok(Arc::from([])),
            other => Err(Fault::at(
                node.span,
                format!("expected a list, found {}", describe_value(&other)),
            )),
        }
    }

    pub(super) fn table_arg(&mut self, node: &Node) -> Res<TableId> {
        match &node.kind {
            NodeKind::Table(t) => Ok(*t),
            _ => Err(Fault::at(node.span, "expected a table name".into())),
        }
    }

    pub(super) fn rows(&self, t: TableId) -> &'a [Row] {
        super::rows_in_force(self.rb, self.facts, t)
    }

    pub(super) fn source(&self, t: TableId) -> String {
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

    pub(super) fn date(&mut self, node: &Node) -> Res<chrono::NaiveDate> {
        match self.present(node)? {
            Value::Date(d) => Ok(d),
            other => Err(Fault::at(
                node.span,
                format!("expected a date, found {}", describe_value(&other)),
            )),
        }
    }
}
