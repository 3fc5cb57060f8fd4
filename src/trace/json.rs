//! The trace as compact JSON text, written straight into a buffer: the
//! one way a trace becomes JSON (`eval --trace json`, traced batches, the
//! trace re-read as a value where a test wants one).
//!
//! A traced batch line is mostly its trace (about 1,800 lines of pretty
//! JSON for a payslip), and through serde each field went through the
//! serializer's dispatch and each number through `Display` and a
//! formatter adapter. Here each field is written in place through the
//! crate's one JSON writer (`crate::json`). The format is
//! `docs/trace-format.md`; its bytes are pinned by the JSON snapshots and
//! the digest of every conformance case's trace in `tests/it/traces.rs`.

use super::{
    CheckTrace, CiteTrace, Event, InputTrace, Lookup, OutcomeTrace, ReadTrace, ReportTrace,
    RoundingTrace, StepTrace, Trace,
};
use crate::facts::Given;
use crate::json::{
    write_bool, write_displayed, write_integer, write_list, write_object, write_quoted_decimal,
    write_string,
};
use crate::num::exact::Num;
use crate::value::Value;

/// The keys every trace format opens with, after its `{` (and its format):
/// the rulebook, the ablation, the reports and the inputs.
pub(super) fn write_head(out: &mut Vec<u8>, trace: &Trace) {
    out.extend_from_slice(b"\"rulebook\":");
    write_string(out, &trace.rulebook);
    if let Some(ablation) = &trace.ablation {
        out.extend_from_slice(b",\"ablation\":");
        write_string(out, ablation);
    }
    if !trace.reports.is_empty() {
        out.extend_from_slice(b",\"reports\":");
        write_list(out, &trace.reports, report);
    }
    out.extend_from_slice(b",\"inputs\":");
    write_list(out, &trace.inputs, input);
}

/// Appends the trace's JSON text, as `serde_json::to_writer` writes it.
pub fn write_trace_json(out: &mut Vec<u8>, trace: &Trace) {
    // 300 to 600 bytes an event in the bundled rulebooks: room made once,
    // where growing by doubling copied a payslip's trace about twice over.
    reserve(out, trace, 512);
    out.push(b'{');
    write_head(out, trace);
    out.extend_from_slice(b",\"events\":[");
    let mut memo = Memo::new();
    for (i, e) in trace.events.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        event(out, e, &mut memo);
    }
    out.push(b']');
    out.extend_from_slice(b",\"outcome\":");
    outcome(out, &trace.outcome);
    out.push(b'}');
}

/// Room for the trace at `per_event` bytes an event, and its inputs.
pub(super) fn reserve(out: &mut Vec<u8>, trace: &Trace, per_event: usize) {
    let inputs = trace.inputs.len().saturating_mul(64);
    out.reserve(
        trace
            .events
            .len()
            .saturating_mul(per_event)
            .saturating_add(inputs)
            .saturating_add(1024),
    );
}

pub(super) fn report(out: &mut Vec<u8>, r: &ReportTrace) {
    out.push(b'{');
    if let Some(title) = &r.title {
        out.extend_from_slice(b"\"title\":");
        write_string(out, title);
        out.push(b',');
    }
    out.extend_from_slice(b"\"header\":");
    write_list(out, &r.header, write_string);
    out.extend_from_slice(b",\"rows\":");
    write_list(out, &r.rows, |out, row: &Vec<String>| {
        write_list(out, row, write_string)
    });
    out.extend_from_slice(b",\"totals\":");
    write_list(out, &r.totals, |out, (label, value): &(String, String)| {
        out.push(b'[');
        write_string(out, label);
        out.push(b',');
        write_string(out, value);
        out.push(b']');
    });
    out.push(b'}');
}

