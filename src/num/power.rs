//! `x^n` for a whole `n`: the nearest decimal to the exact power.
//!
//! Repeated decimal multiplication rounds at every step, and the errors add
//! up (1.0001^4095 came out 19 units off in the 28th place, 30 years of
//! monthly compounding 205). Here the power is exact (`m^n / 10^(s·n)` in
//! big integers) when its digits are few, and otherwise bracketed between
//! two truncated powers whose rounding must agree, with twice the digits
//! tried until they do (the exact power last): so the result is always the
//! nearest, ties to even as rust_decimal's own products round, and the
//! usual work stays a few products of 60-digit integers.

use num_bigint::BigUint;
use rust_decimal::Decimal;

/// Most digits the exact power may have before it is bracketed instead.
const EXACT_DIGITS: u64 = 1000;

/// Digits kept by the first bracket; each undecided bracket doubles them.
const FIRST_DIGITS: u64 = 60;

/// Why a whole power has no decimal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PowerError {
    /// Larger than the largest decimal.
    Overflow,
    /// `0` to a negative power.
    ZeroToNegative,
}

/// `x^n` as the decimal nearest to it: at `x`'s places times `n` when they
/// are 28 or fewer and the digits fit, else at the most places that fit
/// (28 at most); a negative `n` at the fewest places that hold `1 / x^|n|`
/// exactly, or 28 (or the most that fit). A power below half the 28th place
/// is zero.
pub fn whole_power(x: Decimal, n: i64) -> Result<Decimal, PowerError> {
    if n == 0 {
        return Ok(Decimal::ONE);
    }
    if x.is_zero() {
        // Zero at `x`'s places times `n`, as any other power (`0.00^3` is
        // `0.000000`), 28 at most.
        let places = u64::from(x.scale())
            .saturating_mul(n.unsigned_abs())
            .min(28);
        return if n > 0 {
            Ok(Decimal::new(0, places as u32))
        } else {
            Err(PowerError::ZeroToNegative)
        };
    }
    let negative = x.is_sign_negative() && n % 2 != 0;
    let (mut m, mut s) = (x.mantissa().unsigned_abs(), x.scale());
    if n < 0 {
        // Trailing zeros say nothing of a reciprocal's places.
        while m % 10 == 0 && s > 0 {
            m /= 10;
            s -= 1;
        }
    }
    let k = n.unsigned_abs();
    let places = u64::from(s) * k;
    let digits = u64::from(m.ilog10() + 1) * k;
    let mut keep = FIRST_DIGITS;
    let magnitude = loop {
        let bracket = if digits <= EXACT_DIGITS || keep >= digits {
            Bracket::exact(m, k)
        } else {
            Bracket::power(m, k, keep)
        };
        let settled = if n > 0 {
            bracket.nearest(places)
        } else {
            bracket.nearest_reciprocal(places)
        };
        match settled {
            Some(found) => break found?,
            // An exact power settles: never reached, but never a loop.
            None if bracket.lo == bracket.hi => return Err(PowerError::Overflow),
            None => keep *= 2,
        }
    };
    Ok(if magnitude.is_zero() {
        // Below half the 28th place: `0`, not 28 zeros after the point.
        Decimal::ZERO
    } else if negative {
        crate::num::negate(magnitude)
    } else {
        magnitude
    })
}

/// Largest root taken exactly: `x^(p/q)` for `q` up to 16 (k ≤ 4).
const MAX_EXACT_ROOT: u32 = 4;

