//! The checked rubric: every name resolved against its rulebook version,
//! every number a decimal. What `grade` reads; built only by `load`.

use rust_decimal::Decimal;
use std::sync::Arc;

use crate::reply::{AmountRules, Envelope};

/// A rubric, checked against one rulebook version.
///
/// ```
/// let (rubric, _) = bareme::load_rubric("rulebooks/luma-payroll/rubric-8.toml".as_ref(), None)?;
/// assert_eq!(rubric.rulebook_id, "luma-payroll");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Rubric {
    /// `luma-payroll/rubric-8`.
    pub name: String,
    /// Its number.
    pub number: i64,
    /// Human title.
    pub title: Option<String>,
    /// SHA-256 of the rubric file's text.
    pub hash: String,
    /// The rulebook's id.
    pub rulebook_id: String,
    /// The rulebook's version.
    pub rulebook_version: i64,
    /// The rulebook's hash when the rubric was checked against it.
    pub rulebook_hash: String,
    /// The rulebook's clause ids: what a cited clause may be.
    pub clause_ids: Vec<Arc<str>>,
    /// Where the JSON stands in a reply.
    pub envelope: Envelope,
    /// The root key naming the decision.
    pub decision_key: Option<String>,
    /// Optional root keys and the JSON kind each must be.
    pub optional: Vec<(String, JsonKind)>,
    /// What an `amount` field may be.
    pub amounts: AmountRules,
    /// The score.
    pub score: ScoreRules,
    /// One entry per decision of the rulebook, in the rulebook's order.
    pub decisions: Vec<DecisionRubric>,
}

impl Rubric {
    /// `luma-payroll@3`.
    ///
    /// ```
    /// # let (rubric, _) = bareme::load_rubric("rulebooks/luma-payroll/rubric-8.toml".as_ref(), None)?;
    /// assert_eq!(rubric.rulebook(), "luma-payroll@3");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn rulebook(&self) -> String {
        format!("{}@{}", self.rulebook_id, self.rulebook_version)
    }

    /// The decision named.
    ///
    /// ```
    /// # let (rubric, _) = bareme::load_rubric("rulebooks/luma-payroll/rubric-8.toml".as_ref(), None)?;
    /// assert!(rubric.decision("calculate").is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn decision(&self, name: &str) -> Option<&DecisionRubric> {
        self.decisions.iter().find(|d| d.name == name)
    }

    /// The most a reply can score.
    ///
    /// ```
    /// # let (rubric, _) = bareme::load_rubric("rulebooks/luma-payroll/rubric-8.toml".as_ref(), None)?;
    /// assert_eq!(rubric.max(), rust_decimal::Decimal::ONE);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn max(&self) -> Decimal {
        self.score.exact + self.score.citations.unwrap_or_default()
    }
}

/// A JSON kind an optional key must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonKind {
    /// A string.
    String,
}

/// The score's rules.
#[derive(Clone, Debug)]
pub struct ScoreRules {
    /// A reply that breaks the answer contract: the floor.
    pub malformed: Decimal,
    /// Another decision than the reference's.
    pub wrong_decision: Decimal,
    /// The right decision, not exact, no partial credit.
    pub wrong: Decimal,
    /// Every graded field right.
    pub exact: Decimal,
    /// Times the Jaccard similarity of the cited clauses, added to `exact`.
    pub citations: Option<Decimal>,
    /// Only exact answers score above `wrong`.
    pub all_or_nothing: bool,
    /// The external grade of the explanation.
    pub explanation: Option<Explanation>,
}

/// How an external explanation grade is combined.
#[derive(Clone, Debug)]
pub struct Explanation {
    /// Weight `w`: final = (1 − w) × deterministic + w × grade.
    pub weight: Decimal,
    /// The decisions whose exact answers are graded.
    pub decisions: Vec<String>,
    /// The clauses that govern it.
    pub clauses: Vec<Arc<str>>,
}

