//! Byte ranges into source text.
//!
//! Expression nodes carry spans relative to their expression string; the
//! rulebook checker shifts them into the TOML file when it reports a problem.

use serde::Serialize;

/// A half-open byte range `start..end`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// A span from `usize` offsets, saturating at `u32::MAX`.
    pub fn new(start: usize, end: usize) -> Self {
        let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Span {
            start: clamp(start),
            end: clamp(end),
        }
    }

    /// The span moved right by `offset` bytes.
    pub fn shifted(self, offset: usize) -> Self {
        Span::new(self.start as usize + offset, self.end as usize + offset)
    }

    /// The smallest span covering both.
    pub fn join(self, other: Span) -> Self {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// Length in bytes.
    pub fn len(self) -> usize {
        self.end.saturating_sub(self.start) as usize
    }

    /// Whether the span covers no byte.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }
}

impl From<std::ops::Range<usize>> for Span {
    fn from(r: std::ops::Range<usize>) -> Self {
        Span::new(r.start, r.end)
    }
}

impl From<Span> for miette::SourceSpan {
    fn from(s: Span) -> Self {
        (s.start as usize, s.len()).into()
    }
}
