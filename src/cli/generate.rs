//! `bareme generate`: a generator's tasks as JSON Lines, and its manifest.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::process::ExitCode;

use bareme::generate::{load_generator, run as run_generator, Engine, RunOptions};

use super::args::GenerateArgs;
use super::output::Stdout;
use super::progress;

/// Loads the generator, draws the tasks and writes them; exit 2 on any
/// error (an unwritable output included), 3 when the generator or its
/// rulebook has problems.
pub fn run(args: &GenerateArgs) -> ExitCode {
    let (generator, rb) = match load_generator(&args.generator, args.rulebook.as_deref()) {
        Ok(pair) => pair,
        Err(e) => return super::taskfile::companion_failed(e),
    };
    let engine = match Engine::new(&generator, &rb) {
        Ok(e) => e,
        Err(e) => {
            warn!("error: {e}");
            return ExitCode::from(3);
        }
    };
    let jobs = args.jobs.unwrap_or_else(bareme::chunks::all_cores);
    let options = RunOptions {
        seed: args.seed,
        start: args.start,
        count: args.count,
        level: args.level,
        jobs,
    };
    let bar = progress::bar("tasks", Some(args.count));
    let progress = |n: u64| bar.inc(n);
    let result = match &args.out {
        Some(path) => match File::create(path) {
            Ok(f) => {
                let mut w = BufWriter::new(f);
                run_generator(&engine, options, &mut w, &progress)
            }
            Err(e) => {
                warn!("error: cannot write {}: {e}", path.display());
                return ExitCode::from(2);
            }
        },
        None => {
            let mut out = StdoutWrite(Stdout::new());
            let r = run_generator(&engine, options, &mut out, &progress);
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
        Err(e) => {
            warn!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(path) = &args.manifest {
        let text = match serde_json::to_string_pretty(&manifest) {
            Ok(t) => t,
            Err(e) => {
                warn!("error: {e}");
                return ExitCode::from(2);
            }
        };
        if let Err(e) = std::fs::write(path, text + "\n") {
            warn!("error: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    warn!(
        "{}: {} tasks ({} duplicates dropped), sha256 {}",
        manifest.generator,
        manifest.tasks,
        manifest.duplicates,
        &manifest.sha256[..16]
    );
    ExitCode::SUCCESS
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
