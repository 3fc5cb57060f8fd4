//! One trace read event by event against the rulebook: each step and check
//! recomputed by the verifier's own reading (`calc.rs`), each read, lookup
//! and rounding compared with what the trace recorded, and the outcome and
//! answer compared with what the steps give.
//!
//! A step's value, once recomputed, is what later events read of it: a
//! step whose recorded value was tampered with is named, and the steps
//! after it, which read the true value, are not.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value as Json;

use crate::model::{Row, Rulebook, StepRef};
use crate::num::rounding::Rounded;
use crate::value::Value;

use super::calc::{Calc, LookupMade, World};
use super::decode::{encode, guess, same, same_value, shown};

/// One thing in a trace that does not follow from the rulebook and the case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Where: `step lines[0].net`, `check 3`, `input gross_pay`, `answer net_pay`.
    pub at: String,
    /// What: `value`, `read row.rate`, `rounding`, `lookup`, …
    pub what: String,
    /// What the trace recorded.
    pub recorded: String,
    /// What follows from the rulebook and the rest of the trace.
    pub follows: String,
}

/// What the verifier has read of the trace so far.
pub struct State<'a> {
    pub(super) rb: &'a Rulebook,
    pub(super) case: Option<&'a Json>,
    pub(super) inputs: HashMap<Arc<str>, (Value, String)>,
    pub(super) steps: HashMap<Arc<str>, Value>,
    pub(super) items: HashMap<(usize, usize), HashMap<Arc<str>, Value>>,
    pub(super) overs: HashMap<usize, Arc<[Value]>>,
    /// Groups found to have items before any of their steps ran (their
    /// lists are learnt from their events, [`State::settle_empty_groups`]).
    with_items: std::collections::HashSet<usize>,
    pub(super) rows: Vec<Arc<[Row]>>,
    replaced: HashMap<(Option<usize>, usize), Arc<str>>,
    /// `decision` and `reason`, which answer fields may read.
    pub(super) decided: Vec<(&'static str, Value)>,
    /// What was found not to follow.
    pub findings: Vec<Finding>,
    /// Counts for the summary: steps, checks, reads, lookups, roundings, answer fields.
    pub counts: [usize; 6],
}

pub(super) fn text(j: &Json, key: &str) -> Option<String> {
    j.get(key).and_then(Json::as_str).map(str::to_string)
}

fn list<'j>(j: &'j Json, key: &str) -> &'j [Json] {
    j.get(key)
        .and_then(Json::as_array)
        .map_or(&[][..], Vec::as_slice)
}

impl<'a> State<'a> {
    /// A verifier's state before the first event.
    pub fn new(rb: &'a Rulebook, case: Option<&'a Json>) -> Self {
        State {
            rb,
            case,
            inputs: HashMap::new(),
            steps: HashMap::new(),
            items: HashMap::new(),
            overs: HashMap::new(),
            with_items: Default::default(),
            rows: rb
                .tables
                .iter()
                .map(|t| Arc::from(t.rows.clone()))
                .collect(),
            replaced: HashMap::new(),
            decided: Vec::new(),
            findings: Vec::new(),
            counts: [0; 6],
        }
    }

    pub(super) fn find(
        &mut self,
        at: impl Into<String>,
        what: &str,
        recorded: String,
        follows: String,
    ) {
        self.findings.push(Finding {
            at: at.into(),
            what: what.to_string(),
            recorded,
            follows,
        });
    }

