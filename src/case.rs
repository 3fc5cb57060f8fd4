//! Case validation: a JSON case checked against a rulebook's input schema.
//!
//! Inputs are validated in declaration order and the first fault is
//! reported, as a [`CaseError`] naming the field path and the governing
//! clause. What passes becomes [`Facts`]: one [`Value`] per input, plus the
//! table rows a case supplies.
//!
//! Invariant: nothing from the case is trusted — every JSON shape, number
//! form and size is checked here, and nothing here panics.

use rust_decimal::Decimal;
use serde::Serialize;
use std::sync::Arc;

use crate::rulebook::model::{Input, InputKind, JsonNumbers, NumberSpec, Row, Rulebook, Table};
use crate::value::{Month, Record, Value};

/// A rejected case: where and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{path}: {message}")]
pub struct CaseError {
    /// Dotted field path, `[i]` for list items, `$` for the case itself.
    pub path: String,
    /// What is wrong, citing the clause.
    pub message: String,
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
}

/// A validated case.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// One value per top-level input.
    pub values: Vec<Value>,
    /// How each value came to be.
    pub given: Vec<Given>,
    /// Rows supplied by the case, per table (`None`: the rulebook's rows).
    pub tables: Vec<Option<Arc<[Row]>>>,
}

/// Validates a case, reporting the first fault in declaration order.
pub fn validate_case(rb: &Rulebook, case: &serde_json::Value) -> Result<Facts, CaseError> {
    let Some(object) = case.as_object() else {
        return Err(CaseError {
            path: "$".into(),
            message: format!("the case must be a JSON object, found {}", json_kind(case)),
        });
    };
    let mut facts = Facts {
        tables: vec![None; rb.tables.len()],
        ..Facts::default()
    };
    for input in &rb.inputs {
        if let Some(cond) = &input.when {
            let applies =
                crate::eval::evaluate_condition(rb, &facts, cond).map_err(|e| CaseError {
                    path: input.name.to_string(),
                    message: e.to_string(),
                })?;
            if !applies {
                facts.values.push(Value::Absent);
                facts.given.push(Given::Ignored);
                continue;
            }
        }
        let raw = object.get(&*input.name);
        let missing = raw.is_none_or(serde_json::Value::is_null);
        let (value, given) = match &input.kind {
            InputKind::Table { table } => {
                let rows = match raw {
                    None | Some(serde_json::Value::Null) => None,
                    Some(v) => Some(validate_rows(input, &rb.tables[*table], v, &input.name)?),
                };
                let given = if rows.is_some() {
                    Given::Value
                } else {
                    Given::Absent
                };
                facts.tables[*table] = rows;
                (Value::Absent, given)
            }
            _ => {
                let value = validate_value(input, raw, &input.name)?;
                let given = match (raw, &value) {
                    (Some(serde_json::Value::Null), Value::Null) => Given::Null,
                    (_, v) if input.default.is_some() && missing && !v.is_missing() => {
                        Given::Default
                    }
                    (Some(serde_json::Value::Null), _) => Given::Null,
                    (None, _) => Given::Absent,
                    _ => Given::Value,
                };
                (value, given)
            }
        };
        facts.values.push(value);
        facts.given.push(given);
    }
    Ok(facts)
}

fn clause_note(input: &Input) -> String {
    input
        .clause
        .as_ref()
        .map(|c| format!(" ({c})"))
        .unwrap_or_default()
}

fn fail<T>(input: &Input, path: &str, message: impl Into<String>) -> Result<T, CaseError> {
    Err(CaseError {
        path: path.to_string(),
        message: format!("{}{}", message.into(), clause_note(input)),
    })
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "a list",
        serde_json::Value::Object(_) => "an object",
    }
}

/// A short quotation of a JSON value for messages.
fn shown(v: &serde_json::Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text
    }
}

