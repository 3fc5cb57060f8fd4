//! The structural diff of two rulebook versions as data: each change with
//! its section, entity and kind, and the two sides. `compare` fills it,
//! `compat` and `render` read it; it lives apart from `mod.rs` so they read
//! it without reading the module that calls them.

use indexmap::IndexMap;
use serde::Serialize;

use super::words::WordRun;

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
    /// For an old version that extends another, the file on disk that
    /// writes the option (`old_line` is then a line of that file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_file: Option<String>,
    /// The same for the new version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_file: Option<String>,
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
///
/// ```
/// let text = std::fs::read_to_string("rulebooks/sales-tax/v1/rulebook.toml")?;
/// let same = bareme::unstable::diff::Version { file: "sales-tax", text: &text };
/// assert!(bareme::unstable::diff::diff_rulebooks(&same, &same)?.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
    ///
    /// ```
    /// let text = std::fs::read_to_string("rulebooks/luma-payroll/v3/rulebook.toml")?;
    /// let v = bareme::unstable::diff::Version { file: "v3", text: &text };
    /// assert!(bareme::unstable::diff::diff_rulebooks(&v, &v)?.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.sections.values().all(Vec::is_empty)
    }

    /// How many changes in all.
    ///
    /// ```
    /// let old = std::fs::read_to_string("rulebooks/luma-payroll/v3/rulebook.toml")?;
    /// let new = old.replace("rate = \"0.05\"", "rate = \"0.06\"");
    /// let diff = bareme::unstable::diff::diff_rulebooks(&bareme::unstable::diff::Version { file: "old", text: &old }, &bareme::unstable::diff::Version { file: "new", text: &new })?;
    /// assert_eq!(diff.len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn len(&self) -> usize {
        self.sections.values().map(Vec::len).sum()
    }
}
