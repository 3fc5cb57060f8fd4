//! Exact fractions, for divisions that no decimal can hold.
//!
//! `1/3` of a residue must give the same euro as rational arithmetic, even
//! on a half-euro boundary. A division whose quotient is a finite decimal
//! stays a `Decimal`; any other gives a [`Frac`] (an exact quotient of two
//! integers), and every later operation on it is exact until a rounding
//! point turns it back into a decimal.
//!
//! Invariant: a `Frac` is reduced and its denominator is > 1; one of the
//! form 2^a·5^b is a finite decimal with more places or digits than a
//! `Decimal` holds (a product of 28-place decimals), and is written as that
//! decimal in full.

use rust_decimal::Decimal;
use std::cmp::Ordering;
use std::fmt;

use super::error::NumError;
use super::{RoundingMode, MAX_PLACES};

/// An exact fraction `num / den` that is not a finite decimal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Frac {
    num: i128,
    den: i128,
}

/// A number of the expression language: a decimal, or an exact fraction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    /// A finite decimal.
    Dec(Decimal),
    /// An exact fraction.
    Frac(Frac),
}

/// `P/Q`; a finite decimal in full (`0.03242160661013237174790552530583`,
/// not `3242160661013237174790552530583/100000000000000000000000000000000`):
/// the same exact value, as an auditor reads it.
impl fmt::Display for Frac {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.long_decimal() {
            Some(text) => f.write_str(&text),
            None => write!(f, "{}/{}", self.num, self.den),
        }
    }
}

impl Frac {
    /// Numerator.
    pub fn num(self) -> i128 {
        self.num
    }

    /// Denominator (> 1).
    pub fn den(self) -> i128 {
        self.den
    }

    /// Why no decimal holds it, for a message: `no finite decimal form`
    /// (`1/3`), or `more digits than a decimal holds` (a denominator
    /// 2^a·5^b: over 28 places or 96 bits, from a product of many places).
    pub fn why_not_decimal(self) -> &'static str {
        match finite_places(self.den) {
            Some(_) => "more digits than a decimal holds (28 places, 96 bits)",
            None => "no finite decimal form",
        }
    }

    /// A finite value's every digit: its mantissa `num × 10^places / den`
    /// with the point placed. `None` for a fraction with no finite decimal
    /// form, or a mantissa over 128 bits: [`parse_decimal_exact`] reads
    /// back every text this writes.
    fn long_decimal(self) -> Option<String> {
        let (twos, fives) = twos_and_fives(self.den)?;
        let places = twos.max(fives);
        // 10^places / den = 2^(places − twos) · 5^(places − fives).
        let factor = 2u128
            .checked_pow(places - twos)?
            .checked_mul(5u128.checked_pow(places - fives)?)?;
        let mantissa = self.num.unsigned_abs().checked_mul(factor)?;
        if mantissa > i128::MAX as u128 {
            return None;
        }
        let digits = format!("{mantissa:0>width$}", width = places as usize + 1);
        let (whole, fraction) = digits.split_at(digits.len() - places as usize);
        let sign = if self.num < 0 { "-" } else { "" };
        Some(format!("{sign}{whole}.{fraction}"))
    }

    /// The nearest decimal (28 significant digits), for functions that are not exact anyway.
    ///
    /// Terms wider than a decimal's 96 bits (a product of 28-place
    /// decimals is over 10^32) are divided digit by digit, rounded as
    /// rust_decimal rounds a quotient (half to even); `None` only when the
    /// quotient itself is out of a decimal's range.
    pub fn approx(self) -> Option<Decimal> {
        const WIDE: u128 = 1 << 96;
        let (n, d) = (self.num.unsigned_abs(), self.den.unsigned_abs());
        if n < WIDE && d < WIDE {
            let n = Decimal::try_from_i128_with_scale(self.num, 0).ok()?;
            let d = Decimal::try_from_i128_with_scale(self.den, 0).ok()?;
            return n.checked_div(d);
        }
        if d == 0 || n / d >= WIDE {
            return None;
        }
        let (mut m, mut r, mut places) = (n / d, n % d, 0);
        while r != 0 && places < MAX_PLACES {
            let Some(r10) = r.checked_mul(10) else { break };
            let next = m * 10 + r10 / d;
            if next >= WIDE {
                break;
            }
            (m, r, places) = (next, r10 % d, places + 1);
        }
        // What is left of the remainder decides the last digit.
        let half = r
            .checked_mul(2)
            .map_or(Ordering::Greater, |twice| twice.cmp(&d));
        if half == Ordering::Greater || half == Ordering::Equal && m % 2 == 1 {
            m += 1;
        }
        let m = i128::try_from(m).ok()?;
        let negative = (self.num < 0) != (self.den < 0);
        Decimal::try_from_i128_with_scale(if negative { -m } else { m }, places).ok()
    }
}

