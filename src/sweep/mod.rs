//! `bareme sweep`: a rulebook's answers across a range of one input, what
//! an author looks at before shipping, since kinks at bands and caps are
//! where a misread boundary shows.
//!
//! One case is evaluated again and again with one field set to each value
//! of `FROM..TO:STEP` (exact decimals, both ends included). Each answer
//! field that holds a number becomes a column; a rejection fills the error
//! column. `plot` draws the same rows.
//!
//! Invariant: every value of the CSV is a decimal as the engine wrote it;
//! floating point exists only in `plot`, for drawing coordinates.

#[cfg(feature = "plot")]
pub mod plot;

use indexmap::IndexMap;
use rust_decimal::Decimal;
use serde_json::Value;
use std::str::FromStr;

use crate::eval::Outcome;
use crate::evaluation::evaluate_value;
use crate::model::Rulebook;

/// Most values one sweep evaluates.
pub const MAX_POINTS: u64 = 100_000;

/// `FIELD=FROM..TO:STEP`, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vary {
    /// The case field set, as a dotted path (`amendment.gross_pay`).
    pub field: String,
    /// First value.
    pub from: Decimal,
    /// Last value (included when a whole number of steps away).
    pub to: Decimal,
    /// Distance between values, positive.
    pub step: Decimal,
}

impl FromStr for Vary {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let usage = || format!("`{text}` is not FIELD=FROM..TO:STEP (e.g. gross=1000..5000:10)");
        let (field, range) = text.split_once('=').ok_or_else(usage)?;
        let (span, step) = range.rsplit_once(':').ok_or_else(usage)?;
        let (from, to) = span.split_once("..").ok_or_else(usage)?;
        let number = |s: &str| {
            Decimal::from_str_exact(s.trim()).map_err(|_| format!("`{s}` is not a decimal"))
        };
        let vary = Vary {
            field: field.trim().to_string(),
            from: number(from)?,
            to: number(to)?,
            step: number(step)?,
        };
        if vary.field.is_empty() || vary.field.split('.').any(str::is_empty) {
            return Err(usage());
        }
        if vary.step <= Decimal::ZERO {
            return Err(format!("the step must be positive, found {}", vary.step));
        }
        if vary.to < vary.from {
            return Err(format!("the range {}..{} is empty", vary.from, vary.to));
        }
        // Values from outside: every operation checked, as a range whose
        // width or count leaves the decimal range is too wide to sweep.
        let too_many = || {
            format!(
                "the range {}..{} by {} holds more than {MAX_POINTS} values: a sweep evaluates at most {MAX_POINTS}; widen the step",
                vary.from, vary.to, vary.step
            )
        };
        let count = vary
            .to
            .checked_sub(vary.from)
            .and_then(|width| width.checked_div(vary.step))
            .and_then(|steps| steps.floor().checked_add(Decimal::ONE))
            .ok_or_else(too_many)?;
        if count > Decimal::from(MAX_POINTS) {
            return Err(format!(
                "{count} values: a sweep evaluates at most {MAX_POINTS}; widen the step"
            ));
        }
        Ok(vary)
    }
}

impl Vary {
    /// The values, `from` then every step up to `to`.
    pub fn values(&self) -> Vec<Decimal> {
        let mut out = Vec::new();
        let mut x = self.from;
        while x <= self.to && (out.len() as u64) < MAX_POINTS {
            out.push(x);
            match x.checked_add(self.step) {
                Some(next) => x = next,
                None => break,
            }
        }
        out
    }
}

/// The answers of one sweep.
#[derive(Debug)]
pub struct Sweep {
    /// The field varied.
    pub field: String,
    /// The numeric answer fields, in the order the answers write them.
    pub columns: Vec<String>,
    /// One row per value: the value, each column's decimal (when the answer
    /// has it), or the rejection.
    pub rows: Vec<Row>,
}

