//! The JSON a case is validated from, read through one small view
//! ([`JsonView`]) so that one validator serves two readings: a
//! `serde_json::Value` (conformance cases from TOML, generators' drawn
//! cases, library callers) and [`CaseText`], a case read from its text in
//! one pass into a flat vector of nodes that borrow the text (the crate's
//! one JSON reader, `crate::json`).
//!
//! `eval --batch` spent as long building a `serde_json::Value` tree (a map
//! and a `String` per key and per text) as the hand-written program spent on
//! a whole case; the flat reading allocates one vector, and a string only
//! when it holds an escape.
//!
//! Invariant: [`CaseText::read`] takes exactly the texts serde_json takes
//! into a `Value` (nesting bounded as serde_json bounds it, [`MAX_DEPTH`]),
//! as the same value (numbers as written, `arbitrary_precision`), except an
//! object with two equal keys, which serde_json reads as its last and this
//! reader refuses, naming the key. A text that is not JSON is refused with
//! serde_json's message, the error text `eval` and `eval --batch` have
//! always given: serde_json reads the text again for it, and only then.

use crate::facts::CaseError;
use crate::json::{self, ErrorKind, Item, Node, Step};

/// What a JSON value is, with its text for scalars.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonKind<'j> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as written.
    Number(&'j str),
    /// A string, unescaped.
    String(&'j str),
    /// An array.
    Array,
    /// An object.
    Object,
}

/// A read-only view of one JSON value: all validation needs of it.
///
/// An object's keys are distinct, in the order first written, each with its
/// last value (serde_json's `Value` with `preserve_order`).
pub trait JsonView<'j>: Copy + 'j {
    /// What the value is.
    fn kind(self) -> JsonKind<'j>;
    /// Items of an array, entries of an object, else 0.
    fn len(self) -> usize;
    /// An object's value of `key`.
    fn get(self, key: &str) -> Option<Self>;
    /// An array's items in order (none for another value).
    fn items(self) -> impl Iterator<Item = Self> + 'j;
    /// An object's entries in order (none for another value).
    fn entries(self) -> impl Iterator<Item = (&'j str, Self)> + 'j;
    /// The value as serde_json writes it, for messages only.
    fn to_text(self) -> String;

    /// Whether the value is `null`.
    fn is_null(self) -> bool {
        matches!(self.kind(), JsonKind::Null)
    }
    /// A string's text.
    fn as_str(self) -> Option<&'j str> {
        match self.kind() {
            JsonKind::String(s) => Some(s),
            _ => None,
        }
    }
    /// Whether the value is an array.
    fn is_array(self) -> bool {
        matches!(self.kind(), JsonKind::Array)
    }
    /// Whether the value is an object.
    fn is_object(self) -> bool {
        matches!(self.kind(), JsonKind::Object)
    }
}

impl<'j> JsonView<'j> for &'j serde_json::Value {
    fn kind(self) -> JsonKind<'j> {
        match self {
            serde_json::Value::Null => JsonKind::Null,
            serde_json::Value::Bool(b) => JsonKind::Bool(*b),
            serde_json::Value::Number(n) => JsonKind::Number(n.as_str()),
            serde_json::Value::String(s) => JsonKind::String(s),
            serde_json::Value::Array(_) => JsonKind::Array,
            serde_json::Value::Object(_) => JsonKind::Object,
        }
    }

    fn len(self) -> usize {
        match self {
            serde_json::Value::Array(items) => items.len(),
            serde_json::Value::Object(entries) => entries.len(),
            _ => 0,
        }
    }

    fn get(self, key: &str) -> Option<Self> {
        self.as_object().and_then(|o| o.get(key))
    }

    fn items(self) -> impl Iterator<Item = Self> + 'j {
        self.as_array().into_iter().flatten()
    }

    fn entries(self) -> impl Iterator<Item = (&'j str, Self)> + 'j {
        self.as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.as_str(), v))
    }

    fn to_text(self) -> String {
        self.to_string()
    }
}

/// An object's key standing as a JSON value, without building one: a keyed
/// table row's key read as its key column. A text, or, for a column that
/// takes JSON numbers (`integer`), a number where the key is written as one
/// (`"2"` is the number 2; `"two"` stays a text).
#[derive(Clone, Copy, Debug)]
pub(crate) struct JsonKey<'j> {
    pub(crate) key: &'j str,
    pub(crate) number: bool,
}

