//! Impact: the cases of a task set evaluated under both versions, and for
//! each answer field how many answers move, by level and tier, with a few
//! examples explained by every step whose value moved (with its delta) and
//! the step where the change starts.
//!
//! A case one version refuses and the other answers is counted apart, by
//! the path refused (`old_rejects`, `new_rejects`): last year's version
//! refusing this year's months is a fact about its input bounds, not an
//! answer that moved. Another rejection under each counts as a change of
//! the outcome (`$outcome`). The old version may read each case with its
//! months and dates moved by whole years (`ImpactOptions::old_years`), so
//! last year's rules run on this year's cases where only the dates
//! differ. Cases run untraced first; only the examples shown are evaluated
//! again with a trace.

use indexmap::IndexMap;
use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value as Json;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use crate::evaluation::evaluate_value;
use crate::model::{Input, InputKind, Rulebook};
use crate::outcome::outcome_json;
use crate::tasks::Task;
use crate::trace::{Event, StepEvent};
use crate::value::Month;

/// The pseudo-field of an outcome that changed kind (answer, rejection) or rejection.
pub const OUTCOME: &str = "$outcome";

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

/// A step whose value moved, with the difference when both are numbers.
#[derive(Clone, Debug, Serialize)]
pub struct StepMove {
    /// Step name.
    pub step: String,
    /// For a per-item step, the item (`lines[3]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    /// Its value under the old version (absent: not computed there).
    pub old: Option<Json>,
    /// Its value under the new version.
    pub new: Option<Json>,
    /// `new − old`, exact, when both are numbers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta: Option<String>,
}

/// Most moved steps listed per example: a payslip moves a few dozen; a
/// rulebook whose every step moves is told by the count, not a page.
pub const MAX_STEP_MOVES: usize = 40;

