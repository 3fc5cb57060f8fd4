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
//! kept, so a task file of any length is read in bounded memory: tasks are
//! checked as they come and kept, validated, until a chunk of them is full
//! (or a report is asked for); the chunk is then evaluated under every
//! combination, each combination's ablated rulebook built for it and dropped
//! after, so memory holds one ablated copy per worker, never one per
//! combination (4,096 copies of a large rulebook did not fit). Reading the
//! task file is the caller's (`bareme ablations`, through
//! `tasks::LineFile`).
//!
//! Invariant: nothing is scored against a rulebook a task was not written for
//! (its id, version and hash must be the rulebook's), nor before the task's
//! `expected` is shown to be the rulebook's own outcome for its case.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rayon::prelude::*;
use serde_json::{json, Value};

use crate::case::validate_case;
use crate::eval::{evaluate, steps_on_this_thread};
use crate::facts::Facts;
use crate::model::Rulebook;
use crate::outcome::{outcome_json, Outcome};
/// A task as coverage reads it: the one task line of `crate::tasks`.
pub use crate::tasks::Task;

/// Most combinations measured at once: each evaluates every task.
pub const MAX_COMBINATIONS: usize = 4096;

/// Most units of evaluation budget one task's evaluations under all the
/// combinations spend together, unless a run asks otherwise
/// ([`Coverage::with_max_steps`]): each evaluation is bounded by the
/// rulebook's own limits, but a rulebook of ten ablations evaluates a task
/// 1,023 times, so a 1 KB rulebook with a costly step kept one task busy
/// for minutes (hostile probe). A bundled task spends at most a few
/// hundredths of it (sales-tax's 255 combinations: under 3,000,000).
pub const DEFAULT_MAX_TASK_STEPS: u64 = 100_000_000;

/// The most a run may ask for ([`Coverage::with_max_steps`]).
pub const MAX_TASK_STEPS: u64 = 10_000_000_000;

/// Most tasks kept before their chunk is evaluated under the combinations:
/// each chunk costs one ablated copy of the rulebook per combination.
const CHUNK_TASKS: usize = 1024;

/// Most bytes of cases (as JSON text, estimated) kept in one chunk.
const CHUNK_BYTES: usize = 64 << 20;

/// The largest combinations measured when none is asked for: all of them up
/// to this many ablations, else pairs.
const ALL_UP_TO: usize = 10;

/// One combination of ablations and what the tasks so far made of it.
struct Combination {
    /// Indices into the declared ablations, ascending.
    members: Vec<usize>,
    /// Set when its rulebook is first built: `None` when its ablations
    /// apply together, else why they cannot.
    refused: OnceLock<Option<String>>,
    /// Tasks whose outcome under it differs from their `expected`.
    detected: AtomicUsize,
}

/// Tasks checked against the rulebook and not yet evaluated under the
/// combinations: each case's facts and its `expected`.
#[derive(Default)]
struct Pending {
    /// Each task's id, facts and `expected`.
    tasks: Vec<(String, Facts, Value)>,
    bytes: usize,
}

/// The coverage of the tasks given so far.
pub struct Coverage {
    rulebook: Rulebook,
    names: Vec<Arc<str>>,
    max_size: usize,
    combinations: Vec<Combination>,
    /// Behind a lock so that a report (`&self`) can evaluate what is left.
    pending: Mutex<Pending>,
    /// Most units one task's evaluations may spend together.
    max_task_steps: u64,
    /// The first task (in file order) that spent more: the counts are then
    /// partial, and [`Coverage::finish`] says so.
    exhausted: Mutex<Option<String>>,
    tasks: usize,
    /// The ids counted: a task twice would count its detections twice, as
    /// `score` refuses it.
    ids: std::collections::HashSet<String>,
}

