//! The shape of one value of a case: absent, null or present, and then of
//! its declared kind, records, lists and maps checked part by part.
//!
//! `validate_shape` dispatches on the input's kind to one function per
//! kind, so each kind's messages sit together; numbers are read in
//! `number`. A part's path (`lines[3].amount`) is written only when a
//! message needs it, as most values are valid.
//!
//! Invariant: the first fault in a value's own order (fields as declared,
//! items and entries as written) is the one reported.

use std::collections::HashMap;
use std::sync::Arc;

use indexmap::IndexMap;

use super::json::{JsonKind, JsonView};
use super::keys;
use super::messages::{fail, json_kind, range_text, shown};
use super::number::{fraction, integer, number};
use super::refs::Refs;
use crate::facts::CaseError;
use crate::model::{ExtraKeys, Input, InputKind};
use crate::value::{Month, Record, Value};

/// Validates the shape of one value; `ref` is checked by the caller.
pub(super) fn validate_shape<'j, J: JsonView<'j>>(
    input: &Input,
    raw: Option<J>,
    path: &str,
    refs: Option<&Refs<'_>>,
) -> Result<Value, CaseError> {
    let raw = match raw {
        None => None,
        Some(v) if v.is_null() && input.nullable => return Ok(Value::Null),
        Some(v) if v.is_null() => None,
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
        InputKind::Fraction { min, max } => fraction(input, raw, path, *min, *max),
        InputKind::Integer { min, max } => integer(input, raw, path, *min, *max),
        InputKind::Bool => boolean(input, raw, path),
        InputKind::Text { max_length } => text(input, raw, path, *max_length),
        InputKind::Enum { values } => one_of(input, raw, path, values),
        InputKind::Date { min, max } => calendar(
            input,
            raw,
            path,
            (crate::value::parse_date, "a date YYYY-MM-DD"),
            *min,
            *max,
        )
        .map(Value::Date),
        InputKind::Month { min, max } => calendar(
            input,
            raw,
            path,
            (Month::parse, "a month YYYY-MM"),
            *min,
            *max,
        )
        .map(Value::Month),
        InputKind::Record { .. } => record_input(input, raw, path, refs, None),
        InputKind::List {
            item,
            min_items,
            max_items,
        } => {
            if !raw.is_array() {
                return fail(
                    input,
                    path,
                    format!("must be a list, found {}", json_kind(raw)),
                );
            }
            count_bounds(input, path, raw.len(), *min_items, *max_items)?;
            list(item, raw, path, refs)
        }
        InputKind::Map {
            item,
            keys,
            min_items,
            max_items,
        } => {
            if !raw.is_object() {
                return fail(
                    input,
                    path,
                    format!("must be an object, found {}", json_kind(raw)),
                );
            }
            match keys {
                Some(keys) => map_of_keys(item, keys, raw, path, refs),
                None => {
                    count_bounds(input, path, raw.len(), *min_items, *max_items)?;
                    open_map(input, item, raw, path, refs)
                }
            }
        }
        InputKind::Table { .. } => fail(
            input,
            path,
            "a table can only be supplied at the top level of a case",
        ),
    }
}

fn boolean<'j, J: JsonView<'j>>(input: &Input, raw: J, path: &str) -> Result<Value, CaseError> {
    match raw.kind() {
        JsonKind::Bool(b) => Ok(Value::Bool(b)),
        _ => fail(
            input,
            path,
            format!("must be true or false, found {}", shown(raw)),
        ),
    }
}

/// A text of at most `max_length` characters (not bytes).
fn text<'j, J: JsonView<'j>>(
    input: &Input,
    raw: J,
    path: &str,
    max_length: usize,
) -> Result<Value, CaseError> {
    match raw.as_str() {
        Some(s) if within_length(s, max_length) => Ok(Value::Text(Arc::from(s))),
        Some(_) => fail(
            input,
            path,
            format!("is longer than {max_length} characters"),
        ),
        None => fail(
            input,
            path,
            format!("must be a text, found {}", json_kind(raw)),
        ),
    }
}

