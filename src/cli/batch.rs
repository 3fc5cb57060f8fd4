//! `bareme eval --batch`: JSON Lines in, one JSON line out per input line.
//!
//! A bad line (too long, not UTF-8, not JSON, rejected, or a fault of the
//! rulebook) gets an `{"error": {"path", "message"}}` line and the batch goes
//! on, so output line N always answers input line N.

use std::io::BufRead;
use std::path::Path;
use std::process::ExitCode;

use super::input::{case_limit, next_line, parse_case, too_large, BatchLine};
use super::output::Stdout;
use bareme::{error_json, outcome_json};
use bareme::{evaluate_json, Rulebook};

/// Runs a batch from a file or, for `-`, standard input.
pub fn run(rb: &Rulebook, path: &Path) -> ExitCode {
    let mut reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        match std::fs::File::open(path) {
            Ok(f) => Box::new(std::io::BufReader::new(f)),
            Err(e) => {
                warn!("error: cannot read {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
    };
    let mut out = Stdout::new();
    let limit = case_limit(rb);
    let mut buf = Vec::new();
    loop {
        let answer = match next_line(&mut reader, limit, &mut buf) {
            Ok(None) => break,
            Ok(Some(BatchLine::TooLong)) => error_line("$", &too_large(limit)),
            Ok(Some(BatchLine::Fits(line))) => answer_line(rb, line),
            Err(e) => {
                warn!("error: reading the batch: {e}");
                return out.finish(ExitCode::from(2));
            }
        };
        out.line(&answer);
        if out.failed() {
            break;
        }
    }
    out.finish(ExitCode::SUCCESS)
}

/// The output line for one input line (at most the size limit); never fails.
fn answer_line(rb: &Rulebook, line: &[u8]) -> String {
    let case = match parse_case(line) {
        Ok(case) => case,
        Err(message) => return error_line("$", &message),
    };
    let result = evaluate_json(rb, &case, false);
    outcome_json(result.as_ref().map(|(outcome, _)| outcome)).to_string()
}

fn error_line(path: &str, message: &str) -> String {
    error_json(path, message).to_string()
}