const RANGE: NumError = NumError::OutOfRange;

/// The greatest common divisor of |a| and |b| (0 for two zeros). Fractions
/// reduce by it at every operation; their terms mostly fit a machine word,
/// where the binary algorithm needs no division at all.
fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    loop {
        if let (Ok(x), Ok(y)) = (u64::try_from(a), u64::try_from(b)) {
            return i128::from(binary_gcd(x, y));
        }
        if b == 0 {
            return a as i128;
        }
        (a, b) = (b, a % b);
    }
}

fn binary_gcd(mut a: u64, mut b: u64) -> u64 {
    if a == 0 || b == 0 {
        return a | b;
    }
    let shift = (a | b).trailing_zeros();
    a >>= a.trailing_zeros();
    loop {
        b >>= b.trailing_zeros();
        if a > b {
            std::mem::swap(&mut a, &mut b);
        }
        b -= a;
        if b == 0 {
            return a << shift;
        }
    }
}

/// 10^0 to 10^38, the powers that fit: rounding and rescaling ask for them constantly.
const POWERS_OF_TEN: [u128; 39] = {
    let mut t = [1u128; 39];
    let mut i = 1;
    while i < 39 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// 10^0 to 10^19, the powers a machine word holds, for rounding on a word
/// and for telling a divisor that is a power of ten.
pub(crate) const WORD_POWERS_OF_TEN: [u64; 20] = {
    let mut t = [1u64; 20];
    let mut i = 0;
    while i < 20 {
        t[i] = POWERS_OF_TEN[i] as u64;
        i += 1;
    }
    t
};

/// 10^n for n ≤ 38.
fn pow10(n: u32) -> Option<i128> {
    POWERS_OF_TEN
        .get(n as usize)
        .and_then(|&p| i128::try_from(p).ok())
}

/// Whether `q × b == a` exactly (false when it cannot be told without overflow).
fn exact_product(q: Decimal, b: Decimal, a: Decimal) -> bool {
    let Some(prod) = q.mantissa().checked_mul(b.mantissa()) else {
        return false;
    };
    let prod_scale = q.scale() + b.scale();
    let a_scale = a.scale();
    if prod_scale >= a_scale {
        pow10(prod_scale - a_scale).and_then(|f| a.mantissa().checked_mul(f)) == Some(prod)
    } else {
        pow10(a_scale - prod_scale).and_then(|f| prod.checked_mul(f)) == Some(a.mantissa())
    }
}

/// `a / b` for a divisor whose digits are a power of ten (`100`, `0.1`):
/// the commonest division in rules, a rate in percent. The quotient is
/// always a finite decimal; this finds it in integer arithmetic, digit for
/// digit and scale for scale what `Decimal::checked_div` gives (the property
/// tests compare the two), without its general long division. `None` when
/// the divisor is not such a number or the quotient is outside the cases
/// reproduced here; the caller then divides the general way.
pub(crate) fn quotient_by_power_of_ten(a: Decimal, b: Decimal) -> Option<Decimal> {
    // Divisors up to 10^9 take rust_decimal's 32-bit road, reproduced here.
    const POW10: &[u128] = POWERS_OF_TEN.split_at(10).0;
    let divisor = u64::try_from(b.mantissa().unsigned_abs()).ok()?;
    let k = WORD_POWERS_OF_TEN[..10]
        .iter()
        .position(|&p| p == divisor)?;
    if a.is_zero() {
        return Some(zero_quotient(a, b));
    }
    let scale = a.scale().checked_sub(b.scale())?;
    let m = a.mantissa().unsigned_abs();
    let negative = a.is_sign_negative() != b.is_sign_negative();
    let build = |mantissa: u128, scale: u32| {
        let signed = i128::try_from(mantissa).ok()?;
        Decimal::try_from_i128_with_scale(if negative { -signed } else { signed }, scale).ok()
    };
    if m % POW10[k] == 0 {
        return build(m / POW10[k], scale);
    }
    // rust_decimal scales the quotient up by 10^9 when it fits, then strips
    // trailing zeros in steps of 8 (only when the low word is zero), 4, 2 and 1.
    let fits_nine_more =
        m / POW10[k] <= (u128::from(u32::MAX) << 64 | u128::from(u64::MAX)) / POW10[9];
    if scale > 19 || !fits_nine_more {
        return None;
    }
    let mut q = m * POW10[9 - k];
    if q >> 96 != 0 {
        return None;
    }
    let mut scale = scale + 9;
    while q as u32 == 0 && scale >= 8 && q % POW10[8] == 0 {
        q /= POW10[8];
        scale -= 8;
    }
    // What is left mostly fits a machine word, whose division is far cheaper.
    let mut word = u64::try_from(q).ok();
    for step in [4, 2, 1] {
        let unit = POW10[step];
        let divisible = match word {
            Some(w) => w % unit as u64 == 0,
            None => q % unit == 0,
        };
        if scale >= step as u32 && divisible {
            match word.as_mut() {
                Some(w) => {
                    *w /= unit as u64;
                    q = u128::from(*w);
                }
                None => q /= unit,
            }
            scale -= step as u32;
        }
    }
    build(q, scale)
}

/// `0 / b` with the places decimal division gives an exact quotient, the
/// dividend's less the divisor's (`2.00 / 2` is `1.00`, so `0.00 / 2` is
/// `0.00`), where rust_decimal gives a bare `0`.
fn zero_quotient(a: Decimal, b: Decimal) -> Decimal {
    Decimal::new(0, a.scale().saturating_sub(b.scale()))
}

/// The places of `n / den` as a finite decimal, for a reduced fraction:
/// a denominator 2^a·5^b gives max(a, b); any other, none.
fn finite_places(den: i128) -> Option<u32> {
    twos_and_fives(den).map(|(twos, fives)| twos.max(fives))
}

/// `(a, b)` when `den` = 2^a·5^b, else `None`.
fn twos_and_fives(den: i128) -> Option<(u32, u32)> {
    if den <= 0 {
        return None;
    }
    let twos = den.trailing_zeros();
    let (mut rest, mut fives) = (den >> twos, 0u32);
    while rest % 5 == 0 {
        rest /= 5;
        fives += 1;
    }
    (rest == 1).then_some((twos, fives))
}

/// `num / den` as a decimal when it is one, else as a reduced fraction.
pub fn ratio(num: i128, den: i128) -> Result<Num, NumError> {
    if den == 0 {
        return Err(NumError::DivisionByZero(None));
    }
    let (mut num, mut den) = if den < 0 {
        (
            num.checked_neg().ok_or(RANGE)?,
            den.checked_neg().ok_or(RANGE)?,
        )
    } else {
        (num, den)
    };
    let g = gcd(num, den).max(1);
    num /= g;
    den /= g;
    if let Some(places) = finite_places(den) {
        // A finite decimal whose digits a decimal's 96 bits cannot hold
        // (a 28-digit `pow` times a rate) stays a fraction.
        let factor = pow10(places)
            .filter(|_| places <= MAX_PLACES)
            .map(|p| p / den);
        if let Some(mantissa) = factor.and_then(|f| num.checked_mul(f)) {
            match Decimal::try_from_i128_with_scale(mantissa, places) {
                Ok(d) => return Ok(Num::Dec(d)),
                // A whole number past a decimal's range is no fraction.
                Err(_) if den == 1 => return Err(RANGE),
                Err(_) => {}
            }
        }
    }
    Ok(Num::Frac(Frac { num, den }))
}

impl Num {
    /// As `(numerator, denominator)` integers, a decimal's without its
    /// trailing zeros (`2.000000000000000000000000000` is 2/1, not 2×10^27
    /// over 10^27), so that products of the terms fit when the value does.
    fn parts(self) -> Result<(i128, i128), NumError> {
        match self {
            Num::Dec(d) => {
                let d = d.normalize();
                Ok((d.mantissa(), pow10(d.scale()).ok_or(RANGE)?))
            }
            Num::Frac(f) => Ok((f.num, f.den)),
        }
    }

    /// `a + b`, `a - b`, `a * b`, `a / b`, exact.
    pub fn arith(self, op: crate::expr::BinOp, other: Num) -> Result<Num, NumError> {
        use crate::expr::BinOp::*;
        if let (Num::Dec(a), Num::Dec(b)) = (self, other) {
            match op {
                Add | Sub | Mul => {
                    if let Ok(d) = crate::num::arith(op, a, b) {
                        return Ok(Num::Dec(d));
                    }
                }
                Div if b.is_zero() => return Err(NumError::DivisionByZero(Some(a.to_string()))),
                Div if a.is_zero() => return Ok(Num::Dec(zero_quotient(a, b))),
                Div => {
                    if let Some(q) = quotient_by_power_of_ten(a, b) {
                        return Ok(Num::Dec(q));
                    }
                    // Most divisions in rules are exact (a rate / 100): keep the
                    // decimal quotient when it multiplies back to the dividend in
                    // exact integer arithmetic.
                    if let Some(q) = a.checked_div(b) {
                        if exact_product(q, b, a) || exact_product(q, b.normalize(), a) {
                            return Ok(Num::Dec(q));
                        }
                    }
                }
                _ => {}
            }
        }
        self.fraction_arith(op, other).map_err(|e| match e {
            // A value within a decimal's size that has too many digits to
            // hold exactly: rounding an operand is the remedy, where a
            // value too large has none.
            NumError::OutOfRange if self.within_size(op, other) => NumError::TooManyDigits {
                left: self.to_string(),
                op,
                right: other.to_string(),
            },
            e => e,
        })
    }

    /// Whether `self op other` is, by its operands' orders of magnitude,
    /// within the size of a decimal (29 whole digits). An estimate, to word
    /// an error; never an answer.
    fn within_size(self, op: crate::expr::BinOp, other: Num) -> bool {
        use crate::expr::BinOp::*;
        let digits = |x: i128| {
            x.unsigned_abs()
                .checked_ilog10()
                .map_or(0, |d| d as i64 + 1)
        };
        let order = |n: Num| {
            n.parts()
                .map_or(i64::MAX / 4, |(p, q)| digits(p) - digits(q) + 1)
        };
        let (a, b) = (order(self), order(other));
        let result = match op {
            Mul => a + b,
            Div => a - b + 1,
            _ => a.max(b) + 1,
        };
        result <= 29
    }

    /// `+ - × /` on the terms of two exact fractions (a decimal's are its
    /// mantissa over a power of ten).
    fn fraction_arith(self, op: crate::expr::BinOp, other: Num) -> Result<Num, NumError> {
        use crate::expr::BinOp::*;
        let (a, b) = self.parts()?;
        let (c, d) = other.parts()?;
        let m = |x: i128, y: i128| x.checked_mul(y).ok_or(RANGE);
        match op {
            // Over the least common denominator: `x/10^9 + y/10^18` as
            // `x·10^9 + y` over 10^18, where cross products overflowed
            // (10^21 · 10^18) for a sum that fits.
            Add | Sub => {
                let g = gcd(b, d).max(1);
                let (left, right) = (m(a, d / g)?, m(c, b / g)?);
                let num = match op {
                    Add => left.checked_add(right),
                    _ => left.checked_sub(right),
                }
                .ok_or(RANGE)?;
                ratio(num, m(b / g, d)?)
            }
            Mul => {
                // Cross-reduce first so products stay small.
                let (g1, g2) = (gcd(a, d).max(1), gcd(c, b).max(1));
                ratio(m(a / g1, c / g2)?, m(b / g2, d / g1)?)
            }
            Div => {
                if c == 0 {
                    return Err(NumError::DivisionByZero(Some(self.to_string())));
                }
                // Cross-reduce first, as for a product.
                let (g1, g2) = (gcd(a, c).max(1), gcd(b, d).max(1));
                ratio(m(a / g1, d / g2)?, m(b / g2, c / g1)?)
            }
            _ => Err(NumError::NotArithmetic(op)),
        }
    }

    /// Exact comparison, whatever the size of the cross products: a
    /// comparison has no result to keep, so one past 128 bits is made in
    /// big integers rather than refused (`100000000000 / 3` against a
    /// 28-place decimal faulted, where the format promises an order).
    pub fn cmp_exact(self, other: Num) -> Result<Ordering, NumError> {
        if let (Num::Dec(a), Num::Dec(b)) = (self, other) {
            return Ok(a.cmp(&b));
        }
        let (a, b) = self.parts()?;
        let (c, d) = other.parts()?;
        match (a.checked_mul(d), c.checked_mul(b)) {
            (Some(left), Some(right)) => Ok(left.cmp(&right)),
            _ => {
                use num_bigint::BigInt;
                Ok((BigInt::from(a) * BigInt::from(d)).cmp(&(BigInt::from(c) * BigInt::from(b))))
            }
        }
    }
}

impl std::ops::Neg for Num {
    type Output = Num;

    fn neg(self) -> Num {
        match self {
            Num::Dec(d) => Num::Dec(super::negate(d)),
            Num::Frac(f) => Num::Frac(Frac {
                num: -f.num,
                den: f.den,
            }),
        }
    }
}

impl Num {
    /// `|x|`.
    pub fn abs(self) -> Num {
        match self {
            Num::Dec(d) => Num::Dec(d.abs()),
            Num::Frac(f) => Num::Frac(Frac {
                num: f.num.abs(),
                den: f.den,
            }),
        }
    }

    /// The decimal, exactly, or the nearest one for a fraction.
    pub fn approx(self) -> Option<Decimal> {
        match self {
            Num::Dec(d) => Some(d),
            Num::Frac(f) => f.approx(),
        }
    }
}

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Num::Dec(d) => write!(f, "{d}"),
            Num::Frac(x) => write!(f, "{x}"),
        }
    }
}

