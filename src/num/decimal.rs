//! `+`, `-` and `×` on decimals: exact, or no result.
//!
//! rust_decimal's `checked_add` and `checked_mul` round when the exact
//! result needs more than 28 places or 96 bits of digits (`1e-16 × 1e-16`
//! is `0`, `10^20 + 10^-26` loses its fraction), and return the other
//! operand as it is when one is zero (`0.00 + 1.5` is `1.5`, `0.00 × 1.5`
//! is `0`). Rules need neither: a sum here keeps the larger places of its
//! operands and a product the sum of their places (`0.00 + 1.5` = `1.50`,
//! `1.5 × 2.00` = `3.000`, `0.00 × 1.5` = `0.000`), with trailing zeros
//! dropped only where 28 places or 96 bits cannot hold them, and a result a
//! decimal cannot hold exactly is `None`, for the caller's exact fractions
//! (`exact.rs`) to compute or to name as out of range.
//!
//! The one decimal arithmetic of the interpreter, exact fractions, folding,
//! the audit's checker and compiled code, so all agree to the digit.

use rust_decimal::Decimal;

use super::MAX_PLACES;

/// The largest mantissa a decimal holds, 2^96 − 1.
const MAX_MANTISSA: u128 = (1 << 96) - 1;

/// `a + b`, exact, with the larger places of the two.
#[inline(always)]
pub fn add(a: Decimal, b: Decimal) -> Option<Decimal> {
    match a.checked_add(b) {
        // rust_decimal rounds only by giving up places, and keeps them
        // otherwise but for a zero operand: the commonest sum is final here.
        Some(r) if r.scale() == a.scale().max(b.scale()) => Some(r),
        _ => sum(a, b, false),
    }
}

/// `a - b`, exact, with the larger places of the two.
#[inline(always)]
pub fn sub(a: Decimal, b: Decimal) -> Option<Decimal> {
    match a.checked_sub(b) {
        Some(r) if r.scale() == a.scale().max(b.scale()) => Some(r),
        _ => sum(a, b, true),
    }
}

/// `a × b`, exact, with the places of both.
#[inline(always)]
pub fn mul(a: Decimal, b: Decimal) -> Option<Decimal> {
    match a.checked_mul(b) {
        Some(r) if r.scale() == a.scale() + b.scale() => Some(r),
        // A zero, common in rules (a line that does not apply), at once.
        _ if a.is_zero() || b.is_zero() => {
            Some(Decimal::new(0, (a.scale() + b.scale()).min(MAX_PLACES)))
        }
        _ => product(a, b).or_else(|| {
            let r = product(a.normalize(), b.normalize())?;
            Some(widen(r, a.scale() + b.scale()))
        }),
    }
}

/// `a ± b` at the larger places, in integers; again from the operands
/// without their trailing zeros when those places overflow the integers
/// (`10^28 + 0.0000000000000`), the value still exact.
#[cold]
fn sum(a: Decimal, b: Decimal, subtract: bool) -> Option<Decimal> {
    let places = a.scale().max(b.scale());
    // A zero, common in rules (a line that does not apply), at once.
    if b.is_zero() {
        return Some(widen(a, places));
    }
    if a.is_zero() {
        return Some(widen(if subtract { super::negate(b) } else { b }, places));
    }
    sum_at_larger_places(a, b, subtract).or_else(|| {
        let r = sum_at_larger_places(a.normalize(), b.normalize(), subtract)?;
        Some(widen(r, places))
    })
}

fn sum_at_larger_places(a: Decimal, b: Decimal, subtract: bool) -> Option<Decimal> {
    let places = a.scale().max(b.scale());
    let up = |d: Decimal| {
        let factor = 10i128.checked_pow(places - d.scale())?;
        d.mantissa().checked_mul(factor)
    };
    let (x, y) = (up(a)?, up(b)?);
    let m = if subtract {
        x.checked_sub(y)
    } else {
        x.checked_add(y)
    };
    fit(m?, places)
}

#[cold]
fn product(a: Decimal, b: Decimal) -> Option<Decimal> {
    fit(
        a.mantissa().checked_mul(b.mantissa())?,
        a.scale() + b.scale(),
    )
}

/// `r` with as many of `places` as a decimal holds.
fn widen(r: Decimal, places: u32) -> Decimal {
    let (mut m, mut scale) = (r.mantissa(), r.scale());
    while scale < places.min(MAX_PLACES) && m.unsigned_abs() * 10 <= MAX_MANTISSA {
        m *= 10;
        scale += 1;
    }
    Decimal::try_from_i128_with_scale(m, scale).unwrap_or(r)
}

/// `m / 10^places` as a decimal, dropping trailing zeros only while the
/// decimal cannot hold it; `None` when it cannot without losing a digit.
fn fit(mut m: i128, mut places: u32) -> Option<Decimal> {
    while (places > MAX_PLACES || m.unsigned_abs() > MAX_MANTISSA) && places > 0 && m % 10 == 0 {
        m /= 10;
        places -= 1;
    }
    // Never a negative zero: `m` is an integer, so a zero has no sign.
    Decimal::try_from_i128_with_scale(m, places).ok()
}

#[cfg(test)]
mod tests;
