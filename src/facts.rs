//! Validated case data: the [`Facts`] evaluation reads, how each input came
//! to be ([`Given`]), and the [`CaseError`] that rejects a case.
//!
//! Plain data, below both the validator that builds it (`case`) and the
//! evaluator and trace that read it.

use serde::Serialize;
use std::sync::Arc;

use crate::model::Row;
use crate::value::Value;

/// A rejected case: where and why.
///
/// ```
/// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// let case = serde_json::json!({"task": "payslip", "gross_pay": "-1", "payroll_month": "2026-03"});
/// let refused = bareme::validate_case(&rb, &case).unwrap_err();
/// assert_eq!(refused.to_string(), r#"gross_pay: must not be negative, found "-1" (R2)"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{path}: {message}")]
pub struct CaseError {
    /// Dotted field path, `[i]` for list items, `$` for the case itself.
    pub path: String,
    /// What is wrong, citing the clause.
    pub message: String,
}

impl CaseError {
    /// The stable code of a rejected case, `case::rejected`: one kind,
    /// told apart by its path and message. (A rulebook's fault while
    /// evaluating is an `EvalError`, `eval::fault`.)
    ///
    /// ```
    /// let rejected = bareme::CaseError { path: "gross_pay".into(), message: "is required".into() };
    /// assert_eq!(rejected.code(), "case::rejected");
    /// ```
    pub fn code(&self) -> &'static str {
        "case::rejected"
    }

    /// A rejection at a path a rulebook's template wrote: one that renders
    /// empty names the case itself, `$`, so every rejection names a place.
    pub(crate) fn at_rendered(path: String, message: String) -> CaseError {
        let path = if path.trim().is_empty() {
            "$".to_string()
        } else {
            path
        };
        CaseError { path, message }
    }
}

/// How an input's value came to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Given {
    /// Present in the case.
    Value,
    /// Not in the case.
    Absent,
    /// An explicit `null`.
    Null,
    /// Not in the case (or null): the default applies.
    Default,
    /// Not read: the input's `when` does not hold.
    Ignored,
    /// Given but not valid, and read as absent (`invalid = "absent"`), or
    /// as its default.
    Invalid,
}

/// A validated case.
///
/// ```
/// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// # let case = serde_json::json!({"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"});
/// let facts = bareme::validate_case(&rb, &case)?;
/// // Validated once, evaluated as often as needed.
/// let first = bareme::evaluate(&rb, &facts, false)?.0;
/// assert_eq!(first, bareme::evaluate(&rb, &facts, false)?.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// One value per top-level input.
    pub values: Vec<Value>,
    /// How each value came to be.
    pub given: Vec<Given>,
    /// Rows supplied by the case, per table (`None`: the rulebook's rows).
    pub tables: Vec<Option<Arc<[Row]>>>,
    /// Units of the case's evaluation budget its validation spent (input
    /// conditions, field rules, `after` checks): evaluation has the rest, so
    /// one budget bounds the whole case whatever spends it.
    pub spent: u64,
}
