//! Rounding modes, rounding points and their margins.
//!
//! Rounding happens only where a rulebook says so; each time it happens the
//! evaluator records a [`Rounded`] with the margin, the distance from the
//! exact value to the nearest rounding boundary, so a generator can discard
//! fragile cases and an auditor can see where a one-cent doubt can come from.

use rust_decimal::{Decimal, RoundingStrategy};

use super::error::NumError;
use super::exact::Num;
use super::{RoundingMode, LEAST_MARGIN, MAX_PLACES};
use serde::Serialize;

/// A rounding that happened: the event a trace records.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rounded {
    /// The mode applied.
    pub mode: RoundingMode,
    /// Decimal places kept.
    pub places: u32,
    /// The exact value before rounding (a decimal, or a fraction `n/d`).
    #[serde(serialize_with = "as_string")]
    pub before: Num,
    /// The value after rounding.
    #[serde(serialize_with = "as_string")]
    pub after: Decimal,
    /// Distance from `before` to the nearest value where the result would change.
    #[serde(serialize_with = "as_string")]
    pub margin: Decimal,
}

fn as_string<S: serde::Serializer, T: std::fmt::Display>(d: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(d)
}

/// Rounds `value` to `places` decimals and measures the margin.
pub fn round(value: Decimal, places: u32, mode: RoundingMode) -> Rounded {
    let places = places.min(MAX_PLACES);
    let after = round_decimal(value, places, mode);
    Rounded {
        mode,
        places,
        before: Num::Dec(value),
        after,
        margin: margin(value, places, mode),
    }
}

/// The rounded value alone, for evaluations that record no trace (no margin to measure).
pub fn round_value(value: Num, places: u32, mode: RoundingMode) -> Result<Decimal, NumError> {
    match value {
        Num::Dec(d) => Ok(round_decimal(d, places.min(MAX_PLACES), mode)),
        frac => round_num(frac, places, mode).map(|r| r.after),
    }
}

/// `value` to exactly `places` decimals (at most [`MAX_PLACES`]).
pub(crate) fn round_decimal(value: Decimal, places: u32, mode: RoundingMode) -> Decimal {
    if let Some(after) = round_in_word(value, places, mode) {
        return after;
    }
    let strategy = mode.strategy(value.is_sign_negative());
    let mut after = value.round_dp_with_strategy(places, strategy);
    after.rescale(places);
    after
}

/// What `round_dp_with_strategy` then `rescale` give, digit for digit and
/// sign for sign, when the digits fit a machine word: rounding is most of
/// the arithmetic of a payslip, and rust_decimal's general road costs some
/// ten times this one. `None` leaves the other cases to it (the property
/// tests compare the two).
fn round_in_word(value: Decimal, places: u32, mode: RoundingMode) -> Option<Decimal> {
    let m = u64::try_from(value.mantissa().unsigned_abs()).ok()?;
    let negative = value.is_sign_negative();
    let q = round_mantissa(m, negative, value.scale(), places, mode)?;
    Some(word_decimal(q, negative, places))
}

/// The mantissa at `places` of `m / 10^scale`, rounded by `mode`.
fn round_mantissa(
    m: u64,
    negative: bool,
    scale: u32,
    places: u32,
    mode: RoundingMode,
) -> Option<u64> {
    use super::exact::WORD_POWERS_OF_TEN as POW10;
    if scale <= places {
        return m.checked_mul(*POW10.get((places - scale) as usize)?);
    }
    let unit = *POW10.get((scale - places) as usize)?;
    let (q, r) = (m / unit, m % unit);
    let rest = unit - r;
    let away = match mode {
        RoundingMode::HalfUp => r >= rest,
        RoundingMode::HalfDown => r > rest,
        RoundingMode::HalfEven => r > rest || (r == rest && q % 2 == 1),
        RoundingMode::HalfCeiling => r > rest || (r == rest && !negative),
        RoundingMode::HalfFloor => r > rest || (r == rest && negative),
        RoundingMode::Down => false,
        RoundingMode::Up => r != 0,
        RoundingMode::Floor => negative && r != 0,
        RoundingMode::Ceiling => !negative && r != 0,
    };
    Some(q + u64::from(away))
}

fn word_decimal(m: u64, negative: bool, scale: u32) -> Decimal {
    Decimal::from_parts(m as u32, (m >> 32) as u32, 0, negative, scale)
}

