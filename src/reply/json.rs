//! Strict JSON for replies: one pass, bounded depth, every key kept in order.
//!
//! The text is read by the crate's one JSON reader (`crate::json`), and
//! each refusal named here with its code and message.
//!
//! serde_json keeps the last of two equal keys without a word, and reads
//! `1e999999999` by evaluating it; a reply parser may do neither. This one
//! reports duplicate keys at any depth, names the non-standard constants
//! (`NaN`, `Infinity`) instead of calling them syntax errors, refuses lone
//! surrogates and control characters in strings, and keeps each number as
//! the text written, so that what a number *is* stays the rubric's reading
//! (`amount`), done later and without evaluating huge exponents.
//!
//! Invariant: linear in the text (the reader's, then one pass over its
//! nodes), recursion at most [`MAX_DEPTH`] deep, no panic on any input.

use super::Malformed;
use crate::json::{self, ErrorKind, Item, Node};

/// Deepest nesting of arrays and objects (the replies graded are 3 deep).
pub const MAX_DEPTH: usize = 32;

/// A JSON value as written.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number, as its text (`-12.50e3`), checked against the JSON grammar.
    Number(Box<str>),
    /// A string, unescaped.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, its keys in the order written (no two equal).
    Object(Vec<(String, Json)>),
}

impl Json {
    /// What a value is, for messages: `a list`, `null`, …
    pub fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Number(_) => "a number",
            Json::String(_) => "a string",
            Json::Array(_) => "a list",
            Json::Object(_) => "an object",
        }
    }

    /// The value of `key` in an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// Parses `text` as exactly one JSON value, with JSON whitespace (space,
/// tab, CR, LF) allowed before and after it and nothing else.
pub fn parse_json(text: &str) -> Result<Json, Malformed> {
    let mut nodes = Vec::new();
    json::read(text, MAX_DEPTH, &mut nodes).map_err(|e| malformed(&e))?;
    let mut nodes = nodes.into_iter();
    Ok(tree(&mut nodes))
}

/// A refusal of the reader, with its reply code and message.
fn malformed(e: &json::Error) -> Malformed {
    match &e.kind {
        ErrorKind::Empty => Malformed::new("reply::empty", "there is no JSON value"),
        ErrorKind::Syntax(what) => Malformed::new(
            "reply::invalid_json",
            format!("invalid JSON at byte {}: {what}", e.at),
        ),
        ErrorKind::Constant(constant) => Malformed::new(
            "reply::non_standard_constant",
            format!("{constant} at {} is not JSON", e.dollar_path()),
        ),
        ErrorKind::TooDeep => Malformed::new(
            "reply::too_deep",
            format!("lists and objects nest more than {MAX_DEPTH} deep"),
        ),
        ErrorKind::DuplicateKey(key) => Malformed::new(
            "reply::duplicate_key",
            format!(
                "the key {key:?} appears twice in the object at {}",
                e.dollar_path()
            ),
        ),
        ErrorKind::LoneSurrogate => Malformed::new(
            "reply::lone_surrogate",
            format!(
                "a \\u escape at byte {} is half of a surrogate pair without the other half",
                e.at
            ),
        ),
    }
}

/// The value whose node comes next, with its parts, as a tree. The nodes
/// are the reader's, so a container is followed by exactly its parts; were
/// they short, the value would end there rather than fail.
fn tree<'t>(nodes: &mut impl Iterator<Item = Node<'t>>) -> Json {
    let Some(node) = nodes.next() else {
        return Json::Null;
    };
    match node.item {
        Item::Null => Json::Null,
        Item::Bool(b) => Json::Bool(b),
        Item::Number(n) => Json::Number(n.into()),
        Item::String(s) => Json::String(s.into_owned()),
        Item::Array(n) => Json::Array((0..n).map(|_| tree(nodes)).collect()),
        Item::Object(n) => Json::Object(
            (0..n)
                .map(|_| {
                    let key = match tree(nodes) {
                        Json::String(key) => key,
                        _ => String::new(),
                    };
                    (key, tree(nodes))
                })
                .collect(),
        ),
    }
}
