//! The untraced fast road: step formulas, check conditions and answer fields
//! lowered to code that computes decimals and booleans without building a
//! value for every node.
//!
//! The tree walker of `eval` serves the trace: it notes every read, lookup
//! and rounding, and names every fault in place. Most evaluations keep no
//! trace (batches, generators, scorers), and there the walk itself cost
//! more than the arithmetic. A [`Plan`] holds each step's formula lowered to
//! [`Code`]: the same operations, typed where the context says a number or a
//! boolean is expected, with the rare forms (comprehensions, calendar and
//! table functions) left as tree nodes that the walker evaluates in place.
//!
//! Invariant: running a step's code gives exactly the value the tree walker
//! gives, or *bails*; a step whose code bailed is computed again by the tree
//! walker, which then meets the same fault and names it. Code never reports
//! a fault of its own. A fault raised by another step it reads is that
//! step's, already named, and passes through unchanged, as it would in the
//! walker. Evaluation order (left to right, `and`/`or`/`if`/`coalesce`
//! short-circuits) is the walker's, so the steps computed before a bail are
//! the steps the walker would have computed too.

use rust_decimal::Decimal;

use super::{EvalError, Fault, FaultKind, Machine, Slot};
use crate::expr::BinOp;
use crate::model::plan::{Code, StepCode};
use crate::model::Func;
use crate::num::exact::Num;
use crate::num::rounding;
use crate::span::Span;
use crate::value::compare;
use crate::value::Value;

/// Why code stopped.
enum Stop {
    /// Not a case this code computes: the tree walker computes the step.
    Bail,
    /// A fault of another step, already named: it passes through.
    Fault(Fault),
}

type Run<T> = Result<T, Stop>;

/// A fault met while reading another step, group or parameter: one located in
/// this formula is left for the walker to name in context; one already named
/// passes through.
fn read_fault(fault: Fault) -> Stop {
    match *fault.0 {
        FaultKind::At(..) => Stop::Bail,
        FaultKind::Eval(_) => Stop::Fault(fault),
    }
}

/// `a op b` on decimals, as `Num::arith` computes it when the result is a decimal.
fn arith(op: BinOp, a: Decimal, b: Decimal) -> Run<Decimal> {
    match op {
        BinOp::Add => a.checked_add(b).ok_or(Stop::Bail),
        BinOp::Sub => a.checked_sub(b).ok_or(Stop::Bail),
        BinOp::Mul => a.checked_mul(b).ok_or(Stop::Bail),
        _ => match Num::Dec(a).arith(op, Num::Dec(b)) {
            Ok(Num::Dec(d)) => Ok(d),
            _ => Err(Stop::Bail),
        },
    }
}

impl<'a> Machine<'a> {
    /// The step's value by its code: `Ok(None)` when there is no code to run
    /// (a trace is kept) or the code bailed, and the walker must compute it.
    pub(super) fn planned_step(&mut self, i: usize) -> Result<Option<Value>, Fault> {
        match (self.lowered, self.rb.plan.steps.get(i)) {
            (true, Some(code)) => finish(self.run_step_code(code)),
            _ => Ok(None),
        }
    }

    /// The same for step `j` of the current item of group `g`.
    pub(super) fn planned_item_step(
        &mut self,
        g: usize,
        index: usize,
        j: usize,
    ) -> Result<Option<Value>, Fault> {
        if !self.lowered {
            return Ok(None);
        }
        match self
            .rb
            .plan
            .item_codes(g, index)
            .and_then(|codes| codes.get(j))
        {
            Some(code) => finish(self.run_step_code(code)),
            None => Ok(None),
        }
    }

