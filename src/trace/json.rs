//! The trace as compact JSON text, written straight into a buffer.
//!
//! A traced batch line is mostly its trace (about 1,800 lines of pretty
//! JSON for a payslip), and through serde each field went through the
//! serializer's dispatch and each number through `Display` and a
//! formatter adapter. This writer gives the very bytes serde_json writes
//! for the trace's `Serialize` (the documented format,
//! `docs/trace-format.md`), which stays the reference: `tests/it/traces.rs`
//! holds the two equal on every conformance case.
//!
//! INVARIANT: a change to a field of the trace model is made here too, in
//! the same order and with the same `skip_serializing_if`.

use std::fmt::{self, Write as _};

use super::{
    CheckTrace, CiteTrace, Event, InputTrace, Lookup, OutcomeTrace, Read, ReportTrace,
    RoundingTrace, StepTrace, Trace,
};
use crate::facts::Given;
use crate::num::exact::Num;
use crate::value::{write_decimal, Value};

/// Appends the trace's JSON text, as `serde_json::to_writer` writes it.
pub fn write_trace_json(out: &mut Vec<u8>, trace: &Trace) {
    out.extend_from_slice(b"{\"rulebook\":");
    string(out, &trace.rulebook);
    if let Some(ablation) = &trace.ablation {
        out.extend_from_slice(b",\"ablation\":");
        string(out, ablation);
    }
    if !trace.reports.is_empty() {
        out.extend_from_slice(b",\"reports\":");
        list(out, &trace.reports, report);
    }
    out.extend_from_slice(b",\"inputs\":");
    list(out, &trace.inputs, input);
    out.extend_from_slice(b",\"events\":");
    list(out, &trace.events, event);
    out.extend_from_slice(b",\"outcome\":");
    outcome(out, &trace.outcome);
    out.push(b'}');
}

