//! What a tool environment's tools compute, exactly as the engine does: the
//! rows of a rulebook's table as a case supplies them or the rulebook
//! defines them ([`table_rows`]), and an exact calculator ([`calculate`])
//! that evaluates an expression of bareme's grammar on decimals.
//!
//! A model in a tool environment (Luma's tool mode, seed 004) looks up a
//! reference row and calculates instead of reading them in its prompt; both
//! tools are the engine's own reading, so what the model is shown is what
//! the reference computes with.
//!
//! Invariant: the calculator resolves names against an empty namespace (it
//! holds no rates, rules or brackets), and its work is bounded: the text by
//! [`MAX_EXPRESSION_BYTES`] (and the parser's nesting bound), the
//! evaluation by its rulebook's `max_eval_steps` (10,000).

use std::sync::{Arc, OnceLock};

use crate::case::{validate_case_text, CaseText};
use crate::eval::evaluate_formula;
use crate::model::{Period, Row, Rulebook};
use crate::rulebook::parse_rulebook;
use crate::value::{decimal_text, Value};

/// The longest expression the calculator reads, in bytes.
pub const MAX_EXPRESSION_BYTES: usize = 2_000;

/// The calculator's own rulebook: no input, no table, no parameter, so
/// that an expression can name nothing but built-in functions; at most
/// 10,000 expression nodes evaluated per calculation.
const CALCULATOR: &str = r#"
[rulebook]
id = "calculator"
version = 1
schema = 1
title = "The exact calculator of tool environments"

[limits]
max_eval_steps = 10000

[[checks]]
decision = "done"

[decisions.done]
label = "Calculated"

[decisions.done.answer]
value = { expr = "0", format = "decimal" }
"#;

/// Why a calculation gives no number; its text is what a model reads.
///
/// ```
/// let refused = bareme::tools::calculate("gross_pay * 2").unwrap_err();
/// assert_eq!(refused.code(), "calculate::expression");
/// assert!(refused.to_string().contains("gross_pay"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CalcError {
    /// Longer than 2,000 bytes (`MAX_EXPRESSION_BYTES`).
    #[error("the expression is longer than {MAX_EXPRESSION_BYTES} bytes")]
    TooLong,
    /// The text does not parse or names something the calculator lacks.
    #[error("{0}")]
    Expression(String),
    /// The evaluation failed: an overflow, a division by zero, the step bound.
    #[error("{0}")]
    Evaluation(String),
    /// The value is no number or truth value, or a fraction no finite
    /// decimal holds.
    #[error("{0}")]
    Result(String),
}

impl CalcError {
    /// The stable code: `calculate::too_long`, `calculate::expression`,
    /// `calculate::evaluation` or `calculate::result`.
    pub fn code(&self) -> &'static str {
        match self {
            CalcError::TooLong => "calculate::too_long",
            CalcError::Expression(_) => "calculate::expression",
            CalcError::Evaluation(_) => "calculate::evaluation",
            CalcError::Result(_) => "calculate::result",
        }
    }
}

/// The calculator's rulebook and its empty case, made once.
fn calculator() -> Option<&'static (Rulebook, crate::facts::Facts)> {
    static CELL: OnceLock<Option<(Rulebook, crate::facts::Facts)>> = OnceLock::new();
    CELL.get_or_init(|| {
        let rb = parse_rulebook("calculator.toml", CALCULATOR).ok()?;
        let case = CaseText::from_bytes(b"{}").ok()?;
        let facts = validate_case_text(&rb, &case).ok()?;
        Some((rb, facts))
    })
    .as_ref()
}

/// Evaluates `expression`, an expression of bareme's grammar over decimal
/// literals (`+ - * /`, comparisons, `min`, `max`, `clamp`, `abs`,
/// `round(x, places[, mode])`, `floor`, `ceil`, `if … then … else …`),
/// exactly: decimals are never floats, a quotient is kept exact until a
/// rounding, and the value is written as the engine writes a decimal
/// (every digit of its scale), or `true`/`false`.
///
/// ```
/// assert_eq!(bareme::tools::calculate("round(0.04 * min(3450.00, 5000.00), 2)")?, "138.00");
/// assert_eq!(bareme::tools::calculate("0.1 + 0.2")?, "0.3");
/// assert_eq!(bareme::tools::calculate("round(10 / 3, 2)")?, "3.33");
/// assert!(bareme::tools::calculate("10 / 3").is_err());
/// # Ok::<(), bareme::tools::CalcError>(())
/// ```
pub fn calculate(expression: &str) -> Result<String, CalcError> {
    if expression.len() > MAX_EXPRESSION_BYTES {
        return Err(CalcError::TooLong);
    }
    let Some((rb, facts)) = calculator() else {
        return Err(CalcError::Evaluation(
            "the calculator is not available".into(),
        ));
    };
    let (formula, _) = rb.free_formula(expression, Vec::new()).map_err(|problems| {
        let text = problems
            .iter()
            .map(|p| {
                let at = p.span.start as usize;
                // The resolver's hint speaks of a rulebook's names; the
                // calculator has none, so it says what to write instead.
                match p.code {
                    "check::unknown_name" => format!(
                        "{} (at byte {at}; the calculator knows no names: write each value as a number)",
                        p.message
                    ),
                    _ => format!("{} (at byte {at})", p.message),
                }
            })
            .collect::<Vec<_>>()
            .join("; ");
        CalcError::Expression(text)
    })?;
    let value =
        evaluate_formula(rb, facts, &formula, &[]).map_err(|e| CalcError::Evaluation(e.message))?;
    match value {
        Value::Number(d) => Ok(decimal_text(&d)),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Fraction(f) => Err(CalcError::Result(format!(
            "{f} has {}: round it, e.g. round(…, 2)",
            f.why_not_decimal()
        ))),
        other => Err(CalcError::Result(format!(
            "the expression gives a {}, not a number",
            other.kind_name()
        ))),
    }
}

