//! Numbers: exact decimal arithmetic, exact fractions and rounding points.
//!
//! The bottom layer of the engine. [`arith`] is checked decimal arithmetic;
//! [`exact`] keeps a quotient that no finite decimal holds as a fraction
//! until a rounding point; [`rounding`] rounds and measures each rounding's
//! margin; [`whole_power`] is `x^n` as the nearest decimal. Nothing here
//! knows about rulebooks, values or cases.

use rust_decimal::{Decimal, RoundingStrategy};
use serde::Serialize;

mod decimal;
mod error;
pub mod exact;
mod power;
pub mod rounding;

pub use decimal::{add, mul, sub};
pub use error::NumError;
pub use exact::{Frac, Num};
pub use power::{root_power, whole_power, PowerError};
pub use rounding::{round, Rounded};

/// `-d`, never a negative zero: rust_decimal's `-0.00` keeps its sign, which
/// a trace would write and a position or a comparison of texts would read,
/// while a case's `-0.00` is read as `0.00` and an answer writes `0.00`.
/// The one negation of the interpreter, exact fractions and compiled code.
#[inline]
pub fn negate(d: Decimal) -> Decimal {
    if d.is_zero() {
        let mut zero = d;
        zero.set_sign_positive(true);
        zero
    } else {
        -d
    }
}

/// How to round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RoundingMode {
    /// Nearest, ties away from zero (commercial rounding).
    HalfUp,
    /// Nearest, ties toward zero ("half a penny down").
    HalfDown,
    /// Nearest, ties to even (banker's rounding).
    HalfEven,
    /// Nearest, ties toward positive infinity.
    HalfCeiling,
    /// Nearest, ties toward negative infinity.
    HalfFloor,
    /// Toward zero (truncation).
    Down,
    /// Away from zero.
    Up,
    /// Toward negative infinity.
    Floor,
    /// Toward positive infinity.
    Ceiling,
}

impl RoundingMode {
    /// Every mode, as written in rulebooks.
    pub const NAMES: [&'static str; 9] = [
        "half_up",
        "half_down",
        "half_even",
        "half_ceiling",
        "half_floor",
        "down",
        "up",
        "floor",
        "ceiling",
    ];

    /// Parses a mode as written in rulebooks.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "half_up" => Self::HalfUp,
            "half_down" => Self::HalfDown,
            "half_even" => Self::HalfEven,
            "half_ceiling" => Self::HalfCeiling,
            "half_floor" => Self::HalfFloor,
            "down" => Self::Down,
            "up" => Self::Up,
            "floor" => Self::Floor,
            "ceiling" => Self::Ceiling,
            _ => return None,
        })
    }

    /// The name as written in rulebooks.
    pub fn name(self) -> &'static str {
        match self {
            Self::HalfUp => "half_up",
            Self::HalfDown => "half_down",
            Self::HalfEven => "half_even",
            Self::HalfCeiling => "half_ceiling",
            Self::HalfFloor => "half_floor",
            Self::Down => "down",
            Self::Up => "up",
            Self::Floor => "floor",
            Self::Ceiling => "ceiling",
        }
    }

    /// rust_decimal's strategy for a value of this sign: ties toward an
    /// infinity are ties away from or toward zero depending on the sign.
    pub(crate) fn strategy(self, negative: bool) -> RoundingStrategy {
        match self {
            Self::HalfUp => RoundingStrategy::MidpointAwayFromZero,
            Self::HalfDown => RoundingStrategy::MidpointTowardZero,
            Self::HalfEven => RoundingStrategy::MidpointNearestEven,
            Self::HalfCeiling if negative => RoundingStrategy::MidpointTowardZero,
            Self::HalfCeiling => RoundingStrategy::MidpointAwayFromZero,
            Self::HalfFloor if negative => RoundingStrategy::MidpointAwayFromZero,
            Self::HalfFloor => RoundingStrategy::MidpointTowardZero,
            Self::Down => RoundingStrategy::ToZero,
            Self::Up => RoundingStrategy::AwayFromZero,
            Self::Floor => RoundingStrategy::ToNegativeInfinity,
            Self::Ceiling => RoundingStrategy::ToPositiveInfinity,
        }
    }

    /// Whether the mode rounds to the nearest step (its boundaries are the midpoints).
    pub(crate) fn is_nearest(self) -> bool {
        matches!(
            self,
            Self::HalfUp | Self::HalfDown | Self::HalfEven | Self::HalfCeiling | Self::HalfFloor
        )
    }
}

/// Largest number of places a rounding may keep (rust_decimal's scale limit).
pub const MAX_PLACES: u32 = 28;

/// The margin written for one that is not 0 but below the 28th place (a
/// fraction a hair from a midpoint, a decimal rounded to 28 places): the
/// least a decimal holds, so that a margin of `0` always means a value on
/// a boundary.
pub const LEAST_MARGIN: rust_decimal::Decimal =
    rust_decimal::Decimal::from_parts(1, 0, 0, false, MAX_PLACES);

/// `a + b`, `a - b`, `a * b`, `a / b`, checked: `+ - *` exact ([`add`]),
/// or an overflow for exact fractions to carry on from.
pub fn arith(op: crate::expr::BinOp, a: Decimal, b: Decimal) -> Result<Decimal, NumError> {
    use crate::expr::BinOp::*;
    let res = match op {
        Add => add(a, b),
        Sub => sub(a, b),
        Mul => mul(a, b),
        Div => {
            if b.is_zero() {
                return Err(NumError::DivisionByZero(Some(a.to_string())));
            }
            a.checked_div(b)
        }
        _ => return Err(NumError::NotArithmetic(op)),
    };
    res.ok_or(NumError::Overflow {
        left: a,
        op,
        right: b,
    })
}
