//! Command-line interface: argument parsing and the commands.
//!
//! Exit codes: 0 ok, 1 conformance failures, 2 usage / IO / rejected case
//! (an unwritable standard output or closing summary included), 3 invalid rulebook,
//! 4 evaluation fault of the rulebook.
//!
//! Invariant: all terminal and file IO of the binary is here; standard
//! output goes through `output::Stdout`, which checks every write; every
//! line a person reads is escaped by `bareme::unstable::trace::escape_text`.

/// `eprintln!` that ignores a closed pipe and escapes the line
/// (`escape_text`): messages carry case text such as a rejection's path.
macro_rules! warn {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let line = format!($($t)*);
        let _ = writeln!(
            std::io::stderr().lock(),
            "{}",
            bareme::unstable::trace::escape_text(&line)
        );
    }};
}

/// `eprint!` that ignores a closed pipe; for rendered diagnostics only,
/// which are many lines and may be coloured.
macro_rules! warn_raw {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr().lock(), $($t)*);
    }};
}

/// Writes a command's closing summary (`generate -o`'s count and digest,
/// `bake`'s reference): the line a person ran the command to read, so a
/// summary that cannot be written fails the command with
/// `output::WRITE_FAILED` where a warning's would not. A closed pipe is no
/// error, as on standard output.
fn closing(line: &str, code: std::process::ExitCode) -> std::process::ExitCode {
    use std::io::Write as _;
    let line = bareme::unstable::trace::escape_text(line);
    if output::was_closed(output::Stream::Stderr) {
        return std::process::ExitCode::from(output::WRITE_FAILED);
    }
    match writeln!(std::io::stderr().lock(), "{line}") {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            std::process::ExitCode::from(output::WRITE_FAILED)
        }
        _ => code,
    }
}

mod ablations;
mod args;
mod bake;
mod baselines;
mod batch;
mod diff;
mod eval;
mod generate;
mod grading;
mod input;
mod judge;
mod locate;
mod new;
mod output;
mod pages;
mod progress;
mod rescore;
mod rubric_diff;
mod score;
mod serve;
mod sweep;
mod table;
mod taskfile;
mod verify;
mod verify_trace;

use clap::Parser;
use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

use bareme::unstable::conformance::run_conformance;
use bareme::{LoadError, Rulebook};
use output::Stdout;

pub use args::{Cli, Command};

/// Parses the arguments and runs the command.
pub fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage(&e),
    };
    let _ = ALLOW_OUTSIDE.set(cli.allow_outside);
    match cli.command {
        Command::Check {
            rulebook,
            deny,
            effective,
        } => check(&rulebook, deny == Some(args::Deny::Warnings), effective),
        Command::Eval(args) => eval::run(&args),
        Command::Test { rulebook, list } => test(&rulebook, list),
        Command::Ablations(args) => ablations::run(&args),
        Command::Compile {
            rulebook,
            ablate,
            out,
        } => compile(&rulebook, ablate.as_deref(), out.as_deref()),
        Command::Generate(args) => generate::run(&args),
        Command::Score(args) => score::run(&args),
        Command::Bake(args) => bake::run(&args),
        Command::Verify(args) => verify::run(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Rescore(args) => rescore::run(&args),
        Command::Baselines(args) => baselines::run(&args),
        Command::Diff(args) => diff::run(&args),
        Command::New { id, dir } => new::run(&id, &dir),
        Command::Sweep(args) => sweep::run(&args),
        Command::VerifyTrace(args) => verify_trace::run(&args),
        Command::Schema { case: None } => {
            let mut out = Stdout::new();
            out.text(&bareme::unstable::rulebook::raw::json_schema());
            out.finish(ExitCode::SUCCESS)
        }
        Command::Schema { case: Some(path) } => {
            let rb = match load(&path) {
                Ok(rb) => rb,
                Err(code) => return code,
            };
            let mut text = serde_json::to_string_pretty(&rb.case_schema()).unwrap_or_default();
            text.push('\n');
            let mut out = Stdout::new();
            out.text(&text);
            out.finish(ExitCode::SUCCESS)
        }
    }
}

/// `--allow-outside`, set once from the arguments: every command that
/// loads a rulebook here reads it.
static ALLOW_OUTSIDE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();

pub(crate) fn load_options() -> bareme::unstable::rulebook::LoadOptions {
    bareme::unstable::rulebook::LoadOptions {
        allow_outside: ALLOW_OUTSIDE.get().copied().unwrap_or(false),
    }
}

/// What clap would print and exit with for a usage error, `--help` or
/// `--version`; but help or a version that cannot be written is exit 2,
/// as any output that cannot be written is (clap exits 0 on `/dev/full`).
fn usage(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    let wanted = matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion);
    if !wanted {
        let _ = e.print();
        return ExitCode::from(2);
    }
    let mut out = Stdout::new();
    out.text(&e.render().to_string());
    out.finish(ExitCode::SUCCESS)
}

/// Loads a rulebook or prints why not, returning the exit code to use.
pub fn load(path: &Path) -> Result<Rulebook, ExitCode> {
    bareme::unstable::rulebook::load_rulebook_with(path, load_options()).map_err(|e| match e {
        LoadError::Invalid(diags) => invalid(&diags, None),
        _ => {
            warn!("error: {e}");
            ExitCode::from(2)
        }
    })
}