impl<'j> JsonView<'j> for JsonKey<'j> {
    fn kind(self) -> JsonKind<'j> {
        // serde_json reads past white space around a number; a key's is its own.
        let bare = self.key.trim_matches(|c: char| c.is_ascii_whitespace()) == self.key;
        let number =
            self.number && bare && serde_json::from_str::<serde_json::Number>(self.key).is_ok();
        match number {
            true => JsonKind::Number(self.key),
            false => JsonKind::String(self.key),
        }
    }

    fn len(self) -> usize {
        0
    }

    fn get(self, _key: &str) -> Option<Self> {
        None
    }

    fn items(self) -> impl Iterator<Item = Self> + 'j {
        std::iter::empty()
    }

    fn entries(self) -> impl Iterator<Item = (&'j str, Self)> + 'j {
        std::iter::empty()
    }

    fn to_text(self) -> String {
        match self.kind() {
            JsonKind::Number(n) => n.to_string(),
            _ => serde_json::Value::from(self.key).to_string(),
        }
    }
}

/// Deepest nesting of arrays and objects read: serde_json's (its
/// recursion limit of 128 refuses the 128th level), so that deep texts are
/// refused by both readers or neither.
pub const MAX_DEPTH: usize = 127;

/// A JSON text read in one pass: its values in a flat vector, in the order
/// written, each container followed by its parts (an object's key, then its
/// value), each node knowing where its parts end.
///
/// ```
/// let text = bareme::unstable::case::CaseText::read(r#"{"gross_pay": 2500.10}"#)?;
/// // Numbers stay as written: 2500.10 keeps its trailing zero.
/// assert_eq!(text.root().to_value().to_string(), r#"{"gross_pay":2500.10}"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct CaseText<'t> {
    nodes: Vec<Node<'t>>,
    root: usize,
}

static NULL: Node<'static> = Node {
    item: Item::Null,
    end: 0,
};

impl<'t> CaseText<'t> {
    /// Reads `text` as one JSON value, or refuses it: a key given twice
    /// in an object at the key's path, any other fault at `$` with
    /// serde_json's message (see the module's invariant).
    ///
    /// ```
    /// let case = bareme::unstable::case::CaseText::read(r#"{"a": 1, "a": 2}"#).unwrap_err();
    /// assert_eq!(case.path, "a");
    /// ```
    pub fn read(text: &'t str) -> Result<CaseText<'t>, CaseError> {
        let spare = SPARE.try_with(std::cell::Cell::take).unwrap_or_default();
        let mut nodes = relabel(spare);
        nodes.reserve(text.len() / 8 + 4);
        match json::read(text, MAX_DEPTH, &mut nodes) {
            Ok(()) => Ok(CaseText { nodes, root: 0 }),
            Err(e) => {
                // The vector goes back to the spare on the way out.
                drop(CaseText { nodes, root: 0 });
                Err(refusal(text, &e))
            }
        }
    }

    /// The case in `bytes`, as `bareme eval` reads a case file and
    /// `eval --batch` a line: UTF-8 without a byte order mark (refused,
    /// never repaired, so two distinct byte strings never read as one
    /// case), then one JSON value, then out of its `{"case": …}` envelope.
    /// An embedder reading case bytes through here gets the command's
    /// answers for the same bytes.
    ///
    /// ```
    /// let case = bareme::unstable::case::CaseText::from_bytes(br#"{"case": {"task": "payslip"}}"#)?;
    /// assert_eq!(case.root().to_value(), serde_json::json!({"task": "payslip"}));
    /// let refused = bareme::unstable::case::CaseText::from_bytes(b"\xef\xbb\xbf{}").unwrap_err();
    /// assert_eq!(refused.path, "$");
    /// # Ok::<(), bareme::CaseError>(())
    /// ```
    pub fn from_bytes(bytes: &'t [u8]) -> Result<CaseText<'t>, CaseError> {
        let text = std::str::from_utf8(bytes).map_err(|e| CaseError {
            path: "$".into(),
            message: format!(
                "the case is not UTF-8 text: invalid byte at offset {}",
                e.valid_up_to()
            ),
        })?;
        if text.starts_with('\u{feff}') {
            return Err(CaseError {
                path: "$".into(),
                message: "the case starts with a byte order mark (U+FEFF), which JSON text may not: save it as UTF-8 without one".into(),
            });
        }
        CaseText::read(text).map(CaseText::without_envelope)
    }

    /// What [`CaseText::read`] reads, or `None` for a text it refuses.
    ///
    /// ```
    /// assert!(bareme::unstable::case::CaseText::parse("{").is_none());
    /// assert!(bareme::unstable::case::CaseText::parse("{}").is_some());
    /// ```
    pub fn parse(text: &'t str) -> Option<CaseText<'t>> {
        Self::read(text).ok()
    }

    /// The value read (the case, once its envelope is taken off).
    ///
    /// ```
    /// let case = bareme::unstable::case::CaseText::read(r#"{"n": [1, 2]}"#)?;
    /// assert_eq!(case.root().to_value()["n"][1], 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn root(&self) -> JsonNode<'_> {
        JsonNode {
            nodes: &self.nodes,
            at: self.root,
        }
    }

    /// The case inside an envelope `{"case": CASE}` (an object whose only
    /// key is `case`), else the value itself, as `eval` reads a case.
    ///
    /// ```
    /// let case = bareme::unstable::case::CaseText::read(r#"{"case": {"n": 1}}"#)?.without_envelope();
    /// assert_eq!(case.root().to_value(), serde_json::json!({"n": 1}));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn without_envelope(mut self) -> Self {
        let root = self.root();
        if root.len() == 1 {
            if let Some(case) = root.get("case") {
                self.root = case.at;
            }
        }
        self
    }
}

impl Drop for CaseText<'_> {
    /// The node vector goes back to this thread's spare, for the next case
    /// read here (a batch reads a line after another on each worker).
    fn drop(&mut self) {
        let mut nodes = std::mem::take(&mut self.nodes);
        nodes.clear();
        if nodes.capacity() <= MAX_SPARE {
            // Gone only while the thread ends: the vector is then freed.
            let _ = SPARE.try_with(|spare| spare.set(relabel(nodes)));
        }
    }
}

