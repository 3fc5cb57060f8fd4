//! Tests of rounding modes and margins.

use super::*;
use std::str::FromStr;

/// Every rounding mode.
const MODES: [RoundingMode; 9] = [
    RoundingMode::HalfUp,
    RoundingMode::HalfDown,
    RoundingMode::HalfEven,
    RoundingMode::HalfCeiling,
    RoundingMode::HalfFloor,
    RoundingMode::Down,
    RoundingMode::Up,
    RoundingMode::Floor,
    RoundingMode::Ceiling,
];

fn d(s: &str) -> Decimal {
    Decimal::from_str(s).expect("test decimal")
}

#[test]
fn half_up_ties_go_away_from_zero() {
    let r = round(d("50.005"), 2, RoundingMode::HalfUp);
    assert_eq!(
        (r.after.to_string(), r.margin.to_string()),
        ("50.01".into(), "0".into())
    );
    assert_eq!(
        round(d("-0.125"), 2, RoundingMode::HalfUp)
            .after
            .to_string(),
        "-0.13"
    );
    assert_eq!(
        round(d("48.2048"), 2, RoundingMode::HalfUp)
            .after
            .to_string(),
        "48.20"
    );
    assert_eq!(
        round(d("48.2048"), 2, RoundingMode::HalfUp)
            .margin
            .to_string(),
        "0.0002"
    );
    assert_eq!(
        round(d("7"), 2, RoundingMode::HalfUp).after.to_string(),
        "7.00"
    );
}

#[test]
fn tie_rules_differ_only_at_the_midpoint() {
    // (value, mode, rounded to cents): the tie 0.005 and just past it.
    let cases = [
        ("50.005", RoundingMode::HalfDown, "50.00"),
        ("-50.005", RoundingMode::HalfDown, "-50.00"),
        ("50.0051", RoundingMode::HalfDown, "50.01"),
        ("-50.0051", RoundingMode::HalfDown, "-50.01"),
        ("2.345", RoundingMode::HalfCeiling, "2.35"),
        ("-2.345", RoundingMode::HalfCeiling, "-2.34"),
        ("-2.3451", RoundingMode::HalfCeiling, "-2.35"),
        ("2.345", RoundingMode::HalfFloor, "2.34"),
        ("-2.345", RoundingMode::HalfFloor, "-2.35"),
        ("2.3451", RoundingMode::HalfFloor, "2.35"),
        // A mantissa past a machine word takes rust_decimal's road.
        (
            "123456789012345678901.005",
            RoundingMode::HalfDown,
            "123456789012345678901.00",
        ),
        (
            "-123456789012345678901.005",
            RoundingMode::HalfCeiling,
            "-123456789012345678901.00",
        ),
        (
            "123456789012345678901.005",
            RoundingMode::HalfFloor,
            "123456789012345678901.00",
        ),
        (
            "-123456789012345678901.005",
            RoundingMode::HalfFloor,
            "-123456789012345678901.01",
        ),
    ];
    for (value, mode, want) in cases {
        let r = round(d(value), 2, mode);
        assert_eq!(r.after.to_string(), want, "{value} {mode:?}");
    }
    // The margin of a nearest mode is the distance to the midpoint.
    assert_eq!(
        round(d("50.005"), 2, RoundingMode::HalfDown)
            .margin
            .to_string(),
        "0"
    );
    assert_eq!(
        round(d("50.0071"), 2, RoundingMode::HalfFloor)
            .margin
            .to_string(),
        "0.0021"
    );
}

#[test]
fn other_modes_and_their_margins() {
    assert_eq!(
        round(d("0.125"), 2, RoundingMode::HalfEven)
            .after
            .to_string(),
        "0.12"
    );
    assert_eq!(
        round(d("1.239"), 2, RoundingMode::Down).after.to_string(),
        "1.23"
    );
    assert_eq!(
        round(d("1.231"), 2, RoundingMode::Up).after.to_string(),
        "1.24"
    );
    assert_eq!(
        round(d("-1.231"), 2, RoundingMode::Floor).after.to_string(),
        "-1.24"
    );
    assert_eq!(
        round(d("-1.239"), 2, RoundingMode::Ceiling)
            .after
            .to_string(),
        "-1.23"
    );
    assert_eq!(
        margin(d("1.239"), 2, RoundingMode::Down).to_string(),
        "0.001"
    );
    assert_eq!(margin(d("1.2"), 0, RoundingMode::HalfUp).to_string(), "0.3");
    assert_eq!(
        margin(d("-1.2"), 0, RoundingMode::HalfUp).to_string(),
        "0.3"
    );
}

