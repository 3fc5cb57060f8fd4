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

mod compare;
mod compat;
mod flatten;
mod impact;
mod render;
mod words;

use indexmap::IndexMap;
use serde::Serialize;

pub use compat::{verdict, Break, Dependent, DependentKind, Verdict};
pub use impact::{
    impact, Divergence, Example, FieldImpact, Impact, ImpactCase, ImpactTask, ReadChange,
};
pub use render::{render_markdown, render_text, Style};
pub use words::{word_diff, WordRun};

use crate::rulebook::schema::RawRulebook;

/// The parts of a rulebook, in the order a diff lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    /// `[rulebook]`: id, version, title.
    Identity,
    /// `[clauses]`.
    Clauses,
    /// `[inputs]`.
    Inputs,
    /// `[parameters]`.
    Parameters,
    /// `[tables]`, their columns and rows.
    Tables,
    /// `[steps]` and `[per_item]` groups.
    Steps,
    /// `[[checks]]`.
    Checks,
    /// `[decisions]`: labels, clauses, citations.
    Decisions,
    /// The answer fields of each decision and their formats.
    Answers,
    /// `[ablations]`.
    Ablations,
    /// `[reports]`.
    Reports,
    /// `[limits]`.
    Limits,
}

impl Section {
    /// Every section, in output order.
    pub const ALL: [Section; 12] = [
        Section::Identity,
        Section::Clauses,
        Section::Inputs,
        Section::Parameters,
        Section::Tables,
        Section::Steps,
        Section::Checks,
        Section::Decisions,
        Section::Answers,
        Section::Ablations,
        Section::Reports,
        Section::Limits,
    ];

    /// Its name in JSON and headings.
    pub fn name(self) -> &'static str {
        match self {
            Section::Identity => "identity",
            Section::Clauses => "clauses",
            Section::Inputs => "inputs",
            Section::Parameters => "parameters",
            Section::Tables => "tables",
            Section::Steps => "steps",
            Section::Checks => "checks",
            Section::Decisions => "decisions",
            Section::Answers => "answers",
            Section::Ablations => "ablations",
            Section::Reports => "reports",
            Section::Limits => "limits",
        }
    }
}

/// What happened to a thing of the rulebook.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// Only in the new version.
    Added,
    /// Only in the old version.
    Removed,
    /// In both, with an option added, removed or given another value.
    Changed,
}

/// One change, located on each side where it exists.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Change {
    /// Added, removed or changed.
    pub kind: ChangeKind,
    /// The thing: `parameters.smic`, `tables.schedule[code=maladie]`, `steps.rgdu`.
    pub entity: String,
    /// For a change, the option changed: `value`, `expr`, `employer_rate`,
    /// `periods[from=2026-01].value`; absent for a whole thing added or removed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attr: Option<String>,
    /// The old value (canonical form for an expression); for a thing removed, all its options.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<String>,
    /// The new value; for a thing added, all its options.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<String>,
    /// 1-based line in the old file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_line: Option<usize>,
    /// 1-based line in the new file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_line: Option<usize>,
    /// For a reworded clause: its words kept, removed and added.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub words: Vec<WordRun>,
}

/// One side of a diff.
#[derive(Clone, Debug, Serialize)]
pub struct Side {
    /// The file as named on the command line.
    pub file: String,
    /// `id@version`.
    pub rulebook: String,
}

/// The structural difference of two rulebook versions.
#[derive(Clone, Debug, Serialize)]
pub struct RulebookDiff {
    /// The old version.
    pub old: Side,
    /// The new version.
    pub new: Side,
    /// Changes by section, every section present (empty when unchanged).
    pub sections: IndexMap<Section, Vec<Change>>,
    /// Every thing of the old version by name, with its line: where a
    /// break of a generator or rubric points in the old rulebook.
    #[serde(skip)]
    pub old_lines: IndexMap<String, usize>,
}

impl RulebookDiff {
    /// Whether the two versions mean the same.
    pub fn is_empty(&self) -> bool {
        self.sections.values().all(Vec::is_empty)
    }

    /// How many changes in all.
    pub fn len(&self) -> usize {
        self.sections.values().map(Vec::len).sum()
    }
}

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
#[derive(Clone, Copy, Debug)]
pub struct Version<'a> {
    /// As named on the command line.
    pub file: &'a str,
    /// Its text.
    pub text: &'a str,
}

fn parse(v: &Version<'_>) -> Result<RawRulebook, String> {
    toml::from_str(v.text).map_err(|e| format!("{}: {}", v.file, e.message()))
}

/// The structural difference of two rulebook texts. Both should be valid
/// rulebooks (the caller checks them first); text that is not even the
/// rulebook format is an error naming the file.
pub fn diff_rulebooks(old: &Version<'_>, new: &Version<'_>) -> Result<RulebookDiff, String> {
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

#[cfg(test)]
mod tests;
