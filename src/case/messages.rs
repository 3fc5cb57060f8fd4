//! The words of a rejection: the input's clause cited, a JSON value's kind
//! and a short quotation of it, a range in words. Every file of `case`
//! writes its messages with these, so they read alike.

use super::json::{JsonKind, JsonView};
use crate::facts::CaseError;
use crate::model::Input;

/// The input's clause in parentheses, which every message of the input cites.
pub(super) fn clause_note(input: &Input) -> String {
    input
        .clause
        .as_ref()
        .map(|c| format!(" ({c})"))
        .unwrap_or_default()
}

/// A fault at `path`, citing the input's clause.
pub(super) fn fail<T>(
    input: &Input,
    path: &str,
    message: impl Into<String>,
) -> Result<T, CaseError> {
    Err(CaseError {
        path: path.to_string(),
        message: format!("{}{}", message.into(), clause_note(input)),
    })
}

pub(super) fn json_kind<'j>(v: impl JsonView<'j>) -> &'static str {
    match v.kind() {
        JsonKind::Null => "null",
        JsonKind::Bool(_) => "a boolean",
        JsonKind::Number(_) => "a number",
        JsonKind::String(_) => "a string",
        JsonKind::Array => "a list",
        JsonKind::Object => "an object",
    }
}

/// A short quotation of a JSON value for messages.
pub(super) fn shown<'j>(v: impl JsonView<'j>) -> String {
    let text = v.to_text();
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text
    }
}

/// The bounds of a range in words, for a message.
pub(super) fn range_text(min: Option<String>, max: Option<String>) -> String {
    match (min, max) {
        (Some(a), Some(b)) => format!("the range {a}…{b}"),
        (Some(a), None) => format!("the range from {a}"),
        (None, Some(b)) => format!("the range up to {b}"),
        (None, None) => "the range".into(),
    }
}
