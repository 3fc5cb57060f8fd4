//! `bareme eval`: one case (a batch is `batch.rs`).

use std::process::ExitCode;

use super::args::{EvalArgs, TraceFormat};
use super::input::{case_limit, read_case, read_case_text};
use super::output::Stdout;
use bareme::unstable::evaluation::evaluate_text;
use bareme::{render_text, Outcome};

/// Runs `bareme eval`.
pub fn run(args: &EvalArgs) -> ExitCode {
    let rb = match super::load(&args.rulebook) {
        Ok(rb) => rb,
        Err(code) => return code,
    };
    let rb = match super::ablate(rb, args.ablate.as_deref()) {
        Ok(rb) => rb,
        Err(code) => return code,
    };
    let pages = matches!(args.trace, Some(TraceFormat::Html | TraceFormat::Markdown));
    if args.out.is_some() && !pages {
        warn!("error: --out names where an audit page goes: add --trace html or --trace markdown");
        return ExitCode::from(2);
    }
    if let Some(out) = &args.out {
        let inputs: Vec<&std::path::Path> =
            args.case.iter().chain(&args.batch).map(|p| &**p).collect();
        let clash = super::output::clobbers(&[("--out", out)], &inputs)
            .or_else(|| super::output::clobbers_rulebook(&[("--out", out)], &rb));
        if let Some(message) = clash {
            warn!("error: {message}");
            return ExitCode::from(2);
        }
    }
    if let Some(batch) = &args.batch {
        let jobs = args
            .jobs
            .unwrap_or_else(bareme::unstable::chunks::all_cores);
        let (trace, compact) = match args.trace {
            None => (false, false),
            Some(TraceFormat::Json) => (true, false),
            Some(TraceFormat::JsonCompact) => (true, true),
            Some(TraceFormat::Text) => {
                warn!("error: --trace text cannot be combined with --batch: a batch writes one JSON line per case, so use --trace json");
                return ExitCode::from(2);
            }
            Some(format @ (TraceFormat::Html | TraceFormat::Markdown)) => {
                let Some(dir) = &args.out else {
                    warn!("error: --batch with --trace html or markdown writes a page per case: add --out DIR");
                    return ExitCode::from(2);
                };
                return super::pages::run_batch(&rb, batch, jobs, format, dir);
            }
        };
        return super::batch::run(&rb, batch, jobs, trace, compact);
    }
    if args.jobs.is_some() {
        warn!("error: --jobs applies to a batch: add --batch FILE");
        return ExitCode::from(2);
    }
    let bytes = match read_case(args.case.as_deref(), case_limit(&rb)) {
        Ok(bytes) => bytes,
        Err(e) => {
            warn!("error: {e}");
            return ExitCode::from(2);
        }
    };
    // Read as a batch line is read (numbers kept as written), so that one
    // case gives the same bytes alone and in a batch.
    let case = match read_case_text(&bytes) {
        Ok(case) => case,
        Err(e) => {
            match e.path.as_str() {
                "$" => warn!("error: {}", e.message),
                path => warn!("error: {path}: {}", e.message),
            }
            return ExitCode::from(2);
        }
    };
    let (outcome, trace) = match evaluate_text(&rb, &case, args.trace.is_some()) {
        Ok(r) => r,
        Err(e) => {
            warn!("error: the rulebook failed on this case: {e}");
            return ExitCode::from(4);
        }
    };
    if let (Some(format @ (TraceFormat::Html | TraceFormat::Markdown)), Some(trace)) =
        (args.trace, &trace)
    {
        let page = super::pages::page(&rb, &bytes, &outcome, trace, format);
        let code = match &outcome {
            Outcome::Rejected(err) => {
                warn!("rejected: {}: {}", err.path, err.message);
                ExitCode::from(2)
            }
            _ => ExitCode::SUCCESS,
        };
        return match &args.out {
            Some(path) => match super::output::write_file(path, page.as_bytes()) {
                Ok(()) => code,
                Err(e) => {
                    warn!("error: cannot write {}: {e}", path.display());
                    ExitCode::from(super::output::WRITE_FAILED)
                }
            },
            None => {
                let mut out = Stdout::new();
                out.text(&page);
                out.finish(code)
            }
        };
    }
    // The line of a JSON trace, made before anything is written: a trace
    // past its bound is an error alone.
    let line = match (args.trace, &trace) {
        (Some(TraceFormat::Json), Some(trace)) => Some(super::batch::traced_line(&outcome, trace)),
        (Some(TraceFormat::JsonCompact), Some(trace)) => {
            Some(super::batch::compact_line(&outcome, trace))
        }
        _ => None,
    };
    let line = match line.transpose() {
        Ok(line) => line,
        Err(e) => {
            warn!("error: {e}");
            return ExitCode::from(4);
        }
    };
    let mut out = Stdout::new();
    match &outcome {
        Outcome::Answer(answer) => {
            let text = match (line, args.trace, trace) {
                (Some(line), _, _) => line,
                (None, Some(TraceFormat::Text), Some(trace)) => {
                    format!("{answer}\n\n{}", render_text(&trace))
                }
                _ => answer.to_string(),
            };
            out.line(text.trim_end());
            out.finish(ExitCode::SUCCESS)
        }
        Outcome::Rejected(err) => {
            match (line, args.trace, trace) {
                (Some(line), _, _) => out.line(&line),
                (None, Some(TraceFormat::Text), Some(trace)) => out.text(&render_text(&trace)),
                _ => {}
            }
            warn!("rejected: {}: {}", err.path, err.message);
            out.finish(ExitCode::from(2))
        }
        // An outcome of a later library: written as the one writer writes it.
        other => {
            out.line(&bareme::unstable::outcome::outcome_json(Ok(other)).to_string());
            out.finish(ExitCode::SUCCESS)
        }
    }
}
