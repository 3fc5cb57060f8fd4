//! Task and reply files as the commands open them (a path, or standard
//! input for `-`), and their faults printed with the file and the line's
//! number. Reading them is the library's (`bareme::unstable::tasks::LineFile`,
//! `bareme::unstable::score::read_tasks`); so is loading a rubric.

use indexmap::IndexMap;
use std::io::BufRead;
use std::path::Path;
use std::process::ExitCode;

use bareme::unstable::score::{load_rubric, FileError, Scorer};
use bareme::unstable::tasks::{CompanionError, LineError, LineFile, Task};
use bareme::Rulebook;

/// A task or replies file as the commands read it.
pub(super) type Lines = LineFile<Box<dyn BufRead>>;

/// Refuses tasks and replies both read from standard input (`-`): the
/// tasks would read it all and leave no reply, a run of "0 replies".
pub(super) fn one_stdin(tasks: &Path, replies: &Path) -> Result<(), ExitCode> {
    if tasks.as_os_str() == "-" && replies.as_os_str() == "-" {
        warn!("error: --tasks and --replies cannot both read standard input (`-`)");
        return Err(ExitCode::from(2));
    }
    Ok(())
}

/// Opens a file of lines, or standard input for `-`; a file that cannot be
/// opened is reported, exit 2.
pub(super) fn open(path: &Path) -> Result<Lines, ExitCode> {
    Ok(LineFile::new(super::input::open_lines_or_exit(path)?))
}

/// Reports why a generator or rubric did not load, and gives the exit code:
/// 3 for the problems of the file or of its rulebook, else 2.
pub(super) fn companion_failed(e: CompanionError) -> ExitCode {
    match e {
        CompanionError::Invalid(diags) => super::invalid(&diags, None),
        CompanionError::Rulebook {
            source: bareme::LoadError::Invalid(diags),
            file,
        } => super::invalid(&diags, Some(&file)),
        e => {
            warn!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Loads a rubric and its rulebook, or prints why not and gives the exit code.
pub(super) fn load_scorer(
    rubric: &Path,
    rulebook: Option<&Path>,
    all_or_nothing: bool,
) -> Result<(Scorer, Rulebook), ExitCode> {
    load_rubric(rubric, rulebook)
        .map(|(rubric, rb)| (Scorer::new(rubric, all_or_nothing), rb))
        .map_err(companion_failed)
}

/// Sets the size of the worker pool when asked.
pub(super) fn set_jobs(jobs: Option<usize>) {
    if let Some(jobs) = jobs {
        // A pool already built (never, in this binary) keeps its size.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs.max(1))
            .build_global();
    }
}

/// Reports a fault of line `number` of `path`; the exit code is 2.
pub(super) fn line_fault(path: &Path, number: usize, message: &str) -> ExitCode {
    warn!("error: {}, line {number}: {message}", path.display());
    ExitCode::from(2)
}

/// Reports a line that could not be read; the exit code is 2.
pub(super) fn line_failed(path: &Path, e: LineError) -> ExitCode {
    file_failed(Some(path), e.into())
}

/// Reports why a task or replies file could not be graded: with the file
/// and the line's number, or, for replies made in process (`path` `None`),
/// alone. The exit code is 2.
pub(super) fn file_failed(path: Option<&Path>, e: FileError) -> ExitCode {
    match (path, e) {
        (Some(path), FileError::Read(e)) => warn!("error: reading {}: {e}", path.display()),
        (Some(path), FileError::Line { line, fault }) => {
            return line_fault(path, line, &fault.to_string())
        }
        (Some(path), FileError::Empty) => warn!("error: {} holds no task", path.display()),
        (None, FileError::Line { fault, .. }) => warn!("error: {fault}"),
        (_, e) => warn!("error: {e}"),
    }
    ExitCode::from(2)
}

/// The tasks of `path` by id, each checked against the rubric's rulebook;
/// with `recompute`, the tasks whose expected answer changed are listed.
pub(super) fn read_tasks(
    path: &Path,
    scorer: &Scorer,
    rb: &Rulebook,
    recompute: bool,
) -> Result<IndexMap<String, Task>, ExitCode> {
    let read = bareme::unstable::score::read_tasks(&mut open(path)?, scorer, rb, recompute);
    if recompute && !matches!(read, Err(FileError::Line { .. } | FileError::Read(_))) {
        let changed = read.as_ref().map(|s| s.changed.as_slice()).unwrap_or(&[]);
        warn!(
            "{} task(s) whose expected answer changed under {}{}",
            changed.len(),
            rb.reference(),
            if changed.is_empty() {
                String::new()
            } else {
                format!(": {}", changed.join(", "))
            }
        );
    }
    read.map(|set| set.tasks)
        .map_err(|e| file_failed(Some(path), e))
}