/// Whether a text has at most `max` characters; its bytes are counted first,
/// as most texts are short.
fn within_length(s: &str, max: usize) -> bool {
    s.len() <= max || s.chars().count() <= max
}

/// One of an enum's values, held as the declared text so values are shared.
fn one_of<'j, J: JsonView<'j>>(
    input: &Input,
    raw: J,
    path: &str,
    values: &[Arc<str>],
) -> Result<Value, CaseError> {
    match raw.as_str() {
        Some(s) => match values.iter().find(|v| ***v == *s) {
            Some(v) => Ok(Value::Text(v.clone())),
            None => fail(
                input,
                path,
                format!("must be one of {}, found {}", choices(values), shown(raw)),
            ),
        },
        None => fail(
            input,
            path,
            format!("must be one of {}, found {}", choices(values), shown(raw)),
        ),
    }
}

/// A date (`YYYY-MM-DD`) or month (`YYYY-MM`) written exactly, within the
/// calendar and its bounds; `form` names the form in the message.
fn calendar<'j, T: PartialOrd + std::fmt::Display + Copy, J: JsonView<'j>>(
    input: &Input,
    raw: J,
    path: &str,
    (parse, form): (fn(&str) -> Option<T>, &str),
    min: Option<T>,
    max: Option<T>,
) -> Result<T, CaseError> {
    let Some(v) = raw.as_str().and_then(parse) else {
        return fail(input, path, format!("must be {form}, found {}", shown(raw)));
    };
    within(input, path, v, min, max)?;
    Ok(v)
}

/// A record input's value: an object, or a text read through its
/// `pattern` as the record of its named groups; with `unique`, its fields
/// checked against the list's items before. One reader for a record
/// alone and a list's item (the list's road once read objects only, and
/// refused every text of a pattern with a unique group).
fn record_input<'j, J: JsonView<'j>>(
    input: &Input,
    raw: J,
    path: &str,
    refs: Option<&Refs<'_>>,
    unique: Option<Seen<'_>>,
) -> Result<Value, CaseError> {
    let InputKind::Record {
        fields,
        names,
        pattern,
        ..
    } = &input.kind
    else {
        return fail(input, path, "is not a record");
    };
    let Some(pattern) = pattern else {
        if !raw.is_object() {
            return fail(
                input,
                path,
                format!("must be an object, found {}", json_kind(raw)),
            );
        }
        return record(fields, names, raw, path, refs, unique, &input.extra_keys);
    };
    let Some(text) = raw.as_str() else {
        return fail(
            input,
            path,
            format!("must be a text, found {}", json_kind(raw)),
        );
    };
    let Some(object) = pattern.groups(fields, text) else {
        return fail(
            input,
            path,
            format!("{} does not match the pattern {}", shown(raw), pattern.text),
        );
    };
    record(
        fields,
        names,
        &object,
        path,
        refs,
        unique,
        &ExtraKeys::Allow,
    )
}

/// The items of a list, counted already; records with `unique` fields are
/// checked against the items before.
fn list<'j, J: JsonView<'j>>(
    item: &Input,
    items: J,
    path: &str,
    refs: Option<&Refs<'_>>,
) -> Result<Value, CaseError> {
    let mut values = Vec::with_capacity(items.len());
    match &item.kind {
        InputKind::Record { fields, .. } if fields.iter().any(|f| f.unique) => {
            let mut seen: Vec<HashMap<UniqueKey, usize>> = vec![HashMap::new(); fields.len()];
            let mut paths = PartPaths::new(path);
            for (i, it) in items.items().enumerate() {
                let item_path = paths.index(i);
                if it.is_null() && item.nullable {
                    values.push(Value::Null);
                    continue;
                }
                let unique = Some((&mut seen, path, i));
                values.push(record_input(item, it, item_path, refs, unique)?);
            }
        }
        _ if item.unique => {
            let mut seen: HashMap<UniqueKey, usize> = HashMap::new();
            let mut paths = PartPaths::new(path);
            for (i, it) in items.items().enumerate() {
                let item_path = paths.index(i);
                let value = entry(item, it, item_path, refs)?;
                if !value.is_missing() {
                    if let Some(first) = seen.insert(unique_key(&value), i) {
                        return fail(
                            item,
                            item_path,
                            format!("repeats {value} of {path}[{first}]"),
                        );
                    }
                }
                values.push(value);
            }
        }
        _ => {
            let mut paths = PartPaths::new(path);
            for (i, it) in items.items().enumerate() {
                values.push(entry(item, it, paths.index(i), refs)?);
            }
        }
    }
    Ok(Value::List(values.into()))
}

