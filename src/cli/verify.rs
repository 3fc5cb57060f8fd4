//! `bareme verify CANDIDATE --repair FILE [--format json] [--reveal]`: a
//! candidate rulebook scored against a repair task
//! (`bareme::unstable::repair::Verifier`, docs/repair.md).
//!
//! The candidate's file is read here with the task's byte cap (one byte
//! more is refused, never read on). What is printed is the reward, the
//! counts and each group's result; `--reveal` (evaluator-only) adds the
//! cases got wrong, with their expected answers.
//!
//! Exit codes: 0 a verdict (whatever the reward); 2 a repair file or a
//! candidate that cannot be read, or an unwritable standard output; 3 an
//! invalid repair file: its hidden cases cannot be drawn, its generator
//! does not load, a group selects nothing, or its reference fails it.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use super::args::ReportFormat;
use super::output::Stdout;
use bareme::unstable::outcome::outcome_json;
use bareme::unstable::repair::{load_repair, Refusal, RepairVerdict, Verifier};
use bareme::unstable::rulebook::load::{open_regular, read_capped, rulebook_file};

/// Arguments of `bareme verify`.
#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// The candidate: a rulebook folder or its TOML file.
    pub candidate: PathBuf,
    /// The repair task file (`rulebooks/sales-tax/repair-1.toml`).
    #[arg(long, value_name = "FILE")]
    pub repair: PathBuf,
    /// A line for people, or one JSON object.
    #[arg(long, value_enum, default_value = "text")]
    pub format: ReportFormat,
    /// Evaluator-only: also print the cases got wrong and their expected answers.
    #[arg(long)]
    pub reveal: bool,
}

/// Runs `bareme verify`.
pub fn run(args: &VerifyArgs) -> ExitCode {
    let (task, rb) = match load_repair(&args.repair, None) {
        Ok(loaded) => loaded,
        Err(e) => return super::taskfile::companion_failed(e),
    };
    let cap = task.caps.source_bytes;
    // A group no hidden case selects, or a reference that does not earn 1
    // under the file's own caps, is a fault of the repair file.
    let verifier = match Verifier::new(task, rb) {
        Ok(v) => v,
        Err(e) => {
            // The generator's own problems, as `bareme generate` shows
            // them, then what they mean for the repair file.
            if let Some(diags) = e.diagnostics() {
                warn_raw!("{}", diags.render(100, std::io::stderr().is_terminal()));
            }
            warn!("error: {e} [{}]", e.code());
            return ExitCode::from(3);
        }
    };
    let file = rulebook_file(&args.candidate);
    let read = open_regular(&file).and_then(|f| read_capped(f, cap as u64));
    let verdict = match read {
        Err(e) => {
            warn!("error: cannot read {}: {e}", file.display());
            return ExitCode::from(2);
        }
        Ok(None) => verifier.refuse(Refusal::of("cap::source_bytes")),
        Ok(Some(bytes)) => match String::from_utf8(bytes) {
            Ok(text) => verifier.verify_text(&text),
            Err(_) => verifier.refuse(Refusal::of("candidate::invalid")),
        },
    };
    let mut out = Stdout::new();
    match args.format {
        ReportFormat::Json => out.line(&json(&verifier, &verdict, args.reveal).to_string()),
        ReportFormat::Text => text(&mut out, &verifier, &verdict, args.reveal),
    }
    out.finish(ExitCode::SUCCESS)
}

fn json(verifier: &Verifier, verdict: &RepairVerdict, reveal: bool) -> serde_json::Value {
    let mut out = verdict.summary_json();
    if reveal {
        let failed: Vec<serde_json::Value> = verdict
            .failed
            .iter()
            .filter_map(|&i| verifier.cases.get(i).map(|c| (i, c)))
            .map(|(i, c)| {
                let mut failed = serde_json::json!({
                    "index": i,
                    "visible": c.visible,
                    "tags": c.tags,
                    "case": c.case,
                    "expected": outcome_json(Ok(&c.expected)),
                });
                // Only a task whose groups name readings measures them.
                if !c.readings.is_empty() {
                    failed["readings"] = c.readings.clone().into();
                }
                failed
            })
            .collect();
        out["failed"] = failed.into();
    }
    out
}

fn text(out: &mut Stdout, verifier: &Verifier, verdict: &RepairVerdict, reveal: bool) {
    let right = verdict.groups.values().filter(|r| **r).count();
    let mut line = format!(
        "reward {}: {}/{} cases, {}/{} groups",
        verdict.reward_text(),
        verdict.cases_passed,
        verdict.cases,
        right,
        verdict.groups.len()
    );
    if let Some(r) = &verdict.refusal {
        line.push_str(&format!(" (refused: {})", r.message()));
    }
    out.line(&line);
    for (name, ok) in &verdict.groups {
        out.line(&format!("  {} {name}", if *ok { "ok  " } else { "FAIL" }));
    }
    if reveal {
        // A block per case got wrong, what the JSON form gives of it: the
        // case, the reference's answer, and the tags and readings it has.
        for &i in &verdict.failed {
            if let Some(c) = verifier.cases.get(i) {
                out.line(&format!(
                    "  wrong case {i}{}: {}",
                    c.visible
                        .as_deref()
                        .map(|v| format!(" ({v})"))
                        .unwrap_or_default(),
                    c.case
                ));
                out.line(&format!("    expected: {}", outcome_json(Ok(&c.expected))));
                if !c.tags.is_empty() {
                    out.line(&format!("    tags: {}", c.tags.join(", ")));
                }
                if !c.readings.is_empty() {
                    out.line(&format!("    readings: {}", c.readings.join(", ")));
                }
            }
        }
    }
}
