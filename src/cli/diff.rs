//! `bareme diff OLD NEW`: reads the two versions (and the generators,
//! rubrics and tasks the verdict and the impact need), hands them to
//! `bareme::diff`, and prints the report.
//!
//! Each kind of pair that can be diffed has its own function; `run`
//! chooses among them by what the arguments are. Today the one kind is a
//! pair of rulebook versions.
//!
//! Exit codes: 0 the report (whatever it shows) and nothing breaks, 1 a
//! generator or rubric does not load against NEW, 2 a file unreadable or a
//! usage error, 3 a rulebook (or the sample's generator) invalid.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bareme::unstable::diff::{
    impact, render_markdown, render_text, DependentKind, ImpactOptions, Report, RulebookDiff,
    Style, Verdict,
};
use bareme::unstable::embed::{self as versions, compare_versions, DiffedVersion};
use bareme::unstable::generate::{load_generator, run as run_generator, RunOptions, TaskDrawer};
use bareme::unstable::tasks::{LineFile, Task};
use bareme::{DiffError, Rulebook};

use super::args::{DiffArgs, DiffFormat};
use super::output::Stdout;

/// Diffs the two arguments by their kind: two `rubric-*.toml` files are
/// rubric versions, anything else rulebook versions.
pub fn run(args: &DiffArgs) -> ExitCode {
    if is_rubric(&args.old) && is_rubric(&args.new) {
        let versions_only = args.generators.is_some()
            || args.rubrics.is_some()
            || args.impact.is_some()
            || args.sample.is_some();
        if versions_only {
            warn!(
                "error: --generators, --rubrics, --impact and --sample diff two rulebook versions, not two rubrics"
            );
            return ExitCode::from(2);
        }
        return super::rubric_diff::run(&super::rubric_diff::RubricDiffArgs {
            old: &args.old,
            new: &args.new,
            tasks: args.tasks.as_deref(),
            replies: args.replies.as_deref(),
            rulebook: args.rulebook.as_deref(),
            format: args.format,
        });
    }
    if args.tasks.is_some() || args.rulebook.is_some() {
        warn!("error: --tasks, --replies and --rulebook diff two rubric files (rubric-<n>.toml)");
        return ExitCode::from(2);
    }
    rulebooks(args)
}

/// A rubric file, by its name: `rubric-<n>.toml`.
fn is_rubric(path: &Path) -> bool {
    path.is_file()
        && path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("rubric-") && n.ends_with(".toml"))
}

