//! `bareme diff RUBRIC_A RUBRIC_B [--tasks T] [--replies R]`: what a new
//! rubric version changes. Its settings by meaning (`score.wrong: 0 → -0.5`);
//! with tasks, each reply's change of score (the replies given, else the
//! scripted strategies' replies), the means per tier and level under both,
//! and which scripted strategies gain or lose.
//!
//! Both rubrics must grade the tasks' rulebook version and hash, as in
//! `bareme rescore`. Exit codes: 0, 2 a file or line that cannot be read or
//! a task refused, 3 an invalid rubric or rulebook.

use indexmap::IndexMap;
use rust_decimal::Decimal;
use serde_json::{json, Value};
use std::path::Path;
use std::process::ExitCode;

use bareme::unstable::score::{
    number, setting_changes, settings, Baselines, Means, ScoreError, Scorer, SettingChange,
};
use bareme::unstable::tasks::{ReplyLine, Task};

use super::args::DiffFormat;
use super::grading::in_file_order;
use super::output::Stdout;
use super::table;
use super::taskfile::{load_scorer, open, read_tasks};

/// Changed replies listed in text; JSON lists up to `MAX_LISTED`.
const SHOWN: usize = 20;
const MAX_LISTED: usize = 1000;

/// What `bareme diff` was given for two rubrics.
pub(super) struct RubricDiffArgs<'a> {
    pub old: &'a Path,
    pub new: &'a Path,
    pub tasks: Option<&'a Path>,
    pub replies: Option<&'a Path>,
    pub rulebook: Option<&'a Path>,
    pub format: DiffFormat,
}

/// One reply graded under both rubrics.
struct Moved {
    id: String,
    strategy: Option<String>,
    old: Decimal,
    new: Decimal,
}

/// The score side of the diff.
struct Scores {
    replies: usize,
    up: usize,
    down: usize,
    /// The first `MAX_LISTED` replies whose score moved, in input order.
    moved: Vec<Moved>,
    not_listed: usize,
    old: Means,
    new: Means,
    strategies: Vec<(String, Decimal, Decimal)>,
}

impl Scores {
    fn add(&mut self, task: &Task, line: ReplyLine, old: Decimal, new: Decimal) {
        self.replies += 1;
        self.old.add(task, old);
        self.new.add(task, new);
        if new == old {
            return;
        }
        if new > old {
            self.up += 1;
        } else {
            self.down += 1;
        }
        if self.moved.len() < MAX_LISTED {
            self.moved.push(Moved {
                id: line.id,
                strategy: line.strategy,
                old,
                new,
            });
        } else {
            self.not_listed += 1;
        }
    }
}

/// Runs the diff of two rubric files.
pub(super) fn run(args: &RubricDiffArgs) -> ExitCode {
    if let (Some(tasks), Some(replies)) = (args.tasks, args.replies) {
        if let Err(code) = super::taskfile::one_stdin(tasks, replies) {
            return code;
        }
    }
    let (old, rb) = match load_scorer(args.old, args.rulebook, false) {
        Ok(pair) => pair,
        Err(code) => return code,
    };
    let (new, _) = match load_scorer(args.new, args.rulebook, false) {
        Ok(pair) => pair,
        Err(code) => return code,
    };
    let changes = setting_changes(&settings(old.rubric()), &settings(new.rubric()));
    let scores = match args.tasks {
        None => None,
        Some(path) => {
            let tasks = match read_tasks(path, &old, &rb, false) {
                Ok(t) => t,
                Err(code) => return code,
            };
            for task in tasks.values() {
                if let Err(e) = new.check_task(task) {
                    warn!("error: {}: {e}", path.display());
                    return ExitCode::from(2);
                }
            }
            match score(&old, &new, &tasks, args.replies) {
                Ok(s) => Some(s),
                Err(code) => return code,
            }
        }
    };
    let mut out = Stdout::new();
    match args.format {
        DiffFormat::Json => {
            out.line(&report_json(&old, &new, &changes, scores.as_ref()).to_string())
        }
        DiffFormat::Text => out.line(&report_text(&old, &new, &changes, scores.as_ref(), false)),
        DiffFormat::Markdown => out.line(&report_text(&old, &new, &changes, scores.as_ref(), true)),
    }
    out.finish(ExitCode::SUCCESS)
}

fn score(
    old: &Scorer,
    new: &Scorer,
    tasks: &IndexMap<String, Task>,
    replies: Option<&Path>,
) -> Result<Scores, ExitCode> {
    let list: Vec<Task> = tasks.values().cloned().collect();
    let fail = |e: ScoreError| {
        warn!("error: {e}");
        ExitCode::from(2)
    };
    let b_old = Baselines::new(old.rubric(), &list);
    let b_new = Baselines::new(new.rubric(), &list);
    let m_old = b_old.measure(old, &list).map_err(fail)?;
    let m_new = b_new.measure(new, &list).map_err(fail)?;
    let strategies = b_old
        .strategies()
        .iter()
        .zip(&m_old)
        .filter_map(|(s, m)| {
            let i = b_new.strategies().iter().position(|t| t.name == s.name)?;
            Some((s.name.clone(), m.all.mean(), m_new[i].all.mean()))
        })
        .collect();
    let mut s = Scores {
        replies: 0,
        up: 0,
        down: 0,
        moved: Vec::new(),
        not_listed: 0,
        old: Means::default(),
        new: Means::default(),
        strategies,
    };
    let both = |task: &Task, line: &ReplyLine| -> Result<(Decimal, Decimal), ScoreError> {
        Ok((
            old.grade_line(task, line)?.score,
            new.grade_line(task, line)?.score,
        ))
    };
    let take = |task: &Task, line: ReplyLine, (o, n): (Decimal, Decimal)| {
        s.add(task, line, o, n);
        Ok(())
    };
    match replies {
        Some(path) => {
            let mut file = open(path)?;
            in_file_order(Some(path), tasks, file.replies(), None, both, take)?;
        }
        None => {
            let lines = b_old.strategies().iter().flat_map(|strategy| {
                list.iter().map(|t| {
                    Ok((
                        0,
                        ReplyLine {
                            id: t.id.clone(),
                            strategy: Some(strategy.name.clone()),
                            reply: b_old.reply(old.rubric(), strategy, t).into(),
                            grade: None,
                        },
                    ))
                })
            });
            in_file_order(None, tasks, lines, None, both, take)?;
        }
    }
    Ok(s)
}