    /// The ablations the trace names, their replacement formulas taken.
    pub fn ablation(&mut self, names: &str) {
        // As `--ablate` takes them: each named once, no two replacing one
        // step (the engine refuses either, so no trace of it is honest).
        let mut seen = std::collections::HashSet::new();
        for name in names.split(',') {
            if !seen.insert(name) {
                let why = "names an ablation twice, which the engine refuses";
                self.find("ablation", why, name.to_string(), "each named once".into());
                continue;
            }
            match self.rb.ablations.iter().find(|a| &*a.name == name) {
                Some(a) => {
                    for (at, f) in &a.replacements {
                        let key = match at {
                            StepRef::Top(s) => (None, s.index()),
                            StepRef::Item(g, s) => (Some(*g), *s),
                        };
                        if self.replaced.insert(key, f.text.clone()).is_some() {
                            let why = "replaces a step another ablation named replaces, which the engine refuses";
                            let follows = "ablations that replace different steps".into();
                            self.find("ablation", why, name.to_string(), follows);
                        }
                    }
                }
                None => {
                    let declared: Vec<&str> = self.rb.ablations.iter().map(|a| &*a.name).collect();
                    let follows = match declared.is_empty() {
                        true => "none: the rulebook declares no ablation".to_string(),
                        false => format!("one the rulebook declares: {}", declared.join(", ")),
                    };
                    self.find(
                        "ablation",
                        "names an ablation the rulebook does not declare",
                        name.to_string(),
                        follows,
                    )
                }
            }
        }
    }

    pub(super) fn over(&mut self, g: usize) -> Result<Arc<[Value]>, String> {
        if let Some(items) = self.overs.get(&g) {
            return Ok(items.clone());
        }
        let group = self.rb.groups.get(g).ok_or("no such group")?;
        let items = {
            let mut calc = Calc::new(self.rb, self, None, &[]);
            calc.formula(&group.over.text)?
        };
        let items: Arc<[Value]> = match items {
            Value::List(items) => items,
            v if v.is_missing() => Arc::from([]),
            other => return Err(format!("a group over {other}, not a list")),
        };
        self.overs.insert(g, items.clone());
        Ok(items)
    }

    /// A group no step of which ran has no event to learn its list from:
    /// one whose list is empty is read as such (`sum(parts.kept)` over no
    /// parts is 0, not "read before the trace ran it"); one with items
    /// stays unread, as the trace must show its steps.
    pub(super) fn settle_empty_groups(&mut self) {
        for g in 0..self.rb.groups.len() {
            if self.overs.contains_key(&g) || self.with_items.contains(&g) {
                continue;
            }
            if self.over(g).is_ok_and(|items| !items.is_empty()) {
                self.overs.remove(&g);
                self.with_items.insert(g);
            }
        }
    }

    /// Every item of each group the trace ran holds an event of each of
    /// the group's steps. A group runs whole, every step of every item in
    /// turn, when it is first read (`docs/trace-format.md`, "Event
    /// order"), so a receipt without one (a step nothing reads, which no
    /// read would miss) leaves out part of what ran. One finding per item
    /// short of steps, naming them.
    pub fn complete_groups(&mut self) {
        let mut ran: Vec<usize> = self.items.keys().map(|(g, _)| *g).collect();
        ran.sort_unstable();
        ran.dedup();
        let rb = self.rb;
        for g in ran {
            let (Some(group), Some(items)) = (rb.groups.get(g), self.overs.get(&g)) else {
                continue;
            };
            for i in 0..items.len() {
                let done = self.items.get(&(g, i));
                let missing: Vec<&str> = group
                    .steps
                    .iter()
                    .filter(|s| !done.is_some_and(|m| m.contains_key(&s.name)))
                    .map(|s| &*s.name)
                    .collect();
                if !missing.is_empty() {
                    self.find(
                        format!("item {}[{i}]", group.name),
                        "steps",
                        format!("no event of {}", missing.join(", ")),
                        "an event of each step of each item (a group runs whole)".into(),
                    );
                }
            }
        }
    }

