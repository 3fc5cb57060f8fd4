//! An answer field's format written out where the other version leaves it
//! to its default (`format = "decimal"` on a number): the structural diff
//! reads the TOML, so it sees an option added, though both versions write
//! the field alike. Only the checked rulebooks know a default (it follows
//! the expression's type), so such changes are dropped here, where both are
//! at hand.

use super::changes::{ChangeKind, RulebookDiff, Section};
use crate::model::{Format, Output, OutputValue, Rulebook};

/// Drops each change of an answer field's `format` that one version writes
/// and the other leaves out, when both write the field in the same format.
pub fn drop_default_formats(diff: &mut RulebookDiff, old: &Rulebook, new: &Rulebook) {
    let Some(answers) = diff.sections.get_mut(&Section::Answers) else {
        return;
    };
    answers.retain(|c| {
        let one_side = c.old.is_none() != c.new.is_none();
        let Some(attr) = c.attr.as_deref().filter(|_| one_side) else {
            return true;
        };
        if c.kind != ChangeKind::Changed {
            return true;
        }
        let path = format!("{}.{attr}", c.entity);
        match (format_at(old, &path), format_at(new, &path)) {
            (Some(a), Some(b)) => a != b,
            _ => true,
        }
    });
}

/// The format of the answer field `decisions.NAME.answer.KEY[.fields.KEY…].format`.
fn format_at(rb: &Rulebook, path: &str) -> Option<Format> {
    let rest = path.strip_prefix("decisions.")?.strip_suffix(".format")?;
    let (name, field) = rest.split_once(".answer.")?;
    let decision = rb.decisions.iter().find(|d| &*d.name == name)?;
    let mut outputs: &[Output] = &decision.answer;
    let mut keys = field.split(".fields.").peekable();
    while let Some(key) = keys.next() {
        let output = outputs.iter().find(|o| &*o.key == key)?;
        match (&output.value, keys.peek()) {
            (OutputValue::Value { format, .. }, None) => return Some(*format),
            (OutputValue::Each { fields, .. }, Some(_)) => outputs = fields,
            _ => return None,
        }
    }
    None
}
