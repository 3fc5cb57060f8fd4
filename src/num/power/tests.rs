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
    // Zero keeps the places of any power: `x`'s times `n`, 28 at most.
    assert_eq!(power("0.00", 3), "0.000000");
    assert_eq!(power("-0.0", 3), "0.000");
    assert_eq!(power("0.0", 100), "0.0000000000000000000000000000");
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

fn root(x: &str, p: i64, k: u32) -> String {
    match root_power(d(x), p, k) {
        Some(Ok(v)) => v.to_string(),
        Some(Err(e)) => format!("{e:?}"),
        None => "not exact".into(),
    }
}

/// Against Python's `decimal` at 120 digits, rounded half to even at the
/// most places that fit: the square-root road was 27,869 units off in the
/// last place of the first.
#[test]
fn roots_are_the_nearest_decimal() {
    assert_eq!(root("0.00088", -3, 1), "38306.810367229663991277879343");
    assert_eq!(root("0.0369", -5, 1), "3823.2622138156561111258698676");
    assert_eq!(root("2.3319128", 21, 1), "7260.7120928898051128972288537");
    assert_eq!(root("1.5", 7, 2), "2.0331045081221508719149906190");
    assert_eq!(root("2", 1, 1), "1.4142135623730950488016887242");
    assert_eq!(root("0.9", 1, 2), "0.9740037464252967644227061964");
    assert_eq!(root("123.45", -3, 2), "0.0270011138036019211832896248");
}

#[test]
fn exact_roots_take_the_fewest_places() {
    assert_eq!(root("16", 1, 2), "2");
    assert_eq!(root("0.25", 1, 1), "0.5");
    assert_eq!(root("6.25", 3, 1), "15.625");
    assert_eq!(root("4", -1, 1), "0.5");
    assert_eq!(root("1.00", 5, 3), "1");
}

#[test]
fn roots_out_of_reach_or_range() {
    // Past 16th roots, or a power past a thousand digits: the caller's road.
    assert_eq!(root("2", 1, 5), "not exact");
    assert_eq!(root("1.0001", 4095, 1), "not exact");
    assert_eq!(root("-2", 1, 1), "not exact");
    assert_eq!(root("10", 61, 1), "Overflow");
    assert_eq!(root("0.1", 61, 1), "0");
}

proptest! {
    /// A square root of an even power is the whole power, exactly.
    #[test]
    fn a_root_of_an_even_power_is_the_whole_power(
        m in 1i64..=99_999,
        s in 0u32..=4,
        j in -6i64..=6,
    ) {
        prop_assume!(j != 0);
        let x = Decimal::new(m, s);
        let by_root = root_power(x, 2 * j, 1).expect("short enough");
        let whole = whole_power(x, j);
        match (by_root, whole) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a.normalize(), b.normalize()),
            (a, b) => prop_assert_eq!(a.is_err(), b.is_err()),
        }
    }
}
