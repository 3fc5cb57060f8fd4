//! The serde mirror of a rulebook's TOML: what the file may say, nothing more.
//!
//! Every struct denies unknown keys, so a misspelt key is an error at load,
//! not a silently ignored rule. Strings that hold expressions or name other
//! parts of the rulebook keep their span, so the checker can point at them.
//!
//! Tables of a rulebook are not wrapped in `toml::Spanned` (it cannot
//! represent implicit tables such as `decisions.ok` under
//! `[decisions.ok.answer]`); each has an [`Anchor`] leaf span instead.
//!
//! Invariant: no validation beyond shape here; meaning is `check`'s job.

use indexmap::IndexMap;
#[cfg(feature = "format-schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toml::Spanned;

/// A whole rulebook file.
#[derive(Debug, Deserialize, Serialize)]
#[cfg_attr(feature = "format-schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RawRulebook {
    /// Identity.
    pub rulebook: RawIdentity,
    /// Clause texts by id (`R3`, `art. 777`).
    #[serde(default)]
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub clauses: IndexMap<String, String>,
    /// What holds of the case as a whole (its top-level object).
    #[serde(default)]
    #[serde(skip_serializing_if = "RawCase::is_empty")]
    pub case: RawCase,
    /// The case schema, in validation order.
    #[serde(default)]
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub inputs: IndexMap<String, RawInput>,
    /// Named constants, possibly dated.
    #[serde(default)]
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub parameters: IndexMap<String, RawParameter>,
    /// Period tables, keyed tables and progressive scales.
    #[serde(default)]
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub tables: IndexMap<String, RawTable>,
    /// Named computations.
    #[serde(default)]
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub steps: IndexMap<String, RawStep>,
    /// Steps computed for each item of a list input.
    #[serde(default)]
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub per_item: IndexMap<String, RawGroup>,
    /// Ordered checks: the first that holds decides.
    #[serde(default)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Vec<RawCheck>"))]
    pub checks: Vec<Spanned<RawCheck>>,
    /// Decisions and the answer each one gives.
    #[serde(default)]
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub decisions: IndexMap<String, RawDecision>,
    /// Evaluation bounds.
    #[serde(default)]
    pub limits: RawLimits,
    /// Named alternative readings: steps whose formula is replaced.
    #[serde(default)]
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub ablations: IndexMap<String, RawAblation>,
    /// Tables shown at the top of a text trace (a payslip's lines, say).
    #[serde(default)]
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub reports: IndexMap<String, RawReport>,
}

/// `[case]`: the case's top-level object.
#[derive(Debug, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "format-schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RawCase {
    /// Keys of the case that no input declares: `refuse` (the default: a
    /// misspelt key is an error, not an input silently absent), `allow`
    /// (ignored), or the keys ignored by name (`["id", "label"]`; any other
    /// is refused).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<ExtraKeysForm>"))]
    pub extra_keys: Option<Spanned<RawExtraKeys>>,
}

/// `extra_keys`: a word (`refuse`, `allow`) or the keys ignored by name,
/// each with its span so the checker can point at one.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum RawExtraKeys {
    /// `"refuse"` or `"allow"` (any other word is the checker's to refuse).
    Word(String),
    /// `["id", "label"]`.
    Keys(Vec<Spanned<String>>),
}

