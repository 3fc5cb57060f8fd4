//! Amounts in replies: exact decimals read from JSON numbers and strings
//! without ever evaluating what was written.
//!
//! An [`Amount`] is a decimal as canonical text (no leading zeros, no
//! trailing fractional zeros, no negative zero), so equality of amounts is
//! equality of values, for any number of digits, with no overflow. A JSON
//! number is judged as written when it is plain (`3582.690` has three
//! decimals) and by value when it has an exponent (`358269e-2`), the
//! exponent's length bounded before it is read; a string holds one amount
//! written as a French reader writes it (`"1 234,56 €"`) when a rubric
//! allows strings.
//!
//! Invariant: every reader is linear in its text and builds no digit string
//! longer than the text or [`MAX_SCALED_DIGITS`].

use std::cmp::Ordering;
use std::fmt;

/// The most digits an exponent form may expand to on either side of the
/// point before it is refused as out of range.
pub const MAX_SCALED_DIGITS: usize = 40;

/// An exact decimal, canonical.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Amount {
    neg: bool,
    int: String,
    frac: String,
}

impl Amount {
    /// From a sign and digit strings (ASCII digits only).
    pub fn from_parts(neg: bool, int: &str, frac: &str) -> Amount {
        let int = int.trim_start_matches('0');
        let frac = frac.trim_end_matches('0');
        let zero = int.is_empty() && frac.is_empty();
        Amount {
            neg: neg && !zero,
            int: if int.is_empty() {
                "0".into()
            } else {
                int.into()
            },
            frac: frac.into(),
        }
    }

    /// Zero.
    pub fn zero() -> Amount {
        Amount::from_parts(false, "0", "")
    }

    /// Whether it is zero.
    pub fn is_zero(&self) -> bool {
        self.int == "0" && self.frac.is_empty()
    }

    /// Whether it is above zero.
    pub fn is_positive(&self) -> bool {
        !self.neg && !self.is_zero()
    }

    /// Decimal places of the value (`12.50` has one).
    pub fn places(&self) -> usize {
        self.frac.len()
    }

    /// The comparison of absolute values.
    pub fn cmp_abs(&self, other: &Amount) -> Ordering {
        self.int
            .len()
            .cmp(&other.int.len())
            .then_with(|| self.int.cmp(&other.int))
            .then_with(|| self.frac.cmp(&other.frac))
    }

    /// A plain decimal `-?[0-9]+(\.[0-9]+)?` (a rulebook's written answer, a
    /// bound in a rubric file).
    pub fn plain(text: &str) -> Option<Amount> {
        let (neg, rest) = match text.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, text),
        };
        let (int, frac) = match rest.split_once('.') {
            Some((i, f)) => (i, Some(f)),
            None => (rest, None),
        };
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(int) || frac.is_some_and(|f| !digits(f)) {
            return None;
        }
        Some(Amount::from_parts(neg, int, frac.unwrap_or("")))
    }

    /// Money as a string with exactly two decimals: `[0-9]+\.[0-9]{2}`,
    /// with an optional `-` when `signed`.
    pub fn money(text: &str, signed: bool) -> Option<Amount> {
        let rest = match text.strip_prefix('-') {
            Some(r) if signed => r,
            Some(_) => return None,
            None => text,
        };
        let (int, frac) = rest.split_once('.')?;
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(int) || frac.len() != 2 || !digits(frac) {
            return None;
        }
        Some(Amount::from_parts(text.starts_with('-'), int, frac))
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.neg {
            f.write_str("-")?;
        }
        f.write_str(&self.int)?;
        if !self.frac.is_empty() {
            write!(f, ".{}", self.frac)?;
        }
        Ok(())
    }
}