/// One row of a table, as a lookup tool shows it.
///
/// ```
/// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// let first = &bareme::tools::table_rows(&rb, br#"{"task": "payslip"}"#, "schedule")?[0];
/// assert!(first.json.starts_with(r#"{"name":"first-half","from":"2026-01","to":"2026-06","rate":"0.05""#));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableRow {
    /// The row's name (a period table's), or its position from 1.
    pub name: String,
    /// The row as a JSON object: `name`, then `from` and `to` for a period
    /// row, then every cell by column name, numbers as exact strings.
    pub json: String,
}

/// Why a table's rows cannot be shown.
///
/// ```
/// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// let refused = bareme::tools::table_rows(&rb, b"{}", "rates").unwrap_err();
/// assert_eq!(refused.code(), "lookup::table");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LookupError {
    /// The rulebook has no table of that name.
    #[error("unknown table {name:?}; the tables are: {known}")]
    UnknownTable {
        /// The name asked for.
        name: String,
        /// The rulebook's tables, comma-separated.
        known: String,
    },
    /// The case is refused by the rulebook (its path and message).
    #[error("the case is refused: {0}")]
    Case(crate::facts::CaseError),
}

impl LookupError {
    /// The stable code: `lookup::table` or `case::rejected`.
    pub fn code(&self) -> &'static str {
        match self {
            LookupError::UnknownTable { .. } => "lookup::table",
            LookupError::Case(e) => e.code(),
        }
    }
}

/// The rows of `table` in force for `case` (its JSON bytes, read as
/// `bareme eval` reads a case): the rows the case supplies, validated
/// and merged as evaluation reads them, or the rulebook's own.
///
/// ```
/// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// let rows = bareme::tools::table_rows(&rb, br#"{"task": "payslip"}"#, "schedule")?;
/// assert_eq!(rows[1].name, "second-half");
/// assert_eq!(rows[1].json, r#"{"name":"second-half","from":"2026-07","to":"2026-12","rate":"0.04","cap":"5000.00","deduction":"350.00","free":"1100.00","upper":"3000.00","middle_rate":"0.08","upper_rate":"0.20"}"#);
/// let refused = bareme::tools::table_rows(&rb, br#"{"task": "payslip", "reference_tables": {"first-half": {"rate": "0.03"}}}"#, "schedule");
/// assert_eq!(refused.unwrap_err().to_string(), "the case is refused: reference_tables.first-half.cap: is missing: every row needs column cap (R1)");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn table_rows(rb: &Rulebook, case: &[u8], table: &str) -> Result<Vec<TableRow>, LookupError> {
    let Some(t) = rb.tables.iter().position(|t| &*t.name == table) else {
        let known = rb
            .tables
            .iter()
            .map(|t| t.name.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        return Err(LookupError::UnknownTable {
            name: table.to_string(),
            known,
        });
    };
    let text = CaseText::from_bytes(case).map_err(LookupError::Case)?;
    let facts = validate_case_text(rb, &text).map_err(LookupError::Case)?;
    let supplied: Option<Arc<[Row]>> = facts.tables.get(t).cloned().flatten();
    let rows: &[Row] = match &supplied {
        Some(rows) => rows,
        None => &rb.tables[t].rows,
    };
    Ok(rows
        .iter()
        .enumerate()
        .map(|(i, row)| row_json(row, i + 1))
        .collect())
}

/// A row written as [`TableRow::json`].
fn row_json(row: &Row, position: usize) -> TableRow {
    let name = row
        .name
        .as_deref()
        .map_or_else(|| position.to_string(), str::to_string);
    let mut map = serde_json::Map::new();
    map.insert("name".into(), name.clone().into());
    let (from, to) = match &row.period {
        Some(Period::Months(from, to)) => (Some(from.to_string()), to.map(|m| m.to_string())),
        Some(Period::Dates(from, to)) => (
            Some(from.format("%Y-%m-%d").to_string()),
            to.map(|d| d.format("%Y-%m-%d").to_string()),
        ),
        None => (None, None),
    };
    if let Some(from) = from {
        map.insert("from".into(), from.into());
        map.insert("to".into(), to.map_or(serde_json::Value::Null, Into::into));
    }
    for (column, value) in row.record.names.iter().zip(row.record.fields.iter()) {
        map.insert(
            column.to_string(),
            serde_json::to_value(value).unwrap_or(serde_json::Value::Null),
        );
    }
    TableRow {
        name,
        json: serde_json::Value::Object(map).to_string(),
    }
}
