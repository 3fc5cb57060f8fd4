//! `bareme ablations`: the ablation coverage of a task file, read a line at
//! a time (`bareme::unstable::tasks::LineFile`); the measure itself is `bareme::coverage`.
//!
//! Exit codes: 0 every combination detected, 1 some combination undetected,
//! 2 a task file that cannot be read, a bad line, a task written for another
//! rulebook or whose `expected` is not the rulebook's, a task whose
//! evaluations under the combinations spend more than `--max-steps` (or an
//! unwritable standard output), 3 an invalid rulebook.

use std::collections::HashMap;
use std::process::ExitCode;

use super::args::{AblationsArgs, ReportFormat};
use super::output::Stdout;
use super::taskfile::{line_failed, line_fault, open};
use bareme::unstable::coverage::{Coverage, CoverageError};

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
        Coverage::new(rb, subsets)
            .map(|c| c.with_max_steps(args.max_steps))
            .map_err(|e| {
                warn!("error: {e}");
                ExitCode::from(2)
            })
    };
    let mut coverage = match &args.rulebook {
        Some(dir) => Some(start(&super::load(dir)?)?),
        None => None,
    };
    let mut file = open(&args.tasks)?;
    let bar = super::progress::bar("tasks", None);
    // Each task's line: a task past its budget is found when a chunk of
    // tasks is measured, after the line that filled the chunk.
    let mut lines: HashMap<String, usize> = HashMap::new();
    let over_budget = |lines: &HashMap<String, usize>, e: &CoverageError| match e {
        CoverageError::Budget { task, .. } => match lines.get(task) {
            Some(&line) => line_fault(&args.tasks, line, &e.to_string()),
            None => {
                warn!("error: {}: {e}", args.tasks.display());
                ExitCode::from(2)
            }
        },
        _ => {
            warn!("error: {}: {e}", args.tasks.display());
            ExitCode::from(2)
        }
    };
    for read in file.tasks() {
        bar.inc(1);
        let (line, task) = read.map_err(|e| line_failed(&args.tasks, e))?;
        let coverage = match &mut coverage {
            Some(c) => c,
            None => coverage.insert(super::load(&task.rulebook_dir()).and_then(|rb| start(&rb))?),
        };
        lines.entry(task.id.clone()).or_insert(line);
        coverage.add(&task).map_err(|e| match e {
            CoverageError::Budget { .. } => over_budget(&lines, &e),
            _ => line_fault(&args.tasks, line, &e.to_string()),
        })?;
    }
    bar.finish_and_clear();
    match coverage {
        Some(c) if c.tasks() > 0 => match c.finish() {
            Ok(()) => Ok(c),
            Err(e) => Err(over_budget(&lines, &e)),
        },
        _ => {
            warn!("error: {} holds no task", args.tasks.display());
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
