//! The JSON a case is validated from, read through one small view
//! ([`JsonView`]) so that one validator serves two readings: a
//! `serde_json::Value` (conformance cases from TOML, generators' drawn
//! cases, library callers) and [`CaseJson`], a case read from its text in
//! one pass into a flat vector of nodes that borrow the text.
//!
//! `eval --batch` spent as long building a `serde_json::Value` tree (a map
//! and a `String` per key and per text) as the hand-written program spent on
//! a whole case; the flat reading allocates one vector, and a string only
//! when it holds an escape.
//!
//! Invariant: [`CaseJson::parse`] reads a text exactly as serde_json reads it
//! into a `Value` (numbers as written, `arbitrary_precision`), or refuses it.
//! It refuses whatever it is not sure of (any syntax error, an object with two
//! equal keys, nesting deeper than [`MAX_DEPTH`], a lone surrogate escape), and
//! the caller then reads the text with serde_json, whose reading (or error)
//! stands: so no text reads two ways, and messages stay serde_json's.

use std::borrow::Cow;

use read::Reader;

mod read;

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

/// A text standing as a JSON string, without building one: a keyed table
/// row's key read as its key column.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JsonText<'j>(pub(crate) &'j str);

impl<'j> JsonView<'j> for JsonText<'j> {
    fn kind(self) -> JsonKind<'j> {
        JsonKind::String(self.0)
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
        serde_json::Value::from(self.0).to_string()
    }
}

/// Deepest nesting [`CaseJson::parse`] reads itself (serde_json's limit is
/// 128; deeper texts are left to it).
pub const MAX_DEPTH: usize = 100;

/// A JSON text read in one pass: its values in a flat vector, in the order
/// written, each container followed by its parts (an object's key, then its
/// value), each node knowing where its parts end.
#[derive(Clone, Debug)]
pub struct CaseJson<'t> {
    nodes: Vec<Node<'t>>,
    root: usize,
}

#[derive(Clone, Debug)]
struct Node<'t> {
    item: Item<'t>,
    /// The index after this node's last part.
    end: usize,
}

#[derive(Clone, Debug)]
enum Item<'t> {
    Null,
    Bool(bool),
    Number(&'t str),
    String(Cow<'t, str>),
    /// Its number of items.
    Array(usize),
    /// Its number of entries.
    Object(usize),
}

static NULL: Node<'static> = Node {
    item: Item::Null,
    end: 0,
};

impl<'t> CaseJson<'t> {
    /// Reads `text` as one JSON value, or `None` when it must be left to
    /// serde_json (see the module's invariant).
    pub fn parse(text: &'t str) -> Option<CaseJson<'t>> {
        let spare = SPARE.try_with(std::cell::Cell::take).unwrap_or_default();
        let mut nodes = relabel(spare);
        nodes.reserve(text.len() / 8 + 4);
        let mut reader = Reader {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            nodes,
        };
        let read = reader.value(0).is_some() && {
            reader.skip_ws();
            reader.pos == reader.bytes.len()
        };
        let case = CaseJson {
            nodes: reader.nodes,
            root: 0,
        };
        read.then_some(case)
    }

    /// The value read (the case, once its envelope is taken off).
    pub fn root(&self) -> JsonNode<'_> {
        JsonNode {
            nodes: &self.nodes,
            at: self.root,
        }
    }

    /// The case inside an envelope `{"case": CASE}` (an object whose only
    /// key is `case`), else the value itself, as `eval` reads a case.
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

impl Drop for CaseJson<'_> {
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

/// One value of a [`CaseJson`].
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

    /// The value as a `serde_json::Value`, for messages only.
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
        self.to_value().to_string()
    }
}

#[cfg(test)]
mod tests;
