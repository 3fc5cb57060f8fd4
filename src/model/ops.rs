//! Pure operations on values: arithmetic, powers, scales and calendar functions.
//!
//! Each returns `Result<_, String>` with a message and no location; the
//! evaluator attaches the span of the call site. They sit in the model
//! layer, below the evaluator, so that the table of built-in functions
//! (`model::func`) can point at them; the interpreter and compiled code
//! (`compiled::rt`) both call these same operations.
//!
//! Invariant: exact decimal arithmetic only; every operation that can
//! overflow is checked.

use chrono::{Datelike, NaiveDate};
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::{Decimal, MathematicalOps};

use super::{Period, Row};
use crate::num::arith;
use crate::num::exact::Num;
use crate::value::{Month, Value};

/// A numeric fault as the message these operations return.
fn text(e: crate::num::NumError) -> String {
    e.to_string()
}

/// The fault of an operation given arguments of a kind its type rule
/// excludes: resolution checked each argument's kind, so this is a fault
/// (a defect of the engine), never a panic.
pub(crate) fn bad_arguments(name: &str) -> String {
    format!("`{name}` was given arguments of the wrong kind")
}

/// Largest whole exponent computed by repeated multiplication.
const MAX_WHOLE_EXPONENT: i64 = 4096;

/// `x^y`: for a whole `y`, the decimal nearest the exact power
/// ([`crate::num::whole_power`]); to about 26 significant digits otherwise.
///
/// Exponents that are a multiple of 1/2^k (such as 1.75 = 7/4) are computed
/// with square roots, which rust_decimal takes to full precision; other
/// fractional exponents go through exp(y·ln x).
pub fn pow(x: Decimal, y: Decimal) -> Result<Decimal, String> {
    if y.fract().is_zero() {
        let n = y
            .to_i64()
            .filter(|n| n.abs() <= MAX_WHOLE_EXPONENT)
            .ok_or_else(|| format!("exponent {y} is too large"))?;
        return crate::num::whole_power(x, n).or_else(|e| match e {
            crate::num::PowerError::ZeroToNegative => reciprocal(x, y, Decimal::ZERO),
            crate::num::PowerError::Overflow => {
                Err(format!("{x}^{y} overflows the exact decimal range"))
            }
        });
    }
    if x.is_sign_negative() && !x.is_zero() {
        return Err(format!("{x}^{y}: a negative base needs a whole exponent"));
    }
    if x.is_zero() {
        return if y.is_sign_positive() {
            Ok(Decimal::ZERO)
        } else {
            Err("0 to a negative power".into())
        };
    }
    // y = m / 2^k with k ≤ 10?
    let mut scaled = y;
    for k in 1..=10u32 {
        scaled *= Decimal::TWO;
        if scaled.fract().is_zero() {
            let m = scaled
                .to_i64()
                .filter(|m| m.abs() <= MAX_WHOLE_EXPONENT * 1024)
                .ok_or_else(|| format!("exponent {y} is too large"))?;
            if let Some(exact) = crate::num::root_power(x, m, k) {
                return exact.map_err(|_| format!("{x}^{y} overflows the exact decimal range"));
            }
            let mut root = x;
            for _ in 0..k {
                root = sqrt(root).ok_or_else(|| format!("square root of {root} failed"))?;
            }
            let r = powi(root, m.unsigned_abs()).ok_or_else(|| format!("{x}^{y} overflows"))?;
            return if m < 0 { reciprocal(x, y, r) } else { Ok(r) };
        }
    }
    x.checked_powd(y)
        .ok_or_else(|| format!("{x}^{y} cannot be computed exactly enough"))
}

/// `1 / r` for `x^y` with a negative exponent. A power so small that it
/// rounded to zero (`0.5^4096`) makes a reciprocal past the decimal range:
/// that is an overflow of `x^y`, not a division the rulebook wrote.
fn reciprocal(x: Decimal, y: Decimal, r: Decimal) -> Result<Decimal, String> {
    if r.is_zero() && !x.is_zero() {
        return Err(format!("{x}^{y} overflows the exact decimal range"));
    }
    arith(crate::expr::BinOp::Div, Decimal::ONE, r).map_err(text)
}

