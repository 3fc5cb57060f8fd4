//! A task file read for grading, as `bareme score`, `rescore`, `baselines`
//! and the rubric diff read it: whole, before any reply, each task checked
//! against the rubric's rulebook (id, version, hash) and its `expected`
//! against the rulebook's own outcome for its case, ids unique.

use indexmap::IndexMap;
use std::io::BufRead;

use super::error::ScoreError;
use super::{expected_follows, reference_outcome, Scorer};
use crate::model::Rulebook;
use crate::tasks::{LineError, LineFault, LineFile, Task};

/// The tasks of a file, by id, in file order.
#[derive(Clone, Debug, Default)]
pub struct TaskSet {
    /// The tasks.
    pub tasks: IndexMap<String, Task>,
    /// With `recompute`: the tasks whose `expected` changed, in file order.
    pub changed: Vec<String>,
}

/// Why a task or replies file could not be graded.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The reader failed.
    #[error("{0}")]
    Read(std::io::Error),
    /// A line is refused.
    #[error("line {line}: {fault}")]
    Line {
        /// Its number, from 1 (0: a reply made in process, not read).
        line: usize,
        /// Why.
        fault: Fault,
    },
    /// The task file holds no task.
    #[error("the file holds no task")]
    Empty,
    /// The worker pool could not start.
    #[error("cannot start {0} worker threads")]
    Pool(usize),
}

/// Why one line is refused.
#[derive(Debug, thiserror::Error)]
pub enum Fault {
    /// It is no task or reply line.
    #[error(transparent)]
    Line(LineFault),
    /// The scorer refuses the task or reply (another rulebook, a grade out
    /// of range, a reference the rubric cannot read).
    #[error("{0}")]
    Scorer(ScoreError),
    /// The task's `expected` is not the rulebook's outcome for its case.
    #[error("task {id}: `expected` is not what {rulebook} gives for its case (--recompute-expected re-derives it)")]
    Expected {
        /// The task's id.
        id: String,
        /// The rulebook's reference.
        rulebook: String,
    },
    /// Two tasks have one id.
    #[error("task {0} appears twice")]
    Twice(String),
    /// A reply to no task.
    #[error("reply {0}: no task has this id")]
    NoTask(String),
}

impl From<LineError> for FileError {
    fn from(e: LineError) -> FileError {
        match e {
            LineError::Read(e) => FileError::Read(e),
            LineError::Line { line, fault } => FileError::Line {
                line,
                fault: Fault::Line(fault),
            },
        }
    }
}

/// Every task of `file`, each checked against `scorer`'s rubric and `rb`,
/// its rulebook. With `recompute`, a task of the rubric's id and version but
/// another hash gets its `expected` re-derived under `rb` (those that
/// change are listed) instead of being refused.
///
/// The tasks are kept as grading needs them: their `prompt` and `tags`,
/// which nothing graded reads and which are most of a task line's bytes,
/// are dropped as each is read, so a file is held in a fraction of its
/// size (a prompt of 14 MB a line held 300 lines in 4.4 GB).
pub fn read_tasks<R: BufRead>(
    file: &mut LineFile<R>,
    scorer: &Scorer,
    rb: &Rulebook,
    recompute: bool,
) -> Result<TaskSet, FileError> {
    let mut set = TaskSet::default();
    for read in file.tasks() {
        let (line, mut task) = read?;
        task.prompt = None;
        task.tags = None;
        let fail = |fault: Fault| FileError::Line { line, fault };
        if recompute && scorer.same_version(&task) {
            let now = reference_outcome(rb, &task.case);
            if now != task.expected {
                set.changed.push(task.id.clone());
                task.expected = now;
            }
            task.hash = rb.hash().to_string();
        }
        scorer
            .check_task(&task)
            .map_err(|e| fail(Fault::Scorer(e)))?;
        if !recompute && !expected_follows(rb, &task) {
            return Err(fail(Fault::Expected {
                id: task.id,
                rulebook: rb.reference(),
            }));
        }
        if set.tasks.contains_key(&task.id) {
            return Err(fail(Fault::Twice(task.id)));
        }
        set.tasks.insert(task.id.clone(), task);
    }
    if set.tasks.is_empty() {
        return Err(FileError::Empty);
    }
    Ok(set)
}
