//! The one reading of a task or reply line's JSON: serde_json's grammar and
//! numbers (kept as written), but a key written twice in one object, at any
//! depth, is refused instead of silently keeping the last, and a byte order
//! mark is named instead of reported as a syntax error.
//!
//! [`read_json`] is the only entry: when the crate's JSON readers become
//! one, this function is what is pointed at the merged reader.

use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::cell::RefCell;
use std::fmt;

/// The key under which serde_json (`arbitrary_precision`) hands a number
/// to a visitor as its text; its own `Value` reads it the same way.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// Why a line's text is not one JSON value this reader accepts.
#[derive(Debug, thiserror::Error)]
pub enum JsonFault {
    /// The text starts with U+FEFF, which JSON text may not.
    #[error(
        "starts with a byte order mark (U+FEFF), which JSON text may not: save the file as UTF-8 without one"
    )]
    Bom,
    /// Not JSON: serde_json's message.
    #[error("is not JSON: {0}")]
    Syntax(serde_json::Error),
    /// One object holds a key twice.
    #[error("holds the key `{key}` twice, in the object at {at}")]
    DuplicateKey {
        /// The key.
        key: String,
        /// Where the object is: `$`, `$.case.lines[2]`.
        at: String,
    },
}

/// The JSON value of `text` (serde_json's reading), refusing a byte order
/// mark and a key written twice in any object.
pub fn read_json(text: &str) -> Result<Value, JsonFault> {
    if text.starts_with('\u{feff}') {
        return Err(JsonFault::Bom);
    }
    let duplicate = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    let read = Strict {
        at: None,
        duplicate: &duplicate,
    }
    .deserialize(&mut de)
    .and_then(|value| de.end().map(|()| value));
    match (read, duplicate.into_inner()) {
        (Ok(value), _) => Ok(value),
        (Err(_), Some((key, at))) => Err(JsonFault::DuplicateKey { key, at }),
        (Err(e), None) => Err(JsonFault::Syntax(e)),
    }
}

/// `text` with every `\u` escape of half a surrogate pair without its other
/// half replaced by the escape of one [`LoneHalves::marker`], when it has
/// one: a line as Python's `json.dumps` writes a string it holds so, which
/// is JSON by grammar but no Unicode text. The marker is a noncharacter
/// the text holds nowhere, neither as itself nor escaped, so a value read
/// from the repaired text holds it exactly where halves were. `None` when
/// there is no lone half, or no such marker (the text holds all 32).
/// Linear; a backslash outside a string is a syntax error either way, so
/// strings need not be tracked.
pub fn lone_halves_marked(text: &str) -> Option<LoneHalves> {
    let bytes = text.as_bytes();
    let unit = |at: usize| -> Option<u16> {
        let hex = bytes.get(at..at + 6)?;
        if !hex.starts_with(b"\\u") {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()
    };
    let (mut lone, mut escaped) = (Vec::new(), 0u32);
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        match unit(i) {
            Some(0xD800..=0xDBFF) if matches!(unit(i + 6), Some(0xDC00..=0xDFFF)) => i += 12,
            Some(0xD800..=0xDFFF) => {
                lone.push(i);
                i += 6;
            }
            Some(code @ 0xFDD0..=0xFDEF) => {
                escaped |= 1 << (code - 0xFDD0);
                i += 6;
            }
            // The escaped character is skipped with its backslash.
            _ => i += 2,
        }
    }
    if lone.is_empty() {
        return None;
    }
    let marker = (0xFDD0..=0xFDEFu32)
        .filter(|code| escaped & (1 << (code - 0xFDD0)) == 0)
        .filter_map(char::from_u32)
        .find(|c| !text.contains(*c))?;
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for &at in &lone {
        out.push_str(&text[copied..at]);
        out.push_str(&format!("\\u{:04x}", u32::from(marker)));
        copied = at + 6;
    }
    out.push_str(&text[copied..]);
    Some(LoneHalves {
        text: out,
        marker,
        count: lone.len(),
    })
}

/// A text whose lone surrogate halves were marked ([`lone_halves_marked`]).
#[derive(Debug, PartialEq, Eq)]
pub struct LoneHalves {
    /// The text, each lone half now the escape of `marker`.
    pub text: String,
    /// The noncharacter written for each half.
    pub marker: char,
    /// How many halves were replaced.
    pub count: usize,
}

impl LoneHalves {
    /// Whether `value` holds every half replaced (and so no other value does).
    pub fn all_in(&self, value: &str) -> bool {
        value.matches(self.marker).count() == self.count
    }
}

/// One step from a value to a value inside it.
#[derive(Clone, Copy)]
enum Step<'p> {
    Key(&'p str),
    Index(usize),
}

/// Where a value is, as a chain of steps up to the top: built on the
/// stack as the reader descends, written out only for a duplicate.
struct Path<'p> {
    step: Step<'p>,
    parent: Option<&'p Path<'p>>,
}

fn path_text(mut at: Option<&Path<'_>>) -> String {
    let mut steps = Vec::new();
    while let Some(p) = at {
        steps.push(p.step);
        at = p.parent;
    }
    let mut text = String::from("$");
    for step in steps.iter().rev() {
        match step {
            Step::Key(k) => {
                text.push('.');
                text.push_str(k);
            }
            Step::Index(i) => text.push_str(&format!("[{i}]")),
        }
    }
    text
}

/// A value read at `at`; the first duplicate key found is left in
/// `duplicate` (serde's error carries only a message).
struct Strict<'p> {
    at: Option<&'p Path<'p>>,
    duplicate: &'p RefCell<Option<(String, String)>>,
}

impl<'de> DeserializeSeed<'de> for Strict<'_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        Ok(Number::from_f64(n).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_string()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        loop {
            let at = Path {
                step: Step::Index(items.len()),
                parent: self.at,
            };
            let seed = Strict {
                at: Some(&at),
                duplicate: self.duplicate,
            };
            match seq.next_element_seed(seed)? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        let mut first = true;
        while let Some(key) = map.next_key::<String>()? {
            if std::mem::take(&mut first) && key == NUMBER_TOKEN {
                // A number, as serde_json's own `Value` reads it.
                let text: String = map.next_value()?;
                return text.parse().map(Value::Number).map_err(A::Error::custom);
            }
            if out.contains_key(&key) {
                let message = format!("the key `{key}` twice");
                *self.duplicate.borrow_mut() = Some((key, path_text(self.at)));
                return Err(A::Error::custom(message));
            }
            let at = Path {
                step: Step::Key(&key),
                parent: self.at,
            };
            let value = map.next_value_seed(Strict {
                at: Some(&at),
                duplicate: self.duplicate,
            })?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}