impl<'de> Deserialize<'de> for RawExtraKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // By hand, not `untagged`: serde's untagged enums buffer the value,
        // which loses the span of each key.
        struct Form;
        impl<'de> serde::de::Visitor<'de> for Form {
            type Value = RawExtraKeys;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("`refuse`, `allow` or an array of the keys ignored")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RawExtraKeys, E> {
                Ok(RawExtraKeys::Word(v.to_string()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<RawExtraKeys, A::Error> {
                let mut keys = Vec::new();
                while let Some(key) = seq.next_element::<Spanned<String>>()? {
                    keys.push(key);
                }
                Ok(RawExtraKeys::Keys(keys))
            }
        }
        d.deserialize_any(Form)
    }
}

/// `extra_keys`: a word, or the keys ignored by name.
#[cfg(feature = "format-schema")]
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum ExtraKeysForm {
    /// `refuse` (the default) or `allow`.
    Word(String),
    /// The keys ignored by name; any other is refused.
    Keys(Vec<String>),
}

impl RawCase {
    /// Nothing said: every option at its default.
    pub fn is_empty(&self) -> bool {
        self.extra_keys.is_none()
    }
}

/// `[reports.NAME]`: a table of a per-item group, one row per item.
#[derive(Debug, Deserialize, Serialize)]
#[cfg_attr(feature = "format-schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RawReport {
    /// Title printed above the table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The per-item group whose items are the rows.
    #[cfg_attr(feature = "format-schema", schemars(with = "String"))]
    pub each: Spanned<String>,
    /// Show an item only when this holds (in the item's scope).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub when: Option<Spanned<String>>,
    /// Columns, in order: title → `{ expr, format }`.
    pub columns: IndexMap<String, RawOutput>,
    /// Lines printed under the table: label → `{ expr, format }` (top-level scope).
    #[serde(default)]
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub totals: IndexMap<String, RawOutput>,
}

/// `[ablations.NAME]`: an alternative reading of the rules, by name.
#[derive(Debug, Deserialize, Serialize)]
#[cfg_attr(feature = "format-schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RawAblation {
    /// Human label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// What reading it stands for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Step (`name`, or `group.step` for a per-item step) → replacement formula.
    #[cfg_attr(feature = "format-schema", schemars(with = "IndexMap<String, String>"))]
    pub steps: IndexMap<String, Spanned<String>>,
}

/// `[rulebook]`: who this rulebook is.
#[derive(Debug, Deserialize, Serialize)]
#[cfg_attr(feature = "format-schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RawIdentity {
    /// Stable id, e.g. `luma-payroll`.
    #[cfg_attr(feature = "format-schema", schemars(with = "String"))]
    pub id: Spanned<String>,
    /// Integer version of the rules.
    #[cfg_attr(feature = "format-schema", schemars(with = "i64"))]
    pub version: Spanned<i64>,
    /// Version of this file format; 1.
    #[cfg_attr(feature = "format-schema", schemars(with = "i64"))]
    pub schema: Spanned<i64>,
    /// Human title.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub title: Option<Spanned<String>>,
    /// Longer description.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub description: Option<Spanned<String>>,
    /// The version this one extends: a rulebook folder or file, relative to
    /// this file's folder (`"../v2026"`); this file's items replace its
    /// items of the same name.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub extends: Option<Spanned<String>>,
    /// Items of the extended version left out, by dotted name
    /// (`"parameters.rate"`, `"per_item.lines.steps.base"`).
    #[serde(default)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Vec<String>"))]
    pub remove: Vec<Spanned<String>>,
}

