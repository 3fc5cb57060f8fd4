//! The JSON Schema (draft 2020-12) of a rulebook's case, as `bareme schema
//! --case` prints it: what an author of cases, or a tool that writes them,
//! can check before asking the engine.
//!
//! It says what the validator accepts, as far as JSON Schema can: each
//! input's JSON form (decimals as strings, or numbers where the rulebook
//! takes them), places and signs as patterns, bounds of JSON numbers,
//! lengths, list sizes, required fields, choices, records and the rows of a
//! supplied table, and `additionalProperties: false` wherever an unknown key
//! is refused (a key ignored by name, a property that takes any value). What it cannot say is left out and said in words in the
//! field's `description`: conditions (`when`, `required_when`), bounds of
//! decimals written as strings, of dates and months, field rules, `ref`,
//! `unique`, and the rulebook's checks.
//!
//! Invariant: sound, not complete. A case the validator accepts is never
//! refused by the schema (so `when` and `invalid = "absent"` inputs accept any
//! value); a case the schema accepts may still be refused by the engine.

use serde_json::{json, Map, Value};

use crate::model::{ExtraKeys, Input, InputKind, JsonNumbers, NumberSpec, Rulebook, TableKind};

impl Rulebook {
    /// The JSON Schema (draft 2020-12) of this rulebook's cases, as
    /// `bareme schema --case` prints it: the contract to hand a model
    /// client that writes cases. Sound, not complete: a case the engine
    /// accepts always fits it.
    ///
    /// ```
    /// let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
    /// let schema = rb.case_schema();
    /// assert_eq!(schema["additionalProperties"], false);
    /// assert!(schema["properties"]["gross_pay"].is_object());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn case_schema(&self) -> Value {
        case_schema(self)
    }
}

/// The JSON Schema of a case of `rb`.
pub fn case_schema(rb: &Rulebook) -> Value {
    let mut root = Map::new();
    root.insert(
        "$schema".into(),
        json!("https://json-schema.org/draft/2020-12/schema"),
    );
    root.insert(
        "title".into(),
        json!(format!("A case of {}@{}", rb.id(), rb.version())),
    );
    let mut about = rb.title().map(str::to_string).unwrap_or_default();
    if !about.is_empty() {
        about.push_str(". ");
    }
    about.push_str("The rulebook's checks (and what each field's description names) are judged by the engine, not by this schema.");
    root.insert("description".into(), json!(about));
    let (mut properties, required) = fields(rb, &rb.inputs, true);
    let additional = extra_keys(&mut properties, &rb.extra_keys);
    root.insert("type".into(), json!("object"));
    root.insert("properties".into(), Value::Object(properties));
    root.insert("required".into(), json!(required));
    root.insert("additionalProperties".into(), additional);
    Value::Object(root)
}

/// What an object holds beyond its declared keys, as `extra_keys` says:
/// the keys ignored by name are added to `properties`, taking any value,
/// and the `additionalProperties` returned is true only for `allow`.
fn extra_keys(properties: &mut Map<String, Value>, extra: &ExtraKeys) -> Value {
    for key in extra.ignored() {
        properties.insert(
            key.to_string(),
            json!({"description": "Ignored: a key the rulebook names in `extra_keys`."}),
        );
    }
    json!(*extra == ExtraKeys::Allow)
}

/// The properties of an object's declared keys, and those required.
fn fields(rb: &Rulebook, inputs: &[Input], top: bool) -> (Map<String, Value>, Vec<String>) {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for input in inputs {
        let conditional = top && (input.when.is_some() || input.required_when.is_some());
        if input.required && !conditional {
            required.push(input.name.to_string());
        }
        properties.insert(input.name.to_string(), property(rb, input, top));
    }
    (properties, required)
}

/// An input as the value of its key: `null` passes where it means absent
/// (an optional input) or is kept (`nullable`).
fn property(rb: &Rulebook, input: &Input, top: bool) -> Value {
    let mut notes = Vec::new();
    if let (true, Some(when)) = (top, &input.when) {
        notes.push(format!(
            "read only when {}, and ignored otherwise, whatever it holds: JSON Schema cannot say so, so any value passes here",
            when.text
        ));
    }
    if let (true, Some(when)) = (top, &input.required_when) {
        notes.push(format!(
            "required when {} (a condition JSON Schema cannot say)",
            when.text
        ));
    }
    if input.invalid_absent {
        notes.push(
            "a value that is not valid reads as absent (`invalid = \"absent\"`), so any value passes here"
                .into(),
        );
    }
    let open = (top && input.when.is_some()) || input.invalid_absent;
    let mut schema = if open {
        Map::new()
    } else {
        let mut s = kind(rb, input, &mut notes);
        if input.nullable || !input.required {
            s = or_null(s);
        }
        s
    };
    describe(rb, input, &mut schema, &notes);
    Value::Object(schema)
}

