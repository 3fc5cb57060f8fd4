//! `bareme sweep`: a rulebook's answers across a range of one input, what
//! an author looks at before shipping, since kinks at bands and caps are
//! where a misread boundary shows.
//!
//! One case is evaluated again and again with one field set to each value
//! of `FROM..TO:STEP` (exact decimals: FROM, then each STEP up to TO, which is included when a whole number of steps away). Each answer
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
use std::sync::Arc;

use crate::eval::Outcome;
use crate::evaluation::evaluate_value;
use crate::facts::CaseError;
use crate::model::{InputKind, Rulebook};
use crate::rulebook::check::parse_plain_decimal;

/// Most values one sweep evaluates.
pub const MAX_POINTS: u64 = 100_000;

/// Why a range cannot be read, or a case cannot be swept. Its `Display` is
/// the message `bareme sweep` prints (after clap's own words for `--vary`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SweepError {
    /// The text is not `FIELD=FROM..TO:STEP`, or its field path is empty.
    #[error("`{text}` is not FIELD=FROM..TO:STEP (e.g. gross=1000..5000:10)")]
    Usage {
        /// The whole text given.
        text: String,
    },
    /// A bound or the step is not a decimal.
    #[error("`{text}` is not a decimal")]
    NotDecimal {
        /// The part given, as written.
        text: String,
    },
    /// The step is zero or negative.
    #[error("the step must be positive, found {step}")]
    StepNotPositive {
        /// The step given.
        step: Decimal,
    },
    /// The last value is below the first.
    #[error("the range {from}..{to} is empty")]
    EmptyRange {
        /// The first value.
        from: Decimal,
        /// The last value.
        to: Decimal,
    },
    /// The range's width or count leaves the decimal range.
    #[error("the range {from}..{to} by {step} holds more than {MAX_POINTS} values: a sweep evaluates at most {MAX_POINTS}; widen the step")]
    TooWide {
        /// The first value.
        from: Decimal,
        /// The last value.
        to: Decimal,
        /// The step.
        step: Decimal,
    },
    /// A value of the range has more digits than a decimal holds: the sum
    /// of a step would be rounded, and the sweep would stall or skip.
    #[error("the range {from}..{to} by {step} needs values of {places} places up to {bound}, more digits than a decimal holds (28 to 29 in all): the values would not be exact")]
    TooFine {
        /// The first value.
        from: Decimal,
        /// The last value.
        to: Decimal,
        /// The step.
        step: Decimal,
        /// The places of every value: those of `from` or `step`, whichever has more.
        places: u32,
        /// The bound that cannot have them.
        bound: Decimal,
    },
    /// The range holds more than [`MAX_POINTS`] values.
    #[error("{count} values: a sweep evaluates at most {MAX_POINTS}; widen the step")]
    TooManyValues {
        /// How many it holds.
        count: Decimal,
    },
    /// No input of the rulebook declares the field.
    #[error("{0}")]
    Undeclared(CaseError),
    /// A value could not be written as a JSON number.
    #[error("{0}")]
    Number(String),
    /// An integer input swept by fractions: every value but the whole ones
    /// would be the same refusal.
    #[error(
        "`{field}` is an integer input: FROM and STEP must be whole numbers, not {from} and {step}"
    )]
    NotWhole {
        /// The field's path.
        field: String,
        /// The first value.
        from: Decimal,
        /// The step.
        step: Decimal,
    },
    /// A field no number can be (a date, a month, true or false, a
    /// record, a list, a map, a table's rows): every value would be the
    /// same refusal.
    #[error("`{field}` holds {kind}: a sweep gives it numbers, which it never takes")]
    NotNumeric {
        /// The field's path.
        field: String,
        /// What the input holds: `a month`, `true or false`, ….
        kind: &'static str,
    },
    /// The path runs through something in the case that is not an object.
    #[error("`{path}`: the case holds no object at `{key}`")]
    NoObject {
        /// The field's path.
        path: String,
        /// The key that is not an object.
        key: String,
    },
}

