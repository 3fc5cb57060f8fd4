//! `bareme eval --batch`: JSON Lines in, one JSON line out per input line.
//!
//! A bad line (too long, not UTF-8, not JSON, rejected, or a fault of the
//! rulebook) gets an `{"error": {"path", "message"}}` line and the batch goes
//! on, so output line N always answers input line N. With `--trace json` an
//! evaluated line is `{"answer", "trace"}` (or `{"error", "trace"}` for a
//! rejection), as `eval --trace json` writes one case.
//!
//! Lines are read a chunk at a time, evaluated in parallel and written in
//! input order (`bareme::chunks`), so the output is the same bytes for any
//! number of workers and memory holds one chunk, whatever the input's length.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

use super::input::{case_limit, open_lines_or_exit, read_case_text, too_large};
use super::output::Stdout;
use bareme::unstable::chunks::{in_order, pool};
use bareme::unstable::evaluation::evaluate_text;
use bareme::unstable::outcome::write_error;
use bareme::unstable::outcome::{write_outcome, write_traced, write_traced_compact};
use bareme::unstable::tasks::{next_line, Line as BatchLine};
use bareme::unstable::trace::TraceTooLarge;
use bareme::{Outcome, Rulebook, Trace};

/// Lines evaluated together between two writes.
const CHUNK_LINES: usize = 512;

/// Bytes of input a chunk stops growing at (it holds at least one line), so
/// that a chunk of long lines stays small.
const CHUNK_BYTES: usize = 8 << 20;

/// One line read, ready to be evaluated on any worker.
enum Line {
    /// The line's bytes, without its ending.
    Fits(Vec<u8>),
    /// A line longer than the limit, skipped unread.
    TooLong,
}

/// What became of one line, counted for the summary.
#[derive(Clone, Copy)]
enum Kind {
    /// An answer.
    Answered,
    /// A rejection: the case's, or a line that is no case.
    Rejected,
    /// The rulebook failed on the case.
    Fault,
}

/// The lines of each kind written so far.
#[derive(Default)]
struct Counts {
    answered: u64,
    rejected: u64,
    faults: u64,
}

impl Counts {
    fn add(&mut self, kind: Kind) {
        match kind {
            Kind::Answered => self.answered += 1,
            Kind::Rejected => self.rejected += 1,
            Kind::Fault => self.faults += 1,
        }
    }

    /// The closing line: `12 cases: 10 answered, 2 rejected, 0 faults`.
    fn summary(&self) -> String {
        let total = self.answered + self.rejected + self.faults;
        let plural =
            |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        format!(
            "{}: {} answered, {} rejected, {}",
            plural(total, "case", "cases"),
            self.answered,
            self.rejected,
            plural(self.faults, "fault", "faults")
        )
    }
}

/// Why a batch stopped early.
enum Stop {
    /// The input could not be read.
    Read(std::io::Error),
    /// Standard output failed; `Stdout::finish` says why.
    Write,
}

/// Runs a batch from a file or, for `-`, standard input, on `jobs` workers,
/// each answer with its trace when `trace` is set.
pub fn run(rb: &Rulebook, path: &Path, jobs: usize, trace: bool, compact: bool) -> ExitCode {
    let mut reader = match open_lines_or_exit(path) {
        Ok(reader) => reader,
        Err(code) => return code,
    };
    let Ok(pool) = pool(jobs) else {
        warn!("error: cannot start {jobs} worker threads");
        return ExitCode::from(2);
    };
    let mut out = Stdout::new();
    let bar = progress_bar();
    let limit = case_limit(rb);
    let mut buf = Vec::new();
    let fill = |chunk: &mut Vec<Line>| -> Result<(), Stop> {
        let mut bytes = 0;
        while chunk.len() < CHUNK_LINES && bytes < CHUNK_BYTES {
            match next_line(&mut reader, limit, &mut buf).map_err(Stop::Read)? {
                None => break,
                Some(BatchLine::TooLong) => chunk.push(Line::TooLong),
                Some(BatchLine::Fits(line)) => {
                    bytes += line.len();
                    chunk.push(Line::Fits(line.to_vec()));
                }
            }
        }
        Ok(())
    };
    let work = |line: Line| match line {
        Line::TooLong => (Kind::Rejected, error_line("$", &too_large(limit))),
        Line::Fits(bytes) => answer_line(rb, &bytes, trace, compact),
    };
    let mut counts = Counts::default();
    let sink = |(kind, answer): (Kind, String)| {
        counts.add(kind);
        out.line(&answer);
        bar.inc(1);
        if out.failed() {
            Err(Stop::Write)
        } else {
            Ok(())
        }
    };
    let done = in_order(&pool, fill, work, sink);
    bar.finish_and_clear();
    match done {
        Err(Stop::Read(e)) => {
            warn!("error: reading the batch: {e}");
            out.finish(ExitCode::from(2))
        }
        // The counts close a batch read and written whole; a closed pipe
        // or a failed write stops it quietly (or with its own error).
        Ok(()) => {
            let code = out.finish(ExitCode::SUCCESS);
            match code == ExitCode::SUCCESS {
                true => super::closing(&counts.summary(), code),
                false => code,
            }
        }
        Err(Stop::Write) => out.finish(ExitCode::SUCCESS),
    }
}

/// A count of the cases answered on stderr, only when a person watches it.
fn progress_bar() -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{spinner} {pos} cases, {per_sec}") {
        bar.set_style(style);
    }
    bar
}

/// The output line for one input line (at most the size limit), and what
/// became of it; never fails.
fn answer_line(rb: &Rulebook, line: &[u8], trace: bool, compact: bool) -> (Kind, String) {
    let case = match read_case_text(line) {
        Ok(case) => case,
        Err(e) => return (Kind::Rejected, error_line(&e.path, &e.message)),
    };
    let mut out = Vec::with_capacity(line.len() / 2 + 64);
    // The outcome is written by the one writer, traced or not.
    let result = evaluate_text(rb, &case, trace);
    let written = match &result {
        Ok((outcome, Some(trace))) if compact => write_traced_compact(&mut out, outcome, trace),
        Ok((outcome, Some(trace))) => write_traced(&mut out, outcome, trace),
        _ => {
            write_outcome(&mut out, result.as_ref().map(|(outcome, _)| outcome));
            Ok(())
        }
    };
    if let Err(e) = written {
        return (Kind::Fault, error_line("$", &e.to_string()));
    }
    let kind = match &result {
        Ok((Outcome::Rejected(_), _)) => Kind::Rejected,
        Ok(_) => Kind::Answered,
        Err(_) => Kind::Fault,
    };
    (kind, text_of(out))
}

/// The same line with the trace in the compact format 2 (`--trace json-compact`).
pub fn compact_line(outcome: &Outcome, trace: &Trace) -> Result<String, TraceTooLarge> {
    let mut out = Vec::new();
    write_traced_compact(&mut out, outcome, trace)?;
    Ok(text_of(out))
}

/// `{KEY: VALUE, "trace": TRACE}` on one line, as `eval --trace json` writes
/// a case (`bareme::unstable::outcome::write_traced`).
pub fn traced_line(outcome: &Outcome, trace: &Trace) -> Result<String, TraceTooLarge> {
    let mut out = Vec::new();
    write_traced(&mut out, outcome, trace)?;
    Ok(text_of(out))
}

fn error_line(path: &str, message: &str) -> String {
    let mut out = Vec::with_capacity(message.len() + path.len() + 40);
    write_error(&mut out, path, message);
    text_of(out)
}

/// The text written, which is UTF-8.
fn text_of(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}