/// A list item or map entry: present by construction, so `null` passes only
/// when `nullable`.
fn entry(rb: &Rulebook, item: &Input) -> Value {
    let mut notes = Vec::new();
    let mut schema = kind(rb, item, &mut notes);
    if item.nullable {
        schema = or_null(schema);
    }
    describe(rb, item, &mut schema, &notes);
    Value::Object(schema)
}

/// `{"anyOf": [schema, null]}` (one `anyOf` where the schema is one already).
fn or_null(mut schema: Map<String, Value>) -> Map<String, Value> {
    if schema.len() == 1 {
        if let Some(Value::Array(options)) = schema.get_mut("anyOf") {
            options.push(json!({"type": "null"}));
            return schema;
        }
    }
    let mut s = Map::new();
    s.insert(
        "anyOf".into(),
        json!([Value::Object(schema), {"type": "null"}]),
    );
    s
}

/// The label, the clause's text and the notes, as the description.
fn describe(rb: &Rulebook, input: &Input, schema: &mut Map<String, Value>, notes: &[String]) {
    let mut parts: Vec<String> = Vec::new();
    if let Some(label) = &input.label {
        parts.push(sentence(label));
    }
    if let Some(clause) = &input.clause {
        match rb.clauses.get(clause) {
            Some(text) => parts.push(sentence(&format!("{clause}: {text}"))),
            None => parts.push(format!("{clause}.")),
        }
    }
    let mut rules = Vec::new();
    if input.refers.is_some() {
        rules.push("must name something in force (`ref`)");
    }
    if input.key_ref.is_some() {
        rules.push("each key must name something in force (`key_ref`)");
    }
    if input.unique {
        rules.push("no two items of the list may hold the same value (`unique`)");
    }
    if !input.rejects.is_empty() {
        rules.push("field rules of the rulebook may refuse a value");
    }
    if !input.after.is_empty() {
        rules.push("checks run right after it may refuse the case");
    }
    parts.extend(notes.iter().map(|n| sentence(n)));
    if !rules.is_empty() {
        parts.push(format!("Not checked by this schema: {}.", rules.join("; ")));
    }
    if !parts.is_empty() {
        schema.insert("description".into(), json!(parts.join(" ")));
    }
}

/// A note as a sentence: a capital first and a full stop last.
fn sentence(note: &str) -> String {
    let mut chars = note.chars();
    let mut out: String = chars
        .next()
        .map(|c| c.to_uppercase().collect())
        .unwrap_or_default();
    out.push_str(chars.as_str());
    if !out.ends_with('.') {
        out.push('.');
    }
    out
}

