//! Where a number or a boolean is expected: arithmetic, rounding points,
//! comparisons and logic computed on decimals and booleans, without a value
//! per node, and the shortcuts of the lowered code (folded constants, sums
//! of a group read in place).
//!
//! Most of a payslip is decimal arithmetic on steps, inputs and constants.
//! [`Machine::dec`] computes a node expected to be a number as a `Decimal`,
//! reading a decimal at hand (a constant, an input, a step already
//! computed) without a call; a node that gives anything else (a fraction,
//! a missing value, a text) hands that value back (`Off::Value`), and the
//! caller judges it exactly as a value of that node: fractions are computed
//! exactly, and a value that cannot be used is a fault named at the node.
//!
//! INVARIANT: every path here computes, faults, spends and records what the
//! node-by-node evaluation of `value` would: the same operations in the
//! same order, one unit of budget per node.

use rust_decimal::Decimal;

use crate::expr::BinOp;
use crate::model::code::{Code, CodeKind};
use crate::num::exact::Num;
use crate::num::{rounding, NumError, RoundingMode};
use crate::span::Span;
use crate::trace::RoundingTrace;
use crate::value::{compare, describe_value, text_units, Value};

use super::machine::{Fault, Machine, Res, Slot};
use super::tracer::Tracer;

/// Why a node expected to be a decimal gave none.
pub(super) enum Off {
    /// It faulted.
    Fault(Fault),
    /// It gave this value, which is not a decimal.
    Value(Value),
}

impl From<Fault> for Off {
    fn from(f: Fault) -> Off {
        Off::Fault(f)
    }
}

/// A decimal, or the value a node gave instead.
type Dec = Result<Decimal, Off>;

/// An operand of arithmetic: a decimal, or (rarely) a fraction.
type Operand = Result<Decimal, Num>;

fn num(x: Operand) -> Num {
    match x {
        Ok(d) => Num::Dec(d),
        Err(n) => n,
    }
}

/// A number as a node gives it: a decimal, or the fraction as a value.
#[inline]
fn from_num<E: std::fmt::Display>(r: Result<Num, E>, span: Span) -> Dec {
    match r {
        Ok(Num::Dec(d)) => Ok(d),
        Ok(Num::Frac(f)) => Err(Off::Value(Value::Fraction(Box::new(f)))),
        Err(m) => Err(Off::Fault(Fault::at(span, m.to_string()))),
    }
}

/// `p + q`, `p - q` or `p × q` when the decimal holds it, as `Num::arith`
/// computes it; `None` for a quotient or an overflow, which `Num::arith`
/// then computes or names. (Apart from the interpreter's recursion:
/// rust_decimal's arithmetic takes a large frame in a debug build.)
#[cfg_attr(not(debug_assertions), inline(always))]
fn decimal_op(op: BinOp, p: Decimal, q: Decimal) -> Option<Decimal> {
    match op {
        BinOp::Add => crate::num::add(p, q),
        BinOp::Sub => crate::num::sub(p, q),
        BinOp::Mul => crate::num::mul(p, q),
        _ => None,
    }
}

impl<'a, T: Tracer> Machine<'a, T> {
    /// A value at hand, read without a call: a constant, or a step, item
    /// step or input already computed or given. Most operands are one. Never
    /// with a trace, which notes the read.
    #[inline(always)]
    pub(super) fn at_hand<'c>(&'c self, c: &'c Code) -> Option<&'c Value> {
        if T::ON {
            return None;
        }
        match &c.kind {
            CodeKind::Const(v) | CodeKind::Fixed(_, v) => Some(v),
            CodeKind::Step(i) => match self.steps.get(i.index()) {
                Some(Slot::Done(v)) => Some(v),
                _ => None,
            },
            CodeKind::ItemStep(j) => match self.current.as_ref()?.slots.get(*j) {
                Some(Slot::Done(v)) => Some(v),
                _ => None,
            },
            CodeKind::Input(i) => self.facts.values.get(i.index()),
            _ => None,
        }
    }

