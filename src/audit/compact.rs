//! The compact trace (format 2, `docs/trace-format.md` §10) read back into
//! format 1, the form the verifier checks: each step event given its
//! definition's label, clauses, formula, condition and citations, each
//! read its name and value, each rounding its text, mode and values.
//!
//! A read written `[NAME]` has the value the name has at that point of
//! the trace: the item's own step of that name, else a top-level step,
//! else an input, else a group (a record of its steps per item) or a
//! group's projection `GROUP.STEP`. The writer leaves a value out only
//! where this gives it back as written, so the expansion is the format-1
//! trace byte for byte (`tests/it/verify_trace.rs` checks it on every
//! conformance case).

use std::collections::HashMap;

use super::shape::keys;
use serde_json::{Map, Value as Json};

/// What a read by name alone can refer to, as far as the trace has gone.
#[derive(Default)]
struct Known {
    inputs: HashMap<String, Json>,
    top: HashMap<String, Json>,
    items: HashMap<String, HashMap<String, Json>>,
    groups: HashMap<String, Vec<String>>,
    fields: HashMap<String, Vec<String>>,
    /// About the bytes of JSON the expansion has copied from elsewhere in
    /// the trace (a value a read refers to, a definition given to its
    /// event), against `limit` ([`EXPANDED`]).
    copied: usize,
    limit: usize,
}

/// The most a compact trace expands to, about as JSON: what a trace may
/// be written as (`trace::MAX_TRACE_BYTES`). A read of a name alone is a
/// few bytes and copies a value that may be the case's whole list: 4,000
/// such reads in 200 KB held 17.5 GB.
const EXPANDED: usize = crate::trace::MAX_TRACE_BYTES;

/// About the bytes `v` is written in, counted no further than `limit`.
fn weight(v: &Json, limit: usize) -> usize {
    let mut total = 0usize;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        total = total.saturating_add(match v {
            Json::String(s) => s.len() + 2,
            Json::Array(items) => {
                stack.extend(items);
                items.len() + 2
            }
            Json::Object(m) => {
                stack.extend(m.values());
                m.keys().map(|k| k.len() + 4).sum::<usize>() + 2
            }
            Json::Number(_) => 8,
            Json::Bool(_) | Json::Null => 5,
        });
        if total > limit {
            break;
        }
    }
    total
}

impl Known {
    /// Counts `v` as copied; an error past [`EXPANDED`].
    fn copy(&mut self, v: &Json) -> Result<(), String> {
        let left = self.limit.saturating_sub(self.copied);
        self.copied = self.copied.saturating_add(weight(v, left));
        if self.copied > self.limit {
            return Err(format!(
                "the compact trace expands past {} MiB, more than a trace is written as",
                self.limit >> 20
            ));
        }
        Ok(())
    }

    fn lookup(&self, item: Option<&str>, name: &str) -> Option<Json> {
        if let Some(v) = item
            .and_then(|i| self.items.get(i))
            .and_then(|m| m.get(name))
        {
            return Some(v.clone());
        }
        if let Some(v) = self.top.get(name).or_else(|| self.inputs.get(name)) {
            return Some(v.clone());
        }
        if let (Some(items), Some(names)) = (self.groups.get(name), self.fields.get(name)) {
            let mut out = Vec::with_capacity(items.len());
            for i in items {
                let memo = self.items.get(i)?;
                let mut record = Map::new();
                for n in names {
                    record.insert(n.clone(), memo.get(n)?.clone());
                }
                out.push(Json::Object(record));
            }
            return Some(Json::Array(out));
        }
        let (group, step) = name.split_once('.')?;
        let items = self.groups.get(group)?;
        let mut out = Vec::with_capacity(items.len());
        for i in items {
            out.push(self.items.get(i)?.get(step)?.clone());
        }
        Some(Json::Array(out))
    }
}

fn field<'j>(j: &'j Json, key: &str) -> Result<&'j Json, String> {
    j.get(key).ok_or_else(|| format!("no \"{key}\""))
}

