//! `bareme diff`: what a new rulebook version changes, by meaning, not by
//! text lines: its structural changes (this module and `flatten`,
//! `compare`, `words`), whether the generators and rubrics written against
//! the old version still load against the new one (`compat`), and which
//! answers of a task set move and why (`impact`); `render` writes all three
//! as text or Markdown, and serde as JSON (schema in docs/diffing.md).
//!
//! Invariant: value in, value out. The command line reads the files; this
//! module compares texts and loaded rulebooks, and its output is ordered
//! (sections in a fixed order, entities in file order), so the same two
//! versions give the same bytes.

mod changes;
mod compare;
mod compat;
mod flatten;
mod formats;
mod impact;
mod render;
mod words;

use serde::Serialize;

pub use changes::{Change, ChangeKind, RulebookDiff, Section, Side};
pub use compat::{verdict, Break, Dependent, DependentKind, Verdict};
pub use formats::drop_default_formats;
pub use impact::{
    impact, shift_years, Divergence, Example, FieldImpact, Impact, ImpactOptions, ReadChange,
    Rejection, Rejections, StepMove,
};
pub use render::{render_markdown, render_text, Style};
pub use words::{word_diff, WordRun};

use crate::rulebook::raw::RawRulebook;

/// Everything `bareme diff` reports: the structural diff, and when asked
/// the compatibility verdicts and the impact on a task set.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The structural diff (`old`, `new`, `sections` at the top level of the JSON).
    #[serde(flatten)]
    pub diff: RulebookDiff,
    /// One verdict per generator and rubric checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compatibility: Option<Vec<Verdict>>,
    /// The impact on a task set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub impact: Option<Impact>,
}

impl Report {
    /// Whether a generator or rubric breaks.
    pub fn breaks(&self) -> bool {
        self.compatibility.iter().flatten().any(|v| !v.loads)
    }
}

/// A rulebook file's name and text.
///
/// ```
/// let version = bareme::unstable::diff::Version { file: "v1/rulebook.toml", text: "[rulebook]\nid = \"demo\"\n" };
/// assert_eq!(version.file, "v1/rulebook.toml");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Version<'a> {
    /// As named on the command line.
    pub file: &'a str,
    /// Its text.
    pub text: &'a str,
}

/// Why two texts cannot be diffed: one is not the rulebook format.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {message}")]
pub struct DiffError {
    /// The file, as named on the command line.
    pub file: String,
    /// The TOML reader's message.
    pub message: String,
}

impl DiffError {
    /// A stable code: `diff.not_a_rulebook`.
    pub fn code(&self) -> &'static str {
        "diff::not_a_rulebook"
    }
}

fn parse(v: &Version<'_>) -> Result<RawRulebook, DiffError> {
    toml::from_str(v.text).map_err(|e| DiffError {
        file: v.file.to_string(),
        message: crate::diag::toml_message(&e, v.text),
    })
}

/// The structural difference of two rulebook texts. Both should be valid
/// rulebooks (the caller checks them first); text that is not even the
/// rulebook format is an error naming the file.
///
/// ```
/// let old = std::fs::read_to_string("rulebooks/luma-payroll/v3/rulebook.toml")?;
/// let new = old.replace("rate = \"0.05\"", "rate = \"0.06\"");
/// let diff = bareme::unstable::diff::diff_rulebooks(
///     &bareme::unstable::diff::Version { file: "old.toml", text: &old },
///     &bareme::unstable::diff::Version { file: "new.toml", text: &new },
/// )?;
/// assert_eq!(diff.len(), 1);
/// assert_eq!(diff.new.rulebook, "luma-payroll@3");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn diff_rulebooks(old: &Version<'_>, new: &Version<'_>) -> Result<RulebookDiff, DiffError> {
    let (a, b) = (parse(old)?, parse(new)?);
    let side = |v: &Version<'_>, r: &RawRulebook| Side {
        file: v.file.to_string(),
        rulebook: format!(
            "{}@{}",
            r.rulebook.id.get_ref(),
            r.rulebook.version.get_ref()
        ),
    };
    let (fa, fb) = (
        flatten::flatten(&a, old.text),
        flatten::flatten(&b, new.text),
    );
    let sections = compare::compare(&fa, old.text, &fb, new.text);
    let lines = compare::Lines::new(old.text);
    let old_lines = fa
        .entities
        .iter()
        .map(|(name, e)| (name.clone(), lines.line(e.offset)))
        .collect();
    Ok(RulebookDiff {
        old: side(old, &a),
        new: side(new, &b),
        sections,
        old_lines,
    })
}