/// The schema of an input's kind, without `null`.
fn kind(rb: &Rulebook, input: &Input, notes: &mut Vec<String>) -> Map<String, Value> {
    let value = match &input.kind {
        InputKind::Money(spec) | InputKind::Decimal(spec) => number(spec, notes),
        InputKind::Fraction { min, max } => {
            if let Some(range) = range_words(*min, *max) {
                notes.push(format!("{range} (not checked by this schema)"));
            }
            json!({"anyOf": [
                {"type": "string", "pattern": "^(-?[0-9]+(\\.[0-9]+)?|-?[0-9]+/[0-9]+)$"},
                {"type": "integer"}
            ]})
        }
        InputKind::Integer { min, max } => {
            let mut s = json!({"type": "integer"});
            bound(&mut s, "minimum", *min);
            bound(&mut s, "maximum", *max);
            s
        }
        InputKind::Bool => json!({"type": "boolean"}),
        InputKind::Text { max_length } => json!({"type": "string", "maxLength": max_length}),
        InputKind::Enum { values } => {
            json!({"enum": values.iter().map(|v| &**v).collect::<Vec<_>>()})
        }
        InputKind::Date { min, max } => {
            calendar_bounds(notes, *min, *max);
            json!({"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"})
        }
        InputKind::Month { min, max } => {
            calendar_bounds(notes, *min, *max);
            json!({"type": "string", "pattern": "^[0-9]{4}-(0[1-9]|1[0-2])$"})
        }
        InputKind::Record {
            pattern: Some(pattern),
            ..
        } => {
            notes.push(format!(
                "a text read through the pattern {} (not checked by this schema)",
                pattern.text
            ));
            json!({"type": "string"})
        }
        InputKind::Record { fields: f, .. } => {
            let (mut properties, required) = fields(rb, f, false);
            let additional = extra_keys(&mut properties, &input.extra_keys);
            json!({
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": additional,
            })
        }
        InputKind::List {
            item,
            min_items,
            max_items,
        } => {
            let mut s = json!({"type": "array", "items": entry(rb, item), "maxItems": max_items});
            if *min_items > 0 {
                s["minItems"] = json!(min_items);
            }
            s
        }
        InputKind::Map {
            item,
            keys: Some(keys),
            ..
        } => {
            let properties: Map<String, Value> = keys
                .iter()
                .map(|k| (k.to_string(), entry(rb, item)))
                .collect();
            notes.push("other keys are ignored".into());
            json!({"type": "object", "properties": properties, "required": keys.iter().map(|k| &**k).collect::<Vec<_>>()})
        }
        InputKind::Map {
            item,
            keys: None,
            min_items,
            max_items,
        } => {
            let mut s = json!({"type": "object", "additionalProperties": entry(rb, item), "maxProperties": max_items});
            if *min_items > 0 {
                s["minProperties"] = json!(min_items);
            }
            s
        }
        InputKind::Table { table } => table_rows(rb, input, table.index(), notes),
    };
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// A money or decimal input: a decimal string (a sign only where negatives
/// are allowed, at most `places` decimals), or a JSON number where the
/// rulebook takes them.
fn number(spec: &NumberSpec, notes: &mut Vec<String>) -> Value {
    let sign = if spec.min.is_some_and(|m| m >= rust_decimal::Decimal::ZERO) {
        ""
    } else {
        "-?"
    };
    let fraction = match spec.places {
        Some(0) => String::new(),
        Some(p) => format!("(\\.[0-9]{{1,{p}}})?"),
        None => "(\\.[0-9]+)?".into(),
    };
    let text = json!({"type": "string", "pattern": format!("^{sign}[0-9]+{fraction}$")});
    // A lower bound of zero is the pattern's want of a sign: said already.
    let min = spec.min.filter(|m| !m.is_zero());
    if let Some(range) = range_words(min, spec.max) {
        notes.push(format!(
            "{range} (checked here on a JSON number only, not on a decimal string)"
        ));
    }
    let mut written = match spec.numbers {
        JsonNumbers::Reject => return text,
        JsonNumbers::Plain => {
            notes.push("a JSON number must be written as a plain decimal (no exponent) within the places, which JSON Schema cannot check".into());
            json!({"type": "number"})
        }
        JsonNumbers::Integer => json!({"type": "integer"}),
    };
    bound(&mut written, "minimum", spec.min);
    bound(&mut written, "maximum", spec.max);
    json!({"anyOf": [text, written]})
}

/// A bound of a JSON number, written as the decimal it is.
fn bound(schema: &mut Value, key: &str, value: Option<rust_decimal::Decimal>) {
    if let Some(v) = value {
        if let Ok(n) = serde_json::from_str::<Value>(&v.normalize().to_string()) {
            schema[key] = n;
        }
    }
}

/// Bounds of a date or month, in words.
fn calendar_bounds<T: std::fmt::Display>(notes: &mut Vec<String>, min: Option<T>, max: Option<T>) {
    if let Some(range) = range_words(min, max) {
        notes.push(format!("{range} (not checked by this schema)"));
    }
}

/// `at least A`, `at most B` or `from A to B`; `None` without bounds.
fn range_words<T: std::fmt::Display>(min: Option<T>, max: Option<T>) -> Option<String> {
    match (min, max) {
        (Some(a), Some(b)) => Some(format!("from {a} to {b}")),
        (Some(a), None) => Some(format!("at least {a}")),
        (None, Some(b)) => Some(format!("at most {b}")),
        (None, None) => None,
    }
}

/// The rows a `table` input supplies: a period table's rows by name, or a
/// keyed table's rows by key; each row's cells by column.
fn table_rows(rb: &Rulebook, input: &Input, table: usize, notes: &mut Vec<String>) -> Value {
    let Some(table) = rb.tables.get(table) else {
        return json!({"type": "object"});
    };
    let key_col = match &table.kind {
        TableKind::Keyed { keys } => keys.first().copied(),
        _ => None,
    };
    let mut cells = Map::new();
    let mut required = Vec::new();
    for (c, col) in table.columns.iter().enumerate() {
        if Some(c) == key_col {
            // The row's key is the object's key; a cell of that name is not read.
            cells.insert(col.name.to_string(), json!({}));
            continue;
        }
        let mut col_notes = Vec::new();
        let mut s = kind(rb, col, &mut col_notes);
        if col.nullable {
            s = or_null(s);
        } else {
            required.push(col.name.to_string());
        }
        describe(rb, col, &mut s, &col_notes);
        cells.insert(col.name.to_string(), Value::Object(s));
    }
    let additional = extra_keys(&mut cells, &input.extra_keys);
    let row = json!({
        "type": "object",
        "properties": cells,
        "required": required,
        "additionalProperties": additional,
    });
    match key_col {
        Some(_) => {
            notes.push(format!(
                "replaces the rows of table {}: one entry per row, its key the row's key",
                table.name
            ));
            json!({"type": "object", "additionalProperties": row, "maxProperties": rb.limits.max_list_items})
        }
        None => {
            let names: Vec<&str> = table
                .rows
                .iter()
                .filter_map(|r| r.name.as_deref())
                .collect();
            notes.push(format!(
                "replaces the rows of table {}: every row, by name",
                table.name
            ));
            let mut properties: Map<String, Value> =
                names.iter().map(|n| (n.to_string(), row.clone())).collect();
            let additional = extra_keys(&mut properties, &input.extra_keys);
            json!({
                "type": "object",
                "properties": properties,
                "required": names,
                "additionalProperties": additional,
            })
        }
    }
}
