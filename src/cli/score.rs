//! `bareme score`: replies to a task file graded under a rubric, one JSON
//! line per reply in input order, and a summary on standard error.
//!
//! Tasks are read whole first (each must be written for the rubric's
//! rulebook, version and hash, and its `expected` must be the rulebook's own
//! outcome for its case); replies are then streamed in chunks, graded in
//! parallel and written in order. Exit codes: 0 every reply scored, 2 a file
//! that cannot be read, a bad task or reply line, a reply to an unknown task,
//! a task written for another rulebook (or an unwritable standard output),
//! 3 an invalid rubric or rulebook.

use rayon::prelude::*;
use rust_decimal::Decimal;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;
use std::path::Path;
use std::process::ExitCode;
use std::str::FromStr;

use bareme::coverage::{Task, MAX_TASK_BYTES};
use bareme::score::{load_rubric, number, reference_outcome, RubricError, Scorer};
use bareme::Rulebook;

use super::args::ScoreArgs;
use super::input::{next_line, BatchLine};
use super::output::Stdout;

/// Replies graded together before their lines are written.
const CHUNK: usize = 512;

/// Runs `bareme score`.
pub fn run(args: &ScoreArgs) -> ExitCode {
    let (rubric, rb) = match load_rubric(&args.rubric, args.rulebook.as_deref()) {
        Ok(pair) => pair,
        Err(RubricError::Invalid(diags)) => return super::invalid(&diags, None),
        Err(RubricError::Rulebook {
            source: bareme::LoadError::Invalid(diags),
            rubric,
        }) => return super::invalid(&diags, Some(&rubric)),
        Err(e) => {
            warn!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let scorer = Scorer::new(rubric, args.all_or_nothing);
    let tasks = match read_tasks(&args.tasks, &scorer, &rb, args.recompute_expected) {
        Ok(t) => t,
        Err(code) => return code,
    };
    if let Some(jobs) = args.jobs {
        // A pool already built (never, in this binary) keeps its size.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs.max(1))
            .build_global();
    }
    grade_replies(args, &scorer, &tasks)
}

/// Every line of a file, or of standard input for `-`, with its number;
/// `f` gets each non-blank line's text.
pub(super) fn each_line(
    path: &Path,
    mut f: impl FnMut(usize, &str) -> Result<(), String>,
) -> Result<(), ExitCode> {
    let mut reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        match std::fs::File::open(path) {
            Ok(file) => Box::new(std::io::BufReader::new(file)),
            Err(e) => {
                warn!("error: cannot read {}: {e}", path.display());
                return Err(ExitCode::from(2));
            }
        }
    };
    let mut buf = Vec::new();
    let mut number = 0usize;
    loop {
        number += 1;
        let fail = |message: &str| {
            warn!("error: {}, line {number}: {message}", path.display());
            ExitCode::from(2)
        };
        let line = match next_line(&mut *reader, MAX_TASK_BYTES, &mut buf) {
            Ok(None) => return Ok(()),
            Ok(Some(BatchLine::TooLong)) => {
                return Err(fail(&format!(
                    "the line is longer than the limit of {MAX_TASK_BYTES} bytes"
                )))
            }
            Ok(Some(BatchLine::Fits(line))) => line,
            Err(e) => {
                warn!("error: reading {}: {e}", path.display());
                return Err(ExitCode::from(2));
            }
        };
        let text = std::str::from_utf8(line).map_err(|e| {
            fail(&format!(
                "the line is not UTF-8 text: invalid byte at offset {}",
                e.valid_up_to()
            ))
        })?;
        if text.trim().is_empty() {
            continue;
        }
        f(number, text).map_err(|e| fail(&e))?;
    }
}

/// The tasks by id, each checked against the rubric's rulebook.
fn read_tasks(
    path: &Path,
    scorer: &Scorer,
    rb: &Rulebook,
    recompute: bool,
) -> Result<HashMap<String, Task>, ExitCode> {
    let mut tasks = HashMap::new();
    let mut changed = Vec::new();
    each_line(path, |_, text| {
        let mut task = Task::from_json(text)?;
        if recompute && scorer.same_version(&task) {
            let now = reference_outcome(rb, &task.case);
            if now != task.expected {
                changed.push(task.id.clone());
                task.expected = now;
            }
            task.hash = rb.hash().to_string();
        }
        scorer.check_task(&task)?;
        if !recompute {
            let actual = reference_outcome(rb, &task.case);
            if actual != task.expected {
                return Err(format!(
                    "task {}: `expected` is not what {} gives for its case (--recompute-expected re-derives it)",
                    task.id,
                    rb.reference()
                ));
            }
        }
        if tasks.contains_key(&task.id) {
            return Err(format!("task {} appears twice", task.id));
        }
        tasks.insert(task.id.clone(), task);
        Ok(())
    })?;
    if recompute {
        warn!(
            "{} task(s) whose expected answer changed under {}{}",
            changed.len(),
            rb.reference(),
            if changed.is_empty() {
                String::new()
            } else {
                format!(": {}", changed.join(", "))
            }
        );
    }
    if tasks.is_empty() {
        warn!("error: {} holds no task", path.display());
        return Err(ExitCode::from(2));
    }
    Ok(tasks)
}

/// One line of the replies file, read.
struct ReplyLine {
    id: String,
    reply: Option<String>,
    grade: Option<Decimal>,
}

fn parse_reply_line(text: &str) -> Result<ReplyLine, String> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("the line is not JSON: {e}"))?;
    let Value::Object(o) = value else {
        return Err(
            "a reply line is a JSON object {\"id\", \"reply\", \"explanation_grade\"?}".into(),
        );
    };
    let id = match o.get("id") {
        Some(Value::String(s)) => s.clone(),
        _ => return Err("the line has no string `id`".into()),
    };
    let reply = match o.get("reply") {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    };
    let grade = match o.get("explanation_grade") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => Some(
            Decimal::from_str(&n.to_string())
                .or_else(|_| Decimal::from_scientific(&n.to_string()))
                .map_err(|_| format!("reply {id}: `explanation_grade` {n} is not a grade"))?,
        ),
        Some(_) => {
            return Err(format!(
                "reply {id}: `explanation_grade` is a number in [0, 1]"
            ))
        }
    };
    Ok(ReplyLine { id, reply, grade })
}

