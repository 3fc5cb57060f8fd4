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
    past_bound, CheckTrace, CiteTrace, Event, InputTrace, Lookup, OutcomeTrace, ReadTrace,
    ReportTrace, RoundingTrace, StepEvent, StepTrace, Trace, TraceTooLarge, MAX_TRACE_BYTES,
};
use std::sync::Arc;

use crate::facts::Given;
use crate::json::{
    write_bool, write_displayed, write_integer, write_list, write_object, write_quoted_decimal,
    write_string,
};
use crate::num::exact::Num;
use crate::value::Value;

/// The keys every trace format opens with, after its `{` (and its format):
/// the rulebook, the ablation, the reports and the inputs.
pub(super) fn write_head(out: &mut Vec<u8>, trace: &Trace, memo: &mut Memo) {
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
    write_list(out, &trace.inputs, |out, i| input(out, i, memo));
}

/// Appends the trace's JSON text, as `serde_json::to_writer` writes it;
/// nothing when it would pass `MAX_TRACE_BYTES`.
pub fn write_trace_json(out: &mut Vec<u8>, trace: &Trace) -> Result<(), TraceTooLarge> {
    let start = out.len();
    // 300 to 600 bytes an event in the bundled rulebooks: room made once,
    // where growing by doubling copied a payslip's trace about twice over.
    reserve(out, trace, 512);
    out.push(b'{');
    let mut memo = Memo::new();
    write_head(out, trace, &mut memo);
    out.extend_from_slice(b",\"events\":[");
    for (i, e) in trace.events.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        event(out, e, &mut memo);
        past_bound(out, start)?;
    }
    out.push(b']');
    out.extend_from_slice(b",\"outcome\":");
    outcome(out, &trace.outcome);
    out.push(b'}');
    past_bound(out, start)
}

