//! `pattern` on a text input: a structured code in a string (a region
//! letter, an amount, a suffix) read by the rules rather than split outside
//! the engine. The pattern is compiled here, once, by the `regex` crate
//! (linear time in the text, whatever the pattern) with its size capped,
//! since a rulebook is untrusted; each named group is a field of the record
//! the input holds, declared in `fields` and validated as an input is.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::{sp, Checker, InputCx};
use crate::model::{InputKind, Pattern};
use crate::rulebook::raw::RawInput;

/// The most memory a compiled pattern may take, in bytes.
pub(crate) const MAX_PATTERN_BYTES: usize = 1 << 20;

impl Checker<'_> {
    /// A text input with a `pattern`: the record of its named groups.
    pub(super) fn pattern_kind(
        &mut self,
        name: &str,
        raw: &RawInput,
        cx: &InputCx<'_>,
        depth: usize,
    ) -> InputKind {
        let mut kind = self.record_kind(name, raw, cx, depth);
        let Some(written) = &raw.pattern else {
            return kind;
        };
        let span = sp(written);
        let regex = match regex::RegexBuilder::new(written.get_ref())
            .size_limit(MAX_PATTERN_BYTES)
            .dfa_size_limit(MAX_PATTERN_BYTES)
            .build()
        {
            Ok(regex) => regex,
            Err(e) => {
                // The crate's message spans several lines; its last says why.
                let why = e.to_string();
                let why = why.lines().last().unwrap_or("").trim().to_string();
                self.problem(
                    "check::bad_input",
                    span,
                    format!("the pattern is not a regular expression this engine reads: {why}"),
                    "this pattern",
                );
                return kind;
            }
        };
        let groups: BTreeSet<&str> = regex.capture_names().flatten().collect();
        if let InputKind::Record {
            fields, pattern, ..
        } = &mut kind
        {
            for field in fields.iter() {
                if !groups.contains(&*field.name) {
                    let message = format!(
                        "field `{}` names no group of the pattern: write `(?P<{}>…)` in it",
                        field.name, field.name
                    );
                    self.problem("check::bad_input", span, message, "this pattern");
                }
                if matches!(
                    field.kind,
                    InputKind::Record { .. }
                        | InputKind::List { .. }
                        | InputKind::Map { .. }
                        | InputKind::Table { .. }
                ) {
                    let message = format!(
                        "field `{}` of a pattern holds the text of a group: a number, text, enum, bool, date or month",
                        field.name
                    );
                    self.problem("check::bad_input", span, message, "this pattern");
                }
            }
            for group in &groups {
                if !fields.iter().any(|f| &*f.name == *group) {
                    let message = format!(
                        "group `{group}` of the pattern has no field: declare its type in `fields`"
                    );
                    self.problem("check::bad_input", span, message, "this pattern");
                }
            }
            *pattern = Some(Pattern {
                regex,
                text: Arc::from(written.get_ref().as_str()),
            });
        }
        kind
    }
}
