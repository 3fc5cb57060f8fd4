//! Rubrics and scores: a model's reply to a task, graded against the task's
//! reference answer under a declarative, versioned rubric.
//!
//! A rubric file (`rulebooks/<id>/rubric-<n>.toml`) names the rulebook
//! `id@version` it grades and is checked against it at load (`load`): the
//! answer contract (where the JSON stands, its exact keys per decision, each
//! value's format, size limits) and the score (floors, the exact score,
//! citations, gates, weights, caps, an all-or-nothing option, an external
//! explanation grade). [`Scorer`] refuses a task written for another
//! rulebook version or hash, then grades a reply string (`grade`): the
//! reply is read by the strict parser of `crate::reply`, and every score
//! returns its components with the clauses that govern them. A task is a
//! `tasks::Task`, read from a task file (`taskset`: checked against the
//! rubric's rulebook) or drawn in process; replies are graded in parallel
//! and handed on in file order (`grading`).
//!
//! Invariant: nothing is scored against a rulebook version it was not
//! written for; no IO outside `load_rubric` (files are read from the
//! caller's readers); nothing in the rubric format
//! knows a rule set (payroll, tax, succession live in the rubric files).

mod baselines;
mod error;
mod fields;
mod grade;
mod grading;
mod judge;
mod load;
mod means;
mod model;
mod order;
mod raw;
mod read;
mod settings;
mod taskset;

use rust_decimal::Decimal;
use serde_json::Value;
use std::sync::Arc;

use grade::{grade_judged, GradeError};

pub use baselines::{Baselines, Strategy};
pub use error::ScoreError;
pub use grade::{
    grade, grade_malformed, number, Component, ExpectedError, Graded, EXPLANATION_KEY,
};
pub use grading::grade_in_order;
pub use judge::{Judge, JudgeError, JudgeRequest, Recorded, Verdict};
pub use load::{load_named_rubric, load_rubric, parse_rubric, RubricError};
pub use means::{Means, Tally};
pub use model::{
    DecisionRubric, Explanation, Field, FieldKind, FieldPath, Format, JsonKind, Partial, Rubric,
    ScoreRules,
};
pub use settings::{setting_changes, settings, Setting, SettingChange};
pub use taskset::{read_tasks, Fault, FileError, TaskSet};

use crate::evaluation::evaluate_value;
use crate::model::Rulebook;
use crate::outcome::outcome_json;
use crate::tasks::{ReplyLine, ReplyText, Task};

/// What the rulebook gives for a case, as a task's `expected` holds it: the
/// answer, or `{"error": {"path", "message"}}`.
pub fn reference_outcome(rb: &Rulebook, case: &Value) -> Value {
    let result = evaluate_value(rb, case, false);
    outcome_json(result.as_ref().map(|(o, _)| o))
}

/// Whether `task`'s `expected` is what `rb` gives for its case: a task is
/// trusted for nothing its rulebook can say itself (a forged `expected`
/// would otherwise be the answer replies are graded against).
pub fn expected_follows(rb: &Rulebook, task: &Task) -> bool {
    reference_outcome(rb, &task.case) == task.expected
}

/// Grades replies to tasks under one rubric.
///
/// ```
/// let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
/// let drawer = bareme::TaskDrawer::new(&generator, &rb)?;
/// let drawn = drawer.task(2026, 0, None)?;
/// let (rubric, _) = bareme::load_rubric("rulebooks/luma-payroll/rubric-8.toml".as_ref(), None)?;
/// let scorer = bareme::Scorer::new(rubric, false);
/// let reply = scorer.reference_reply(&drawn.task.expected);
/// assert_eq!(scorer.score(&drawn.task, &reply, None)?.score, scorer.score(&drawn.task, &reply, None)?.max);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Scorer {
    rubric: Rubric,
    judge: Option<Arc<dyn Judge>>,
}