/// Prints a file's diagnostics and a closing line, and gives exit code 3;
/// `of` names the file that names this one (a generator's rulebook).
pub fn invalid(diags: &bareme::unstable::diag::Diagnostics, of: Option<&str>) -> ExitCode {
    warn_raw!("{}", diags.render(100, std::io::stderr().is_terminal()));
    match of {
        None => warn!(
            "error: {} problem(s) in {}",
            diags.problems.len(),
            diags.source.name
        ),
        Some(file) => warn!(
            "error: the rulebook of {file} has {} problem(s)",
            diags.problems.len()
        ),
    }
    ExitCode::from(3)
}

/// The rulebook under the ablations of `--ablate a,b`, or exit code 2 and why not.
pub fn ablate(rb: Rulebook, list: Option<&str>) -> Result<Rulebook, ExitCode> {
    let Some(list) = list else {
        return Ok(rb);
    };
    let names: Vec<&str> = list.split(',').map(str::trim).collect();
    rb.ablated_all(&names).map_err(|e| {
        warn!("error: {e}");
        ExitCode::from(2)
    })
}

/// Checks a rulebook and prints its warnings; with `deny_warnings` a
/// warning fails as a problem does; with `effective`, prints the rulebook a
/// chain of `extends` stands for instead.
fn check(path: &Path, deny_warnings: bool, effective: bool) -> ExitCode {
    if effective {
        return match bareme::unstable::rulebook::effective_toml_with(path, load_options()) {
            Ok(text) => {
                let mut out = Stdout::new();
                out.text(&text);
                out.finish(ExitCode::SUCCESS)
            }
            Err(LoadError::Invalid(diags)) => invalid(&diags, None),
            Err(e) => {
                warn!("error: {e}");
                ExitCode::from(2)
            }
        };
    }
    match load(path) {
        Ok(rb) => {
            let warnings = rb.warnings();
            if !warnings.is_empty() {
                warn_raw!("{}", warnings.render(100, std::io::stderr().is_terminal()));
                let n = warnings.problems.len();
                let name = &warnings.source.name;
                if deny_warnings {
                    warn!("error: {n} warning(s) in {name}, denied by --deny warnings");
                    return ExitCode::from(3);
                }
                warn!("warning: {n} warning(s) in {name}");
            }
            let mut out = Stdout::new();
            out.say(&format!("ok: {} — {}", rb.reference(), rb.summary()));
            out.finish(ExitCode::SUCCESS)
        }
        Err(code) => code,
    }
}

/// Writes the compiled module, and says on standard error what it leaves to
/// the interpreter.
fn compile(path: &Path, ablation: Option<&str>, out: Option<&Path>) -> ExitCode {
    if let Some(why) = out.and_then(|o| output::clobbers(&[("-o", o)], &[path])) {
        warn!("error: {why}");
        return ExitCode::from(2);
    }
    let rb = match load(path).and_then(|rb| ablate(rb, ablation)) {
        Ok(rb) => rb,
        Err(code) => return code,
    };
    if let Some(why) = out.and_then(|o| output::clobbers_rulebook(&[("-o", o)], &rb)) {
        warn!("error: {why}");
        return ExitCode::from(2);
    }
    let generated = bareme::unstable::codegen::generate(&rb);
    for f in &generated.fallbacks {
        warn!("left to the interpreter: {f}");
    }
    match out {
        None => {
            let mut stdout = Stdout::new();
            stdout.text(&generated.source);
            stdout.finish(ExitCode::SUCCESS)
        }
        Some(file) => {
            if let Err(e) = output::write_file(file, generated.source.as_bytes()) {
                warn!("error: cannot write {}: {e}", file.display());
                return ExitCode::from(2);
            }
            let line = format!(
                "wrote {} ({}, fingerprint {})",
                file.display(),
                rb.reference(),
                &generated.fingerprint[..16]
            );
            closing(&line, ExitCode::SUCCESS)
        }
    }
}

fn test(path: &Path, list: bool) -> ExitCode {
    let rb = match load(path) {
        Ok(rb) => rb,
        Err(code) => return code,
    };
    let dir = if path.is_dir() {
        path.to_path_buf()
    } else {
        path.parent().map(Path::to_path_buf).unwrap_or_default()
    };
    let report = match run_conformance(&rb, &dir) {
        Ok(r) => r,
        Err(e) => {
            warn!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut out = Stdout::new();
    for r in &report.results {
        let passed = r.failures.is_empty();
        if passed && !list {
            continue;
        }
        out.say(&format!(
            "{} {}",
            if passed { "ok  " } else { "FAIL" },
            r.name
        ));
        if let Some(d) = &r.description {
            out.say(&format!("  {d}"));
        }
        for f in &r.failures {
            out.say(&format!("  {f}"));
        }
    }
    let failed = report.failed();
    out.say(&format!(
        "{}: {} passed, {failed} failed",
        rb.reference(),
        report.results.len() - failed
    ));
    if report.results.is_empty() {
        warn!(
            "error: no conformance cases in {}",
            dir.join("cases").display()
        );
        return out.finish(ExitCode::from(1));
    }
    out.finish(if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