/// Means per tier, per level and overall.
#[derive(Default)]
struct Summary {
    all: (Decimal, usize),
    malformed: usize,
    tiers: BTreeMap<String, (Decimal, usize)>,
    levels: BTreeMap<i64, (Decimal, usize)>,
}

impl Summary {
    fn add(&mut self, task: &Task, score: Decimal, malformed: bool) {
        let bump = |e: &mut (Decimal, usize)| {
            e.0 += score;
            e.1 += 1;
        };
        bump(&mut self.all);
        self.malformed += usize::from(malformed);
        if let Some(t) = &task.tier {
            bump(self.tiers.entry(t.clone()).or_default());
        }
        if let Some(l) = task.level {
            bump(self.levels.entry(l).or_default());
        }
    }

    fn mean((sum, n): (Decimal, usize)) -> Decimal {
        if n == 0 {
            Decimal::ZERO
        } else {
            (sum / Decimal::from(n as u64)).round_dp(6)
        }
    }

    fn to_json(&self, scorer: &Scorer) -> Value {
        let group = |m: Map<String, Value>| Value::Object(m);
        let tiers = self
            .tiers
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    json!({"replies": v.1, "mean": number(Self::mean(*v))}),
                )
            })
            .collect();
        let levels = self
            .levels
            .iter()
            .map(|(k, v)| {
                (
                    k.to_string(),
                    json!({"replies": v.1, "mean": number(Self::mean(*v))}),
                )
            })
            .collect();
        json!({
            "rubric": scorer.rubric().name,
            "rulebook": scorer.rubric().rulebook(),
            "replies": self.all.1,
            "malformed": self.malformed,
            "mean": number(Self::mean(self.all)),
            "tiers": group(tiers),
            "levels": group(levels),
        })
    }
}

fn grade_replies(args: &ScoreArgs, scorer: &Scorer, tasks: &HashMap<String, Task>) -> ExitCode {
    let mut out = Stdout::new();
    let mut summary = Summary::default();
    let mut chunk: Vec<ReplyLine> = Vec::with_capacity(CHUNK);
    let flush = |chunk: &mut Vec<ReplyLine>,
                 out: &mut Stdout,
                 summary: &mut Summary|
     -> Result<(), String> {
        let graded: Vec<Result<(String, Decimal, bool), String>> = chunk
            .par_iter()
            .map(|line| {
                let task = tasks
                    .get(&line.id)
                    .ok_or_else(|| format!("reply {}: no task has this id", line.id))?;
                let g = match &line.reply {
                    Some(reply) => scorer.score(task, reply, line.grade)?,
                    None => scorer.score_missing(task)?,
                };
                let mut m = Map::new();
                m.insert("id".into(), json!(line.id));
                if let Value::Object(rest) = g.to_json() {
                    m.extend(rest);
                }
                Ok((Value::Object(m).to_string(), g.score, g.malformed.is_some()))
            })
            .collect();
        for (line, res) in chunk.iter().zip(graded) {
            let (text, score, malformed) = res?;
            out.line(&text);
            if let Some(task) = tasks.get(&line.id) {
                summary.add(task, score, malformed);
            }
        }
        chunk.clear();
        Ok(())
    };
    let mut failed = false;
    let read = each_line(&args.replies, |_, text| {
        chunk.push(parse_reply_line(text)?);
        if chunk.len() == CHUNK {
            flush(&mut chunk, &mut out, &mut summary)?;
        }
        Ok(())
    });
    if read.is_err() {
        failed = true;
    } else if let Err(e) = flush(&mut chunk, &mut out, &mut summary) {
        warn!("error: {}: {e}", args.replies.display());
        failed = true;
    }
    let s = summary.to_json(scorer);
    for line in summary_text(&s).lines() {
        warn!("{line}");
    }
    if let Some(path) = &args.summary {
        if let Err(e) = std::fs::write(path, format!("{s}\n")) {
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
    let mut text = format!(
        "{} on {}: {} replies, mean {}, {} malformed",
        s["rubric"].as_str().unwrap_or(""),
        s["rulebook"].as_str().unwrap_or(""),
        s["replies"],
        s["mean"],
        s["malformed"]
    );
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
