//! Task and reply files as `score`, `rescore` and `baselines` read them:
//! JSON Lines, each line capped and UTF-8-checked, tasks checked against a
//! rubric's rulebook before any reply is graded.

use indexmap::IndexMap;
use rust_decimal::Decimal;
use serde_json::Value;
use std::io::BufRead;
use std::path::Path;
use std::process::ExitCode;
use std::str::FromStr;

use bareme::coverage::{Task, MAX_TASK_BYTES};
use bareme::score::{load_rubric, reference_outcome, RubricError, Scorer};
use bareme::Rulebook;

use super::input::{next_line, BatchLine};

/// Loads a rubric and its rulebook, or prints why not and gives the exit code.
pub(super) fn load_scorer(
    rubric: &Path,
    rulebook: Option<&Path>,
    all_or_nothing: bool,
) -> Result<(Scorer, Rulebook), ExitCode> {
    match load_rubric(rubric, rulebook) {
        Ok((rubric, rb)) => Ok((Scorer::new(rubric, all_or_nothing), rb)),
        Err(RubricError::Invalid(diags)) => Err(super::invalid(&diags, None)),
        Err(RubricError::Rulebook {
            source: bareme::LoadError::Invalid(diags),
            rubric,
        }) => Err(super::invalid(&diags, Some(&rubric))),
        Err(e) => {
            warn!("error: {e}");
            Err(ExitCode::from(2))
        }
    }
}

/// Sets the size of the worker pool when asked.
pub(super) fn set_jobs(jobs: Option<usize>) {
    if let Some(jobs) = jobs {
        // A pool already built (never, in this binary) keeps its size.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs.max(1))
            .build_global();
    }
}

/// Why reading a file of lines stops early.
pub(super) enum Stop {
    /// A bad line: printed with the file and line number, exit 2.
    Line(String),
    /// Already reported (a rulebook's diagnostics): this exit code.
    Exit(ExitCode),
}

impl From<String> for Stop {
    fn from(message: String) -> Stop {
        Stop::Line(message)
    }
}

/// Every line of a file, or of standard input for `-`, with its number;
/// `f` gets each non-blank line's text.
pub(super) fn each_line(
    path: &Path,
    mut f: impl FnMut(usize, &str) -> Result<(), Stop>,
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
        f(number, text).map_err(|e| match e {
            Stop::Line(message) => fail(&message),
            Stop::Exit(code) => code,
        })?;
    }
}

/// The tasks by id, each checked against the rubric's rulebook.
pub(super) fn read_tasks(
    path: &Path,
    scorer: &Scorer,
    rb: &Rulebook,
    recompute: bool,
) -> Result<IndexMap<String, Task>, ExitCode> {
    let mut tasks = IndexMap::new();
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
                )
                .into());
            }
        }
        if tasks.contains_key(&task.id) {
            return Err(format!("task {} appears twice", task.id).into());
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
pub(super) struct ReplyLine {
    pub id: String,
    pub reply: Option<String>,
    pub grade: Option<Decimal>,
    /// `strategy`, on the lines `bareme baselines --replies-out` writes.
    pub strategy: Option<String>,
}

pub(super) fn parse_reply_line(text: &str) -> Result<ReplyLine, String> {
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
    let strategy = o
        .get("strategy")
        .and_then(Value::as_str)
        .map(str::to_string);
    Ok(ReplyLine {
        id,
        reply,
        grade,
        strategy,
    })
}