/// A map with declared keys: each one present, in declared order.
fn map_of_keys<'j, J: JsonView<'j>>(
    item: &Input,
    keys: &[Arc<str>],
    object: J,
    path: &str,
    refs: Option<&Refs<'_>>,
) -> Result<Value, CaseError> {
    let mut entries = IndexMap::with_capacity(keys.len());
    let mut paths = PartPaths::new(path);
    for key in keys {
        let entry_path = paths.field(key);
        match object.get(key) {
            Some(v) if !v.is_null() => {
                entries.insert(key.clone(), entry(item, v, entry_path, refs)?)
            }
            _ => return fail(item, entry_path, "is missing"),
        };
    }
    Ok(Value::Map(Arc::new(entries)))
}

/// A map with any keys, counted already, in the case's order; with
/// `key_ref`, each key must name something in force.
fn open_map<'j, J: JsonView<'j>>(
    input: &Input,
    item: &Input,
    object: J,
    path: &str,
    refs: Option<&Refs<'_>>,
) -> Result<Value, CaseError> {
    let mut entries = IndexMap::with_capacity(object.len());
    let mut paths = PartPaths::new(path);
    for (key, v) in object.entries() {
        let entry_path = paths.field(key);
        let key: Arc<str> = Arc::from(key);
        if let (Some(target), Some(refs)) = (input.key_ref, refs) {
            refs.check(input, target, &key, entry_path)?;
        }
        let value = entry(item, v, entry_path, refs)?;
        entries.insert(key, value);
    }
    Ok(Value::Map(Arc::new(entries)))
}