/// √x to full decimal precision, by Newton's iteration (as rust_decimal's
/// `sqrt`), started from the integer square root of x's digits: that start
/// is already right to about 19 digits, so two or three rounds settle it
/// where a start at x/2 takes a dozen. `None` for a negative x, or if the
/// iteration fails to settle.
fn sqrt(x: Decimal) -> Option<Decimal> {
    if x.is_sign_negative() {
        return None;
    }
    if x.is_zero() {
        return Some(Decimal::ZERO);
    }
    // x = m / 10^s; √x = √(m·10^e) / 10^((s+e)/2) for an even s + e.
    let m = x.mantissa().unsigned_abs();
    let s = x.scale();
    // The most digits that keep m·10^e within u128 (below 10^38).
    let mut e = 38 - (m.ilog10() + 1);
    if (s + e) % 2 == 1 {
        e -= 1;
    }
    while (s + e) / 2 > 28 {
        e -= 2;
    }
    let root = (m * 10u128.pow(e)).isqrt();
    let mut result = Decimal::try_from_i128_with_scale(i128::try_from(root).ok()?, (s + e) / 2)
        .ok()
        .filter(|r| !r.is_zero())
        .unwrap_or(x);
    let mut previous = result;
    for _ in 0..64 {
        let next = result
            .checked_add(x.checked_div(result)?)?
            .checked_div(Decimal::TWO)?;
        if next == result {
            return Some(result);
        }
        if next == previous {
            // Rounding makes the last digit swing between two values.
            return Some(next.min(result));
        }
        previous = result;
        result = next;
    }
    None
}

fn powi(x: Decimal, mut n: u64) -> Option<Decimal> {
    let mut base = x;
    let mut acc = Decimal::ONE;
    while n > 0 {
        if n & 1 == 1 {
            acc = acc.checked_mul(base)?;
        }
        n >>= 1;
        if n > 0 {
            base = base.checked_mul(base)?;
        }
    }
    Some(acc)
}

/// A progressive scale applied band by band, never rounding a band.
///
/// `bands` are `(upto, rate)` with rising `upto`, the last open-ended.
/// The amount may be an exact fraction; the result is exact too.
/// With `round_each`, each band is rounded half-up to that many places
/// before it is added (a reading some rules forbid: never the default).
/// Returns the total and a line per band used, for the trace.
pub fn scale(
    bands: &[(Option<Decimal>, Decimal)],
    x: Num,
    round_each: Option<u32>,
) -> Result<(Num, Vec<String>), String> {
    use crate::expr::BinOp::{Add, Mul, Sub};
    let mut total = Num::Dec(Decimal::ZERO);
    let mut lower = Num::Dec(Decimal::ZERO);
    let mut lines = Vec::new();
    for (upto, rate) in bands {
        if x.cmp_exact(lower).map_err(text)?.is_le() {
            break;
        }
        let top = match upto {
            Some(u) if x.cmp_exact(Num::Dec(*u)).map_err(text)?.is_gt() => Num::Dec(*u),
            _ => x,
        };
        let width = top.arith(Sub, lower).map_err(text)?;
        let exact = Num::Dec(*rate).arith(Mul, width).map_err(text)?;
        let part = match round_each {
            Some(places) => Num::Dec(
                crate::num::rounding::round_num(exact, places, crate::num::RoundingMode::HalfUp)
                    .map_err(text)?
                    .after,
            ),
            None => exact,
        };
        total = total.arith(Add, part).map_err(text)?;
        if round_each.is_some() && part != exact {
            lines.push(format!("{rate} × ({top} − {lower}) = {exact} → {part}"));
        } else {
            lines.push(format!("{rate} × ({top} − {lower}) = {part}"));
        }
        match upto {
            Some(u) => lower = Num::Dec(*u),
            None => break,
        }
    }
    Ok((total, lines))
}

/// Completed years from `birth` to `on`; a birthday on `on` counts.
pub fn age(birth: NaiveDate, on: NaiveDate) -> Result<i64, String> {
    // Years completed before birth are no age: a fault, not a negative.
    if on < birth {
        return Err(format!(
            "the date {on} is before the birth date {birth}: it has no age"
        ));
    }
    let mut years = i64::from(on.year()) - i64::from(birth.year());
    if (on.month(), on.day()) < (birth.month(), birth.day()) {
        years -= 1;
    }
    Ok(years)
}

/// The same day `n` years later; 29 February becomes 28 February in a common year.
pub fn add_years(date: NaiveDate, n: i64) -> Option<NaiveDate> {
    let year = i32::try_from(i64::from(date.year()).checked_add(n)?)
        .ok()
        .filter(|y| crate::value::CALENDAR_YEARS.contains(y))?;
    date.with_year(year)
        .or_else(|| NaiveDate::from_ymd_opt(year, date.month(), 28))
}

/// The same day `n` months later, clamped to the end of the month.
pub fn add_months_date(date: NaiveDate, n: i64) -> Option<NaiveDate> {
    let m = Month::of(date).plus_months(n)?;
    let day = date.day().min(m.days()?);
    NaiveDate::from_ymd_opt(m.year, m.month, day)
}

/// A whole number of a decimal, for counts of days, months, years.
pub fn whole(n: Decimal, what: &str) -> Result<i64, String> {
    if !n.fract().is_zero() {
        return Err(format!("{what} must be a whole number, found {n}"));
    }
    n.to_i64()
        .filter(|v| v.abs() <= 1_000_000)
        .ok_or_else(|| format!("{what} {n} is out of range"))
}

