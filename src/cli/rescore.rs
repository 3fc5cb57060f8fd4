//! `bareme rescore`: the same replies graded under several rubric versions
//! side by side, so a change of rubric is judged on real replies before it
//! is adopted. Replies written by `bareme baselines --replies-out` carry
//! their strategy, and are then also compared strategy by strategy.
//!
//! Every rubric must grade the tasks' rulebook version and hash: a task is
//! checked against each, never scored by a rubric written for another
//! version. Exit codes as `bareme score`.

use indexmap::IndexMap;
use rust_decimal::Decimal;
use serde_json::{json, Map, Value};
use std::process::ExitCode;

use bareme::unstable::score::{Means, ScoreError, Scorer};
use bareme::unstable::tasks::Task;

use super::args::{ReportFormat, RescoreArgs};
use super::grading::in_file_order;
use super::output::Stdout;
use super::table;
use super::taskfile::{load_scorer, open, read_tasks};

/// The means of every rubric, overall and per strategy.
pub(super) struct Rescored {
    /// One per rubric, in the order given.
    pub means: Vec<Means>,
    /// Per strategy (in order of first appearance), one per rubric.
    pub strategies: IndexMap<String, Vec<Means>>,
}

/// Runs `bareme rescore`.
pub fn run(args: &RescoreArgs) -> ExitCode {
    if let Err(code) = super::taskfile::one_stdin(&args.tasks, &args.replies) {
        return code;
    }
    let mut scorers = Vec::new();
    for path in &args.rubric {
        match load_scorer(path, args.rulebook.as_deref(), false) {
            Ok(pair) => scorers.push(pair),
            Err(code) => return code,
        }
    }
    let Some((first, rb)) = scorers.first() else {
        warn!("error: rescore needs at least one --rubric");
        return ExitCode::from(2);
    };
    // The report keys each rubric's results by its name: two of one name
    // (a rubric and an edited copy) would show one's numbers as both.
    for (i, (s, _)) in scorers.iter().enumerate() {
        let name = &s.rubric().name;
        if scorers[..i].iter().any(|(t, _)| t.rubric().name == *name) {
            warn!(
                "error: two rubrics are named {name} (one rulebook, one number): number the copy apart to compare them"
            );
            return ExitCode::from(2);
        }
    }
    let tasks = match read_tasks(&args.tasks, first, rb, false) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let scorers: Vec<Scorer> = scorers.into_iter().map(|(s, _)| s).collect();
    for scorer in &scorers[1..] {
        for task in tasks.values() {
            if let Err(e) = scorer.check_task(task) {
                warn!("error: {}: {e}", args.tasks.display());
                return ExitCode::from(2);
            }
        }
    }
    let rescored = match rescore(&args.replies, &scorers, &tasks, args.jobs) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let mut out = Stdout::new();
    match args.format {
        ReportFormat::Json => out.line(&report_json(&scorers, &rescored).to_string()),
        ReportFormat::Text => out.line(&report_text(&scorers, &rescored)),
    }
    out.finish(ExitCode::SUCCESS)
}

/// Grades every reply of the file under every scorer.
pub(super) fn rescore(
    replies: &std::path::Path,
    scorers: &[Scorer],
    tasks: &IndexMap<String, Task>,
    jobs: Option<usize>,
) -> Result<Rescored, ExitCode> {
    let mut r = Rescored {
        means: vec![Means::default(); scorers.len()],
        strategies: IndexMap::new(),
    };
    let mut file = open(replies)?;
    in_file_order(
        Some(replies),
        tasks,
        file.replies(),
        jobs,
        |task, line| {
            scorers
                .iter()
                .map(|s| Ok(s.grade_line(task, line)?.score))
                .collect::<Result<Vec<Decimal>, ScoreError>>()
        },
        |task, line, scores| {
            for (m, s) in r.means.iter_mut().zip(&scores) {
                m.add(task, *s);
            }
            if let Some(name) = line.strategy {
                let per = r
                    .strategies
                    .entry(name)
                    .or_insert_with(|| vec![Means::default(); scorers.len()]);
                for (m, s) in per.iter_mut().zip(&scores) {
                    m.add(task, *s);
                }
            }
            Ok(())
        },
    )?;
    Ok(r)
}

/// A rubric's short name in a column: `rubric-8`.
fn column(scorer: &Scorer) -> String {
    let name = &scorer.rubric().name;
    name.rsplit('/').next().unwrap_or(name).to_string()
}

fn report_text(scorers: &[Scorer], r: &Rescored) -> String {
    let mut header = vec!["replies".to_string()];
    header.extend(scorers.iter().map(column));
    let groups = r.means.first().map(Means::groups).unwrap_or_default();
    let rows: Vec<Vec<String>> = groups
        .iter()
        .enumerate()
        .map(|(i, (label, tally))| {
            let mut row = vec![format!("{label} ({})", tally.n)];
            row.extend(r.means.iter().map(|m| table::mean(m.groups()[i].1.mean())));
            row
        })
        .collect();
    let mut text = format!(
        "mean score per rubric on {}\n{}",
        scorers
            .first()
            .map(|s| s.rubric().rulebook())
            .unwrap_or_default(),
        table::render(&header, &rows)
    );
    if !r.strategies.is_empty() {
        header[0] = "strategy".into();
        let rows: Vec<Vec<String>> = r
            .strategies
            .iter()
            .map(|(name, per)| {
                let mut row = vec![name.clone()];
                row.extend(per.iter().map(|m| table::mean(m.all.mean())));
                row
            })
            .collect();
        text.push_str("\n\n");
        text.push_str(&table::render(&header, &rows));
    }
    text
}

/// `{"rulebook", "rubrics": [...], "means": {rubric: means}, "strategies": {name: {rubric: means}}}`.
fn report_json(scorers: &[Scorer], r: &Rescored) -> Value {
    let by_rubric = |ms: &[Means]| -> Value {
        let m: Map<String, Value> = scorers
            .iter()
            .zip(ms)
            .map(|(s, m)| (s.rubric().name.clone(), m.to_json()))
            .collect();
        Value::Object(m)
    };
    let strategies: Map<String, Value> = r
        .strategies
        .iter()
        .map(|(name, per)| (name.clone(), by_rubric(per)))
        .collect();
    json!({
        "rulebook": scorers.first().map(|s| s.rubric().rulebook()),
        "rubrics": scorers.iter().map(|s| s.rubric().name.clone()).collect::<Vec<_>>(),
        "means": by_rubric(&r.means),
        "strategies": strategies,
    })
}