/// One input field of a case, or a field of a record input, or a table column.
#[derive(Debug, Deserialize, Serialize)]
#[cfg_attr(feature = "format-schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RawInput {
    /// `money`, `decimal`, `integer`, `bool`, `text`, `enum`, `date`, `month`, `record`, `list`, `map`, `table`.
    #[serde(rename = "type")]
    #[cfg_attr(feature = "format-schema", schemars(with = "String"))]
    pub ty: Spanned<String>,
    /// Human label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The clause that governs the field; cited in rejection messages.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub clause: Option<Spanned<String>>,
    /// Absent (or null, unless nullable) is a rejection.
    #[serde(default)]
    #[serde(skip_serializing_if = "is_false")]
    pub required: bool,
    /// The field is read only when this expression over earlier inputs holds;
    /// otherwise it is ignored, whatever the case holds there.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub when: Option<Spanned<String>>,
    /// The field is required when this expression over earlier inputs holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub required_when: Option<Spanned<String>>,
    /// Checks run right after this (top-level) input is validated, present or not:
    /// `{ when, reject = "path", message }`, reading this and earlier inputs.
    #[serde(default)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<RawCheck>,
    /// An explicit `null` is kept as null (distinct from absent) instead of meaning absent.
    #[serde(default)]
    #[serde(skip_serializing_if = "is_false")]
    pub nullable: bool,
    /// Value used when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "format-schema",
        schemars(with = "Option<serde_json::Value>")
    )]
    pub default: Option<Spanned<toml::Value>>,
    /// Decimal places: at most this many may be written (money defaults to 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub places: Option<u32>,
    /// Lower bound, inclusive (money defaults to 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub min: Option<Spanned<String>>,
    /// Upper bound, inclusive.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub max: Option<Spanned<String>>,
    /// Which JSON numbers are accepted for money/decimal: `reject` (default), `plain`, `integer`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub numbers: Option<Spanned<String>>,
    /// Allowed values of an enum.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<String>>,
    /// Fields of a record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fields: Option<IndexMap<String, RawInput>>,
    /// Item type of a list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Box<RawInput>>,
    /// Most items a list may have.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_items: Option<usize>,
    /// Longest text, in characters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_length: Option<usize>,
    /// A text read through a regular expression whose named groups become
    /// the fields (declared in `fields`) of the record the input holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub pattern: Option<Spanned<String>>,
    /// Fewest items a list or map may have.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_items: Option<usize>,
    /// Keys a map must have (others are ignored).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keys: Option<Vec<String>>,
    /// A text that must be a key of this map input (declared earlier) or keyed table.
    #[serde(rename = "ref")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub refers: Option<Spanned<String>>,
    /// Within a list of records: no two items may hold the same value here.
    #[serde(default)]
    #[serde(skip_serializing_if = "is_false")]
    pub unique: bool,
    /// For a map: every key must be a key or value that `ref` would accept.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub key_ref: Option<Spanned<String>>,
    /// Rules that reject the value: `{ when = "...", message = "..." }`, where
    /// `value` is this field's value and `item` the record it is in.
    #[serde(default)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reject: Vec<RawFieldRule>,
    /// The table whose rows a `table` input replaces.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub table: Option<Spanned<String>>,
    /// What a value that does not validate does: `reject` the case (the
    /// default) or read as `absent` (then the default applies).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub invalid: Option<Spanned<String>>,
    /// For a record (a list's or map's items included) or a `table` input:
    /// keys of its object (a table's row names and columns) that the
    /// rulebook does not declare are `refuse`d (the default), `allow`ed
    /// (ignored), or ignored when named (`["id", "label"]`; any other is
    /// refused).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<ExtraKeysForm>"))]
    pub extra_keys: Option<Spanned<RawExtraKeys>>,
}

/// `{ when = "value > act_date", message = "is after the act date" }`.
#[derive(Debug, Deserialize, Serialize)]
#[cfg_attr(feature = "format-schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RawFieldRule {
    /// The value is rejected when this holds.
    #[cfg_attr(feature = "format-schema", schemars(with = "String"))]
    pub when: Spanned<String>,
    /// Why; `{expr}` shows a value.
    #[cfg_attr(feature = "format-schema", schemars(with = "String"))]
    pub message: Spanned<String>,
}

/// A named constant: one value, or one value per period chosen by an expression.
#[derive(Debug, Deserialize, Serialize)]
#[cfg_attr(feature = "format-schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RawParameter {
    /// Human label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The clause that sets it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub clause: Option<Spanned<String>>,
    /// The value, when not dated.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub value: Option<Spanned<String>>,
    /// Dated values.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "format-schema",
        schemars(with = "Option<Vec<RawPeriodValue>>")
    )]
    pub periods: Option<Vec<Spanned<RawPeriodValue>>>,
    /// The date or month expression that chooses among `periods`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub at: Option<Spanned<String>>,
}

/// One dated value of a parameter.
#[derive(Debug, Deserialize, Serialize)]
#[cfg_attr(feature = "format-schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RawPeriodValue {
    /// First month or date covered.
    pub from: String,
    /// Last month or date covered, inclusive; open-ended when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// The value.
    pub value: String,
}