/// One decision's fields and partial credit.
#[derive(Clone, Debug)]
pub struct DecisionRubric {
    /// The decision's name in the rulebook.
    pub name: String,
    /// The rulebook decision's own clauses (when its answer cites none).
    pub clauses: Vec<Arc<str>>,
    /// The clauses of its answer format.
    pub format_clauses: Vec<Arc<str>>,
    /// Every answer field, in the rulebook's order.
    pub fields: Vec<Field>,
    /// Partial credit.
    pub partial: Option<Partial>,
}

/// One answer field.
#[derive(Clone, Debug)]
pub struct Field {
    /// Its JSON key.
    pub key: String,
    /// What it holds.
    pub kind: FieldKind,
    /// The clauses that govern it.
    pub clauses: Vec<Arc<str>>,
}

/// What a field holds.
#[derive(Clone, Debug)]
pub enum FieldKind {
    /// One value.
    Value(Format),
    /// A list of objects, one per item, in order.
    List(Vec<Field>),
    /// An object of objects keyed by item: exactly the reference's keys.
    Keyed(Vec<Field>),
}

/// How a value is read from the reply and compared with the reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The decision's name: one of the rulebook's decisions, else malformed.
    Decision,
    /// `[0-9]+\.[0-9]{2}` string.
    Money,
    /// `-?[0-9]+\.[0-9]{2}` string.
    SignedMoney,
    /// A JSON number or a string holding one amount (`[amounts]`).
    Amount,
    /// A JSON string, compared literally.
    String,
    /// Any JSON value, compared literally (a wrong type is a wrong field).
    Any,
    /// Any JSON value; right when a plain decimal string of the reference's value.
    Decimal,
    /// A list of distinct clause ids of the rulebook; compared by Jaccard similarity.
    Clauses,
}

impl Format {
    /// Its name in a rubric file.
    pub fn name(self) -> &'static str {
        match self {
            Format::Decision => "decision",
            Format::Money => "money",
            Format::SignedMoney => "signed_money",
            Format::Amount => "amount",
            Format::String => "string",
            Format::Any => "any",
            Format::Decimal => "decimal",
            Format::Clauses => "clauses",
        }
    }

    /// Every format, for the message of an unknown one.
    pub const ALL: [Format; 8] = [
        Format::Decision,
        Format::Money,
        Format::SignedMoney,
        Format::Amount,
        Format::String,
        Format::Any,
        Format::Decimal,
        Format::Clauses,
    ];

    /// Whether its values are amounts (for `zero_if_expected_zero`).
    pub fn is_amount(self) -> bool {
        matches!(
            self,
            Format::Money | Format::SignedMoney | Format::Amount | Format::Decimal
        )
    }

    /// Whether it counts for an exact answer (the decision and citations do not).
    pub fn is_substantive(self) -> bool {
        !matches!(self, Format::Decision | Format::Clauses)
    }
}

/// A field of a decision: at the root, or a field of each item of a list
/// or keyed object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldPath {
    /// As written: `net_pay`, `lines.net`.
    pub text: String,
    /// Index of the root field.
    pub root: usize,
    /// Index of the item's field, for a list or keyed object.
    pub item: Option<usize>,
}

/// Partial credit for a right decision that is not exact.
#[derive(Clone, Debug)]
pub struct Partial {
    /// Fields that must all be right.
    pub gates: Vec<FieldPath>,
    /// The score when a gate fails or the zero rule fires.
    pub otherwise: Decimal,
    /// Whether an expected zero answered non-zero gives `otherwise`.
    pub zero_if_expected_zero: bool,
    /// Whether only fields with a non-zero expected amount are weighed.
    pub nonzero_expected_only: bool,
    /// Score with no weighed field right.
    pub base: Decimal,
    /// Times the weighted share.
    pub scale: Decimal,
    /// The most partial credit gives.
    pub cap: Option<Decimal>,
    /// Weighed fields.
    pub weights: Vec<(FieldPath, Decimal)>,
    /// A weighed field counts only with these right too.
    pub requires: Vec<(FieldPath, Vec<FieldPath>)>,
}