/// An item of a list or an entry of a map: present by construction, so a
/// `null` there is a wrong value, not an absent one.
fn entry<'j, J: JsonView<'j>>(
    item: &Input,
    raw: J,
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
pub(super) struct PartPaths {
    text: String,
    base: usize,
}

impl PartPaths {
    pub(super) fn new(path: &str) -> Self {
        let mut text = String::with_capacity(path.len() + 24);
        text.push_str(path);
        PartPaths {
            base: text.len(),
            text,
        }
    }

    pub(super) fn field(&mut self, name: &str) -> &str {
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
type Seen<'a> = (&'a mut Vec<HashMap<UniqueKey, usize>>, &'a str, usize);

/// Validates a record's fields in order. Inside a list, `unique` fields are
/// checked against the items before, and a repeat is reported where it occurs.
/// A key no field declares is refused unless `extra` allows it, before any
/// fault of the fields (`keys`).
fn record<'j, J: JsonView<'j>>(
    fields: &[Input],
    names: &Arc<[Arc<str>]>,
    object: J,
    path: &str,
    refs: Option<&Refs<'_>>,
    unique: Option<Seen<'_>>,
    extra: &ExtraKeys,
) -> Result<Value, CaseError> {
    let declared = || fields.iter().map(|f| &*f.name);
    let values = match record_fields(fields, names, object, path, refs, unique) {
        Ok((values, present)) => {
            keys::refuse_unknown(object, present, declared(), extra, path, "field")?;
            values
        }
        Err(fault) => {
            let fault = keys::unknown_first(fault, extra, object, declared(), path, "field");
            return Err(fault);
        }
    };
    Ok(Value::Record(Arc::new(Record {
        name: None,
        names: names.clone(),
        fields: values.into(),
    })))
}

/// A record's field values in order, and how many of its fields the object
/// holds (`null` included).
fn record_fields<'j, J: JsonView<'j>>(
    fields: &[Input],
    names: &Arc<[Arc<str>]>,
    object: J,
    path: &str,
    refs: Option<&Refs<'_>>,
    mut unique: Option<Seen<'_>>,
) -> Result<(Vec<Value>, usize), CaseError> {
    let mut values = Vec::with_capacity(fields.len());
    let mut paths = PartPaths::new(path);
    let mut present = 0;
    for (j, field) in fields.iter().enumerate() {
        let field_path = paths.field(&field.name);
        let raw = object.get(&field.name);
        present += usize::from(raw.is_some());
        let value = if field.rejects.is_empty() {
            validate_value(field, raw, field_path, refs)?
        } else {
            // Field rules see the record as validated so far; later fields are absent.
            let mut partial = values.clone();
            partial.resize(fields.len(), Value::Absent);
            let item = Value::Record(Arc::new(Record {
                name: None,
                names: names.clone(),
                fields: partial.into(),
            }));
            validate_in(field, raw, field_path, refs, Some(&item))?
        };
        if let (true, Some((seen, list_path, index))) =
            (field.unique && !value.is_missing(), unique.as_mut())
        {
            if let Some(first) = seen[j].insert(unique_key(&value), *index) {
                return fail(
                    field,
                    field_path,
                    format!("repeats {value} of {list_path}[{first}]"),
                );
            }
        }
        values.push(value);
    }
    Ok((values, present))
}

/// What `unique` compares: values, so "1.0" and "1.00" are the same amount.
/// A text is its own key (a line id is the usual unique field, and writing
/// it quoted cost an allocation and an escape per item); any other value
/// is its text, which is never a text's key.
#[derive(Clone, PartialEq, Eq, Hash)]
enum UniqueKey {
    Text(Arc<str>),
    Written(String),
}

fn unique_key(value: &Value) -> UniqueKey {
    match value {
        Value::Text(t) => UniqueKey::Text(t.clone()),
        Value::Number(n) => UniqueKey::Written(n.normalize().to_string()),
        other => UniqueKey::Written(other.to_string()),
    }
}

pub(super) fn count_bounds(
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

/// An enum's values, quoted, for a message.
fn choices(values: &[Arc<str>]) -> String {
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

/// Validates one value (absent when `raw` is `None`) against an input declaration.
pub(crate) fn validate_value<'j, J: JsonView<'j>>(
    input: &Input,
    raw: Option<J>,
    path: &str,
    refs: Option<&Refs<'_>>,
) -> Result<Value, CaseError> {
    validate_in(input, raw, path, refs, None)
}

/// Validates a value; `item` is the record it belongs to, as far as validated, for field rules.
pub(super) fn validate_in<'j, J: JsonView<'j>>(
    input: &Input,
    raw: Option<J>,
    path: &str,
    refs: Option<&Refs<'_>>,
    item: Option<&Value>,
) -> Result<Value, CaseError> {
    validate_lenient(input, raw, path, refs, item).map(|(value, _)| value)
}

/// Validates a value, and says whether it was valid: with `invalid =
/// "absent"`, a value given that would be rejected reads as if it were not
/// there (absent, or the default), and `false` says so.
pub(super) fn validate_lenient<'j, J: JsonView<'j>>(
    input: &Input,
    raw: Option<J>,
    path: &str,
    refs: Option<&Refs<'_>>,
    item: Option<&Value>,
) -> Result<(Value, bool), CaseError> {
    match validate_strict(input, raw, path, refs, item) {
        Ok(value) => Ok((value, true)),
        Err(_) if input.invalid_absent && raw.is_some_and(|r| !r.is_null()) => {
            validate_strict(input, None::<J>, path, refs, item).map(|value| (value, false))
        }
        Err(e) => Err(e),
    }
}

/// Validates a value as declared, rejecting what does not fit.
fn validate_strict<'j, J: JsonView<'j>>(
    input: &Input,
    raw: Option<J>,
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
            let fired = crate::eval::field_rule_message(
                refs.rb, refs.facts, refs.spent, rule, &value, item,
            )
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