#[cfg(test)]
mod tests;

/// The row whose key columns hold `keys`, in order (`lookup`).
pub fn key_row<'r>(rows: &'r [Row], columns: &[usize], keys: &[Value]) -> Option<&'r Row> {
    rows.iter().find(|r| {
        columns
            .iter()
            .zip(keys)
            .all(|(c, k)| r.record.fields.get(*c) == Some(k))
    })
}

/// The first row whose period covers a month or date (`period_row`).
pub fn period_row<'r>(rows: &'r [Row], key: &Value) -> Option<&'r Row> {
    rows.iter()
        .find(|r| r.period.is_some_and(|p| covers(&p, key)))
}

/// The value of a dated parameter at a month or date: absent outside its periods.
pub fn in_period(periods: &[(Period, Value)], key: &Value) -> Value {
    periods
        .iter()
        .find(|(p, _)| covers(p, key))
        .map_or(Value::Absent, |(_, v)| v.clone())
}

/// Whether a period covers a month or a date.
pub fn covers(period: &Period, key: &Value) -> bool {
    match (period, key) {
        (Period::Months(from, to), Value::Month(m)) => m >= from && to.is_none_or(|t| *m <= t),
        (Period::Months(from, to), Value::Date(d)) => {
            let m = Month::of(*d);
            m >= *from && to.is_none_or(|t| m <= t)
        }
        (Period::Dates(from, to), Value::Date(d)) => d >= from && to.is_none_or(|t| *d <= t),
        _ => false,
    }
}

/// The first row whose bound (first column) is at least `x`, or the first
/// without a bound (`range_row`).
pub fn range_row(rows: &[Row], x: Num) -> Result<Option<&Row>, String> {
    for r in rows {
        match r.record.fields.first() {
            Some(Value::Number(upto)) => {
                if x.cmp_exact(Num::Dec(*upto)).map_err(text)?.is_le() {
                    return Ok(Some(r));
                }
            }
            _ => return Ok(Some(r)),
        }
    }
    Ok(None)
}

/// A progressive scale's bands from its table: `(upto, rate)` per row.
/// `scale_by`'s band limits: each `upto` times `factor`, rounded to
/// `places` by `mode`, in place; gives each rounding with its band's index
/// (from 0) and the limit as written. A negative factor is refused.
pub fn scale_limits(
    bands: &mut [(Option<Decimal>, Decimal)],
    factor: Num,
    places: u32,
    mode: crate::num::RoundingMode,
) -> Result<Vec<(usize, Decimal, crate::num::rounding::Rounded)>, String> {
    if factor
        .cmp_exact(Num::Dec(Decimal::ZERO))
        .map_err(text)?
        .is_lt()
    {
        return Err(format!(
            "the factor of `scale_by` is {factor}; band limits cannot be scaled by a negative number"
        ));
    }
    let mut out = Vec::new();
    for (n, (upto, _)) in bands.iter_mut().enumerate() {
        let Some(limit) = *upto else { continue };
        let scaled = Num::Dec(limit)
            .arith(crate::expr::BinOp::Mul, factor)
            .map_err(text)?;
        let r = crate::num::rounding::round_num(scaled, places, mode).map_err(text)?;
        *upto = Some(r.after);
        out.push((n, limit, r));
    }
    Ok(out)
}

/// The bands of a scale table: `(upto, rate)`, the last `upto` absent.
pub fn scale_bands(rows: &[Row]) -> Vec<(Option<Decimal>, Decimal)> {
    rows.iter()
        .map(|r| {
            (
                r.record.fields.first().and_then(Value::as_number),
                r.record
                    .fields
                    .get(1)
                    .and_then(Value::as_number)
                    .unwrap_or_default(),
            )
        })
        .collect()
}

/// Whether `next` replaces the best so far in `min` (`max` false) or `max`:
/// only when strictly better, so the first of equal values stays.
pub fn prefers(ord: std::cmp::Ordering, max: bool) -> bool {
    if max {
        ord.is_gt()
    } else {
        ord.is_lt()
    }
}

/// `min(list)` or `max(list)`: absent for an empty list.
pub fn extremum_of(items: &[Value], max: bool) -> Result<Value, String> {
    let mut best: Option<&Value> = None;
    for v in items {
        if v.is_missing() {
            return Err(format!("an item of the list is {}", v.kind_name()));
        }
        let better = match best {
            None => true,
            Some(b) => prefers(
                crate::value::compare(v, b).ok_or("cannot compare these values")?,
                max,
            ),
        };
        if better {
            best = Some(v);
        }
    }
    Ok(best.cloned().unwrap_or(Value::Absent))
}