/// Rounds a fraction exactly: the result and the margin to the nearest boundary.
///
/// A fraction whose terms are wide (`100 / 0.3333333333333333333333333333`
/// is 10^30 over a 28-digit denominator) is rounded digit by digit, so that
/// only a result no decimal holds is out of range, never a product on the way.
pub fn round_frac(
    x: Frac,
    places: u32,
    mode: RoundingMode,
) -> Result<(Decimal, Decimal), NumError> {
    let places = places.min(MAX_PLACES);
    let (q, r) = scaled_floor(x, places)?;
    // r / den against one half, without doubling r.
    let half = r.cmp(&(x.den - r));
    let up = match mode {
        // r > 0 always: a fraction is never on a grid point.
        RoundingMode::HalfUp => {
            half != Ordering::Less && q >= 0 || half == Ordering::Greater && q < 0
        }
        RoundingMode::HalfDown => {
            half == Ordering::Greater && q >= 0 || half != Ordering::Less && q < 0
        }
        RoundingMode::HalfEven => {
            half == Ordering::Greater || half == Ordering::Equal && q % 2 != 0
        }
        RoundingMode::HalfCeiling => half != Ordering::Less,
        RoundingMode::HalfFloor => half == Ordering::Greater,
        RoundingMode::Down => q < 0,
        RoundingMode::Up => q >= 0,
        RoundingMode::Floor => false,
        RoundingMode::Ceiling => true,
    };
    let result = if up {
        q.checked_add(1).ok_or(RANGE)?
    } else {
        q
    };
    let after = fitted(result, places).ok_or(RANGE)?;
    // Margin, in units of the last place: |r/den − 1/2| for nearest modes,
    // min(r, den − r)/den otherwise; both terms below 2^128 as u128.
    let (r, den) = (r.unsigned_abs(), x.den.unsigned_abs());
    let (mnum, mden) = if mode.is_nearest() {
        (r.abs_diff(den - r), den * 2)
    } else {
        (r.min(den - r), den)
    };
    // Off a boundary (a fraction is, unless a midpoint's), a margin below
    // the 28th place is written as the least one, never 0.
    let margin = margin_of(mnum, mden, places).normalize();
    let margin = if margin.is_zero() && mnum != 0 {
        super::LEAST_MARGIN
    } else {
        margin
    };
    Ok((after, margin))
}

