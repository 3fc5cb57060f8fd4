//! The serde mirror of a rubric file (`rulebooks/<id>/rubric-<n>.toml`):
//! what the file may say, nothing more. Unknown keys are refused; every
//! string that names a part of the rulebook keeps its span, so that a
//! disagreement with the rulebook is reported where it is written.

use indexmap::IndexMap;
use serde::Deserialize;
use toml::Spanned;

/// A whole rubric file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRubric {
    /// Identity and the rulebook version it grades.
    pub rubric: RawHeader,
    /// Where the JSON stands in a reply, and its size.
    #[serde(default)]
    pub reply: RawReply,
    /// What an `amount` field may be.
    #[serde(default)]
    pub amounts: RawAmounts,
    /// The score: floors, the exact score, options.
    pub score: RawScore,
    /// Per decision of the rulebook: its fields' formats and partial credit.
    /// Keyed by a spanned name: a table written only through its dotted
    /// sub-tables (`[decisions.pay.fields]`) has no span of its own.
    pub decisions: IndexMap<Spanned<String>, RawDecision>,
}

/// `[rubric]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawHeader {
    /// The rubric's number: `rubric-8.toml` has 8.
    pub number: Spanned<i64>,
    /// The rulebook it grades: `luma-payroll@3`.
    pub rulebook: Spanned<String>,
    /// Human title.
    #[serde(default)]
    pub title: Option<String>,
}

/// `[reply]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawReply {
    /// Most Unicode code points of a reply.
    #[serde(default)]
    pub max_chars: Option<Spanned<i64>>,
    /// The tag around the JSON.
    #[serde(default)]
    pub tag: Option<RawTag>,
    /// Whether one code fence may wrap the JSON.
    #[serde(default)]
    pub fences: bool,
    /// The root key naming the decision; without it the rulebook has one decision.
    #[serde(default)]
    pub decision_key: Option<Spanned<String>>,
    /// Optional root keys beside the answer's, and what each must be (`string`).
    #[serde(default)]
    pub optional: IndexMap<String, Spanned<String>>,
}

/// `[reply.tag]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTag {
    /// `bulletin` for `<bulletin>…</bulletin>`.
    pub name: Spanned<String>,
    /// Whether `<BULLETIN>` is the same tag.
    #[serde(default)]
    pub case_insensitive: bool,
    /// `exactly_one` (default) or `first_after`.
    #[serde(default)]
    pub closing: Option<Spanned<String>>,
}

/// `[amounts]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawAmounts {
    /// Most decimals (default 2).
    #[serde(default)]
    pub places: Option<Spanned<i64>>,
    /// Largest absolute value, a plain decimal.
    #[serde(default)]
    pub max_abs: Option<Spanned<String>>,
    /// Most digits of a JSON integer.
    #[serde(default)]
    pub max_integer_digits: Option<Spanned<i64>>,
    /// Most digits of an exponent (default 6).
    #[serde(default)]
    pub max_exponent_digits: Option<Spanned<i64>>,
    /// Whether a string holding one amount is allowed.
    #[serde(default)]
    pub strings: bool,
    /// Whether whitespace may surround it in its string.
    #[serde(default)]
    pub padding: bool,
}

/// `[score]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawScore {
    /// A reply that breaks the answer contract.
    pub malformed: Spanned<String>,
    /// A reply of another decision than the reference's.
    pub wrong_decision: Spanned<String>,
    /// The right decision, not exact, and no partial credit given.
    pub wrong: Spanned<String>,
    /// Every graded field right.
    pub exact: Spanned<String>,
    /// Added to `exact`, times the Jaccard similarity of the cited clauses.
    #[serde(default)]
    pub citations: Option<Spanned<String>>,
    /// Whether only exact answers score above `wrong`.
    #[serde(default)]
    pub all_or_nothing: bool,
    /// An external grade of the explanation.
    #[serde(default)]
    pub explanation: Option<RawExplanation>,
}

/// `[score.explanation]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawExplanation {
    /// Its weight `w`: final = (1 − w) × deterministic + w × grade.
    pub weight: Spanned<String>,
    /// The decisions whose exact answers it grades.
    pub decisions: Vec<Spanned<String>>,
    /// The clauses that govern it.
    #[serde(default)]
    pub clauses: Vec<Spanned<String>>,
}

/// `[decisions.NAME]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDecision {
    /// The clauses of the answer format (the format component).
    #[serde(default)]
    pub format_clauses: Vec<Spanned<String>>,
    /// Every answer field of the decision and its format.
    pub fields: IndexMap<String, Spanned<RawField>>,
    /// Partial credit for a right decision that is not exact.
    #[serde(default)]
    pub partial: Option<RawPartial>,
}

/// One answer field: `{ format = "money", clauses = ["R3"] }`, or a list
/// or keyed object of items: `{ each = { net = { format = "money" } } }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawField {
    /// Its format.
    #[serde(default)]
    pub format: Option<Spanned<String>>,
    /// The clauses that govern it (default: its step's).
    #[serde(default)]
    pub clauses: Option<Vec<Spanned<String>>>,
    /// The fields of each item.
    #[serde(default)]
    pub each: Option<IndexMap<String, Spanned<RawField>>>,
}

/// `[decisions.NAME.partial]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPartial {
    /// Fields that must all be right for any partial credit.
    #[serde(default)]
    pub gates: Vec<Spanned<String>>,
    /// The score when a gate fails or `zero_if_expected_zero` fires.
    #[serde(default)]
    pub otherwise: Option<Spanned<String>>,
    /// Whether a field whose expected amount is 0 answered non-zero gives `otherwise`.
    #[serde(default)]
    pub zero_if_expected_zero: bool,
    /// Whether only fields with a non-zero expected amount are weighed.
    #[serde(default)]
    pub nonzero_expected_only: bool,
    /// Score with no weighed field right.
    #[serde(default)]
    pub base: Option<Spanned<String>>,
    /// Times the weighted share of right fields.
    #[serde(default)]
    pub scale: Option<Spanned<String>>,
    /// The most partial credit gives.
    #[serde(default)]
    pub cap: Option<Spanned<String>>,
    /// Weight of each field (a list's field weighs this much per item).
    #[serde(default)]
    pub weights: IndexMap<String, Spanned<String>>,
    /// A field counts as right only when these are right too.
    #[serde(default)]
    pub requires: IndexMap<String, Spanned<Vec<String>>>,
}