impl Scorer {
    /// A scorer for a checked rubric; `all_or_nothing` forces the option on.
    ///
    /// ```
    /// # let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
    /// # let task = bareme::TaskDrawer::new(&generator, &rb)?.task(2026, 0, None)?.task;
    /// # let (rubric, _) = bareme::load_rubric("rulebooks/luma-payroll/rubric-8.toml".as_ref(), None)?;
    /// let scorer = bareme::Scorer::new(rubric, true);
    /// assert!(scorer.rubric().score.all_or_nothing);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(mut rubric: Rubric, all_or_nothing: bool) -> Scorer {
        rubric.score.all_or_nothing |= all_or_nothing;
        Scorer {
            rubric,
            judge: None,
        }
    }

    /// The same scorer asking `judge` for the grade of every non-empty
    /// explanation the rubric's explanation rule covers and no reply line
    /// grades. Without a judge such an explanation is reported ungraded
    /// (the deterministic part alone, `"explanation": "ungraded"`); an
    /// empty or missing one scores 0 and no judge is asked. Wrap a judge in
    /// [`Recorded`] to keep and replay its verdicts.
    ///
    /// ```
    /// use bareme::judge::{Judge, JudgeError, JudgeRequest, Verdict};
    /// #[derive(Debug)]
    /// struct Strict;
    /// impl Judge for Strict {
    ///     fn judge(&self, r: &JudgeRequest) -> Result<Verdict, JudgeError> {
    ///         let names = r.explanation.contains("month");
    ///         Ok(Verdict { identifies_blocker: names, requests_resolution: true, avoids_unsupported_answer: true })
    ///     }
    /// }
    /// let (rubric, rb) = bareme::load_rubric("rulebooks/luma-payroll/rubric-8.toml".as_ref(), None)?;
    /// let case = serde_json::json!({"task": "payslip", "gross_pay": "1000.00"});
    /// let expected = bareme::unstable::outcome::outcome_json(bareme::evaluate_value(&rb, &case, false).as_ref().map(|(o, _)| o));
    /// let task = bareme::Task::from_json(&serde_json::json!({"id": "t", "level": 1, "tier": "trap",
    ///     "rulebook": "luma-payroll@3", "rulebook_hash": rb.hash(), "case": case, "expected": expected}).to_string())?;
    /// let reply = r#"{"decision": "clarify", "reason_code": "MISSING_PAYROLL_MONTH", "clauses": ["R1", "R7"],
    ///     "explanation": "Which payroll month is this?"}"#;
    /// let plain = bareme::Scorer::new(rubric.clone(), false).score(&task, reply, None)?;
    /// assert_eq!((plain.score, plain.explanation_graded), ("1".parse()?, Some(false)));
    /// let judged = bareme::Scorer::new(rubric, false).with_judge(std::sync::Arc::new(Strict));
    /// let g = judged.score(&task, reply, None)?;
    /// // 0.9 × 1 + 0.1 × (3 of 3 criteria)
    /// assert_eq!((g.score.normalize(), g.explanation_graded), ("1".parse()?, Some(true)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_judge(mut self, judge: Arc<dyn Judge>) -> Scorer {
        self.judge = Some(judge);
        self
    }

    /// The rubric.
    ///
    /// ```
    /// # let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
    /// # let task = bareme::TaskDrawer::new(&generator, &rb)?.task(2026, 0, None)?.task;
    /// # let (rubric, _) = bareme::load_rubric("rulebooks/luma-payroll/rubric-8.toml".as_ref(), None)?;
    /// let scorer = bareme::Scorer::new(rubric, false);
    /// assert_eq!(scorer.rubric().rulebook(), "luma-payroll@3");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn rubric(&self) -> &Rubric {
        &self.rubric
    }

    /// Refuses a task written for another rulebook, version or hash than the rubric's.
    ///
    /// ```
    /// # let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
    /// # let task = bareme::TaskDrawer::new(&generator, &rb)?.task(2026, 0, None)?.task;
    /// # let (rubric, _) = bareme::load_rubric("rulebooks/luma-payroll/rubric-8.toml".as_ref(), None)?;
    /// let scorer = bareme::Scorer::new(rubric, false);
    /// scorer.check_task(&task)?;
    /// let mut other = task.clone();
    /// other.hash = "0".repeat(64);
    /// assert_eq!(scorer.check_task(&other).unwrap_err().code(), "score::task_mismatch");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check_task(&self, task: &Task) -> Result<(), ScoreError> {
        let r = &self.rubric;
        if !self.same_version(task) || task.hash != r.rulebook_hash {
            return Err(ScoreError::TaskMismatch {
                task: task.id.to_string(),
                written_for: task.written_for(),
                rubric: r.name.to_string(),
                grades: format!("{}#{}", r.rulebook(), r.rulebook_hash),
            });
        }
        Ok(())
    }

    /// Whether a task names the rubric's rulebook id and version (its hash aside).
    ///
    /// ```
    /// # let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
    /// # let task = bareme::TaskDrawer::new(&generator, &rb)?.task(2026, 0, None)?.task;
    /// # let (rubric, _) = bareme::load_rubric("rulebooks/luma-payroll/rubric-8.toml".as_ref(), None)?;
    /// let scorer = bareme::Scorer::new(rubric, false);
    /// assert!(scorer.same_version(&task));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn same_version(&self, task: &Task) -> bool {
        task.rulebook_id == self.rubric.rulebook_id && task.version == self.rubric.rulebook_version
    }

    /// Grades a reply to a task (checked first) with an optional explanation grade in [0, 1].
    ///
    /// ```
    /// # let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
    /// # let task = bareme::TaskDrawer::new(&generator, &rb)?.task(2026, 0, None)?.task;
    /// # let (rubric, _) = bareme::load_rubric("rulebooks/luma-payroll/rubric-8.toml".as_ref(), None)?;
    /// let scorer = bareme::Scorer::new(rubric, false);
    /// let graded = scorer.score(&task, "not JSON", None)?;
    /// assert!(graded.malformed.is_some() && graded.score < graded.max);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn score(
        &self,
        task: &Task,
        reply: &str,
        explanation_grade: Option<Decimal>,
    ) -> Result<Graded, ScoreError> {
        self.check_task(task)?;
        if let Some(g) = explanation_grade {
            if g < Decimal::ZERO || g > Decimal::ONE {
                return Err(ScoreError::ExplanationGrade {
                    task: task.id.to_string(),
                    grade: g,
                });
            }
        }
        grade_judged(
            &self.rubric,
            &task.expected,
            reply,
            explanation_grade,
            self.judge.as_deref(),
        )
        .map_err(|error| match error {
            GradeError::Expected(error) => expected(task, error),
            GradeError::Judge(error) => ScoreError::Judge {
                task: task.id.to_string(),
                error,
            },
        })
    }

    /// Grades a reply line that holds no reply text (absent, or not a string): the floor.
    ///
    /// ```
    /// # let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
    /// # let task = bareme::TaskDrawer::new(&generator, &rb)?.task(2026, 0, None)?.task;
    /// # let (rubric, _) = bareme::load_rubric("rulebooks/luma-payroll/rubric-8.toml".as_ref(), None)?;
    /// let scorer = bareme::Scorer::new(rubric, false);
    /// let graded = scorer.score_missing(&task)?;
    /// assert_eq!(graded.malformed.map(|m| m.code), Some("reply::not_text"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn score_missing(&self, task: &Task) -> Result<Graded, ScoreError> {
        let m = crate::reply::Malformed::new("reply::not_text", "the reply is not a string");
        self.floor(task, m)
    }

    /// The floor of `task`'s rubric, for a reply with no text to grade.
    fn floor(&self, task: &Task, why: crate::reply::Malformed) -> Result<Graded, ScoreError> {
        self.check_task(task)?;
        grade_malformed(&self.rubric, &task.expected, why).map_err(|error| expected(task, error))
    }

    /// Grades one line of a replies file: its reply, or, when it holds no
    /// reply text, the floor ([`Scorer::score_missing`]; half a surrogate
    /// pair, `reply::lone_surrogate`).
    ///
    /// ```
    /// # let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
    /// # let task = bareme::TaskDrawer::new(&generator, &rb)?.task(2026, 0, None)?.task;
    /// # let (rubric, _) = bareme::load_rubric("rulebooks/luma-payroll/rubric-8.toml".as_ref(), None)?;
    /// let scorer = bareme::Scorer::new(rubric, false);
    /// let line = format!(r#"{{"id": "{}", "reply": 3}}"#, task.id);
    /// let line = bareme::unstable::tasks::ReplyLine::from_json(&line)?;
    /// // A reply that is no text scores the floor, as a missing one does.
    /// assert_eq!(scorer.grade_line(&task, &line)?.score, scorer.score_missing(&task)?.score);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn grade_line(&self, task: &Task, line: &ReplyLine) -> Result<Graded, ScoreError> {
        match &line.reply {
            ReplyText::Text(reply) => self.score(task, reply, line.grade),
            ReplyText::NotText => self.score_missing(task),
            ReplyText::LoneSurrogate => self.floor(task, crate::reply::Malformed::lone_surrogate()),
        }
    }

    /// The reply a perfect answerer writes: the reference answer as JSON,
    /// inside the rubric's tag when it has one. It scores the maximum.
    /// Where the rubric's explanation rule applies (Luma's clarifications),
    /// it carries a non-empty explanation naming the decision and the
    /// clauses it rests on: with no judge that explanation is reported
    /// ungraded and the reply keeps its deterministic score; an empty one
    /// would score 0 on explanation.
    pub fn reference_reply(&self, expected: &Value) -> String {
        let json = match (&self.rubric.score.explanation, expected) {
            (Some(rule), Value::Object(fields)) if self.explains(rule, expected) => {
                let mut fields = fields.clone();
                fields.insert(
                    grade::EXPLANATION_KEY.into(),
                    Value::String(reference_explanation(expected)),
                );
                Value::Object(fields).to_string()
            }
            _ => expected.to_string(),
        };
        match &self.rubric.envelope.tag {
            Some(tag) => format!("<{0}>\n{json}\n</{0}>", tag.name),
            None => json,
        }
    }

    /// Whether the explanation rule grades a reply to this reference.
    fn explains(&self, rule: &model::Explanation, expected: &Value) -> bool {
        grade::expected_decision(&self.rubric, expected)
            .is_ok_and(|d| rule.decisions.contains(&d.name))
    }
}

/// The reference reply's explanation: what the answer decides and why, in
/// the answer's own words (its text fields, then its clauses).
fn reference_explanation(expected: &Value) -> String {
    let mut said: Vec<String> = Vec::new();
    let mut clauses: Vec<&str> = Vec::new();
    if let Value::Object(fields) = expected {
        for (key, value) in fields {
            match value {
                Value::String(text) => said.push(format!("{key} {text}")),
                Value::Array(items) => clauses.extend(items.iter().filter_map(Value::as_str)),
                _ => {}
            }
        }
    }
    let mut text = format!("The record calls for {}", said.join(", "));
    if !clauses.is_empty() {
        text.push_str(&format!(", under {}", clauses.join(", ")));
    }
    text.push('.');
    text
}

/// A task's reference the rubric cannot grade against, with the task's id.
fn expected(task: &Task, error: ExpectedError) -> ScoreError {
    ScoreError::Expected {
        task: task.id.to_string(),
        error,
    }
}

#[cfg(test)]
mod tests;
