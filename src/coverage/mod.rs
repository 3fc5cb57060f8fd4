//! Ablation coverage of a task set: which of a rulebook's declared ablations,
//! and which combinations of them, a set of graded tasks detects.
//!
//! A task holds a case and its reference answer (`expected`, as `bareme eval
//! --batch` prints it: the answer, or `{"error": {"path", "message"}}`). It
//! *detects* a combination of ablations when the case's outcome under them
//! all differs from `expected`. A task set that detects every combination
//! catches every wrong reading and every incomplete repair of them.
//!
//! Tasks are given one at a time ([`Coverage::add`]) and only counts are
//! kept, so a task file of any length is read in bounded memory; the ablated
//! rulebooks are built once, up front, at most [`MAX_COMBINATIONS`] of them.
//! Reading the task file is the caller's (`bareme ablations`).
//!
//! Invariant: nothing is scored against a rulebook a task was not written for
//! (its id, version and hash must be the rulebook's), nor before the task's
//! `expected` is shown to be the rulebook's own outcome for its case.

use std::path::PathBuf;
use std::sync::Arc;

use rayon::prelude::*;
use serde_json::{json, Value};

use crate::case::validate_case;
use crate::eval::{evaluate, evaluate_under};
use crate::model::Rulebook;
use crate::outcome::{outcome_json, same_line, Outcome};

/// Most combinations measured at once: each is a copy of the rulebook.
pub const MAX_COMBINATIONS: usize = 4096;

/// Most bytes of one line of a task file (16 MiB): a case, its answer and
/// whatever else the task carries, such as its prompt.
pub const MAX_TASK_BYTES: usize = 16 << 20;

/// The largest combinations measured when none is asked for: all of them up
/// to this many ablations, else pairs.
const ALL_UP_TO: usize = 10;

/// One graded task, from a line of a task file (JSON Lines). Keys other
/// than these are the task's own (its prompt, tags, …) and are not read.
#[derive(Clone, Debug)]
pub struct Task {
    /// `id`.
    pub id: String,
    /// The rulebook's id, from `rulebook` (`"<id>@<version>"`).
    pub rulebook_id: String,
    /// The rulebook's version, from `rulebook`.
    pub version: i64,
    /// `rulebook_hash`: the rulebook's hash as [`Rulebook::hash`] gives it.
    pub hash: String,
    /// `case`: the case as `bareme eval` takes it.
    pub case: Value,
    /// `expected`: the reference outcome, as `bareme eval --batch` prints it.
    pub expected: Value,
    /// `level`, when the task has one.
    pub level: Option<i64>,
    /// `tier`, when the task has one.
    pub tier: Option<String>,
}

impl Task {
    /// A task from its JSON text.
    pub fn from_json(text: &str) -> Result<Task, String> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| format!("the task is not JSON: {e}"))?;
        let Value::Object(mut task) = value else {
            return Err("a task must be a JSON object".into());
        };
        let text_of = |key: &str| match task.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(format!("the task's `{key}` must be a string")),
            None => Err(format!("the task has no `{key}`")),
        };
        let id = text_of("id")?;
        let rulebook = text_of("rulebook")?;
        let hash = text_of("rulebook_hash")?;
        let (rulebook_id, version) = rulebook
            .rsplit_once('@')
            .and_then(|(id, v)| Some((id, v.parse::<i64>().ok()?)))
            .filter(|(id, v)| is_rulebook_id(id) && *v >= 1)
            .ok_or_else(|| {
                format!("task {id}: `rulebook` must be ID@VERSION, as `sales-tax@1`, found {rulebook:?}")
            })?;
        let level = task.get("level").and_then(Value::as_i64);
        let tier = task.get("tier").and_then(Value::as_str).map(str::to_string);
        let mut take = |key: &str| {
            task.remove(key)
                .ok_or_else(|| format!("task {id} has no `{key}`"))
        };
        Ok(Task {
            rulebook_id: rulebook_id.to_string(),
            version,
            hash,
            case: take("case")?,
            expected: take("expected")?,
            id,
            level,
            tier,
        })
    }

    /// Where a bundled rulebook of the task's id and version is, relative to
    /// the repository root: `rulebooks/<id>/v<version>`.
    pub fn rulebook_dir(&self) -> PathBuf {
        PathBuf::from("rulebooks")
            .join(&self.rulebook_id)
            .join(format!("v{}", self.version))
    }

    /// `id@version#hash`, the hash in full.
    pub fn written_for(&self) -> String {
        format!("{}@{}#{}", self.rulebook_id, self.version, self.hash)
    }
}