/// `a × b / divisor` rounded to `places`, for a divisor whose digits are a
/// power of ten (`base × rate / 100`, the line of a payslip): what the
/// multiplication, the division and the rounding give one after the other,
/// in one step on a machine word. `None` outside the cases where those three
/// are exact and word-sized; the caller then takes them one by one. The
/// property tests compare the two, zeros and their signs included.
pub fn round_product_over(
    a: Decimal,
    b: Decimal,
    divisor: Decimal,
    places: u32,
    mode: RoundingMode,
) -> Option<Decimal> {
    use super::exact::WORD_POWERS_OF_TEN as POW10;
    let places = places.min(MAX_PLACES);
    if divisor.is_sign_negative() {
        return None;
    }
    let digits = u64::try_from(divisor.mantissa()).ok()?;
    let k = POW10[..10].iter().position(|&p| p == digits)? as u32;
    // The product is exact (scale within 28, digits within a word), and its
    // quotient by a power of ten is the exact decimal rust_decimal gives.
    let scale = a.scale() + b.scale();
    if scale > 19 || scale < divisor.scale() {
        return None;
    }
    let product = u64::try_from(a.mantissa().unsigned_abs())
        .ok()?
        .checked_mul(u64::try_from(b.mantissa().unsigned_abs()).ok()?)?;
    let negative = a.is_sign_negative() != b.is_sign_negative();
    let q = round_mantissa(product, negative, scale - divisor.scale() + k, places, mode)?;
    Some(word_decimal(q, negative, places))
}

/// Rounds a decimal or an exact fraction; a fraction is rounded exactly.
pub fn round_num(value: Num, places: u32, mode: RoundingMode) -> Result<Rounded, NumError> {
    match value {
        Num::Dec(d) => Ok(round(d, places, mode)),
        Num::Frac(f) => {
            let (after, margin) = super::exact::round_frac(f, places, mode)?;
            Ok(Rounded {
                mode,
                places: places.min(MAX_PLACES),
                before: value,
                after,
                margin,
            })
        }
    }
}

/// Distance from `value` to the nearest rounding boundary for `places` and `mode`.
///
/// For half modes the boundaries are the midpoints between steps
/// (`x.xx5` for cents); for directed modes they are the steps themselves.
pub fn margin(value: Decimal, places: u32, mode: RoundingMode) -> Decimal {
    if mode.is_nearest() && places >= MAX_PLACES {
        // A decimal has no digit past the 28th place, so it is half a unit
        // (5e-29) from the midpoint: never on it.
        return LEAST_MARGIN;
    }
    match margin_in_word(value, places.min(MAX_PLACES), mode) {
        Some(m) => m,
        None => margin_general(value, places, mode),
    }
}

/// What [`margin_general`] gives, digit for digit, when the value's digits
/// fit a machine word: every rounding a trace records measures its margin,
/// and rust_decimal's directed rounding and division cost ten times the
/// integer steps. `None` leaves the other cases to it (the property tests
/// compare the two).
fn margin_in_word(value: Decimal, places: u32, mode: RoundingMode) -> Option<Decimal> {
    use super::exact::WORD_POWERS_OF_TEN as POW10;
    let m = u64::try_from(value.mantissa().unsigned_abs()).ok()?;
    let scale = value.scale();
    // At `scale` (at least places + 1, so that half a unit is whole):
    // the unit, and the offset above the step below (toward −∞).
    let at = scale.max(places + 1);
    if at > MAX_PLACES {
        return None;
    }
    let m = m.checked_mul(*POW10.get((at - scale) as usize)?)?;
    let unit = *POW10.get((at - places) as usize)?;
    let r = m % unit;
    let offset = if value.is_sign_negative() && r != 0 {
        unit - r
    } else {
        r
    };
    let distance = if mode.is_nearest() {
        offset.abs_diff(unit / 2)
    } else {
        offset.min(unit - offset)
    };
    Some(word_decimal(distance, false, at).normalize())
}

/// The margin by rust_decimal's own arithmetic, for any value.
fn margin_general(value: Decimal, places: u32, mode: RoundingMode) -> Decimal {
    let unit = Decimal::new(1, places.min(MAX_PLACES));
    let below = value.round_dp_with_strategy(places, RoundingStrategy::ToNegativeInfinity);
    let offset = value - below; // in [0, unit)
    if mode.is_nearest() {
        let half = unit / Decimal::TWO;
        (offset - half).abs().normalize()
    } else {
        offset.min(unit - offset).normalize()
    }
}

#[cfg(test)]
mod tests;
