//! The compact trace JSON, format 2 (`eval --trace json-compact`,
//! `docs/trace-format.md` §10): what a step is (label, clauses, formula,
//! condition, citations) written once in `steps`, not once per item, and a
//! read whose value is already in the trace (a step's value, an input, a
//! group's projection) written as its name alone.
//!
//! A paie-fr payslip repeats each of its ~20 line steps' formula and label
//! on every one of ~27 lines, and most reads are of steps just computed:
//! both are written once here. The verifier (`audit`) reads this format
//! back into format 1 by the rules below, so every rule a writer uses to
//! leave a value out is one its reader follows to put it back.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use super::json::{check_head, cite_fields, lookup, outcome, value, Memo};
use super::{
    past_bound, CheckTrace, CiteTrace, Event, ReadTrace, RoundingTrace, StepTrace, Trace,
    TraceTooLarge,
};
use crate::json::{write_bool, write_integer, write_list, write_quoted_decimal, write_string};
use crate::value::Value;

/// The values a read may refer to by its name alone, as far as the trace
/// has gone: each item's steps, the top-level steps, the inputs. A read
/// of a step's definition is placed once, for every event of it
/// ([`Place`]), so that a read is checked without a search through the
/// item's steps, hashing its name or cloning a value.
#[derive(Default)]
struct Known<'t> {
    /// Each group's items in order, each with its steps' values so far.
    groups: Vec<Group<'t>>,
    top: HashMap<&'t str, &'t Value, Fnv>,
    inputs: Vec<(&'t str, &'t Value)>,
}

struct Group<'t> {
    name: &'t str,
    /// Its step names in the order of their definitions.
    fields: Arc<[Arc<str>]>,
    /// Each item begun, with its steps' values so far by their position
    /// in `fields`.
    items: Vec<(&'t str, Vec<Option<&'t Value>>)>,
}

/// Where a name read may find the value it refers to, settled once per
/// name of a step's definition: what the general rule of
/// [`Known::refers`] would find, without looking.
#[derive(Clone, Copy)]
enum Place {
    /// A step of the reading step's own group, by its position there:
    /// the item's value when the item computed it already.
    Item(usize),
    /// `GROUP.STEP`: a group of the trace (by position) and its step's
    /// position, if it has one.
    Projection(usize, Option<usize>),
    /// A dotted name no group of the trace projects (a record's field):
    /// never referred to.
    Field,
    /// Any other name: a top-level step, an input or a group.
    Other,
}

fn find<'v>(list: &[(&str, &'v Value)], name: &str) -> Option<&'v Value> {
    list.iter().find(|(n, _)| same(n, name)).map(|(_, v)| *v)
}

/// Whether two names are the same text. A name read is most often the
/// very text of the step or input it names (the rulebook's, shared), and
/// names that differ mostly differ in length or first byte: the pointer and
/// those are tried before the bytes are compared.
#[inline]
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && (a.as_ptr() == b.as_ptr() || (a.as_bytes().first() == b.as_bytes().first() && a == b))
}

impl<'t> Known<'t> {
    fn group_at(&self, name: &str) -> Option<usize> {
        self.groups.iter().position(|g| same(g.name, name))
    }

    /// Where `name`, read by a step of group `group` (a position in
    /// `groups`), refers. Names of steps, inputs and groups hold no dot,
    /// so a dotted name can only be a projection.
    fn place(&self, group: Option<usize>, name: &str) -> Place {
        if let Some((g, step)) = split_at_byte(name, b'.') {
            return match self.group_at(g) {
                Some(at) => {
                    let field = self.groups[at].fields.iter().position(|f| same(f, step));
                    Place::Projection(at, field)
                }
                None => Place::Field,
            };
        }
        let own = group.and_then(|g| self.groups.get(g));
        match own.and_then(|g| g.fields.iter().position(|f| same(f, name))) {
            Some(j) => Place::Item(j),
            None => Place::Other,
        }
    }

    /// The values of the steps of `item` (`lines[3]`) of group `group` so
    /// far, when it is the last item its group has begun: found once for a
    /// step's reads.
    fn current(&self, group: Option<usize>, item: Option<&str>) -> Option<&[Option<&'t Value>]> {
        let (label, memo) = self.groups.get(group?)?.items.last()?;
        same(label, item?).then_some(memo.as_slice())
    }

