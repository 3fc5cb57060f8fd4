//! Runtime values of the expression language.
//!
//! A value is exact: numbers are `rust_decimal::Decimal`, never floats.
//! `Absent` and `Null` are both "missing" to `is_missing`, but stay distinct
//! so a trace and `is_null` can tell an omitted field from an explicit null.

use chrono::{Datelike, NaiveDate};
use rust_decimal::Decimal;
use serde::Serialize;
use std::fmt;
use std::sync::Arc;

/// The calendar bareme reads and computes in: years 0001 to 9999, the
/// years a four-digit `YYYY` writes. A date or month outside it is refused
/// as input and is a fault when a function would produce it, so every
/// value written out can be read back.
pub const CALENDAR_YEARS: std::ops::RangeInclusive<i32> = 1..=9999;

/// Parses exactly `YYYY-MM-DD` within the calendar.
pub fn parse_date(text: &str) -> Option<NaiveDate> {
    let b = text.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if b.len() != 10
        || b[4] != b'-'
        || b[7] != b'-'
        || !digits(0..4)
        || !digits(5..7)
        || !digits(8..10)
    {
        return None;
    }
    let date = NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?;
    in_calendar(date).then_some(date)
}

/// Whether a date lies within [`CALENDAR_YEARS`].
pub fn in_calendar(date: NaiveDate) -> bool {
    CALENDAR_YEARS.contains(&date.year())
}

/// A calendar month, `YYYY-MM`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Month {
    /// Year, e.g. 2026.
    pub year: i32,
    /// Month of the year, 1–12.
    pub month: u32,
}

impl Month {
    /// Parses exactly `YYYY-MM` (four-digit year within the calendar, two-digit month 01–12).
    pub fn parse(text: &str) -> Option<Month> {
        let b = text.as_bytes();
        if b.len() != 7 || b[4] != b'-' || !b[..4].iter().chain(&b[5..]).all(u8::is_ascii_digit) {
            return None;
        }
        let year = text[..4].parse().ok()?;
        let month = text[5..].parse().ok()?;
        ((1..=12).contains(&month) && CALENDAR_YEARS.contains(&year))
            .then_some(Month { year, month })
    }

    /// The month containing a date.
    pub fn of(date: NaiveDate) -> Month {
        Month {
            year: date.year(),
            month: date.month(),
        }
    }

    /// The first day of the month.
    pub fn first_day(self) -> Option<NaiveDate> {
        NaiveDate::from_ymd_opt(self.year, self.month, 1)
    }

    /// Number of days in the month.
    pub fn days(self) -> Option<u32> {
        let leap = NaiveDate::from_ymd_opt(self.year, 2, 29).is_some();
        match self.month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => Some(31),
            4 | 6 | 9 | 11 => Some(30),
            2 => Some(if leap { 29 } else { 28 }),
            _ => None,
        }
    }

    /// The month `n` months later (earlier when negative).
    pub fn plus_months(self, n: i64) -> Option<Month> {
        let index = i64::from(self.year) * 12 + i64::from(self.month) - 1 + n;
        let year = i32::try_from(index.div_euclid(12)).ok()?;
        if !CALENDAR_YEARS.contains(&year) {
            return None;
        }
        Some(Month {
            year,
            month: u32::try_from(index.rem_euclid(12)).ok()? + 1,
        })
    }
}

impl fmt::Display for Month {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}", self.year, self.month)
    }
}

/// The text `Decimal`'s `Display` writes (every digit of the scale kept, no
/// exponent), without the formatter machinery: an answer writes several
/// numbers, and through `Display` they cost more than computing them.
pub fn decimal_text(d: &Decimal) -> String {
    let mut text = Vec::with_capacity(32);
    write_decimal(&mut text, d);
    // Only ASCII digits, a sign and a point are written.
    String::from_utf8(text).unwrap_or_default()
}

/// Appends what [`decimal_text`] gives to `out`, without a `String`: the
/// one decimal writer, beside the crate's other JSON writing.
pub use crate::json::write_decimal;