/// `mantissa × 10^-places` as a decimal, with fewer places when the value
/// is the same and only its trailing zeros overflow 96 bits
/// (`300.0000000000000000000000000000`), as a decimal's own rounding does.
fn fitted(mut mantissa: i128, mut places: u32) -> Option<Decimal> {
    loop {
        match Decimal::try_from_i128_with_scale(mantissa, places) {
            Ok(d) => return Some(d),
            Err(_) if places > 0 && mantissa % 10 == 0 => {
                mantissa /= 10;
                places -= 1;
            }
            Err(_) => return None,
        }
    }
}

/// `floor(x × 10^places)` and what remains of it over `x.den` (0 ≤ r < den).
fn scaled_floor(x: Frac, places: u32) -> Result<(i128, i128), NumError> {
    let scale = pow10(places).ok_or(RANGE)?;
    match x.num.checked_mul(scale) {
        Some(scaled) => Ok((scaled.div_euclid(x.den), scaled.rem_euclid(x.den))),
        None => long_scaled_floor(x, places),
    }
}

/// [`scaled_floor`] the long way: the whole part, then one digit of the
/// remainder a place, so no product wider than the result is formed.
fn long_scaled_floor(x: Frac, places: u32) -> Result<(i128, i128), NumError> {
    let (n, d) = (x.num.unsigned_abs(), x.den.unsigned_abs());
    let (mut q, mut r) = (n / d, n % d);
    for _ in 0..places {
        let (digit, rest) = next_digit(r, d);
        q = q
            .checked_mul(10)
            .and_then(|q| q.checked_add(digit))
            .ok_or(RANGE)?;
        r = rest;
    }
    let q = i128::try_from(q).map_err(|_| RANGE)?;
    let (d, r) = (x.den, r as i128);
    Ok(match (x.num < 0, r) {
        (false, _) => (q, r),
        (true, 0) => (-q, 0),
        // Floor of a negative: one step further down, the remainder mirrored.
        (true, r) => (-q - 1, d - r),
    })
}