    /// A decimal at hand ([`Machine::at_hand`]).
    #[inline(always)]
    fn leaf(&self, c: &Code) -> Option<Decimal> {
        match self.at_hand(c)? {
            Value::Number(d) => Some(*d),
            _ => None,
        }
    }

    /// The node, where a number is expected: a decimal, or the value it
    /// gave instead for the caller to judge.
    pub(super) fn dec(&mut self, c: &'a Code) -> Dec {
        if let Some(d) = self.leaf(c) {
            self.spend(c.span)?;
            return Ok(d);
        }
        // Each case in a function of its own: this one recurses as deep as
        // a formula nests, so its frame stays small even in a debug build.
        match &c.kind {
            CodeKind::Arith(op, a, b) => self.arith(*op, a, b, c.span),
            CodeKind::Neg(a) => self.neg(a, c.span),
            CodeKind::Round(x, places, mode) => self.round_code(x, *places, *mode, c.span),
            CodeKind::If(parts) => self.dec_if(parts, c.span),
            CodeKind::Folded { value, nodes, .. } if self.shortcuts => {
                self.folded(value, *nodes, c.span)
            }
            CodeKind::SumColumn { group, index, .. } if self.shortcuts => {
                self.sum_column(*group, *index, c.span)
            }
            CodeKind::SumRows {
                group,
                filter,
                body,
                ..
            } if self.shortcuts => self.sum_rows(*group, filter.as_deref(), body, c.span),
            _ => self.dec_value(c),
        }
    }

    /// `a op b`: on decimals where they suffice, exactly as `Num::arith`.
    fn arith(&mut self, op: BinOp, a: &'a Code, b: &'a Code, span: Span) -> Dec {
        self.spend(span)?;
        let x = self.operand(a)?;
        let y = self.operand(b)?;
        if let (Ok(p), Ok(q)) = (x, y) {
            if let Some(d) = decimal_op(op, p, q) {
                return Ok(d);
            }
        }
        from_num(num(x).arith(op, num(y)), span)
    }

    fn neg(&mut self, a: &'a Code, span: Span) -> Dec {
        self.spend(span)?;
        match self.operand(a)? {
            Ok(d) => Ok(crate::num::negate(d)),
            Err(n) => Err(Off::Value(Value::from_num(-n))),
        }
    }

    fn round_code(&mut self, x: &'a Code, places: u32, mode: RoundingMode, span: Span) -> Dec {
        if let Some(d) = self.round_product(x, places, mode) {
            return Ok(d);
        }
        self.spend(span)?;
        let x = num(self.operand(x)?);
        Ok(self.round(x, places, mode, span)?)
    }

    /// `round(a × b / c, places)` where `a` and `b` are decimals at hand and
    /// `c` a constant (a payslip line: `round(base × rate / 100, 2)`), in one
    /// step on a machine word (`rounding::round_product_over`, which gives
    /// what the product, the quotient and the rounding give one after the
    /// other); `None` where it does not apply, and the nodes are then
    /// computed one by one. Only with the shortcuts: the six nodes cannot
    /// fault but by the budget, and spend their units at once, so a budget
    /// running out among them is named by the machine without shortcuts.
    #[inline]
    fn round_product(&mut self, x: &'a Code, places: u32, mode: RoundingMode) -> Option<Decimal> {
        const NODES: u64 = 6;
        if !self.shortcuts || self.budget < NODES {
            return None;
        }
        let CodeKind::Arith(BinOp::Div, product, divisor) = &x.kind else {
            return None;
        };
        let CodeKind::Arith(BinOp::Mul, a, b) = &product.kind else {
            return None;
        };
        let (CodeKind::Const(Value::Number(c)) | CodeKind::Fixed(_, Value::Number(c))) =
            &divisor.kind
        else {
            return None;
        };
        let (p, q) = (self.leaf(a)?, self.leaf(b)?);
        let rounded = rounding::round_product_over(p, q, *c, places, mode)?;
        self.budget -= NODES;
        Some(rounded)
    }

