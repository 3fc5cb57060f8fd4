//! Where things are written in a generator's text, for diagnostics that
//! point at them: the content of a string written without escapes
//! (`content_offset`).

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