/// A task whose answer moved.
#[derive(Clone, Debug, Serialize)]
pub struct Example {
    /// The task's id.
    pub task: String,
    /// The field's old value (an error object for a rejection).
    pub old: Json,
    /// Its new value.
    pub new: Json,
    /// Why: the step where the change starts, up the chain of what the
    /// field read, when both versions computed steps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub divergence: Option<Divergence>,
    /// Every step whose value moved, in the new trace's order (then steps
    /// only the old computed), at most 40 (`MAX_STEP_MOVES`): a change that
    /// comes from several rows shows each of them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepMove>,
    /// How many steps moved in all (more than `steps` lists when capped).
    #[serde(skip_serializing_if = "is_zero")]
    pub steps_moved: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Cases one version refuses where the other answers.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Rejections {
    /// How many.
    pub count: usize,
    /// By the path refused (`month`, `lines[2].quantity`).
    pub by_path: BTreeMap<String, usize>,
    /// The first few: task, and the refusal.
    pub examples: Vec<Rejection>,
}

/// One case refused by one version and answered by the other.
#[derive(Clone, Debug, Serialize)]
pub struct Rejection {
    /// The task's id.
    pub task: String,
    /// The path refused.
    pub path: String,
    /// Why.
    pub message: String,
}

/// How an impact is run.
#[derive(Clone, Copy, Debug, Default)]
pub struct ImpactOptions {
    /// Examples kept per moved field, and per kind of rejection.
    pub examples: usize,
    /// Whole years added to every month and date input (top level, in
    /// records, lists and maps) the old version declares, before the old
    /// version reads a case: `-1` runs last year's rules on this year's
    /// cases. Zero reads the cases as they are.
    pub old_years: i32,
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
    /// Tasks both versions answer (or refuse) whose outcome moved.
    pub changed: usize,
    /// Cases the old version refuses and the new one answers (its input
    /// bounds: last year's version refusing this year's months).
    pub old_rejects: Rejections,
    /// Cases the new version refuses and the old one answers.
    pub new_rejects: Rejections,
    /// Years added to the old version's months and dates (`old_years`).
    #[serde(skip_serializing_if = "is_zero_years")]
    pub old_years: i32,
    /// Tasks by level and tier, to read the counts against.
    pub levels: BTreeMap<String, usize>,
    /// Tasks by tier.
    pub tiers: BTreeMap<String, usize>,
    /// By answer field, in order of first change (`$outcome` for the outcome itself).
    pub fields: IndexMap<String, FieldImpact>,
}

fn is_zero_years(n: &i32) -> bool {
    *n == 0
}

/// `case` as the old version reads it: every month and date input it
/// declares moved by `years` (29 February to the 28th in a common year).
/// A value that is not a month or date is left for validation to refuse.
pub fn shift_years(rb: &Rulebook, case: &Json, years: i32) -> Json {
    let mut case = case.clone();
    if years != 0 {
        if let Json::Object(map) = &mut case {
            for input in &rb.inputs {
                if let Some(v) = map.get_mut(&*input.name) {
                    shift_value(input, v, years);
                }
            }
        }
    }
    case
}

fn shift_value(input: &Input, v: &mut Json, years: i32) {
    match (&input.kind, v) {
        (InputKind::Month { .. }, Json::String(text)) => {
            if let Some(m) = Month::parse(text).and_then(|m| Some((m.year.checked_add(years)?, m)))
            {
                let (year, m) = m;
                if (0..=9999).contains(&year) {
                    *text = format!("{year:04}-{:02}", m.month);
                }
            }
        }
        (InputKind::Date { .. }, Json::String(text)) => {
            if let Ok(d) = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d") {
                use chrono::Datelike;
                let year = d
                    .year()
                    .checked_add(years)
                    .filter(|y| (0..=9999).contains(y));
                let moved = year.and_then(|y| {
                    d.with_year(y)
                        .or_else(|| d.with_day(28).and_then(|d| d.with_year(y)))
                });
                if let Some(moved) = moved {
                    *text = moved.format("%Y-%m-%d").to_string();
                }
            }
        }
        (InputKind::Record { fields, .. }, Json::Object(map)) => {
            for field in fields {
                if let Some(v) = map.get_mut(&*field.name) {
                    shift_value(field, v, years);
                }
            }
        }
        (InputKind::List { item, .. }, Json::Array(items)) => {
            for v in items {
                shift_value(item, v, years);
            }
        }
        (InputKind::Map { item, .. }, Json::Object(map)) => {
            for v in map.values_mut() {
                shift_value(item, v, years);
            }
        }
        _ => {}
    }
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

/// A refusal's path and message, if `outcome` is one.
fn refusal(outcome: &Json) -> Option<(String, String)> {
    let e = outcome.get("error")?;
    let text = |k: &str| e.get(k).and_then(Json::as_str).unwrap_or("").to_string();
    Some((text("path"), text("message")))
}

fn count_rejection(r: &mut Rejections, task: &str, (path, message): (String, String), keep: usize) {
    r.count += 1;
    *r.by_path.entry(path.clone()).or_default() += 1;
    if r.examples.len() < keep {
        r.examples.push(Rejection {
            task: task.to_string(),
            path,
            message,
        });
    }
}

/// Evaluates every task under both versions and counts what moved, with
/// at most `options.examples` examples per field.
pub fn impact(old: &Rulebook, new: &Rulebook, tasks: &[Task], options: ImpactOptions) -> Impact {
    let years = options.old_years;
    let outcomes: Vec<(Json, Json)> = tasks
        .par_iter()
        .map(|t| {
            let old_case = shift_years(old, &t.case, years);
            (outcome(old, &old_case), outcome(new, &t.case))
        })
        .collect();
    let mut report = Impact {
        tasks: tasks.len(),
        old_years: years,
        ..Impact::default()
    };
    for (t, (a, b)) in tasks.iter().zip(&outcomes) {
        let (level, tier) = (label(&t.level), label(&t.tier.as_deref()));
        *report.levels.entry(level.clone()).or_default() += 1;
        *report.tiers.entry(tier.clone()).or_default() += 1;
        match (refusal(a), refusal(b)) {
            (Some(why), None) => {
                count_rejection(
                    &mut report.old_rejects,
                    t.id.as_str(),
                    why,
                    options.examples,
                );
                continue;
            }
            (None, Some(why)) => {
                count_rejection(
                    &mut report.new_rejects,
                    t.id.as_str(),
                    why,
                    options.examples,
                );
                continue;
            }
            _ => {}
        }
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
            if f.examples.len() < options.examples {
                let old_case = shift_years(old, &t.case, years);
                let (a, b) = (steps(old, &old_case), steps(new, &t.case));
                let (steps, steps_moved) = step_moves(&a, &b);
                f.examples.push(Example {
                    task: t.id.as_str().to_string(),
                    old: x,
                    new: y,
                    divergence: divergence(&a, &b, &field_name),
                    steps,
                    steps_moved,
                });
            }
        }
    }
    report
}

type Key = (Arc<str>, Option<Arc<str>>);

/// Every step whose value moved between the traces, in the new trace's
/// order then the old's, the first [`MAX_STEP_MOVES`] of them, and how
/// many in all. Both empty when a version computed no step.
fn step_moves(
    a: &IndexMap<Key, StepEvent>,
    b: &IndexMap<Key, StepEvent>,
) -> (Vec<StepMove>, usize) {
    if a.is_empty() || b.is_empty() {
        return (Vec::new(), 0);
    }
    let a = &matched_items(a, b);
    let mut out = Vec::new();
    let mut total = 0;
    let keys = b.keys().chain(a.keys().filter(|k| !b.contains_key(*k)));
    for key in keys {
        if !differs(a, b, key) {
            continue;
        }
        total += 1;
        if out.len() == MAX_STEP_MOVES {
            continue;
        }
        let (x, y) = (a.get(key), b.get(key));
        let delta = match (
            x.and_then(|s| s.value.as_number()),
            y.and_then(|s| s.value.as_number()),
        ) {
            (Some(o), Some(n)) => n.checked_sub(o).map(|d| {
                if d.is_sign_positive() && !d.is_zero() {
                    format!("+{d}")
                } else {
                    d.to_string()
                }
            }),
            _ => None,
        };
        out.push(StepMove {
            step: key.0.to_string(),
            item: key.1.as_ref().map(ToString::to_string),
            old: x.map(|s| json(&s.value)),
            new: y.map(|s| json(&s.value)),
            delta,
        });
    }
    (out, total)
}

