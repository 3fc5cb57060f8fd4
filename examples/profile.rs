//! Evaluates one case many times without a trace, for profilers.
//!
//! `cargo build --release --example profile`, then for instance
//! `valgrind --tool=callgrind target/release/examples/profile 1000` and again
//! with `0`: the difference over 1000 is the instruction count of one
//! evaluation, the same whatever else the machine is doing.
//!
//! Arguments: `[COUNT] [RULEBOOK] [CASE.json] [compiled|validate|trace]`,
//! by default 1000 evaluations of the level-4 paie-fr example; `compiled`
//! evaluates with the compiled module of `tests/compiled/` (paie-fr 2026 or
//! Luma) instead of interpreting, `validate` validates the case alone,
//! `trace` evaluates with a trace.

use std::path::PathBuf;
use std::process::ExitCode;

use bareme::{evaluate, load_rulebook, validate_case};

/// The allocator `bareme` runs with (src/main.rs), so the counts are the CLI's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[rustfmt::skip]
#[path = "../tests/compiled/luma_payroll_v3.rs"]
mod luma_payroll_v3;
#[rustfmt::skip]
#[path = "../tests/compiled/paie_fr_v2026.rs"]
mod paie_fr_v2026;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let count: usize = match args.next().map(|a| a.parse()) {
        None => 1000,
        Some(Ok(n)) => n,
        Some(Err(e)) => {
            eprintln!("COUNT must be a whole number: {e}");
            return ExitCode::FAILURE;
        }
    };
    let rulebook = PathBuf::from(
        args.next()
            .unwrap_or_else(|| "rulebooks/paie-fr/v2026".into()),
    );
    let case_file = PathBuf::from(
        args.next()
            .unwrap_or_else(|| "examples/paie-fr/level4-entry.json".into()),
    );
    let rb = match load_rulebook(&rulebook) {
        Ok(rb) => rb,
        Err(e) => {
            eprintln!("{}: {e}", rulebook.display());
            return ExitCode::FAILURE;
        }
    };
    let case: serde_json::Value = match std::fs::read_to_string(&case_file)
        .map_err(|e| e.to_string())
        .and_then(|text| serde_json::from_str(&text).map_err(|e| e.to_string()))
    {
        Ok(case) => case,
        Err(e) => {
            eprintln!("{}: {e}", case_file.display());
            return ExitCode::FAILURE;
        }
    };
    let facts = match validate_case(&rb, &case) {
        Ok(facts) => facts,
        Err(e) => {
            eprintln!(
                "{}: rejected at {}: {}",
                case_file.display(),
                e.path,
                e.message
            );
            return ExitCode::FAILURE;
        }
    };
    let mut answered = 0;
    let mode = args.next();
    if mode.as_deref() == Some("validate") {
        for _ in 0..count {
            let facts = validate_case(&rb, std::hint::black_box(&case));
            answered += usize::from(std::hint::black_box(&facts).is_ok());
        }
    } else if mode.as_deref() == Some("trace") {
        for _ in 0..count {
            let outcome = evaluate(&rb, std::hint::black_box(&facts), true);
            answered += usize::from(std::hint::black_box(&outcome).is_ok());
        }
    } else if mode.as_deref() == Some("compiled") {
        let bound = match paie_fr_v2026::COMPILED
            .bind(&rb)
            .or_else(|_| luma_payroll_v3::COMPILED.bind(&rb))
        {
            Ok(bound) => bound,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::FAILURE;
            }
        };
        for _ in 0..count {
            let outcome = bound.evaluate(std::hint::black_box(&facts));
            answered += usize::from(std::hint::black_box(&outcome).is_ok());
        }
    } else {
        for _ in 0..count {
            let outcome = evaluate(&rb, std::hint::black_box(&facts), false);
            answered += usize::from(std::hint::black_box(&outcome).is_ok());
        }
    }
    println!("{answered} of {count} evaluations answered");
    ExitCode::SUCCESS
}
