//! Case input: the bytes of one case, or of one batch line, to a JSON case.
//!
//! `eval CASE` and `eval --batch` read a case the same way, so the same bytes
//! give the same answer in both: at most the size limit, UTF-8 or refused
//! (never repaired), then JSON, then out of its `{"case": …}` envelope. A
//! batch line is read in one pass into a `CaseJson` (`read_case_text`),
//! which reads every text as serde_json does or leaves it to serde_json.
//!
//! Invariant: no read here holds more than the size limit plus one byte of a
//! case or line in memory, and the limit is at most `MAX_CASE_BYTES`.

use std::io::{BufRead, Read};
use std::path::Path;

use bareme::rulebook::load::{read_capped, MAX_CASE_BYTES};
use bareme::{CaseJson, Rulebook};

/// The size limit of one case or batch line: the rulebook's
/// `[limits] max_case_bytes`. The checker refuses one above `MAX_CASE_BYTES`;
/// the bound is kept here too, for a `Rulebook` whose limits were set by hand.
pub fn case_limit(rb: &Rulebook) -> usize {
    rb.limits().max_case_bytes.min(MAX_CASE_BYTES)
}

/// Why a case is refused before validation (the size limit is `limit`).
pub fn too_large(limit: usize) -> String {
    format!("the case is larger than the limit of {limit} bytes")
}

/// Reads one case from a file or, for `-`, standard input, refusing more than `limit` bytes.
pub fn read_case(path: Option<&Path>, limit: usize) -> Result<Vec<u8>, String> {
    let cap = u64::try_from(limit).unwrap_or(u64::MAX);
    let bytes = match path {
        None => return Err("no case given: pass a JSON file, or - for standard input".into()),
        Some(p) if p.as_os_str() == "-" => read_capped(std::io::stdin(), cap)
            .map_err(|e| format!("cannot read standard input: {e}"))?,
        Some(p) => std::fs::File::open(p)
            .and_then(|f| read_capped(f, cap))
            .map_err(|e| format!("cannot read {}: {e}", p.display()))?,
    };
    bytes.ok_or_else(|| too_large(limit))
}

/// The JSON case in `bytes`: text that is not UTF-8 is refused, as a JSON
/// parser must, so two distinct byte strings never read as one case.
pub fn parse_case(bytes: &[u8]) -> Result<serde_json::Value, String> {
    let text = case_text(bytes)?;
    let value = serde_json::from_str(text).map_err(|e| json_error(text, &e))?;
    Ok(unwrap_envelope(value))
}

/// A case read from its text, as `eval --batch` reads it: in one pass,
/// borrowing the line, or (for the texts that reader leaves to serde_json:
/// errors, equal keys, deep nesting) as [`parse_case`] reads it.
pub enum CaseText<'t> {
    /// Read in one pass.
    Flat(CaseJson<'t>),
    /// Read by serde_json.
    Value(serde_json::Value),
}

/// The JSON case in `bytes`, as [`parse_case`] reads it (same value, same
/// refusals and messages), without a `serde_json::Value` when it can.
pub fn read_case_text(bytes: &[u8]) -> Result<CaseText<'_>, String> {
    let text = case_text(bytes)?;
    match CaseJson::parse(text) {
        Some(flat) => Ok(CaseText::Flat(flat.without_envelope())),
        None => {
            let value = serde_json::from_str(text).map_err(|e| json_error(text, &e))?;
            Ok(CaseText::Value(unwrap_envelope(value)))
        }
    }
}

/// The text of a case: UTF-8 without a byte order mark, or refused.
fn case_text(bytes: &[u8]) -> Result<&str, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        format!(
            "the case is not UTF-8 text: invalid byte at offset {}",
            e.valid_up_to()
        )
    })?;
    if text.starts_with('\u{feff}') {
        return Err("the case starts with a byte order mark (U+FEFF), which JSON text may not: save it as UTF-8 without one".into());
    }
    Ok(text)
}

/// serde_json's message, except where it names a symptom rather than the
/// cause: an escape `\uD800`–`\uDFFF` not paired with its other half reads
/// as "unexpected end of hex escape".
fn json_error(text: &str, e: &serde_json::Error) -> String {
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

/// The case inside an envelope, `{"case": CASE}`: an object whose only key is
/// `case`. Anything else is the case itself. No rulebook may declare an input
/// named `case` (`check::bad_name`), so no case can be mistaken for an envelope.
fn unwrap_envelope(value: serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(mut o) if o.len() == 1 => match o.remove("case") {
            Some(case) => case,
            None => serde_json::Value::Object(o),
        },
        other => other,
    }
}

/// One line of a batch, without its line ending.
pub enum BatchLine<'a> {
    /// The line's bytes.
    Fits(&'a [u8]),
    /// The line was longer than the limit; its rest was skipped unread.
    TooLong,
}

/// Reads the next line into `buf`, holding at most `limit` + 1 of its bytes;
/// `None` at the end of the input.
pub fn next_line<'a>(
    reader: &mut dyn BufRead,
    limit: usize,
    buf: &'a mut Vec<u8>,
) -> std::io::Result<Option<BatchLine<'a>>> {
    buf.clear();
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    let n = (&mut *reader).take(cap).read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() != Some(&b'\n') && buf.len() > limit {
        skip_line(reader)?;
        return Ok(Some(BatchLine::TooLong));
    }
    let line = buf.strip_suffix(b"\n").unwrap_or(buf);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    Ok(Some(BatchLine::Fits(line)))
}

/// Skips to the next line without holding what it skips.
fn skip_line(reader: &mut dyn BufRead) -> std::io::Result<()> {
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(());
        }
        match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => {
                reader.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = chunk.len();
                reader.consume(n);
            }
        }
    }
}
