//! Tests of exact fractions.

use super::*;
use crate::expr::BinOp;
use std::str::FromStr;

fn d(s: &str) -> Num {
    Num::Dec(Decimal::from_str(s).expect("test decimal"))
}

#[test]
fn finite_quotients_stay_decimal() {
    assert_eq!(d("3").arith(BinOp::Div, d("8")), Ok(d("0.375")));
    assert_eq!(
        d("1").arith(BinOp::Div, d("3")).map(|n| n.to_string()),
        Ok("1/3".into())
    );
    assert_eq!(parse_fraction("3/8"), Some(d("0.375")));
    assert_eq!(
        parse_fraction("2/6").map(|n| n.to_string()),
        Some("1/3".into())
    );
    assert_eq!(parse_fraction("1"), Some(d("1")));
    assert_eq!(parse_fraction("0.25"), Some(d("0.25")));
    assert_eq!(parse_fraction("1/0"), None);
    assert_eq!(parse_fraction("-1/3"), None);
    // A plain decimal may carry a sign (format §4.6); a zero loses it.
    assert_eq!(parse_fraction("-0.5"), Some(d("-0.5")));
    assert_eq!(
        parse_fraction("-0.0").map(|n| n.to_string()),
        Some("0.0".into())
    );
    assert_eq!(parse_fraction("--1"), None);
    assert_eq!(parse_fraction("-"), None);
    assert_eq!(parse_fraction("-.5"), None);
    assert_eq!(parse_fraction(" 1/3"), None);
}

#[test]
fn a_third_lands_exactly_on_the_half_euro() {
    // 1.50 × 1/3 = 0.50 exactly: half-up gives 1, where 28-digit decimals give 0.4999…
    let third = parse_fraction("1/3").expect("fraction");
    let share = d("1.50").arith(BinOp::Mul, third).expect("exact");
    assert_eq!(share, d("0.5"));
    // 100000.50 / 3 = 33333.5 exactly: a decimal, on the boundary, rounded up.
    assert_eq!(d("100000.50").arith(BinOp::Mul, third), Ok(d("33333.5")));
    let Num::Frac(x) = d("100001").arith(BinOp::Mul, third).expect("exact") else {
        panic!("not a fraction")
    };
    assert_eq!(x.to_string(), "100001/3");
    let (after, margin) = round_frac(x, 0, RoundingMode::HalfUp).expect("rounds");
    assert_eq!(
        (after.to_string(), margin.to_string()),
        ("33334".into(), "0.1666666666666666666666666667".into())
    );
}

#[test]
fn fractions_compare_and_add_exactly() {
    let third = parse_fraction("1/3").expect("fraction");
    let sum = third
        .arith(BinOp::Add, third)
        .and_then(|s| s.arith(BinOp::Add, third))
        .expect("exact");
    assert_eq!(sum, d("1"));
    assert_eq!(
        third.cmp_exact(d("0.3333333333333333333333333333")),
        Ok(Ordering::Greater)
    );
    let (after, _) = round_frac(Frac { num: -7, den: 3 }, 0, RoundingMode::HalfUp).expect("rounds");
    assert_eq!(after.to_string(), "-2");
    let (after, _) = round_frac(Frac { num: 5, den: 3 }, 2, RoundingMode::Down).expect("rounds");
    assert_eq!(after.to_string(), "1.66");
}

/// Cross products past 128 bits still give the order (they faulted
/// "cannot compare"): by hand, 852862730054528/111111111111 is
/// 7675.76457049842776457049842776…, below the 28-place decimal by about
/// 2.35e-25, and 10^11/3 is far above 0.1234….
#[test]
fn wide_fractions_compare_exactly() {
    let wide = d("7675764570490752")
        .arith(BinOp::Div, d("999999999999"))
        .expect("a fraction");
    assert!(matches!(wide, Num::Frac(_)));
    let near = d("7675.764570498427764570498428");
    assert_eq!(wide.cmp_exact(near), Ok(Ordering::Less));
    assert_eq!(near.cmp_exact(wide), Ok(Ordering::Greater));
    assert_eq!(wide.cmp_exact(wide), Ok(Ordering::Equal));
    let third = d("100000000000")
        .arith(BinOp::Div, d("3"))
        .expect("a fraction");
    let small = d("0.1234567890123456789012345678");
    assert_eq!(third.cmp_exact(small), Ok(Ordering::Greater));
    assert_eq!((-third).cmp_exact(small), Ok(Ordering::Less));
}