    /// Computes, in order, every step of the current item (item `index` of
    /// group `g`) not known yet: by its code, or by the walker where the code
    /// bails. `Ok(false)` when there is no code to run (a trace is kept).
    pub(super) fn planned_item_pass(&mut self, g: usize, index: usize) -> Result<bool, Fault> {
        if !self.lowered {
            return Ok(false);
        }
        let Some(codes) = self.rb.plan.item_codes(g, index) else {
            return Ok(false);
        };
        for (j, code) in codes.iter().enumerate() {
            match self.current.as_mut().and_then(|c| c.slots.get_mut(j)) {
                Some(slot @ Slot::Todo) => *slot = Slot::Busy,
                _ => continue,
            }
            let value = match finish(self.run_step_code(code))? {
                Some(v) => v,
                None => self.walk_item_step(g, index, j)?,
            };
            if let Some(slot) = self.current.as_mut().and_then(|c| c.slots.get_mut(j)) {
                *slot = Slot::Done(value);
            }
        }
        Ok(true)
    }

    /// Whether check `i` holds, by its code; `Ok(None)` when the walker must tell.
    pub(super) fn planned_check(&mut self, i: usize) -> Result<Option<bool>, EvalError> {
        match (self.lowered, self.rb.plan.checks.get(i)) {
            (true, Some(Some(code))) => settle(self.code_truth(code)),
            _ => Ok(None),
        }
    }

    /// Answer field `o` of decision `d`, by its code; `Ok(None)` when the walker must compute it.
    pub(super) fn planned_answer(
        &mut self,
        d: usize,
        o: usize,
    ) -> Result<Option<Value>, EvalError> {
        let rb = self.rb;
        match (self.lowered, rb.plan.answers.get(d).and_then(|a| a.get(o))) {
            (true, Some(Some(code))) => settle(self.code_value(code)),
            _ => Ok(None),
        }
    }

    fn run_step_code(&mut self, code: &'a StepCode) -> Run<Value> {
        if let Some(when) = &code.when {
            if !self.code_truth(when)? {
                return match &code.otherwise {
                    Some(o) => self.code_value(o),
                    None => Ok(Value::Absent),
                };
            }
        }
        let Some((places, mode)) = code.round else {
            return self.code_value(&code.expr);
        };
        match self.code_value(&code.expr)? {
            Value::Number(d) => rounding::round_value(Num::Dec(d), places, mode)
                .map(Value::Number)
                .map_err(|_| Stop::Bail),
            v if v.is_missing() => Ok(v),
            _ => Err(Stop::Bail),
        }
    }

    fn tick(&mut self) -> Run<()> {
        if self.budget == 0 {
            self.exhausted = true;
            return Err(Stop::Bail);
        }
        self.budget -= 1;
        Ok(())
    }

    /// A number at hand, read without a call: a constant, or a step, item
    /// step or input already computed or given. Most operands are one.
    #[inline(always)]
    fn leaf_number(&self, code: &Code) -> Option<Decimal> {
        let v = match code {
            Code::Const(v) => v,
            Code::Step(i) => match self.steps.get(*i) {
                Some(Slot::Done(v)) => v,
                _ => return None,
            },
            Code::ItemStep(j) => match self.current.as_ref()?.slots.get(*j) {
                Some(Slot::Done(v)) => v,
                _ => return None,
            },
            Code::Input(i) => self.facts.values.get(*i)?,
            _ => return None,
        };
        match v {
            Value::Number(d) => Some(*d),
            _ => None,
        }
    }

    /// A number is expected here.
    fn code_number(&mut self, code: &'a Code) -> Run<Decimal> {
        if let Some(d) = self.leaf_number(code) {
            self.tick()?;
            return Ok(d);
        }
        match code {
            Code::Arith(op, a, b) => {
                self.tick()?;
                let x = self.operand(a)?;
                let y = self.operand(b)?;
                arith(*op, x, y)
            }
            Code::Round(x, places, mode) => {
                self.tick()?;
                let x = self.operand(x)?;
                rounding::round_value(Num::Dec(x), *places, *mode).map_err(|_| Stop::Bail)
            }
            Code::Neg(a) => {
                self.tick()?;
                Ok(-self.operand(a)?)
            }
            Code::If(parts) => {
                self.tick()?;
                if self.code_truth(&parts.0)? {
                    self.code_number(&parts.1)
                } else {
                    self.code_number(&parts.2)
                }
            }
            other => self.number_of_value(other),
        }
    }

