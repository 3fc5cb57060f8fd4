//! A JSON value read into borrowed text, as the hand-written programs of
//! `tests/handwritten/` read a case: serde drives the parse, numbers stay as
//! written, strings are borrowed from the line; with what they share to
//! write an answer line. Shared by `luma.rs`, `sales_tax.rs`
//! and `paie_fr.rs` (whoever includes them declares this module beside
//! them); never part of the library.

use rust_decimal::Decimal;
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt::{self, Write};

/// A JSON value kept as borrowed text: numbers as written.
#[derive(Debug)]
pub enum Cell<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A string (borrowed unless it held an escape).
    Str(Cow<'a, str>),
    /// A number, as written.
    Num(String),
    /// An object, keys in order.
    Obj(Vec<(Cow<'a, str>, Cell<'a>)>),
    /// An array.
    List(Vec<Cell<'a>>),
}

/// serde_json's key for a number kept as written (`arbitrary_precision`).
const NUMBER_KEY: &str = "$serde_json::private::Number";

impl<'de: 'a, 'a> Deserialize<'de> for Cell<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(CellVisitor(std::marker::PhantomData))
    }
}

struct CellVisitor<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for CellVisitor<'a> {
    type Value = Cell<'a>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Cell<'a>, E> {
        Ok(Cell::Null)
    }
    fn visit_none<E>(self) -> Result<Cell<'a>, E> {
        Ok(Cell::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Cell<'a>, E> {
        Ok(Cell::Bool(b))
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Cell<'a>, E> {
        Ok(Cell::Str(Cow::Borrowed(s)))
    }
    fn visit_str<E>(self, s: &str) -> Result<Cell<'a>, E> {
        Ok(Cell::Str(Cow::Owned(s.to_string())))
    }
    fn visit_string<E>(self, s: String) -> Result<Cell<'a>, E> {
        Ok(Cell::Str(Cow::Owned(s)))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Cell<'a>, E> {
        Ok(Cell::Num(n.to_string()))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Cell<'a>, E> {
        Ok(Cell::Num(n.to_string()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Cell<'a>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Cell<'a>>()? {
            items.push(item);
        }
        Ok(Cell::List(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Cell<'a>, A::Error> {
        let mut fields: Vec<(Cow<'a, str>, Cell<'a>)> = Vec::new();
        while let Some(key) = map.next_key::<Cow<'a, str>>()? {
            if key == NUMBER_KEY {
                return Ok(Cell::Num(map.next_value::<String>()?));
            }
            let value = map.next_value::<Cell<'a>>()?;
            // As serde_json's ordered map: a repeated key keeps its first
            // place and its last value.
            match fields.iter_mut().find(|(k, _)| *k == key) {
                Some(field) => field.1 = value,
                None => fields.push((key, value)),
            }
        }
        Ok(Cell::Obj(fields))
    }
}

impl<'a> Cell<'a> {
    /// The value under `key` of an object, unless absent or `null`.
    pub fn get(&self, key: &str) -> Option<&Cell<'a>> {
        match self {
            Cell::Obj(fields) => fields
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v)
                .filter(|v| !matches!(v, Cell::Null)),
            _ => None,
        }
    }

    /// A text of at most 1000 characters (bareme's default `max_length`).
    pub fn text(&self) -> Option<&str> {
        match self {
            Cell::Str(s) if s.chars().count() <= 1000 => Some(s),
            _ => None,
        }
    }
}

/// A cell that is given (`null` is absent).
pub fn given<'c, 'a>(cell: &'c Option<Cell<'a>>) -> Option<&'c Cell<'a>> {
    cell.as_ref().filter(|c| !matches!(c, Cell::Null))
}

/// A text as serde_json writes it.
pub fn write_text(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A rejection: the path bareme names.
pub struct Rejected(pub String);

pub fn reject<T>(path: impl Into<String>) -> Result<T, Rejected> {
    Err(Rejected(path.into()))
}

/// Money as the answers write it: two places, never `-0.00`.
pub fn write_money(out: &mut String, d: Decimal) {
    let mut d = d.round_dp(2);
    if d.is_zero() {
        d.set_sign_positive(true);
    }
    let _ = write!(out, "\"{d:.2}\"");
}

/// One case line read as `C` and evaluated into `out`, or the error line
/// of its rejection (`$` for a line that is no JSON object).
pub fn evaluate_case_line<'a, C: Deserialize<'a>>(
    line: &'a str,
    out: &mut String,
    evaluate: impl FnOnce(&C, &mut String) -> Result<(), Rejected>,
) {
    // serde reads a struct from an array too; a case is an object only.
    let object = line.trim_start().starts_with('{');
    let result = serde_json::from_str::<C>(line)
        .ok()
        .filter(|_| object)
        .ok_or_else(|| Rejected("$".into()))
        .and_then(|case| evaluate(&case, out));
    if let Err(Rejected(path)) = result {
        out.push_str("{\"error\":{\"path\":");
        write_text(out, &path);
        out.push_str(",\"message\":\"rejected\"}}");
    }
}
