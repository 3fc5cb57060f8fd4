//! Why a scorer refuses a task or a reply: the task's fault, never the
//! reply's (a malformed reply still scores its floor). Its `Display` is the
//! message `bareme score`, `rescore`, `baselines` and the rubric diff print,
//! after the file (and line) it concerns.

use rust_decimal::Decimal;

use super::grade::ExpectedError;
use super::judge::JudgeError;

/// Why a task or a reply to it cannot be graded.
///
/// ```
/// let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
/// let drawer = bareme::TaskDrawer::new(&generator, &rb)?;
/// let mut task = drawer.task(2026, 0, None)?.task;
/// task.hash = "0".repeat(64);
/// let (rubric, _) = bareme::load_rubric("rulebooks/luma-payroll/rubric-8.toml".as_ref(), None)?;
/// let err = bareme::Scorer::new(rubric, false).score(&task, "{}", None).unwrap_err();
/// assert_eq!(err.code(), "score::task_mismatch");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ScoreError {
    /// The task was written for another rulebook id, version or hash than
    /// the rubric's.
    #[error("task {task} was written for {written_for}, but {rubric} grades {grades}")]
    TaskMismatch {
        /// The task's id.
        task: String,
        /// The rulebook it names, `id@version#hash`.
        written_for: String,
        /// The rubric's name.
        rubric: String,
        /// The rulebook the rubric grades, `id@version#hash`.
        grades: String,
    },
    /// An explanation grade outside [0, 1].
    #[error("task {task}: an explanation grade is between 0 and 1, not {grade}")]
    ExplanationGrade {
        /// The task's id.
        task: String,
        /// The grade given.
        grade: Decimal,
    },
    /// The task's reference answer is one the rubric cannot grade against.
    #[error("task {task}: {error}")]
    Expected {
        /// The task's id.
        task: String,
        /// Why.
        error: ExpectedError,
    },
    /// The judge asked for an explanation's grade gave none.
    #[error("task {task}: {error}")]
    Judge {
        /// The task's id.
        task: String,
        /// Why.
        error: JudgeError,
    },
    /// A scripted baseline has no reply to write: the reference is a
    /// rejection of the case.
    #[error(
        "task {task}: the reference is a rejection of the case, which no reply is graded against"
    )]
    RejectedReference {
        /// The task's id.
        task: String,
    },
}

impl ScoreError {
    /// A stable code: `score.task_mismatch`, `score.explanation_grade`,
    /// `score.expected`, `score.rejected_reference`; a judge's failure its
    /// own code (`judge::timeout`, …).
    pub fn code(&self) -> &'static str {
        match self {
            ScoreError::TaskMismatch { .. } => "score::task_mismatch",
            ScoreError::ExplanationGrade { .. } => "score::explanation_grade",
            ScoreError::Expected { .. } => "score::expected",
            ScoreError::RejectedReference { .. } => "score::rejected_reference",
            ScoreError::Judge { error, .. } => error.code(),
        }
    }
}