pub(super) fn input(out: &mut Vec<u8>, i: &InputTrace) {
    out.extend_from_slice(b"{\"name\":");
    write_string(out, &i.name);
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

/// The trace's texts already written, each where its escaped bytes sit in
/// the output: a step's name, label, clauses and formula are the same
/// shared texts on every item, a read's name the same on every read, an
/// item's label on each of its steps. Copied from there, they are not
/// escaped again (a payslip's ~2,000 names and its multi-line `match`
/// formulas, written once per line, made that dear). A table indexed by
/// the text's address, two slots a row (the later text first), so that
/// texts whose addresses meet seldom put each other out.
pub(super) struct Memo {
    slots: Vec<Slot>,
}

/// A text's address and length (`at | len << 48`: an address has 48
/// bits), and its escaped bytes' range in the output.
#[derive(Clone, Copy, Default)]
struct Slot {
    key: u64,
    start: u32,
    end: u32,
}

impl Memo {
    /// 1,024 slots: a payslip's trace has a few hundred distinct texts.
    const BITS: u32 = 10;

    pub(super) fn new() -> Self {
        Memo {
            slots: vec![Slot::default(); 1 << Self::BITS],
        }
    }

    /// Writes `text`, which the trace holds: alive and unchanged while the
    /// trace is written, so the same address and length is the same bytes.
    /// `out` only grows meanwhile, so what was written there stays.
    pub(super) fn write(&mut self, out: &mut Vec<u8>, text: &str) {
        let at = text.as_ptr() as u64;
        let (Ok(len), true) = (u16::try_from(text.len()), at >> 48 == 0) else {
            return write_string(out, text);
        };
        let key = at | u64::from(len) << 48;
        let row = (at.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - Self::BITS)) as usize & !1;
        let Some([first, second]) = self.slots.get_mut(row..row + 2) else {
            return write_string(out, text);
        };
        for slot in [&*first, &*second] {
            if slot.key == key && slot.end as usize <= out.len() {
                out.extend_from_within(slot.start as usize..slot.end as usize);
                return;
            }
        }
        let start = out.len();
        write_string(out, text);
        if let (Ok(start), Ok(end)) = (u32::try_from(start), u32::try_from(out.len())) {
            *second = *first;
            *first = Slot { key, start, end };
        }
    }
}

fn event(out: &mut Vec<u8>, e: &Event, memo: &mut Memo) {
    match e {
        Event::Check(c) => check(out, c, memo),
        Event::Step(s) => step(out, s, memo),
        Event::Cite(c) => {
            out.extend_from_slice(b"{\"event\":\"cite\",");
            cite_fields(out, c);
            out.push(b'}');
        }
    }
}

fn check(out: &mut Vec<u8>, c: &CheckTrace, memo: &mut Memo) {
    check_head(out, c);
    out.extend_from_slice(b",\"reads\":");
    write_list(out, &c.reads, |out, r| read(out, r, memo));
    out.extend_from_slice(b",\"held\":");
    write_bool(out, c.held);
    out.extend_from_slice(b",\"gives\":");
    write_string(out, &c.gives);
    out.push(b'}');
}

/// A check's event up to its reads: `{"event":"check","index":…,"label":…,"when":…`.
pub(super) fn check_head(out: &mut Vec<u8>, c: &CheckTrace) {
    out.extend_from_slice(b"{\"event\":\"check\",\"index\":");
    write_integer(out, c.index as u64);
    if let Some(label) = &c.label {
        out.extend_from_slice(b",\"label\":");
        write_string(out, label);
    }
    out.extend_from_slice(b",\"when\":");
    match &c.when {
        Some(when) => write_string(out, when),
        None => out.extend_from_slice(b"null"),
    }
}

fn step(out: &mut Vec<u8>, s: &StepTrace, memo: &mut Memo) {
    out.extend_from_slice(b"{\"event\":\"step\",\"step\":");
    memo.write(out, &s.step);
    if let Some(item) = &s.item {
        out.extend_from_slice(b",\"item\":");
        memo.write(out, item);
    }
    if let Some(label) = &s.label {
        out.extend_from_slice(b",\"label\":");
        memo.write(out, label);
    }
    out.extend_from_slice(b",\"clauses\":");
    write_list(out, s.clauses.iter(), |out, c| memo.write(out, c));
    if !s.cites.is_empty() {
        out.extend_from_slice(b",\"cites\":");
        write_list(out, &s.cites, |out, c: &CiteTrace| {
            out.push(b'{');
            cite_fields(out, c);
            out.push(b'}');
        });
    }
    if s.detail {
        out.extend_from_slice(b",\"detail\":true");
    }
    out.extend_from_slice(b",\"formula\":");
    memo.write(out, &s.formula);
    if let Some(c) = &s.condition {
        out.extend_from_slice(b",\"condition\":{\"formula\":");
        memo.write(out, &c.formula);
        out.extend_from_slice(b",\"held\":");
        write_bool(out, c.held);
        out.push(b'}');
    }
    out.extend_from_slice(b",\"reads\":");
    write_list(out, &s.reads, |out, r| read(out, r, memo));
    out.extend_from_slice(b",\"lookups\":");
    write_list(out, &s.lookups, lookup);
    out.extend_from_slice(b",\"roundings\":");
    write_list(out, &s.roundings, rounding);
    out.extend_from_slice(b",\"exact\":");
    value(out, &s.exact);
    out.extend_from_slice(b",\"value\":");
    value(out, &s.value);
    out.push(b'}');
}

