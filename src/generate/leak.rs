//! The leak scan of a drawn task: no amount the answer computes may be
//! read in its prompt (in any of the ways a reader writes an amount), and
//! the reason code no more often than the answer format shows it. Most
//! amounts are ruled out by the prompt's digit runs, found in one pass.

use rust_decimal::Decimal;
use serde_json::Value as Json;
use std::sync::Arc;

use super::draw::Redraw;
use super::model::{Checks, Language};
use super::prompt::write_amount;
use crate::value::decimal_text;

/// No computed amount of the answer in the prompt, and the reason code
/// no more often than the answer format (`format`) shows it; `shown`
/// are the fields the profile's prompt shows on purpose.
pub(super) fn leaks(
    checks: &Checks,
    format: &str,
    prompt: &str,
    case: &Json,
    expected: &Json,
    reason: Option<&str>,
    shown: &[Arc<str>],
) -> Result<(), Redraw> {
    let mut copied = Vec::new();
    if !checks.may_copy.is_empty() {
        amounts(case, &mut copied);
    }
    // Every digit run of a number found in the prompt is a whole digit
    // run of the prompt: most amounts are ruled out without a search.
    let runs = DigitRuns::of(prompt);
    // Numbers written with a fractional part, by value: an amount written
    // with other digits (`538.720`) or separators (`538'72`, `4.800,00`)
    // than a reader's are found too. Filled at the first amount looked for.
    let mut fractions: Option<Vec<Decimal>> = None;
    for field in checks.no_leak.iter().filter(|f| !shown.contains(f)) {
        let mut values = Vec::new();
        collect(expected, field, &mut values);
        let may_copy = checks.may_copy.contains(field);
        for d in values {
            if d.is_zero() || (may_copy && copied.contains(&d)) {
                continue;
            }
            let written = renderings(&d)
                .iter()
                .any(|r| runs.may_hold_all(r) && appears(prompt, r));
            let mut valued = || {
                let fractions = fractions.get_or_insert_with(|| fractional_numbers(prompt));
                fractions.contains(&d.abs().normalize())
            };
            if written || valued() {
                return Err(Redraw(format!("{field} appears in the prompt")));
            }
        }
    }
    if let (true, Some(code)) = (checks.hide_reason, reason) {
        if prompt.matches(code).count() > format.matches(code).count() {
            return Err(Redraw("the reason code appears in the prompt".into()));
        }
    }
    Ok(())
}

/// Every value of `key` anywhere in an answer.
fn collect(json: &Json, key: &str, out: &mut Vec<Decimal>) {
    match json {
        Json::Object(map) => {
            for (k, v) in map {
                if k == key {
                    if let Some(d) = json_decimal(v) {
                        out.push(d);
                    }
                }
                collect(v, key, out);
            }
        }
        Json::Array(items) => items.iter().for_each(|v| collect(v, key, out)),
        _ => {}
    }
}

/// Every amount the case holds (strings and numbers that read as decimals).
fn amounts(json: &Json, out: &mut Vec<Decimal>) {
    match json {
        Json::Object(map) => map.values().for_each(|v| amounts(v, out)),
        Json::Array(items) => items.iter().for_each(|v| amounts(v, out)),
        v => out.extend(json_decimal(v)),
    }
}

/// A JSON string or number read as a decimal, if it is one.
pub(super) fn json_decimal(v: &Json) -> Option<Decimal> {
    match v {
        Json::String(s) => s.parse().ok(),
        Json::Number(n) => n.to_string().parse().ok(),
        _ => None,
    }
}

/// The ways a reader writes an amount: `1234.56`, `1,234.56`, `1 234,56`, `1234,56`.
fn renderings(d: &Decimal) -> Vec<String> {
    let plain = decimal_text(d);
    let french = write_amount(d, None, Language::French);
    let mut out = vec![
        plain.clone(),
        plain.replace('.', ","),
        write_amount(d, None, Language::English),
        french.replace('\u{202f}', " "),
        french.replace('\u{202f}', "\u{a0}"),
        french,
    ];
    out.sort();
    out.dedup();
    out
}