/// `[a,b,…]`, each item written by `item`.
fn list<'t, T: 't + ?Sized>(
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

fn report(out: &mut Vec<u8>, r: &ReportTrace) {
    out.push(b'{');
    if let Some(title) = &r.title {
        out.extend_from_slice(b"\"title\":");
        string(out, title);
        out.push(b',');
    }
    out.extend_from_slice(b"\"header\":");
    list(out, &r.header, string);
    out.extend_from_slice(b",\"rows\":");
    list(out, &r.rows, |out, row: &Vec<String>| {
        list(out, row, string)
    });
    out.extend_from_slice(b",\"totals\":");
    list(out, &r.totals, |out, (label, value): &(String, String)| {
        out.push(b'[');
        string(out, label);
        out.push(b',');
        string(out, value);
        out.push(b']');
    });
    out.push(b'}');
}

fn input(out: &mut Vec<u8>, i: &InputTrace) {
    out.extend_from_slice(b"{\"name\":");
    string(out, &i.name);
    out.extend_from_slice(b",\"given\":\"");
    out.extend_from_slice(match i.given {
        Given::Value => b"value".as_slice(),
        Given::Absent => b"absent",
        Given::Null => b"null",
        Given::Default => b"default",
        Given::Invalid => b"invalid",
        Given::Ignored => b"ignored",
    });
    out.extend_from_slice(b"\",\"value\":");
    value(out, &i.value);
    out.push(b'}');
}

fn event(out: &mut Vec<u8>, e: &Event) {
    match e {
        Event::Check(c) => check(out, c),
        Event::Step(s) => step(out, s),
        Event::Cite(c) => {
            out.extend_from_slice(b"{\"event\":\"cite\",");
            cite_fields(out, c);
            out.push(b'}');
        }
    }
}

fn check(out: &mut Vec<u8>, c: &CheckTrace) {
    out.extend_from_slice(b"{\"event\":\"check\",\"index\":");
    integer(out, c.index as u64);
    if let Some(label) = &c.label {
        out.extend_from_slice(b",\"label\":");
        string(out, label);
    }
    out.extend_from_slice(b",\"when\":");
    match &c.when {
        Some(when) => string(out, when),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"reads\":");
    list(out, &c.reads, read);
    out.extend_from_slice(b",\"held\":");
    boolean(out, c.held);
    out.extend_from_slice(b",\"gives\":");
    string(out, &c.gives);
    out.push(b'}');
}

fn step(out: &mut Vec<u8>, s: &StepTrace) {
    out.extend_from_slice(b"{\"event\":\"step\",\"step\":");
    string(out, &s.step);
    if let Some(item) = &s.item {
        out.extend_from_slice(b",\"item\":");
        string(out, item);
    }
    if let Some(label) = &s.label {
        out.extend_from_slice(b",\"label\":");
        string(out, label);
    }
    out.extend_from_slice(b",\"clauses\":");
    list(out, s.clauses.iter(), string);
    if !s.cites.is_empty() {
        out.extend_from_slice(b",\"cites\":");
        list(out, &s.cites, |out, c: &CiteTrace| {
            out.push(b'{');
            cite_fields(out, c);
            out.push(b'}');
        });
    }
    if s.detail {
        out.extend_from_slice(b",\"detail\":true");
    }
    out.extend_from_slice(b",\"formula\":");
    string(out, &s.formula);
    if let Some(c) = &s.condition {
        out.extend_from_slice(b",\"condition\":{\"formula\":");
        string(out, &c.formula);
        out.extend_from_slice(b",\"held\":");
        boolean(out, c.held);
        out.push(b'}');
    }
    out.extend_from_slice(b",\"reads\":");
    list(out, &s.reads, read);
    out.extend_from_slice(b",\"lookups\":");
    list(out, &s.lookups, lookup);
    out.extend_from_slice(b",\"roundings\":");
    list(out, &s.roundings, rounding);
    out.extend_from_slice(b",\"exact\":");
    value(out, &s.exact);
    out.extend_from_slice(b",\"value\":");
    value(out, &s.value);
    out.push(b'}');
}

/// A citation's fields, inside braces the caller writes.
fn cite_fields(out: &mut Vec<u8>, c: &CiteTrace) {
    out.extend_from_slice(b"\"when\":");
    string(out, &c.when);
    out.extend_from_slice(b",\"held\":");
    boolean(out, c.held);
    out.extend_from_slice(b",\"clauses\":");
    list(out, c.clauses.iter(), string);
}

fn read(out: &mut Vec<u8>, r: &Read) {
    out.extend_from_slice(b"{\"name\":");
    string(out, &r.name);
    out.extend_from_slice(b",\"value\":");
    value(out, &r.value);
    out.push(b'}');
}

fn lookup(out: &mut Vec<u8>, l: &Lookup) {
    out.extend_from_slice(b"{\"kind\":");
    string(out, l.kind);
    out.extend_from_slice(b",\"table\":");
    string(out, &l.table);
    out.extend_from_slice(b",\"source\":");
    string(out, &l.source);
    out.extend_from_slice(b",\"key\":");
    string(out, &l.key);
    out.extend_from_slice(b",\"row\":");
    match &l.row {
        Some(row) => string(out, row),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"why\":");
    string(out, &l.why);
    out.push(b'}');
}

fn rounding(out: &mut Vec<u8>, r: &RoundingTrace) {
    let rounded = &r.rounded;
    out.extend_from_slice(b"{\"at\":");
    string(out, &r.at);
    out.extend_from_slice(b",\"mode\":\"");
    out.extend_from_slice(rounded.mode.name().as_bytes());
    out.extend_from_slice(b"\",\"places\":");
    integer(out, u64::from(rounded.places));
    out.extend_from_slice(b",\"before\":");
    match &rounded.before {
        Num::Dec(d) => quoted_decimal(out, d),
        Num::Frac(f) => displayed(out, f),
    }
    out.extend_from_slice(b",\"after\":");
    quoted_decimal(out, &rounded.after);
    out.extend_from_slice(b",\"margin\":");
    quoted_decimal(out, &rounded.margin);
    out.push(b'}');
}

fn outcome(out: &mut Vec<u8>, o: &OutcomeTrace) {
    match o {
        OutcomeTrace::Decision {
            decision,
            reason,
            clauses,
        } => {
            out.extend_from_slice(b"{\"kind\":\"decision\",\"decision\":");
            string(out, decision);
            if let Some(reason) = reason {
                out.extend_from_slice(b",\"reason\":");
                string(out, reason);
            }
            out.extend_from_slice(b",\"clauses\":");
            list(out, clauses, string);
        }
        OutcomeTrace::Rejected { error } => {
            out.extend_from_slice(b"{\"kind\":\"rejected\",\"error\":{\"path\":");
            string(out, &error.path);
            out.extend_from_slice(b",\"message\":");
            string(out, &error.message);
            out.push(b'}');
        }
    }
    out.push(b'}');
}

/// A value as `Value`'s `Serialize` gives it: numbers, dates and named rows
/// as their text, missing values as `null`.
fn value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Absent | Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(b) => boolean(out, *b),
        Value::Text(t) => string(out, t),
        Value::Number(d) => quoted_decimal(out, d),
        Value::Record(r) if r.name.is_none() => {
            out.push(b'{');
            for (i, (name, field)) in r.names.iter().zip(r.fields.iter()).enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                string(out, name);
                out.push(b':');
                value(out, field);
            }
            out.push(b'}');
        }
        Value::List(items) => list(out, items.iter(), value),
        Value::Map(entries) => {
            out.push(b'{');
            for (i, (key, entry)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                string(out, key);
                out.push(b':');
                value(out, entry);
            }
            out.push(b'}');
        }
        Value::Fraction(_) | Value::Date(_) | Value::Month(_) | Value::Record(_) => {
            displayed(out, v);
        }
    }
}

/// A decimal's text, quoted (it needs no escape).
fn quoted_decimal(out: &mut Vec<u8>, d: &rust_decimal::Decimal) {
    out.push(b'"');
    write_decimal(out, d);
    out.push(b'"');
}

/// A value's `Display` text as a JSON string, as serde's `collect_str` writes it.
fn displayed(out: &mut Vec<u8>, v: &impl fmt::Display) {
    let mut text = String::new();
    // Writing to a `String` cannot fail.
    let _ = write!(text, "{v}");
    string(out, &text);
}

fn boolean(out: &mut Vec<u8>, b: bool) {
    out.extend_from_slice(if b { b"true" } else { b"false" });
}

fn integer(out: &mut Vec<u8>, mut n: u64) {
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

/// A JSON string as serde_json escapes it: `"`, `\` and control characters
/// below U+0020 (`\b`, `\t`, `\n`, `\f`, `\r`, else `\u00XX`), nothing else.
/// Most of a trace is names and formula text with nothing to escape, so the
/// text is searched eight bytes at a time and copied in runs. The answer
/// writer (`eval::write`) writes its texts through it too.
pub(crate) fn string(out: &mut Vec<u8>, text: &(impl AsRef<str> + ?Sized)) {
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