/// The list under `key`, none when it is missing; a shape error when it is
/// something else (`"roundings": "1/0"` read as no rounding at all).
fn list<'j>(j: &'j Json, key: &str) -> Result<&'j [Json], String> {
    match j.get(key) {
        None => Ok(&[]),
        Some(Json::Array(items)) => Ok(items),
        Some(other) => Err(format!("\"{key}\" is not a list: {other}")),
    }
}

/// The name at a read's or rounding's first place: the text, or its position
/// in the definition's list, marked in `used`.
fn named(first: Option<&Json>, table: &[Json], used: &mut [bool]) -> Result<Json, String> {
    match first {
        Some(Json::String(s)) => Ok(Json::String(s.clone())),
        Some(Json::Number(n)) => {
            let k = n.as_u64().and_then(|k| usize::try_from(k).ok());
            let name = k.and_then(|k| table.get(k)).cloned();
            if let Some(mark) = k.and_then(|k| used.get_mut(k)) {
                *mark = true;
            }
            name.ok_or_else(|| format!("no name at position {n}"))
        }
        _ => Err("a read or rounding without its name".into()),
    }
}

fn reads(
    rs: &[Json],
    names: &[Json],
    item: Option<&str>,
    known: &mut Known,
) -> Result<Json, String> {
    let mut out = Vec::with_capacity(rs.len());
    // A name is read once an event. Written again, a read by name alone
    // would copy its value again: a case's list, 10,000 times in 72 KB,
    // took more than a gigabyte.
    let mut seen = std::collections::HashSet::with_capacity(rs.len());
    for r in rs {
        let parts = r
            .as_array()
            .filter(|p| (1..=2).contains(&p.len()))
            .ok_or_else(|| format!("a read is [NAME] or [NAME, VALUE], not {r}"))?;
        // A name of `reads` no event refers to is a read left out of
        // every event, which the walk names: not marked.
        let name = named(parts.first(), names, &mut [])?;
        if !seen.insert(name.as_str().unwrap_or_default().to_string()) {
            return Err(format!("the read {name} is written twice in one event"));
        }
        // A name that refers to no value is read as null: the walk then
        // names the step whose read it is (an event pointed at another
        // step's definition reads what that step does not), where refusing
        // the line as no trace named nothing.
        let value = match parts.get(1) {
            Some(v) => v.clone(),
            None => match known.lookup(item, name.as_str().unwrap_or_default()) {
                Some(v) => {
                    known.copy(&v)?;
                    v
                }
                None => Json::Null,
            },
        };
        let mut m = Map::new();
        m.insert("name".into(), name);
        m.insert("value".into(), value);
        out.push(Json::Object(m));
    }
    Ok(Json::Array(out))
}

/// A format-2 trace as format 1.
pub(super) fn expand(trace: &Json) -> Result<Json, String> {
    expand_within(trace, EXPANDED)
}

