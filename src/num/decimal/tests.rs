//! Tests of exact decimal `+ - ×`: worked examples, and a property against
//! integer arithmetic on the same digits.

use super::*;
use std::str::FromStr;

fn d(s: &str) -> Decimal {
    Decimal::from_str(s).expect("test decimal")
}

/// The result as written: digits, places and sign.
fn written(r: Option<Decimal>) -> Option<String> {
    r.map(|x| x.to_string())
}

#[test]
fn a_zero_operand_keeps_the_places_of_both() {
    assert_eq!(written(add(d("0.00"), d("1.5"))), Some("1.50".into()));
    assert_eq!(written(add(d("1.5"), d("0.00"))), Some("1.50".into()));
    assert_eq!(written(sub(d("0.00"), d("1.5"))), Some("-1.50".into()));
    assert_eq!(written(sub(d("1.5"), d("0.000"))), Some("1.500".into()));
    assert_eq!(written(add(d("0"), d("0.0"))), Some("0.0".into()));
    assert_eq!(written(mul(d("0.00"), d("1.5"))), Some("0.000".into()));
    assert_eq!(written(mul(d("-1.5"), d("0"))), Some("0.0".into()));
    assert_eq!(written(mul(d("0"), d("7"))), Some("0".into()));
}

#[test]
fn places_are_those_of_the_operands_when_nothing_is_zero() {
    assert_eq!(written(add(d("0.01"), d("1.5"))), Some("1.51".into()));
    assert_eq!(written(sub(d("1.00"), d("1.00"))), Some("0.00".into()));
    assert_eq!(written(add(d("-1.00"), d("1.00"))), Some("0.00".into()));
    assert_eq!(written(mul(d("1.5"), d("2.00"))), Some("3.000".into()));
    assert_eq!(written(mul(d("1.00"), d("-1.00"))), Some("-1.0000".into()));
}

#[test]
fn what_a_decimal_cannot_hold_exactly_has_no_decimal_result() {
    // rust_decimal gives 0.0000000000000000000000000000 and 1.0000000000000000000200000000.
    assert_eq!(mul(d("0.0000000000000001"), d("0.0000000000000001")), None);
    assert_eq!(
        mul(d("1.00000000000000000001"), d("1.00000000000000000001")),
        None
    );
    // rust_decimal gives 100000000000000000000.00000000.
    assert_eq!(
        add(
            d("0.00000000000000000000000001"),
            d("100000000000000000000")
        ),
        None
    );
    assert_eq!(
        sub(
            d("100000000000000000000"),
            d("0.00000000000000000000000001")
        ),
        None
    );
    // Too large at any places.
    assert_eq!(
        mul(d("100000000000000000000"), d("100000000000000000000")),
        None
    );
    assert_eq!(
        add(
            d("79228162514264337593543950335"),
            d("79228162514264337593543950335")
        ),
        None
    );
}

#[test]
fn trailing_zeros_give_way_where_the_places_do_not_fit() {
    // 14 + 15 places: 29, one more than a decimal holds; the last is a zero.
    assert_eq!(
        written(mul(d("1.00000000000000"), d("1.000000000000000"))),
        Some("1.0000000000000000000000000000".into())
    );
    // 10^28 at 13 places overflows the integers; exact without them.
    assert_eq!(
        written(add(
            d("10000000000000000000000000000"),
            d("0.0000000000000")
        )),
        Some("10000000000000000000000000000".into())
    );
    // 96 bits at one place overflow; the zero goes.
    assert_eq!(
        written(add(d("79228162514264337593543950335"), d("0.0"))),
        Some("79228162514264337593543950335".into())
    );
    // 1e-14 × 1e-14 is 1e-28: the last place a decimal holds.
    assert_eq!(
        written(mul(d("0.00000000000001"), d("0.00000000000001"))),
        Some("0.0000000000000000000000000001".into())
    );
}

/// A decimal of any width and places, from its parts.
fn decimal(mantissa: i128, scale: u32, width: u32) -> Decimal {
    let m = match width {
        0 => mantissa % 1_000,
        1 => mantissa % 1_000_000_000,
        2 => mantissa % (1i128 << 64),
        _ => mantissa,
    };
    Decimal::from_i128_with_scale(m, scale)
}

/// `m / 10^s` as a value to compare exactly: the digits without trailing
/// zeros, and their places.
fn value(m: i128, s: u32) -> (i128, u32) {
    let (mut m, mut s) = (m, s);
    while s > 0 && m % 10 == 0 {
        m /= 10;
        s -= 1;
    }
    (m, s)
}

fn value_of(x: Decimal) -> (i128, u32) {
    value(x.mantissa(), x.scale())
}

/// Whether `r` has `places`, or as many of them as a decimal holds.
fn widest(r: Decimal, places: u32) -> bool {
    r.scale() == places
        || (r.scale() < places
            && (r.scale() == MAX_PLACES || r.mantissa().unsigned_abs() * 10 > MAX_MANTISSA))
}

proptest::proptest! {
    /// Whenever a result comes, it is the exact sum, difference or product
    /// (checked in wider integers: both operands brought to common places),
    /// with the operands' places, or as many as a decimal holds; and
    /// whenever none comes, no decimal holds the exact value.
    #[test]
    fn results_are_exact_or_absent(
        ma in -(1i128 << 96) + 1..(1i128 << 96),
        mb in -(1i128 << 96) + 1..(1i128 << 96),
        sa in 0u32..=28,
        sb in 0u32..=28,
        wa in 0u32..4,
        wb in 0u32..4,
        zero in 0u32..8,
    ) {
        let a = decimal(ma, sa, wa);
        let b = if zero == 0 {
            Decimal::new(0, sb)
        } else {
            decimal(mb, sb, wb)
        };
        // Sums, at the larger places, in i128 when they fit there.
        let places = a.scale().max(b.scale());
        let up = |x: Decimal| x.mantissa().checked_mul(10i128.checked_pow(places - x.scale())?);
        if let (Some(x), Some(y)) = (up(a), up(b)) {
            for (r, exact) in [(add(a, b), x.checked_add(y)), (sub(a, b), x.checked_sub(y))] {
                match (r, exact) {
                    (Some(r), Some(e)) => {
                        proptest::prop_assert_eq!(value_of(r), value(e, places));
                        proptest::prop_assert!(widest(r, places));
                    }
                    (None, Some(e)) => {
                        let (m, s) = value(e, places);
                        proptest::prop_assert!(s > 28 || m.unsigned_abs() > MAX_MANTISSA);
                    }
                    (Some(_), None) => {}
                    (None, None) => {}
                }
            }
        }
        // Products, in i128 when the digits fit.
        if let Some(e) = a.mantissa().checked_mul(b.mantissa()) {
            let places = a.scale() + b.scale();
            match mul(a, b) {
                Some(r) => {
                    proptest::prop_assert_eq!(value_of(r), value(e, places));
                    proptest::prop_assert!(widest(r, places));
                }
                None => {
                    let (m, s) = value(e, places);
                    proptest::prop_assert!(s > 28 || m.unsigned_abs() > MAX_MANTISSA);
                }
            }
        }
    }
}
