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
/// A trace is thousands of short names and some long formula text: each
/// escape is found eight bytes at a time (a short text's bytes through a
/// table) and the plain runs between them copied whole.
pub fn write_string(out: &mut Vec<u8>, text: &(impl AsRef<str> + ?Sized)) {
    let bytes = text.as_ref().as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    match next_escape(bytes, 0) {
        // Most texts: one copy.
        None => out.extend_from_slice(bytes),
        Some(at) => write_escaped(out, bytes, at),
    }
    out.push(b'"');
}

/// The text from its first escape at `first` on, each escape written and
/// the plain runs between them copied whole.
fn write_escaped(out: &mut Vec<u8>, bytes: &[u8], first: usize) {
    let mut start = 0;
    let mut next = Some(first);
    while let Some(at) = next {
        out.extend_from_slice(bytes.get(start..at).unwrap_or_default());
        if let Some(&b) = bytes.get(at) {
            write_escape(out, b);
        }
        start = at + 1;
        next = next_escape(bytes, start);
    }
    out.extend_from_slice(bytes.get(start..).unwrap_or_default());
}

/// The position of the first byte at or after `from` that JSON escapes.
#[inline]
fn next_escape(bytes: &[u8], from: usize) -> Option<usize> {
    let len = bytes.len();
    if len < 8 {
        // Too short for a word: a byte at a time, through the table.
        return (from..len).find(|&i| bytes.get(i).is_some_and(|&b| ESCAPES[usize::from(b)] != 0));
    }
    let mut at = from;
    while let Some(word) = bytes.get(at..at + 8) {
        let found = escape_mask(u64::from_le_bytes(word.try_into().unwrap_or([b' '; 8])));
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let rest = len - at;
    if rest == 0 {
        return None;
    }
    // The last word of the text, its bytes before `at` (scanned already)
    // shifted out and spaces shifted in: `rest` is 1 to 7, so the shift is
    // 8 to 56 bits.
    let last = bytes.get(len - 8..)?;
    let shift = 8 * (8 - rest) as u32;
    let word = (u64::from_le_bytes(last.try_into().unwrap_or([b' '; 8])) >> shift)
        | (SPACES << (64 - shift));
    let found = escape_mask(word);
    (found != 0).then(|| at + (found.trailing_zeros() / 8) as usize)
}

/// Eight spaces: a byte JSON does not escape.
const SPACES: u64 = 0x2020_2020_2020_2020;

/// The high bit of each of eight bytes that is `"`, `\` or below 0x20,
/// exact for the lowest one set: the tests for a zero byte and for a byte
/// below a bound may also flag a byte above a flagged one (a borrow), never
/// one below. Bytes of 0x80 and above (UTF-8 past ASCII) are never flagged.
fn escape_mask(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    below_space
        | zero_byte(word ^ (ONES * u64::from(b'"')))
        | zero_byte(word ^ (ONES * u64::from(b'\\')))
}

/// For each byte, the letter of its short escape (`n` for `\n`), `u` for
/// `\u00XX`, 0 when it is written as it is.
static ESCAPES: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = b'u';
        b += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

/// How serde_json writes a byte of a string that it escapes.
fn write_escape(out: &mut Vec<u8>, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match ESCAPES[usize::from(b)] {
        0 => out.push(b),
        b'u' => out.extend_from_slice(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[usize::from(b >> 4)],
            HEX[usize::from(b & 0xf)],
        ]),
        letter => out.extend_from_slice(&[b'\\', letter]),
    }
}

/// A decimal's text as `Decimal`'s `Display` writes it (every digit of the
/// scale kept, no exponent), without the formatter machinery: an answer
/// writes several numbers, a trace thousands, and through `Display` they
/// cost more than computing them. Unquoted, it is a JSON number as written.
pub fn write_decimal(out: &mut Vec<u8>, d: &Decimal) {
    let mut text = [b'0'; DECIMAL_TEXT];
    let start = spell_decimal(&mut text, DECIMAL_TEXT, d);
    out.extend_from_slice(text.get(start..).unwrap_or_default());
}