/// Validates one value (absent when `raw` is `None`) against an input declaration.
pub fn validate_value(
    input: &Input,
    raw: Option<&serde_json::Value>,
    path: &str,
) -> Result<Value, CaseError> {
    let raw = match raw {
        None => None,
        Some(serde_json::Value::Null) if input.nullable => return Ok(Value::Null),
        Some(serde_json::Value::Null) => None,
        Some(v) => Some(v),
    };
    let Some(raw) = raw else {
        if input.required {
            return fail(input, path, "is required");
        }
        return Ok(input.default.clone().unwrap_or(Value::Absent));
    };
    match &input.kind {
        InputKind::Money(spec) | InputKind::Decimal(spec) => {
            let money = matches!(input.kind, InputKind::Money(_));
            number(input, spec, money, raw, path).map(Value::Number)
        }
        InputKind::Integer { min, max } => {
            let text = match raw {
                serde_json::Value::Number(n) => n.to_string(),
                other => {
                    return fail(
                        input,
                        path,
                        format!("must be a whole number, found {}", json_kind(other)),
                    )
                }
            };
            let digits = text.strip_prefix('-').unwrap_or(&text);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return fail(input, path, format!("must be a whole number, found {text}"));
            }
            let Ok(n) = Decimal::from_str_exact(&text) else {
                return fail(input, path, format!("{text} is too large"));
            };
            bounds(input, path, n, *min, *max)?;
            Ok(Value::Number(n))
        }
        InputKind::Bool => match raw {
            serde_json::Value::Bool(b) => Ok(Value::Bool(*b)),
            other => fail(
                input,
                path,
                format!("must be true or false, found {}", shown(other)),
            ),
        },
        InputKind::Text { max_length } => match raw {
            serde_json::Value::String(s) if s.chars().count() <= *max_length => {
                Ok(Value::Text(Arc::from(s.as_str())))
            }
            serde_json::Value::String(_) => fail(
                input,
                path,
                format!("is longer than {max_length} characters"),
            ),
            other => fail(
                input,
                path,
                format!("must be a text, found {}", json_kind(other)),
            ),
        },
        InputKind::Enum { values } => match raw {
            serde_json::Value::String(s) => match values.iter().find(|v| ***v == **s) {
                Some(v) => Ok(Value::Text(v.clone())),
                None => fail(
                    input,
                    path,
                    format!("must be one of {}, found {}", list(values), shown(raw)),
                ),
            },
            other => fail(
                input,
                path,
                format!("must be one of {}, found {}", list(values), shown(other)),
            ),
        },
        InputKind::Date { min, max } => {
            let date = raw
                .as_str()
                .filter(|s| is_date_shape(s))
                .and_then(|s| chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").ok());
            let Some(date) = date else {
                return fail(
                    input,
                    path,
                    format!("must be a date YYYY-MM-DD, found {}", shown(raw)),
                );
            };
            if min.is_some_and(|m| date < m) || max.is_some_and(|m| date > m) {
                return fail(
                    input,
                    path,
                    format!(
                        "{date} is outside {}",
                        range_text(min.map(|d| d.to_string()), max.map(|d| d.to_string()))
                    ),
                );
            }
            Ok(Value::Date(date))
        }
        InputKind::Month { min, max } => {
            let Some(month) = raw.as_str().and_then(Month::parse) else {
                return fail(
                    input,
                    path,
                    format!("must be a month YYYY-MM, found {}", shown(raw)),
                );
            };
            if min.is_some_and(|m| month < m) || max.is_some_and(|m| month > m) {
                let range = range_text(min.map(|m| m.to_string()), max.map(|m| m.to_string()));
                return fail(input, path, format!("{month} is outside {range}"));
            }
            Ok(Value::Month(month))
        }
        InputKind::Record { fields, names, .. } => {
            let Some(object) = raw.as_object() else {
                return fail(
                    input,
                    path,
                    format!("must be an object, found {}", json_kind(raw)),
                );
            };
            let mut values = Vec::with_capacity(fields.len());
            for field in fields {
                let field_path = format!("{path}.{}", field.name);
                values.push(validate_value(
                    field,
                    object.get(&*field.name),
                    &field_path,
                )?);
            }
            Ok(Value::Record(Arc::new(Record {
                name: None,
                names: names.clone(),
                fields: values.into(),
            })))
        }
        InputKind::List { item, max_items } => {
            let Some(items) = raw.as_array() else {
                return fail(
                    input,
                    path,
                    format!("must be a list, found {}", json_kind(raw)),
                );
            };
            if items.len() > *max_items {
                return fail(
                    input,
                    path,
                    format!(
                        "has {} items, more than the limit of {max_items}",
                        items.len()
                    ),
                );
            }
            let mut values = Vec::with_capacity(items.len());
            for (i, it) in items.iter().enumerate() {
                values.push(validate_value(item, Some(it), &format!("{path}[{i}]"))?);
            }
            Ok(Value::List(values.into()))
        }
        InputKind::Table { .. } => fail(
            input,
            path,
            "a table can only be supplied at the top level of a case",
        ),
    }
}

