//! Rulebooks compiled to Rust (`bareme compile`), and what their code links to.
//!
//! The interpreter pays for its generality on every case: memo slots of
//! values, a dispatch per node, groups kept as lists. A compiled rulebook is
//! the same lowered code (`model::plan`) written out as one Rust function, where steps
//! are typed locals and groups over constant rows are unrolled, so that only
//! the decimal arithmetic is left.
//!
//! Invariant: compiled code gives the interpreter's outcome or none. It
//! computes every step in dependency order (a superset of what the
//! interpreter computes) with the interpreter's own arithmetic, and gives up (`None`) on
//! anything else: a fault, a value of an unexpected kind, a rejection, a
//! formula the generator does not compile, a case whose evaluation might
//! exceed the rulebook's step budget. [`Bound::evaluate`] then runs the
//! interpreter, which gives the answer or names the fault as it always does.
//!
//! A compiled module is tied to one rulebook version and one bareme: it
//! carries the fingerprint of its own source, and [`Compiled::bind`] refuses
//! it for any rulebook for which this bareme would not generate the very same
//! code. Drift between a rulebook and its compiled form is an error, never a
//! silent wrong answer.

use std::fmt;

use crate::eval::{evaluate, EvalError, Outcome};
use crate::facts::Facts;
use crate::rulebook::Rulebook;

/// A compiled rulebook, as a generated module declares it.
pub struct Compiled {
    /// The rulebook it was generated from (`paie-fr@2026`), for messages.
    pub reference: &'static str,
    /// SHA-256 of the generated code.
    pub fingerprint: &'static str,
    /// The generated evaluation: an outcome, or `None` to leave the case to the interpreter.
    pub run: fn(&Rulebook, &Facts) -> Option<Outcome>,
}

/// A compiled module does not belong to this rulebook (or to this bareme).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the compiled module of {compiled} does not match the rulebook {rulebook}: \
     regenerate it with `bareme compile`"
)]
pub struct Stale {
    /// What the module was generated from.
    pub compiled: String,
    /// The rulebook it was offered.
    pub rulebook: String,
}

/// A compiled module bound to the rulebook it was generated from.
pub struct Bound<'r> {
    rb: &'r Rulebook,
    run: fn(&Rulebook, &Facts) -> Option<Outcome>,
}

impl Compiled {
    /// Binds the module to `rb`, after checking that generating code for
    /// `rb` now gives the module's code, byte for byte.
    pub fn bind<'r>(&self, rb: &'r Rulebook) -> Result<Bound<'r>, Stale> {
        // INVARIANT: a module runs only against a rulebook for which this
        // bareme generates the very same code.
        if crate::codegen::generate(rb).fingerprint != self.fingerprint {
            return Err(Stale {
                compiled: self.reference.to_string(),
                rulebook: rb.reference(),
            });
        }
        Ok(Bound { rb, run: self.run })
    }
}

impl Bound<'_> {
    /// The outcome of validated facts: by the compiled code, or by the
    /// interpreter where the compiled code gives up. The same as
    /// `evaluate(rb, facts, false)`.
    pub fn evaluate(&self, facts: &Facts) -> Result<Outcome, EvalError> {
        match (self.run)(self.rb, facts) {
            Some(outcome) => Ok(outcome),
            None => evaluate(self.rb, facts, false).map(|(outcome, _)| outcome),
        }
    }

    /// The compiled code's outcome alone: `None` where it gives up.
    pub fn compiled_only(&self, facts: &Facts) -> Option<Outcome> {
        (self.run)(self.rb, facts)
    }
}

impl fmt::Debug for Compiled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Compiled")
            .field("reference", &self.reference)
            .field("fingerprint", &self.fingerprint)
            .finish()
    }
}

/// What generated code calls: the interpreter's own operations, each giving
/// `None` where the interpreter would fault or meet a value of a kind the
/// generated code does not expect.
#[doc(hidden)]
pub mod rt {
    use std::cmp::Ordering;

    pub use crate::eval::Outcome;
    pub use crate::expr::BinOp;
    pub use crate::facts::Facts;
    pub use crate::model::{Format, Func};
    pub use crate::num::exact::Num;
    pub use crate::num::RoundingMode;
    pub use crate::outcome::{Answer, AnswerValue, Fields};
    pub use crate::rulebook::Rulebook;
    pub use crate::value::{Month, Value};
    pub use rust_decimal::Decimal;
    pub use std::sync::{Arc, LazyLock};

