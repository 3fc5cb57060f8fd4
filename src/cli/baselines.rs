//! `bareme baselines`: every scripted strategy's replies to a task set,
//! graded under one rubric, with its mean overall, per tier and per level:
//! the table a rubric designer reads before trusting a rubric.
//!
//! Exit codes: 0, 2 a file or line that cannot be read or a task refused
//! (as `bareme score`), 3 an invalid rubric or rulebook.

use serde_json::{json, Value};
use std::io::Write;
use std::process::ExitCode;

use bareme::unstable::score::{number, Baselines, Means, Scorer};
use bareme::unstable::tasks::Task;

use super::args::{BaselinesArgs, ReportFormat};
use super::output::{clobbers, clobbers_rulebook, OutFile, Stdout};
use super::table;
use super::taskfile::{load_scorer, read_tasks, set_jobs};

/// Runs `bareme baselines`.
pub fn run(args: &BaselinesArgs) -> ExitCode {
    if let Some(out) = &args.replies_out {
        let inputs = [args.rubric.as_path(), args.tasks.as_path()];
        if let Some(why) = clobbers(&[("--replies-out", out)], &inputs) {
            warn!("error: {why}");
            return ExitCode::from(2);
        }
    }
    let (scorer, rb) = match load_scorer(&args.rubric, args.rulebook.as_deref(), false) {
        Ok(pair) => pair,
        Err(code) => return code,
    };
    if let Some(why) = args
        .replies_out
        .as_deref()
        .and_then(|out| clobbers_rulebook(&[("--replies-out", out)], &rb))
    {
        warn!("error: {why}");
        return ExitCode::from(2);
    }
    let tasks: Vec<Task> = match read_tasks(&args.tasks, &scorer, &rb, false) {
        Ok(t) => t.into_values().collect(),
        Err(code) => return code,
    };
    set_jobs(args.jobs);
    let baselines = Baselines::with_rulebook(scorer.rubric(), &rb, &tasks);
    let total = (baselines.strategies().len() * tasks.len()) as u64;
    let bar = super::progress::bar("replies graded", Some(total));
    let measured = baselines.measure_with(&scorer, &tasks, &|n| bar.inc(n));
    bar.finish_and_clear();
    let means = match measured {
        Ok(m) => m,
        Err(e) => {
            warn!("error: {}: {e}", args.tasks.display());
            return ExitCode::from(2);
        }
    };
    // Written once the strategies are measured: a failed run leaves the file as it was.
    if let Some(path) = &args.replies_out {
        if let Err(e) = write_replies(path, &scorer, &baselines, &tasks) {
            warn!("error: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    let mut out = Stdout::new();
    match args.format {
        ReportFormat::Json => out.line(&report_json(&scorer, &baselines, &means).to_string()),
        ReportFormat::Text => {
            out.line(&format!(
                "scripted strategies under {} on {} ({} tasks; * a constant reply)",
                scorer.rubric().name,
                scorer.rubric().rulebook(),
                tasks.len()
            ));
            out.line(&report_text(&baselines, &means));
            out.line("best exploit (a strategy that reads no reference) per group:");
            for (group, strategy, mean) in baselines.best_exploits(&means) {
                out.line(&format!(
                    "  {group}: {} ({})",
                    strategy.name,
                    table::mean(mean)
                ));
            }
        }
    }
    out.finish(ExitCode::SUCCESS)
}

/// Every strategy's reply to every task, as a replies file `bareme score`
/// and `bareme rescore` read (`strategy` names the strategy).
fn write_replies(
    path: &std::path::Path,
    scorer: &Scorer,
    baselines: &Baselines,
    tasks: &[Task],
) -> std::io::Result<()> {
    let mut file = OutFile::create(path)?;
    for strategy in baselines.strategies() {
        for task in tasks {
            if let Some(reply) = baselines.reply(scorer.rubric(), strategy, task) {
                let line = json!({"id": task.id, "strategy": strategy.name, "reply": reply});
                writeln!(file, "{line}")?;
            }
        }
    }
    file.commit()
}

/// The table: a row per strategy, its mean and each group's.
fn report_text(baselines: &Baselines, means: &[Means]) -> String {
    let groups: Vec<String> = means
        .first()
        .map(|m| m.groups().into_iter().map(|(label, _)| label).collect())
        .unwrap_or_default();
    let mut header = vec!["strategy".to_string()];
    header.extend(
        groups
            .iter()
            .map(|g| if g == "all" { "mean".into() } else { g.clone() }),
    );
    let rows: Vec<Vec<String>> = baselines
        .strategies()
        .iter()
        .zip(means)
        .map(|(s, m)| {
            let name = if s.constant {
                format!("{} *", s.name)
            } else {
                s.name.clone()
            };
            let mut row = vec![name];
            row.extend(m.groups().into_iter().map(|(_, t)| table::mean(t.mean())));
            row
        })
        .collect();
    table::render(&header, &rows)
}

/// `{"rubric", "rulebook", "tasks", "strategies": [{"name", "constant", "exploit", "replies",
/// "mean", "tiers", "levels"}], "best_exploits": [{"group", "name", "mean"}]}`.
fn report_json(scorer: &Scorer, baselines: &Baselines, means: &[Means]) -> Value {
    let strategies: Vec<Value> = baselines
        .strategies()
        .iter()
        .zip(means)
        .map(|(s, m)| {
            let mut v = json!({"name": s.name, "constant": s.constant, "exploit": s.exploit});
            if let (Value::Object(o), Value::Object(rest)) = (&mut v, m.to_json()) {
                o.extend(rest);
            }
            v
        })
        .collect();
    json!({
        "rubric": scorer.rubric().name,
        "rulebook": scorer.rubric().rulebook(),
        "tasks": means.first().map_or(0, |m| m.all.n),
        "strategies": strategies,
        "best_exploits": baselines
            .best_exploits(means)
            .into_iter()
            .map(|(group, s, mean)| json!({"group": group, "name": s.name, "mean": number(mean)}))
            .collect::<Vec<_>>(),
    })
}
