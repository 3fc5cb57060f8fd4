//! The operations of the text functions (`len`, `starts_with`, `ends_with`,
//! `contains`, `upper`, `lower`, `slice`, `to_decimal`), so that a code or
//! reference written in a case can be read by the rules themselves.
//!
//! Texts are counted in characters (Unicode code points), never bytes, so
//! `slice` never cuts a character. A number given where a position is
//! expected must be a whole number from 0; `to_decimal` reads the plain
//! decimal notation only (`-12.50`), exactly, and faults on anything else,
//! the fault located at the call.

use rust_decimal::Decimal;
use std::sync::Arc;

use crate::model::ops::bad_arguments;
use crate::value::Value;

pub(super) fn len(a: &[Value]) -> Result<Value, String> {
    match a {
        [Value::Text(t)] => Ok(Value::Number(Decimal::from(t.chars().count()))),
        _ => Err(bad_arguments("len")),
    }
}

fn two_texts<'v>(a: &'v [Value], name: &str) -> Result<(&'v str, &'v str), String> {
    match a {
        [Value::Text(t), Value::Text(u)] => Ok((t, u)),
        _ => Err(bad_arguments(name)),
    }
}

pub(super) fn starts_with(a: &[Value]) -> Result<Value, String> {
    let (t, prefix) = two_texts(a, "starts_with")?;
    Ok(Value::Bool(t.starts_with(prefix)))
}

pub(super) fn ends_with(a: &[Value]) -> Result<Value, String> {
    let (t, suffix) = two_texts(a, "ends_with")?;
    Ok(Value::Bool(t.ends_with(suffix)))
}

pub(super) fn contains(a: &[Value]) -> Result<Value, String> {
    let (t, part) = two_texts(a, "contains")?;
    Ok(Value::Bool(t.contains(part)))
}

pub(super) fn upper(a: &[Value]) -> Result<Value, String> {
    match a {
        [Value::Text(t)] => Ok(Value::Text(Arc::from(t.to_uppercase()))),
        _ => Err(bad_arguments("upper")),
    }
}

pub(super) fn lower(a: &[Value]) -> Result<Value, String> {
    match a {
        [Value::Text(t)] => Ok(Value::Text(Arc::from(t.to_lowercase()))),
        _ => Err(bad_arguments("lower")),
    }
}

/// A whole number from 0 as a position, or why not.
fn position(n: &Value) -> Result<usize, String> {
    let Value::Number(d) = n else {
        return Err(bad_arguments("slice"));
    };
    if d.is_sign_negative() || !d.fract().is_zero() {
        return Err(format!(
            "`slice` takes positions that are whole numbers from 0, found {d}"
        ));
    }
    // A position past any text a case can hold reads as its end.
    Ok(usize::try_from(d.trunc().mantissa()).unwrap_or(usize::MAX))
}

/// Characters `from` up to `to` (excluded), both counted from 0; a `to`
/// past the end stops at the end; `from` after `to` is a fault.
pub(super) fn slice(a: &[Value]) -> Result<Value, String> {
    let [Value::Text(t), from, to] = a else {
        return Err(bad_arguments("slice"));
    };
    let (from, to) = (position(from)?, position(to)?);
    if from > to {
        return Err(format!(
            "`slice` from {from} to {to}: the start is after the end"
        ));
    }
    let part: String = t.chars().skip(from).take(to - from).collect();
    Ok(Value::Text(Arc::from(part)))
}

/// The plain decimal a text writes: an optional `-`, digits, and optionally
/// `.` and digits; no spaces, signs `+`, exponents or thousands separators.
pub(super) fn to_decimal(a: &[Value]) -> Result<Value, String> {
    let [Value::Text(t)] = a else {
        return Err(bad_arguments("to_decimal"));
    };
    let digits = t.strip_prefix('-').unwrap_or(t);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, "0"));
    let plain = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    // Quoted as Rust does, control characters escaped.
    if !plain(whole) || !plain(fraction) {
        return Err(format!("`to_decimal`: {t:?} is not a decimal number"));
    }
    Decimal::from_str_exact(t)
        .map(Value::Number)
        .map_err(|_| format!("`to_decimal`: {t:?} has more digits than a decimal holds"))
}
