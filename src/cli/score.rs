//! `bareme score`: replies to a task file graded under a rubric, one JSON
//! line per reply in input order, and a summary on standard error.
//!
//! Tasks are read whole first (each must be written for the rubric's
//! rulebook, version and hash, and its `expected` must be the rulebook's own
//! outcome for its case); replies are then streamed in chunks, graded in
//! parallel and written in order (`bareme::unstable::score::grade_in_order`). Exit codes: 0 every reply scored, 2 a file
//! that cannot be read, a bad task or reply line, a reply to an unknown task,
//! a task written for another rulebook (or an unwritable standard output),
//! 3 an invalid rubric or rulebook.

use indexmap::IndexMap;
use rust_decimal::Decimal;
use serde_json::{json, Map, Value};
use std::process::ExitCode;

use bareme::unstable::score::{Means, Scorer};
use bareme::unstable::tasks::Task;

use super::args::ScoreArgs;
use super::closing;
use super::grading::in_file_order;
use super::output::{clobbers, clobbers_rulebook, write_file, Stdout};
use super::taskfile::{load_scorer, open, read_tasks};

/// Runs `bareme score`.
pub fn run(args: &ScoreArgs) -> ExitCode {
    if let Err(code) = super::taskfile::one_stdin(&args.tasks, &args.replies) {
        return code;
    }
    if let Some(out) = &args.summary {
        let inputs = [
            args.rubric.as_path(),
            args.tasks.as_path(),
            args.replies.as_path(),
        ];
        if let Some(why) = clobbers(&[("--summary", out)], &inputs) {
            warn!("error: {why}");
            return ExitCode::from(2);
        }
    }
    if let Some(out) = &args.judge.verdicts {
        let inputs = [
            args.rubric.as_path(),
            args.tasks.as_path(),
            args.replies.as_path(),
        ];
        if let Some(why) = clobbers(&[("--verdicts", out)], &inputs) {
            warn!("error: {why}");
            return ExitCode::from(2);
        }
    }
    let (scorer, rb) =
        match load_scorer(&args.rubric, args.rulebook.as_deref(), args.all_or_nothing) {
            Ok(pair) => pair,
            Err(code) => return code,
        };
    if let Some(why) = args
        .summary
        .as_deref()
        .and_then(|out| clobbers_rulebook(&[("--summary", out)], &rb))
    {
        warn!("error: {why}");
        return ExitCode::from(2);
    }
    let scorer = match args.judge.attach(scorer) {
        Ok(scorer) => scorer,
        Err(code) => return code,
    };
    let tasks = match read_tasks(&args.tasks, &scorer, &rb, args.recompute_expected) {
        Ok(t) => t,
        Err(code) => return code,
    };
    grade_replies(args, &scorer, &tasks)
}

/// Means per tier, per level and overall, the malformed replies and the
/// explanations left ungraded (no grade given, no judge configured).
#[derive(Default)]
struct Summary {
    means: Means,
    malformed: usize,
    ungraded: usize,
}

impl Summary {
    fn add(&mut self, task: &Task, score: Decimal, malformed: bool, ungraded: bool) {
        self.means.add(task, score);
        self.malformed += usize::from(malformed);
        self.ungraded += usize::from(ungraded);
    }

    /// The summary; `ungraded` only under a rubric with an explanation rule.
    fn to_json(&self, scorer: &Scorer) -> Value {
        let means = self.means.to_json();
        let mut s = json!({
            "rubric": scorer.rubric().name,
            "rulebook": scorer.rubric().rulebook(),
            "replies": self.means.all.n,
            "malformed": self.malformed,
            "mean": means["mean"],
            "tiers": means["tiers"],
            "levels": means["levels"],
        });
        if scorer.rubric().score.explanation.is_some() {
            if let Value::Object(m) = &mut s {
                m.insert("ungraded".into(), json!(self.ungraded));
            }
        }
        s
    }
}

fn grade_replies(args: &ScoreArgs, scorer: &Scorer, tasks: &IndexMap<String, Task>) -> ExitCode {
    let mut out = Stdout::new();
    let mut summary = Summary::default();
    let mut unwritable = false;
    let graded = open(&args.replies).and_then(|mut file| {
        in_file_order(
            Some(&args.replies),
            tasks,
            file.replies(),
            args.jobs,
            |task, line| {
                let g = scorer.grade_line(task, line)?;
                let mut m = Map::new();
                m.insert("id".into(), json!(line.id));
                if let Value::Object(rest) = g.to_json() {
                    m.extend(rest);
                }
                let ungraded = g.explanation_graded == Some(false);
                Ok((
                    Value::Object(m).to_string(),
                    g.score,
                    g.malformed.is_some(),
                    ungraded,
                ))
            },
            |task, _, (text, score, malformed, ungraded)| {
                out.line(&text);
                summary.add(task, score, malformed, ungraded);
                // Nobody reads what follows an unwritable line; `finish`
                // says why.
                unwritable = out.failed();
                match unwritable {
                    true => Err(ExitCode::SUCCESS),
                    false => Ok(()),
                }
            },
        )
    });
    let mut failed = graded.is_err() && !unwritable;
    let s = summary.to_json(scorer);
    // The summary follows the grades written, never grades lost nor a run
    // that failed (its error said why): standard output is flushed first,
    // and an unwritable summary fails the run.
    out.flush();
    if !out.failed() && !failed {
        for line in summary_text(&s).lines() {
            if closing(line, ExitCode::SUCCESS) != ExitCode::SUCCESS {
                failed = true;
                break;
            }
        }
    }
    // A failed run (unwritable standard output included) leaves the
    // summary file as it was.
    if let Some(path) = args.summary.as_ref().filter(|_| !failed && !unwritable) {
        if let Err(e) = write_file(path, format!("{s}\n").as_bytes()) {
            warn!("error: cannot write {}: {e}", path.display());
            failed = true;
        }
    }
    out.finish(if failed {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

/// The summary as lines a person reads.
fn summary_text(s: &Value) -> String {
    let mean = match &s["mean"] {
        Value::Null => "none (no reply)".to_string(),
        m => m.to_string(),
    };
    let mut text = format!(
        "{} on {}: {} replies, mean {mean}, {} malformed",
        s["rubric"].as_str().unwrap_or(""),
        s["rulebook"].as_str().unwrap_or(""),
        s["replies"],
        s["malformed"]
    );
    if let Some(n) = s["ungraded"].as_u64() {
        // Explanations go ungraded only without a judge.
        let why = if n > 0 {
            " (no judge: deterministic part only)"
        } else {
            ""
        };
        text.push_str(&format!(", {n} explanations ungraded{why}"));
    }
    for (what, key) in [("tier", "tiers"), ("level", "levels")] {
        if let Some(m) = s[key].as_object() {
            for (k, v) in m {
                text.push_str(&format!(
                    "\n  {what} {k}: {} replies, mean {}",
                    v["replies"], v["mean"]
                ));
            }
        }
    }
    text
}
