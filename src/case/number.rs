//! Numbers of a case read as written: amounts and decimals, whole numbers
//! and fractions, with their places, sign and bounds.
//!
//! A number's text is its meaning: `"0.10"` has two places, `-0` is
//! negative, and a JSON number is read from its text (`arbitrary_precision`),
//! never through a float. Each form has its own message, since a case
//! author fixes what the message names.
//!
//! Invariant: no `f64` anywhere; a number too large for a `Decimal` is a
//! case error, not a panic.

use rust_decimal::Decimal;

use super::json::{JsonKind, JsonView};
use super::messages::{fail, json_kind, range_text, shown};
use crate::facts::CaseError;
use crate::model::{Input, JsonNumbers, NumberSpec};
use crate::num::exact::{parse_fraction, Num};
use crate::value::Value;

/// A money or decimal value: syntax, written places, sign, bounds, scale.
pub(super) fn number<'j, J: JsonView<'j>>(
    input: &Input,
    spec: &NumberSpec,
    money: bool,
    raw: J,
    path: &str,
) -> Result<Decimal, CaseError> {
    // Written out only for a message: most numbers are valid.
    let what = || match (money, spec.places) {
        (true, Some(p)) => format!("an amount with at most {p} decimals"),
        (_, Some(p)) => format!("a decimal with at most {p} decimals"),
        _ => "a plain decimal".to_string(),
    };
    let text: &str = match raw.kind() {
        JsonKind::String(s) => s,
        JsonKind::Number(n) => match spec.numbers {
            JsonNumbers::Reject => {
                return fail(
                    input,
                    path,
                    format!(
                        "must be {} written as a string, found the number {n}",
                        what()
                    ),
                )
            }
            // As written in the case (`arbitrary_precision` keeps the text).
            JsonNumbers::Plain => n,
            JsonNumbers::Integer => {
                let t = n;
                if t.contains(['.', 'e', 'E']) {
                    return fail(
                        input,
                        path,
                        format!(
                            "must be {}: a number must be a whole number, found {}",
                            what(),
                            shown(raw)
                        ),
                    );
                }
                t
            }
        },
        _ => {
            return fail(
                input,
                path,
                format!("must be {}, found {}", what(), shown(raw)),
            )
        }
    };
    let unsigned = text.strip_prefix('-').unwrap_or(text);
    let (int, frac) = match unsigned.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (unsigned, None),
    };
    let plain = !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.is_none_or(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()));
    if !plain {
        return fail(
            input,
            path,
            format!("must be {}, found {}", what(), shown(raw)),
        );
    }
    let written_places = frac.map_or(0, str::len);
    if let Some(p) = spec.places.filter(|p| written_places > *p as usize) {
        return fail(
            input,
            path,
            format!(
                "has {written_places} decimals, more than {p}: {}",
                shown(raw)
            ),
        );
    }
    if text.starts_with('-') && spec.min.is_some_and(|m| m >= Decimal::ZERO) {
        return fail(
            input,
            path,
            format!("must not be negative, found {}", shown(raw)),
        );
    }
    let Ok(mut n) = Decimal::from_str_exact(text) else {
        return fail(input, path, format!("{} has too many digits", shown(raw)));
    };
    bounds(input, path, n, spec.min, spec.max)?;
    if let Some(scale) = spec.rescale {
        if n.scale() < scale {
            n.rescale(scale);
        }
    }
    Ok(n)
}

/// A whole number: a JSON number without a point or exponent.
pub(super) fn integer<'j, J: JsonView<'j>>(
    input: &Input,
    raw: J,
    path: &str,
    min: Option<Decimal>,
    max: Option<Decimal>,
) -> Result<Value, CaseError> {
    let text = match raw.kind() {
        JsonKind::Number(n) => n,
        // Quoted: a pattern's group is always a string, and `\d` also
        // matches digits of other scripts (`"١٢٣"`).
        JsonKind::String(_) => {
            let message = format!("must be a whole number, found the string {}", shown(raw));
            return fail(input, path, message);
        }
        _ => {
            return fail(
                input,
                path,
                format!("must be a whole number, found {}", json_kind(raw)),
            )
        }
    };
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return fail(
            input,
            path,
            format!("must be a whole number, found {}", shown(raw)),
        );
    }
    // As for amounts, a minus sign is negative even on zero.
    if text.starts_with('-') && min.is_some_and(|m| m >= Decimal::ZERO) {
        return fail(
            input,
            path,
            format!("must not be negative, found {}", shown(raw)),
        );
    }
    let Ok(n) = Decimal::from_str_exact(text) else {
        return fail(input, path, format!("{} is too large", shown(raw)));
    };
    bounds(input, path, n, min, max)?;
    Ok(Value::Number(n))
}

/// An exact fraction: `"3/8"`, a decimal string, or a whole JSON number;
/// compared with its bounds exactly.
pub(super) fn fraction<'j, J: JsonView<'j>>(
    input: &Input,
    raw: J,
    path: &str,
    min: Option<Decimal>,
    max: Option<Decimal>,
) -> Result<Value, CaseError> {
    let parsed = match raw.kind() {
        JsonKind::String(s) => parse_fraction(s),
        JsonKind::Number(n) if n.bytes().all(|b| b.is_ascii_digit()) => parse_fraction(n),
        _ => None,
    };
    let Some(n) = parsed else {
        return fail(
            input,
            path,
            format!(
                "must be a fraction like \"3/8\", \"0.25\" or 1, found {}",
                shown(raw)
            ),
        );
    };
    // As a decimal's: a sign is refused, even on zero, where none is allowed.
    let signed = matches!(raw.kind(), JsonKind::String(s) if s.starts_with('-'));
    if signed && min.is_some_and(|m| m >= Decimal::ZERO) {
        return fail(
            input,
            path,
            format!("must not be negative, found {}", shown(raw)),
        );
    }
    let below = min.is_some_and(|m| n.cmp_exact(Num::Dec(m)).is_ok_and(|o| o.is_lt()));
    let above = max.is_some_and(|m| n.cmp_exact(Num::Dec(m)).is_ok_and(|o| o.is_gt()));
    if below || above {
        return fail(
            input,
            path,
            format!(
                "{n} is outside {}",
                range_text(min.map(|d| d.to_string()), max.map(|d| d.to_string()))
            ),
        );
    }
    Ok(Value::from_num(n))
}

fn bounds(
    input: &Input,
    path: &str,
    n: Decimal,
    min: Option<Decimal>,
    max: Option<Decimal>,
) -> Result<(), CaseError> {
    if let Some(m) = min.filter(|m| n < *m) {
        return fail(input, path, format!("{n} is below the minimum {m}"));
    }
    if let Some(m) = max.filter(|m| n > *m) {
        return fail(input, path, format!("{n} is above the maximum {m}"));
    }
    Ok(())
}