/// A citation's fields, inside braces the caller writes.
pub(super) fn cite_fields(out: &mut Vec<u8>, c: &CiteTrace) {
    out.extend_from_slice(b"\"when\":");
    write_string(out, &c.when);
    out.extend_from_slice(b",\"held\":");
    write_bool(out, c.held);
    out.extend_from_slice(b",\"clauses\":");
    write_list(out, c.clauses.iter(), write_string);
}

fn read(out: &mut Vec<u8>, r: &ReadTrace, memo: &mut Memo) {
    out.extend_from_slice(b"{\"name\":");
    memo.write(out, &r.name);
    out.extend_from_slice(b",\"value\":");
    value(out, &r.value);
    out.push(b'}');
}

pub(super) fn lookup(out: &mut Vec<u8>, l: &Lookup) {
    out.extend_from_slice(b"{\"kind\":");
    write_string(out, l.kind);
    out.extend_from_slice(b",\"table\":");
    write_string(out, &l.table);
    out.extend_from_slice(b",\"source\":");
    write_string(out, &l.source);
    out.extend_from_slice(b",\"key\":");
    write_string(out, &l.key);
    out.extend_from_slice(b",\"row\":");
    match &l.row {
        Some(row) => write_string(out, row),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"why\":");
    write_string(out, &l.why);
    out.push(b'}');
}

pub(super) fn rounding(out: &mut Vec<u8>, r: &RoundingTrace) {
    let rounded = &r.rounded;
    out.extend_from_slice(b"{\"at\":");
    write_string(out, &r.at);
    out.extend_from_slice(b",\"mode\":\"");
    out.extend_from_slice(rounded.mode.name().as_bytes());
    out.extend_from_slice(b"\",\"places\":");
    write_integer(out, u64::from(rounded.places));
    out.extend_from_slice(b",\"before\":");
    match &rounded.before {
        Num::Dec(d) => write_quoted_decimal(out, d),
        Num::Frac(f) => write_displayed(out, f),
    }
    out.extend_from_slice(b",\"after\":");
    write_quoted_decimal(out, &rounded.after);
    out.extend_from_slice(b",\"margin\":");
    write_quoted_decimal(out, &rounded.margin);
    out.push(b'}');
}

pub(super) fn outcome(out: &mut Vec<u8>, o: &OutcomeTrace) {
    match o {
        OutcomeTrace::Decision {
            decision,
            reason,
            clauses,
        } => {
            out.extend_from_slice(b"{\"kind\":\"decision\",\"decision\":");
            write_string(out, decision);
            if let Some(reason) = reason {
                out.extend_from_slice(b",\"reason\":");
                write_string(out, reason);
            }
            out.extend_from_slice(b",\"clauses\":");
            write_list(out, clauses, write_string);
        }
        OutcomeTrace::Rejected { error } => {
            out.extend_from_slice(b"{\"kind\":\"rejected\",\"error\":{\"path\":");
            write_string(out, &error.path);
            out.extend_from_slice(b",\"message\":");
            write_string(out, &error.message);
            out.push(b'}');
        }
    }
    out.push(b'}');
}

/// A value as `Value`'s `Serialize` gives it: numbers, dates and named rows
/// as their text, missing values as `null`.
pub(super) fn value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Absent | Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(b) => write_bool(out, *b),
        Value::Text(t) => write_string(out, t),
        Value::Number(d) => write_quoted_decimal(out, d),
        Value::Record(r) if r.name.is_none() => write_object(
            out,
            r.names.iter().map(|n| &**n).zip(r.fields.iter()),
            value,
        ),
        Value::List(items) => write_list(out, items.iter(), value),
        Value::Map(entries) => write_object(out, entries.iter().map(|(k, v)| (&**k, v)), value),
        Value::Fraction(_) | Value::Date(_) | Value::Month(_) | Value::Record(_) => {
            write_displayed(out, v);
        }
    }
}
