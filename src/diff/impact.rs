//! Impact: the cases of a task set evaluated under both versions, and for
//! each answer field how many answers move, by level and tier, with a few
//! examples explained by the first step where the two traces diverge.
//!
//! A rejection where the other version answers, or another rejection,
//! counts as a change of the outcome (`$outcome`). Cases run untraced
//! first; only the examples shown are evaluated again with a trace.

use indexmap::IndexMap;
use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value as Json;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use crate::evaluation::evaluate_value;
use crate::model::Rulebook;
use crate::outcome::outcome_json;
use crate::tasks::Task;
use crate::trace::{Event, StepTrace};

/// The pseudo-field of an outcome that changed kind (answer, rejection) or rejection.
pub const OUTCOME: &str = "$outcome";

/// What the impact reads of a task: its id, its case, and the level and
/// tier it is counted under. A task of a task file (`tasks::Task`) is
/// one; an [`ImpactTask`] is one made by hand.
pub trait ImpactCase: Sync {
    /// The task's id.
    fn id(&self) -> &str;
    /// Its level, if any.
    fn level(&self) -> Option<i64>;
    /// Its tier, if any.
    fn tier(&self) -> Option<&str>;
    /// The case.
    fn case(&self) -> &Json;
}

impl ImpactCase for Task {
    fn id(&self) -> &str {
        &self.id
    }
    fn level(&self) -> Option<i64> {
        self.level
    }
    fn tier(&self) -> Option<&str> {
        self.tier.as_deref()
    }
    fn case(&self) -> &Json {
        &self.case
    }
}

impl ImpactCase for ImpactTask {
    fn id(&self) -> &str {
        &self.id
    }
    fn level(&self) -> Option<i64> {
        self.level
    }
    fn tier(&self) -> Option<&str> {
        self.tier.as_deref()
    }
    fn case(&self) -> &Json {
        &self.case
    }
}

/// One case of a task set, made by hand.
#[derive(Clone, Debug)]
pub struct ImpactTask {
    /// The task's id.
    pub id: String,
    /// Its level, if any.
    pub level: Option<i64>,
    /// Its tier, if any.
    pub tier: Option<String>,
    /// The case.
    pub case: Json,
}

/// The first step where two traces part.
#[derive(Clone, Debug, Serialize)]
pub struct Divergence {
    /// Step name.
    pub step: String,
    /// For a per-item step, the item (`lines[3]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    /// Its value under the old version (absent: the old version has no such step here).
    pub old_value: Option<Json>,
    /// Its value under the new version.
    pub new_value: Option<Json>,
    /// Its formula in the old version.
    pub old_formula: Option<String>,
    /// Its formula in the new version.
    pub new_formula: Option<String>,
    /// The names the step read in both versions whose values differ (a
    /// parameter, an input, an earlier step): why the same formula moved.
    pub reads: Vec<ReadChange>,
    /// The table rows it looked up in either version (`rates row south`):
    /// a trace names a row, not its cells, so a changed cell shows in the
    /// structural diff under that row.
    pub lookups: Vec<String>,
    /// The clauses the step applies, in either version.
    pub clauses: Vec<String>,
}

/// A name a step read in both versions, with another value in each.
#[derive(Clone, Debug, Serialize)]
pub struct ReadChange {
    /// The name read (`smic`, `row.rate`).
    pub name: String,
    /// Its value under the old version.
    pub old: Json,
    /// Its value under the new version.
    pub new: Json,
}

/// A task whose answer moved.
#[derive(Clone, Debug, Serialize)]
pub struct Example {
    /// The task's id.
    pub task: String,
    /// The field's old value (an error object for a rejection).
    pub old: Json,
    /// Its new value.
    pub new: Json,
    /// Why: the first diverging step, when both versions computed steps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub divergence: Option<Divergence>,
}

/// How one answer field moved.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FieldImpact {
    /// Tasks whose value of the field changed.
    pub changed: usize,
    /// The same, by level (`none` without one).
    pub by_level: BTreeMap<String, usize>,
    /// The same, by tier (`none` without one).
    pub by_tier: BTreeMap<String, usize>,
    /// The first few.
    pub examples: Vec<Example>,
}

/// The impact of a new version on a task set.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Impact {
    /// Tasks evaluated.
    pub tasks: usize,
    /// Tasks with any change.
    pub changed: usize,
    /// Tasks by level and tier, to read the counts against.
    pub levels: BTreeMap<String, usize>,
    /// Tasks by tier.
    pub tiers: BTreeMap<String, usize>,
    /// By answer field, in order of first change (`$outcome` for the outcome itself).
    pub fields: IndexMap<String, FieldImpact>,
}

fn outcome(rb: &Rulebook, case: &Json) -> Json {
    match evaluate_value(rb, case, false) {
        Ok((o, _)) => outcome_json(Ok(&o)),
        Err(e) => outcome_json(Err(&e)),
    }
}