    /// One step event recomputed.
    pub fn step(&mut self, ev: &Json) {
        self.settle_empty_groups();
        self.counts[0] += 1;
        let rb = self.rb;
        let name = text(ev, "step").unwrap_or_default();
        let item_text = text(ev, "item");
        let at = match &item_text {
            Some(i) => format!("step {i}.{name}"),
            None => format!("step {name}"),
        };
        // The step in the rulebook, and its item.
        let (step, key, item) = match &item_text {
            None => match rb.steps.iter().position(|s| *s.name == *name) {
                Some(i) => match rb.steps.get(i) {
                    Some(step) => (step, (None, i), None),
                    None => return,
                },
                None => return self.find(at, "not a step of the rulebook", name, String::new()),
            },
            Some(it) => {
                let parsed = it.strip_suffix(']').and_then(|s| s.split_once('['));
                let found = parsed.and_then(|(g, i)| {
                    let gi = rb.groups.iter().position(|x| *x.name == *g)?;
                    let si = rb.groups[gi].steps.iter().position(|s| *s.name == *name)?;
                    // As the engine writes an index: `lines[2]`, never
                    // `lines[02]` or `lines[+2]` (which `parse` takes).
                    let index = i.parse::<usize>().ok().filter(|n| n.to_string() == i)?;
                    Some((gi, si, index))
                });
                let Some((g, s, i)) = found else {
                    return self.find(at, "not a step of the rulebook", it.clone(), String::new());
                };
                match self.over(g) {
                    Ok(items) if i < items.len() => {}
                    Ok(items) => {
                        return self.find(at, "item", it.clone(), format!("{} items", items.len()))
                    }
                    Err(e) => {
                        return self.find(at, "cannot recompute the group's list", e, String::new())
                    }
                }
                (&rb.groups[g].steps[s], (Some(g), s), Some((g, i)))
            }
        };
        // A step is computed once: a second event of it is no receipt of
        // anything (`docs/trace-format.md` §2).
        let again = match item {
            Some(k) => self
                .items
                .get(&k)
                .is_some_and(|m| m.contains_key(&step.name)),
            None => self.steps.contains_key(&step.name),
        };
        if again {
            return self.find(
                at,
                "recorded again",
                "a second event of the step".into(),
                "one event a step".into(),
            );
        }
        let formula = self
            .replaced
            .get(&key)
            .cloned()
            .unwrap_or_else(|| step.expr.text.clone());
        let recorded_formula = text(ev, "formula").unwrap_or_default();
        if recorded_formula != *formula {
            self.find(&at, "formula", recorded_formula, formula.to_string());
        }
        // A helper step is shown on one line: the flag is the rulebook's.
        let detail = ev.get("detail").and_then(Json::as_bool).unwrap_or(false);
        if detail != step.detail {
            self.find(&at, "detail", detail.to_string(), step.detail.to_string());
        }
        let reads = reads_of(ev);
        self.counts[2] += reads.len();
        let done = {
            let mut calc = Calc::new(rb, self, item, &reads);
            let out = compute(&mut calc, step, &formula, ev);
            (
                out,
                calc.roundings,
                calc.lookups,
                calc.mismatches,
                calc.matched,
                calc.unrecorded,
            )
        };
        let (out, roundings, lookups, mismatches, matched, unrecorded) = done;
        let value = match out {
            Ok((exact, value, condition, cites)) => {
                self.compare_step(&at, ev, step, &exact, &value, condition, &cites);
                self.compare_roundings(&at, list(ev, "roundings"), &roundings);
                self.compare_lookups(&at, list(ev, "lookups"), &lookups);
                value
            }
            Err(e) => {
                self.find(&at, "cannot recompute", e, String::new());
                guess(ev.get("value").unwrap_or(&Json::Null))
            }
        };
        self.compare_reads(&at, &reads, &mismatches, &matched, &unrecorded);
        match item {
            Some(k) => {
                self.items
                    .entry(k)
                    .or_default()
                    .insert(step.name.clone(), value);
            }
            None => {
                self.steps.insert(step.name.clone(), value);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn compare_step(
        &mut self,
        at: &str,
        ev: &Json,
        step: &crate::model::Step,
        exact: &Value,
        value: &Value,
        condition: Option<bool>,
        cites: &[bool],
    ) {
        let recorded_held = ev
            .get("condition")
            .and_then(|c| c.get("held"))
            .and_then(Json::as_bool);
        if recorded_held != condition {
            self.find(
                at,
                "condition",
                held_word(recorded_held).into(),
                held_word(condition).into(),
            );
        }
        // The condition as the rulebook writes it: `when false → held
        // true` is no receipt of anything.
        let recorded_when = (ev.get("condition"))
            .and_then(|c| c.get("formula"))
            .and_then(Json::as_str);
        let when = step.when.as_ref().map(|w| &*w.text);
        if recorded_when.is_some() && recorded_when != when {
            let shown = |w: Option<&str>| w.unwrap_or("none").to_string();
            self.find(at, "condition formula", shown(recorded_when), shown(when));
        }
        let recorded_cites: Vec<Option<bool>> = list(ev, "cites")
            .iter()
            .map(|c| c.get("held").and_then(Json::as_bool))
            .collect();
        let cites_follow: Vec<Option<bool>> = cites.iter().map(|b| Some(*b)).collect();
        if recorded_cites != cites_follow {
            self.find(
                at,
                "citations",
                held_list(&recorded_cites),
                held_list(&cites_follow),
            );
        }
        // What each citation says, as the rulebook says it.
        for (k, (c, (f, extra))) in list(ev, "cites").iter().zip(&step.cite).enumerate() {
            self.cite_says(at, &format!("citation {}", k + 1), c, &f.text, extra);
        }
        let mut clauses: Vec<Arc<str>> = step.clauses.to_vec();
        for ((_, extra), held) in step.cite.iter().zip(cites) {
            if *held {
                for c in extra.iter() {
                    if !clauses.contains(c) {
                        clauses.push(c.clone());
                    }
                }
            }
        }
        let follows = Json::Array(
            clauses
                .iter()
                .map(|c| Json::String(c.to_string()))
                .collect(),
        );
        let recorded = ev.get("clauses").cloned().unwrap_or(Json::Null);
        if recorded != follows {
            self.find(at, "clauses", recorded.to_string(), follows.to_string());
        }
        let null = Json::Null;
        let e = ev.get("exact").unwrap_or(&null);
        if !same_value(e, exact) {
            self.find(at, "exact", shown(e), shown(&encode(exact)));
        }
        let v = ev.get("value").unwrap_or(&null);
        if !same_value(v, value) {
            self.find(at, "value", shown(v), shown(&encode(value)));
        }
    }

    fn compare_roundings(&mut self, at: &str, recorded: &[Json], made: &[(String, Rounded)]) {
        self.counts[4] += made.len();
        if recorded.len() != made.len() {
            return self.find(
                at,
                "roundings",
                format!("{} recorded", recorded.len()),
                format!("{} made", made.len()),
            );
        }
        for (r, (where_, m)) in recorded.iter().zip(made) {
            let num = |k: &str| r.get(k).cloned().unwrap_or(Json::Null);
            let ok = text(r, "at").as_deref() == Some(where_.as_str())
                && text(r, "mode").as_deref() == Some(m.mode.name())
                && r.get("places").and_then(Json::as_u64) == Some(u64::from(m.places))
                && same(&num("before"), &Json::String(m.before.to_string()))
                // Rounded to `places`, the value has exactly that many
                // decimals: "228.800" for 2 places is not what rounding gives.
                && text(r, "after").as_deref() == Some(m.after.to_string().as_str())
                && same(&num("margin"), &Json::String(m.margin.to_string()));
            if !ok {
                let follows = format!(
                    "{{at: {where_}, mode: {}, places: {}, before: {}, after: {}, margin: {}}}",
                    m.mode.name(),
                    m.places,
                    m.before,
                    m.after,
                    m.margin
                );
                self.find(at, "rounding", r.to_string(), follows);
            }
        }
    }

    fn compare_lookups(&mut self, at: &str, recorded: &[Json], made: &[LookupMade]) {
        self.counts[3] += made.len();
        if recorded.len() != made.len() {
            return self.find(
                at,
                "lookups",
                format!("{} recorded", recorded.len()),
                format!("{} made", made.len()),
            );
        }
        for (r, m) in recorded.iter().zip(made) {
            let ok = text(r, "kind").as_deref() == Some(m.kind)
                && text(r, "table").as_deref() == Some(&*m.table)
                && text(r, "source").as_deref() == Some(m.source.as_str())
                && text(r, "key").as_deref() == Some(m.key.as_str())
                // No row (a scale's bands) is written `null`: `false` or
                // no key is not what the engine writes.
                && r.get("row") == Some(&m.row.clone().map_or(Json::Null, Json::String))
                && text(r, "why").as_ref() == Some(&m.why);
            if !ok {
                let follows = format!(
                    "{{kind: {}, table: {}, source: {}, key: {}, row: {}, why: {}}}",
                    m.kind,
                    m.table,
                    m.source,
                    m.key,
                    m.row.as_deref().unwrap_or("none"),
                    m.why
                );
                self.find(at, "lookup", r.to_string(), follows);
            }
        }
    }

    fn compare_reads(
        &mut self,
        at: &str,
        reads: &[(String, Json)],
        mismatches: &[super::calc::ReadMismatch],
        matched: &[bool],
        unrecorded: &[(String, crate::value::Value)],
    ) {
        for (name, v) in unrecorded {
            self.find(
                at,
                &format!("read {name}"),
                "not recorded".into(),
                shown(&encode(v)),
            );
        }
        for m in mismatches {
            self.find(
                at,
                &format!("read {}", m.name),
                shown(&m.recorded),
                shown(&encode(&m.source)),
            );
        }
        // The engine records each name once per formula. A set, not a
        // scan of the reads before: a tampered event may repeat one read
        // 200,000 times.
        let mut named = std::collections::HashSet::with_capacity(reads.len());
        for ((name, v), seen) in reads.iter().zip(matched) {
            if !named.insert(name.as_str()) {
                self.find(
                    at,
                    &format!("read {name}"),
                    shown(v),
                    "recorded once".into(),
                );
                continue;
            }
            if !seen {
                self.find(
                    at,
                    &format!("read {name}"),
                    shown(v),
                    "not read by the formula".into(),
                );
            }
        }
    }

    /// One check event recomputed; whether it held.
    pub fn check(&mut self, ev: &Json, expected_index: usize) -> Option<usize> {
        self.settle_empty_groups();
        self.counts[1] += 1;
        let rb = self.rb;
        let index = ev.get("index").and_then(Json::as_u64).unwrap_or(0) as usize;
        let at = format!("check {index}");
        if index != expected_index {
            self.find(&at, "order", index.to_string(), expected_index.to_string());
        }
        let Some(check) = index.checked_sub(1).and_then(|i| rb.checks.get(i)) else {
            self.find(
                at,
                "not a check of the rulebook",
                index.to_string(),
                String::new(),
            );
            return None;
        };
        let when = check.when.as_ref().map(|f| f.text.clone());
        let recorded_when = text(ev, "when");
        if recorded_when.as_deref() != when.as_deref() {
            self.find(
                &at,
                "condition",
                recorded_when.unwrap_or_default(),
                when.as_deref().unwrap_or_default().to_string(),
            );
        }
        let reads = reads_of(ev);
        self.counts[2] += reads.len();
        let (held, mismatches, matched, unrecorded) = {
            let mut calc = Calc::new(rb, self, None, &reads);
            let held = match &when {
                Some(w) => calc.condition(w),
                None => Ok(true),
            };
            (held, calc.mismatches, calc.matched, calc.unrecorded)
        };
        self.compare_reads(&at, &reads, &mismatches, &matched, &unrecorded);
        let gives = text(ev, "gives").unwrap_or_default();
        if gives != *check.gives {
            self.find(&at, "gives", gives, check.gives.to_string());
        }
        let recorded = ev.get("held").and_then(Json::as_bool);
        match held {
            Ok(h) if Some(h) == recorded => {}
            Ok(h) => self.find(&at, "held", held_word(recorded).into(), h.to_string()),
            Err(e) => self.find(&at, "cannot recompute", e, String::new()),
        }
        recorded.unwrap_or(false).then_some(index)
    }

    /// Whether a recorded citation (`c`, of a step or a decision) says
    /// the rulebook's condition `when` and clauses `extra`; `what` names it
    /// within its event.
    fn cite_says(&mut self, at: &str, what: &str, c: &Json, when: &str, extra: &[Arc<str>]) {
        let named = |part: &str| match what {
            "" => part.to_string(),
            _ => format!("{what} {part}"),
        };
        let recorded_when = text(c, "when").unwrap_or_default();
        if recorded_when != when {
            self.find(at, &named("condition"), recorded_when, when.to_string());
        }
        let follows = Json::Array(extra.iter().map(|c| Json::String(c.to_string())).collect());
        let recorded = c.get("clauses").cloned().unwrap_or(Json::Null);
        if recorded != follows {
            self.find(
                at,
                &named("clauses"),
                recorded.to_string(),
                follows.to_string(),
            );
        }
    }

    /// A decision's citation recomputed; whether it held.
    pub fn cite(&mut self, ev: &Json, decision: usize, k: usize) -> bool {
        self.settle_empty_groups();
        let rb = self.rb;
        let at = format!("citation {}", k + 1);
        let Some((f, _)) = rb.decisions.get(decision).and_then(|d| d.cite.get(k)) else {
            self.find(
                at,
                "not a citation of the decision",
                ev.to_string(),
                String::new(),
            );
            return false;
        };
        let extra = rb
            .decisions
            .get(decision)
            .and_then(|d| d.cite.get(k))
            .map(|(_, extra)| extra.clone());
        if let Some(extra) = extra {
            self.cite_says(&at, "", ev, &f.text, &extra);
        }
        let held = Calc::new(rb, self, None, &[]).condition(&f.text);
        let recorded = ev.get("held").and_then(Json::as_bool);
        match held {
            Ok(h) if Some(h) == recorded => h,
            Ok(h) => {
                self.find(&at, "held", held_word(recorded).into(), h.to_string());
                h
            }
            Err(e) => {
                self.find(&at, "cannot recompute", e, String::new());
                false
            }
        }
    }
}

/// A step's exact value, value, condition and citations, as the verifier computes them.
type Computed = (Value, Value, Option<bool>, Vec<bool>);

fn compute<W: World>(
    calc: &mut Calc<'_, W>,
    step: &crate::model::Step,
    formula: &str,
    _ev: &Json,
) -> Result<Computed, String> {
    let mut condition = None;
    let mut exact = None;
    if let Some(when) = &step.when {
        let held = calc.condition(&when.text)?;
        condition = Some(held);
        if !held {
            exact = Some(match &step.otherwise {
                Some(o) => calc.formula(&o.text)?,
                None => Value::Absent,
            });
        }
    }
    let (exact, value) = match exact {
        Some(e) => (e.clone(), e),
        None => {
            let e = calc.formula(formula)?;
            match (step.round, e.as_num()) {
                (Some((places, mode)), Some(n)) => {
                    let r = crate::num::rounding::round_num(n, places, mode)
                        .map_err(|x| x.to_string())?;
                    let after = Value::Number(r.after);
                    calc.roundings.push(("step".into(), r));
                    (e, after)
                }
                _ => (e.clone(), e),
            }
        }
    };
    let mut cites = Vec::with_capacity(step.cite.len());
    for (f, _) in &step.cite {
        cites.push(calc.condition(&f.text)?);
    }
    Ok((exact, value, condition, cites))
}

fn reads_of(ev: &Json) -> Vec<(String, Json)> {
    list(ev, "reads")
        .iter()
        .map(|r| {
            (
                text(r, "name").unwrap_or_default(),
                r.get("value").cloned().unwrap_or(Json::Null),
            )
        })
        .collect()
}

/// Whether each citation held, as a finding shows it: `false, true`, a
/// citation without a truth value `none`.
fn held_list(held: &[Option<bool>]) -> String {
    let words: Vec<&str> = held.iter().map(|h| held_word(*h)).collect();
    format!("[{}]", words.join(", "))
}

/// A truth value as a finding shows it; `none` where there is none.
fn held_word(held: Option<bool>) -> &'static str {
    match held {
        Some(true) => "true",
        Some(false) => "false",
        None => "none",
    }
}