/// A table.
#[derive(Debug, Deserialize, Serialize)]
#[cfg_attr(feature = "format-schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RawTable {
    /// `periods`, `keyed`, `scale` or `ranges`. Left out in a version that
    /// extends another, the table changes the extended one's rows instead
    /// of replacing it (`extends`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub kind: Option<Spanned<String>>,
    /// Human label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The clause the table comes from.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub clause: Option<Spanned<String>>,
    /// Typed columns, in order (not for scales).
    #[serde(default)]
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub columns: IndexMap<String, RawInput>,
    /// Key columns of a keyed table.
    #[serde(default)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<String>,
    /// Rows: cells as TOML strings, numbers or booleans.
    #[serde(default)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(
        feature = "format-schema",
        schemars(with = "Vec<IndexMap<String, serde_json::Value>>")
    )]
    pub rows: Vec<Spanned<IndexMap<String, toml::Value>>>,
}

/// A named computation.
#[derive(Debug, Deserialize, Serialize)]
#[cfg_attr(feature = "format-schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RawStep {
    /// Human label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The formula.
    #[cfg_attr(feature = "format-schema", schemars(with = "String"))]
    pub expr: Spanned<String>,
    /// The step applies only when this holds; otherwise it has no value.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub when: Option<Spanned<String>>,
    /// Value when `when` does not hold.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub otherwise: Option<Spanned<String>>,
    /// The rounding point of the step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub round: Option<RawRound>,
    /// Clauses the step applies.
    #[serde(default)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Vec<String>"))]
    pub clauses: Vec<Spanned<String>>,
    /// Clauses the step applies in addition when a condition holds, for a
    /// step whose branches apply different clauses.
    #[serde(default)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cite: Vec<RawCite>,
    /// A helper step: the text trace shows it on one line, beneath the
    /// steps that apply the rules.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub detail: bool,
}

/// A group of steps computed once per item of a list.
#[derive(Debug, Deserialize, Serialize)]
#[cfg_attr(feature = "format-schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RawGroup {
    /// Human label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The list the steps run over (an expression); required, but may be
    /// left to the extended version when a version overrides some steps.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub over: Option<Spanned<String>>,
    /// The name of the current item inside the group's steps (required, as `over`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub item: Option<Spanned<String>>,
    /// The steps, computed for each item.
    pub steps: IndexMap<String, RawStep>,
}

/// `round = { places = 2, mode = "half_up" }`.
#[derive(Debug, Deserialize, Serialize)]
#[cfg_attr(feature = "format-schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RawRound {
    /// Decimal places kept.
    pub places: u32,
    /// One of `RoundingMode::NAMES` (`half_up`, `half_down`, `down`, …).
    #[cfg_attr(feature = "format-schema", schemars(with = "String"))]
    pub mode: Spanned<String>,
}

/// One ordered check.
#[derive(Debug, Deserialize, Serialize)]
#[cfg_attr(feature = "format-schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RawCheck {
    /// Human label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Condition; a check without one always holds (only the last may omit it).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub when: Option<Spanned<String>>,
    /// The decision given when the check holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub decision: Option<Spanned<String>>,
    /// Reason code given with the decision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Clauses cited when the check holds.
    #[serde(default)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Vec<String>"))]
    pub clauses: Vec<Spanned<String>>,
    /// Instead of a decision: reject the case at this field path.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub reject: Option<Spanned<String>>,
    /// Rejection message; `{name}` is replaced by that value.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub message: Option<Spanned<String>>,
}

/// A decision and its answer.
#[derive(Debug, Deserialize, Serialize)]
#[cfg_attr(feature = "format-schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RawDecision {
    /// Human label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Clauses cited by default.
    #[serde(default)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Vec<String>"))]
    pub clauses: Vec<Spanned<String>>,
    /// Clauses cited in addition when a condition holds.
    #[serde(default)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cite: Vec<RawCite>,
    /// Answer fields, in output order.
    pub answer: IndexMap<String, RawOutput>,
}

/// `{ when = "...", clauses = [...] }`.
#[derive(Debug, Deserialize, Serialize)]
#[cfg_attr(feature = "format-schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RawCite {
    /// Condition.
    #[cfg_attr(feature = "format-schema", schemars(with = "String"))]
    pub when: Spanned<String>,
    /// Clauses added when it holds.
    #[cfg_attr(feature = "format-schema", schemars(with = "Vec<String>"))]
    pub clauses: Vec<Spanned<String>>,
}