    /// Whether `[NAME]` gives `v` as written: the value the name has here is
    /// the item's own step of that name (`current`, the reading step's
    /// item's steps so far), else a top-level step, else an input, else a
    /// group (a record of its steps per item), else a projection
    /// `GROUP.STEP` (that step's values over the group's items). `place`
    /// is where the name is, as [`Known::place`] settles it.
    #[inline]
    fn refers(
        &self,
        place: Place,
        current: Option<&[Option<&Value>]>,
        name: &str,
        v: &Value,
    ) -> bool {
        match place {
            Place::Field => return false,
            Place::Projection(g, field) => {
                let (Some(g), Value::List(values)) = (self.groups.get(g), v) else {
                    return false;
                };
                return g.items.len() == values.len()
                    && g.items.iter().zip(values.iter()).all(|((_, memo), x)| {
                        let y = field.and_then(|f| memo.get(f).copied().flatten());
                        y.is_some_and(|y| written_eq(y, x))
                    });
            }
            Place::Item(j) => {
                if let Some(found) = current.and_then(|memo| memo.get(j).copied().flatten()) {
                    return written_eq(found, v);
                }
            }
            Place::Other => {}
        }
        if let Some(found) = self.top.get(name) {
            return written_eq(found, v);
        }
        if let Some(found) = find(&self.inputs, name) {
            return written_eq(found, v);
        }
        let group = self.groups.iter().find(|g| same(g.name, name));
        let (Some(g), Value::List(values)) = (group, v) else {
            return false;
        };
        g.items.len() == values.len()
            && g.items.iter().zip(values.iter()).all(|((_, memo), x)| {
                let Value::Record(r) = x else { return false };
                r.name.is_none()
                    && r.names.len() == g.fields.len()
                    && r.names.iter().zip(g.fields.iter()).all(|(p, q)| p == q)
                    && (memo.iter().zip(r.fields.iter()))
                        .all(|(z, y)| z.is_some_and(|z| written_eq(z, y)))
            })
    }
}

/// Equal as written: numbers with the same digits and sign (`2.50` is not
/// `2.5`, `-0.00` is not `0.00`), as format 1's `written_alike` reads them.
fn written_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.serialize() == y.serialize(),
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| written_eq(p, q))
        }
        (Value::Record(x), Value::Record(y)) => {
            x.name == y.name
                && x.names.len() == y.names.len()
                && x.names.iter().zip(y.names.iter()).all(|(p, q)| p == q)
                && x.fields.len() == y.fields.len()
                && x.fields
                    .iter()
                    .zip(y.fields.iter())
                    .all(|(p, q)| written_eq(p, q))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((k, p), (l, q))| k == l && written_eq(p, q))
        }
        (Value::Absent | Value::Null, Value::Absent | Value::Null) => true,
        _ => a == b,
    }
}

/// The group of an item, `lines` of `lines[3]`.
fn group_of(item: &str) -> &str {
    split_at_byte(item, b'[').map_or(item, |(g, _)| g)
}

/// `text` split around the first `byte` (an ASCII byte, so both sides are
/// text). Names and item labels are a few bytes long: a plain scan, where
/// `str::split_once` sets up a searcher for each of the thousands of reads
/// a payslip's trace checks.
fn split_at_byte(text: &str, byte: u8) -> Option<(&str, &str)> {
    let at = text.bytes().position(|b| b == byte)?;
    Some((text.get(..at)?, text.get(at + 1..)?))
}

/// FNV-1a's constants, a word at a time: the writer's maps are keyed by
/// short names and looked up once per event and per read; SipHash's setup,
/// and then FNV a byte at a time, cost more than the lookups (nothing here
/// faces keys chosen against it, and no output depends on the order).
struct FnvHasher(u64);