/// A decimal as a JSON string (exact amounts are written as text): its
/// digits need no escape.
pub fn write_quoted_decimal(out: &mut Vec<u8>, d: &Decimal) {
    let mut text = [b'0'; DECIMAL_TEXT];
    let end = DECIMAL_TEXT - 1;
    let start = spell_decimal(&mut text, end, d).saturating_sub(1);
    for at in [start, end] {
        if let Some(quote) = text.get_mut(at) {
            *quote = b'"';
        }
    }
    out.extend_from_slice(text.get(start..).unwrap_or_default());
}

/// Room for the longest decimal's text and two quotes: 29 digits, a
/// leading `0`, a point, a sign.
const DECIMAL_TEXT: usize = 36;

/// Writes the decimal's text to end just before `end` in `text` (all `0`
/// bytes to begin with), from the last digit back, so it is copied out in
/// one piece; returns where it starts.
fn spell_decimal(text: &mut [u8; DECIMAL_TEXT], end: usize, d: &Decimal) -> usize {
    let mantissa = d.mantissa().unsigned_abs();
    let places = d.scale() as usize;
    let mut at = match (u64::try_from(mantissa), POWERS_OF_TEN.get(places)) {
        // Most mantissas fit a word: its whole part and fraction apart,
        // each written two digits at a time.
        (Ok(m), Some(&power)) => {
            let mut at = end;
            if places > 0 {
                at = put_digits(text, at, m % power, places);
                at = at.saturating_sub(1);
                if let Some(point) = text.get_mut(at) {
                    *point = b'.';
                }
            }
            put_digits(text, at, m / power, 1)
        }
        _ => spell_wide(text, end, mantissa, places),
    };
    if d.is_sign_negative() {
        at = at.saturating_sub(1);
        if let Some(sign) = text.get_mut(at) {
            *sign = b'-';
        }
    }
    at
}

/// 10^0 to 10^19, every power of ten a `u64` holds.
const POWERS_OF_TEN: [u64; 20] = {
    let mut powers = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        powers[i] = powers[i - 1] * 10;
        i += 1;
    }
    powers
};

/// "00" to "99".
const PAIRS: [[u8; 2]; 100] = {
    let mut pairs = [[0u8; 2]; 100];
    let mut i = 0;
    while i < 100 {
        pairs[i] = [b'0' + (i / 10) as u8, b'0' + (i % 10) as u8];
        i += 1;
    }
    pairs
};

/// Writes `n` to end before `at`, at least `width` digits (the text's `0`
/// bytes in front); returns where it starts.
fn put_digits(text: &mut [u8; DECIMAL_TEXT], mut at: usize, mut n: u64, width: usize) -> usize {
    let widest = at.saturating_sub(width);
    while n >= 10 {
        at = at.saturating_sub(2);
        if let (Some(slot), Some(pair)) = (text.get_mut(at..at + 2), PAIRS.get((n % 100) as usize))
        {
            slot.copy_from_slice(pair);
        }
        n /= 100;
    }
    if n > 0 {
        at = at.saturating_sub(1);
        if let Some(slot) = text.get_mut(at) {
            *slot = b'0' + n as u8;
        }
    }
    at.min(widest)
}

/// A mantissa beyond a word, a digit at a time: the fraction's `places`
/// digits, the point, the whole part (at least one digit).
fn spell_wide(text: &mut [u8; DECIMAL_TEXT], end: usize, mut wide: u128, places: usize) -> usize {
    let mut at = end;
    let mut put = |b: u8| {
        at = at.saturating_sub(1);
        if let Some(slot) = text.get_mut(at) {
            *slot = b;
        }
    };
    for _ in 0..places {
        put(b'0' + (wide % 10) as u8);
        wide /= 10;
    }
    if places > 0 {
        put(b'.');
    }
    loop {
        put(b'0' + (wide % 10) as u8);
        wide /= 10;
        if wide == 0 {
            break;
        }
    }
    at
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
#[inline]
pub fn write_integer(out: &mut Vec<u8>, n: u64) {
    // Most are a position or an index below a hundred (a trace writes
    // several per step): one or two bytes, without the loop.
    match n {
        0..=9 => out.push(b'0' + n as u8),
        10..=99 => out.extend_from_slice(&[b'0' + (n / 10) as u8, b'0' + (n % 10) as u8]),
        _ => write_long_integer(out, n),
    }
}

#[inline(never)]
fn write_long_integer(out: &mut Vec<u8>, mut n: u64) {
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
    mut value: impl FnMut(&mut Vec<u8>, &V),
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
    mut item: impl FnMut(&mut Vec<u8>, &T),
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