/// Why coverage cannot be measured, or a task cannot be counted. Its
/// `Display` is the message `bareme ablations` prints (a task's after the
/// file and line).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CoverageError {
    /// The rulebook declares no ablation to measure.
    #[error("rulebook {rulebook} declares no ablations")]
    NoAblations {
        /// The rulebook, as `id@version#hash12`.
        rulebook: String,
    },
    /// Combinations of no ablation were asked for (`--subsets 0`).
    #[error("--subsets must be at least 1")]
    ZeroSubsets,
    /// The combinations asked for are more than [`MAX_COMBINATIONS`].
    #[error("the combinations of {ablations} ablations up to {max_size} at once are more than {MAX_COMBINATIONS}: ask for fewer with --subsets")]
    TooManyCombinations {
        /// The ablations the rulebook declares.
        ablations: usize,
        /// The largest combinations asked for.
        max_size: usize,
    },
    /// The task names another rulebook id, version or hash.
    #[error("task {task} was written for {written_for}, not for the rulebook given, {rulebook}")]
    TaskMismatch {
        /// The task's id.
        task: String,
        /// The rulebook it names, `id@version#hash`.
        written_for: String,
        /// The rulebook given, `id@version#hash`.
        rulebook: String,
    },
    /// The rulebook fails on the task's (valid) case.
    #[error("task {task}: the rulebook fails on its case: {error}")]
    ReferenceFails {
        /// The task's id.
        task: String,
        /// The evaluation's error.
        error: crate::outcome::EvalError,
    },
    /// The task's `expected` is not the rulebook's own outcome for its case.
    #[error("task {task}: `expected` is not what {rulebook} gives for its case: expected {expected}, the rulebook gives {actual}")]
    WrongExpected {
        /// The task's id.
        task: String,
        /// The rulebook, as `id@version#hash12`.
        rulebook: String,
        /// The task's `expected` (boxed, as the error of every task is).
        expected: Box<Value>,
        /// The rulebook's outcome, as `expected` would hold it.
        actual: Box<Value>,
    },
    /// Two tasks have one id.
    #[error("task {0} appears twice")]
    Twice(String),
    /// A task's evaluations under the combinations spend more than a task may.
    #[error("task {task}: its evaluations under the {combinations} combinations spend more than {most} steps: measure fewer combinations (--subsets) or allow more (--max-steps, at most {MAX_TASK_STEPS})")]
    Budget {
        /// The task's id.
        task: String,
        /// How many combinations are measured.
        combinations: usize,
        /// The most a task may spend.
        most: u64,
    },
}

