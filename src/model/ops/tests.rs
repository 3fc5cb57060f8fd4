//! Tests of the pure operations: powers, scales, calendar.

use super::*;
use std::str::FromStr;

fn d(s: &str) -> Decimal {
    Decimal::from_str(s).expect("test decimal")
}

#[test]
fn powers() {
    assert_eq!(
        pow(d("1.5"), d("2")).map(|v| v.to_string()),
        Ok("2.25".into())
    );
    assert_eq!(
        pow(d("2"), d("-2")).map(|v| v.to_string()),
        Ok("0.25".into())
    );
    assert_eq!(
        pow(d("16"), d("0.25")).map(|v| v.round_dp(20).normalize().to_string()),
        Ok("2".into())
    );
    // 1.5^1.75 = fourth root of 1.5^7 = 17.0859375 = 2.0331045081221508719…
    let v = pow(d("1.5"), d("1.75")).expect("pow");
    assert_eq!(v.round_dp(12).to_string(), "2.033104508122");
    assert!(pow(d("-2"), d("0.5")).is_err());
    assert!(pow(d("10"), d("100000")).is_err());
}

#[test]
fn scales_go_band_by_band() {
    let bands = [
        (Some(d("8072")), d("0.05")),
        (Some(d("12109")), d("0.10")),
        (None, d("0.20")),
    ];
    let (total, lines) = scale(&bands, Num::Dec(d("20000")), None).expect("scale");
    // 403.6 + 403.7 + 1578.2
    assert_eq!(total.to_string(), "2385.50");
    // A third of a euro above the first band is taxed exactly.
    let third = crate::num::exact::parse_fraction("24217/3").expect("fraction");
    assert_eq!(
        scale(&bands, third, None).map(|r| r.0.to_string()),
        Ok("12109/30".into())
    );
    assert_eq!(lines.len(), 3);
    assert_eq!(
        scale(&bands, Num::Dec(d("0")), None).map(|r| r.0),
        Ok(Num::Dec(Decimal::ZERO))
    );
}

#[test]
fn calendar() {
    let date = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").expect("date");
    assert_eq!(age(date("1948-02-11"), date("2026-02-10")), Ok(77));
    assert_eq!(age(date("1948-02-11"), date("2026-02-11")), Ok(78));
    assert_eq!(add_years(date("2024-02-29"), -15), Some(date("2009-02-28")));
    // Born on 29 February: a common year's birthday is 1 March for `age`,
    // 28 February for `add_years` (docs/rulebook-format.md says both).
    assert_eq!(age(date("2024-02-29"), date("2025-02-28")), Ok(0));
    assert_eq!(age(date("2024-02-29"), date("2025-03-01")), Ok(1));
    assert_eq!(add_years(date("2024-02-29"), 1), Some(date("2025-02-28")));
    assert_eq!(
        add_months_date(date("2026-01-31"), 1),
        Some(date("2026-02-28"))
    );
}

#[test]
fn rounding_each_band_is_a_different_reading() {
    let bands = [(Some(d("8072")), d("0.05")), (None, d("0.10"))];
    // 0.05 × 8072 = 403.6 and 0.10 × 0.5 = 0.05: exact total 403.65, bands rounded 404 + 0 = 404.
    let x = Num::Dec(d("8072.5"));
    assert_eq!(
        scale(&bands, x, None).map(|r| r.0.to_string()),
        Ok("403.650".into())
    );
    assert_eq!(
        scale(&bands, x, Some(0)).map(|r| r.0.to_string()),
        Ok("404".into())
    );
}

/// The fast square root settles where rust_decimal's own iteration does, or
/// within one unit of the 28th digit, from tiny to huge arguments.
#[test]
fn square_root_matches_full_precision() {
    use rust_decimal::MathematicalOps;
    for text in [
        "2",
        "0.5",
        "1.5",
        "0.0000000000000000000000000001",
        "0.2083333333333333333333333333",
        "3.9999999999999999999999999999",
        "1234567.89",
        "79228162514264337593543950335",
        "0.01",
        "100",
        "7.0859375",
    ] {
        let x = d(text);
        let ours = sqrt(x).expect("a square root");
        let theirs = x.sqrt().expect("rust_decimal's square root");
        let unit = Decimal::new(1, ours.scale().max(theirs.scale()));
        assert!(
            (ours - theirs).abs() <= unit,
            "√{text}: {ours} against {theirs}"
        );
    }
    assert_eq!(sqrt(d("6.25")), Some(d("2.5")));
    assert_eq!(sqrt(d("0")), Some(Decimal::ZERO));
    assert_eq!(sqrt(d("-1")), None);
}

/// A negative power whose magnitude rounds to zero overflows; it is no
/// division by zero that the rulebook wrote.
#[test]
fn a_vanishing_power_with_a_negative_exponent_overflows() {
    assert_eq!(
        pow(d("0.5"), d("-4096")),
        Err("0.5^-4096 overflows the exact decimal range".into())
    );
    assert_eq!(
        pow(d("0.5"), d("-1024.5")),
        Err("0.5^-1024.5 overflows the exact decimal range".into())
    );
    assert_eq!(pow(d("0"), d("-2")), Err("division by zero (1 / 0)".into()));
}
