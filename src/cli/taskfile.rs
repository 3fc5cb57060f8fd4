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

/// A file of lines, or standard input for `-`, read a line at a time: each
/// line capped and UTF-8-checked, blank lines skipped, faults reported with
/// the file and the line's number.
pub(super) struct LineFile<'p> {
    path: &'p Path,
    reader: Box<dyn BufRead + 'p>,
    buf: Vec<u8>,
    number: usize,
}

impl<'p> LineFile<'p> {
    pub(super) fn open(path: &'p Path) -> Result<Self, ExitCode> {
        let reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
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
        Ok(LineFile {
            path,
            reader,
            buf: Vec::new(),
            number: 0,
        })
    }

    /// The next non-blank line and its number, `None` at the end.
    pub(super) fn next_line(&mut self) -> Result<Option<(usize, &str)>, ExitCode> {
        let len = loop {
            self.number += 1;
            let number = self.number;
            let line = match next_line(&mut *self.reader, MAX_TASK_BYTES, &mut self.buf) {
                Ok(None) => return Ok(None),
                Ok(Some(BatchLine::TooLong)) => {
                    return Err(self.fail(
                        number,
                        &format!("the line is longer than the limit of {MAX_TASK_BYTES} bytes"),
                    ))
                }
                Ok(Some(BatchLine::Fits(line))) => line,
                Err(e) => {
                    warn!("error: reading {}: {e}", self.path.display());
                    return Err(ExitCode::from(2));
                }
            };
            match std::str::from_utf8(line) {
                Ok(text) if text.trim().is_empty() => continue,
                Ok(text) => break text.len(),
                Err(e) => {
                    let message = format!(
                        "the line is not UTF-8 text: invalid byte at offset {}",
                        e.valid_up_to()
                    );
                    return Err(self.fail(number, &message));
                }
            }
        };
        // Checked in the loop; read again here so that the loop's borrow of
        // the buffer ends before the line is lent to the caller.
        let text = std::str::from_utf8(&self.buf[..len]).map_err(|_| ExitCode::from(2))?;
        Ok(Some((self.number, text)))
    }

    /// Reports a fault of line `number`; the exit code is 2.
    pub(super) fn fail(&self, number: usize, message: &str) -> ExitCode {
        line_fault(self.path, number, message)
    }
}

/// Reports a fault of line `number` of `path`; the exit code is 2.
pub(super) fn line_fault(path: &Path, number: usize, message: &str) -> ExitCode {
    warn!("error: {}, line {number}: {message}", path.display());
    ExitCode::from(2)
}

/// The reply lines of a file, each with its number; a line that is no
/// reply ends them with its fault reported.
pub(super) fn reply_lines<'f, 'p: 'f>(
    file: &'f mut LineFile<'p>,
) -> impl Iterator<Item = Result<(usize, ReplyLine), ExitCode>> + use<'f, 'p> {
    let path = file.path;
    std::iter::from_fn(move || match file.next_line() {
        Ok(None) => None,
        Err(code) => Some(Err(code)),
        Ok(Some((number, text))) => Some(
            parse_reply_line(text)
                .map(|reply| (number, reply))
                .map_err(|message| line_fault(path, number, &message)),
        ),
    })
}

/// Every non-blank line of a file, or of standard input for `-`, with its
/// number, given to `f`.
pub(super) fn each_line(
    path: &Path,
    mut f: impl FnMut(usize, &str) -> Result<(), Stop>,
) -> Result<(), ExitCode> {
    let mut file = LineFile::open(path)?;
    while let Some((number, text)) = file.next_line()? {
        if let Err(e) = f(number, text) {
            return Err(match e {
                Stop::Line(message) => file.fail(number, &message),
                Stop::Exit(code) => code,
            });
        }
    }
    Ok(())
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