/// A rulebook id as the checker accepts one: lowercase letters, digits, `-`
/// and `_`, so that it names a folder and nothing above it.
fn is_rulebook_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

/// One combination of ablations and what the tasks so far made of it.
struct Combination {
    /// Indices into the declared ablations, ascending.
    members: Vec<usize>,
    /// The rulebook under them all, or why they cannot apply together.
    ablated: Result<Rulebook, String>,
    /// Tasks whose outcome under it differs from their `expected`.
    detected: usize,
}

/// The coverage of the tasks given so far.
pub struct Coverage {
    rulebook: Rulebook,
    names: Vec<Arc<str>>,
    max_size: usize,
    combinations: Vec<Combination>,
    tasks: usize,
}

/// One combination in a report.
#[derive(Clone, Debug, PartialEq)]
pub struct CombinationReport<'a> {
    /// Its ablations, in declaration order.
    pub ablations: Vec<&'a str>,
    /// How many tasks detect it.
    pub detected: usize,
    /// Why its ablations cannot apply together, if they cannot (then it is
    /// neither detected nor undetected).
    pub refused: Option<&'a str>,
}

impl Coverage {
    /// Readies the measure of `rulebook`'s declared ablations and of every
    /// combination of up to `max_size` of them (by default all when there are
    /// at most 10 ablations, else pairs), with no task yet.
    pub fn new(rulebook: &Rulebook, max_size: Option<usize>) -> Result<Coverage, String> {
        let names: Vec<Arc<str>> = rulebook.ablation_names().map(Arc::from).collect();
        let n = names.len();
        if n == 0 {
            return Err(format!(
                "rulebook {} declares no ablations",
                rulebook.reference()
            ));
        }
        let max_size = match max_size {
            Some(0) => return Err("--subsets must be at least 1".into()),
            Some(k) => k.min(n),
            None if n <= ALL_UP_TO => n,
            None => 2,
        };
        let Some(count) = combination_count(n, max_size) else {
            return Err(format!(
                "the combinations of {n} ablations up to {max_size} at once are more than {MAX_COMBINATIONS}: ask for fewer with --subsets"
            ));
        };
        let mut combinations = Vec::with_capacity(count);
        for size in 1..=max_size {
            let mut members: Vec<usize> = (0..size).collect();
            loop {
                let chosen: Vec<&str> = members.iter().map(|&i| &*names[i]).collect();
                combinations.push(Combination {
                    ablated: rulebook.ablated_all(&chosen),
                    members: members.clone(),
                    detected: 0,
                });
                if !next_combination(&mut members, n) {
                    break;
                }
            }
        }
        Ok(Coverage {
            rulebook: rulebook.clone(),
            names,
            max_size,
            combinations,
            tasks: 0,
        })
    }

    /// Scores one task: refused if it was written for another rulebook, or if
    /// its `expected` is not the rulebook's own outcome for its case (then
    /// nothing of it is counted).
    pub fn add(&mut self, task: &Task) -> Result<(), String> {
        let rb = &self.rulebook;
        if task.rulebook_id != rb.id() || task.version != rb.version() || task.hash != rb.hash() {
            return Err(format!(
                "task {} was written for {}, not for the rulebook given, {}@{}#{}",
                task.id,
                task.written_for(),
                rb.id(),
                rb.version(),
                rb.hash()
            ));
        }
        let facts = match validate_case(rb, &task.case) {
            Ok(facts) => facts,
            Err(rejection) => {
                // An ablation changes step formulas only, never validation:
                // a rejected case is rejected alike under every combination.
                let actual = outcome_json(Ok(&Outcome::Rejected(rejection)));
                self.reference_is(task, &actual)?;
                self.tasks += 1;
                return Ok(());
            }
        };
        let outcome = evaluate(rb, &facts, false)
            .map_err(|e| format!("task {}: the rulebook fails on its case: {e}", task.id))?;
        self.reference_is(task, &outcome_json(Ok(&outcome.0)))?;
        // The combinations evaluate the case in parallel; each is counted
        // when its outcome's line differs from the reference's, which is
        // `expected`.
        let changed: Vec<bool> = {
            let readings: Vec<&Rulebook> = self
                .combinations
                .iter()
                .filter_map(|c| c.ablated.as_ref().ok())
                .collect();
            evaluate_under(&facts, &readings)
                .map(|result| !same_line(result.as_ref(), Ok(&outcome.0)))
                .collect()
        };
        let mut changed = changed.into_iter();
        for combination in &mut self.combinations {
            if combination.ablated.is_ok() && changed.next() == Some(true) {
                combination.detected += 1;
            }
        }
        self.tasks += 1;
        Ok(())
    }

