//! `bareme ablations`: the ablation coverage of a task file, read a line at
//! a time; the measure itself is `bareme::coverage`.
//!
//! Exit codes: 0 every combination detected, 1 some combination undetected,
//! 2 a task file that cannot be read, a bad line, a task written for another
//! rulebook or whose `expected` is not the rulebook's (or an unwritable
//! standard output), 3 an invalid rulebook.

use std::io::BufRead;
use std::path::Path;
use std::process::ExitCode;

use super::args::{AblationsArgs, ReportFormat};
use super::input::{next_line, BatchLine};
use super::output::Stdout;
use bareme::coverage::{Coverage, Task, MAX_TASK_BYTES};

/// Runs `bareme ablations`.
pub fn run(args: &AblationsArgs) -> ExitCode {
    match measure(args) {
        Ok(coverage) => report(&coverage, args.format),
        Err(code) => code,
    }
}

/// Reads every task and scores it, or gives the exit code of the first failure.
fn measure(args: &AblationsArgs) -> Result<Coverage, ExitCode> {
    let subsets = args.subsets.map(|k| k as usize);
    let start = |rb: &bareme::Rulebook| {
        Coverage::new(rb, subsets).map_err(|e| {
            warn!("error: {e}");
            ExitCode::from(2)
        })
    };
    let mut coverage = match &args.rulebook {
        Some(dir) => Some(start(&super::load(dir)?)?),
        None => None,
    };
    let mut reader = open(&args.tasks)?;
    let mut buf = Vec::new();
    let mut number = 0usize;
    loop {
        number += 1;
        let fail = |message: &str| {
            warn!("error: {}, line {number}: {message}", args.tasks.display());
            ExitCode::from(2)
        };
        let line = match next_line(&mut *reader, MAX_TASK_BYTES, &mut buf) {
            Ok(None) => break,
            Ok(Some(BatchLine::TooLong)) => {
                return Err(fail(&format!(
                    "the line is longer than the limit of {MAX_TASK_BYTES} bytes"
                )))
            }
            Ok(Some(BatchLine::Fits(line))) => line,
            Err(e) => {
                warn!("error: reading {}: {e}", args.tasks.display());
                return Err(ExitCode::from(2));
            }
        };
        let text = std::str::from_utf8(line).map_err(|e| {
            fail(&format!(
                "the line is not UTF-8 text: invalid byte at offset {}",
                e.valid_up_to()
            ))
        })?;
        if text.trim().is_empty() {
            continue;
        }
        let task = Task::from_json(text).map_err(|e| fail(&e))?;
        let coverage = match &mut coverage {
            Some(c) => c,
            None => coverage.insert(start(&super::load(&task.rulebook_dir())?)?),
        };
        coverage.add(&task).map_err(|e| fail(&e))?;
    }
    match coverage {
        Some(c) if c.tasks() > 0 => Ok(c),
        _ => {
            warn!("error: {} holds no task", args.tasks.display());
            Err(ExitCode::from(2))
        }
    }
}

/// The task file, or standard input for `-`.
fn open(path: &Path) -> Result<Box<dyn BufRead>, ExitCode> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(std::io::stdin().lock()));
    }
    match std::fs::File::open(path) {
        Ok(f) => Ok(Box::new(std::io::BufReader::new(f))),
        Err(e) => {
            warn!("error: cannot read {}: {e}", path.display());
            Err(ExitCode::from(2))
        }
    }
}

/// Prints the report; exit 1 when a combination is undetected.
fn report(coverage: &Coverage, format: ReportFormat) -> ExitCode {
    let mut out = Stdout::new();
    match format {
        ReportFormat::Text => {
            out.say(&coverage.summary());
            for c in coverage.undetected() {
                out.say(&format!("undetected: {}", c.ablations.join(",")));
            }
        }
        ReportFormat::Json => out.line(&coverage.to_json().to_string()),
    }
    let code = if coverage.undetected().next().is_some() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    out.finish(code)
}