#[test]
fn prorated_amounts_stay_in_range() {
    // 1823.03 × 86.67 / 151.67 × 7 / 28: a level-4 reference SMIC.
    let steps = [("*", "86.67"), ("/", "151.67"), ("*", "7"), ("/", "28")];
    let mut x = d("1823.03");
    for (op, y) in steps {
        let op = if op == "*" { BinOp::Mul } else { BinOp::Div };
        x = x
            .arith(op, d(y))
            .unwrap_or_else(|e| panic!("{e} at {op:?} {y}"));
    }
    assert_eq!(x.to_string(), "1580020101/6066800");
}

#[test]
fn quotients_by_powers_of_ten_are_those_of_rust_decimal_but_for_zero() {
    for (a, b, expected) in [
        ("8518.4640", "100", "85.184640"),
        ("12.5", "10", "1.250"),
        ("1.000", "10", "0.100"),
        ("1.0", "100", "0.010"),
        ("-5.50", "100", "-0.0550"),
        // rust_decimal gives a bare 0: a zero keeps the places (`zero_quotient`).
        ("0.00", "100", "0.00"),
        ("98.25", "-100", "-0.9825"),
    ] {
        let (a, b) = (
            Decimal::from_str(a).expect("decimal"),
            Decimal::from_str(b).expect("decimal"),
        );
        let q = quotient_by_power_of_ten(a, b).expect("a fast quotient");
        assert_eq!(q.to_string(), expected);
    }
    assert_eq!(
        quotient_by_power_of_ten(Decimal::ONE, Decimal::from(3)),
        None
    );
}

proptest::proptest! {
    /// Same digits and same scale as the general division, whenever the fast
    /// path answers.
    #[test]
    fn power_of_ten_quotient_matches_checked_div(
        mantissa in -(1i128 << 96) + 1..(1i128 << 96),
        scale in 0u32..=28,
        k in 0u32..=9,
        divisor_scale in 0u32..=28,
        negative in proptest::bool::ANY,
        size in 0u32..3,
    ) {
        // Small, word-sized and full-width dividends take different roads.
        let mantissa = match size {
            0 => mantissa % 1_000_000_000,
            1 => mantissa % (1i128 << 64),
            _ => mantissa,
        };
        let a = Decimal::from_i128_with_scale(mantissa, scale);
        let pow = 10i128.pow(k);
        let b = Decimal::from_i128_with_scale(if negative { -pow } else { pow }, divisor_scale);
        if let Some(q) = quotient_by_power_of_ten(a, b) {
            // A zero keeps the places an exact quotient has; rust_decimal's is bare.
            let general = if a.is_zero() {
                zero_quotient(a, b)
            } else {
                a.checked_div(b).expect("a quotient")
            };
            proptest::prop_assert_eq!(q, general);
            proptest::prop_assert_eq!(q.scale(), general.scale());
            proptest::prop_assert_eq!(q.to_string(), general.to_string());
        }
    }
}

proptest::proptest! {
    /// The word road of `gcd` agrees with Euclid's algorithm on any terms.
    #[test]
    fn gcd_is_euclids(a in proptest::num::i128::ANY, b in proptest::num::i128::ANY, small in 0u32..3) {
        let (a, b) = match small {
            0 => (a % 1_000_000_007, b % 1_000_000_007),
            1 => (a >> 64, b >> 70),
            _ => (a, b),
        };
        let (mut x, mut y) = (a.unsigned_abs(), b.unsigned_abs());
        while y != 0 {
            (x, y) = (y, x % y);
        }
        proptest::prop_assert_eq!(gcd(a, b), x as i128);
    }
}

