//! `bareme generate`: a generator's tasks as JSON Lines, and its manifest.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use bareme::unstable::generate::{
    load_generator, run_excluding, Exclusion, RunError, RunOptions, TaskDrawer,
};

use bareme::unstable::score::load_named_rubric;
use bareme::unstable::tasks::CompanionError;

use super::args::GenerateArgs;
use super::output::{clobbers, OutFile, Stdout};
use super::progress;

/// Loads the generator, draws the tasks and writes them; exit 2 on any
/// error (an unwritable output included), 3 when the generator or its
/// rulebook has problems.
pub fn run(args: &GenerateArgs) -> ExitCode {
    let outputs: Vec<(&str, &Path)> = [("--out", &args.out), ("--manifest", &args.manifest)]
        .into_iter()
        .filter_map(|(flag, p)| Some((flag, p.as_deref()?)))
        .collect();
    let mut inputs = vec![args.generator.as_path()];
    inputs.extend(args.rulebook.as_deref());
    inputs.extend(args.exclude.iter().map(|p| p.as_path()));
    if let Some(why) = clobbers(&outputs, &inputs) {
        warn!("error: {why}");
        return ExitCode::from(2);
    }
    let (mut generator, rb) = match load_generator(&args.generator, args.rulebook.as_deref()) {
        Ok(pair) => pair,
        Err(e) => return super::taskfile::companion_failed(e),
    };
    // The prompts state the answer format of the rubric the generator
    // names: tasks naming a rubric that is not there, or that grades
    // another rulebook, would be graded by nothing they name.
    if let Err(e) = load_named_rubric(&args.generator, generator.rubric(), &rb) {
        let n = generator.rubric();
        return match e {
            CompanionError::Invalid(diags) => super::invalid(&diags, None),
            e => {
                warn!("error: {} names rubric {n}: {e}", args.generator.display());
                ExitCode::from(3)
            }
        };
    }
    // The rulebook's files are known only once it is loaded: an output
    // onto the version it extends is refused before anything is drawn.
    if let Some(why) = super::output::clobbers_rulebook(&outputs, &rb) {
        warn!("error: {why}");
        return ExitCode::from(2);
    }
    let mut set: Vec<&str> = Vec::new();
    for option in &args.options {
        let (name, on) = match option.split_once('=') {
            None => (option.as_str(), true),
            Some((name, "true")) => (name, true),
            Some((name, "false")) => (name, false),
            Some((name, other)) => {
                warn!("error: --option {name}={other}: the value is `true` or `false`");
                return ExitCode::from(2);
            }
        };
        // Set twice, one of the two was silently dropped.
        if set.contains(&name) {
            warn!("error: --option {name} is given twice");
            return ExitCode::from(2);
        }
        set.push(name);
        if let Err(e) = generator.set_option(name, on) {
            warn!("error: --option: {e}");
            return ExitCode::from(2);
        }
    }
    let engine = match TaskDrawer::new(&generator, &rb) {
        Ok(e) => e,
        Err(e) => {
            warn!("error: {e}");
            return ExitCode::from(3);
        }
    };
    let jobs = args
        .jobs
        .unwrap_or_else(bareme::unstable::chunks::all_cores);
    let options = RunOptions {
        seed: args.seed,
        start: args.start,
        count: args.count,
        level: args.level,
        jobs,
    };
    // A range past the bound is refused before any excluded file is read.
    if let Err(e) = options.end() {
        warn!("error: {e}");
        return ExitCode::from(2);
    }
    let mut excluded = Exclusion::new();
    for path in &args.exclude {
        let file = match std::fs::File::open(path) {
            Ok(f) => f,
            Err(e) => {
                warn!("error: cannot read {}: {e}", path.display());
                return ExitCode::from(2);
            }
        };
        if let Err(e) = excluded.add(&engine, &path.display().to_string(), file, jobs) {
            warn!("error: {e}");
            return ExitCode::from(2);
        }
    }
    // A shard draws every task before its start first (unwritten): the
    // bar counts those too, so a far `--start` shows its work, not a hang.
    let what = match args.start {
        0 => "tasks".to_string(),
        n => format!("tasks drawn (the first {n} before --start, unwritten)"),
    };
    let bar = progress::bar(&what, Some(args.start.saturating_add(args.count)));
    let progress = |n: u64| bar.inc(n);
    // The tasks file is put in place only once the manifest is ready too.
    let mut tasks_file = None;
    let result = match &args.out {
        Some(path) => match OutFile::create(path) {
            Ok(f) => run_excluding(&engine, options, &excluded, tasks_file.insert(f), &progress),
            Err(e) => {
                warn!("error: cannot write {}: {e}", path.display());
                return ExitCode::from(2);
            }
        },
        None => {
            let mut out = StdoutWrite(Stdout::new());
            let r = run_excluding(&engine, options, &excluded, &mut out, &progress);
            let code = out.0.finish(ExitCode::SUCCESS);
            if code != ExitCode::SUCCESS {
                return code;
            }
            r
        }
    };
    bar.finish_and_clear();
    let manifest = match result {
        Ok(m) => m,
        // A task the generator could not draw (a template that fails on
        // its draws, say) is the generator file's fault: named first.
        Err(e @ RunError::Task(_)) => {
            warn!("error: {}: {e}", args.generator.display());
            return ExitCode::from(2);
        }
        Err(e) => {
            warn!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let manifest_file = match &args.manifest {
        Some(path) => match manifest_ready(path, &manifest) {
            Ok(f) => Some((path, f)),
            Err(e) => {
                warn!("error: cannot write {}: {e}", path.display());
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    if let (Some(path), Some(f)) = (&args.out, tasks_file) {
        if let Err(e) = f.commit() {
            warn!("error: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    if let Some((path, f)) = manifest_file {
        if let Err(e) = f.commit() {
            warn!("error: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    let excluded: u64 = manifest.exclude.iter().map(|f| f.redraws).sum();
    let excluded = match args.exclude.is_empty() {
        true => String::new(),
        false => format!(", {excluded} in excluded files"),
    };
    let line = format!(
        "{}: {} tasks ({} duplicates drawn again{excluded}), sha256 {}",
        manifest.generator,
        manifest.tasks,
        manifest.duplicates,
        manifest.sha256.get(..16).unwrap_or_default()
    );
    super::closing(&line, ExitCode::SUCCESS)
}

/// The manifest written to its temporary file, to be committed.
fn manifest_ready(
    path: &Path,
    manifest: &bareme::unstable::generate::Manifest,
) -> std::io::Result<OutFile> {
    let text = serde_json::to_string_pretty(manifest).map_err(std::io::Error::other)?;
    let mut f = OutFile::create(path)?;
    f.write_all(text.as_bytes())?;
    f.write_all(b"\n")?;
    f.flush()?;
    Ok(f)
}

/// Standard output as a `Write`, its errors kept for `finish`.
struct StdoutWrite(Stdout);

impl Write for StdoutWrite {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match std::str::from_utf8(buf) {
            Ok(text) => self.0.text(text),
            Err(_) => return Err(std::io::Error::other("task lines are UTF-8")),
        }
        if self.0.failed() {
            return Err(std::io::Error::other("standard output failed"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
