//! What an embedder runs in one call, as the command line runs it: a case's
//! bytes read and evaluated as `bareme eval` reads one, a batch of cases
//! evaluated on worker threads as `eval --batch` writes its lines, and a
//! generator's tasks over an index range as `bareme generate` writes them,
//! and two versions diffed as `bareme diff --format json` reports them
//! (`diff.rs`); a split drawn disjoint from other task files as
//! `generate --exclude` draws it; what a tool environment's tools compute
//! (`tools.rs`: a table's rows in force for a case, an exact calculator).
//!
//! The Python module (`python/`) is built on these and on the other root
//! names; they sit on top of the library and add no behaviour of their own,
//! so what an embedder gets is byte for byte what the command prints.

mod diff;
mod tools;

pub use diff::{diff_versions, DiffError};
pub use tools::{calculate, table_rows, CalcError, LookupError, TableRow};
/// The diff's reading of versions, for the command line.
pub mod versions {
    pub use super::diff::{compare_versions, read_text, verdicts, DiffedVersion};
}

use rayon::prelude::*;

use crate::case::CaseText;
use crate::chunks::pool;
use crate::evaluation::evaluate_text;
use crate::facts::CaseError;
use crate::generate::{
    run, run_excluding, ExcludeError, Exclusion, RunError, RunOptions, TaskDrawer,
};
use crate::model::{Limits, Rulebook};
use crate::outcome::{write_error, write_outcome, write_traced, EvalError, Outcome};
use crate::trace::Trace;

/// The size limit of one case or batch line: the rulebook's `[limits]
/// max_case_bytes`, never above [`Limits::MAX_CASE_BYTES`] (the checker
/// refuses one above it; the bound holds for limits set by hand too).
pub fn case_limit(rb: &Rulebook) -> usize {
    rb.limits().max_case_bytes.min(Limits::MAX_CASE_BYTES)
}

/// Evaluates one case given as its JSON bytes, as `bareme eval` reads and
/// evaluates a case file: refused above the rulebook's size limit, not
/// UTF-8, not JSON or giving a key twice (each a rejection at `$`), read
/// out of a `{"case": …}` envelope, numbers kept as written.
///
/// ```
/// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// let case = br#"{"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"}"#;
/// let (outcome, _) = bareme::evaluate_bytes(&rb, case, false)?;
/// let bareme::Outcome::Answer(answer) = outcome else { panic!("rejected") };
/// assert_eq!(answer.to_json()["net_pay"], "2237.50");
/// let (outcome, _) = bareme::evaluate_bytes(&rb, b"{", false)?;
/// assert!(matches!(outcome, bareme::Outcome::Rejected(e) if e.path == "$"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn evaluate_bytes(
    rb: &Rulebook,
    case: &[u8],
    trace: bool,
) -> Result<(Outcome, Option<Trace>), EvalError> {
    let limit = case_limit(rb);
    if case.len() > limit {
        return Ok((Outcome::Rejected(too_large(limit)), None));
    }
    match CaseText::from_bytes(case) {
        Ok(text) => evaluate_text(rb, &text, trace),
        Err(error) => Ok((Outcome::Rejected(error), None)),
    }
}

/// Why a case over `limit` bytes is refused, before it is read.
pub fn too_large(limit: usize) -> CaseError {
    CaseError {
        path: "$".into(),
        message: format!("the case is larger than the limit of {limit} bytes"),
    }
}

/// The line `bareme eval --batch` writes for one input line: the answer,
/// `{"error": {"path", "message"}}` (a rejection, a line that is no case,
/// or the rulebook's fault at `$`), or with `trace` the `{"answer"|"error",
/// "trace"}` object of `--trace json` (a trace past `MAX_TRACE_BYTES` an
/// error at `$`).
///
/// ```
/// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// let line = bareme::unstable::embed::batch_line(&rb, br#"{"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-13"}"#, false);
/// assert!(String::from_utf8(line)?.starts_with(r#"{"error":{"path":"payroll_month""#));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn batch_line(rb: &Rulebook, case: &[u8], trace: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(case.len() / 2 + 64);
    let limit = case_limit(rb);
    if case.len() > limit {
        let e = too_large(limit);
        write_error(&mut out, &e.path, &e.message);
        return out;
    }
    let text = match CaseText::from_bytes(case) {
        Ok(text) => text,
        Err(e) => {
            write_error(&mut out, &e.path, &e.message);
            return out;
        }
    };
    let result = evaluate_text(rb, &text, trace);
    match &result {
        Ok((outcome, Some(trace))) => {
            if let Err(e) = write_traced(&mut out, outcome, trace) {
                write_error(&mut out, "$", &e.to_string());
            }
        }
        _ => write_outcome(&mut out, result.as_ref().map(|(outcome, _)| outcome)),
    }
    out
}

/// The pool of worker threads could not start.
///
/// ```
/// let error = bareme::unstable::embed::PoolError { jobs: 4 };
/// assert!(error.to_string().contains('4'));
/// ```
#[derive(Debug, thiserror::Error)]
#[error("cannot start {jobs} worker threads")]
pub struct PoolError {
    /// The threads asked for.
    pub jobs: usize,
}