    fn dec_if(&mut self, parts: &'a (Code, Code, Code), span: Span) -> Dec {
        self.spend(span)?;
        if self.truth(&parts.0)? {
            self.dec(&parts.1)
        } else {
            self.dec(&parts.2)
        }
    }

    fn folded(&mut self, value: &Value, nodes: u64, span: Span) -> Dec {
        self.spend_many(nodes, span)?;
        match value {
            Value::Number(d) => Ok(*d),
            other => Err(Off::Value(other.clone())),
        }
    }

    fn dec_value(&mut self, c: &'a Code) -> Dec {
        match self.value(c)? {
            Value::Number(d) => Ok(d),
            other => Err(Off::Value(other)),
        }
    }

    /// An operand of arithmetic, judged as a number.
    #[inline(always)]
    fn operand(&mut self, c: &'a Code) -> Res<Operand> {
        if let Some(d) = self.leaf(c) {
            self.spend(c.span)?;
            return Ok(Ok(d));
        }
        match self.dec(c) {
            Ok(d) => Ok(Ok(d)),
            Err(Off::Fault(f)) => Err(f),
            Err(Off::Value(v)) => self.judge_num(c, v).map(Err),
        }
    }

    /// A rounding point of a formula (`round`, `floor`, `ceil`), recorded
    /// in the trace at the text of the call.
    pub(super) fn round(
        &mut self,
        x: Num,
        places: u32,
        mode: RoundingMode,
        span: Span,
    ) -> Res<Decimal> {
        let fault = |m: NumError| Fault::at(span, m.to_string());
        if !T::ON {
            return rounding::round_value(x, places, mode).map_err(fault);
        }
        let r = rounding::round_num(x, places, mode).map_err(fault)?;
        let after = r.after;
        let at = self
            .formula_text
            .get(span.start as usize..span.end as usize)
            .unwrap_or("round")
            .to_string();
        self.tracer.rounding(RoundingTrace { at, rounded: r });
        Ok(after)
    }

    /// The node, where true or false is expected.
    pub(super) fn truth(&mut self, c: &'a Code) -> Res<bool> {
        match &c.kind {
            CodeKind::Not(a) => {
                self.spend(c.span)?;
                Ok(!self.truth(a)?)
            }
            CodeKind::And(a, b) => {
                self.spend(c.span)?;
                Ok(self.truth(a)? && self.truth(b)?)
            }
            CodeKind::Or(a, b) => {
                self.spend(c.span)?;
                Ok(self.truth(a)? || self.truth(b)?)
            }
            CodeKind::Compare(op, a, b) => {
                self.spend(c.span)?;
                self.compare(*op, a, b, c.span)
            }
            CodeKind::IsMissing(a) => {
                self.spend(c.span)?;
                Ok(self.value(a)?.is_missing())
            }
            _ => {
                if let Some(b) = self.boolean_leaf(c) {
                    self.spend(c.span)?;
                    return Ok(b);
                }
                let v = self.value(c)?;
                self.judge_bool(c, v)
            }
        }
    }