impl Default for FnvHasher {
    fn default() -> Self {
        FnvHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for FnvHasher {
    fn finish(&self) -> u64 {
        // A word's high bytes reach only the product's high bits: folded
        // down, for the table's index.
        let h = self.0;
        (h ^ (h >> 32)).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (h >> 29)
    }

    fn write(&mut self, bytes: &[u8]) {
        const PRIME: u64 = 0x0100_0000_01b3;
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let mut w = [0u8; 8];
            w.copy_from_slice(word);
            self.0 = (self.0 ^ u64::from_le_bytes(w)).wrapping_mul(PRIME);
        }
        for b in words.remainder() {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(PRIME);
        }
    }
}

type Fnv = BuildHasherDefault<FnvHasher>;

/// Appends the trace as compact JSON, format 2; nothing when it would pass
/// `MAX_TRACE_BYTES`.
pub fn write_trace_json_compact(out: &mut Vec<u8>, trace: &Trace) -> Result<(), TraceTooLarge> {
    let start = out.len();
    // 100 to 380 bytes an event in the bundled rulebooks, with the steps'
    // definitions: room made once rather than by doubling.
    super::json::reserve(out, trace, 192);
    out.extend_from_slice(b"{\"format\":2,");
    // Composite values (a case's lists, a table row read on every item)
    // written once, then copied (`Memo::value`).
    let mut values = Memo::new();
    super::json::write_head(out, trace, &mut values);
    // Each step's definition, at its first event, and its index; with the
    // names its events read and the roundings inside its formula, each
    // written once there and referred to by position in the events.
    // Sized once for every step event (a bound on the definitions and on
    // the top-level steps), so neither map grows by rehashing.
    let room = trace.events.len().min(1024);
    let mut defined: HashMap<(Option<&str>, &str), usize, Fnv> =
        HashMap::with_capacity_and_hasher(room, Fnv::default());
    let mut order: Vec<Def<'_>> = Vec::new();
    let mut event_defs: Vec<usize> = Vec::new();
    // The definition last found for a step's name, by the name's address:
    // the events of one step share its name's text, so most are found here
    // without hashing the name and group (the name at that address is that
    // text; the group is compared).
    let mut recent: [Option<Recent<'_>>; 64] = [None; 64];
    for e in &trace.events {
        if let Event::Step(s) = e {
            let key = (s.item.as_deref().map(group_of), &*s.step);
            let at = s.step.as_ptr();
            let slot = (at as usize >> 3) % recent.len();
            let index = match recent.get(slot).copied().flatten() {
                Some((p, len, group, index))
                    if p == at && len == s.step.len() && group == key.0 =>
                {
                    index
                }
                _ => {
                    let index = *defined.entry(key).or_insert_with(|| {
                        order.push(Def {
                            group: key.0,
                            first: s,
                            reads: Vec::new(),
                            ats: Vec::new(),
                            at: None,
                            places: Vec::new(),
                        });
                        order.len() - 1
                    });
                    if let Some(r) = recent.get_mut(slot) {
                        *r = Some((at, s.step.len(), key.0, index));
                    }
                    index
                }
            };
            event_defs.push(index);
            if let Some(def) = order.get_mut(index) {
                for (k, r) in s.reads.iter().enumerate() {
                    // An item's step reads what the first item's read, in
                    // the same order: most names are where they were.
                    let listed = def.reads.get(k).is_some_and(|n| same(n, &r.name))
                        || def.reads.iter().any(|n| same(n, &r.name));
                    if !listed {
                        def.reads.push(&r.name);
                    }
                }
                for r in &s.roundings {
                    if r.at != "step" && !def.ats.contains(&r.at.as_str()) {
                        def.ats.push(&r.at);
                    }
                }
            }
        }
    }
    out.extend_from_slice(b",\"steps\":");
    write_list(out, &order, definition);
    past_bound(out, start)?;
    let mut known = Known {
        top: HashMap::with_capacity_and_hasher(room, Fnv::default()),
        ..Known::default()
    };
    for i in &trace.inputs {
        known.inputs.push((&i.name, &i.value));
    }
    let mut fields: Vec<(&str, Vec<Arc<str>>)> = Vec::new();
    for def in &mut order {
        if let Some(g) = def.group {
            let at = match fields.iter().position(|(n, _)| same(n, g)) {
                Some(at) => at,
                None => {
                    fields.push((g, Vec::new()));
                    fields.len() - 1
                }
            };
            if let Some((_, names)) = fields.get_mut(at) {
                def.at = Some((at, names.len()));
                names.push(def.first.step.clone());
            }
        }
    }
    known.groups = fields
        .into_iter()
        .map(|(name, names)| Group {
            name,
            fields: Arc::from(names),
            items: Vec::new(),
        })
        .collect();
    for def in &mut order {
        let group = def.at.map(|(g, _)| g);
        def.places = def.reads.iter().map(|n| known.place(group, n)).collect();
    }
    out.extend_from_slice(b",\"events\":[");
    let mut steps_seen = 0;
    for (n, e) in trace.events.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        match e {
            Event::Check(c) => check(out, c, &known, &mut values),
            Event::Step(s) => {
                // Every step event was given its definition's index above,
                // in this order; were one missing, the list still gets an
                // element after its comma.
                let index = event_defs.get(steps_seen).copied().unwrap_or(0);
                steps_seen += 1;
                let Some(def) = order.get(index) else {
                    out.extend_from_slice(b"null");
                    continue;
                };
                step(out, s, index, def, &known, &mut values);
                match (def.at, s.item.as_deref()) {
                    (Some((g, field)), Some(item)) => {
                        if let Some(g) = known.groups.get_mut(g) {
                            // An item's steps come together (a group runs item by item).
                            if g.items.last().is_none_or(|(label, _)| !same(label, item)) {
                                g.items.push((item, vec![None; g.fields.len()]));
                            }
                            let memo = g.items.last_mut().and_then(|(_, m)| m.get_mut(field));
                            if let Some(slot) = memo {
                                *slot = Some(&s.value);
                            }
                        }
                    }
                    _ => {
                        known.top.insert(&s.step, &s.value);
                    }
                }
            }
            Event::Cite(c) => {
                out.extend_from_slice(b"{\"event\":\"cite\",");
                cite_fields(out, c);
                out.push(b'}');
            }
        }
        past_bound(out, start)?;
    }
    out.extend_from_slice(b"],\"outcome\":");
    outcome(out, &trace.outcome);
    out.push(b'}');
    past_bound(out, start)
}

/// A step's name (its address and length), its group and its
/// definition's index.
type Recent<'t> = (*const u8, usize, Option<&'t str>, usize);