/// Room for the trace at `per_event` bytes an event, and its inputs, up to
/// the bound on its bytes.
pub(super) fn reserve(out: &mut Vec<u8>, trace: &Trace, per_event: usize) {
    let inputs = trace.inputs.len().saturating_mul(64);
    let room = trace
        .events
        .len()
        .saturating_mul(per_event)
        .saturating_add(inputs)
        .saturating_add(1024);
    out.reserve(room.min(MAX_TRACE_BYTES));
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

fn input(out: &mut Vec<u8>, i: &InputTrace, memo: &mut Memo) {
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
    memo.value(out, &i.value);
    out.push(b'}');
}

/// The trace's texts already written, each where its escaped bytes sit in
/// the output: a step's name, label, clauses and formula are the same
/// shared texts on every item, a read's name the same on every read, an
/// item's label on each of its steps. Copied from there, they are not
/// escaped again (a payslip's ~2,000 names and its multi-line `match`
/// formulas, written once per line, made that dear). Records, lists of
/// them and maps too, in a table apart so that values do not put texts
/// out. Tables indexed by the address, two slots a row (the later first),
/// so that addresses that meet seldom put each other out.
///
/// The tables are kept by the thread from one trace to the next, a slot
/// counting only for the trace that wrote it (`round`): made and zeroed
/// for every trace, their 1,280 slots cost a Luma line 20k instructions
/// of its 55k of writing.
pub(super) struct Memo {
    slots: Box<[Slot]>,
    round: u32,
}

/// A text's address and length (`at | len << 48`: an address has 48
/// bits), the trace it was written in, and its escaped bytes' range in the
/// output.
#[derive(Clone, Copy, Default)]
struct Slot {
    key: u64,
    round: u32,
    start: u32,
    end: u32,
}

thread_local! {
    /// Each thread's tables, while no trace is being written.
    static TABLES: std::cell::Cell<Option<(Box<[Slot]>, u32)>> =
        const { std::cell::Cell::new(None) };
}

impl Memo {
    /// 1,024 slots for texts: a payslip's trace has a few hundred distinct ones.
    const BITS: u32 = 10;
    /// 256 slots for values, after the texts': a trace has a few dozen.
    const VALUE_BITS: u32 = 8;
    /// The first of the lengths that key values, not texts (a text this
    /// long or longer is not kept).
    const TAGS: u16 = u16::MAX - 2;

    pub(super) fn new() -> Self {
        let (slots, round) = TABLES
            .try_with(std::cell::Cell::take)
            .ok()
            .flatten()
            .unwrap_or_else(|| {
                let slots = vec![Slot::default(); (1 << Self::BITS) + (1 << Self::VALUE_BITS)];
                (slots.into_boxed_slice(), 0)
            });
        let mut memo = Memo { slots, round };
        // Round 0 is an empty slot's: a table that went round is cleared.
        memo.round = memo.round.wrapping_add(1);
        if memo.round == 0 {
            memo.slots.fill(Slot::default());
            memo.round = 1;
        }
        memo
    }

    /// Writes `text`, which the trace holds: alive and unchanged while the
    /// trace is written, so the same address and length is the same bytes.
    /// `out` only grows meanwhile, so what was written there stays.
    pub(super) fn write(&mut self, out: &mut Vec<u8>, text: &str) {
        match u16::try_from(text.len()) {
            Ok(len) if len < Self::TAGS => {
                self.write_keyed::<false>(out, text.as_ptr() as u64, len, |out, _| {
                    write_string(out, text)
                });
            }
            _ => write_string(out, text),
        }
    }

    /// Writes `v`, which the trace holds, as [`value`] does. A record, list
    /// or map shares its parts with every copy of it (`Arc`), so the same
    /// address is the same value: a case's list of lines, read by a step,
    /// its exact value and its value, and a table row read on every item,
    /// are written once and copied after.
    #[inline]
    pub(super) fn value(&mut self, out: &mut Vec<u8>, v: &Value) {
        match v {
            Value::Record(_) | Value::List(_) | Value::Map(_) => self.composite(out, v),
            _ => value(out, v),
        }
    }

    #[inline(never)]
    fn composite(&mut self, out: &mut Vec<u8>, v: &Value) {
        let (at, tag) = match v {
            Value::Record(r) => (Arc::as_ptr(r) as *const u8 as u64, Self::TAGS),
            // A list of numbers (a group's column) is seldom read twice.
            Value::List(items)
                if matches!(
                    items.first(),
                    Some(Value::Record(_) | Value::List(_) | Value::Map(_))
                ) =>
            {
                (items.as_ptr() as *const u8 as u64, Self::TAGS + 1)
            }
            Value::Map(entries) if !entries.is_empty() => {
                (Arc::as_ptr(entries) as *const u8 as u64, Self::TAGS + 2)
            }
            _ => return value(out, v),
        };
        self.write_keyed::<true>(out, at, tag, |out, memo| match v {
            Value::Record(r) if r.name.is_none() => write_object(
                out,
                r.names.iter().map(|n| &**n).zip(r.fields.iter()),
                |out, v| memo.value(out, v),
            ),
            Value::List(items) => write_list(out, items.iter(), |out, v| memo.value(out, v)),
            Value::Map(entries) => {
                write_object(out, entries.iter().map(|(k, v)| (&**k, v)), |out, v| {
                    memo.value(out, v)
                })
            }
            _ => value(out, v),
        });
    }

    /// Copies what was written in this trace for the same `at` and `len`
    /// (a text's length, or a value's kind at [`Self::TAGS`] and above),
    /// else writes it with `write` and notes where.
    #[inline(always)]
    fn write_keyed<const VALUE: bool>(
        &mut self,
        out: &mut Vec<u8>,
        at: u64,
        len: u16,
        write: impl FnOnce(&mut Vec<u8>, &mut Memo),
    ) {
        if at >> 48 != 0 {
            return write(out, self);
        }
        let key = at | u64::from(len) << 48;
        let hash = at.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let row = if VALUE {
            (1 << Self::BITS) + ((hash >> (64 - Self::VALUE_BITS)) as usize & !1)
        } else {
            (hash >> (64 - Self::BITS)) as usize & !1
        };
        if let Some([first, second]) = self.slots.get(row..row + 2) {
            for slot in [first, second] {
                if slot.key == key && slot.round == self.round && slot.end as usize <= out.len() {
                    out.extend_from_within(slot.start as usize..slot.end as usize);
                    return;
                }
            }
        }
        let start = out.len();
        write(out, self);
        let round = self.round;
        if let (Ok(start), Ok(end), Some([first, second])) = (
            u32::try_from(start),
            u32::try_from(out.len()),
            self.slots.get_mut(row..row + 2),
        ) {
            *second = *first;
            *first = Slot {
                key,
                round,
                start,
                end,
            };
        }
    }
}

impl Drop for Memo {
    /// Hands the tables back to the thread for its next trace.
    fn drop(&mut self) {
        let slots = std::mem::take(&mut self.slots);
        let _ = TABLES.try_with(|t| t.set(Some((slots, self.round))));
    }
}

/// Whether `b` is written as the bytes just written for `a`: the same
/// decimal digits (`2.50` is not `2.5`), the same shared text or parts.
fn written_alike(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.serialize() == y.serialize(),
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Text(x), Value::Text(y)) => Arc::ptr_eq(x, y),
        (Value::Record(x), Value::Record(y)) => Arc::ptr_eq(x, y),
        (Value::List(x), Value::List(y)) => Arc::ptr_eq(x, y),
        (Value::Map(x), Value::Map(y)) => Arc::ptr_eq(x, y),
        (Value::Absent | Value::Null, Value::Absent | Value::Null) => true,
        _ => false,
    }
}