fn list(values: &[Arc<str>]) -> String {
    values
        .iter()
        .map(|v| format!("{v:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn range_text(min: Option<String>, max: Option<String>) -> String {
    match (min, max) {
        (Some(a), Some(b)) => format!("the range {a}…{b}"),
        (Some(a), None) => format!("the range from {a}"),
        (None, Some(b)) => format!("the range up to {b}"),
        (None, None) => "the range".into(),
    }
}

fn is_date_shape(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

fn bounds(
    input: &Input,
    path: &str,
    n: Decimal,
    min: Option<Decimal>,
    max: Option<Decimal>,
) -> Result<(), CaseError> {
    if let Some(m) = min.filter(|m| n < *m) {
        return fail(input, path, format!("{n} is below the minimum {m}"));
    }
    if let Some(m) = max.filter(|m| n > *m) {
        return fail(input, path, format!("{n} is above the maximum {m}"));
    }
    Ok(())
}

/// A money or decimal value: syntax, written places, sign, bounds, scale.
fn number(
    input: &Input,
    spec: &NumberSpec,
    money: bool,
    raw: &serde_json::Value,
    path: &str,
) -> Result<Decimal, CaseError> {
    let what = match (money, spec.places) {
        (true, Some(p)) => format!("an amount with at most {p} decimals"),
        (_, Some(p)) => format!("a decimal with at most {p} decimals"),
        _ => "a plain decimal".to_string(),
    };
    let text = match raw {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Number(n) => match spec.numbers {
            JsonNumbers::Reject => {
                return fail(
                    input,
                    path,
                    format!("must be {what} written as a string, found the number {n}"),
                )
            }
            JsonNumbers::Plain => n.to_string(),
            JsonNumbers::Integer => {
                let t = n.to_string();
                if t.contains(['.', 'e', 'E']) {
                    return fail(
                        input,
                        path,
                        format!("must be {what}: a number must be a whole number, found {t}"),
                    );
                }
                t
            }
        },
        other => {
            return fail(
                input,
                path,
                format!("must be {what}, found {}", shown(other)),
            )
        }
    };
    let unsigned = text.strip_prefix('-').unwrap_or(&text);
    let (int, frac) = match unsigned.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (unsigned, None),
    };
    let plain = !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.is_none_or(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()));
    if !plain {
        return fail(input, path, format!("must be {what}, found {}", shown(raw)));
    }
    let written_places = frac.map_or(0, str::len);
    if let Some(p) = spec.places.filter(|p| written_places > *p as usize) {
        return fail(
            input,
            path,
            format!(
                "has {written_places} decimals, more than {p}: {}",
                shown(raw)
            ),
        );
    }
    if text.starts_with('-') && spec.min.is_some_and(|m| m >= Decimal::ZERO) {
        return fail(
            input,
            path,
            format!("must not be negative, found {}", shown(raw)),
        );
    }
    let Ok(mut n) = Decimal::from_str_exact(&text) else {
        return fail(input, path, format!("{} has too many digits", shown(raw)));
    };
    bounds(input, path, n, spec.min, spec.max)?;
    if let Some(scale) = spec.rescale {
        if n.scale() < scale {
            n.rescale(scale);
        }
    }
    Ok(n)
}

/// Rows a case supplies for a period table: every declared row, every column.
fn validate_rows(
    input: &Input,
    table: &Table,
    raw: &serde_json::Value,
    path: &str,
) -> Result<Arc<[Row]>, CaseError> {
    let Some(object) = raw.as_object() else {
        return fail(
            input,
            path,
            format!("must be an object of rows, found {}", json_kind(raw)),
        );
    };
    let mut rows = Vec::with_capacity(table.rows.len());
    for row in &table.rows {
        let name = row.name.as_deref().unwrap_or_default();
        let row_path = format!("{path}.{name}");
        let cells = match object.get(name) {
            None | Some(serde_json::Value::Null) => {
                return fail(
                    input,
                    &row_path,
                    format!("is missing: the table needs row {name}"),
                )
            }
            Some(serde_json::Value::Object(cells)) => cells,
            Some(other) => {
                return fail(
                    input,
                    &row_path,
                    format!("must be an object, found {}", json_kind(other)),
                )
            }
        };
        let mut values = Vec::with_capacity(table.columns.len());
        for col in &table.columns {
            let cell_path = format!("{row_path}.{}", col.name);
            match cells.get(&*col.name) {
                None | Some(serde_json::Value::Null) => {
                    return fail(
                        input,
                        &cell_path,
                        format!("is missing: row {name} needs column {}", col.name),
                    )
                }
                Some(v) => {
                    let checked =
                        validate_value(col, Some(v), &cell_path).map_err(|e| CaseError {
                            path: e.path,
                            message: format!("{}{}", e.message, clause_note(input)),
                        })?;
                    values.push(checked);
                }
            }
        }
        let record = Record {
            name: row.name.clone(),
            names: table.names.clone(),
            fields: values.into(),
        };
        rows.push(Row {
            name: row.name.clone(),
            period: row.period,
            record: Arc::new(record),
        });
    }
    Ok(rows.into())
}
