//! JSON text, read and written by hand in one place: the bottom layer, which
//! knows nothing of the engine.
//!
//! Two kinds of JSON text come from outside: cases (`eval --batch` reads
//! millions of lines) and models' replies (graded strictly). Both are read
//! by one strict one-pass reader ([`read`]) into a flat vector of
//! [`Node`]s that borrow the text (a string is copied only when it holds an
//! escape), numbers kept as written. What the two callers want differently
//! is the caller's: how deep values may nest (the `max_depth` given to
//! [`read`]), and what they tell a person about a refusal (a reply's codes
//! and byte offsets, a batch line's serde_json message). Duplicate keys,
//! `NaN` and `Infinity`, and lone surrogate escapes are refused by name,
//! whoever reads.
//!
//! JSON written by hand (the trace, the answer written as it is evaluated,
//! a batch's error lines) goes through [`write`]'s functions, which give
//! the bytes serde_json gives for the same values.
//!
//! Invariant: no import of the engine (`crate::` appears nowhere here),
//! no IO, no panic on any text.

mod read;
mod write;

use std::borrow::Cow;

pub use read::{read, Error, ErrorKind, Step};
pub use write::{
    write_bool, write_decimal, write_displayed, write_integer, write_list, write_object,
    write_quoted_decimal, write_string,
};

/// One value read: what it is, and where its parts end.
#[derive(Clone, Debug)]
pub struct Node<'t> {
    /// The value, with its count of parts for an array or an object.
    pub item: Item<'t>,
    /// The index after this node's last part (its own index + 1 for a scalar).
    pub end: usize,
}

/// What a value is, with its text for scalars. In a flat vector, an array's
/// items follow it in order, and an object's entries, each a key (an
/// `Item::String`) then its value.
#[derive(Clone, Debug)]
pub enum Item<'t> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as written (`-12.50e3`), checked against the JSON grammar.
    Number(&'t str),
    /// A string, unescaped: borrowed from the text unless it held an escape.
    String(Cow<'t, str>),
    /// An array, with its number of items.
    Array(usize),
    /// An object, with its number of entries (no two keys equal).
    Object(usize),
}

impl Error {
    /// The path as `$` and then `.key` and `[index]` steps.
    pub fn dollar_path(&self) -> String {
        let mut out = String::from("$");
        for step in &self.path {
            match step {
                Step::Key(key) => {
                    out.push('.');
                    out.push_str(key);
                }
                Step::Index(i) => {
                    out.push('[');
                    out.push_str(&i.to_string());
                    out.push(']');
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests;
