//! Evaluate one case with the library and print the answer and its trace.
//!
//! `cargo run --example evaluate [RULEBOOK] [CASE.json]`

use std::path::PathBuf;
use std::process::ExitCode;

use bareme::{evaluate_value, load_rulebook, render_text, LoadError, Outcome};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let rulebook = PathBuf::from(
        args.next()
            .unwrap_or_else(|| "rulebooks/luma-payroll/v3".into()),
    );
    let case_file = PathBuf::from(
        args.next()
            .unwrap_or_else(|| "examples/luma-payroll/payslip.json".into()),
    );

    let rb = match load_rulebook(&rulebook) {
        Ok(rb) => rb,
        Err(LoadError::Invalid(diags)) => {
            eprint!("{}", diags.render(100, false));
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let case: serde_json::Value = match std::fs::read_to_string(&case_file)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
    {
        Ok(v) => v,
        Err(e) => {
            eprintln!("{}: {e}", case_file.display());
            return ExitCode::FAILURE;
        }
    };
    match evaluate_value(&rb, &case, true) {
        Ok((outcome, trace)) => {
            match outcome {
                Outcome::Answer(answer) => println!("{answer}"),
                Outcome::Rejected(e) => println!("rejected at {}: {}", e.path, e.message),
                // Outcomes added in later releases print as their JSON.
                other => println!("{}", bareme::unstable::outcome::outcome_json(Ok(&other))),
            }
            if let Some(trace) = trace {
                print!("\n{}", render_text(&trace));
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("the rulebook failed on this case: {e}");
            ExitCode::FAILURE
        }
    }
}