#[test]
fn fractions_round_by_each_tie_rule_on_their_side_of_the_midpoint() {
    // 2/3 = 0.666…: above the midpoint 0.5, so every nearest mode gives 1
    // and -2/3 gives -1; 1/3 gives 0 under every nearest mode.
    for mode in [
        RoundingMode::HalfDown,
        RoundingMode::HalfCeiling,
        RoundingMode::HalfFloor,
    ] {
        let at = |num| {
            round_frac(Frac { num, den: 3 }, 0, mode)
                .expect("rounds")
                .0
                .to_string()
        };
        assert_eq!(
            (at(2), at(-2), at(1), at(-1)),
            ("1".into(), "-1".into(), "0".into(), "0".into()),
            "{mode:?}"
        );
        // Margin: |2/3 − 1/2| = 1/6, written to the nearest decimal.
        let (_, margin) = round_frac(Frac { num: 2, den: 3 }, 0, mode).expect("rounds");
        assert!(
            margin.to_string().starts_with("0.16666"),
            "{mode:?} {margin}"
        );
    }
}

#[test]
fn wide_fractions_come_to_their_nearest_decimal() {
    // A 4-place rate times a 28-place power: 32 places, terms over 96 bits.
    let wide = |num: i128, den: i128| Frac { num, den }.approx().map(|d| d.to_string());
    assert_eq!(
        wide(3242160661013237174790552530583, 10i128.pow(32)),
        Some("0.0324216066101323717479055253".into())
    );
    // …0944746|9417: the last digit rounds up.
    assert_eq!(
        wide(-283933898676282520944746941700000, 10i128.pow(37)),
        Some("-0.0000283933898676282520944747".into())
    );
    assert_eq!(
        wide(2 * 10i128.pow(31) + 3, 6 * 10i128.pow(30)),
        Some("3.3333333333333333333333333333".into())
    );
    // A quotient past a decimal's range has none.
    assert_eq!(wide(10i128.pow(38), 3), None);
}

#[test]
fn a_fraction_says_why_no_decimal_holds_it() {
    let why = |num: i128, den: i128| Frac { num, den }.why_not_decimal();
    assert_eq!(why(1, 3), "no finite decimal form");
    assert_eq!(why(7, 60), "no finite decimal form");
    assert_eq!(
        why(1, 10i128.pow(32)),
        "more digits than a decimal holds (28 places, 96 bits)"
    );
    assert_eq!(
        why(3, 2i128.pow(100)),
        "more digits than a decimal holds (28 places, 96 bits)"
    );
}

#[test]
fn a_finite_quotient_wider_than_a_decimal_stays_a_fraction() {
    // 53,000.(23 places) × 0.3821: 27 places, digits over 96 bits. It was
    // the error "exceeds the range of exact arithmetic".
    let wide = 20_251_234_567_890_123_456_789_012_345i128 * 3821;
    let n = ratio(wide, 10i128.pow(27)).expect("in range");
    assert!(matches!(n, Num::Frac(_)), "{n}");
    assert_eq!(
        n.approx().map(|d| d.to_string()),
        Some("77379.967283908161728390816170".into())
    );
    // Narrow enough, the same quotient is a decimal.
    assert_eq!(
        ratio(3821, 10i128.pow(27)),
        Ok(d("0.000000000000000000000003821"))
    );
}

#[test]
fn a_zero_quotient_keeps_the_places_of_an_exact_one() {
    let q = |a: &str, b: &str| d(a).arith(BinOp::Div, d(b)).map(|n| n.to_string());
    assert_eq!(q("2.00", "2"), Ok("1.00".into()));
    assert_eq!(q("0.00", "2"), Ok("0.00".into()));
    assert_eq!(q("0.00", "100"), Ok("0.00".into()));
    assert_eq!(q("0.000", "0.5"), Ok("0.00".into()));
    assert_eq!(q("0", "0.03"), Ok("0".into()));
    assert_eq!(q("0", "3"), Ok("0".into()));
}

