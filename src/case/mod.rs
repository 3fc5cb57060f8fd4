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
use std::sync::Arc;

use indexmap::IndexMap;
use std::collections::HashMap;

use crate::facts::{CaseError, Facts, Given};
use crate::model::{
    Input, InputKind, JsonNumbers, NumberSpec, RefTarget, Row, Rulebook, Table, TableKind,
};
use crate::value::{Month, Record, Value};

pub(crate) mod toml;

/// Validates a case, reporting the first fault in declaration order.
pub fn validate_case(rb: &Rulebook, case: &serde_json::Value) -> Result<Facts, CaseError> {
    let Some(object) = case.as_object() else {
        return Err(CaseError {
            path: "$".into(),
            message: format!("the case must be a JSON object, found {}", json_kind(case)),
        });
    };
    let mut facts = Facts {
        values: Vec::with_capacity(rb.inputs.len()),
        given: Vec::with_capacity(rb.inputs.len()),
        tables: vec![None; rb.tables.len()],
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
        let null_kept = input.nullable && raw.is_some_and(serde_json::Value::is_null);
        if let (true, false, Some(cond)) = (missing, null_kept, &input.required_when) {
            let required =
                crate::eval::evaluate_condition(rb, &facts, cond).map_err(|e| CaseError {
                    path: input.name.to_string(),
                    message: e.to_string(),
                })?;
            if required {
                let message = format!("is required when {}{}", cond.text, clause_note(input));
                return Err(CaseError {
                    path: input.name.to_string(),
                    message,
                });
            }
        }
        let (value, given) = match &input.kind {
            InputKind::Table { table } => {
                let rows = match raw {
                    None | Some(serde_json::Value::Null) => None,
                    Some(v) => Some(validate_rows(
                        input,
                        &rb.tables[*table],
                        v,
                        &input.name,
                        rb.limits.max_list_items,
                    )?),
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
                let refs = Refs { rb, facts: &facts };
                let value = validate_value(input, raw, &input.name, Some(&refs))?;
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
        for (when, path, message) in &input.after {
            let fired = crate::eval::after_check(rb, &facts, when, path, message).map_err(|e| {
                CaseError {
                    path: input.name.to_string(),
                    message: e.to_string(),
                }
            })?;
            if let Some((path, message)) = fired {
                return Err(CaseError {
                    path,
                    message: format!("{message}{}", clause_note(input)),
                });
            }
        }
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
    refs: Option<&Refs<'_>>,
) -> Result<Value, CaseError> {
    validate_in(input, raw, path, refs, None)
}

/// Validates a value; `item` is the record it belongs to, as far as validated, for field rules.
fn validate_in(
    input: &Input,
    raw: Option<&serde_json::Value>,
    path: &str,
    refs: Option<&Refs<'_>>,
    item: Option<&Value>,
) -> Result<Value, CaseError> {
    let value = validate_shape(input, raw, path, refs)?;
    if let (Some(target), Some(refs), Value::Text(key)) = (input.refers, refs, &value) {
        refs.check(input, target, key, path)?;
    }
    // Rules judge a value that is there; absence is `required`'s business.
    if let (Some(refs), false) = (refs, value.is_missing()) {
        for rule in &input.rejects {
            let fired = crate::eval::field_rule_message(refs.rb, refs.facts, rule, &value, item)
                .map_err(|e| CaseError {
                    path: path.to_string(),
                    message: e.to_string(),
                })?;
            if let Some(message) = fired {
                return fail(input, path, message);
            }
        }
    }
    Ok(value)
}

/// What `ref` fields are checked against: the inputs validated so far and the tables in force.
pub struct Refs<'a> {
    /// The rulebook.
    pub rb: &'a Rulebook,
    /// The facts validated so far.
    pub facts: &'a Facts,
}

impl Refs<'_> {
    fn check(
        &self,
        input: &Input,
        target: RefTarget,
        key: &Arc<str>,
        path: &str,
    ) -> Result<(), CaseError> {
        match target {
            RefTarget::Input(i) => {
                let name = &self.rb.inputs[i].name;
                match self.facts.values.get(i) {
                    Some(Value::Map(entries)) if entries.contains_key(key) => Ok(()),
                    _ => fail(input, path, format!("{key:?} is not a key of {name}")),
                }
            }
            RefTarget::ListField(i, f) => {
                let input_decl = &self.rb.inputs[i];
                let wanted = Value::Text(key.clone());
                let found = match self.facts.values.get(i) {
                    Some(Value::List(items)) => items.iter().any(|it| match it {
                        Value::Record(r) => r.fields.get(f) == Some(&wanted),
                        _ => false,
                    }),
                    _ => false,
                };
                if found {
                    return Ok(());
                }
                let field = match &input_decl.kind {
                    InputKind::List { item, .. } => match &item.kind {
                        InputKind::Record { fields, .. } => fields
                            .get(f)
                            .map(|x| x.name.to_string())
                            .unwrap_or_default(),
                        _ => String::new(),
                    },
                    _ => String::new(),
                };
                fail(
                    input,
                    path,
                    format!("{key:?} is not the {field} of any of {}", input_decl.name),
                )
            }
            RefTarget::Table(t) => {
                let table = &self.rb.tables[t];
                let rows = self
                    .facts
                    .tables
                    .get(t)
                    .and_then(Option::as_ref)
                    .map_or(&table.rows[..], |r| &r[..]);
                let TableKind::Keyed { keys } = &table.kind else {
                    return Ok(());
                };
                let Some(&col) = keys.first() else {
                    return Ok(());
                };
                let wanted = Value::Text(key.clone());
                if rows
                    .iter()
                    .any(|r| r.record.fields.get(col) == Some(&wanted))
                {
                    return Ok(());
                }
                let source = match self
                    .rb
                    .inputs
                    .iter()
                    .find(|i| matches!(i.kind, InputKind::Table { table } if table == t))
                {
                    Some(i) if self.facts.tables.get(t).is_some_and(Option::is_some) => {
                        format!(" (as supplied at {})", i.name)
                    }
                    _ => String::new(),
                };
                fail(
                    input,
                    path,
                    format!("{key:?} is not in table {}{source}", table.name),
                )
            }
        }
    }
}

/// Validates the shape of one value; `ref` is checked by the caller.
fn validate_shape(
    input: &Input,
    raw: Option<&serde_json::Value>,
    path: &str,
    refs: Option<&Refs<'_>>,
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
        InputKind::Fraction { min, max } => {
            let parsed = match raw {
                serde_json::Value::String(s) => crate::num::exact::parse_fraction(s),
                serde_json::Value::Number(n)
                    if n.to_string().bytes().all(|b| b.is_ascii_digit()) =>
                {
                    crate::num::exact::parse_fraction(&n.to_string())
                }
                _ => None,
            };
            let Some(n) = parsed else {
                return fail(
                    input,
                    path,
                    format!(
                        "must be a fraction like \"3/8\", \"0.25\" or 1, found {}",
                        shown(raw)
                    ),
                );
            };
            let below = min.is_some_and(|m| {
                n.cmp_exact(crate::num::exact::Num::Dec(m))
                    .is_ok_and(|o| o.is_lt())
            });
            let above = max.is_some_and(|m| {
                n.cmp_exact(crate::num::exact::Num::Dec(m))
                    .is_ok_and(|o| o.is_gt())
            });
            if below || above {
                return fail(
                    input,
                    path,
                    format!(
                        "{n} is outside {}",
                        range_text(min.map(|d| d.to_string()), max.map(|d| d.to_string()))
                    ),
                );
            }
            Ok(Value::from_num(n))
        }
        InputKind::Integer { min, max } => {
            let text = match raw {
                serde_json::Value::Number(n) => n.as_str(),
                other => {
                    return fail(
                        input,
                        path,
                        format!("must be a whole number, found {}", json_kind(other)),
                    )
                }
            };
            let digits = text.strip_prefix('-').unwrap_or(text);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return fail(input, path, format!("must be a whole number, found {text}"));
            }
            // As for amounts, a minus sign is negative even on zero.
            if text.starts_with('-') && min.is_some_and(|m| m >= Decimal::ZERO) {
                return fail(input, path, format!("must not be negative, found {text}"));
            }
            let Ok(n) = Decimal::from_str_exact(text) else {
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
            within(input, path, date, *min, *max)?;
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
            within(input, path, month, *min, *max)?;
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
            record(fields, names, object, path, refs, None)
        }
        InputKind::List {
            item,
            min_items,
            max_items,
        } => {
            let Some(items) = raw.as_array() else {
                return fail(
                    input,
                    path,
                    format!("must be a list, found {}", json_kind(raw)),
                );
            };
            count_bounds(input, path, items.len(), *min_items, *max_items)?;
            let mut values = Vec::with_capacity(items.len());
            match &item.kind {
                InputKind::Record { fields, names, .. } if fields.iter().any(|f| f.unique) => {
                    let mut seen: Vec<HashMap<String, usize>> = vec![HashMap::new(); fields.len()];
                    let mut paths = PartPaths::new(path);
                    for (i, it) in items.iter().enumerate() {
                        let item_path = paths.index(i);
                        if it.is_null() && item.nullable {
                            values.push(Value::Null);
                            continue;
                        }
                        let Some(object) = it.as_object() else {
                            return fail(
                                item,
                                item_path,
                                format!("must be an object, found {}", json_kind(it)),
                            );
                        };
                        values.push(record(
                            fields,
                            names,
                            object,
                            item_path,
                            refs,
                            Some((&mut seen, path, i)),
                        )?);
                    }
                }
                _ => {
                    let mut paths = PartPaths::new(path);
                    for (i, it) in items.iter().enumerate() {
                        values.push(entry(item, it, paths.index(i), refs)?);
                    }
                }
            }
            Ok(Value::List(values.into()))
        }
        InputKind::Map {
            item,
            keys,
            min_items,
            max_items,
        } => {
            let Some(object) = raw.as_object() else {
                return fail(
                    input,
                    path,
                    format!("must be an object, found {}", json_kind(raw)),
                );
            };
            let mut entries = IndexMap::with_capacity(object.len());
            let mut paths = PartPaths::new(path);
            match keys {
                Some(keys) => {
                    for key in keys {
                        let entry_path = paths.field(key);
                        match object.get(&**key) {
                            None | Some(serde_json::Value::Null) => {
                                return fail(item, entry_path, "is missing")
                            }
                            Some(v) => {
                                entries.insert(key.clone(), entry(item, v, entry_path, refs)?)
                            }
                        };
                    }
                }
                None => {
                    count_bounds(input, path, object.len(), *min_items, *max_items)?;
                    for (key, v) in object {
                        let entry_path = paths.field(key);
                        if let (Some(target), Some(refs)) = (input.key_ref, refs) {
                            refs.check(input, target, &Arc::from(key.as_str()), entry_path)?;
                        }
                        entries.insert(Arc::from(key.as_str()), entry(item, v, entry_path, refs)?);
                    }
                }
            }
            Ok(Value::Map(Arc::new(entries)))
        }
        InputKind::Table { .. } => fail(
            input,
            path,
            "a table can only be supplied at the top level of a case",
        ),
    }
}

/// An item of a list or an entry of a map: present by construction, so a
/// `null` there is a wrong value, not an absent one.
fn entry(
    item: &Input,
    raw: &serde_json::Value,
    path: &str,
    refs: Option<&Refs<'_>>,
) -> Result<Value, CaseError> {
    if raw.is_null() && !item.nullable {
        let what = match item.kind {
            InputKind::Record { .. } | InputKind::Map { .. } => "an object",
            InputKind::List { .. } => "a list",
            _ => "a value",
        };
        return fail(item, path, format!("must be {what}, found null"));
    }
    validate_value(item, Some(raw), path, refs)
}

/// The paths of a value's parts (`person.name`, `lines[3]`), written in one
/// buffer: most are never shown, so each part overwrites the one before.
struct PartPaths {
    text: String,
    base: usize,
}

impl PartPaths {
    fn new(path: &str) -> Self {
        let mut text = String::with_capacity(path.len() + 24);
        text.push_str(path);
        PartPaths {
            base: text.len(),
            text,
        }
    }

    fn field(&mut self, name: &str) -> &str {
        self.text.truncate(self.base);
        self.text.push('.');
        self.text.push_str(name);
        &self.text
    }

    fn index(&mut self, i: usize) -> &str {
        use std::fmt::Write as _;
        self.text.truncate(self.base);
        let _ = write!(self.text, "[{i}]");
        &self.text
    }
}

/// For the records of a list: values of `unique` fields seen so far (per
/// field, value → first index), the list's path, and the current index.
type Seen<'a> = (&'a mut Vec<HashMap<String, usize>>, &'a str, usize);

/// Validates a record's fields in order. Inside a list, `unique` fields are
/// checked against the items before, and a repeat is reported where it occurs.
fn record(
    fields: &[Input],
    names: &Arc<[Arc<str>]>,
    object: &serde_json::Map<String, serde_json::Value>,
    path: &str,
    refs: Option<&Refs<'_>>,
    mut unique: Option<Seen<'_>>,
) -> Result<Value, CaseError> {
    let mut values = Vec::with_capacity(fields.len());
    let mut paths = PartPaths::new(path);
    for (j, field) in fields.iter().enumerate() {
        let field_path = paths.field(&field.name);
        let value = if field.rejects.is_empty() {
            validate_value(field, object.get(&*field.name), field_path, refs)?
        } else {
            // Field rules see the record as validated so far; later fields are absent.
            let mut partial = values.clone();
            partial.resize(fields.len(), Value::Absent);
            let item = Value::Record(Arc::new(Record {
                name: None,
                names: names.clone(),
                fields: partial.into(),
            }));
            validate_in(
                field,
                object.get(&*field.name),
                field_path,
                refs,
                Some(&item),
            )?
        };
        if let (true, Some((seen, list_path, index))) =
            (field.unique && !value.is_missing(), unique.as_mut())
        {
            // Compared by value: "1.0" and "1.00" are the same amount.
            let key = match &value {
                Value::Number(n) => n.normalize().to_string(),
                other => other.to_string(),
            };
            if let Some(first) = seen[j].insert(key, *index) {
                return fail(
                    field,
                    field_path,
                    format!("repeats {value} of {list_path}[{first}]"),
                );
            }
        }
        values.push(value);
    }
    Ok(Value::Record(Arc::new(Record {
        name: None,
        names: names.clone(),
        fields: values.into(),
    })))
}

fn count_bounds(
    input: &Input,
    path: &str,
    n: usize,
    min: usize,
    max: usize,
) -> Result<(), CaseError> {
    if n > max {
        return fail(
            input,
            path,
            format!("has {n} items, more than the limit of {max}"),
        );
    }
    if n < min {
        return fail(input, path, format!("has {n} items, fewer than {min}"));
    }
    Ok(())
}

fn list(values: &[Arc<str>]) -> String {
    values
        .iter()
        .map(|v| format!("{v:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Rejects a date or month outside its declared bounds.
fn within<T: PartialOrd + std::fmt::Display>(
    input: &Input,
    path: &str,
    v: T,
    min: Option<T>,
    max: Option<T>,
) -> Result<(), CaseError> {
    let below = min.as_ref().is_some_and(|m| v < *m);
    let above = max.as_ref().is_some_and(|m| v > *m);
    if below || above {
        let range = range_text(min.map(|d| d.to_string()), max.map(|d| d.to_string()));
        return fail(input, path, format!("{v} is outside {range}"));
    }
    Ok(())
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
    // Written out only for a message: most numbers are valid.
    let what = || match (money, spec.places) {
        (true, Some(p)) => format!("an amount with at most {p} decimals"),
        (_, Some(p)) => format!("a decimal with at most {p} decimals"),
        _ => "a plain decimal".to_string(),
    };
    let text: &str = match raw {
        serde_json::Value::String(s) => s,
        serde_json::Value::Number(n) => match spec.numbers {
            JsonNumbers::Reject => {
                return fail(
                    input,
                    path,
                    format!(
                        "must be {} written as a string, found the number {n}",
                        what()
                    ),
                )
            }
            // As written in the case (`arbitrary_precision` keeps the text).
            JsonNumbers::Plain => n.as_str(),
            JsonNumbers::Integer => {
                let t = n.as_str();
                if t.contains(['.', 'e', 'E']) {
                    return fail(
                        input,
                        path,
                        format!(
                            "must be {}: a number must be a whole number, found {t}",
                            what()
                        ),
                    );
                }
                t
            }
        },
        other => {
            return fail(
                input,
                path,
                format!("must be {}, found {}", what(), shown(other)),
            )
        }
    };
    let unsigned = text.strip_prefix('-').unwrap_or(text);
    let (int, frac) = match unsigned.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (unsigned, None),
    };
    let plain = !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.is_none_or(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()));
    if !plain {
        return fail(
            input,
            path,
            format!("must be {}, found {}", what(), shown(raw)),
        );
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
    let Ok(mut n) = Decimal::from_str_exact(text) else {
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

/// Rows a case supplies for a table, every column validated.
///
/// A period table's rows keep their names and periods: the case gives every
/// declared row by name. A keyed table (one key) is replaced whole: each
/// entry of the object is a row, its key the key column.
fn validate_rows(
    input: &Input,
    table: &Table,
    raw: &serde_json::Value,
    path: &str,
    max_rows: usize,
) -> Result<Arc<[Row]>, CaseError> {
    let Some(object) = raw.as_object() else {
        return fail(
            input,
            path,
            format!("must be an object of rows, found {}", json_kind(raw)),
        );
    };
    let row_object = |row_path: &str, what: &str, v: Option<&serde_json::Value>| match v {
        None | Some(serde_json::Value::Null) => fail(
            input,
            row_path,
            format!("is missing: the table needs {what}"),
        ),
        Some(serde_json::Value::Object(cells)) => Ok(cells.clone()),
        Some(other) => fail(
            input,
            row_path,
            format!("must be an object, found {}", json_kind(other)),
        ),
    };
    let mut rows = Vec::new();
    match &table.kind {
        TableKind::Keyed { keys } => {
            count_bounds(input, path, object.len(), 0, max_rows)?;
            let key_col = keys.first().copied().unwrap_or(0);
            for (key, entry) in object {
                let row_path = format!("{path}.{key}");
                let cells = row_object(&row_path, &format!("row {key}"), Some(entry))?;
                let values = row_cells(input, table, &cells, &row_path, Some((key_col, key)))?;
                let name: Arc<str> = Arc::from(key.as_str());
                let record = Record {
                    name: None,
                    names: table.names.clone(),
                    fields: values,
                };
                rows.push(Row {
                    name: Some(name),
                    period: None,
                    record: Arc::new(record),
                });
            }
        }
        _ => {
            for row in &table.rows {
                let name = row.name.as_deref().unwrap_or_default();
                let row_path = format!("{path}.{name}");
                let cells = row_object(&row_path, &format!("row {name}"), object.get(name))?;
                let values = row_cells(input, table, &cells, &row_path, None)?;
                let record = Record {
                    name: row.name.clone(),
                    names: table.names.clone(),
                    fields: values,
                };
                rows.push(Row {
                    name: row.name.clone(),
                    period: row.period,
                    record: Arc::new(record),
                });
            }
        }
    }
    Ok(rows.into())
}

/// The cells of one supplied row, in column order; a keyed row's key column
/// comes from the object's key (`(column, key)`), not from its cells.
fn row_cells(
    input: &Input,
    table: &Table,
    cells: &serde_json::Map<String, serde_json::Value>,
    row_path: &str,
    key: Option<(usize, &str)>,
) -> Result<Box<[Value]>, CaseError> {
    table
        .columns
        .iter()
        .enumerate()
        .map(|(c, col)| match key {
            Some((key_col, key)) if c == key_col => cell(
                input,
                col,
                Some(&serde_json::Value::String(key.to_string())),
                row_path,
            ),
            _ => cell(
                input,
                col,
                cells.get(&*col.name),
                &format!("{row_path}.{}", col.name),
            ),
        })
        .collect()
}

/// One cell of a supplied row: required, typed like the column, citing the table input's clause.
fn cell(
    input: &Input,
    col: &Input,
    raw: Option<&serde_json::Value>,
    path: &str,
) -> Result<Value, CaseError> {
    let cite = |e: CaseError| CaseError {
        path: e.path,
        message: format!("{}{}", e.message, clause_note(input)),
    };
    match raw {
        None | Some(serde_json::Value::Null) if col.nullable => Ok(Value::Absent),
        None | Some(serde_json::Value::Null) => fail(
            input,
            path,
            format!("is missing: every row needs column {}", col.name),
        ),
        Some(v) => validate_value(col, Some(v), path, None).map_err(cite),
    }
}