/// The digit `floor(10r / d)` and the remainder `10r mod d`, for r < d,
/// without forming 10r: ten additions of r modulo d.
fn next_digit(r: u128, d: u128) -> (u128, u128) {
    let (mut digit, mut rest) = (0, 0u128);
    for _ in 0..10 {
        if rest >= d - r {
            rest -= d - r;
            digit += 1;
        } else {
            rest += r;
        }
    }
    (digit, rest)
}

/// `num / den / 10^places` as the nearest decimal (0 below a decimal's
/// least unit): exact where the terms allow, as before, else to 28 digits.
fn margin_of(num: u128, den: u128, places: u32) -> Decimal {
    let exact = (i128::try_from(num).ok())
        .zip(i128::try_from(den).ok().zip(pow10(places)))
        .and_then(|(n, (d, s))| Some((n, d.checked_mul(s)?)));
    match exact.map(|(n, d)| ratio(n, d)) {
        Some(Ok(Num::Dec(m))) => m,
        Some(Ok(Num::Frac(f))) => f.approx().unwrap_or_default(),
        Some(Err(_)) => Decimal::ZERO,
        None => wide_margin(num, den, places),
    }
}

/// [`margin_of`] for terms past 128 bits once scaled: their ratio to 28
/// digits (low bits of both dropped until a decimal holds them), then the
/// places.
fn wide_margin(num: u128, den: u128, places: u32) -> Decimal {
    let shift = (128 - den.leading_zeros()).saturating_sub(96);
    let (n, d) = (num >> shift, den >> shift);
    let to_decimal = |v: u128| Decimal::try_from_i128_with_scale(v as i128, 0).ok();
    (to_decimal(n).zip(to_decimal(d)))
        .and_then(|(n, d)| n.checked_div(d))
        .and_then(|m| m.checked_div(Decimal::try_from_i128_with_scale(pow10(places)?, 0).ok()?))
        .unwrap_or_default()
}

