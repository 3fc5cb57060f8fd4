//! Why an exact operation on numbers has no result.
//!
//! One error for the whole numeric layer, so the interpreter, compiled code
//! and the rulebook front end read the same causes. Its `Display` is the
//! fault message an evaluation prints (and traces and snapshots hold), so
//! each text is kept exactly as it was when these were strings.

use rust_decimal::Decimal;
use std::fmt;

use crate::expr::BinOp;

/// Why an exact operation on numbers failed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NumError {
    /// A division by zero: the dividend as written when the operation
    /// knows it (`division by zero (5 / 0)`, a fraction as `1/3`), none for
    /// a bare ratio. Text, not a `Num`, so this file needs nothing of
    /// `exact`, which needs it.
    DivisionByZero(Option<String>),
    /// An operator that is not arithmetic was given to an arithmetic
    /// operation (a caller's mistake, never a rulebook's).
    NotArithmetic(BinOp),
    /// A decimal operation whose exact result leaves rust_decimal's range.
    Overflow {
        /// The left operand.
        left: Decimal,
        /// The operator.
        op: BinOp,
        /// The right operand.
        right: Decimal,
    },
    /// An exact fraction whose terms leave the 128-bit integer range.
    OutOfRange,
    /// `+ - × /` whose exact result leaves the 128-bit fraction range:
    /// most often a product of long decimals (a 28-place `pow` squared has
    /// 56 places). The operands as written, so the author sees which to
    /// round.
    TooManyDigits {
        /// The left operand.
        left: String,
        /// The operator.
        op: BinOp,
        /// The right operand.
        right: String,
    },
}

impl NumError {
    /// A stable code: `num.division_by_zero`, `num.not_arithmetic`,
    /// `num.overflow`, `num.out_of_range`.
    pub fn code(&self) -> &'static str {
        match self {
            NumError::DivisionByZero(_) => "num::division_by_zero",
            NumError::NotArithmetic(_) => "num::not_arithmetic",
            NumError::Overflow { .. } => "num::overflow",
            NumError::OutOfRange => "num::out_of_range",
            NumError::TooManyDigits { .. } => "num::too_many_digits",
        }
    }
}

impl fmt::Display for NumError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NumError::DivisionByZero(Some(n)) => write!(f, "division by zero ({n} / 0)"),
            NumError::DivisionByZero(None) => f.write_str("division by zero"),
            NumError::NotArithmetic(op) => write!(f, "`{}` is not arithmetic", op.symbol()),
            NumError::Overflow { left, op, right } => write!(
                f,
                "{left} {} {right} overflows the exact decimal range",
                op.symbol()
            ),
            NumError::OutOfRange => {
                f.write_str("the exact value exceeds the range of exact arithmetic")
            }
            NumError::TooManyDigits { left, op, right } => write!(
                f,
                "{left} {} {right}: the exact value exceeds the range of exact \
                 arithmetic (128-bit fractions); round an operand first",
                op.symbol()
            ),
        }
    }
}

impl std::error::Error for NumError {}

#[cfg(test)]
mod tests;