/// What an item read of its own record (`line.rate = 7.00`, every read
/// of a dotted name, across its steps), as text: the item's identity when
/// a version adds, removes or reorders rows. `texts` keeps only text values
/// (`line.code`, `line.base`): the identity of a row whose numbers changed.
fn item_records(t: &IndexMap<Key, StepEvent>, texts: bool) -> IndexMap<Arc<str>, String> {
    let mut out: IndexMap<Arc<str>, Vec<String>> = IndexMap::new();
    for ((_, item), s) in t {
        let Some(item) = item else { continue };
        let reads = out.entry(item.clone()).or_default();
        for r in s.reads.iter().filter(|r| r.name.contains('.')) {
            if texts && !matches!(r.value, crate::value::Value::Text(_)) {
                continue;
            }
            let read = format!("{}={}", r.name, json(&r.value));
            if !reads.contains(&read) {
                reads.push(read);
            }
        }
    }
    out.into_iter()
        .map(|(item, mut reads)| {
            reads.sort();
            (item, reads.join(";"))
        })
        .collect()
}

/// The old trace with its items named as the new trace's items they stand
/// for. By position when every group has as many items in both and each
/// pair read the same text fields; else by the record read (all its
/// fields, then its text fields), in order, so a row removed from a table
/// does not shift every row after it. An old item with no match keeps its
/// label, marked `(old only)`.
fn matched_items(
    a: &IndexMap<Key, StepEvent>,
    b: &IndexMap<Key, StepEvent>,
) -> IndexMap<Key, StepEvent> {
    let (ta, tb) = (item_records(a, true), item_records(b, true));
    let same_layout =
        ta.len() == tb.len() && ta.iter().zip(&tb).all(|((x, r), (y, q))| x == y && r == q);
    if same_layout {
        return a.clone();
    }
    let mut names: std::collections::HashMap<Arc<str>, Arc<str>> = std::collections::HashMap::new();
    let mut taken: HashSet<Arc<str>> = HashSet::new();
    let (fa, fb) = (item_records(a, false), item_records(b, false));
    // Of the candidates, the one sharing most reads with the old item.
    let shared = |x: &str, y: &str| {
        let ys: HashSet<&str> = y.split(';').collect();
        x.split(';').filter(|r| ys.contains(r)).count()
    };
    for (ra, rb) in [(&fa, &fb), (&ta, &tb)] {
        for (old_item, record) in ra {
            if names.contains_key(old_item) {
                continue;
            }
            let full = fa.get(old_item).map_or("", String::as_str);
            let mut best: Option<(usize, &Arc<str>)> = None;
            for (new_item, r) in rb {
                if group_of(new_item) != group_of(old_item)
                    || r != record
                    || taken.contains(new_item)
                {
                    continue;
                }
                let score = shared(full, fb.get(new_item).map_or("", String::as_str));
                if best.is_none_or(|(s, _)| score > s) {
                    best = Some((score, new_item));
                }
            }
            if let Some((_, new_item)) = best {
                taken.insert(new_item.clone());
                names.insert(old_item.clone(), new_item.clone());
            }
        }
    }
    a.iter()
        .map(|((step, item), s)| {
            let item = item.as_ref().map(|i| match names.get(i) {
                Some(new) => new.clone(),
                None => Arc::from(format!("{i} (old only)")),
            });
            ((step.clone(), item), s.clone())
        })
        .collect()
}

fn steps(rb: &Rulebook, case: &Json) -> IndexMap<Key, StepEvent> {
    let Ok((_, Some(trace))) = evaluate_value(rb, case, true) else {
        return IndexMap::new();
    };
    trace
        .events
        .into_iter()
        .filter_map(|e| match e {
            Event::Step(s) => Some(((s.step.clone(), s.item.clone()), s)),
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
fn differs(a: &IndexMap<Key, StepEvent>, b: &IndexMap<Key, StepEvent>, key: &Key) -> bool {
    match (a.get(key), b.get(key)) {
        (Some(x), Some(y)) => json(&x.value) != json(&y.value),
        (None, None) => false,
        _ => true,
    }
}

/// How many items of group `g` a trace computed steps for.
fn items(t: &IndexMap<Key, StepEvent>, g: &str) -> usize {
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
    traces: [&IndexMap<Key, StepEvent>; 2],
    own: &IndexMap<Key, StepEvent>,
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
    a: &IndexMap<Key, StepEvent>,
    b: &IndexMap<Key, StepEvent>,
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
fn divergence(
    a: &IndexMap<Key, StepEvent>,
    b: &IndexMap<Key, StepEvent>,
    field: &str,
) -> Option<Divergence> {
    let (a, b) = (a, b);
    if a.is_empty() || b.is_empty() {
        // One version refused the case before any step: its rejection is the reason.
        return None;
    }
    let key = upstream(a, b, field)
        .or_else(|| a.keys().chain(b.keys()).find(|k| differs(a, b, k)).cloned())?;
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