/// The fields whose values differ, with both values.
fn moved(old: &Json, new: &Json) -> Vec<(String, Json, Json)> {
    let error = |v: &Json| v.get("error").is_some();
    if error(old) || error(new) {
        return if old == new {
            Vec::new()
        } else {
            vec![(OUTCOME.to_string(), old.clone(), new.clone())]
        };
    }
    let (Some(a), Some(b)) = (old.as_object(), new.as_object()) else {
        return Vec::new();
    };
    let mut keys: Vec<&String> = a.keys().collect();
    keys.extend(b.keys().filter(|k| !a.contains_key(*k)));
    keys.into_iter()
        .filter_map(|k| {
            let (x, y) = (
                a.get(k).cloned().unwrap_or(Json::Null),
                b.get(k).cloned().unwrap_or(Json::Null),
            );
            (x != y).then(|| (k.clone(), x, y))
        })
        .collect()
}

fn label<T: ToString>(v: &Option<T>) -> String {
    v.as_ref()
        .map_or_else(|| "none".to_string(), ToString::to_string)
}

/// Evaluates every task under both versions and counts what moved, with
/// at most `examples` examples per field.
pub fn impact<T: ImpactCase>(
    old: &Rulebook,
    new: &Rulebook,
    tasks: &[T],
    examples: usize,
) -> Impact {
    let outcomes: Vec<(Json, Json)> = tasks
        .par_iter()
        .map(|t| (outcome(old, t.case()), outcome(new, t.case())))
        .collect();
    let mut report = Impact {
        tasks: tasks.len(),
        ..Impact::default()
    };
    for (t, (a, b)) in tasks.iter().zip(&outcomes) {
        let (level, tier) = (label(&t.level()), label(&t.tier()));
        *report.levels.entry(level.clone()).or_default() += 1;
        *report.tiers.entry(tier.clone()).or_default() += 1;
        let fields = moved(a, b);
        if !fields.is_empty() {
            report.changed += 1;
        }
        for (field, x, y) in fields {
            let field_name = field.clone();
            let f = report.fields.entry(field).or_default();
            f.changed += 1;
            *f.by_level.entry(level.clone()).or_default() += 1;
            *f.by_tier.entry(tier.clone()).or_default() += 1;
            if f.examples.len() < examples {
                f.examples.push(Example {
                    task: t.id().to_string(),
                    old: x,
                    new: y,
                    divergence: divergence(old, new, t.case(), &field_name),
                });
            }
        }
    }
    report
}

type Key = (Arc<str>, Option<Arc<str>>);

fn steps(rb: &Rulebook, case: &Json) -> IndexMap<Key, StepTrace> {
    let Ok((_, Some(trace))) = evaluate_value(rb, case, true) else {
        return IndexMap::new();
    };
    trace
        .events
        .into_iter()
        .filter_map(|e| match e {
            Event::Step(s) => Some(((s.step.clone(), s.item.clone()), *s)),
            _ => None,
        })
        .collect()
}

fn json(v: &impl Serialize) -> Json {
    serde_json::to_value(v).unwrap_or(Json::Null)
}

/// The group of a per-item step's item (`lines` of `lines[3]`).
fn group_of(item: &str) -> &str {
    item.split('[').next().unwrap_or(item)
}

/// Whether a step is in one trace only, or has another value in each.
fn differs(a: &IndexMap<Key, StepTrace>, b: &IndexMap<Key, StepTrace>, key: &Key) -> bool {
    match (a.get(key), b.get(key)) {
        (Some(x), Some(y)) => json(&x.value) != json(&y.value),
        (None, None) => false,
        _ => true,
    }
}

/// How many items of group `g` a trace computed steps for.
fn items(t: &IndexMap<Key, StepTrace>, g: &str) -> usize {
    let set: HashSet<&str> = t
        .keys()
        .filter_map(|k| k.1.as_deref())
        .filter(|i| group_of(i) == g)
        .collect();
    set.len()
}

/// The steps a name read inside step `at` stands for, in trace order: the
/// same item's step, a top-level step, or the steps of a group (`g.s`,
/// `g`). Items are matched by position, so a group with another number of
/// items in each version (a row added or removed) stands instead for the
/// top-level steps its items read.
/// `own` is the trace whose items are scanned for what they read.
fn read_keys(
    name: &str,
    at: &Key,
    traces: [&IndexMap<Key, StepTrace>; 2],
    own: &IndexMap<Key, StepTrace>,
) -> Vec<Key> {
    let mut out: Vec<Key> = Vec::new();
    let group = |item: &str| -> Option<bool> {
        let g = group_of(item);
        let named = match name.split_once('.') {
            Some((head, _)) => head == g,
            None => name == g,
        };
        named.then(|| items(traces[0], g) == items(traces[1], g))
    };
    for t in traces {
        for (k, s) in t.iter() {
            let hit = match (&k.1, &at.1) {
                (Some(item), Some(here)) => item == here && *k.0 == *name,
                (None, _) => *k.0 == *name,
                (Some(item), None) => match (group(item), name.split_once('.')) {
                    (Some(true), Some((_, step))) => *k.0 == *step,
                    (Some(true), None) => true,
                    (Some(false), _) if std::ptr::eq(t, own) => {
                        for r in &s.reads {
                            let top: Key = (r.name.clone(), None);
                            if traces.iter().any(|t| t.contains_key(&top)) && !out.contains(&top) {
                                out.push(top);
                            }
                        }
                        false
                    }
                    _ => false,
                },
            };
            if hit && !out.contains(k) {
                out.push(k.clone());
            }
        }
    }
    out
}