    use crate::eval::{answer_clauses, cite_clauses, format_value, rows_in_force};
    use crate::model::ops;
    use crate::model::{CheckOutcome, ParamValue, Row, TableId, TableKind};
    use crate::value::compare;
    use crate::value::Record;

    /// A number in a value, decimal or fraction.
    #[inline]
    pub fn num(v: &Value) -> Option<Num> {
        v.as_num()
    }

    /// A decimal in a value (a fraction gives up where a decimal is expected).
    #[inline]
    pub fn number(v: &Value) -> Option<Decimal> {
        v.as_number()
    }

    /// A decimal of a number (a fraction gives up where a decimal is expected).
    #[inline]
    pub fn dec_of(n: Num) -> Option<Decimal> {
        match n {
            Num::Dec(d) => Some(d),
            Num::Frac(_) => None,
        }
    }

    /// `a + b` on decimals: `Num::arith`'s decimal case. Where it overflows
    /// the interpreter may carry on in fractions; this gives the case up.
    #[inline]
    pub fn add_dec(a: Decimal, b: Decimal) -> Option<Decimal> {
        crate::num::add(a, b)
    }

    #[inline]
    pub fn sub_dec(a: Decimal, b: Decimal) -> Option<Decimal> {
        crate::num::sub(a, b)
    }

    #[inline]
    pub fn mul_dec(a: Decimal, b: Decimal) -> Option<Decimal> {
        crate::num::mul(a, b)
    }