/// A record: a table row, or a record input. Field order is the declared order.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The row name, for table rows (`second-half`).
    pub name: Option<Arc<str>>,
    /// Field names, shared by every record of the same layout.
    pub names: Arc<[Arc<str>]>,
    /// Field values in declaration order.
    pub fields: Box<[Value]>,
}

/// The entries of a map value, in the case's order.
pub type Entries = indexmap::IndexMap<Arc<str>, Value>;

/// Most a map scanned by [`entry`] before it hashes.
const SCANNED_ENTRIES: usize = 8;

/// A map's value of `key`. A small map (a case's products, an enum's
/// categories) is scanned, shared texts compared by pointer first: a
/// SipHash of the key costs more than comparing a few short texts, and
/// `get` runs on every line of a cart. Same result as `entries.get(key)`.
pub(crate) fn entry<'m>(entries: &'m Entries, key: &Arc<str>) -> Option<&'m Value> {
    if entries.len() <= SCANNED_ENTRIES {
        entries
            .iter()
            .find(|&(k, _)| Arc::ptr_eq(k, key) || **k == **key)
            .map(|(_, v)| v)
    } else {
        entries.get(key)
    }
}

/// A value of the expression language.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Value {
    /// Not given, and no default.
    #[default]
    Absent,
    /// Given as an explicit JSON `null`.
    Null,
    /// An exact decimal number.
    Number(Decimal),
    /// An exact fraction that no finite decimal holds (`1/3`); boxed, as it is
    /// rare and twice the size of every other value.
    Fraction(Box<crate::num::exact::Frac>),
    /// A boolean.
    Bool(bool),
    /// A text (also enum values).
    Text(Arc<str>),
    /// A calendar date.
    Date(NaiveDate),
    /// A calendar month.
    Month(Month),
    /// A record (row of a table, record input).
    Record(Arc<Record>),
    /// A list input's items.
    List(Arc<[Value]>),
    /// A map input: entries in the case's order.
    Map(Arc<Entries>),
}

impl Value {
    /// `Absent` or `Null`.
    pub fn is_missing(&self) -> bool {
        matches!(self, Value::Absent | Value::Null)
    }

    /// The number, if the value is a decimal one.
    pub fn as_number(&self) -> Option<Decimal> {
        match self {
            Value::Number(n) => Some(*n),
            _ => None,
        }
    }

    /// The number, decimal or fraction.
    pub fn as_num(&self) -> Option<crate::num::exact::Num> {
        match self {
            Value::Number(n) => Some(crate::num::exact::Num::Dec(*n)),
            Value::Fraction(f) => Some(crate::num::exact::Num::Frac(**f)),
            _ => None,
        }
    }

    /// A number as a value: a decimal, or an exact fraction.
    pub fn from_num(n: crate::num::exact::Num) -> Value {
        match n {
            crate::num::exact::Num::Dec(d) => Value::Number(d),
            crate::num::exact::Num::Frac(f) => Value::Fraction(Box::new(f)),
        }
    }

    /// A short name of the value's kind, for messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Absent => "absent",
            Value::Null => "null",
            Value::Number(_) | Value::Fraction(_) => "number",
            Value::Bool(_) => "boolean",
            Value::Text(_) => "text",
            Value::Date(_) => "date",
            Value::Month(_) => "month",
            Value::Record(_) => "record",
            Value::List(_) => "list",
            Value::Map(_) => "map",
        }
    }
}