/// From the step of the field's name, up the chain of what it read: while
/// a step read (in either version) diverges, follow it: first a step both
/// versions read here and compute to other values, then one both compute,
/// then one computed in one version only.
/// The step reached is where the divergence starts: what it reads that is
/// no step (an input, a parameter, a table row) is the same, or named in
/// its reads.
fn upstream(
    a: &IndexMap<Key, StepTrace>,
    b: &IndexMap<Key, StepTrace>,
    field: &str,
) -> Option<Key> {
    let mut at: Key = (Arc::from(field), None);
    if !differs(a, b, &at) {
        return None;
    }
    let mut seen: HashSet<Key> = HashSet::new();
    while seen.insert(at.clone()) {
        // What each version's step reads, through that version's items.
        let mut sides: [Vec<Key>; 2] = [Vec::new(), Vec::new()];
        for (side, own) in sides.iter_mut().zip([a, b]) {
            for r in own.get(&at).into_iter().flat_map(|s| s.reads.iter()) {
                for k in read_keys(&r.name, &at, [a, b], own) {
                    if !seen.contains(&k) && differs(a, b, &k) && !side.contains(&k) {
                        side.push(k);
                    }
                }
            }
        }
        let candidates: Vec<Key> = sides[0]
            .iter()
            .chain(sides[1].iter().filter(|k| !sides[0].contains(k)))
            .cloned()
            .collect();
        let computed = |k: &&Key| a.contains_key(*k) && b.contains_key(*k);
        let read_by_both = |k: &&Key| computed(k) && sides[0].contains(k) && sides[1].contains(k);
        let best = candidates
            .iter()
            .find(read_by_both)
            .or(candidates.iter().find(computed));
        match best.or(candidates.first()) {
            Some(next) => at = next.clone(),
            None => break,
        }
    }
    Some(at)
}

/// Where the two traces part for `field`: up the chain of steps it read
/// (`upstream`), or, for a field no step is named after, the first step in
/// the old trace's order and then the new one's that one trace lacks or
/// computes to another value.
fn divergence(old: &Rulebook, new: &Rulebook, case: &Json, field: &str) -> Option<Divergence> {
    let (a, b) = (steps(old, case), steps(new, case));
    if a.is_empty() || b.is_empty() {
        // One version refused the case before any step: its rejection is the reason.
        return None;
    }
    let key = upstream(&a, &b, field).or_else(|| {
        a.keys()
            .chain(b.keys())
            .find(|k| differs(&a, &b, k))
            .cloned()
    })?;
    let (x, y) = (a.get(&key), b.get(&key));
    let mut clauses: Vec<String> = Vec::new();
    for c in x.into_iter().chain(y).flat_map(|s| s.clauses.iter()) {
        if !clauses.iter().any(|k| **k == **c) {
            clauses.push(c.to_string());
        }
    }
    let mut reads = Vec::new();
    if let (Some(x), Some(y)) = (x, y) {
        for r in &x.reads {
            let Some(n) = y.reads.iter().find(|n| n.name == r.name) else {
                continue;
            };
            let (old, new) = (json(&r.value), json(&n.value));
            if old != new && !reads.iter().any(|c: &ReadChange| *c.name == *r.name) {
                reads.push(ReadChange {
                    name: r.name.to_string(),
                    old,
                    new,
                });
            }
        }
    }
    let mut lookups: Vec<String> = Vec::new();
    for l in x.into_iter().chain(y).flat_map(|s| s.lookups.iter()) {
        let row = format!("{} row {}", l.table, l.row.as_deref().unwrap_or("(none)"));
        if !lookups.contains(&row) {
            lookups.push(row);
        }
    }
    Some(Divergence {
        reads,
        lookups,
        step: key.0.to_string(),
        item: key.1.as_ref().map(ToString::to_string),
        old_value: x.map(|s| json(&s.value)),
        new_value: y.map(|s| json(&s.value)),
        old_formula: x.map(|s| s.formula.to_string()),
        new_formula: y.map(|s| s.formula.to_string()),
        clauses,
    })
}
