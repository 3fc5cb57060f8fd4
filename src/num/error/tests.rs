//! Tests of arithmetic errors: each cause keeps its message and code.

use super::*;
use crate::num::exact::{ratio, Num};
use crate::num::rounding::round_num;
use crate::num::{arith, RoundingMode};

#[test]
fn division_by_zero_names_its_dividend_and_code() {
    let e = arith(BinOp::Div, Decimal::new(125, 2), Decimal::ZERO).unwrap_err();
    assert_eq!(e.code(), "num::division_by_zero");
    assert_eq!(e.to_string(), "division by zero (1.25 / 0)");
    let third = ratio(1, 3).unwrap();
    let e = third
        .arith(BinOp::Div, Num::Dec(Decimal::ZERO))
        .unwrap_err();
    assert_eq!(e.to_string(), "division by zero (1/3 / 0)");
    assert_eq!(ratio(7, 0).unwrap_err().to_string(), "division by zero");
}

#[test]
fn overflow_and_range_keep_their_messages() {
    let e = arith(BinOp::Mul, Decimal::MAX, Decimal::TWO).unwrap_err();
    assert_eq!(e.code(), "num::overflow");
    assert_eq!(
        e.to_string(),
        "79228162514264337593543950335 * 2 overflows the exact decimal range"
    );
    let e = arith(BinOp::Eq, Decimal::ONE, Decimal::ONE).unwrap_err();
    assert_eq!(
        (e.code(), e.to_string().as_str()),
        ("num::not_arithmetic", "`==` is not arithmetic")
    );
    // 10^20/3 at 28 places is scaled to 10^48/3, past the 128-bit range.
    let huge = ratio(10i128.pow(20), 3).unwrap();
    let e = round_num(huge, 28, RoundingMode::HalfUp).unwrap_err();
    assert_eq!(e, NumError::OutOfRange);
    assert_eq!(e.code(), "num::out_of_range");
    assert_eq!(
        e.to_string(),
        "the exact value exceeds the range of exact arithmetic"
    );
}