/// One answer field.
#[derive(Debug, Deserialize, Serialize)]
#[cfg_attr(feature = "format-schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RawOutput {
    /// The value (not with `each`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub expr: Option<Spanned<String>>,
    /// `money`, `decimal`, `integer`, `number`, `text`, `bool`, `date`, `month`, `clauses`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub format: Option<Spanned<String>>,
    /// A list with one object per item of this per-item group, in input order.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub each: Option<Spanned<String>>,
    /// With `each`: an object keyed by this expression (in the item's scope) instead of a list.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<String>"))]
    pub key: Option<Spanned<String>>,
    /// The fields of each item's object (with `each`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fields: Option<IndexMap<String, RawOutput>>,
}

/// `[limits]`: bounds on one evaluation.
#[derive(Debug, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "format-schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RawLimits {
    /// Largest case, in bytes of JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<usize>"))]
    pub max_case_bytes: Option<Spanned<usize>>,
    /// Most items in any list input.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<usize>"))]
    pub max_list_items: Option<Spanned<usize>>,
    /// Most expression nodes evaluated for one case.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "format-schema", schemars(with = "Option<u64>"))]
    pub max_eval_steps: Option<Spanned<u64>>,
}

impl RawGroup {
    /// The item's name (empty only in a group the loader refused).
    pub fn item_name(&self) -> &str {
        self.item.as_ref().map_or("", |i| i.get_ref().as_str())
    }

    /// Where the item's name is written.
    pub fn item_anchor(&self) -> crate::span::Span {
        self.item
            .as_ref()
            .map_or_else(|| self.anchor(), Anchor::anchor)
    }
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_false(b: &bool) -> bool {
    !*b
}

/// The JSON Schema of a rulebook file (draft 7, which editors' TOML
/// validators read), generated from these types so it cannot drift from
/// what the loader accepts: `bareme schema` prints it, and
/// `docs/rulebook.schema.json` is this text.
#[cfg(feature = "format-schema")]
pub fn json_schema() -> String {
    let generator = schemars::generate::SchemaSettings::draft07().into_generator();
    let schema = generator.into_root_schema_for::<RawRulebook>();
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

/// The span a problem about an item points at.
pub trait Anchor {
    /// Byte range in the file.
    fn anchor(&self) -> crate::span::Span;
}

impl<T> Anchor for Spanned<T> {
    fn anchor(&self) -> crate::span::Span {
        crate::span::Span::from(self.span())
    }
}

impl Anchor for RawInput {
    fn anchor(&self) -> crate::span::Span {
        self.ty.anchor()
    }
}

impl Anchor for RawTable {
    fn anchor(&self) -> crate::span::Span {
        match (&self.kind, self.rows.first()) {
            (Some(kind), _) => kind.anchor(),
            (None, Some(row)) => row.anchor(),
            (None, None) => crate::span::Span::default(),
        }
    }
}

impl Anchor for RawStep {
    fn anchor(&self) -> crate::span::Span {
        self.expr.anchor()
    }
}

impl Anchor for RawOutput {
    fn anchor(&self) -> crate::span::Span {
        match (&self.expr, &self.each) {
            (Some(e), _) => e.anchor(),
            (None, Some(e)) => e.anchor(),
            (None, None) => crate::span::Span::default(),
        }
    }
}

impl Anchor for RawGroup {
    fn anchor(&self) -> crate::span::Span {
        match (&self.over, self.steps.values().next()) {
            (Some(over), _) => over.anchor(),
            (None, Some(step)) => step.anchor(),
            (None, None) => crate::span::Span::default(),
        }
    }
}

impl Anchor for RawParameter {
    fn anchor(&self) -> crate::span::Span {
        match (&self.value, &self.at) {
            (Some(v), _) => v.anchor(),
            (None, Some(at)) => at.anchor(),
            (None, None) => crate::span::Span::default(),
        }
    }
}

impl Anchor for RawDecision {
    fn anchor(&self) -> crate::span::Span {
        match (self.answer.values().next(), self.clauses.first()) {
            (Some(out), _) => out.anchor(),
            (None, Some(c)) => c.anchor(),
            (None, None) => crate::span::Span::default(),
        }
    }
}