    /// Whether the task's `expected` is `actual`, the rulebook's own outcome.
    fn reference_is(&self, task: &Task, actual: &Value) -> Result<(), String> {
        if *actual == task.expected {
            return Ok(());
        }
        Err(format!(
            "task {}: `expected` is not what {} gives for its case: expected {}, the rulebook gives {actual}",
            task.id,
            self.rulebook.reference(),
            task.expected
        ))
    }

    /// How many tasks were scored.
    pub fn tasks(&self) -> usize {
        self.tasks
    }

    /// The largest combinations measured.
    pub fn max_size(&self) -> usize {
        self.max_size
    }

    /// Every combination measured: by size, then in declaration order.
    pub fn combinations(&self) -> impl Iterator<Item = CombinationReport<'_>> {
        self.combinations.iter().map(|c| CombinationReport {
            ablations: c.members.iter().map(|&i| &*self.names[i]).collect(),
            detected: c.detected,
            refused: c.ablated.as_ref().err().map(String::as_str),
        })
    }

    /// The combinations no task detects (those that apply together).
    pub fn undetected(&self) -> impl Iterator<Item = CombinationReport<'_>> {
        self.combinations()
            .filter(|c| c.refused.is_none() && c.detected == 0)
    }

    /// One line: the rulebook, the tasks, and how many combinations are
    /// detected, undetected and not combinable.
    pub fn summary(&self) -> String {
        let refused = self.combinations().filter(|c| c.refused.is_some()).count();
        let undetected = self.undetected().count();
        let measured = self.combinations.len() - refused;
        let mut line = format!(
            "{}: {} task{}; {} combinations of {} ablations (up to {} at once): {} detected, {undetected} undetected",
            self.rulebook.reference(),
            self.tasks,
            if self.tasks == 1 { "" } else { "s" },
            self.combinations.len(),
            self.names.len(),
            self.max_size,
            measured - undetected,
        );
        if refused > 0 {
            line.push_str(&format!(
                ", {refused} not combinable (two of their ablations replace the same step)"
            ));
        }
        line
    }

    /// The whole table as one JSON value.
    pub fn to_json(&self) -> Value {
        let combinations: Vec<Value> = self
            .combinations()
            .map(|c| match c.refused {
                None => json!({"ablations": c.ablations, "detected": c.detected}),
                Some(why) => json!({"ablations": c.ablations, "refused": why}),
            })
            .collect();
        let refused = self.combinations().filter(|c| c.refused.is_some()).count();
        let undetected = self.undetected().count();
        json!({
            "rulebook": self.rulebook.reference(),
            "rulebook_hash": self.rulebook.hash(),
            "tasks": self.tasks,
            "ablations": self.names.iter().map(|n| &**n).collect::<Vec<_>>(),
            "max_size": self.max_size,
            "detected": self.combinations.len() - refused - undetected,
            "undetected": undetected,
            "refused": refused,
            "combinations": combinations,
        })
    }
}

/// How many combinations of 1 to `k` of `n` ablations there are, or `None`
/// when more than [`MAX_COMBINATIONS`].
fn combination_count(n: usize, k: usize) -> Option<usize> {
    let (mut total, mut of_size) = (0u128, 1u128);
    for i in 0..k.min(n) {
        // C(n, i + 1) from C(n, i); exact, as C(n, i) ≤ the cap here.
        of_size = of_size * (n - i) as u128 / (i + 1) as u128;
        total += of_size;
        if total > MAX_COMBINATIONS as u128 {
            return None;
        }
    }
    usize::try_from(total).ok()
}

/// The next k-subset of 0..n in lexicographic order, in place; `false` after the last.
fn next_combination(members: &mut [usize], n: usize) -> bool {
    let k = members.len();
    for i in (0..k).rev() {
        if members[i] < n - k + i {
            members[i] += 1;
            for j in i + 1..k {
                members[j] = members[j - 1] + 1;
            }
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests;