/// What a step is, written once: from its first event, with every name
/// its events read and every rounding inside its formula.
struct Def<'t> {
    group: Option<&'t str>,
    first: &'t StepTrace,
    reads: Vec<&'t str>,
    ats: Vec<&'t str>,
    /// Its group's position among the trace's groups, and its own
    /// position among the group's steps.
    at: Option<(usize, usize)>,
    /// Where each of `reads` refers ([`Known::place`]).
    places: Vec<Place>,
}

fn definition(out: &mut Vec<u8>, def: &Def<'_>) {
    let s = def.first;
    out.extend_from_slice(b"{\"step\":");
    write_string(out, &s.step);
    if let Some(g) = def.group {
        out.extend_from_slice(b",\"group\":");
        write_string(out, g);
    }
    if let Some(label) = &s.label {
        out.extend_from_slice(b",\"label\":");
        write_string(out, label);
    }
    out.extend_from_slice(b",\"clauses\":");
    write_list(out, s.clauses.iter(), write_string);
    out.extend_from_slice(b",\"formula\":");
    write_string(out, &s.formula);
    if let Some(c) = &s.condition {
        out.extend_from_slice(b",\"condition\":");
        write_string(out, &c.formula);
    }
    if !s.cites.is_empty() {
        out.extend_from_slice(b",\"cites\":");
        write_list(out, &s.cites, |out, c: &CiteTrace| {
            out.extend_from_slice(b"{\"when\":");
            write_string(out, &c.when);
            out.extend_from_slice(b",\"clauses\":");
            write_list(out, c.clauses.iter(), write_string);
            out.push(b'}');
        });
    }
    if s.detail {
        out.extend_from_slice(b",\"detail\":true");
    }
    if !def.reads.is_empty() {
        out.extend_from_slice(b",\"reads\":");
        write_list(out, &def.reads, |out, n: &&str| write_string(out, n));
    }
    if !def.ats.is_empty() {
        out.extend_from_slice(b",\"at\":");
        write_list(out, &def.ats, |out, n: &&str| write_string(out, n));
    }
    out.push(b'}');
}

/// Reads as `[NAME]` or `[NAME, VALUE]`; with the definition's names, NAME
/// is the position of the name there. `item` is the reading step's item
/// (`lines[3]`), when it has one.
fn reads(
    out: &mut Vec<u8>,
    reads: &[ReadTrace],
    item: Option<&str>,
    known: &Known<'_>,
    def: Option<&Def<'_>>,
    values: &mut Memo,
) {
    let group = def.and_then(|d| d.at).map(|(g, _)| g);
    let current = known.current(group, item);
    let names = def.map(|d| &d.reads[..]);
    let mut k = 0;
    write_list(out, reads, |out, r: &ReadTrace| {
        out.push(b'[');
        // The definition's names are each listed once: a name at this
        // read's own position is its only one.
        let at = k;
        k += 1;
        let listed = names.and_then(|n| match n.get(at) {
            Some(x) if same(x, &r.name) => Some(at),
            _ => n.iter().position(|x| same(x, &r.name)),
        });
        let place = match listed {
            Some(k) => {
                write_integer(out, k as u64);
                def.and_then(|d| d.places.get(k).copied())
            }
            None => {
                write_string(out, &r.name);
                None
            }
        };
        let place = place.unwrap_or_else(|| known.place(group, &r.name));
        let referred = known.refers(place, current, &r.name, &r.value);
        if !referred {
            out.push(b',');
            values.value(out, &r.value);
        }
        out.push(b']');
    });
}

fn check(out: &mut Vec<u8>, c: &CheckTrace, known: &Known<'_>, values: &mut Memo) {
    check_head(out, c);
    out.extend_from_slice(b",\"r\":");
    reads(out, &c.reads, None, known, None, values);
    out.extend_from_slice(b",\"held\":");
    write_bool(out, c.held);
    out.extend_from_slice(b",\"gives\":");
    write_string(out, &c.gives);
    out.push(b'}');
}