    /// An operand of arithmetic: at hand, or computed.
    #[inline(always)]
    fn operand(&mut self, code: &'a Code) -> Run<Decimal> {
        match self.leaf_number(code) {
            Some(d) => {
                self.tick()?;
                Ok(d)
            }
            None => self.code_number(code),
        }
    }

    fn number_of_value(&mut self, code: &'a Code) -> Run<Decimal> {
        match self.code_value(code)? {
            Value::Number(d) => Ok(d),
            _ => Err(Stop::Bail),
        }
    }

    /// A boolean is expected here.
    fn code_truth(&mut self, code: &'a Code) -> Run<bool> {
        match code {
            Code::Const(Value::Bool(b)) => {
                self.tick()?;
                Ok(*b)
            }
            Code::Not(a) => {
                self.tick()?;
                Ok(!self.code_truth(a)?)
            }
            Code::And(a, b) => {
                self.tick()?;
                Ok(self.code_truth(a)? && self.code_truth(b)?)
            }
            Code::Or(a, b) => {
                self.tick()?;
                Ok(self.code_truth(a)? || self.code_truth(b)?)
            }
            Code::Compare(op, a, b) => {
                self.tick()?;
                let ord = match (self.leaf_number(a), self.leaf_number(b)) {
                    (Some(x), Some(y)) => {
                        self.tick()?;
                        self.tick()?;
                        x.cmp(&y)
                    }
                    _ => {
                        let x = self.code_present(a)?;
                        let y = self.code_present(b)?;
                        compare(&x, &y).ok_or(Stop::Bail)?
                    }
                };
                Ok(op.holds(ord))
            }
            Code::IsMissing(a) => {
                self.tick()?;
                Ok(self.code_value(a)?.is_missing())
            }
            other => match self.code_value(other)? {
                Value::Bool(b) => Ok(b),
                _ => Err(Stop::Bail),
            },
        }
    }

    fn code_present(&mut self, code: &'a Code) -> Run<Value> {
        let v = self.code_value(code)?;
        if v.is_missing() {
            return Err(Stop::Bail);
        }
        Ok(v)
    }