impl fmt::Display for Value {
    /// The form a trace shows: numbers exact as held, texts quoted.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Absent => f.write_str("absent"),
            Value::Null => f.write_str("null"),
            Value::Number(n) => write!(f, "{n}"),
            Value::Fraction(x) => write!(f, "{x}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Text(t) => write!(f, "{t:?}"),
            Value::Date(d) => write!(f, "{}", d.format("%Y-%m-%d")),
            Value::Month(m) => write!(f, "{m}"),
            Value::Record(r) => match &r.name {
                Some(name) => write!(f, "row {name}"),
                None => {
                    f.write_str("{")?;
                    for (i, (name, value)) in r.names.iter().zip(r.fields.iter()).enumerate() {
                        if i > 0 {
                            f.write_str(", ")?;
                        }
                        write!(f, "{name}: {value}")?;
                    }
                    f.write_str("}")
                }
            },
            Value::List(items) => write!(f, "list of {}", items.len()),
            Value::Map(entries) if entries.len() <= 8 => {
                f.write_str("{")?;
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_str("}")
            }
            Value::Map(entries) => write!(f, "map of {}", entries.len()),
        }
    }
}

/// The JSON form of a value in a trace: numbers as exact strings.
impl Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Absent | Value::Null => s.serialize_none(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Text(t) => s.serialize_str(t),
            Value::Record(r) if r.name.is_none() => {
                use serde::ser::SerializeMap;
                let mut map = s.serialize_map(Some(r.fields.len()))?;
                for (name, value) in r.names.iter().zip(r.fields.iter()) {
                    map.serialize_entry(&**name, value)?;
                }
                map.end()
            }
            Value::List(items) => s.collect_seq(items.iter()),
            Value::Map(entries) => s.collect_map(entries.iter().map(|(k, v)| (&**k, v))),
            other => s.collect_str(other),
        }
    }
}

/// A value as a key is written: texts without quotes.
pub(crate) fn plain(v: &Value) -> String {
    match v {
        Value::Text(t) => t.to_string(),
        other => other.to_string(),
    }
}

/// A value with its kind, as a fault message names it.
pub(crate) fn describe_value(v: &Value) -> String {
    match v {
        Value::Absent | Value::Null => v.kind_name().to_string(),
        other => format!("{} {other}", other.kind_name()),
    }
}

/// Bytes of text an operation reads for one unit of the evaluation budget.
pub(crate) const TEXT_UNIT: usize = 64;

/// The units a text spends where an operation reads or makes it (a built-in,
/// a comparison, a `match`): one per [`TEXT_UNIT`] bytes, as a list spends
/// one per item. A node's unit alone let a step slice a 900 KB text 150,000
/// times within the default budget, for minutes. Other values spend none.
pub(crate) fn text_units(v: &Value) -> u64 {
    match v {
        Value::Text(t) => (t.len() / TEXT_UNIT) as u64,
        _ => 0,
    }
}

/// The order of two values of one kind (numbers and fractions compare exactly); `None` across kinds.
pub(crate) fn compare(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => Some(x.cmp(y)),
        (Value::Number(_) | Value::Fraction(_), Value::Number(_) | Value::Fraction(_)) => {
            a.as_num()?.cmp_exact(b.as_num()?).ok()
        }
        (Value::Text(x), Value::Text(y)) => Some(x.cmp(y)),
        (Value::Date(x), Value::Date(y)) => Some(x.cmp(y)),
        (Value::Month(x), Value::Month(y)) => Some(x.cmp(y)),
        (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The same text as `Display`, for every mantissa, scale and sign.
        #[test]
        fn decimal_text_is_what_display_writes(
            m in -(1i128 << 96) + 1..(1i128 << 96),
            scale in 0u32..=28,
            small in proptest::bool::ANY,
        ) {
            let m = if small { m % 1_000_000 } else { m };
            let d = Decimal::from_i128_with_scale(m, scale);
            proptest::prop_assert_eq!(decimal_text(&d), d.to_string());
        }
    }

    #[test]
    fn decimal_text_keeps_every_place() {
        for (m, scale, text) in [
            (5, 2, "0.05"),
            (-5, 2, "-0.05"),
            (265000, 2, "2650.00"),
            (0, 3, "0.000"),
            (7, 0, "7"),
        ] {
            assert_eq!(decimal_text(&Decimal::new(m, scale)), text);
        }
        let mut negative_zero = Decimal::new(0, 2);
        negative_zero.set_sign_negative(true);
        assert_eq!(decimal_text(&negative_zero), negative_zero.to_string());
    }
}