/// `x^(p / 2^k)` for a positive `x`, as the decimal nearest to it (ties to
/// even) at the most places that fit, 28 at most, or at the fewest places
/// that hold it when it is exact (`16^0.25` is `2`); `None` when the power
/// is too long to take exactly (`k` past 4, or `x^p` past a thousand
/// digits), for the caller's road of rounded square roots.
///
/// With `Y = x^(p/q) · 10^t`, `floor(2Y)` is the integer `q`-th root of
/// `floor(2^q · x^p · 10^(tq))`, so the rounding is decided in integers.
pub fn root_power(x: Decimal, p: i64, k: u32) -> Option<Result<Decimal, PowerError>> {
    if !(1..=MAX_EXACT_ROOT).contains(&k) || !x.is_sign_positive() || x.is_zero() || p == 0 {
        return None;
    }
    let q = 1u32 << k;
    let (mut m, mut s) = (x.mantissa().unsigned_abs(), x.scale());
    while m % 10 == 0 && s > 0 {
        m /= 10;
        s -= 1;
    }
    let e = p.unsigned_abs();
    if u64::from(m.ilog10() + 1).checked_mul(e)? > EXACT_DIGITS {
        return None;
    }
    let power = BigUint::from(m).pow(u32::try_from(e).ok()?);
    let places = u64::from(s) * e;
    // x^p = num / den, exactly.
    let (num, den) = if p > 0 {
        (power, ten_to(places))
    } else {
        (ten_to(places), power)
    };
    // y^q = num / den has fewer than `d` integer digits (at most two
    // more than it has), so y at most `whole`, one more than it has: the
    // most places that can fit are 30 - whole, or 28.
    let d = digit_count(&num) as i128 - digit_count(&den) as i128 + 1;
    let whole = (d.max(0) + i128::from(q) - 1) / i128::from(q);
    if whole > 30 {
        return Some(Err(PowerError::Overflow));
    }
    let mut scale = (30 - whole).min(28);
    loop {
        let lift = ten_to(u64::try_from(scale).ok()? * u64::from(q));
        let twice = ((&num << q) * &lift / &den).nth_root(q);
        // 2Y is exactly `twice` when its q-th power gives the quotient back.
        let exact_half = |t: &BigUint| t.pow(q) * &den == (&num << q) * &lift;
        let nearest = if twice.bit(0) && exact_half(&twice) {
            // A tie: to the even neighbour.
            let down: BigUint = &twice >> 1u32;
            if down.bit(0) {
                down + 1u32
            } else {
                down
            }
        } else {
            (&twice + 1u32) >> 1u32
        };
        match fits(&nearest) {
            Some(v) => {
                let r = decimal(v, scale);
                let exact = nearest.pow(q) * &den == &num * &lift;
                return Some(Ok(if exact || v == 0 { r.normalize() } else { r }));
            }
            None if scale == 0 => return Some(Err(PowerError::Overflow)),
            None => scale -= 1,
        }
    }
}

/// `m^k` between `lo · 10^shift` and `hi · 10^shift`.
struct Bracket {
    lo: BigUint,
    hi: BigUint,
    shift: u64,
}

impl Bracket {
    fn exact(m: u128, k: u64) -> Bracket {
        let p = BigUint::from(m).pow(k as u32);
        Bracket {
            lo: p.clone(),
            hi: p,
            shift: 0,
        }
    }

    /// By squaring, each product cut back to `keep` digits, down for `lo`
    /// and up for `hi`.
    fn power(m: u128, mut k: u64, keep: u64) -> Bracket {
        let mut base = Bracket::exact(m, 1);
        let mut acc: Option<Bracket> = None;
        loop {
            if k & 1 == 1 {
                acc = Some(match acc {
                    None => Bracket {
                        lo: base.lo.clone(),
                        hi: base.hi.clone(),
                        shift: base.shift,
                    },
                    Some(a) => a.times(&base, keep),
                });
            }
            k >>= 1;
            if k == 0 {
                break;
            }
            base = base.times(&base, keep);
        }
        acc.unwrap_or_else(|| Bracket::exact(1, 1))
    }

    fn times(&self, other: &Bracket, keep: u64) -> Bracket {
        let mut lo = &self.lo * &other.lo;
        let mut hi = &self.hi * &other.hi;
        let mut shift = self.shift + other.shift;
        let over = digit_count(&hi).saturating_sub(keep);
        if over > 0 {
            let unit = ten_to(over);
            lo /= &unit;
            hi = (hi + &unit - 1u32) / &unit;
            shift += over;
        }
        Bracket { lo, hi, shift }
    }

    /// The integer digits of `m^k / 10^places`, as the bracket bounds them:
    /// the power has at least the first less one, at most the second.
    fn integer_digits(&self, places: u64) -> (i128, i128) {
        let digits = |n: &BigUint| (digit_count(n) + self.shift) as i128 - places as i128;
        (digits(&self.lo), digits(&self.hi))
    }