fn event(out: &mut Vec<u8>, e: &Event, memo: &mut Memo) {
    match e {
        Event::Check(c) => check(out, c, memo),
        // A shared event is written the same in every trace (the memo
        // only copies bytes it would write): once, then copied.
        Event::Step(StepEvent::Shared(shared)) => {
            let json = shared.json.get_or_init(|| {
                let mut json = Vec::new();
                step(&mut json, shared.step(), &mut Memo::new());
                json.into_boxed_slice()
            });
            out.extend_from_slice(json);
        }
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
    let start = out.len();
    let exact = s.exact();
    memo.value(out, exact);
    out.extend_from_slice(b",\"value\":");
    if s.exact.is_none() || written_alike(exact, &s.value) {
        let end = out.len() - b",\"value\":".len();
        out.extend_from_within(start..end);
    } else {
        memo.value(out, &s.value);
    }
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
    memo.value(out, &r.value);
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rust_decimal::Decimal;

    use super::{value, written_alike, Memo};
    use crate::value::{Entries, Record, Value};

    /// `mantissa` × 10^-`scale`, digits as written: `dec(250, 2)` is `2.50`.
    fn dec(mantissa: i64, scale: u32) -> Value {
        Value::Number(Decimal::new(mantissa, scale))
    }

    /// A table row with a map inside it, and a list of two lines that are
    /// records: the shapes a sales-tax trace repeats.
    fn shared() -> (Value, Value) {
        let mut categories = Entries::default();
        categories.insert(Arc::from("STANDARD"), Value::Text(Arc::from("taxable")));
        categories.insert(Arc::from("MEDICAL"), Value::Text(Arc::from("exempt")));
        let row = Value::Record(Arc::new(Record {
            name: None,
            names: Arc::from(vec![Arc::from("rate"), Arc::from("categories")]),
            fields: vec![dec(725, 4), Value::Map(Arc::new(categories))].into_boxed_slice(),
        }));
        let line = |q: i64| {
            Value::Record(Arc::new(Record {
                name: None,
                names: Arc::from(vec![Arc::from("quantity"), Arc::from("rule")]),
                fields: vec![dec(q, 0), row.clone()].into_boxed_slice(),
            }))
        };
        let lines = Value::List(Arc::from(vec![line(2), line(3)]));
        (row, lines)
    }

    fn plain(v: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        value(&mut out, v);
        out
    }

    #[test]
    fn a_value_written_again_is_the_same_bytes() {
        let (row, lines) = shared();
        let mut memo = Memo::new();
        let mut out = Vec::new();
        // The row inside each line, the lines, then each again: copies.
        for v in [&lines, &row, &lines, &row, &row] {
            let start = out.len();
            memo.value(&mut out, v);
            assert_eq!(out[start..], plain(v)[..]);
        }
        assert_eq!(
            plain(&row),
            br#"{"rate":"0.0725","categories":{"STANDARD":"taxable","MEDICAL":"exempt"}}"#
        );
    }

    #[test]
    fn what_an_earlier_trace_wrote_is_not_copied() {
        let (row, _) = shared();
        let mut first = Vec::from(*b"xxxxxxxxxxxxxxxx");
        let mut memo = Memo::new();
        memo.value(&mut first, &row);
        drop(memo);
        // The same value at the same place of another output: the slot
        // the first trace left must not be read.
        // (longer, so that the slot's range lies within it).
        let mut second = vec![b'y'; 200];
        let mut memo = Memo::new();
        memo.value(&mut second, &row);
        assert_eq!(second[200..], plain(&row)[..]);
        // A table whose count of traces goes round is cleared.
        memo.round = u32::MAX;
        drop(memo);
        let mut third = vec![b'z'; 200];
        let mut memo = Memo::new();
        assert_eq!(memo.round, 1);
        memo.value(&mut third, &row);
        assert_eq!(third[200..], plain(&row)[..]);
    }

    /// A step event that reads the shared row and the lines, rounds, and
    /// whose exact value is not its value.
    fn step_event(item: usize) -> crate::trace::StepTrace {
        use crate::num::{exact::Num, rounding::Rounded, RoundingMode};
        let (row, lines) = shared();
        // 21.408 to 2 places, half up: 21.41, 0.003 above where it changes.
        let rounded = Rounded {
            mode: RoundingMode::HalfUp,
            places: 2,
            before: Num::Dec(Decimal::new(21408, 3)),
            after: Decimal::new(2141, 2),
            margin: Decimal::new(3, 3),
        };
        crate::trace::StepTrace {
            step: Arc::from("tax"),
            item: Some(Arc::from(format!("lines[{item}]"))),
            label: Some(Arc::from("Tax \"due\"")),
            clauses: Arc::from(vec![Arc::from("R1")]),
            cites: Vec::new(),
            detail: false,
            formula: Arc::from("round(line.rule.rate * 2.952, 2)"),
            condition: None,
            reads: vec![
                crate::trace::ReadTrace {
                    name: Arc::from("line.rule"),
                    value: row,
                },
                crate::trace::ReadTrace {
                    name: Arc::from("lines"),
                    value: lines,
                },
            ],
            lookups: Vec::new(),
            roundings: vec![crate::trace::RoundingTrace {
                at: "step".into(),
                rounded,
            }],
            exact: Some(dec(21408, 3)),
            value: dec(2141, 2),
        }
    }

    /// The JSON of a trace of `events` alone.
    fn written(events: Vec<crate::trace::Event>) -> Vec<u8> {
        let trace = crate::trace::Trace {
            rulebook: "t@1#0".into(),
            ablation: None,
            reports: Vec::new(),
            inputs: Vec::new(),
            events,
            outcome: crate::trace::OutcomeTrace::Decision {
                decision: "d".into(),
                reason: None,
                clauses: Vec::new(),
            },
        };
        let mut out = Vec::new();
        super::write_trace_json(&mut out, &trace).expect("within the bound"); // ok: a test of the writer
        out
    }

    #[test]
    fn a_shared_step_is_written_as_its_own_copy_in_every_trace() {
        use crate::trace::{Event, SharedStep, StepEvent};
        let own = |i| Event::Step(StepEvent::Own(Box::new(step_event(i))));
        let shared = Arc::new(SharedStep::new(step_event(1)));
        let expected = written(vec![own(0), own(1), own(2)]);
        // Its bytes written once, by the first trace (the others around it
        // write the same texts and values first), then copied by the next.
        for _ in 0..2 {
            let got = written(vec![
                own(0),
                Event::Step(StepEvent::Shared(shared.clone())),
                own(2),
            ]);
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&expected)
            );
        }
        assert!(shared.json.get().is_some(), "kept after the first trace");
    }

    #[test]
    fn alike_as_written_only() {
        let (row, lines) = shared();
        assert!(written_alike(&dec(250, 2), &dec(250, 2)));
        assert!(!written_alike(&dec(250, 2), &dec(25, 1)));
        assert!(written_alike(&row, &row.clone()));
        let (other_row, _) = shared();
        assert!(!written_alike(&row, &other_row), "equal, but not shared");
        assert!(!written_alike(&lines, &row));
        assert!(written_alike(&Value::Absent, &Value::Null));
    }
}