impl CoverageError {
    /// A stable code: `coverage.no_ablations`, `coverage.zero_subsets`,
    /// `coverage.too_many_combinations`, `coverage.task_mismatch`,
    /// `coverage.reference_fails`, `coverage.wrong_expected`, `coverage.twice`,
    /// `coverage.budget`.
    pub fn code(&self) -> &'static str {
        match self {
            CoverageError::NoAblations { .. } => "coverage::no_ablations",
            CoverageError::ZeroSubsets => "coverage::zero_subsets",
            CoverageError::TooManyCombinations { .. } => "coverage::too_many_combinations",
            CoverageError::TaskMismatch { .. } => "coverage::task_mismatch",
            CoverageError::ReferenceFails { .. } => "coverage::reference_fails",
            CoverageError::WrongExpected { .. } => "coverage::wrong_expected",
            CoverageError::Twice(_) => "coverage::twice",
            CoverageError::Budget { .. } => "coverage::budget",
        }
    }
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
    pub fn new(rulebook: &Rulebook, max_size: Option<usize>) -> Result<Coverage, CoverageError> {
        let names: Vec<Arc<str>> = rulebook.ablation_names().map(Arc::from).collect();
        let n = names.len();
        if n == 0 {
            return Err(CoverageError::NoAblations {
                rulebook: rulebook.reference(),
            });
        }
        let max_size = match max_size {
            Some(0) => return Err(CoverageError::ZeroSubsets),
            Some(k) => k.min(n),
            None if n <= ALL_UP_TO => n,
            None => 2,
        };
        let Some(count) = combination_count(n, max_size) else {
            return Err(CoverageError::TooManyCombinations {
                ablations: n,
                max_size,
            });
        };
        let mut combinations = Vec::with_capacity(count);
        for size in 1..=max_size {
            let mut members: Vec<usize> = (0..size).collect();
            loop {
                combinations.push(Combination {
                    members: members.clone(),
                    refused: OnceLock::new(),
                    detected: AtomicUsize::new(0),
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
            pending: Mutex::new(Pending::default()),
            max_task_steps: DEFAULT_MAX_TASK_STEPS,
            exhausted: Mutex::new(None),
            tasks: 0,
            ids: std::collections::HashSet::new(),
        })
    }

    /// Lets each task's evaluations under all the combinations spend up
    /// to `most` units of evaluation budget (at most [`MAX_TASK_STEPS`];
    /// [`DEFAULT_MAX_TASK_STEPS`] until set).
    pub fn with_max_steps(mut self, most: u64) -> Self {
        self.max_task_steps = most.clamp(1, MAX_TASK_STEPS);
        self
    }

    /// Evaluates the tasks kept so far under every combination (and learns
    /// which combinations apply, the first time), then forgets them. A task
    /// whose evaluations together spend more than a task may ends the
    /// measure (`exhausted`): nothing is evaluated after its chunk.
    fn settle(&self) {
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        let unknown = self.combinations.iter().any(|c| c.refused.get().is_none());
        if pending.tasks.is_empty() && !unknown {
            return;
        }
        let tasks = std::mem::take(&mut *pending);
        if self.exhausted().is_some() {
            return;
        }
        // What each task spent under the combinations so far; one past its
        // budget is evaluated no more. Whether a task passes it does not
        // depend on the order the combinations run in (its sum grows to the
        // same total), so the task named is the same on any machine.
        let spent: Vec<AtomicU64> = tasks.tasks.iter().map(|_| AtomicU64::new(0)).collect();
        let over = |i: usize| spent[i].load(Ordering::Relaxed) > self.max_task_steps;
        // Each combination evaluates the chunk on its own: in parallel, each
        // counting into its own slot, so the counts never depend on the
        // order; its ablated rulebook lives only while it does.
        self.combinations.par_iter().for_each(|combination| {
            if let Some(Some(_)) = combination.refused.get() {
                return;
            }
            let chosen: Vec<&str> = combination
                .members
                .iter()
                .map(|&i| &*self.names[i])
                .collect();
            match self.rulebook.ablated_all(&chosen) {
                Err(why) => {
                    let _ = combination.refused.set(Some(why.to_string()));
                }
                Ok(ablated) => {
                    let _ = combination.refused.set(None);
                    let mut detected = 0;
                    for (i, (_, facts, expected)) in tasks.tasks.iter().enumerate() {
                        if over(i) {
                            continue;
                        }
                        let before = steps_on_this_thread();
                        let result = evaluate(&ablated, facts, false);
                        let used = steps_on_this_thread().saturating_sub(before);
                        spent[i].fetch_add(used, Ordering::Relaxed);
                        if over(i) {
                            continue;
                        }
                        if outcome_json(result.as_ref().map(|(o, _)| o)) != *expected {
                            detected += 1;
                        }
                    }
                    combination.detected.fetch_add(detected, Ordering::Relaxed);
                }
            }
        });
        if let Some(i) = (0..spent.len()).find(|&i| over(i)) {
            let mut first = self
                .exhausted
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            *first = Some(tasks.tasks[i].0.clone());
        }
    }

    /// The task that spent more than a task may, if one did.
    fn exhausted(&self) -> Option<String> {
        let first = self
            .exhausted
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        first.clone()
    }

    /// The error of a task that spent more than a task may, if one did.
    fn budget_error(&self) -> Result<(), CoverageError> {
        match self.exhausted() {
            None => Ok(()),
            Some(task) => Err(CoverageError::Budget {
                task,
                combinations: self.combinations.len(),
                most: self.max_task_steps,
            }),
        }
    }

    /// Evaluates the tasks still kept: a report's counts are whole only
    /// when this is `Ok` (a task spent more than a task may otherwise, and
    /// the measure stopped there).
    pub fn finish(&self) -> Result<(), CoverageError> {
        self.settle();
        self.budget_error()
    }

    /// Scores one task: refused if it was written for another rulebook, or if
    /// its `expected` is not the rulebook's own outcome for its case (then
    /// nothing of it is counted).
    pub fn add(&mut self, task: &Task) -> Result<(), CoverageError> {
        let rb = &self.rulebook;
        if task.rulebook_id != rb.id() || task.version != rb.version() || task.hash != rb.hash() {
            return Err(CoverageError::TaskMismatch {
                task: task.id.to_string(),
                written_for: task.written_for(),
                rulebook: format!("{}@{}#{}", rb.id(), rb.version(), rb.hash()),
            });
        }
        if !self.ids.insert(task.id.to_string()) {
            return Err(CoverageError::Twice(task.id.to_string()));
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
        let outcome =
            evaluate(rb, &facts, false).map_err(|error| CoverageError::ReferenceFails {
                task: task.id.to_string(),
                error,
            })?;
        self.reference_is(task, &outcome_json(Ok(&outcome.0)))?;
        let full = {
            let pending = self
                .pending
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner);
            pending.bytes = pending.bytes.saturating_add(json_bytes(&task.case));
            pending
                .tasks
                .push((task.id.to_string(), facts, task.expected.clone()));
            pending.tasks.len() >= CHUNK_TASKS || pending.bytes >= CHUNK_BYTES
        };
        if full {
            self.settle();
            self.budget_error()?;
        }
        self.tasks += 1;
        Ok(())
    }

    /// Whether the task's `expected` is `actual`, the rulebook's own outcome.
    fn reference_is(&self, task: &Task, actual: &Value) -> Result<(), CoverageError> {
        if *actual == task.expected {
            return Ok(());
        }
        Err(CoverageError::WrongExpected {
            task: task.id.to_string(),
            rulebook: self.rulebook.reference(),
            expected: Box::new(task.expected.clone()),
            actual: Box::new(actual.clone()),
        })
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
        self.settle();
        self.combinations.iter().map(|c| CombinationReport {
            ablations: c.members.iter().map(|&i| &*self.names[i]).collect(),
            detected: c.detected.load(Ordering::Relaxed),
            refused: c.refused.get().and_then(Option::as_deref),
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

/// About how many bytes a JSON value takes as text: what a kept task weighs.
fn json_bytes(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(_) => 5,
        Value::Number(n) => n.as_str().len(),
        Value::String(s) => s.len() + 2,
        Value::Array(items) => items.iter().map(json_bytes).sum::<usize>() + items.len() + 2,
        Value::Object(map) => {
            map.iter()
                .map(|(k, v)| k.len() + 4 + json_bytes(v))
                .sum::<usize>()
                + 2
        }
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