/// A margin of 0 means a boundary: one below the 28th place that is not 0
/// is written as the least a decimal holds. `x / 3` rounded half even to
/// cents, x = 0.375 + 10^-28, was written margin 0 (a tie, which would
/// have given 0.12) beside its answer 0.13; 0.1 rounded to 28 places in a
/// nearest mode is 5e-29 from the midpoint. A fraction that is a midpoint
/// past the 28th place is a tie, margin 0.
#[test]
fn a_margin_below_the_28th_place_is_never_written_0() {
    let frac = |num: i128, den: i128| crate::num::exact::ratio(num, den).expect("a fraction");
    let least = "0.0000000000000000000000000001";
    let near = round_num(
        frac(3750000000000000000000000001, 30000000000000000000000000000),
        2,
        RoundingMode::HalfEven,
    )
    .expect("rounds");
    assert_eq!(
        (near.after.to_string(), near.margin.to_string()),
        ("0.13".into(), least.into())
    );
    let tie = round_num(frac(1, 8), 2, RoundingMode::HalfEven).expect("rounds");
    assert_eq!(
        (tie.after.to_string(), tie.margin.to_string()),
        ("0.12".into(), "0".into())
    );
    for mode in MODES {
        let r = round(d("0.1"), 28, mode);
        let want = if mode.is_nearest() { least } else { "0" };
        assert_eq!(r.margin.to_string(), want, "{mode:?}");
    }
    let midpoint = round_num(
        frac(20000000000000000000000000001, 20000000000000000000000000000),
        28,
        RoundingMode::HalfUp,
    )
    .expect("rounds");
    assert_eq!(
        (midpoint.after.to_string(), midpoint.margin.to_string()),
        ("1.0000000000000000000000000001".into(), "0".into())
    );
}

/// rust_decimal's general road, which `round_in_word` must reproduce.
fn round_general(value: Decimal, places: u32, mode: RoundingMode) -> Decimal {
    let mut after = value.round_dp_with_strategy(places, mode.strategy(value.is_sign_negative()));
    after.rescale(places);
    after
}

/// Values at the edges of the word roads: zeros of either sign, ties,
/// negative offsets, a word's largest mantissa at two scales.
const EDGES: [&str; 13] = [
    "-0.001",
    "0.005",
    "-0.005",
    "0.015",
    "-2.5",
    "2.5",
    "0",
    "-0.00",
    "7",
    "-1.2",
    "1.239",
    "18446744073709551615",
    "1.8446744073709551615",
];

#[test]
fn the_word_roads_keep_zeros_signs_and_ties() {
    for text in EDGES {
        for mode in MODES {
            for places in [0, 2, 4, 27, 28] {
                let value = d(text);
                let got = round_decimal(value, places, mode);
                let want = round_general(value, places, mode);
                assert_eq!(
                    (got.to_string(), got.is_sign_negative()),
                    (want.to_string(), want.is_sign_negative()),
                    "{text} to {places} {mode:?}"
                );
                if let Some(got) = margin_in_word(value, places, mode) {
                    let want = margin_general(value, places, mode);
                    assert_eq!(
                        (got.to_string(), got.scale()),
                        (want.to_string(), want.scale()),
                        "margin of {text} to {places} {mode:?}"
                    );
                }
            }
        }
    }
    // The values a payslip rounds take the word road.
    assert!(margin_in_word(d("48.2048"), 2, RoundingMode::HalfUp).is_some());
    assert_eq!(
        margin(d("48.2048"), 2, RoundingMode::HalfUp).to_string(),
        "0.0002"
    );
}

use proptest::strategy::Strategy as _;

/// Any decimal: small ones of either sign, a word's digits, and wider, at
/// any scale.
fn any_decimal() -> impl proptest::strategy::Strategy<Value = Decimal> {
    let mantissa = proptest::prop_oneof![
        0i128..100_000,
        -100_000i128..0,
        proptest::num::i64::ANY.prop_map(i128::from),
        -(1i128 << 95)..(1i128 << 95)
    ];
    (mantissa, 0u32..=28).prop_map(|(m, scale)| Decimal::from_i128_with_scale(m, scale))
}