/// Points each change's lines into the files on disk of a version that
/// extends another: `old_files` (or `new_files`) are the files a version
/// was read from, the named one first, then the ones it extends, each with
/// its text. A change is located in the first file that writes its option
/// (or, for a whole thing, the thing), and that file is named beside the
/// line. A side given no files keeps the lines of the text it was diffed
/// as; a file that is not the rulebook format on its own is skipped.
///
/// ```
/// let old = std::fs::read_to_string("rulebooks/luma-payroll/v3/rulebook.toml")?;
/// let new = old.replace("rate = \"0.05\"", "rate = \"0.06\"");
/// let (o, n) = (bareme::unstable::diff::Version { file: "old.toml", text: &old }, bareme::unstable::diff::Version { file: "new.toml", text: &new });
/// let mut diff = bareme::unstable::diff::diff_rulebooks(&o, &n)?;
/// bareme::unstable::diff::relocate(&mut diff, &[o], &[]);
/// let change = &diff.sections.values().flatten().next().unwrap();
/// assert_eq!(change.old_file.as_deref(), Some("old.toml"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn relocate(diff: &mut RulebookDiff, old_files: &[Version<'_>], new_files: &[Version<'_>]) {
    let read = |files: &[Version<'_>]| -> Vec<(String, flatten::Flat, compare::Lines)> {
        let raws: Vec<(&Version<'_>, RawRulebook)> = (files.iter())
            .filter_map(|v| Some((v, parse(v).ok()?)))
            .collect();
        (0..raws.len())
            .map(|i| {
                let (v, raw) = &raws[i];
                let bases: Vec<&RawRulebook> = raws[i + 1..].iter().map(|(_, r)| r).collect();
                (
                    v.file.to_string(),
                    flatten::flatten_over(raw, v.text, &bases),
                    compare::Lines::new(v.text),
                )
            })
            .collect()
    };
    let (old, new) = (read(old_files), read(new_files));
    let find = |files: &[(String, flatten::Flat, compare::Lines)], c: &changes::Change| {
        let written = |(_, flat, _): &&(String, flatten::Flat, compare::Lines)| {
            flat.entities.get(&c.entity).and_then(|e| match &c.attr {
                Some(attr) => e.facts.iter().find(|f| &f.attr == attr).map(|f| f.offset),
                None => Some(e.offset),
            })
        };
        let in_file = files.iter().find(|f| written(f).is_some());
        let (file, offset) = match in_file {
            Some(f) => (f, written(&f)?),
            // The option is written by no file alone (a default): the thing's place.
            None => {
                let f = files
                    .iter()
                    .find(|(_, flat, _)| flat.entities.contains_key(&c.entity))?;
                (f, flat_offset(&f.1, &c.entity)?)
            }
        };
        Some((file.0.clone(), file.2.line(offset)))
    };
    for change in diff.sections.values_mut().flatten() {
        if !old.is_empty() && change.old_line.is_some() {
            if let Some((file, line)) = find(&old, change) {
                change.old_file = Some(file);
                change.old_line = Some(line);
            }
        }
        if !new.is_empty() && change.new_line.is_some() {
            if let Some((file, line)) = find(&new, change) {
                change.new_file = Some(file);
                change.new_line = Some(line);
            }
        }
    }
}

fn flat_offset(flat: &flatten::Flat, entity: &str) -> Option<usize> {
    flat.entities.get(entity).map(|e| e.offset)
}

#[cfg(test)]
mod tests;
