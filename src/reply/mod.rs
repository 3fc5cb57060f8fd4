//! Replies: a model's answer text, read strictly into JSON.
//!
//! A rubric's answer contract says where the JSON stands in the reply (the
//! whole reply, or inside one `<bulletin>` or `<droits>` tag, a code fence
//! tolerated or not) and how long a reply may be; [`read_reply`] applies it
//! and hands the text to the strict parser (`json`). Every refusal is a
//! [`Malformed`] with a stable code and a message that names what was found,
//! never what was expected.
//!
//! Invariant: no IO, no panic on any text, linear time: the size limit is
//! checked first, tags are found by one scan each, and the JSON parser is
//! one pass of bounded depth.

mod amount;
mod json;

pub use amount::{Amount, AmountError, AmountRules, MAX_SCALED_DIGITS};
pub use json::{parse_json, Json, MAX_DEPTH};

/// Why a reply was refused before grading: a stable code and a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Malformed {
    /// `reply::duplicate_key`, `reply::several_tags`, …
    pub code: &'static str,
    /// What was found, in one sentence.
    pub message: String,
}

impl Malformed {
    /// A refusal with its code and message.
    pub fn new(code: &'static str, message: impl Into<String>) -> Malformed {
        Malformed {
            code,
            message: message.into(),
        }
    }

    /// A reply that held half a surrogate pair: no text to grade.
    pub fn lone_surrogate() -> Malformed {
        Malformed::new(
            "reply::lone_surrogate",
            "the reply holds half a surrogate pair without the other half (a \\u escape of U+D800 to U+DFFF), which no text holds",
        )
    }
}

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

/// How the closing tag of a block is found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closing {
    /// Exactly one closing tag in the whole reply, after the opening one.
    ExactlyOne,
    /// The first closing tag after the opening one; others are ignored.
    FirstAfter,
}

/// A wrapping tag: `<bulletin>…</bulletin>`.
#[derive(Clone, Debug)]
pub struct Tag {
    /// Its name (`bulletin`).
    pub name: String,
    /// Whether `<BULLETIN>` is the same tag.
    pub case_insensitive: bool,
    /// How its block ends.
    pub closing: Closing,
}

/// Where the JSON stands in a reply.
#[derive(Clone, Debug, Default)]
pub struct Envelope {
    /// Most Unicode code points of the whole reply.
    pub max_chars: Option<usize>,
    /// The tag around the JSON, if any; text outside it is then allowed.
    pub tag: Option<Tag>,
    /// Whether one code fence (```` ```json ```` or ```` ``` ````) may wrap the JSON.
    pub fences: bool,
}

/// The most bytes of a reply read at all, whatever the rubric's
/// `max_chars`: reading a reply's JSON takes some tens of times its size
/// (a 14 MB list of zeros took 580 MB), once on each worker. An answer of
/// the bundled formats is a few kilobytes.
pub const MAX_REPLY_BYTES: usize = 4 << 20;

/// Reads the JSON of a reply under an envelope.
pub fn read_reply(text: &str, envelope: &Envelope) -> Result<Json, Malformed> {
    if text.len() > MAX_REPLY_BYTES {
        return Err(Malformed::new(
            "reply::too_long",
            format!("the reply is longer than {MAX_REPLY_BYTES} bytes, the most any reply may be"),
        ));
    }
    if let Some(max) = envelope.max_chars {
        // A code point is at most 4 bytes: a longer text is over without counting.
        if text.len() > max.saturating_mul(4) || text.chars().count() > max {
            return Err(Malformed::new(
                "reply::too_long",
                format!("the reply is longer than {max} characters"),
            ));
        }
    }
    let body = match &envelope.tag {
        Some(tag) => block(text, tag)?,
        None => text,
    };
    let body = unfenced(body, envelope.fences)?;
    if body.starts_with('\u{feff}') {
        return Err(Malformed::new(
            "reply::bom",
            "the reply starts with a byte order mark (U+FEFF)",
        ));
    }
    parse_json(body)
}

/// Where `needle` (ASCII) starts in `hay`, every occurrence, in one scan.
fn occurrences(hay: &str, needle: &str, case_insensitive: bool) -> Vec<usize> {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    let same = |a: u8, b: u8| {
        if case_insensitive {
            a.eq_ignore_ascii_case(&b)
        } else {
            a == b
        }
    };
    let mut found = Vec::new();
    if n.is_empty() || h.len() < n.len() {
        return found;
    }
    // Tags are a few bytes long: each position is compared with a bounded
    // number of bytes, so the scan is linear.
    for i in 0..=h.len() - n.len() {
        if h[i] == b'<' && h[i..i + n.len()].iter().zip(n).all(|(&a, &b)| same(a, b)) {
            found.push(i);
        }
    }
    found
}

/// The text inside a reply's one tagged block.
fn block<'a>(text: &'a str, tag: &Tag) -> Result<&'a str, Malformed> {
    let open = format!("<{}>", tag.name);
    let close = format!("</{}>", tag.name);
    let opens = occurrences(text, &open, tag.case_insensitive);
    let start = match opens.as_slice() {
        [] => {
            return Err(Malformed::new(
                "reply::no_tag",
                format!("the reply has no {open} tag"),
            ))
        }
        [one] => one + open.len(),
        many => {
            return Err(Malformed::new(
                "reply::several_tags",
                format!("the reply has {} {open} tags, not one", many.len()),
            ))
        }
    };
    let closes = occurrences(text, &close, tag.case_insensitive);
    let end = match tag.closing {
        Closing::ExactlyOne => match closes.as_slice() {
            [] => None,
            [one] if *one >= start => Some(*one),
            [_] => {
                return Err(Malformed::new(
                    "reply::tag_order",
                    format!("{close} comes before {open}"),
                ))
            }
            many => {
                return Err(Malformed::new(
                    "reply::several_tags",
                    format!("the reply has {} {close} tags, not one", many.len()),
                ))
            }
        },
        Closing::FirstAfter => closes.into_iter().find(|&c| c >= start),
    };
    let Some(end) = end else {
        return Err(Malformed::new(
            "reply::unclosed_tag",
            format!("{open} is not closed by {close}"),
        ));
    };
    Ok(&text[start..end])
}

/// The text inside one code fence, when fences are allowed and there is one.
fn unfenced(body: &str, fences: bool) -> Result<&str, Malformed> {
    let is_ws = |c: char| matches!(c, ' ' | '\t' | '\r' | '\n');
    let trimmed = body.trim_matches(is_ws);
    let Some(rest) = trimmed.strip_prefix("```") else {
        return Ok(body);
    };
    if !fences {
        return Err(Malformed::new(
            "reply::fence",
            "the JSON is wrapped in a code fence, which this rubric does not allow",
        ));
    }
    let Some(inner) = rest.strip_suffix("```") else {
        // A fence closed with text after it is not an unclosed fence.
        let message = match rest.contains("```") {
            true => "text follows the code fence: the fence must hold the whole reply",
            false => "a code fence is opened and not closed",
        };
        return Err(Malformed::new("reply::fence", message));
    };
    let line_end = inner.find('\n').unwrap_or(inner.len());
    let language = inner[..line_end].trim_matches(is_ws);
    if !(language.is_empty() || language.eq_ignore_ascii_case("json")) {
        return Err(Malformed::new(
            "reply::fence",
            format!("a code fence of language {language:?}, not json"),
        ));
    }
    Ok(&inner[line_end..])
}

#[cfg(test)]
mod tests;