/// A format-2 trace as format 1, copying about `limit` bytes at most.
fn expand_within(trace: &Json, limit: usize) -> Result<Json, String> {
    let mut out = Map::new();
    for key in ["rulebook", "ablation", "reports", "inputs"] {
        if let Some(v) = trace.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    let mut known = Known {
        limit,
        ..Known::default()
    };
    for i in list(trace, "inputs")? {
        if let Some(name) = i.get("name").and_then(Json::as_str) {
            known.inputs.insert(
                name.to_string(),
                i.get("value").cloned().unwrap_or(Json::Null),
            );
        }
    }
    let defs = list(trace, "steps")?;
    let mut used: Vec<Used> = defs
        .iter()
        .map(|d| Used {
            event: false,
            at: vec![false; list(d, "at").map_or(0, <[Json]>::len)],
        })
        .collect();
    for d in defs {
        if let (Some(g), Some(s)) = (
            d.get("group").and_then(Json::as_str),
            d.get("step").and_then(Json::as_str),
        ) {
            known
                .fields
                .entry(g.to_string())
                .or_default()
                .push(s.to_string());
        }
    }
    let mut events = Vec::new();
    for (k, ev) in list(trace, "events")?.iter().enumerate() {
        let expanded = match ev.get("event").and_then(Json::as_str) {
            Some("check") => check(ev, &mut known),
            Some(_) => Ok(ev.clone()),
            None => step(ev, defs, &mut used, &mut known),
        };
        // Where the line stops being a trace, as format 1's faults say.
        events.push(expanded.map_err(|e| format!("trace.events[{k}]: {e}"))?);
    }
    // What format 1 holds of a definition is what its events take from
    // it: a definition or a rounding's text no event refers to would be
    // carried unread under a verified trace. (A name of `reads` no event
    // refers to is a read left out of every event, which the walk names
    // at the step that lacks it.)
    for (i, u) in used.iter().enumerate() {
        let unread = |marks: &[bool], key: &str| {
            let k = marks.iter().position(|m| !m)?;
            let name = defs.get(i).and_then(|d| d.get(key)).and_then(|l| l.get(k));
            Some(format!(
                "step definition {i}: its {key:?} entry {k} ({}) is referred to by no event",
                name.map_or_else(String::new, Json::to_string)
            ))
        };
        if !u.event {
            return Err(format!("step definition {i} has no event"));
        }
        if let Some(e) = unread(&u.at, "at") {
            return Err(e);
        }
    }
    out.insert("events".into(), Json::Array(events));
    out.insert("outcome".into(), field(trace, "outcome")?.clone());
    Ok(Json::Object(out))
}

/// A check event as format 1 writes it: its reads (`r`) expanded.
fn check(ev: &Json, known: &mut Known) -> Result<Json, String> {
    let mut m = Map::new();
    for (k, v) in ev.as_object().into_iter().flatten() {
        if k == "r" {
            m.insert("reads".into(), reads(list(ev, "r")?, &[], None, known)?);
        } else {
            m.insert(k.clone(), v.clone());
        }
    }
    Ok(Json::Object(m))
}

/// The keys of a compact step event and of a step's definition
/// (`docs/trace-format.md` §10): what expanding would leave out unread is
/// refused, as the verifier refuses an unknown key of format 1.
const EVENT_KEYS: [&str; 11] = [
    "s",
    "i",
    "held",
    "cites",
    "clauses",
    "r",
    "lookups",
    "roundings",
    "round",
    "exact",
    "v",
];
const DEFINITION_KEYS: [&str; 10] = [
    "step",
    "group",
    "label",
    "clauses",
    "formula",
    "condition",
    "cites",
    "detail",
    "reads",
    "at",
];

/// Which parts of a step's definition its events referred to.
struct Used {
    event: bool,
    at: Vec<bool>,
}

fn step(ev: &Json, defs: &[Json], used: &mut [Used], known: &mut Known) -> Result<Json, String> {
    let index = field(ev, "s")?.as_u64().ok_or("\"s\" is not an index")?;
    let def = usize::try_from(index)
        .ok()
        .and_then(|i| defs.get(i))
        .ok_or_else(|| format!("no step definition {index}"))?;
    keys(
        ev,
        &EVENT_KEYS,
        &format!("a step event of definition {index}"),
    )?;
    keys(def, &DEFINITION_KEYS, &format!("step definition {index}"))?;
    let use_of = usize::try_from(index)
        .ok()
        .and_then(|i| used.get_mut(i))
        .ok_or_else(|| format!("no step definition {index}"))?;
    use_of.event = true;
    // What the event takes from its definition, counted as the whole.
    known.copy(def)?;
    let name = field(def, "step")?.clone();
    // An item's step names its item, and only an item's step.
    let item = match (def.get("group").and_then(Json::as_str), ev.get("i")) {
        (Some(g), Some(i)) => Some(format!("{g}[{i}]")),
        (None, None) => None,
        (Some(_), None) => return Err(format!("step {name}: an item's step without \"i\"")),
        (None, Some(_)) => return Err(format!("step {name}: \"i\" on a step of no group")),
    };
    let mut m = Map::new();
    m.insert("event".into(), Json::String("step".into()));
    m.insert("step".into(), name.clone());
    if let Some(item) = &item {
        m.insert("item".into(), Json::String(item.clone()));
    }
    if let Some(label) = def.get("label") {
        m.insert("label".into(), label.clone());
    }
    let clauses = ev.get("clauses").or_else(|| def.get("clauses"));
    m.insert(
        "clauses".into(),
        clauses.cloned().unwrap_or(Json::Array(vec![])),
    );
    // Every part of the event is the expansion's, none dropped: one truth
    // value per citation of the definition, as many as it has.
    let held = list(ev, "cites")?;
    let cites = list(def, "cites")?;
    if held.len() != cites.len() || held.iter().any(|h| !h.is_boolean()) {
        return Err(format!(
            "step {name}: \"cites\" holds {} truth values for the {} citations of its definition",
            held.len(),
            cites.len()
        ));
    }
    if def.get("condition").is_none() && ev.get("held").is_some() {
        return Err(format!(
            "step {name}: \"held\" on a step without a condition"
        ));
    }
    if def.get("cites").is_some() {
        let mut out = Vec::with_capacity(cites.len());
        for (c, h) in cites.iter().zip(held) {
            let mut cm = Map::new();
            cm.insert("when".into(), field(c, "when")?.clone());
            cm.insert("held".into(), h.clone());
            cm.insert("clauses".into(), field(c, "clauses")?.clone());
            out.push(Json::Object(cm));
        }
        m.insert("cites".into(), Json::Array(out));
    }
    if let Some(d) = def.get("detail") {
        m.insert("detail".into(), d.clone());
    }
    m.insert("formula".into(), field(def, "formula")?.clone());
    if let Some(c) = def.get("condition") {
        let mut cm = Map::new();
        cm.insert("formula".into(), c.clone());
        cm.insert("held".into(), ev.get("held").cloned().unwrap_or(Json::Null));
        m.insert("condition".into(), Json::Object(cm));
    }
    m.insert(
        "reads".into(),
        reads(list(ev, "r")?, list(def, "reads")?, item.as_deref(), known)?,
    );
    m.insert(
        "lookups".into(),
        ev.get("lookups").cloned().unwrap_or(Json::Array(vec![])),
    );
    let value = field(ev, "v")?.clone();
    let exact = ev.get("exact").cloned().unwrap_or_else(|| value.clone());
    let mut roundings = Vec::new();
    for r in list(ev, "roundings")? {
        let p = (r.as_array()).filter(|p| p.len() == 6).ok_or_else(|| {
            format!("step {name}: a rounding is [AT, MODE, PLACES, BEFORE, AFTER, MARGIN], not {r}")
        })?;
        let get = |k: usize| p.get(k).cloned().ok_or("a rounding too short");
        roundings.push(rounding(
            named(p.first(), list(def, "at")?, &mut use_of.at)?,
            &get(1)?,
            &get(2)?,
            get(3)?,
            get(4)?,
            get(5)?,
        ));
    }
    if let Some(p) = ev.get("round") {
        let p = (p.as_array()).filter(|p| p.len() == 3).ok_or_else(|| {
            format!("step {name}: a rounding point is [MODE, PLACES, MARGIN], not {p}")
        })?;
        let get = |k: usize| p.get(k).cloned().ok_or("a rounding point too short");
        roundings.push(rounding(
            Json::String("step".into()),
            &get(0)?,
            &get(1)?,
            exact.clone(),
            value.clone(),
            get(2)?,
        ));
    }
    m.insert("roundings".into(), Json::Array(roundings));
    m.insert("exact".into(), exact);
    m.insert("value".into(), value.clone());
    let step_name = name.as_str().unwrap_or_default().to_string();
    match item {
        Some(item) => {
            let group = item.split_once('[').map_or("", |(g, _)| g).to_string();
            let order = known.groups.entry(group).or_default();
            if order.last() != Some(&item) {
                order.push(item.clone());
            }
            known
                .items
                .entry(item)
                .or_default()
                .insert(step_name, value);
        }
        None => {
            known.top.insert(step_name, value);
        }
    }
    Ok(Json::Object(m))
}

fn rounding(at: Json, mode: &Json, places: &Json, before: Json, after: Json, margin: Json) -> Json {
    let mut m = Map::new();
    m.insert("at".into(), at);
    m.insert("mode".into(), mode.clone());
    m.insert("places".into(), places.clone());
    m.insert("before".into(), before);
    m.insert("after".into(), after);
    m.insert("margin".into(), margin);
    Json::Object(m)
}

#[cfg(test)]
mod tests;