/// Nodes a spare vector keeps at most (a few hundred kilobytes), so one
/// large case does not hold its memory on the thread for good.
const MAX_SPARE: usize = 1 << 14;

thread_local! {
    /// The node vector of the last case read on this thread, emptied.
    static SPARE: std::cell::Cell<Vec<Node<'static>>> = const { std::cell::Cell::new(Vec::new()) };
}

/// An empty node vector under another lifetime, its memory kept (collected
/// in place: no node is read or made). `filter_map` because the item type
/// changes and no item exists to map.
#[allow(clippy::unnecessary_filter_map)]
fn relabel<'a, 'b>(mut nodes: Vec<Node<'a>>) -> Vec<Node<'b>> {
    nodes.clear();
    nodes.into_iter().filter_map(|_| None).collect()
}

/// One value of a [`CaseText`].
#[derive(Clone, Copy, Debug)]
pub struct JsonNode<'j> {
    nodes: &'j [Node<'j>],
    at: usize,
}

impl<'j> JsonNode<'j> {
    fn node(self) -> &'j Node<'j> {
        self.nodes.get(self.at).unwrap_or(&NULL)
    }

    fn at(self, at: usize) -> Self {
        JsonNode {
            nodes: self.nodes,
            at,
        }
    }

    /// The value as a `serde_json::Value`: the value serde_json reads from
    /// the same text (for messages, and for `eval`'s one case).
    pub fn to_value(self) -> serde_json::Value {
        match &self.node().item {
            Item::Null => serde_json::Value::Null,
            Item::Bool(b) => serde_json::Value::Bool(*b),
            Item::Number(n) => serde_json::from_str(n).unwrap_or(serde_json::Value::Null),
            Item::String(s) => serde_json::Value::String(s.to_string()),
            Item::Array(_) => serde_json::Value::Array(self.items().map(Self::to_value).collect()),
            Item::Object(_) => serde_json::Value::Object(
                self.entries()
                    .map(|(k, v)| (k.to_string(), v.to_value()))
                    .collect(),
            ),
        }
    }
}