/// Every number of `text` written with a fractional part, as its value
/// (normalised, sign left out): a run of digits and single separators
/// (`.`, `,`, `'`, a space, a no-break or narrow no-break space) between
/// digits, whose last separator is a `.` or `,` read as the decimal mark
/// and the others as grouping (`1 234,560` is 1234.56). A number without
/// one is left to the renderings: `level 5` is not the amount `5.00`.
fn fractional_numbers(text: &str) -> Vec<Decimal> {
    const SEPARATORS: [char; 6] = ['.', ',', '\'', ' ', '\u{a0}', '\u{202f}'];
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if !c.is_ascii_digit() {
            continue;
        }
        // The token's digits, and where its last separator fell in them.
        let mut digits = String::from(c);
        let mut mark: Option<(char, usize)> = None;
        loop {
            match chars.peek().copied() {
                Some(d) if d.is_ascii_digit() => digits.push(d),
                Some(sep) if SEPARATORS.contains(&sep) => {
                    let mut ahead = chars.clone();
                    ahead.next();
                    if !ahead.peek().is_some_and(char::is_ascii_digit) {
                        break;
                    }
                    mark = Some((sep, digits.len()));
                }
                _ => break,
            }
            chars.next();
            if digits.len() > 40 {
                break;
            }
        }
        let Some(('.' | ',', at)) = mark else {
            continue;
        };
        let (whole, fraction) = digits.split_at(at);
        if let Ok(d) = format!("{whole}.{fraction}").parse::<Decimal>() {
            out.push(d.normalize());
        }
    }
    out
}

/// The maximal runs of ASCII digits of a text, as a 4,096-bit filter:
/// a number one of whose runs is not in it does not appear in the text,
/// so one pass over a prompt spares most searches for an amount.
struct DigitRuns([u64; 64]);

impl DigitRuns {
    fn of(text: &str) -> DigitRuns {
        let mut bits = [0u64; 64];
        Self::each_run(text, |h| bits[(h >> 6) as usize & 63] |= 1 << (h & 63));
        DigitRuns(bits)
    }

    /// Whether every digit run of `number` may be a run of the text.
    fn may_hold_all(&self, number: &str) -> bool {
        let mut all = true;
        Self::each_run(number, |h| {
            all &= self.0[(h >> 6) as usize & 63] & (1 << (h & 63)) != 0
        });
        all
    }

    /// Calls `f` with a hash of each maximal digit run (FNV-1a). A prompt
    /// is mostly words: the gaps between runs are skipped eight bytes at a
    /// time.
    fn each_run(text: &str, mut f: impl FnMut(u64)) {
        const BASIS: u64 = 0xcbf2_9ce4_8422_2325;
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            while let Some(word) = bytes.get(i..i + 8) {
                let word = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
                if holds_digit(word) {
                    break;
                }
                i += 8;
            }
            while bytes.get(i).is_some_and(|b| !b.is_ascii_digit()) {
                i += 1;
            }
            let mut h = BASIS;
            let start = i;
            while let Some(&b) = bytes.get(i).filter(|b| b.is_ascii_digit()) {
                h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
                i += 1;
            }
            if i > start {
                f(h);
            }
        }
    }
}

/// Whether one of the eight bytes of `word` is an ASCII digit: XOR with
/// `0x30` maps exactly the digits below 10, and a byte below 10 is found
/// by the borrow it leaves when 10 is subtracted from each byte.
fn holds_digit(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let x = word ^ (ONES * 0x30);
    x.wrapping_sub(ONES * 10) & !x & (ONES * 0x80) != 0
}