impl SweepError {
    /// A stable code: `sweep::usage`, `sweep::not_decimal`,
    /// `sweep::step_not_positive`, `sweep::empty_range`, `sweep::too_wide`,
    /// `sweep::too_fine`, `sweep::too_many_values`, `sweep::undeclared`,
    /// `sweep::number`, `sweep::not_whole`, `sweep::not_numeric`,
    /// `sweep::no_object`.
    pub fn code(&self) -> &'static str {
        match self {
            SweepError::Usage { .. } => "sweep::usage",
            SweepError::NotDecimal { .. } => "sweep::not_decimal",
            SweepError::StepNotPositive { .. } => "sweep::step_not_positive",
            SweepError::EmptyRange { .. } => "sweep::empty_range",
            SweepError::TooWide { .. } => "sweep::too_wide",
            SweepError::TooFine { .. } => "sweep::too_fine",
            SweepError::TooManyValues { .. } => "sweep::too_many_values",
            SweepError::Undeclared(_) => "sweep::undeclared",
            SweepError::Number(_) => "sweep::number",
            SweepError::NotWhole { .. } => "sweep::not_whole",
            SweepError::NotNumeric { .. } => "sweep::not_numeric",
            SweepError::NoObject { .. } => "sweep::no_object",
        }
    }
}

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
    type Err = SweepError;

    fn from_str(text: &str) -> Result<Self, SweepError> {
        let usage = || SweepError::Usage {
            text: text.to_string(),
        };
        let (field, range) = text.split_once('=').ok_or_else(usage)?;
        let (span, step) = range.rsplit_once(':').ok_or_else(usage)?;
        let (from, to) = span.split_once("..").ok_or_else(usage)?;
        // As a case writes a decimal: `1_000` and `+5` are not one.
        let number = |s: &str| {
            parse_plain_decimal(s.trim()).ok_or_else(|| SweepError::NotDecimal {
                text: s.to_string(),
            })
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
            return Err(SweepError::StepNotPositive { step: vary.step });
        }
        if vary.to < vary.from {
            return Err(SweepError::EmptyRange {
                from: vary.from,
                to: vary.to,
            });
        }
        // Values from outside: every operation checked, as a range whose
        // width or count leaves the decimal range is too wide to sweep.
        let too_many = || SweepError::TooWide {
            from: vary.from,
            to: vary.to,
            step: vary.step,
        };
        let count = vary
            .to
            .checked_sub(vary.from)
            .and_then(|width| width.checked_div(vary.step))
            .and_then(|steps| steps.floor().checked_add(Decimal::ONE));
        match count {
            Some(count) if count > Decimal::from(MAX_POINTS) => {
                return Err(SweepError::TooManyValues { count })
            }
            Some(_) => {}
            // The width or the count leaves the decimal range
            // (`-MAX..MAX:MAX` holds three values): the values are counted
            // as `values` takes them, one past the bound at most.
            None if vary.walk().nth(MAX_POINTS as usize).is_some() => return Err(too_many()),
            None => {}
        }
        // Every value has the places of `from` or `step`: a bound that
        // cannot have them means sums a decimal rounds (a step added to
        // 7922816251426433759354395033.4 gave it back, and the walk stalled).
        let places = vary.from.scale().max(vary.step.scale());
        for bound in [vary.from, vary.to] {
            let mut at = bound;
            at.rescale(places);
            if at.scale() != places {
                return Err(SweepError::TooFine {
                    from: vary.from,
                    to: vary.to,
                    step: vary.step,
                    places,
                    bound,
                });
            }
        }
        Ok(vary)
    }
}