/// One value of a sweep.
#[derive(Debug)]
pub struct Row {
    /// The value the field was given.
    pub x: Decimal,
    /// Numeric answer fields as written.
    pub values: IndexMap<String, Decimal>,
    /// `path: message` of a rejection or fault.
    pub error: Option<String>,
}

/// Evaluates `case` with `vary.field` set to each value. The field keeps the
/// JSON kind it has in the case (a number stays a number; otherwise a
/// decimal string, as money inputs are written); a path that names nothing
/// the rulebook declares, or that runs through a missing object or a
/// non-object, is an error.
pub fn sweep(rb: &Rulebook, case: &Value, vary: &Vary) -> Result<Sweep, String> {
    // A field no input declares would be refused at every point.
    crate::case::check_declared_path(rb, &vary.field).map_err(|e| e.to_string())?;
    let as_number = matches!(lookup(case, &vary.field), Some(Value::Number(_)));
    let mut columns: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for x in vary.values() {
        let mut case = case.clone();
        let written = if as_number {
            serde_json::from_str::<Value>(&x.to_string()).map_err(|e| e.to_string())?
        } else {
            Value::String(x.to_string())
        };
        set(&mut case, &vary.field, written)?;
        let row = match evaluate_value(rb, &case, false) {
            Ok((Outcome::Answer(answer), _)) => {
                let values = numbers(&answer.to_json());
                for k in values.keys() {
                    if !columns.contains(k) {
                        columns.push(k.clone());
                    }
                }
                Row {
                    x,
                    values,
                    error: None,
                }
            }
            Ok((Outcome::Rejected(e), _)) => Row {
                x,
                values: IndexMap::new(),
                error: Some(format!("{}: {}", e.path, e.message)),
            },
            Err(e) => Row {
                x,
                values: IndexMap::new(),
                error: Some(format!("fault: {e}")),
            },
        };
        rows.push(row);
    }
    Ok(Sweep {
        field: vary.field.clone(),
        columns,
        rows,
    })
}

/// The answer's top-level fields that hold a decimal (a string or a number).
fn numbers(answer: &Value) -> IndexMap<String, Decimal> {
    let mut out = IndexMap::new();
    if let Value::Object(fields) = answer {
        for (k, v) in fields {
            let text = match v {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                _ => continue,
            };
            if let Ok(d) = Decimal::from_str_exact(&text) {
                out.insert(k.clone(), d);
            }
        }
    }
    out
}

fn lookup<'v>(case: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.').try_fold(case, |v, k| v.get(k))
}

fn set(case: &mut Value, path: &str, value: Value) -> Result<(), String> {
    let mut here = case;
    let mut keys = path.split('.').peekable();
    while let Some(key) = keys.next() {
        let Value::Object(map) = here else {
            return Err(format!("`{path}`: the case holds no object at `{key}`"));
        };
        if keys.peek().is_none() {
            map.insert(key.to_string(), value);
            return Ok(());
        }
        here = map
            .entry(key.to_string())
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
    }
    Ok(())
}

impl Sweep {
    /// The rows as CSV: the field, one column per numeric answer field, `error`.
    pub fn csv(&self) -> String {
        let mut out = String::new();
        let header: Vec<&str> = std::iter::once(self.field.as_str())
            .chain(self.columns.iter().map(String::as_str))
            .chain(std::iter::once("error"))
            .collect();
        out.push_str(
            &header
                .iter()
                .map(|h| quote(h))
                .collect::<Vec<_>>()
                .join(","),
        );
        out.push('\n');
        for row in &self.rows {
            let mut cells = vec![row.x.to_string()];
            for c in &self.columns {
                cells.push(
                    row.values
                        .get(c)
                        .map(Decimal::to_string)
                        .unwrap_or_default(),
                );
            }
            cells.push(quote(row.error.as_deref().unwrap_or("")));
            out.push_str(&cells.join(","));
            out.push('\n');
        }
        out
    }
}

/// A CSV cell, quoted when it holds a comma, a quote or a line break.
fn quote(cell: &str) -> String {
    if cell.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell.to_string()
    }
}

#[cfg(test)]
mod tests;