    #[inline]
    pub fn truth(v: &Value) -> Option<bool> {
        match v {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    #[inline]
    pub fn value(n: Num) -> Value {
        Value::from_num(n)
    }

    /// `a + b`, `a - b`, `a × b`, `a / b` on numbers, as `Num::arith` computes them.
    #[inline]
    pub fn add(a: Num, b: Num) -> Option<Num> {
        a.arith(BinOp::Add, b).ok()
    }

    #[inline]
    pub fn sub(a: Num, b: Num) -> Option<Num> {
        a.arith(BinOp::Sub, b).ok()
    }

    #[inline]
    pub fn mul(a: Num, b: Num) -> Option<Num> {
        a.arith(BinOp::Mul, b).ok()
    }

    #[inline]
    pub fn div(a: Num, b: Num) -> Option<Num> {
        a.arith(BinOp::Div, b).ok()
    }

    /// `a / b` on decimals: `Num::arith`'s first road (a divisor whose
    /// digits are a power of ten) taken without its dispatch.
    #[inline]
    pub fn div_dec(a: Decimal, b: Decimal) -> Option<Num> {
        match crate::num::exact::quotient_by_power_of_ten(a, b) {
            Some(q) => Some(Num::Dec(q)),
            None => Num::Dec(a).arith(BinOp::Div, Num::Dec(b)).ok(),
        }
    }

    #[inline]
    pub fn neg(a: Num) -> Num {
        -a
    }

    /// `-d`, never a negative zero (`num::negate`).
    #[inline]
    pub fn neg_dec(d: Decimal) -> Decimal {
        crate::num::negate(d)
    }

    /// A rounding point: the exact number to `places` decimals.
    #[inline]
    pub fn round(n: Num, places: u32, mode: RoundingMode) -> Option<Decimal> {
        crate::num::rounding::round_value(n, places, mode).ok()
    }

    /// `round(a × b / divisor, places)`: in one step where the three are
    /// exact and word-sized, else one after the other.
    #[inline]
    pub fn mul_div_round(
        a: Decimal,
        b: Decimal,
        divisor: Decimal,
        places: u32,
        mode: RoundingMode,
    ) -> Option<Decimal> {
        match crate::num::rounding::round_product_over(a, b, divisor, places, mode) {
            Some(r) => Some(r),
            None => round(div_dec(mul_dec(a, b)?, divisor)?, places, mode),
        }
    }

    /// The same on a decimal, which always rounds.
    #[inline]
    pub fn round_dec(d: Decimal, places: u32, mode: RoundingMode) -> Decimal {
        crate::num::rounding::round_decimal(d, places.min(crate::num::MAX_PLACES), mode)
    }

    /// A step's rounding point on a value that may be missing (kept as is).
    pub fn round_value(v: Value, places: u32, mode: RoundingMode) -> Option<Value> {
        match v.as_num() {
            Some(n) => round(n, places, mode).map(Value::Number),
            None if v.is_missing() => Some(v),
            None => None,
        }
    }

    /// The ordering of two numbers, as the interpreter compares them.
    #[inline]
    pub fn cmp_num(a: Num, b: Num) -> Option<Ordering> {
        match (a, b) {
            (Num::Dec(x), Num::Dec(y)) => Some(x.cmp(&y)),
            _ => a.cmp_exact(b).ok(),
        }
    }

    /// The ordering of two present values of one kind.
    #[inline]
    pub fn cmp_value(a: &Value, b: &Value) -> Option<Ordering> {
        compare(a, b)
    }

    /// Whether a present value equals a `match` arm's literal; `None` if missing.
    #[inline]
    pub fn matches(v: &Value, literal: &Value) -> Option<bool> {
        if v.is_missing() {
            return None;
        }
        Some(compare(v, literal).is_some_and(Ordering::is_eq))
    }

    /// `min`/`max` over numbers: the later argument wins only when strictly better.
    #[inline]
    pub fn better_num(best: Num, next: Num, max: bool) -> Option<Num> {
        let ord = cmp_num(next, best)?;
        Some(if ops::prefers(ord, max) { next } else { best })
    }

    /// The same over decimals.
    #[inline]
    pub fn better_dec(best: Decimal, next: Decimal, max: bool) -> Decimal {
        if ops::prefers(next.cmp(&best), max) {
            next
        } else {
            best
        }
    }

    /// The same over present values.
    pub fn better_value(best: Value, next: Value, max: bool) -> Option<Value> {
        if best.is_missing() || next.is_missing() {
            return None;
        }
        let ord = compare(&next, &best)?;
        Some(if ops::prefers(ord, max) { next } else { best })
    }

    /// Field `index` of a record; a missing record gives itself; a list of
    /// records gives the list of their fields.
    #[inline]
    pub fn field(v: &Value, index: usize) -> Option<Value> {
        ops::field(v, index).ok()
    }

    /// The units a list, map or text spends where a built-in reads or
    /// makes it: one an item, one per 64 bytes of text, as the interpreter
    /// spends.
    pub fn units(v: &Value) -> u64 {
        match v {
            Value::List(items) => items.len() as u64,
            Value::Map(entries) => entries.len() as u64,
            _ => crate::value::text_units(v),
        }
    }

    /// The units a text spends where it is read whole (an argument, a
    /// comparison, a `match`): one per 64 bytes, as the interpreter spends.
    #[inline]
    pub fn text_units(v: &Value) -> u64 {
        crate::value::text_units(v)
    }

    /// The items of a list input; a missing list has none.
    pub fn items(v: &Value) -> Option<&[Value]> {
        match v {
            Value::List(items) => Some(items),
            v if v.is_missing() => Some(&[]),
            _ => None,
        }
    }

    /// The items of group `g` when they are the same for every case.
    pub fn constant_items(rb: &Rulebook, g: usize) -> Option<&[Value]> {
        match &rb.groups.get(g)?.specialized.as_ref()?.items {
            Value::List(items) => Some(items),
            _ => None,
        }
    }

    /// Whether the facts have the shape of this rulebook's (so that input
    /// and table indices are in range).
    pub fn fits(rb: &Rulebook, facts: &Facts) -> bool {
        facts.values.len() == rb.inputs.len() && facts.tables.len() == rb.tables.len()
    }

    /// What is left of the case's budget of evaluated nodes once its
    /// validation has spent its share.
    pub fn budget(rb: &Rulebook, facts: &Facts) -> u64 {
        rb.limits.max_eval_steps.saturating_sub(facts.spent)
    }

    /// Dated parameter `i` at `key` (a date or month).
    pub fn dated(rb: &Rulebook, i: usize, key: &Value) -> Option<Value> {
        match &rb.params.get(i)?.value {
            ParamValue::Dated { periods, .. } => Some(ops::in_period(periods, key)),
            ParamValue::Fixed(v) => Some(v.clone()),
        }
    }

    /// A function of the table (`model::func`) as the interpreter runs it:
    /// each argument admitted as the interpreter reads it, then the entry's
    /// operation; `None` wherever the interpreter would fault. The typed functions below are
    /// this same call with the generated code's types.
    pub fn call<const N: usize>(func: Func, mut args: [Value; N]) -> Option<Value> {
        let op = func.spec().op.as_ref()?;
        if op.reads.len() != N {
            return None;
        }
        for (arg, read) in args.iter_mut().zip(op.reads) {
            *arg = read.admit(std::mem::take(arg))?;
        }
        (op.run)(&args).ok()
    }

    /// `pow(x, y)` as the interpreter computes it.
    pub fn pow(x: Num, y: Num) -> Option<Decimal> {
        number(&call(Func::Pow, [value(x), value(y)])?)
    }

    /// `day(date)`.
    pub fn day(v: &Value) -> Option<Decimal> {
        number(&call(Func::Day, [v.clone()])?)
    }

    /// `days_in_month(month or date)`.
    pub fn days_in_month(v: &Value) -> Option<Decimal> {
        number(&call(Func::DaysInMonth, [v.clone()])?)
    }

    fn row_value(row: Option<&Row>) -> Value {
        row.map_or(Value::Absent, |r| Value::Record(r.record.clone()))
    }

    /// `lookup(table, keys…)`: the row with these keys, absent if none or a key is missing.
    pub fn lookup(rb: &Rulebook, facts: &Facts, t: usize, keys: &[Value]) -> Option<Value> {
        if keys.iter().any(Value::is_missing) {
            return Some(Value::Absent);
        }
        let TableKind::Keyed { keys: columns } = &rb.tables.get(t)?.kind else {
            return None;
        };
        Some(row_value(ops::key_row(
            rows_in_force(rb, facts, TableId::new(t)),
            columns,
            keys,
        )))
    }

    /// `period_row(table, month or date)`.
    pub fn period_row(rb: &Rulebook, facts: &Facts, t: usize, key: &Value) -> Option<Value> {
        if key.is_missing() {
            return Some(Value::Absent);
        }
        Some(row_value(ops::period_row(
            rows_in_force(rb, facts, TableId::new(t)),
            key,
        )))
    }

    /// `range_row(table, x)`.
    pub fn range_row(rb: &Rulebook, facts: &Facts, t: usize, x: Num) -> Option<Value> {
        Some(row_value(
            ops::range_row(rows_in_force(rb, facts, TableId::new(t)), x).ok()?,
        ))
    }

    /// `scale(table, x[, places])`: a progressive scale, each band rounded if asked.
    pub fn scale(
        rb: &Rulebook,
        facts: &Facts,
        t: usize,
        x: Num,
        round_each: Option<u32>,
    ) -> Option<Num> {
        let bands = ops::scale_bands(rows_in_force(rb, facts, TableId::new(t)));
        ops::scale(&bands, x, round_each)
            .ok()
            .map(|(total, _)| total)
    }

    /// `scale_by(table, x, factor, places, mode)`: band limits scaled and rounded.
    pub fn scale_by(
        rb: &Rulebook,
        facts: &Facts,
        t: usize,
        x: Num,
        factor: Num,
        places: u32,
        mode: RoundingMode,
    ) -> Option<Num> {
        let mut bands = ops::scale_bands(rows_in_force(rb, facts, TableId::new(t)));
        ops::scale_limits(&mut bands, factor, places, mode).ok()?;
        ops::scale(&bands, x, None).ok().map(|(total, _)| total)
    }

    /// `rows(table)`.
    pub fn table_rows(rb: &Rulebook, facts: &Facts, t: usize) -> Option<Value> {
        Some(Value::List(
            rows_in_force(rb, facts, TableId::new(t))
                .iter()
                .map(|r| Value::Record(r.record.clone()))
                .collect(),
        ))
    }

    /// `count(list or map)`; a missing list has none.
    pub fn count(v: &Value) -> Option<Decimal> {
        number(&call(Func::Count, [v.clone()])?)
    }

    /// `sum(list)`.
    pub fn sum(v: &Value) -> Option<Num> {
        num(&call(Func::Sum, [v.clone()])?)
    }

    /// `any(list)` (`want` true) or `all(list)` (false).
    pub fn any_all(v: &Value, want: bool) -> Option<bool> {
        let func = if want { Func::Any } else { Func::All };
        truth(&call(func, [v.clone()])?)
    }

    /// `min(list)` or `max(list)`: absent for an empty list.
    pub fn extremum_of(v: &Value, max: bool) -> Option<Value> {
        ops::extremum_of(items(v)?, max).ok()
    }

    /// `find_index(list of booleans)`: the first true, absent if none.
    pub fn find_index(v: &Value) -> Option<Value> {
        call(Func::FindIndex, [v.clone()])
    }

    /// `get(map, key)`, the key present.
    pub fn get(map: &Value, key: &Value) -> Option<Value> {
        call(Func::Get, [map.clone(), key.clone()])
    }

    /// `keys(map)` (`keys` true) or `values(map)`.
    pub fn keys_values(map: &Value, keys: bool) -> Option<Value> {
        let func = if keys { Func::Keys } else { Func::Values };
        call(func, [map.clone()])
    }

    /// `clamp(x, lo, hi)`.
    pub fn clamp(x: Num, lo: Num, hi: Num) -> Option<Num> {
        num(&call(Func::Clamp, [value(x), value(lo), value(hi)])?)
    }

    /// `abs(x)`: the table's operation (`Num::abs`) on a number, which never
    /// fails, so generated code calls it without giving up.
    pub fn abs(x: Num) -> Num {
        x.abs()
    }

    /// `age(birth, on)`: completed years.
    pub fn age(birth: &Value, on: &Value) -> Option<Decimal> {
        number(&call(Func::Age, [birth.clone(), on.clone()])?)
    }

    /// `add_years(date, n)`.
    pub fn add_years(date: &Value, n: Num) -> Option<Value> {
        call(Func::AddYears, [date.clone(), value(n)])
    }

    /// `add_months(month or date, n)`.
    pub fn add_months(base: &Value, n: Num) -> Option<Value> {
        call(Func::AddMonths, [base.clone(), value(n)])
    }

    /// `month_of(date)`.
    pub fn month_of(v: &Value) -> Option<Value> {
        call(Func::MonthOf, [v.clone()])
    }

    /// `year(month or date)`.
    pub fn year(v: &Value) -> Option<Decimal> {
        number(&call(Func::Year, [v.clone()])?)
    }

    /// A record of a group's item: its step values, under the step names.
    pub fn item_record(rb: &Rulebook, g: usize, fields: Vec<Value>) -> Option<Value> {
        Some(Value::Record(Arc::new(Record {
            name: None,
            names: rb.groups.get(g)?.names.clone(),
            fields: fields.into_boxed_slice(),
        })))
    }

    /// An answer listing a group's items: a list, or an object by their keys
    /// (two items with one key give up).
    pub fn each(items: Vec<(Option<Arc<str>>, Fields)>, keyed: bool) -> Option<AnswerValue> {
        if !keyed {
            return Some(AnswerValue::List(
                items.into_iter().map(|(_, o)| o).collect(),
            ));
        }
        let mut seen = std::collections::HashSet::with_capacity(items.len());
        let mut object = Vec::with_capacity(items.len());
        for (name, o) in items {
            let name = name?;
            if !seen.insert(name.clone()) {
                return None;
            }
            object.push((name, o));
        }
        Some(AnswerValue::Keyed(object))
    }

    /// The key of an item in an answer listing a group's items.
    pub fn item_key(v: &Value) -> Option<Arc<str>> {
        match v {
            Value::Text(t) => Some(t.clone()),
            v if v.is_missing() => None,
            other => Some(Arc::from(other.to_string())),
        }
    }

    /// Decision `d`'s answer of `fields`.
    pub fn answered(
        rb: &Rulebook,
        d: usize,
        fields: Vec<(Arc<str>, AnswerValue)>,
    ) -> Option<Outcome> {
        Some(Outcome::Answer(Answer {
            decision: rb.decisions.get(d)?.name.clone(),
            fields: Fields(fields),
        }))
    }

    /// The clauses an answer starts from: the deciding check's, else its decision's.
    pub fn clauses(rb: &Rulebook, check: usize) -> Option<Vec<Arc<str>>> {
        let CheckOutcome::Decide {
            decision, clauses, ..
        } = &rb.checks.get(check)?.outcome
        else {
            return None;
        };
        Some(answer_clauses(clauses, rb.decisions.get(*decision)?))
    }

    /// Adds the clauses of cite `c` of decision `d`, once each.
    pub fn cite(rb: &Rulebook, d: usize, c: usize, clauses: &mut Vec<Arc<str>>) -> Option<()> {
        cite_clauses(clauses, &rb.decisions.get(d)?.cite.get(c)?.1);
        Some(())
    }

    /// An answer value written in its format.
    pub fn answer(v: &Value, format: Format, clauses: &[Arc<str>]) -> Option<AnswerValue> {
        format_value(v, format, clauses).ok()
    }

    /// An answer value from a number.
    pub fn answer_num(n: Num, format: Format, clauses: &[Arc<str>]) -> Option<AnswerValue> {
        answer(&value(n), format, clauses)
    }

    /// An answer value from a decimal.
    pub fn answer_dec(d: Decimal, format: Format, clauses: &[Arc<str>]) -> Option<AnswerValue> {
        answer(&Value::Number(d), format, clauses)
    }

    /// A text constant.
    pub fn text(t: &str) -> Value {
        Value::Text(Arc::from(t))
    }

    /// A date constant.
    pub fn date(y: i32, m: u32, d: u32) -> Value {
        chrono::NaiveDate::from_ymd_opt(y, m, d).map_or(Value::Absent, Value::Date)
    }
}