impl Vary {
    /// `from`, then every step up to `to`, while the sum stays a decimal;
    /// each with the places of `from` or `step`, whichever has more, so
    /// that `1..3:0.5` is `1.0, 1.5, 2.0, …`, not `1, 1.5, 2.0`.
    fn walk(&self) -> impl Iterator<Item = Decimal> + '_ {
        let mut first = self.from;
        // More places never change the value (a mantissa too long for them
        // takes as many as it can).
        first.rescale(first.scale().max(self.step.scale()));
        std::iter::successors(Some(first), |x| x.checked_add(self.step))
            .take_while(|x| *x <= self.to)
    }

    /// The values, `from` then every step up to `to`.
    pub fn values(&self) -> Vec<Decimal> {
        self.walk().take(MAX_POINTS as usize).collect()
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
    /// The decision the answer took (none for a rejection or a fault):
    /// rows of different decisions share the columns of their fields.
    pub decision: Option<Arc<str>>,
    /// The rulebook faulted on this value (`eval` exits 4 on it).
    pub fault: bool,
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
pub fn sweep(rb: &Rulebook, case: &Value, vary: &Vary) -> Result<Sweep, SweepError> {
    // A field no input declares would be refused at every point.
    let input =
        crate::case::check_declared_path(rb, &vary.field).map_err(SweepError::Undeclared)?;
    // A text or an enum may be digits (`"0110"`, a value `"2"`); nothing
    // else takes a number.
    let kind = match input.kind {
        InputKind::Bool => Some("true or false"),
        InputKind::Date { .. } => Some("a date"),
        InputKind::Month { .. } => Some("a month"),
        InputKind::Record { .. } => Some("a record"),
        InputKind::List { .. } => Some("a list"),
        InputKind::Map { .. } => Some("a map"),
        InputKind::Table { .. } => Some("a table's rows"),
        _ => None,
    };
    if let Some(kind) = kind {
        return Err(SweepError::NotNumeric {
            field: vary.field.clone(),
            kind,
        });
    }
    // An integer is written without places (`9`, not `9.0`, which a case
    // may not give it), and is never swept by fractions.
    let whole = matches!(input.kind, InputKind::Integer { .. });
    if whole && !(vary.from.fract().is_zero() && vary.step.fract().is_zero()) {
        return Err(SweepError::NotWhole {
            field: vary.field.clone(),
            from: vary.from,
            step: vary.step,
        });
    }
    let as_number = matches!(lookup(case, &vary.field), Some(Value::Number(_)));
    let mut columns: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for x in vary.values() {
        let x = if whole { x.normalize() } else { x };
        let mut case = case.clone();
        let written = if as_number {
            serde_json::from_str::<Value>(&x.to_string())
                .map_err(|e| SweepError::Number(e.to_string()))?
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
                    decision: Some(answer.decision.clone()),
                    fault: false,
                    values,
                    error: None,
                }
            }
            Ok((Outcome::Rejected(e), _)) => Row {
                x,
                decision: None,
                fault: false,
                values: IndexMap::new(),
                error: Some(format!("{}: {}", e.path, e.message)),
            },
            Err(e) => Row {
                x,
                decision: None,
                fault: true,
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

fn set(case: &mut Value, path: &str, value: Value) -> Result<(), SweepError> {
    let mut here = case;
    let mut keys = path.split('.').peekable();
    while let Some(key) = keys.next() {
        let Value::Object(map) = here else {
            return Err(SweepError::NoObject {
                path: path.to_string(),
                key: key.to_string(),
            });
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
    /// How many values the rulebook faulted on.
    pub fn faults(&self) -> usize {
        self.rows.iter().filter(|r| r.fault).count()
    }

    /// The rows as CSV: the field, the decision, one column per numeric
    /// answer field, `error`. A field varied named `decision` or `error` is
    /// headed `input.NAME`, an answer field named as the field varied's
    /// column, `decision` or `error` is headed `answer.NAME`, so that no
    /// two columns share a name (a reader by name would lose one).
    pub fn csv(&self) -> String {
        let mut out = String::new();
        let taken = |c: &str| c == "decision" || c == "error";
        let varied = match taken(&self.field) {
            true => format!("input.{}", self.field),
            false => self.field.clone(),
        };
        let answer = |c: &String| match *c == self.field || *c == varied || taken(c) {
            true => format!("answer.{c}"),
            false => c.clone(),
        };
        let header: Vec<String> = [varied.clone(), "decision".to_string()]
            .into_iter()
            .chain(self.columns.iter().map(answer))
            .chain(std::iter::once("error".to_string()))
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
            let mut cells = vec![
                row.x.to_string(),
                quote(row.decision.as_deref().unwrap_or("")),
            ];
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