/// Why a reply's number or string is not an amount the rubric accepts. Its
/// `Display` is what a graded reply's `malformed` message says of it (after
/// the field's path, and `the number N: ` for a JSON number).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AmountError {
    /// Its absolute value is above the rubric's `max_abs`.
    #[error("its absolute value is above {max}")]
    AboveMax {
        /// The bound.
        max: Amount,
    },
    /// A plain number with more decimals than the format's places.
    #[error("it has {decimals} decimals, more than {places}")]
    Decimals {
        /// Decimals written.
        decimals: usize,
        /// Most allowed.
        places: usize,
    },
    /// An integer written with more digits than `max_integer_digits`.
    #[error("an integer of {digits} digits, more than {max}")]
    IntegerDigits {
        /// Digits written.
        digits: usize,
        /// Most allowed.
        max: usize,
    },
    /// An exponent of more digits than `max_exponent_digits` (leading zeros aside).
    #[error("an exponent of {digits} digits, more than {max}")]
    ExponentDigits {
        /// Digits written.
        digits: usize,
        /// Most allowed.
        max: usize,
    },
    /// An exponent form whose value has more than [`MAX_SCALED_DIGITS`] integer digits.
    #[error("its value is out of range")]
    OutOfRange,
    /// An exponent form whose value has more decimals than the format's places.
    #[error("its value has {decimals} decimals, more than {places}")]
    ValueDecimals {
        /// Decimals of the value.
        decimals: i64,
        /// Most allowed.
        places: usize,
    },
    /// A string that is not one amount in any accepted writing.
    #[error("{text:?} is not one amount")]
    NotOneAmount {
        /// The string.
        text: String,
    },
    /// A string amount with more decimals than the format's places.
    #[error("{text:?} has {decimals} decimals, more than {places}")]
    TextDecimals {
        /// The string.
        text: String,
        /// Decimals written.
        decimals: usize,
        /// Most allowed.
        places: usize,
    },
}

impl AmountError {
    /// A stable code: `amount.above_max`, `amount.decimals`,
    /// `amount.integer_digits`, `amount.exponent_digits`,
    /// `amount.out_of_range`, `amount.value_decimals`,
    /// `amount.not_one_amount`, `amount.text_decimals`.
    pub fn code(&self) -> &'static str {
        match self {
            AmountError::AboveMax { .. } => "amount::above_max",
            AmountError::Decimals { .. } => "amount::decimals",
            AmountError::IntegerDigits { .. } => "amount::integer_digits",
            AmountError::ExponentDigits { .. } => "amount::exponent_digits",
            AmountError::OutOfRange => "amount::out_of_range",
            AmountError::ValueDecimals { .. } => "amount::value_decimals",
            AmountError::NotOneAmount { .. } => "amount::not_one_amount",
            AmountError::TextDecimals { .. } => "amount::text_decimals",
        }
    }
}

/// What an amount of a reply may be.
#[derive(Clone, Debug)]
pub struct AmountRules {
    /// Most decimals (as written for plain numbers and strings, by value for exponent forms).
    pub places: usize,
    /// Largest absolute value allowed (itself allowed).
    pub max_abs: Option<Amount>,
    /// Most digits of a JSON integer (`12345678901234` has 14).
    pub max_integer_digits: Option<usize>,
    /// Most digits of an exponent (`1e1000000` has 7).
    pub max_exponent_digits: usize,
    /// Whether a string holding one amount is allowed.
    pub strings: bool,
    /// Whether whitespace may surround the amount inside such a string.
    pub padding: bool,
}

impl Default for AmountRules {
    fn default() -> Self {
        AmountRules {
            places: 2,
            max_abs: None,
            max_integer_digits: None,
            max_exponent_digits: 6,
            strings: false,
            padding: false,
        }
    }
}

impl AmountRules {
    fn bounded(&self, amount: Amount) -> Result<Amount, AmountError> {
        match &self.max_abs {
            Some(max) if amount.cmp_abs(max) == Ordering::Greater => {
                Err(AmountError::AboveMax { max: max.clone() })
            }
            _ => Ok(amount),
        }
    }