/// A finite value too long for a decimal is written as every digit of
/// it, and read back as the same fraction; a value with no finite form
/// keeps `P/Q`.
#[test]
fn a_finite_fraction_is_written_in_full_and_read_back() {
    let den = 10i128.pow(32);
    let rgdu = ratio(3_242_160_661_013_237_174_790_552_530_583, den).expect("in range");
    assert!(matches!(rgdu, Num::Frac(_)), "32 places: {rgdu:?}");
    assert_eq!(rgdu.to_string(), "0.03242160661013237174790552530583");
    assert_eq!(parse_decimal_exact(&rgdu.to_string()), Some(rgdu));

    // A denominator of twos alone: 1/2^39 has 39 places, its mantissa 5^39.
    let tiny = ratio(1, 1i128 << 39).expect("in range");
    assert_eq!(
        tiny.to_string(),
        "0.000000000001818989403545856475830078125"
    );
    assert_eq!(parse_decimal_exact(&tiny.to_string()), Some(tiny));
    // Negative, with a whole part: 3 + 1/2^100 needs a mantissa of
    // 3·10^100, over 128 bits, so it keeps P/Q (which reads back).
    let x = ratio(-(3 * (1i128 << 100) + 1), 1i128 << 100).expect("in range");
    assert_eq!(
        x.to_string(),
        format!("-{}/{}", 3 * (1i128 << 100) + 1, 1i128 << 100)
    );
    let y = ratio(-(3 * 10i128.pow(31) + 1), 10i128.pow(31)).expect("in range");
    assert_eq!(y.to_string(), "-3.0000000000000000000000000000001");
    assert_eq!(parse_decimal_exact(&y.to_string()), Some(y));

    let small = ratio(-7, 10i128.pow(30)).expect("in range");
    assert_eq!(small.to_string(), "-0.000000000000000000000000000007");
    assert_eq!(
        parse_decimal_exact("-0.000000000000000000000000000007"),
        Some(small)
    );

    assert_eq!(ratio(1, 3).map(|n| n.to_string()), Ok("1/3".into()));
    // A decimal a `Decimal` holds is read as one; trailing zeros past 28
    // places read as the value they write.
    assert_eq!(parse_decimal_exact("0.25"), Some(d("0.25")));
    assert_eq!(
        parse_decimal_exact("0.10000000000000000000000000000000"),
        Some(d("0.1"))
    );
    let long = "0.0000000000000000000000000000001";
    assert!(parse_decimal_exact(long).is_some());
    for bad in [
        "",
        "1.2.3",
        "1e5",
        "١٢",
        &format!("+{long}"),
        &format!("{long}x"),
        &format!(".{long}"),
        &format!("{long}.5"),
        &format!("-{long}").replace("0.", "."),
        "1234567890123456789012345678901234567890.5",
    ] {
        assert_eq!(parse_decimal_exact(bad), None, "{bad:?}");
    }
}

proptest::proptest! {
    /// Every finite fraction written as a decimal reads back as itself, and
    /// its text is a decimal exactly when its mantissa fits 128 bits.
    #[test]
    fn a_finite_fraction_reads_back_from_its_text(
        num in -(1i128 << 100)..(1i128 << 100),
        twos in 0u32..=90,
        fives in 0u32..=50,
    ) {
        let Some(den) = 2i128.checked_pow(twos).and_then(|t| t.checked_mul(5i128.checked_pow(fives)?)) else {
            return Ok(());
        };
        let Ok(x) = ratio(num, den) else { return Ok(()) };
        let text = x.to_string();
        // A mantissa over 128 bits keeps `P/Q`, as any other fraction.
        if !text.contains('/') {
            proptest::prop_assert_eq!(parse_decimal_exact(&text), Some(x), "{}", text);
            // The decimal's digits are exactly num / den.
            let unsigned = text.trim_start_matches('-');
            let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
            let digits: String = format!("{whole}{fraction}");
            let m: i128 = digits.parse().expect("digits");
            let k = u32::try_from(fraction.len()).expect("places");
            if let Some(p) = 10i128.checked_pow(k) {
                proptest::prop_assert_eq!(ratio(if num < 0 { -m } else { m }, p).ok(), Some(x));
            }
        }
    }
}

