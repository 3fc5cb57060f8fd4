//! Reply lines graded in parallel chunks and handed on in file order: the
//! loop of `bareme score`, `rescore` and the rubric diff, on
//! `chunks::in_order`, for any reader of reply lines an embedder has.

use indexmap::IndexMap;

use super::error::ScoreError;
use super::taskset::{Fault, FileError};
use crate::chunks::{in_order, pool};
use crate::tasks::{LineError, ReplyLine, Task};

/// Replies graded together before their results are handed on: the bound
/// on memory whatever the length of the file.
const CHUNK: usize = 512;
/// Reply text read at once, at most (one line more may pass it).
const CHUNK_BYTES: usize = 64 << 20;

/// Every reply of `lines` graded by `grade` with the task of `tasks` it
/// answers, on `jobs` workers, each result handed to `take` with its task
/// and line in the lines' order, and counted to `progress`. A reply that
/// cannot be graded (or answers no task) ends the run with its line's
/// number; so does a line that cannot be read, after the lines before it
/// are handed on. `take` stops the run by returning an error of its own.
pub fn grade_in_order<'t, R, E>(
    tasks: &'t IndexMap<String, Task>,
    mut lines: impl Iterator<Item = Result<(usize, ReplyLine), LineError>>,
    jobs: usize,
    grade: impl Fn(&'t Task, &ReplyLine) -> Result<R, ScoreError> + Sync,
    mut take: impl FnMut(&'t Task, ReplyLine, R) -> Result<(), E>,
    progress: &dyn Fn(u64),
) -> Result<(), E>
where
    R: Send,
    E: From<FileError>,
{
    let pool = pool(jobs).map_err(|_| FileError::Pool(jobs))?;
    let fill = |chunk: &mut Vec<(usize, ReplyLine)>| -> Result<(), E> {
        // Bounded by bytes too: 512 lines of up to 16 MiB each held 8 GB.
        let mut bytes = 0usize;
        while chunk.len() < CHUNK && bytes < CHUNK_BYTES {
            match lines.next() {
                None => break,
                Some(line) => {
                    let line = line.map_err(FileError::from)?;
                    bytes = bytes.saturating_add(line.1.text_bytes());
                    chunk.push(line);
                }
            }
        }
        Ok(())
    };
    let work = |(number, line): (usize, ReplyLine)| {
        let result = match tasks.get(&line.id) {
            None => Err(Fault::NoTask(line.id.clone())),
            Some(task) => grade(task, &line).map(|r| (task, r)).map_err(Fault::Scorer),
        };
        (number, line, result)
    };
    let sink = |(number, line, result): (usize, ReplyLine, Result<(&'t Task, R), Fault>)| {
        progress(1);
        match result {
            Ok((task, r)) => take(task, line, r),
            Err(fault) => Err(FileError::Line {
                line: number,
                fault,
            }
            .into()),
        }
    };
    in_order(&pool, fill, work, sink)
}