fn change_line(c: &SettingChange) -> String {
    match (&c.old, &c.new) {
        (Some(o), Some(n)) => format!("  ~ {}: {o} → {n}", c.key),
        (Some(o), None) => format!("  - {}: {o}", c.key),
        (None, Some(n)) => format!("  + {}: {n}", c.key),
        (None, None) => format!("  {}", c.key),
    }
}

fn signed(d: Decimal) -> String {
    let d = d.round_dp(4).normalize();
    if d > Decimal::ZERO {
        format!("+{d}")
    } else {
        d.to_string()
    }
}

/// The report for people: plain text, or Markdown (`md`).
fn report_text(
    old: &Scorer,
    new: &Scorer,
    changes: &[SettingChange],
    scores: Option<&Scores>,
    md: bool,
) -> String {
    let render = if md { table::markdown } else { table::render };
    let mut text = if md {
        format!(
            "## `{}` → `{}`\n\nSettings: {} changed\n",
            old.rubric().name,
            new.rubric().name,
            changes.len()
        )
    } else {
        format!(
            "{} → {}\nsettings: {} changed",
            old.rubric().name,
            new.rubric().name,
            changes.len()
        )
    };
    for c in changes {
        text.push('\n');
        if md {
            text.push_str(&format!("- `{}`", change_line(c).trim()));
        } else {
            text.push_str(&change_line(c));
        }
    }
    let Some(s) = scores else {
        return text;
    };
    text.push_str(&format!(
        "\n\nreplies: {}, {} scored higher, {} lower, {} the same",
        s.replies,
        s.up,
        s.down,
        s.replies - s.up - s.down
    ));
    let header: Vec<String> = ["replies", "old", "new", "change"]
        .iter()
        .map(|h| h.to_string())
        .collect();
    let rows: Vec<Vec<String>> = s
        .old
        .groups()
        .into_iter()
        .zip(s.new.groups())
        .map(|((label, o), (_, n))| {
            vec![
                format!("{label} ({})", o.n),
                table::mean(o.mean()),
                table::mean(n.mean()),
                signed(n.mean() - o.mean()),
            ]
        })
        .collect();
    text.push_str(if md { "\n\n" } else { "\n" });
    text.push_str(&render(&header, &rows));
    if !s.moved.is_empty() {
        text.push_str(&format!(
            "\n\nreplies whose score moved (the first {}):",
            SHOWN.min(s.moved.len())
        ));
        for m in s.moved.iter().take(SHOWN) {
            let by = m
                .strategy
                .as_ref()
                .map(|st| format!(" [{st}]"))
                .unwrap_or_default();
            let bullet = if md { "- " } else { "  " };
            text.push_str(&format!(
                "\n{bullet}{}{by}: {} → {}",
                m.id,
                m.old.normalize(),
                m.new.normalize()
            ));
        }
    }
    let header: Vec<String> = ["strategy", "old", "new", "change"]
        .iter()
        .map(|h| h.to_string())
        .collect();
    let rows: Vec<Vec<String>> = s
        .strategies
        .iter()
        .map(|(name, o, n)| {
            let verdict = match n.cmp(o) {
                std::cmp::Ordering::Greater => "gains",
                std::cmp::Ordering::Less => "loses",
                std::cmp::Ordering::Equal => "",
            };
            vec![
                name.clone(),
                table::mean(*o),
                table::mean(*n),
                format!("{} {verdict}", signed(*n - *o))
                    .trim_end()
                    .to_string(),
            ]
        })
        .collect();
    text.push_str("\n\nscripted strategies (bareme baselines) under each rubric:\n");
    if md {
        text.push('\n');
    }
    text.push_str(&render(&header, &rows));
    text
}

/// `{"old", "new", "rulebook", "settings", "scores"?}`; see docs/diffing.md.
fn report_json(
    old: &Scorer,
    new: &Scorer,
    changes: &[SettingChange],
    scores: Option<&Scores>,
) -> Value {
    let settings: Vec<Value> = changes
        .iter()
        .map(|c| json!({"key": c.key, "old": c.old, "new": c.new}))
        .collect();
    let mut v = json!({
        "old": old.rubric().name,
        "new": new.rubric().name,
        "rulebook": new.rubric().rulebook(),
        "settings": settings,
    });
    if let Some(s) = scores {
        let moved: Vec<Value> = s
            .moved
            .iter()
            .map(|m| {
                json!({"id": m.id, "strategy": m.strategy, "old": number(m.old), "new": number(m.new)})
            })
            .collect();
        let strategies: Vec<Value> = s
            .strategies
            .iter()
            .map(|(name, o, n)| {
                json!({"name": name, "old": number(*o), "new": number(*n), "change": number(*n - *o)})
            })
            .collect();
        v["scores"] = json!({
            "replies": s.replies,
            "higher": s.up,
            "lower": s.down,
            "old": s.old.to_json(),
            "new": s.new.to_json(),
            "moved": moved,
            "moved_not_listed": s.not_listed,
            "strategies": strategies,
        });
    }
    v
}