impl<'j> JsonView<'j> for JsonNode<'j> {
    fn kind(self) -> JsonKind<'j> {
        match &self.node().item {
            Item::Null => JsonKind::Null,
            Item::Bool(b) => JsonKind::Bool(*b),
            Item::Number(n) => JsonKind::Number(n),
            Item::String(s) => JsonKind::String(s),
            Item::Array(_) => JsonKind::Array,
            Item::Object(_) => JsonKind::Object,
        }
    }

    fn len(self) -> usize {
        match self.node().item {
            Item::Array(n) | Item::Object(n) => n,
            _ => 0,
        }
    }

    fn get(self, key: &str) -> Option<Self> {
        self.entries().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    fn items(self) -> impl Iterator<Item = Self> + 'j {
        let n = match self.node().item {
            Item::Array(n) => n,
            _ => 0,
        };
        let mut next = self.at + 1;
        (0..n).map(move |_| {
            let item = self.at(next);
            next = item.node().end;
            item
        })
    }

    fn entries(self) -> impl Iterator<Item = (&'j str, Self)> + 'j {
        let n = match self.node().item {
            Item::Object(n) => n,
            _ => 0,
        };
        let mut next = self.at + 1;
        (0..n).map(move |_| {
            let key = match &self.at(next).node().item {
                Item::String(k) => &**k,
                _ => "",
            };
            let value = self.at(next + 1);
            next = value.node().end;
            (key, value)
        })
    }

    fn to_text(self) -> String {
        match self.kind() {
            // As written: serde_json would spell `1E2` as `1e+2`.
            JsonKind::Number(n) => n.to_string(),
            _ => self.to_value().to_string(),
        }
    }
}

/// Why a text is refused as a case: a key given twice named at its path,
/// anything else in serde_json's words.
#[cold]
fn refusal(text: &str, e: &json::Error) -> CaseError {
    if let ErrorKind::DuplicateKey(key) = &e.kind {
        let mut path = String::new();
        // A key `case` first is the envelope's: no input may be named so.
        let steps = match e.path.split_first() {
            Some((Step::Key(first), rest)) if first == "case" => rest,
            _ => &e.path,
        };
        for step in steps {
            push_step(&mut path, step);
        }
        push_step(&mut path, &Step::Key(key.clone()));
        let mut quoted = Vec::new();
        json::write_string(&mut quoted, key);
        return CaseError {
            path,
            message: format!(
                "duplicate key {}: an object of a case gives each key once",
                String::from_utf8_lossy(&quoted)
            ),
        };
    }
    let message = match serde_json::from_str::<serde_json::Value>(text) {
        Err(serde) => not_json(text, &serde),
        // Not met: the two readers take the same texts (the module's
        // invariant); were one found, it is still refused, in our words.
        Ok(_) => format!("the case is not valid JSON: {} at byte {}", what(e), e.at),
    };
    CaseError {
        path: "$".into(),
        message,
    }
}

/// A path step as case paths are written: `key`, `.key`, `[i]`.
fn push_step(path: &mut String, step: &Step) {
    match step {
        Step::Key(key) => {
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(key);
        }
        Step::Index(i) => {
            path.push('[');
            path.push_str(&i.to_string());
            path.push(']');
        }
    }
}

/// The reader's words for a fault that is not a duplicate key.
fn what(e: &json::Error) -> &'static str {
    match &e.kind {
        ErrorKind::Empty => "there is no JSON value",
        ErrorKind::Syntax(what) => what,
        ErrorKind::Constant(_) => "NaN and Infinity are not JSON",
        ErrorKind::TooDeep => "lists and objects nest too deep",
        ErrorKind::DuplicateKey(_) => "a key is given twice",
        ErrorKind::LoneSurrogate => "a lone surrogate escape",
    }
}

/// serde_json's message, except where it names a symptom rather than the
/// cause: an escape `\uD800`–`\uDFFF` not paired with its other half reads
/// as "unexpected end of hex escape".
fn not_json(text: &str, e: &serde_json::Error) -> String {
    let message = e.to_string();
    if (message.contains("hex escape") || message.contains("surrogate"))
        && has_surrogate_escape(text)
    {
        return format!("the case is not valid JSON: a string holds a lone surrogate escape (\\uD800–\\uDFFF without its pair), which is no character, at line {} column {}", e.line(), e.column());
    }
    format!("the case is not valid JSON: {message}")
}

/// Whether `text` holds an escape `\uD800`–`\uDFFF` (half of a surrogate pair).
fn has_surrogate_escape(text: &str) -> bool {
    text.as_bytes().windows(4).any(|w| {
        w[0] == b'\\'
            && w[1] == b'u'
            && matches!(w[2], b'd' | b'D')
            && matches!(w[3], b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F')
    })
}

#[cfg(test)]
mod tests;
