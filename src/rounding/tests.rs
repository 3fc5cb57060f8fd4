//! Tests of rounding modes and margins.

use super::*;
use std::str::FromStr;

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
