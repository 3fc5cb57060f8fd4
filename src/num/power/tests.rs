//! Whole powers against the exact power rounded by hand (Python's
//! `fractions`, half to even at the most places that fit 96 bits).

use super::*;
use proptest::prelude::*;
use std::str::FromStr;

fn d(s: &str) -> Decimal {
    Decimal::from_str(s).expect("a test decimal")
}

fn power(x: &str, n: i64) -> String {
    match whole_power(d(x), n) {
        Ok(v) => v.to_string(),
        Err(e) => format!("{e:?}"),
    }
}

#[test]
fn long_powers_are_the_nearest_decimal() {
    // Repeated products were 19 units off in the 28th place here.
    assert_eq!(power("1.0001", 4095), "1.5060337302404433437735786233");
    // 30 years of monthly compounding at 6% a year.
    assert_eq!(power("1.005", 360), "6.0225752122632161840540468089");
    assert_eq!(
        power("1.0000000001", 4096),
        "1.0000004096000838656114448601"
    );
    // 30 places do not fit with two integer digits: 27 do.
    assert_eq!(power("1.1", 30), "17.449402268886407318558803754");
}

#[test]
fn short_powers_keep_their_places() {
    assert_eq!(power("1.5", 2), "2.25");
    assert_eq!(power("1.50", 2), "2.2500");
    assert_eq!(power("-1.1", 3), "-1.331");
    assert_eq!(power("-2", 2), "4");
    assert_eq!(power("7", 0), "1");
    assert_eq!(power("0", 0), "1");
    assert_eq!(power("0", 3), "0");
    assert_eq!(power("10", 28), "10000000000000000000000000000");
}

#[test]
fn a_tie_goes_to_the_even_digit() {
    // 0.5^29 = 0.00000000186264514923095703125, 29 places.
    assert_eq!(power("0.5", 29), "0.0000000018626451492309570312");
    // 0.5^30 = ...515625: the 25 past the 28th place rounds down.
    assert_eq!(power("0.5", 30), "0.0000000009313225746154785156");
}

#[test]
fn reciprocals_take_the_fewest_places_that_hold_them() {
    assert_eq!(power("2", -2), "0.25");
    assert_eq!(power("0.5", -2), "4");
    assert_eq!(power("3", -1), "0.3333333333333333333333333333");
    // 1 / 1.6^9 = 0.625^9, 27 places, whatever zeros 1.6 is written with.
    assert_eq!(
        power("1.6000000000000000000000000000", -9),
        "0.014551915228366851806640625"
    );
}

#[test]
fn out_of_range_powers() {
    assert_eq!(power("10", 29), "Overflow");
    assert_eq!(power("2", 4096), "Overflow");
    assert_eq!(power("0.5", -4096), "Overflow");
    assert_eq!(power("0", -1), "ZeroToNegative");
    // Below half the 28th place, either way round.
    assert_eq!(power("0.5", 4096), "0");
    assert_eq!(power("2", -200), "0");
    assert_eq!(power("0.0000000000000000000000000001", 4096), "0");
    // Settled by rounding rather than by its size, still plain `0`.
    assert_eq!(power("0.3", 55), "0");
    assert_eq!(power("-0.3", 55), "0");
    assert_eq!(power("0.0000000000000000000000000001", -2), "Overflow");
}

proptest! {
    /// The bracket, however few digits it keeps, settles on the exact
    /// power's nearest decimal or says it cannot tell.
    #[test]
    fn a_bracket_agrees_with_the_exact_power(
        m in 1u128..=9_999_999_999,
        s in 0u64..=10,
        k in 1u64..=300,
        keep in 12u64..=40,
    ) {
        let exact = Bracket::exact(m, k);
        let cut = Bracket::power(m, k, keep);
        prop_assert!(cut.lo.clone() * ten_to(cut.shift) <= exact.lo);
        prop_assert!(exact.hi <= cut.hi.clone() * ten_to(cut.shift));
        let places = s * k;
        let (Some(want), got) = (exact.nearest(places), cut.nearest(places)) else {
            return Err(TestCaseError::fail("an exact power always settles"));
        };
        if let Some(got) = got {
            prop_assert_eq!(got, want);
        }
        let (Some(want), got) = (exact.nearest_reciprocal(places), cut.nearest_reciprocal(places)) else {
            return Err(TestCaseError::fail("an exact power always settles"));
        };
        if let Some(got) = got {
            prop_assert_eq!(got, want);
        }
    }
}