/// The same decimal digit for digit, scale for scale and sign for sign.
fn alike(got: Decimal, want: Decimal) -> Result<(), proptest::test_runner::TestCaseError> {
    proptest::prop_assert_eq!(got.to_string(), want.to_string());
    proptest::prop_assert_eq!(got.scale(), want.scale());
    proptest::prop_assert_eq!(got.is_sign_negative(), want.is_sign_negative());
    Ok(())
}

proptest::proptest! {
    /// Any decimal, any places, any mode: the word road gives rust_decimal's
    /// digits, scale and sign, or leaves the case to it.
    #[test]
    fn rounding_in_a_word_is_rust_decimals(
        value in any_decimal(),
        places in 0u32..=28,
        mode in 0usize..MODES.len(),
    ) {
        let mode = MODES[mode];
        if let Some(got) = round_in_word(value, places, mode) {
            alike(got, round_general(value, places, mode))?;
        }
    }

    /// The margin measured on a machine word is rust_decimal's, for every
    /// value it takes.
    #[test]
    fn a_margin_in_a_word_is_rust_decimals(
        value in any_decimal(),
        places in 0u32..=28,
        mode in 0usize..MODES.len(),
    ) {
        let mode = MODES[mode];
        if let Some(got) = margin_in_word(value, places, mode) {
            alike(got, margin_general(value, places, mode))?;
        }
    }
}

proptest::proptest! {
    /// `round_product_over` gives what multiplying, dividing and rounding in
    /// turn give, digit for digit, scale for scale and sign for sign.
    #[test]
    fn a_rounded_product_over_a_power_of_ten_is_the_three_steps(
        x in proptest::prop_oneof![-10_000_000i64..10_000_000, proptest::num::i64::ANY],
        y in proptest::prop_oneof![-100_000i64..100_000, proptest::num::i64::ANY],
        sx in 0u32..=12,
        sy in 0u32..=12,
        k in 0u32..=10,
        sd in 0u32..=4,
        places in 0u32..=6,
        mode in 0usize..MODES.len(),
    ) {
        use crate::num::exact::Num;
        let mode = MODES[mode];
        let (a, b) = (Decimal::new(x, sx), Decimal::new(y, sy));
        let divisor = Decimal::from_i128_with_scale(10i128.pow(k), sd);
        if let Some(got) = round_product_over(a, b, divisor, places, mode) {
            let product = a.checked_mul(b).expect("an exact product");
            let quotient = Num::Dec(product)
                .arith(crate::expr::BinOp::Div, Num::Dec(divisor))
                .expect("a quotient");
            alike(got, round_value(quotient, places, mode).expect("a rounding"))?;
        }
    }
}

#[test]
fn a_payslip_line_rounds_in_one_step() {
    let line = |a: &str, b: &str| round_product_over(d(a), d(b), d("100"), 2, RoundingMode::HalfUp);
    assert_eq!(
        line("3477.91", "13.00").map(|r| r.to_string()),
        Some("452.13".into())
    );
    assert_eq!(
        line("3477.91", "6.90").map(|r| r.to_string()),
        Some("239.98".into())
    );
    assert_eq!(
        line("-2.50", "1").map(|r| r.to_string()),
        Some("-0.03".into())
    );
    // Zeros, a product too small for a cent included, are unsigned, as the
    // three steps leave them.
    for (a, b) in [("0.01", "0.5"), ("-0.01", "0.5"), ("-2.50", "0")] {
        let zero = line(a, b).expect("a word-sized line");
        assert_eq!(
            (zero.to_string(), zero.is_sign_negative()),
            ("0.00".into(), false)
        );
        let three = round_value(
            crate::num::exact::Num::Dec(d(a) * d(b))
                .arith(
                    crate::expr::BinOp::Div,
                    crate::num::exact::Num::Dec(d("100")),
                )
                .expect("a quotient"),
            2,
            RoundingMode::HalfUp,
        )
        .expect("a rounding");
        assert_eq!(
            (three.to_string(), three.is_sign_negative()),
            ("0.00".into(), false)
        );
    }
    // So is a divisor whose digits are not a power of ten.
    assert_eq!(
        round_product_over(d("3"), d("4"), d("151.67"), 2, RoundingMode::HalfUp),
        None
    );
}