/// Whether `needle` appears in `text` as a whole number (no digit, or
/// separator and digit, on either side).
fn appears(text: &str, needle: &str) -> bool {
    text.match_indices(needle).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after_at = at + needle.len();
        let mut after = text[after_at..].chars();
        let next = after.next();
        let next2 = after.next();
        let digit_before = before.is_some_and(|c| c.is_ascii_digit());
        let digit_after = next.is_some_and(|c| c.is_ascii_digit())
            || (matches!(next, Some('.' | ',')) && next2.is_some_and(|c| c.is_ascii_digit()));
        !digit_before && !digit_after
    })
}

#[cfg(test)]
mod tests {
    use super::{fractional_numbers, holds_digit, leaks, DigitRuns};
    use crate::generate::model::Checks;
    use rust_decimal::Decimal;
    use std::sync::Arc;

    #[test]
    fn an_amount_of_the_answer_is_found_however_the_prompt_writes_it() {
        let checks = Checks {
            no_leak: vec![Arc::from("net")],
            hide_reason: false,
            margin: None,
            margins: Vec::new(),
            may_copy: Vec::new(),
            signature: Vec::new(),
        };
        let expected = serde_json::json!({"net": "4800.72"});
        let case = serde_json::json!({});
        let leaked =
            |prompt: &str| leaks(&checks, "", prompt, &case, &expected, None, &[]).is_err();
        for prompt in [
            "Net: 4800.72.",
            "Net: 4,800.72",
            "Net: 4\u{202f}800,72",
            "Net: 4800.720",
            "Net: 4.800,72 EUR",
            "Net: 4'800.72",
            "Net: -4800.7200",
        ] {
            assert!(leaked(prompt), "{prompt}");
        }
        for prompt in [
            "Net: 4800.7",
            "Net: 4800.721",
            "Net: 480072",
            "Levels 4800 and 72",
        ] {
            assert!(!leaked(prompt), "{prompt}");
        }
    }

    #[test]
    fn a_fraction_is_read_whatever_its_separators() {
        let found = fractional_numbers(
            "538.720 and 4.800,00, 1 234,5 or 1\u{202f}234,50; 12'345.6; level 5, 2026-03, 7,",
        );
        let want: Vec<Decimal> = ["538.72", "4800", "1234.5", "1234.5", "12345.6"]
            .iter()
            .map(|t| {
                t.parse::<Decimal>()
                    .map(|d| d.normalize())
                    .unwrap_or_default()
            })
            .collect();
        // Whole numbers (`5`, `2026`, `03`) and a separator before no digit
        // are no fractions.
        assert_eq!(found, want);
    }

    #[test]
    fn a_word_holds_a_digit_exactly_when_one_of_its_bytes_is_one() {
        for b in 0..=255u8 {
            for at in 0..8 {
                let mut bytes = [b'x'; 8];
                bytes[at] = b;
                assert_eq!(
                    holds_digit(u64::from_le_bytes(bytes)),
                    b.is_ascii_digit(),
                    "byte {b:#x} at {at}"
                );
            }
        }
    }

    /// The runs, found byte by byte: what the word-at-a-time scan must give.
    fn runs_by_bytes(text: &str) -> Vec<u64> {
        let mut out = Vec::new();
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        let mut in_run = false;
        for &b in text.as_bytes() {
            if b.is_ascii_digit() {
                h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
                in_run = true;
            } else if in_run {
                out.push(h);
                h = 0xcbf2_9ce4_8422_2325;
                in_run = false;
            }
        }
        if in_run {
            out.push(h);
        }
        out
    }

    #[test]
    fn every_digit_run_is_found_wherever_it_falls() {
        let texts = [
            "",
            "7",
            "no digits at all in this long sentence, none",
            "Salaire brut : 3 084,04 € ; taux 4,5 % — plafond 5000.00",
            "12345678901234567890",
            "abcdefg1hijklmn22opqrstu333vwxyz",
            "é1è22à333ç",
        ];
        for text in texts {
            for pad in 0..9 {
                let padded = format!("{}{text}", "-".repeat(pad));
                let mut found = Vec::new();
                DigitRuns::each_run(&padded, |h| found.push(h));
                assert_eq!(found, runs_by_bytes(&padded), "{padded:?}");
            }
        }
    }
}
