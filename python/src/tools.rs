//! What a tool environment's tools compute, for Python (`bareme.calculate`,
//! `bareme.table_rows`, `bareme.case_part`): the engine's exact calculator,
//! a table's rows in force for a case, and a part of a case's record, each
//! as the text a model reads.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::{engine, Rulebook};
use crate::case::json_bytes;

/// Evaluates an expression of bareme's grammar on decimals, exactly:
/// `calculate("round(0.04 * min(3450.00, 5000.00), 2)")` is `"138.00"`.
/// Raises `ValueError` with the text a model reads (a syntax error, a name
/// the calculator lacks, a division by zero, a fraction left unrounded).
#[pyfunction]
pub fn calculate(py: Python<'_>, expression: &str) -> PyResult<String> {
    engine(py, || bareme::tools::calculate(expression))?
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The rows of `table` in force for `case` (a dict or its JSON text): the
/// rows the case supplies, validated as evaluation reads them, or the
/// rulebook's own; a list of `(name, row as JSON text)`. Raises
/// `ValueError` for an unknown table or a refused case.
#[pyfunction]
pub fn table_rows(
    py: Python<'_>,
    rulebook: &Rulebook,
    case: &Bound<'_, PyAny>,
    table: &str,
) -> PyResult<Vec<(String, String)>> {
    let bytes =
        json_bytes(py, case).map_err(|(p, m)| PyValueError::new_err(format!("case: {p}: {m}")))?;
    let rows = engine(py, || {
        bareme::tools::table_rows(&rulebook.rb, &bytes, table)
    })?
    .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(rows.into_iter().map(|r| (r.name, r.json)).collect())
}

/// The part of a case's record made of `keys` (those present, in the
/// case's order), as indented JSON text with every number as written; None
/// when the case holds none of them. `case` is a dict or its JSON text.
#[pyfunction]
pub fn case_part(
    py: Python<'_>,
    case: &Bound<'_, PyAny>,
    keys: Vec<String>,
) -> PyResult<Option<String>> {
    let bytes =
        json_bytes(py, case).map_err(|(p, m)| PyValueError::new_err(format!("case: {p}: {m}")))?;
    let value: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| PyValueError::new_err(format!("case: not JSON: {e}")))?;
    let serde_json::Value::Object(map) = value else {
        return Err(PyValueError::new_err("case: not a JSON object"));
    };
    let part: serde_json::Map<String, serde_json::Value> = map
        .into_iter()
        .filter(|(k, _)| keys.iter().any(|key| key == k))
        .collect();
    if part.is_empty() {
        return Ok(None);
    }
    serde_json::to_string_pretty(&serde_json::Value::Object(part))
        .map(Some)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}
