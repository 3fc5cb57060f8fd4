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
use std::collections::BTreeMap;
use std::sync::Arc;

use crate::model::Rulebook;
use crate::pipeline::{evaluate_json, outcome_json};
use crate::trace::{Event, StepTrace};

/// The pseudo-field of an outcome that changed kind (answer, rejection) or rejection.
pub const OUTCOME: &str = "$outcome";

/// One case of a task set.
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
    match evaluate_json(rb, case, false) {
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
pub fn impact(old: &Rulebook, new: &Rulebook, tasks: &[ImpactTask], examples: usize) -> Impact {
    let outcomes: Vec<(Json, Json)> = tasks
        .par_iter()
        .map(|t| (outcome(old, &t.case), outcome(new, &t.case)))
        .collect();
    let mut report = Impact {
        tasks: tasks.len(),
        ..Impact::default()
    };
    for (t, (a, b)) in tasks.iter().zip(&outcomes) {
        let (level, tier) = (label(&t.level), label(&t.tier));
        *report.levels.entry(level.clone()).or_default() += 1;
        *report.tiers.entry(tier.clone()).or_default() += 1;
        let fields = moved(a, b);
        if !fields.is_empty() {
            report.changed += 1;
        }
        for (field, x, y) in fields {
            let f = report.fields.entry(field).or_default();
            f.changed += 1;
            *f.by_level.entry(level.clone()).or_default() += 1;
            *f.by_tier.entry(tier.clone()).or_default() += 1;
            if f.examples.len() < examples {
                f.examples.push(Example {
                    task: t.id.clone(),
                    old: x,
                    new: y,
                    divergence: divergence(old, new, &t.case),
                });
            }
        }
    }
    report
}

type Key = (Arc<str>, Option<Arc<str>>);

fn steps(rb: &Rulebook, case: &Json) -> IndexMap<Key, StepTrace> {
    let Ok((_, Some(trace))) = evaluate_json(rb, case, true) else {
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

/// The first step, in the old trace's order and then the new one's, that
/// one trace has and the other lacks or computes to another value.
fn divergence(old: &Rulebook, new: &Rulebook, case: &Json) -> Option<Divergence> {
    let (a, b) = (steps(old, case), steps(new, case));
    if a.is_empty() || b.is_empty() {
        // One version refused the case before any step: its rejection is the reason.
        return None;
    }
    let differs = |x: &StepTrace, other: &IndexMap<Key, StepTrace>, key: &Key| {
        other
            .get(key)
            .is_none_or(|y| json(&x.value) != json(&y.value))
    };
    let key = a
        .iter()
        .find(|(k, x)| differs(x, &b, k))
        .or_else(|| b.iter().find(|(k, y)| differs(y, &a, k)))
        .map(|(k, _)| k.clone())?;
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