/// Reads a decimal as a trace writes it, exactly: one of more places or
/// digits than a `Decimal` holds (a finite [`Frac`] in full) as that
/// fraction. `None` for other text, or a mantissa over 128 bits.
pub fn parse_decimal_exact(text: &str) -> Option<Num> {
    if let Ok(d) = Decimal::from_str_exact(text) {
        return Some(Num::Dec(d));
    }
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let all_digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !all_digits(whole) || !all_digits(fraction) {
        return None;
    }
    let mut mantissa: i128 = format!("{whole}{fraction}").parse().ok()?;
    // value = mantissa / (2^k · 5^k): the factors of 2 and 5 the mantissa
    // shares leave the denominator first, so that one wider than 10^38 can
    // still be read when the fraction's own denominator is not.
    let k = u32::try_from(fraction.len()).ok()?;
    let (mut twos, mut fives) = (k, k);
    while twos > 0 && mantissa != 0 && mantissa % 2 == 0 {
        mantissa /= 2;
        twos -= 1;
    }
    while fives > 0 && mantissa != 0 && mantissa % 5 == 0 {
        mantissa /= 5;
        fives -= 1;
    }
    let den = 2i128
        .checked_pow(twos)?
        .checked_mul(5i128.checked_pow(fives)?)?;
    ratio(if negative { -mantissa } else { mantissa }, den).ok()
}

