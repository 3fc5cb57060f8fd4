//! The grading loop as the commands run it: `bareme::unstable::score::grade_in_order`
//! with a progress bar when a person watches, its faults printed with the
//! replies file and the line's number.

use indexmap::IndexMap;
use std::path::Path;
use std::process::ExitCode;

use bareme::unstable::chunks::all_cores;
use bareme::unstable::score::{grade_in_order, FileError, ScoreError};
use bareme::unstable::tasks::{LineError, ReplyLine, Task};

use super::progress;
use super::taskfile::file_failed;

/// Why the loop stopped: a file's fault, or the caller's own stop.
enum Stop {
    File(FileError),
    Exit(ExitCode),
}

impl From<FileError> for Stop {
    fn from(e: FileError) -> Stop {
        Stop::File(e)
    }
}

/// Every reply of `lines` graded by `grade` with the task it answers, on
/// `jobs` workers (all cores by default), each result handed to `take` in
/// the lines' order. A fault is printed with `replies`, the file the lines
/// come from (`None`: replies made in process), and ends the run, exit 2;
/// `take` ends it with an exit code of its own.
pub(super) fn in_file_order<'t, R: Send>(
    replies: Option<&Path>,
    tasks: &'t IndexMap<String, Task>,
    lines: impl Iterator<Item = Result<(usize, ReplyLine), LineError>>,
    jobs: Option<usize>,
    grade: impl Fn(&'t Task, &ReplyLine) -> Result<R, ScoreError> + Sync,
    mut take: impl FnMut(&'t Task, ReplyLine, R) -> Result<(), ExitCode>,
) -> Result<(), ExitCode> {
    let bar = progress::bar("replies", None);
    let done = grade_in_order(
        tasks,
        lines,
        jobs.unwrap_or_else(all_cores),
        grade,
        |task, line, r| take(task, line, r).map_err(Stop::Exit),
        &|n| bar.inc(n),
    );
    bar.finish_and_clear();
    done.map_err(|stop| match stop {
        Stop::File(e) => file_failed(replies, e),
        Stop::Exit(code) => code,
    })
}