/// A product with more digits than exact arithmetic holds names its
/// operands and the remedy; a value too large for any decimal keeps the
/// plain message, as rounding would not help it.
#[test]
fn too_many_digits_is_told_from_too_large() {
    // A 27-place `pow` result, times itself after a product with money.
    let growth = d("1.024695076595959838322103868");
    let once = d("1000.00")
        .arith(BinOp::Mul, growth)
        .expect("25 places fit");
    let e = once.arith(BinOp::Mul, growth).unwrap_err();
    assert_eq!(e.code(), "num::too_many_digits");
    assert_eq!(
        e.to_string(),
        "1024.6950765959598383221038680 * 1.024695076595959838322103868: the exact value \
         exceeds the range of exact arithmetic (128-bit fractions); round an operand first"
    );
    let huge = d("79228162514264337593543950335");
    assert_eq!(huge.arith(BinOp::Mul, d("10")), Err(NumError::OutOfRange));
    assert_eq!(huge.arith(BinOp::Add, huge), Err(NumError::OutOfRange));
}

/// Divisions and roundings whose terms overflow on the way but whose result
/// a decimal holds give it (hostile probe: each was "exceeds the range").
#[test]
fn wide_terms_on_the_way_do_not_fault_a_result_that_fits() {
    // 100 / 0.3333333333333333333333333333 = 300 / (1 − 10^-28)
    //   = 300.00000000000000000000000003000…
    let q = d("100")
        .arith(BinOp::Div, d("0.3333333333333333333333333333"))
        .expect("exact");
    let Num::Frac(x) = q else {
        panic!("not a fraction")
    };
    let at = |places, mode| round_frac(x, places, mode).map(|(a, _)| a.to_string());
    assert_eq!(at(10, RoundingMode::HalfUp), Ok("300.0000000000".into()));
    assert_eq!(at(10, RoundingMode::Ceiling), Ok("300.0000000001".into()));
    let below = Frac {
        num: -x.num,
        den: x.den,
    };
    let (after, _) = round_frac(below, 10, RoundingMode::Floor).expect("rounds");
    assert_eq!(after.to_string(), "-300.0000000001");
    let (after, _) = round_frac(below, 10, RoundingMode::HalfUp).expect("rounds");
    assert_eq!(after.to_string(), "-300.0000000000");
    // 28 places are 31 digits: the same value with its trailing zeros dropped.
    assert_eq!(
        at(28, RoundingMode::HalfEven),
        Ok("300.00000000000000000000000003".into())
    );
    // 1/30000000000 at 28 places: the margin's denominator is past 10^38.
    let (after, margin) = round_frac(
        Frac {
            num: 1,
            den: 30_000_000_000,
        },
        28,
        RoundingMode::HalfEven,
    )
    .expect("rounds");
    assert_eq!(after.to_string(), "0.0000000000333333333333333333");
    // 0.333… of the last unit is 1/6 from the midpoint: 1/6 × 10^-28, below
    // a decimal's least unit, and written as that unit (never 0, a tie's).
    assert_eq!(margin.to_string(), "0.0000000000000000000000000001");
    // A divisor written with trailing zeros is the same number.
    assert_eq!(
        d("1042415252.645")
            .arith(BinOp::Div, d("2.000000000000000000000000000"))
            .map(|n| n.to_string()),
        Ok("521207626.32250".into())
    );
    assert_eq!(
        d("-1042415252.645")
            .arith(BinOp::Div, d("3.000000000000000000000000000"))
            .map(|n| n.to_string()),
        Ok("-208483050529/600".into())
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

    /// The long roads give what the short ones do wherever both can run.
    #[test]
    fn the_long_roads_agree_with_the_short_ones(
        num in -1_000_000_000_000i128..1_000_000_000_000,
        den in 2i128..1_000_000_000_000,
        places in 0u32..=20,
    ) {
        let g = gcd(num, den).max(1);
        let x = Frac { num: num / g, den: den / g };
        proptest::prop_assume!(x.den > 1);
        let short = scaled_floor(x, places);
        proptest::prop_assert!(x.num.checked_mul(pow10(places).unwrap()).is_some());
        proptest::prop_assert_eq!(long_scaled_floor(x, places), short.clone());
        let (r, d) = (short.expect("fits").1.unsigned_abs(), x.den.unsigned_abs());
        let exact = margin_of(r.min(d - r), d, places);
        let wide = wide_margin(r.min(d - r), d, places);
        // The same to 27 digits: the wide road drops no bit of terms this small.
        proptest::prop_assert!((exact - wide).abs() <= Decimal::new(1, 27).max(exact.abs() / Decimal::from(1_000_000_000_000_000_000_000_000u128)), "{} {}", exact, wide);
    }
}

/// A sum whose terms' cross products overflow but whose value a fraction
/// holds is given (hostile probe: `999999999999.999999999 + 10^-18` was
/// "exceeds the range"), and rounds as the rule says.
#[test]
fn a_sum_is_taken_over_the_least_common_denominator() {
    let (a, b) = (d("999999999999.999999999"), d("0.000000000000000001"));
    for (x, y) in [(a, b), (b, a)] {
        let sum = x.arith(BinOp::Add, y).expect("the sum fits");
        assert_eq!(sum.to_string(), "999999999999.999999999000000001");
        let Num::Frac(f) = sum else {
            panic!("30 digits are no decimal")
        };
        let (rounded, _) = round_frac(f, 2, RoundingMode::HalfUp).expect("rounds");
        assert_eq!(rounded.to_string(), "1000000000000.00");
    }
    let diff = a.arith(BinOp::Sub, b).expect("the difference fits");
    assert_eq!(diff.to_string(), "999999999999.999999998999999999");
    // 123456789012345.123456789 + 987654321.987654321987654321
    let sum = d("123456789012345.123456789")
        .arith(BinOp::Add, d("987654321.987654321987654321"))
        .expect("the sum fits");
    assert_eq!(sum.to_string(), "123457776666667.111111110987654321");
    // A quotient is cross-reduced too: (10^20/3) / (10^20/7) = 7/3.
    let (p, q) = (ratio(10i128.pow(20), 3), ratio(10i128.pow(20), 7));
    let (p, q) = (p.expect("a fraction"), q.expect("a fraction"));
    assert_eq!(
        p.arith(BinOp::Div, q).map(|n| n.to_string()),
        Ok("7/3".into())
    );
}

proptest::proptest! {
    /// Over the least common denominator, `+`, `-` and `/` give what the
    /// cross products gave wherever those fit.
    #[test]
    fn sums_and_quotients_agree_with_cross_products(
        a in -1_000_000_000_000i128..1_000_000_000_000,
        b in 1i128..1_000_000_000,
        c in -1_000_000_000_000i128..1_000_000_000_000,
        e in 1i128..1_000_000_000,
    ) {
        let (x, y) = (ratio(a, b).expect("fits"), ratio(c, e).expect("fits"));
        proptest::prop_assert_eq!(x.arith(BinOp::Add, y), ratio(a * e + c * b, b * e));
        proptest::prop_assert_eq!(x.arith(BinOp::Sub, y), ratio(a * e - c * b, b * e));
        if c != 0 {
            proptest::prop_assert_eq!(x.arith(BinOp::Div, y), ratio(a * e, b * c));
        }
    }
}
