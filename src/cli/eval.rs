//! `bareme eval`: one case (a batch is `batch.rs`).

use std::process::ExitCode;

use super::args::{EvalArgs, TraceFormat};
use super::input::{case_limit, parse_case, read_case};
use super::output::Stdout;
use bareme::{evaluate_value, render_text, Outcome};

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
    if let Some(batch) = &args.batch {
        let (trace, compact) = match args.trace {
            None => (false, false),
            Some(TraceFormat::Json) => (true, false),
            Some(TraceFormat::JsonCompact) => (true, true),
            Some(TraceFormat::Text) => {
                warn!("error: --trace text cannot be combined with --batch: a batch writes one JSON line per case, so use --trace json");
                return ExitCode::from(2);
            }
        };
        let jobs = args
            .jobs
            .unwrap_or_else(bareme::unstable::chunks::all_cores);
        return super::batch::run(&rb, batch, jobs, trace, compact);
    }
    if args.jobs.is_some() {
        warn!("error: --jobs applies to a batch: add --batch FILE");
        return ExitCode::from(2);
    }
    let case =
        read_case(args.case.as_deref(), case_limit(&rb)).and_then(|bytes| parse_case(&bytes));
    let case = match case {
        Ok(case) => case,
        Err(e) => {
            warn!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let (outcome, trace) = match evaluate_value(&rb, &case, args.trace.is_some()) {
        Ok(r) => r,
        Err(e) => {
            warn!("error: the rulebook failed on this case: {e}");
            return ExitCode::from(4);
        }
    };
    let mut out = Stdout::new();
    match &outcome {
        Outcome::Answer(answer) => {
            let text = match (args.trace, trace) {
                (Some(TraceFormat::Json), Some(trace)) => {
                    super::batch::traced_line(&outcome, &trace)
                }
                (Some(TraceFormat::JsonCompact), Some(trace)) => {
                    super::batch::compact_line(&outcome, &trace)
                }
                (Some(TraceFormat::Text), Some(trace)) => {
                    format!("{answer}\n\n{}", render_text(&trace))
                }
                _ => answer.to_string(),
            };
            out.line(text.trim_end());
            out.finish(ExitCode::SUCCESS)
        }
        Outcome::Rejected(err) => {
            match (args.trace, trace) {
                (Some(TraceFormat::Text), Some(trace)) => out.text(&render_text(&trace)),
                (Some(TraceFormat::Json), Some(trace)) => {
                    out.line(&super::batch::traced_line(&outcome, &trace));
                }
                (Some(TraceFormat::JsonCompact), Some(trace)) => {
                    out.line(&super::batch::compact_line(&outcome, &trace));
                }
                _ => {}
            }
            warn!("rejected: {}: {}", err.path, err.message);
            out.finish(ExitCode::from(2))
        }
        // An outcome of a later library: written as the one writer writes it.
        other => {
            out.line(&bareme::outcome_json(Ok(other)).to_string());
            out.finish(ExitCode::SUCCESS)
        }
    }
}