    /// A boolean at hand ([`Machine::at_hand`]), as [`Machine::leaf`] reads
    /// a decimal (a line's `applies`).
    #[inline(always)]
    fn boolean_leaf(&self, c: &Code) -> Option<bool> {
        match self.at_hand(c)? {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// `a op b` for a comparison: two present values, decimals compared as
    /// decimals.
    fn compare(&mut self, op: BinOp, a: &'a Code, b: &'a Code, span: Span) -> Res<bool> {
        let x = self.comparand(a)?;
        let y = self.comparand(b)?;
        let ord = match (x, y) {
            (Ok(x), Ok(y)) => x.cmp(&y),
            (x, y) => {
                let x = x.map_or_else(|v| v, Value::Number);
                let y = y.map_or_else(|v| v, Value::Number);
                let texts = text_units(&x) + text_units(&y);
                if texts > 0 {
                    self.spend_many(texts, span)?;
                }
                compare(&x, &y).ok_or_else(|| {
                    Fault::at(
                        span,
                        format!(
                            "cannot compare {} with {}",
                            describe_value(&x),
                            describe_value(&y)
                        ),
                    )
                })?
            }
        };
        Ok(op.holds(ord))
    }

    /// An operand of a comparison: a decimal, or any other present value.
    #[inline(always)]
    pub(super) fn comparand(&mut self, c: &'a Code) -> Res<Result<Decimal, Value>> {
        match self.dec(c) {
            Ok(d) => Ok(Ok(d)),
            Err(Off::Fault(f)) => Err(f),
            Err(Off::Value(v)) if v.is_missing() => Err(self.missing(c, &v)),
            Err(Off::Value(v)) => Ok(Err(v)),
        }
    }

    /// `sum(group.field)` read in place. The call, the projection and the
    /// group read spend as they would, and a column that is not all
    /// decimals is summed as `sum` sums a list.
    fn sum_column(&mut self, g: usize, index: usize, span: Span) -> Dec {
        self.spend_many(3, span)?;
        let group = self.group(g)?;
        // The column made, then read by `sum`: a unit per item each.
        self.spend_many(2 * group.items.len() as u64, span)?;
        let mut total = Decimal::ZERO;
        for i in 0..group.items.len() {
            let next = match group.field(i, index) {
                Some(Value::Number(d)) => decimal_op(BinOp::Add, total, *d),
                _ => None,
            };
            match next {
                Some(t) => total = t,
                None => {
                    let column: Vec<Value> = (0..group.items.len())
                        .map(|i| group.field(i, index).cloned().unwrap_or(Value::Absent))
                        .collect();
                    return from_num(crate::model::ops::sum(&column), span);
                }
            }
        }
        Ok(total)
    }

    /// `sum([body for x in group if filter])`, each item's fields read in
    /// place. As the comprehension it stands for, every kept item's body is
    /// computed (a fault of any is the fault) before the sum may fail.
    fn sum_rows(&mut self, g: usize, filter: Option<&'a Code>, body: &'a Code, span: Span) -> Dec {
        self.spend_many(3, span)?;
        let rows = self.group(g)?;
        // The comprehension reads the group's list, a unit per item.
        self.spend_many(rows.items.len() as u64, span)?;
        let saved = self.row.take();
        let mut total: Result<Num, String> = Ok(Num::Dec(Decimal::ZERO));
        let mut fault = None;
        let mut kept = 0u64;
        for i in 0..rows.items.len() {
            self.row = Some((rows.clone(), i));
            let term = match filter.map(|f| self.truth(f)) {
                Some(Err(e)) => Err(e),
                Some(Ok(false)) => continue,
                _ => match self.dec(body) {
                    Ok(d) => Ok(Ok(d)),
                    Err(Off::Value(v)) => Ok(Err(v)),
                    Err(Off::Fault(f)) => Err(f),
                },
            };
            let term = match term {
                Ok(term) => term,
                Err(f) => {
                    fault = Some(f);
                    break;
                }
            };
            kept += 1;
            total = match (total, term) {
                (Ok(Num::Dec(t)), Ok(d)) => match decimal_op(BinOp::Add, t, d) {
                    Some(s) => Ok(Num::Dec(s)),
                    None => Num::Dec(t)
                        .arith(BinOp::Add, Num::Dec(d))
                        .map_err(|e| e.to_string()),
                },
                (Ok(t), Ok(d)) => t.arith(BinOp::Add, Num::Dec(d)).map_err(|e| e.to_string()),
                (Ok(t), Err(v)) => match v.as_num() {
                    Some(n) => t.arith(BinOp::Add, n).map_err(|e| e.to_string()),
                    None => Err(format!("`sum` needs numbers, found {}", describe_value(&v))),
                },
                (Err(m), _) => Err(m),
            };
        }
        self.row = saved;
        match fault {
            Some(f) => Err(Off::Fault(f)),
            None => {
                // `sum` reads the list of the kept terms, a unit per item.
                self.spend_many(kept, span)?;
                from_num(total, span)
            }
        }
    }
}
