//! Where things are written in a generator's text, for diagnostics that
//! point at them: a key whose value has no span of its own (`KeySpans`),
//! the content of a string written without escapes (`content_offset`).

use std::collections::HashMap;

use crate::span::Span;

/// Byte offset of a TOML string's content, when it is written without escapes.
pub(super) fn content_offset(text: &str, span: Span, value: &str) -> Option<usize> {
    let raw = text.get(span.start as usize..span.end as usize)?;
    let quote = if raw.starts_with("\"\"\"") || raw.starts_with("'''") {
        3
    } else {
        1
    };
    let inner = raw.get(quote..raw.len().checked_sub(quote)?)?;
    (inner == value).then_some(span.start as usize + quote)
}

/// Where each key of a generator's text is first written, for a field whose
/// value has no span of its own: indexed in one pass over the text on first
/// need, since searching the text for each such key in turn made loading
/// quadratic in the file (a part of a list repeated 5,000 times, issue 24).
pub(super) struct KeySpans<'t> {
    /// The text between two successive quotes, at the first quote: where
    /// `"key"` is first written.
    quoted: HashMap<&'t str, usize>,
    /// A run of bare-key characters right before ` =`, at its start: where
    /// `key =` is first written.
    bare: HashMap<&'t str, usize>,
}

impl<'t> KeySpans<'t> {
    pub(super) fn new(text: &'t str) -> KeySpans<'t> {
        let mut quoted = HashMap::new();
        let mut last = None;
        for (i, _) in text.match_indices('"') {
            if let Some(open) = last {
                quoted.entry(&text[open + 1..i]).or_insert(open);
            }
            last = Some(i);
        }
        // Runs before successive ` =` are disjoint: one pass in all.
        let bytes = text.as_bytes();
        let mut bare = HashMap::new();
        for (k, _) in text.match_indices(" =") {
            let key_byte = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-';
            // Every byte after the last non-key byte is ASCII: a char boundary.
            let start = bytes[..k]
                .iter()
                .rposition(|b| !key_byte(b))
                .map_or(0, |i| i + 1);
            if start < k {
                bare.entry(&text[start..k]).or_insert(start);
            }
        }
        KeySpans { quoted, bare }
    }

    /// Where `path` is first written as `"path"`, else as `path =`.
    pub(super) fn find(&self, path: &str) -> Span {
        let at = match self.quoted.get(path) {
            Some(&i) => Some((i, path.len() + 2)),
            None => self.bare.get(path).map(|&i| (i, path.len())),
        };
        at.map_or_else(Span::default, |(i, n)| Span::new(i, i + n))
    }
}