/// Why a version or a file beside it could not be read, printed; the exit
/// code: 3 an invalid rulebook or a diff that cannot be made, 2 otherwise.
fn failed(e: DiffError) -> ExitCode {
    match e {
        DiffError::Load(bareme::LoadError::Invalid(d)) => super::invalid(&d, None),
        DiffError::Compare(_) => {
            warn!("error: {e}");
            ExitCode::from(3)
        }
        _ => {
            warn!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// A version as the diff reads it, under the command's load options.
fn load(path: &Path) -> Result<DiffedVersion, ExitCode> {
    DiffedVersion::load(path, super::load_options()).map_err(failed)
}

/// Two rulebook versions: the structural diff, the verdict on the
/// generators and rubrics of OLD, and the impact when asked.
fn rulebooks(args: &DiffArgs) -> ExitCode {
    let (old, new) = match (load(&args.old), load(&args.new)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(code), _) | (_, Err(code)) => return code,
    };
    let diff = match compare_versions(&old, &new) {
        Ok(d) => d,
        Err(e) => return failed(e),
    };
    let compatibility = match verdicts(args, &old, &new.rulebook, &diff) {
        Ok(v) => v,
        Err(code) => return code,
    };
    let impact = match tasks(args, [old.rulebook.id(), new.rulebook.id()]) {
        Ok(None) => None,
        Ok(Some(tasks)) => {
            let options = ImpactOptions {
                examples: args.examples,
                old_years: args.old_years,
            };
            Some(impact(&old.rulebook, &new.rulebook, &tasks, options))
        }
        Err(code) => return code,
    };
    let report = Report {
        diff,
        compatibility: Some(compatibility),
        impact,
    };
    let mut out = Stdout::new();
    match args.format {
        DiffFormat::Text => {
            let style = Style {
                color: std::io::stdout().is_terminal(),
            };
            out.text(&render_text(&report, style));
        }
        DiffFormat::Markdown => out.text(&render_markdown(&report)),
        DiffFormat::Json => match serde_json::to_string_pretty(&report) {
            Ok(json) => out.line(&json),
            Err(e) => {
                warn!("error: {e}");
                return ExitCode::from(2);
            }
        },
    }
    out.finish(if report.breaks() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The generators and rubrics named by `--generators`/`--rubrics`, or else
/// those beside OLD that name it, each with its verdict against NEW.
fn verdicts(
    args: &DiffArgs,
    old: &DiffedVersion,
    new: &Rulebook,
    diff: &RulebookDiff,
) -> Result<Vec<Verdict>, ExitCode> {
    let beside = if args.generators.is_some() && args.rubrics.is_some() {
        Vec::new()
    } else {
        old.dependents().map_err(failed)?
    };
    let of = |kind: DependentKind, given: &Option<Vec<PathBuf>>| -> Vec<(DependentKind, PathBuf)> {
        match given {
            Some(list) => list.iter().map(|p| (kind, p.clone())).collect(),
            None => beside.iter().filter(|(k, _)| *k == kind).cloned().collect(),
        }
    };
    let mut dependents = of(DependentKind::Generator, &args.generators);
    dependents.extend(of(DependentKind::Rubric, &args.rubrics));
    versions::verdicts(&dependents, new, diff).map_err(failed)
}

/// The tasks of `--impact` or `--sample`, if asked.
fn tasks(args: &DiffArgs, ids: [&str; 2]) -> Result<Option<Vec<Task>>, ExitCode> {
    if let Some(path) = &args.impact {
        let mut file = super::taskfile::open(path)?;
        let tasks: Vec<Task> = file
            .tasks()
            .map(|read| read.map(|(_, task)| task))
            .collect::<Result<_, _>>()
            .map_err(|e| super::taskfile::line_failed(path, e))?;
        return of_the_set(&path.display().to_string(), tasks, ids).map(Some);
    }
    let (Some(count), Some(path)) = (args.sample, &args.generator) else {
        return Ok(None);
    };
    let (generator, rb) = load_generator(path, None).map_err(super::taskfile::companion_failed)?;
    let engine = TaskDrawer::new(&generator, &rb).map_err(|e| {
        warn!("error: {e}");
        ExitCode::from(3)
    })?;
    let options = RunOptions {
        seed: args.seed,
        start: 0,
        count,
        level: None,
        jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let mut lines = Vec::new();
    if let Err(e) = run_generator(&engine, options, &mut lines, &|_| {}) {
        warn!("error: {e}");
        return Err(ExitCode::from(2));
    }
    // The run's own lines, deduplicated as a task file holds them.
    let tasks = LineFile::new(lines.as_slice())
        .tasks()
        .map(|read| read.map(|(_, task)| task))
        .collect::<Result<_, _>>()
        .map_err(|e| {
            warn!("error: a drawn task: {e}");
            ExitCode::from(2)
        })?;
    of_the_set(&path.display().to_string(), tasks, ids).map(Some)
}

/// The tasks, when each is written for the set of the versions diffed
/// (`ids`): a task of another set is rejected by both versions, so an
/// impact of "0 tasks change" would say nothing true.
fn of_the_set(source: &str, tasks: Vec<Task>, ids: [&str; 2]) -> Result<Vec<Task>, ExitCode> {
    // A task twice would be counted twice among those that move, and its
    // id would name two examples: refused, as `score` refuses it.
    let mut seen = std::collections::HashSet::new();
    if let Some(t) = tasks.iter().find(|t| !seen.insert(t.id.as_str())) {
        warn!("error: {source}: task {} appears twice", t.id);
        return Err(ExitCode::from(2));
    }
    match tasks
        .iter()
        .find(|t| !ids.contains(&t.rulebook_id.as_str()))
    {
        Some(t) => {
            warn!(
                "error: {source}: task {} is written for {}, not for {}",
                t.id, t.rulebook_id, ids[0]
            );
            Err(ExitCode::from(2))
        }
        None => Ok(tasks),
    }
}