impl PoolError {
    /// The stable code of this failure, `run::pool`.
    pub fn code(&self) -> &'static str {
        "run::pool"
    }
}

/// Every case's [`batch_line`], in order, evaluated on `jobs` worker
/// threads (1: on the calling thread); the lines are the same for any
/// number of workers.
///
/// ```
/// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// let cases: Vec<&[u8]> = vec![br#"{"task": "retrieval", "field": "contribution_rate", "payroll_month": "2026-03"}"#, b"[]"];
/// let lines = bareme::unstable::embed::batch_lines(&rb, &cases, 2, false)?;
/// assert!(String::from_utf8(lines[0].clone())?.contains(r#""value":"0.05""#));
/// assert!(String::from_utf8(lines[1].clone())?.starts_with(r#"{"error":{"path":"$""#));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn batch_lines<C: AsRef<[u8]> + Sync>(
    rb: &Rulebook,
    cases: &[C],
    jobs: usize,
    trace: bool,
) -> Result<Vec<Vec<u8>>, PoolError> {
    let line = |case: &C| batch_line(rb, case.as_ref(), trace);
    if jobs <= 1 || cases.len() <= 1 {
        return Ok(cases.iter().map(line).collect());
    }
    let workers = pool(jobs).map_err(|_| PoolError { jobs })?;
    Ok(workers.install(|| cases.par_iter().map(line).collect()))
}

/// The task lines `bareme generate` writes for the run `options` asks
/// for (indices `start..start + count` of `seed`, each line ending in
/// `\n`; a duplicate of an earlier index drawn again), drawn on `jobs`
/// worker threads, every task at `level` when one is given.
///
/// ```
/// # use bareme::unstable::generate::RunOptions;
/// let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
/// let drawer = bareme::TaskDrawer::new(&generator, &rb)?;
/// let run = RunOptions { seed: 2026, start: 0, count: 3, level: None, jobs: 1 };
/// let lines = bareme::unstable::embed::generate_lines(&drawer, run)?;
/// let text = String::from_utf8(lines)?;
/// assert!(text.lines().count() <= 3 && text.starts_with(r#"{"id":"#));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn generate_lines(drawer: &TaskDrawer<'_>, options: RunOptions) -> Result<Vec<u8>, RunError> {
    let mut out = Vec::new();
    run(drawer, options, &mut out, &|_| {})?;
    Ok(out)
}

/// Why [`generate_lines_excluding`] wrote nothing.
///
/// ```
/// # use bareme::unstable::generate::RunOptions;
/// let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
/// let drawer = bareme::TaskDrawer::new(&generator, &rb)?;
/// let run = RunOptions { seed: 1, start: 0, count: 5, level: None, jobs: 1 };
/// let refused = bareme::unstable::embed::generate_lines_excluding(&drawer, run, &[("train", b"not a task\n")]);
/// assert_eq!(refused.unwrap_err().code(), "generate::exclude");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SplitError {
    /// An excluded task file cannot be used (not a task file of this
    /// generator and rulebook version, or a line that is no task).
    #[error(transparent)]
    Exclude(#[from] ExcludeError),
    /// The run failed, as `bareme generate` fails.
    #[error(transparent)]
    Run(#[from] RunError),
}

impl SplitError {
    /// The stable code: `generate::exclude` or `generate::run`.
    pub fn code(&self) -> &'static str {
        match self {
            SplitError::Exclude(_) => "generate::exclude",
            SplitError::Run(_) => "generate::run",
        }
    }
}

/// [`generate_lines`] drawn disjoint from other task files, as `bareme
/// generate --exclude FILE…` draws it: `excluded` holds each file's name (as
/// messages give it) and bytes; a draw whose case one of them holds is drawn
/// again, so the run still writes exactly `count` lines, none of them a
/// case of the excluded files.
///
/// ```
/// # use bareme::unstable::generate::RunOptions;
/// let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
/// let drawer = bareme::TaskDrawer::new(&generator, &rb)?;
/// let run = |seed| RunOptions { seed, start: 0, count: 20, level: None, jobs: 1 };
/// let train = bareme::unstable::embed::generate_lines(&drawer, run(1001))?;
/// let dev = bareme::unstable::embed::generate_lines_excluding(&drawer, run(2002), &[("train", &train)])?;
/// assert_eq!(String::from_utf8(dev)?.lines().count(), 20);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn generate_lines_excluding(
    drawer: &TaskDrawer<'_>,
    options: RunOptions,
    excluded: &[(&str, &[u8])],
) -> Result<Vec<u8>, SplitError> {
    // A range past the bound is refused before any excluded file is read.
    options.end()?;
    let mut exclusion = Exclusion::new();
    for (name, bytes) in excluded {
        exclusion.add(drawer, name, *bytes, options.jobs)?;
    }
    let mut out = Vec::new();
    run_excluding(drawer, options, &exclusion, &mut out, &|_| {})?;
    Ok(out)
}
