//! Runs a file of JSON Lines cases through the batch road, for
//! profilers: read, validate, evaluate and write each line, as
//! `eval --batch` does, by one of two roads, so that both are counted in one
//! build.
//!
//! `cargo build --release --example read_profile`, then
//! `valgrind --tool=callgrind target/release/examples/read_profile RULEBOOK CASES.jsonl ROAD PASSES`
//! with `ROAD` `value` (each line read into a `serde_json::Value`, validated
//! from it, the outcome built as a `Value` by `outcome_json` and written) or
//! `flat` (each line read in one pass into a `CaseText`, the outcome written
//! straight to text), `written` (the same through the library's
//! `write_evaluation`, as `eval --batch` does),
//! `traced` (the flat road with a trace, each line written as
//! `eval --batch --trace json` writes it: `{"answer", "trace"}`),
//! `compact` (the same in the compact format 2, as `--trace json-compact`
//! writes the trace), `evaltrace` (the traced evaluation alone, nothing
//! written: what tracing costs before a byte of it) or
//! `parse` (each line only read into a `CaseText` and dropped: the case
//! reader's own cost), and again
//! with `PASSES` 0: the difference, over the lines times the passes, is the
//! instruction count of one line.

use std::path::PathBuf;
use std::process::ExitCode;

use bareme::unstable::case::CaseText;
use bareme::unstable::evaluation::{evaluate_text, write_evaluation};
use bareme::unstable::outcome::{outcome_json, write_outcome, write_traced, write_traced_compact};
use bareme::{evaluate_value, load_rulebook};

/// The allocator `bareme` runs with (src/main.rs), so the counts are the CLI's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [rulebook, cases, road, passes] = args.as_slice() else {
        eprintln!(
            "usage: read_profile RULEBOOK CASES.jsonl value|flat|written|traced|compact|evaltrace|parse PASSES"
        );
        return ExitCode::FAILURE;
    };
    let Ok(passes) = passes.parse::<usize>() else {
        eprintln!("PASSES must be a whole number");
        return ExitCode::FAILURE;
    };
    let rb = match load_rulebook(&PathBuf::from(rulebook)) {
        Ok(rb) => rb,
        Err(e) => {
            eprintln!("{rulebook}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let text = match std::fs::read_to_string(cases) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("{cases}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (flat, written, traced) = match road.as_str() {
        "value" => (false, false, false),
        "flat" => (true, false, false),
        "written" => (true, true, false),
        "traced" | "compact" | "evaltrace" => (true, false, true),
        "parse" => (true, false, false),
        _ => {
            eprintln!("ROAD must be value, flat, written, traced, compact, evaltrace or parse");
            return ExitCode::FAILURE;
        }
    };
    let mut bytes = 0;
    if road == "parse" {
        // Each line read into a `CaseText` and dropped: the reader alone.
        for _ in 0..passes {
            for line in text.lines() {
                bytes += usize::from(std::hint::black_box(CaseText::parse(line)).is_some());
            }
        }
        println!("{bytes} lines read");
        return ExitCode::SUCCESS;
    }
    for _ in 0..passes {
        for line in text.lines() {
            let out = if written {
                let Some(case) = CaseText::parse(line) else {
                    continue;
                };
                let mut out = Vec::new();
                write_evaluation(&mut out, &rb, &case.without_envelope());
                out.len()
            } else if flat {
                let Some(case) = CaseText::parse(line) else {
                    continue;
                };
                let result = evaluate_text(&rb, &case.without_envelope(), traced);
                let mut out = Vec::new();
                match &result {
                    Ok((_, Some(_))) if road == "evaltrace" => {
                        std::hint::black_box(&result);
                    }
                    Ok((outcome, Some(trace))) if road == "compact" => {
                        write_traced_compact(&mut out, outcome, trace)
                            .expect("a trace within its bound")
                    }
                    Ok((outcome, Some(trace))) => {
                        write_traced(&mut out, outcome, trace).expect("a trace within its bound")
                    }
                    _ => write_outcome(&mut out, result.as_ref().map(|(o, _)| o)),
                }
                out.len()
            } else {
                let Ok(case) = serde_json::from_str::<serde_json::Value>(line) else {
                    continue;
                };
                let result = evaluate_value(&rb, &case, false);
                outcome_json(result.as_ref().map(|(o, _)| o))
                    .to_string()
                    .len()
            };
            bytes += out;
        }
    }
    println!("{bytes} bytes written");
    ExitCode::SUCCESS
}