    /// Any value.
    fn code_value(&mut self, code: &'a Code) -> Run<Value> {
        match code {
            Code::Const(v) => {
                self.tick()?;
                Ok(v.clone())
            }
            Code::Input(i) => {
                self.tick()?;
                Ok(self.facts.values.get(*i).cloned().unwrap_or(Value::Absent))
            }
            Code::Step(i) => {
                self.tick()?;
                if let Some(Slot::Done(v)) = self.steps.get(*i) {
                    return Ok(v.clone());
                }
                self.step(*i, Span::default()).map_err(read_fault)
            }
            Code::ItemStep(j) => {
                self.tick()?;
                if let Some(Slot::Done(v)) = self.current.as_ref().and_then(|c| c.slots.get(*j)) {
                    return Ok(v.clone());
                }
                self.item_step(*j, Span::default()).map_err(read_fault)
            }
            Code::Param(i) => {
                self.tick()?;
                self.param(*i).map_err(read_fault)
            }
            Code::Item => {
                self.tick()?;
                Ok(self
                    .current
                    .as_ref()
                    .map_or(Value::Absent, |c| c.item.clone()))
            }
            Code::Field(base, index) => {
                self.tick()?;
                // The common bases are read in place, without a copy of the record.
                let direct = match &**base {
                    Code::Item => self.current.as_ref().map(|c| &c.item),
                    Code::Input(i) => self.facts.values.get(*i),
                    _ => None,
                };
                if let Some(Value::Record(r)) = direct {
                    let v = r.fields.get(*index).cloned().unwrap_or(Value::Absent);
                    self.tick()?;
                    return Ok(v);
                }
                match self.code_value(base)? {
                    Value::Record(r) => Ok(r.fields.get(*index).cloned().unwrap_or(Value::Absent)),
                    v if v.is_missing() => Ok(v),
                    _ => Err(Stop::Bail),
                }
            }
            Code::Arith(..) | Code::Round(..) | Code::Neg(_) => {
                self.code_number(code).map(Value::Number)
            }
            Code::Compare(..)
            | Code::And(..)
            | Code::Or(..)
            | Code::Not(_)
            | Code::IsMissing(_) => self.code_truth(code).map(Value::Bool),
            Code::If(parts) => {
                self.tick()?;
                if self.code_truth(&parts.0)? {
                    self.code_value(&parts.1)
                } else {
                    self.code_value(&parts.2)
                }
            }
            Code::Match(scrutinee, arms, otherwise) => {
                self.tick()?;
                let v = self.code_present(scrutinee)?;
                for (literal, value) in arms {
                    if compare(&v, literal).is_some_and(|o| o.is_eq()) {
                        return self.code_value(value);
                    }
                }
                self.code_value(otherwise)
            }
            Code::Extremum(func, args) => {
                self.tick()?;
                let mut best = self.code_present(&args[0])?;
                for a in &args[1..] {
                    let v = self.code_present(a)?;
                    let ord = compare(&v, &best).ok_or(Stop::Bail)?;
                    if crate::model::ops::prefers(ord, *func == Func::Max) {
                        best = v;
                    }
                }
                Ok(best)
            }
            Code::Coalesce(args) => {
                self.tick()?;
                for a in args {
                    let v = self.code_value(a)?;
                    if !v.is_missing() {
                        return Ok(v);
                    }
                }
                Ok(Value::Absent)
            }
            Code::SumColumn(g, index) => {
                // The walker spends on the call, the projection and the group read.
                self.tick()?;
                self.tick()?;
                self.tick()?;
                let group = self.group(*g).map_err(read_fault)?;
                let mut total = Decimal::ZERO;
                for i in 0..group.items.len() {
                    match group.field(i, *index) {
                        Some(Value::Number(d)) => total = arith(BinOp::Add, total, *d)?,
                        _ => return Err(Stop::Bail),
                    }
                }
                Ok(Value::Number(total))
            }
            Code::SumRows {
                group,
                filter,
                body,
                ..
            } => {
                // The walker spends on the call, the comprehension and the group read.
                self.tick()?;
                self.tick()?;
                self.tick()?;
                let rows = self.group(*group).map_err(read_fault)?;
                let saved = self.row.take();
                let mut total = Ok(Decimal::ZERO);
                for i in 0..rows.items.len() {
                    self.row = Some((rows.clone(), i));
                    total = total.and_then(|sum| {
                        if let Some(f) = filter {
                            if !self.code_truth(f)? {
                                return Ok(sum);
                            }
                        }
                        arith(BinOp::Add, sum, self.code_number(body)?)
                    });
                    if total.is_err() {
                        break;
                    }
                }
                self.row = saved;
                total.map(Value::Number)
            }
            Code::RowField(index) => {
                self.tick()?;
                self.tick()?;
                match &self.row {
                    Some((rows, i)) => rows.field(*i, *index).cloned().ok_or(Stop::Bail),
                    None => Err(Stop::Bail),
                }
            }
            Code::Tree(node) => self.eval(node).map_err(read_fault),
        }
    }
}

/// The end of a whole formula's code: a fault of another step is already an
/// `EvalError`, passed on as the walker's `formula` would.
fn settle<T>(run: Run<T>) -> Result<Option<T>, EvalError> {
    match run {
        Ok(v) => Ok(Some(v)),
        Err(Stop::Bail) => Ok(None),
        Err(Stop::Fault(f)) => match *f.0 {
            FaultKind::Eval(e) => Err(e),
            FaultKind::At(..) => Ok(None),
        },
    }
}

// INVARIANT: lowered code gives the walker's value or bails; a bail is
// never an answer, so the walker recomputes the step and names its fault.
fn finish(run: Run<Value>) -> Result<Option<Value>, Fault> {
    match run {
        Ok(v) => Ok(Some(v)),
        Err(Stop::Bail) => Ok(None),
        Err(Stop::Fault(f)) => Err(f),
    }
}