    /// A JSON number's text (already checked against the JSON grammar).
    pub fn json_number(&self, text: &str) -> Result<Amount, AmountError> {
        let (neg, rest) = match text.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, text),
        };
        let (mantissa, exponent) = match rest.find(['e', 'E']) {
            Some(i) => (&rest[..i], Some(&rest[i + 1..])),
            None => (rest, None),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let Some(exponent) = exponent else {
            if frac.len() > self.places {
                return Err(AmountError::Decimals {
                    decimals: frac.len(),
                    places: self.places,
                });
            }
            if let Some(max) = self.max_integer_digits {
                if frac.is_empty() && mantissa.len() > max {
                    return Err(AmountError::IntegerDigits {
                        digits: int.len(),
                        max,
                    });
                }
            }
            return self.bounded(Amount::from_parts(neg, int, frac));
        };
        let (exp_neg, exp_digits) = match exponent.as_bytes().first() {
            Some(b'-') => (true, &exponent[1..]),
            Some(b'+') => (false, &exponent[1..]),
            _ => (false, exponent),
        };
        let exp_digits = exp_digits.trim_start_matches('0');
        if exp_digits.len() > self.max_exponent_digits {
            return Err(AmountError::ExponentDigits {
                digits: exp_digits.len(),
                max: self.max_exponent_digits,
            });
        }
        // At most max_exponent_digits digits, which a rubric caps at 18: an i64.
        let exp: i64 = exp_digits.parse().unwrap_or(0);
        let exp = if exp_neg { -exp } else { exp };
        // value = digits × 10^shift, digits without leading or trailing zeros.
        let all = format!("{int}{frac}");
        let trimmed = all.trim_start_matches('0');
        let digits = trimmed.trim_end_matches('0');
        if digits.is_empty() {
            return Ok(Amount::zero());
        }
        let shift = exp - frac.len() as i64 + (trimmed.len() - digits.len()) as i64;
        let int_len = digits.len() as i64 + shift;
        if int_len > MAX_SCALED_DIGITS as i64 {
            return Err(AmountError::OutOfRange);
        }
        if shift < 0 && (-shift) as usize > self.places {
            return Err(AmountError::ValueDecimals {
                decimals: -shift,
                places: self.places,
            });
        }
        let amount = if shift >= 0 {
            let int = format!("{digits}{}", "0".repeat(shift as usize));
            Amount::from_parts(neg, &int, "")
        } else {
            let places = (-shift) as usize;
            if digits.len() > places {
                let (i, f) = digits.split_at(digits.len() - places);
                Amount::from_parts(neg, i, f)
            } else {
                let f = format!("{}{digits}", "0".repeat(places - digits.len()));
                Amount::from_parts(neg, "", &f)
            }
        };
        self.bounded(amount)
    }

    /// A string holding one amount: optional `-`, digits plain or grouped in
    /// threes by a space, no-break space or narrow no-break space, 1 to
    /// `places` decimals after `.` or `,`, an optional `€` (a space of those
    /// three kinds may stand before it), whitespace around when `padding`.
    pub fn text(&self, text: &str) -> Result<Amount, AmountError> {
        let bad = || {
            Err(AmountError::NotOneAmount {
                text: text.to_string(),
            })
        };
        let is_space = |c: char| matches!(c, ' ' | '\u{a0}' | '\u{202f}');
        let is_pad = |c: char| is_space(c) || matches!(c, '\t' | '\r' | '\n');
        let s = if self.padding {
            text.trim_matches(is_pad)
        } else {
            text
        };
        let chars: Vec<char> = s.chars().collect();
        let mut i = 0;
        let neg = chars.first() == Some(&'-');
        if neg {
            i += 1;
        }
        let run = |i: usize| chars[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        let first = run(i);
        if first == 0 {
            return bad();
        }
        let mut int: String = chars[i..i + first].iter().collect();
        i += first;
        let mut grouped = false;
        while i + 4 <= chars.len() && is_space(chars[i]) && run(i + 1) == 3 {
            grouped = true;
            int.extend(&chars[i + 1..i + 4]);
            i += 4;
        }
        if grouped && first > 3 {
            return bad();
        }
        let mut frac = String::new();
        if i < chars.len() && matches!(chars[i], '.' | ',') {
            let n = run(i + 1);
            if n == 0 {
                return bad();
            }
            if n > self.places {
                return Err(AmountError::TextDecimals {
                    text: text.to_string(),
                    decimals: n,
                    places: self.places,
                });
            }
            frac.extend(&chars[i + 1..i + 1 + n]);
            i += 1 + n;
        }
        if i < chars.len() && is_space(chars[i]) && chars.get(i + 1) == Some(&'€') {
            i += 1;
        }
        if chars.get(i) == Some(&'€') {
            i += 1;
        }
        if i != chars.len() {
            return bad();
        }
        self.bounded(Amount::from_parts(neg, &int, &frac))
    }
}

#[cfg(test)]
mod tests;
