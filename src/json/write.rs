//! The one JSON writer: strings, decimals, integers, booleans and lists
//! appended to a byte buffer, as serde_json writes them compactly.
//!
//! The trace (`trace::json`), the answer writer and the batch's error
//! lines write JSON straight into the line's buffer, and they meet here, so
//! that a text is escaped, and a decimal spelt, one way in the whole crate.
//!
//! Invariant: every function appends valid JSON for what it is given (the
//! bytes serde_json writes for the same value), and none can fail or panic.

use std::fmt::{self, Write as _};

use rust_decimal::Decimal;

/// A JSON string as serde_json escapes it: `"`, `\` and control characters
/// below U+0020 (`\b`, `\t`, `\n`, `\f`, `\r`, else `\u00XX`), nothing else.
/// Most of a trace is names and formula text with nothing to escape, so the
/// text is searched eight bytes at a time and copied in runs.
pub fn write_string(out: &mut Vec<u8>, text: &(impl AsRef<str> + ?Sized)) {
    let bytes = text.as_ref().as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    // A short text (an answer's id or name, a step's name) is tested a
    // byte at a time: the word scan's setup costs more than it saves there.
    if bytes.len() < 16 && bytes.iter().all(|&b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.extend_from_slice(bytes);
        out.push(b'"');
        return;
    }
    let mut start = 0;
    let mut at = 0;
    while at < bytes.len() {
        if let Some(word) = bytes.get(at..at + 8) {
            let mut chunk = [0u8; 8];
            chunk.copy_from_slice(word);
            if !needs_escape(u64::from_le_bytes(chunk)) {
                at += 8;
                continue;
            }
        }
        let end = (at + 8).min(bytes.len());
        for (i, &b) in bytes[at..end].iter().enumerate() {
            if let Some(e) = escape(b) {
                out.extend_from_slice(&bytes[start..at + i]);
                e.write(out);
                start = at + i + 1;
            }
        }
        at = end;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// Whether any of eight bytes is `"`, `\` or below 0x20: the word tests
/// for a zero byte and for a byte below a bound (up to 0x80), which are
/// exact about whether, not about where.
fn needs_escape(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    (below_space
        | zero_byte(word ^ (ONES * u64::from(b'"')))
        | zero_byte(word ^ (ONES * u64::from(b'\\'))))
        != 0
}

/// How serde_json writes a byte of a string that it escapes.
enum Escape {
    Short(&'static [u8]),
    Unicode(u8),
}

impl Escape {
    fn write(self, out: &mut Vec<u8>) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        match self {
            Escape::Short(text) => out.extend_from_slice(text),
            Escape::Unicode(b) => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 0xf)],
            ]),
        }
    }
}

fn escape(b: u8) -> Option<Escape> {
    Some(match b {
        b'"' => Escape::Short(b"\\\""),
        b'\\' => Escape::Short(b"\\\\"),
        0x08 => Escape::Short(b"\\b"),
        b'\t' => Escape::Short(b"\\t"),
        b'\n' => Escape::Short(b"\\n"),
        0x0c => Escape::Short(b"\\f"),
        b'\r' => Escape::Short(b"\\r"),
        0x00..=0x1f => Escape::Unicode(b),
        _ => return None,
    })
}

/// A decimal's text as `Decimal`'s `Display` writes it (every digit of the
/// scale kept, no exponent), without the formatter machinery: an answer
/// writes several numbers, a trace thousands, and through `Display` they
/// cost more than computing them. Unquoted, it is a JSON number as written.
pub fn write_decimal(out: &mut Vec<u8>, d: &Decimal) {
    let mut digits = [0u8; 40];
    let mut at = digits.len();
    // Digits beyond a machine word first; the rest (most mantissas, whole)
    // in a word, whose division by ten is a multiplication.
    let mut wide = d.mantissa().unsigned_abs();
    while wide > u128::from(u64::MAX) {
        at -= 1;
        digits[at] = b'0' + (wide % 10) as u8;
        wide /= 10;
    }
    let mut word = wide as u64;
    loop {
        at -= 1;
        digits[at] = b'0' + (word % 10) as u8;
        word /= 10;
        if word == 0 {
            break;
        }
    }
    let written = &digits[at..];
    let scale = d.scale() as usize;
    out.reserve(written.len() + scale + 3);
    if d.is_sign_negative() {
        out.push(b'-');
    }
    let (whole, fraction) = if written.len() > scale {
        written.split_at(written.len() - scale)
    } else {
        (&b"0"[..], written)
    };
    out.extend_from_slice(whole);
    if scale > 0 {
        out.push(b'.');
        out.extend(std::iter::repeat_n(b'0', scale - fraction.len()));
        out.extend_from_slice(fraction);
    }
}

/// A decimal as a JSON string (exact amounts are written as text): its
/// digits need no escape.
pub fn write_quoted_decimal(out: &mut Vec<u8>, d: &Decimal) {
    out.push(b'"');
    write_decimal(out, d);
    out.push(b'"');
}

/// A value's `Display` text as a JSON string, as serde's `collect_str` writes it.
pub fn write_displayed(out: &mut Vec<u8>, v: &impl fmt::Display) {
    let mut text = String::new();
    // Writing to a `String` cannot fail.
    let _ = write!(text, "{v}");
    write_string(out, &text);
}

/// `true` or `false`.
pub fn write_bool(out: &mut Vec<u8>, b: bool) {
    out.extend_from_slice(if b { b"true" } else { b"false" });
}

/// A whole number without a sign.
pub fn write_integer(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// `{"key":value,…}`, each key a JSON string and each value written by
/// `value`: the one object writer of answers and traces.
pub fn write_object<'t, V: 't + ?Sized>(
    out: &mut Vec<u8>,
    entries: impl IntoIterator<Item = (&'t str, &'t V)>,
    value: impl Fn(&mut Vec<u8>, &V),
) {
    out.push(b'{');
    for (i, (key, v)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_string(out, key);
        out.push(b':');
        value(out, v);
    }
    out.push(b'}');
}

/// `[a,b,…]`, each item written by `item`.
pub fn write_list<'t, T: 't + ?Sized>(
    out: &mut Vec<u8>,
    items: impl IntoIterator<Item = &'t T>,
    item: impl Fn(&mut Vec<u8>, &T),
) {
    out.push(b'[');
    for (i, x) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        item(out, x);
    }
    out.push(b']');
}