/// `sum(list)`, exact.
pub fn sum(items: &[Value]) -> Result<Num, String> {
    let mut total = Num::Dec(Decimal::ZERO);
    for v in items {
        match v.as_num() {
            Some(n) => total = total.arith(crate::expr::BinOp::Add, n).map_err(text)?,
            None => {
                return Err(format!(
                    "`sum` needs numbers, found {}",
                    crate::value::describe_value(v)
                ))
            }
        }
    }
    Ok(total)
}

/// `any(list)` (`want_any`) or `all(list)`.
pub fn any_all(items: &[Value], want_any: bool) -> Result<bool, String> {
    for v in items {
        match v {
            Value::Bool(b) if *b == want_any => return Ok(want_any),
            Value::Bool(_) => {}
            other => {
                return Err(format!(
                    "`{}` needs booleans, found {}",
                    if want_any { "any" } else { "all" },
                    crate::value::describe_value(other)
                ))
            }
        }
    }
    Ok(!want_any)
}

/// `find_index(list of booleans)`: the first true, absent if none.
pub fn find_index(items: &[Value]) -> Result<Value, String> {
    for (i, v) in items.iter().enumerate() {
        match v {
            Value::Bool(true) => return Ok(Value::Number(i.into())),
            Value::Bool(false) => {}
            other => {
                return Err(format!(
                    "`find_index` needs booleans, found {}",
                    crate::value::describe_value(other)
                ))
            }
        }
    }
    Ok(Value::Absent)
}

/// `count(list or map)`; a missing one has none.
pub fn count(v: &Value) -> Result<Decimal, String> {
    match v {
        Value::List(items) => Ok(items.len().into()),
        Value::Map(entries) => Ok(entries.len().into()),
        v if v.is_missing() => Ok(Decimal::ZERO),
        other => Err(format!(
            "expected a list, found {}",
            crate::value::describe_value(other)
        )),
    }
}

/// `keys(map)` (`keys`) or `values(map)`; a missing map has none.
pub fn keys_values(map: &Value, keys: bool) -> Result<Value, String> {
    match map {
        Value::Map(entries) => Ok(Value::List(if keys {
            entries.keys().map(|k| Value::Text(k.clone())).collect()
        } else {
            entries.values().cloned().collect()
        })),
        v if v.is_missing() => Ok(Value::List(std::sync::Arc::from([]))),
        other => Err(format!(
            "expected a map, found {}",
            crate::value::describe_value(other)
        )),
    }
}

/// `get(map, key)` for a present key: absent when the map is missing or
/// has no such entry.
pub fn get(map: &Value, key: &Value) -> Result<Value, String> {
    match (map, key) {
        (Value::Map(entries), Value::Text(k)) => Ok(crate::value::entry(entries, k)
            .cloned()
            .unwrap_or(Value::Absent)),
        (m, _) if m.is_missing() => Ok(Value::Absent),
        (m, k) => Err(format!(
            "`get` needs a map and a text key, found {} and {}",
            crate::value::describe_value(m),
            crate::value::describe_value(k)
        )),
    }
}

/// `clamp(x, lo, hi)`: `min(max(x, lo), hi)`, exact.
pub fn clamp(x: Num, lo: Num, hi: Num) -> Result<Num, String> {
    let raised = if x.cmp_exact(lo).map_err(text)?.is_lt() {
        lo
    } else {
        x
    };
    Ok(if raised.cmp_exact(hi).map_err(text)?.is_gt() {
        hi
    } else {
        raised
    })
}

/// The month of a month or a date (`days_in_month`, `year`).
pub fn month_of_value(v: &Value) -> Result<Month, String> {
    match v {
        Value::Month(m) => Ok(*m),
        Value::Date(d) => Ok(Month::of(*d)),
        other => Err(format!(
            "expected a month or a date, found {}",
            crate::value::describe_value(other)
        )),
    }
}

/// `days_in_month(month or date)`.
pub fn days_in_month(v: &Value) -> Result<Decimal, String> {
    let m = month_of_value(v)?;
    m.days()
        .map(Decimal::from)
        .ok_or_else(|| format!("{m} has no calendar"))
}

/// Field `index` of a record; a missing record gives itself; a list of
/// records gives the list of their fields.
pub fn field(v: &Value, index: usize) -> Result<Value, String> {
    let of = |v: &Value| match v {
        Value::Record(r) => Ok(r.fields.get(index).cloned().unwrap_or(Value::Absent)),
        missing if missing.is_missing() => Ok(missing.clone()),
        other => Err(format!(
            "{} has no fields",
            crate::value::describe_value(other)
        )),
    };
    match v {
        Value::List(items) => Ok(Value::List(items.iter().map(of).collect::<Result<_, _>>()?)),
        v => of(v),
    }
}