/// Reads a number exactly as `Num`'s `Display` writes it (a trace's
/// values): a decimal of any length, or `P/Q` with 128-bit terms and the
/// sign on P, where a case's `P/Q` ([`parse_fraction`]) is bounded
/// (10^12) and unsigned. Exactly or not at all: rust_decimal's `parse`
/// rounds past 28 places, and a recorded value changed in its 29th would
/// then pass for the one computed.
pub fn parse_written(text: &str) -> Option<Num> {
    let Some((p, q)) = text.split_once('/') else {
        return parse_decimal_exact(text);
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(p.strip_prefix('-').unwrap_or(p)) || !digits(q) {
        return None;
    }
    let (p, q) = (p.parse::<i128>().ok()?, q.parse::<i128>().ok()?);
    if q == 0 {
        return None;
    }
    ratio(p, q).ok()
}

/// Parses `p/q`, a plain decimal, or an integer into an exact number.
pub fn parse_fraction(text: &str) -> Option<Num> {
    // `P/Q` is written without a sign; a plain decimal may carry one
    // (format §4.6), so a `min` below zero can be reached and `"-0.5"` is
    // refused by the bounds that name the range, not as no fraction.
    let plain = |t: &str| {
        let (i, f) = t.split_once('.').unwrap_or((t, "0"));
        !i.is_empty() && !f.is_empty() && i.bytes().chain(f.bytes()).all(|b| b.is_ascii_digit())
    };
    match text.split_once('/') {
        Some((p, q)) => {
            let ok = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
            if !ok(p) || !ok(q) {
                return None;
            }
            let (p, q) = (p.parse::<i128>().ok()?, q.parse::<i128>().ok()?);
            if q == 0 || p > 1_000_000_000_000 || q > 1_000_000_000_000 {
                return None;
            }
            ratio(p, q).ok()
        }
        None if plain(text.strip_prefix('-').unwrap_or(text)) => {
            let mut d = Decimal::from_str_exact(text).ok()?;
            // `-0.0` is zero, never a negative zero a trace would write.
            if d.is_zero() {
                d.set_sign_positive(true);
            }
            Some(Num::Dec(d))
        }
        None => None,
    }
}

#[cfg(test)]
mod tests;
