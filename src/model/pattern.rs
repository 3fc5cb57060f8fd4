//! A text input with a `pattern`: the text matched, and the named groups it
//! holds written as the JSON object of a record, so that each group is then
//! validated as a record field is (its type, bounds, values, rules) and a
//! fault names the field's path (`tax_code.amount`). In the model, as the
//! case's validator and the trace's verifier both read a text through it.

use super::{Input, InputKind, Pattern};

impl Pattern {
    /// The record the text holds (a JSON object), or `None` when the
    /// pattern does not match. A group that takes no part in the match is
    /// absent; a group read as a whole number or a boolean is given as JSON
    /// would write it, so that the field's own validation reads it (a
    /// decimal or money field reads a text).
    pub fn groups(&self, fields: &[Input], text: &str) -> Option<serde_json::Value> {
        record_of(self, fields, text)
    }
}

fn record_of(pattern: &Pattern, fields: &[Input], text: &str) -> Option<serde_json::Value> {
    let captures = pattern.regex.captures(text)?;
    let mut object = serde_json::Map::new();
    for field in fields {
        let Some(group) = captures.name(&field.name) else {
            continue;
        };
        object.insert(field.name.to_string(), as_json(&field.kind, group.as_str()));
    }
    Some(serde_json::Value::Object(object))
}

fn as_json(kind: &InputKind, text: &str) -> serde_json::Value {
    let string = || serde_json::Value::String(text.to_string());
    match kind {
        InputKind::Integer { .. } => {
            let (sign, digits) = match text.strip_prefix('-') {
                Some(rest) => ("-", rest),
                None => ("", text),
            };
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return string();
            }
            // JSON writes no leading zeros: `0042` is 42.
            let trimmed = digits.trim_start_matches('0');
            let digits = if trimmed.is_empty() { "0" } else { trimmed };
            serde_json::from_str(&format!("{sign}{digits}")).unwrap_or_else(|_| string())
        }
        InputKind::Bool => match text {
            "true" => serde_json::Value::Bool(true),
            "false" => serde_json::Value::Bool(false),
            _ => string(),
        },
        _ => string(),
    }
}