    /// The nearest decimal to `m^k / 10^places`, or `None` when the
    /// bracket is too wide to tell.
    fn nearest(&self, places: u64) -> Option<Result<Decimal, PowerError>> {
        let (low_digits, high_digits) = self.integer_digits(places);
        if low_digits > 30 {
            return Some(Err(PowerError::Overflow));
        }
        if high_digits < -29 {
            // Below 10^-29, under half the 28th place.
            return Some(Ok(Decimal::ZERO));
        }
        let most = places.min(28) as i128;
        let mut scale = most.min(29 - high_digits).max(0);
        loop {
            // value · 10^scale = m^k · 10^(shift + scale - places)
            let lift = self.shift as i128 + scale - places as i128;
            let lo = scaled(&self.lo, lift);
            let hi = scaled(&self.hi, lift);
            match (fits(&lo), fits(&hi)) {
                (Some(a), Some(b)) if a == b => return Some(Ok(decimal(a, scale))),
                (None, None) if scale == 0 => return Some(Err(PowerError::Overflow)),
                (None, None) => scale -= 1,
                // The bracket straddles a rounding boundary.
                _ => return None,
            }
        }
    }

    /// The nearest decimal to `10^places / m^k`, at the fewest places that
    /// hold it exactly or at most 28; `None` when the bracket cannot tell.
    fn nearest_reciprocal(&self, places: u64) -> Option<Result<Decimal, PowerError>> {
        // The reciprocal is below 10^-29 past 30 integer digits of the
        // power, past the decimal range below -30.
        let (low_digits, high_digits) = self.integer_digits(places);
        if low_digits > 30 {
            return Some(Ok(Decimal::ZERO));
        }
        if high_digits < -30 {
            return Some(Err(PowerError::Overflow));
        }
        let exact = self.lo == self.hi;
        let lift = |scale: i128| places as i128 + scale - self.shift as i128;
        // An exact power's reciprocal at the fewest places that hold it.
        let mut scale = (0..28)
            .find(|&t| exact && ratio(lift(t), &self.lo).1)
            .unwrap_or(28);
        loop {
            // 10^scale / value = 10^(places + scale - shift) / m^k.
            let (a, b) = (
                ratio(lift(scale), &self.hi).0,
                ratio(lift(scale), &self.lo).0,
            );
            match (fits(&a), fits(&b)) {
                (Some(x), Some(y)) if x == y => return Some(Ok(decimal(x, scale))),
                (None, None) if scale == 0 => return Some(Err(PowerError::Overflow)),
                (None, None) => scale -= 1,
                // The bracket straddles a rounding boundary.
                _ => return None,
            }
        }
    }
}

/// `n · 10^lift`, rounded half to even where `lift` is negative.
fn scaled(n: &BigUint, lift: i128) -> BigUint {
    if lift >= 0 {
        n * ten_to(lift as u64)
    } else {
        nearest_quotient(n, &ten_to(lift.unsigned_abs() as u64)).0
    }
}

/// `10^lift / d` rounded half to even, and whether it was exact.
fn ratio(lift: i128, d: &BigUint) -> (BigUint, bool) {
    if lift >= 0 {
        nearest_quotient(&ten_to(lift as u64), d)
    } else {
        nearest_quotient(
            &BigUint::from(1u32),
            &(d * ten_to(lift.unsigned_abs() as u64)),
        )
    }
}

/// `a / b` rounded half to even, and whether it was exact.
fn nearest_quotient(a: &BigUint, b: &BigUint) -> (BigUint, bool) {
    let (mut q, r) = (a / b, a % b);
    let exact = r == BigUint::ZERO;
    let twice = r * 2u32;
    if twice > *b || (twice == *b && q.bit(0)) {
        q += 1u32;
    }
    (q, exact)
}

/// The mantissa, if it fits a decimal's 96 bits.
fn fits(n: &BigUint) -> Option<u128> {
    if n.bits() > 96 {
        return None;
    }
    let digits = n.to_u64_digits();
    Some(
        digits
            .iter()
            .rev()
            .fold(0u128, |acc, &d| (acc << 64) | u128::from(d)),
    )
}

fn decimal(mantissa: u128, scale: i128) -> Decimal {
    // `fits` kept the mantissa within 96 bits, `nearest` the scale in 0..=28.
    Decimal::from_i128_with_scale(mantissa as i128, scale as u32)
}

fn ten_to(n: u64) -> BigUint {
    BigUint::from(10u32).pow(n as u32)
}

/// Decimal digits of `n` (one for zero).
fn digit_count(n: &BigUint) -> u64 {
    let bits = n.bits();
    if bits <= 1 {
        return 1;
    }
    // 30103 / 100000 is just under log10(2): a count at most one short.
    let d = (bits - 1) * 30103 / 100_000 + 1;
    if *n >= ten_to(d) {
        d + 1
    } else {
        d
    }
}

#[cfg(test)]
mod tests;
