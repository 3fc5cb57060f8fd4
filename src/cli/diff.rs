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
    diff_rulebooks, impact, relocate, render_markdown, render_text, verdict, Dependent,
    DependentKind, ImpactOptions, Report, RulebookDiff, Style, Verdict, Version,
};
use bareme::unstable::generate::{load_generator, run as run_generator, RunOptions, TaskDrawer};
use bareme::unstable::rulebook::effective_toml;
use bareme::unstable::rulebook::load::{read_capped, rulebook_file, MAX_RULEBOOK_BYTES};
use bareme::unstable::tasks::{LineFile, Task};
use bareme::{parse_rulebook, Rulebook};

use super::args::{DiffArgs, DiffFormat};
use super::output::Stdout;

/// Diffs the two arguments by their kind: two `rubric-*.toml` files are
/// rubric versions, anything else rulebook versions.
pub fn run(args: &DiffArgs) -> ExitCode {
    if is_rubric(&args.old) && is_rubric(&args.new) {
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

/// A file's text, capped as a rulebook is, or exit 2 and why not.
fn read_text(path: &Path) -> Result<String, ExitCode> {
    let fail = |why: String| {
        warn!("error: cannot read {}: {why}", path.display());
        ExitCode::from(2)
    };
    let bytes = std::fs::File::open(path)
        .and_then(|f| read_capped(f, MAX_RULEBOOK_BYTES))
        .map_err(|e| fail(e.to_string()))?
        .ok_or_else(|| fail(format!("the file is over {MAX_RULEBOOK_BYTES} bytes")))?;
    String::from_utf8(bytes).map_err(|e| {
        fail(format!(
            "not UTF-8 text: invalid byte at offset {}",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// A rulebook version: its file name, text and checked rulebook.
struct Loaded {
    file: String,
    text: String,
    rulebook: Rulebook,
    /// For a version that extends another: each file of the chain and its
    /// text, the named one first, where the diff's lines are pointed.
    parts: Vec<(String, String)>,
}

impl Loaded {
    fn version(&self) -> Version<'_> {
        Version {
            file: &self.file,
            text: &self.text,
        }
    }

    fn parts(&self) -> Vec<Version<'_>> {
        self.parts
            .iter()
            .map(|(file, text)| Version { file, text })
            .collect()
    }
}

/// A version as the diff reads it. A version that `extends` another is
/// compared as its effective rulebook (the chain merged, printed as TOML);
/// its lines are then pointed back into the files of the chain.
fn load(path: &Path) -> Result<Loaded, ExitCode> {
    let file = rulebook_file(path);
    let name = file.display().to_string();
    let rulebook = super::load(&file)?;
    if rulebook.files().len() > 1 {
        let text = effective_toml(&file).map_err(|e| match e {
            bareme::LoadError::Invalid(d) => super::invalid(&d, None),
            other => {
                warn!("error: {other}");
                ExitCode::from(2)
            }
        })?;
        let mut parts = Vec::new();
        for part in rulebook.files() {
            parts.push((part.clone(), read_text(Path::new(part))?));
        }
        return Ok(Loaded {
            file: format!("{name} (effective)"),
            text,
            rulebook,
            parts,
        });
    }
    let text = read_text(&file)?;
    let rulebook = parse_rulebook(&name, &text).map_err(|d| super::invalid(&d, None))?;
    Ok(Loaded {
        file: name,
        text,
        rulebook,
        parts: Vec::new(),
    })
}

/// Two rulebook versions: the structural diff, the verdict on the
/// generators and rubrics of OLD, and the impact when asked.
fn rulebooks(args: &DiffArgs) -> ExitCode {
    let (old, new) = match (load(&args.old), load(&args.new)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(code), _) | (_, Err(code)) => return code,
    };
    let diff = match diff_rulebooks(&old.version(), &new.version()) {
        Ok(mut d) => {
            relocate(&mut d, &old.parts(), &new.parts());
            d
        }
        Err(e) => {
            warn!("error: {e}");
            return ExitCode::from(3);
        }
    };
    let compatibility = match verdicts(args, &old, &new.rulebook, &diff) {
        Ok(v) => v,
        Err(code) => return code,
    };
    let impact = match tasks(args) {
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

/// `[section] rulebook = "…"` of a generator or rubric, read loosely.
fn names(text: &str, section: &str) -> Option<String> {
    let table = toml::from_str::<toml::Table>(text).ok()?;
    Some(table.get(section)?.get("rulebook")?.as_str()?.to_string())
}

/// The generators or rubrics beside OLD's version folder that name OLD.
fn beside(old: &Loaded, prefix: &str, section: &str) -> Result<Vec<PathBuf>, ExitCode> {
    let file = Path::new(&old.file);
    let Some(set) = file.parent().and_then(Path::parent) else {
        return Ok(Vec::new());
    };
    let Ok(entries) = std::fs::read_dir(set) else {
        return Ok(Vec::new());
    };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(prefix) && name.ends_with(".toml") {
            let text = read_text(&path)?;
            let wanted = format!("{}@{}", old.rulebook.id(), old.rulebook.version());
            if names(&text, section).as_deref() == Some(wanted.as_str()) {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

fn verdicts(
    args: &DiffArgs,
    old: &Loaded,
    new: &Rulebook,
    diff: &RulebookDiff,
) -> Result<Vec<Verdict>, ExitCode> {
    let generators = match &args.generators {
        Some(list) => list.clone(),
        None => beside(old, "generator-", "generator")?,
    };
    let rubrics = match &args.rubrics {
        Some(list) => list.clone(),
        None => beside(old, "rubric-", "rubric")?,
    };
    let kinds = generators
        .iter()
        .map(|p| (DependentKind::Generator, p))
        .chain(rubrics.iter().map(|p| (DependentKind::Rubric, p)));
    let mut out = Vec::new();
    for (kind, path) in kinds {
        let text = read_text(path)?;
        let file = path.display().to_string();
        out.push(verdict(
            &Dependent {
                kind,
                file: &file,
                text: &text,
            },
            new,
            diff,
        ));
    }
    Ok(out)
}

/// The tasks of `--impact` or `--sample`, if asked.
fn tasks(args: &DiffArgs) -> Result<Option<Vec<Task>>, ExitCode> {
    if let Some(path) = &args.impact {
        let mut file = super::taskfile::open(path)?;
        let tasks = file
            .tasks()
            .map(|read| read.map(|(_, task)| task))
            .collect::<Result<_, _>>()
            .map_err(|e| super::taskfile::line_failed(path, e))?;
        return Ok(Some(tasks));
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
    Ok(Some(tasks))
}
