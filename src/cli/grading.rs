//! Reply lines graded in parallel chunks and handed on in file order: the
//! loop `score`, `rescore` and the rubric diff share, on
//! `bareme::chunks::in_order`, with a progress bar when a person watches.

use indexmap::IndexMap;
use std::process::ExitCode;

use bareme::chunks::{all_cores, in_order, pool};
use bareme::coverage::Task;
use bareme::score::{Graded, Scorer};

use super::progress;
use super::taskfile::ReplyLine;

/// Replies graded together before their results are handed on: the bound
/// on memory whatever the length of the file.
const CHUNK: usize = 512;

/// The task a reply answers.
fn task_of<'t>(tasks: &'t IndexMap<String, Task>, line: &ReplyLine) -> Result<&'t Task, String> {
    tasks
        .get(&line.id)
        .ok_or_else(|| format!("reply {}: no task has this id", line.id))
}

/// A reply, or its absence, graded under one rubric.
pub(super) fn grade(scorer: &Scorer, task: &Task, line: &ReplyLine) -> Result<Graded, String> {
    match &line.reply {
        Some(reply) => scorer.score(task, reply, line.grade),
        None => scorer.score_missing(task),
    }
}

/// Every reply of `lines` graded by `grade` with the task of `tasks` it
/// answers, on `jobs` workers (all cores by default), each result handed to
/// `take` with its task in the lines' order. A reply that cannot be graded
/// (or answers no task) is reported by `fault` with its line's number, and
/// ends the run; so does a line that cannot be read, after the lines before
/// it are handed on.
pub(super) fn in_file_order<'t, R: Send>(
    tasks: &'t IndexMap<String, Task>,
    mut lines: impl Iterator<Item = Result<(usize, ReplyLine), ExitCode>>,
    jobs: Option<usize>,
    grade: impl Fn(&'t Task, &ReplyLine) -> Result<R, String> + Sync,
    fault: impl Fn(usize, &str) -> ExitCode,
    mut take: impl FnMut(&'t Task, ReplyLine, R) -> Result<(), ExitCode>,
) -> Result<(), ExitCode> {
    let jobs = jobs.unwrap_or_else(all_cores);
    let Ok(pool) = pool(jobs) else {
        warn!("error: cannot start {jobs} worker threads");
        return Err(ExitCode::from(2));
    };
    let bar = progress::bar("replies", None);
    let fill = |chunk: &mut Vec<(usize, ReplyLine)>| -> Result<(), ExitCode> {
        while chunk.len() < CHUNK {
            match lines.next() {
                None => break,
                Some(line) => chunk.push(line?),
            }
        }
        Ok(())
    };
    let work = |(number, line): (usize, ReplyLine)| {
        let result = task_of(tasks, &line).and_then(|task| Ok((task, grade(task, &line)?)));
        (number, line, result)
    };
    let sink = |(number, line, result): (usize, ReplyLine, Result<(&'t Task, R), String>)| {
        bar.inc(1);
        match result {
            Ok((task, r)) => take(task, line, r),
            Err(message) => Err(fault(number, &message)),
        }
    };
    let done = in_order(&pool, fill, work, sink);
    bar.finish_and_clear();
    done
}