/// The item's index within its group, `3` of `lines[3]`.
fn item_index(item: &str) -> Option<u64> {
    split_at_byte(item, b'[')?.1.strip_suffix(']')?.parse().ok()
}

fn step(
    out: &mut Vec<u8>,
    s: &StepTrace,
    index: usize,
    def: &Def<'_>,
    known: &Known<'_>,
    values: &mut Memo,
) {
    out.extend_from_slice(b"{\"s\":");
    write_integer(out, index as u64);
    if let Some(i) = s.item.as_deref().and_then(item_index) {
        out.extend_from_slice(b",\"i\":");
        write_integer(out, i);
    }
    if let Some(c) = &s.condition {
        out.extend_from_slice(b",\"held\":");
        write_bool(out, c.held);
    }
    if !s.cites.is_empty() {
        out.extend_from_slice(b",\"cites\":");
        write_list(out, &s.cites, |out, c: &CiteTrace| write_bool(out, c.held));
    }
    if s.clauses != def.first.clauses {
        out.extend_from_slice(b",\"clauses\":");
        write_list(out, s.clauses.iter(), write_string);
    }
    if !s.reads.is_empty() {
        out.extend_from_slice(b",\"r\":");
        reads(out, &s.reads, s.item.as_deref(), known, Some(def), values);
    }
    if !s.lookups.is_empty() {
        out.extend_from_slice(b",\"lookups\":");
        write_list(out, &s.lookups, lookup);
    }
    // The step's own rounding point: its before is `exact`, its after the
    // value, so mode, places and margin are all it needs.
    let (point, inside) = match s.roundings.split_last() {
        Some((last, rest))
            if last.at == "step"
                && written_eq(&num_value(last.rounded.before), s.exact())
                && written_eq(&Value::Number(last.rounded.after), &s.value) =>
        {
            (Some(last), rest)
        }
        _ => (None, &s.roundings[..]),
    };
    if !inside.is_empty() {
        // [AT, MODE, PLACES, BEFORE, AFTER, MARGIN], AT the position of the
        // call's text in the definition's `at`.
        out.extend_from_slice(b",\"roundings\":");
        write_list(out, inside, |out, r: &RoundingTrace| {
            out.push(b'[');
            match def.ats.iter().position(|a| *a == r.at) {
                Some(k) => write_integer(out, k as u64),
                None => write_string(out, &r.at),
            }
            out.extend_from_slice(b",\"");
            out.extend_from_slice(r.rounded.mode.name().as_bytes());
            out.extend_from_slice(b"\",");
            write_integer(out, u64::from(r.rounded.places));
            out.push(b',');
            value(out, &num_value(r.rounded.before));
            out.push(b',');
            write_quoted_decimal(out, &r.rounded.after);
            out.push(b',');
            write_quoted_decimal(out, &r.rounded.margin);
            out.push(b']');
        });
    }
    if let Some(r) = point {
        out.extend_from_slice(b",\"round\":[\"");
        out.extend_from_slice(r.rounded.mode.name().as_bytes());
        out.extend_from_slice(b"\",");
        write_integer(out, u64::from(r.rounded.places));
        out.push(b',');
        write_quoted_decimal(out, &r.rounded.margin);
        out.push(b']');
    }
    if let Some(exact) = s.exact.as_ref().filter(|e| !written_eq(e, &s.value)) {
        out.extend_from_slice(b",\"exact\":");
        values.value(out, exact);
    }
    out.extend_from_slice(b",\"v\":");
    values.value(out, &s.value);
    out.push(b'}');
}

fn num_value(n: crate::num::exact::Num) -> Value {
    Value::from_num(n)
}

#[cfg(test)]
mod tests {
    use super::written_eq;
    use crate::value::Value;
    use rust_decimal::Decimal;

    #[test]
    fn numbers_are_equal_as_written_only_with_their_digits_and_sign() {
        let n = |m, scale| Value::Number(Decimal::new(m, scale));
        assert!(written_eq(&n(250, 2), &n(250, 2)));
        assert!(!written_eq(&n(250, 2), &n(25, 1)));
        let mut negative_zero = Decimal::new(0, 2);
        negative_zero.set_sign_negative(true);
        // Equal as numbers, written `-0.00` and `0.00`.
        assert_eq!(negative_zero, Decimal::new(0, 2));
        assert!(!written_eq(&Value::Number(negative_zero), &n(0, 2)));
    }
}
