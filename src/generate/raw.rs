//! The serde mirror of a generator file (`rulebooks/<id>/generator-<n>.toml`):
//! what the file may say, nothing more. Unknown keys are refused; strings
//! that name parts of the rulebook or hold expressions keep their span so
//! that a disagreement with the rulebook is reported where it is written.

use indexmap::IndexMap;
use serde::Deserialize;
use toml::Spanned;

/// A whole generator file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawGenerator {
    /// Identity and the rulebook version it is written against.
    pub generator: RawHeader,
    /// Levels by number: their ablations and the tier of their profiles.
    #[serde(default)]
    pub levels: IndexMap<String, RawLevel>,
    /// Self-checks every task passes before it is kept.
    #[serde(default)]
    pub checks: RawChecks,
    /// Profiles: the kinds of task, each a recipe for a case.
    pub profiles: IndexMap<String, RawProfile>,
    /// The prompt templates.
    pub prompt: RawPrompt,
}

/// `[generator]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawHeader {
    /// The generator's number: `generator-4.toml` has 4.
    pub number: Spanned<i64>,
    /// The rulebook it is written against: `luma-payroll@3`.
    pub rulebook: Spanned<String>,
    /// The rubric whose answer format its prompt states.
    pub rubric: Spanned<i64>,
    /// Language of the prompts (`en`, `fr`): how amounts are written in them.
    #[serde(default)]
    pub language: Option<Spanned<String>>,
    /// Human title.
    #[serde(default)]
    pub title: Option<String>,
    /// The cycle of levels task indices go through: `[1, 4, 2, 3]`.
    #[serde(default)]
    pub mix: Option<Spanned<Vec<i64>>>,
    /// Task ids: `paie-{level}-{index}`.
    #[serde(default)]
    pub id: Option<Spanned<String>>,
    /// Most draws of one task before the run fails.
    #[serde(default)]
    pub max_redraws: Option<Spanned<u32>>,
    /// Most evaluations of the rulebook the draws of one task make.
    #[serde(default)]
    pub max_evaluations: Option<Spanned<u64>>,
    /// Most units of evaluation budget the draws of one task spend.
    #[serde(default)]
    pub max_steps: Option<Spanned<u64>>,
    /// Whether a task that misses its profile is drawn again from the same
    /// profile (so that profiles keep their weights whatever their redraw
    /// rates) instead of from a profile picked again.
    #[serde(default)]
    pub keep_profile: Option<bool>,
    /// How a task's profile is picked: `weighted` (each task on its own,
    /// the default) or `stratified` (every run of as many tasks of a level
    /// as its weights sum to holds each profile exactly its weight's times,
    /// in an order shuffled by the seed).
    #[serde(default)]
    pub pick: Option<Spanned<String>>,
    /// The profiles of the first tasks, in order: task `i` of a mixed run
    /// is drawn from `opening[i]`, at that profile's level, whatever the mix
    /// and the pick (a calibration run of `-n 6` sees fixed variants).
    #[serde(default)]
    pub opening: Option<Spanned<Vec<String>>>,
    /// A name between the rulebook's id and the number, for a second family
    /// of generators beside the numbered ones: `transfer` makes
    /// `luma-payroll/generator-transfer-1`.
    #[serde(default)]
    pub name: Option<Spanned<String>>,
}

/// `[levels.N]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLevel {
    /// What the level asks of a solver.
    #[serde(default)]
    pub label: Option<String>,
    /// Ablations that stand for the level's rules: one of them must change
    /// every task's answer.
    #[serde(default)]
    pub ablations: Vec<Spanned<String>>,
    /// Ablations measured, not required: a task whose answer one of them
    /// changes is tagged `ablation:<name>`.
    #[serde(default)]
    pub watch: Vec<Spanned<String>>,
}

/// `[checks]`: what every task must pass, unless a profile says otherwise.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawChecks {
    /// Answer fields (computed amounts) that may not appear in the prompt.
    #[serde(default)]
    pub no_leak: Vec<Spanned<String>>,
    /// Whether a reason code may appear in the prompt only as often as the
    /// answer format that every task states alike shows it.
    #[serde(default)]
    pub hide_reason: bool,
    /// No rounding point of the reference trace within this of its boundary.
    #[serde(default)]
    pub margin: Option<Spanned<String>>,
    /// Margins of the rounding points of named steps only (`ceiling`, or
    /// `group.step` for a per-item step): no rounding in that step within
    /// its margin of the boundary.
    #[serde(default)]
    pub margins: IndexMap<String, Spanned<String>>,
    /// Answer fields that may appear in the prompt when their value is an
    /// amount of the case itself (a gross that is the base salary): a copy,
    /// not a leak.
    #[serde(default)]
    pub may_copy: Vec<Spanned<String>>,
    /// Expressions whose values identify a task: a later task with the same
    /// values is a duplicate and dropped.
    #[serde(default)]
    pub signature: Vec<Spanned<String>>,
}

/// `[profiles.NAME]`: one kind of task.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawProfile {
    /// The level it belongs to (1 when there are no levels).
    #[serde(default)]
    pub level: Option<Spanned<i64>>,
    /// Its tier (`payslip`, `trap`, `retrieval`).
    #[serde(default)]
    pub tier: Option<Spanned<String>>,
    /// Relative weight among the profiles of its level.
    #[serde(default)]
    pub weight: Option<Spanned<u32>>,
    /// A profile whose fields, conditions and checks this one starts from.
    #[serde(default)]
    pub base: Option<Spanned<String>>,
    /// The case, field by field in draw order; keys are dotted paths.
    #[serde(default)]
    pub case: RawFields,
    /// Conditions on the finished case (expressions over its inputs and steps).
    #[serde(default)]
    pub accept: Vec<Spanned<String>>,
    /// The decision the reference must take.
    #[serde(default)]
    pub decision: Option<Spanned<String>>,
    /// The reason it must give.
    #[serde(default)]
    pub reason: Option<Spanned<String>>,
    /// Answer fields exempt from the leak check here: a task built to land
    /// on a number of the rules (taxable pay on a bracket line) shows it.
    #[serde(default)]
    pub shown: Vec<Spanned<String>>,
    /// At least one of these ablations must change the answer.
    #[serde(default)]
    pub detect: Vec<Spanned<String>>,
    /// Each of these ablations must change the answer on its own.
    #[serde(default)]
    pub detect_each: Vec<Spanned<String>>,
    /// Tags added when their condition holds.
    #[serde(default)]
    pub tags: Vec<RawTag>,
    /// Conditions on a perturbed copy of the case.
    #[serde(default)]
    pub perturb: Vec<RawPerturb>,
    /// Whether the rounding margin check applies (default: yes when declared).
    #[serde(default)]
    pub margin_check: Option<bool>,
}

/// A tag and when it applies.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTag {
    /// The tag.
    pub tag: String,
    /// Its condition over the finished case; always when absent.
    #[serde(default)]
    pub when: Option<Spanned<String>>,
}

/// A perturbed copy: fields set by expressions, then conditions comparing
/// the copy's values with the original's.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPerturb {
    /// What the perturbation stands for, in redraw counts.
    pub name: String,
    /// Fields of the copy (dotted paths; `[*]` for every item of a list)
    /// and expressions over the original case giving their new values;
    /// `item` is the list item at hand under `[*]`.
    pub set: IndexMap<String, Spanned<String>>,
    /// Expressions that must differ between the original and the copy.
    #[serde(default)]
    pub moves: Vec<Spanned<String>>,
}

/// Fields by dotted path, each key with where it is written: a field whose
/// value has no span of its own (`value`, `null`, `list`…) is pointed at
/// by its key, in its own profile.
pub type RawFields = IndexMap<Spanned<String>, RawField>;

/// How one field of the case is drawn. Exactly one way is given.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawField {
    /// A literal JSON value.
    #[serde(default)]
    pub value: Option<toml::Value>,
    /// JSON null.
    #[serde(default)]
    pub null: Option<bool>,
    /// Left out of the case (undoes a base profile's field).
    #[serde(default)]
    pub absent: Option<bool>,
    /// A decimal uniformly on the grid `step` between two expressions.
    #[serde(default)]
    pub decimal: Option<[Spanned<String>; 2]>,
    /// The grid of `decimal` and `target` (default `0.01`).
    #[serde(default)]
    pub step: Option<Spanned<String>>,
    /// An integer between two bounds (inclusive).
    #[serde(default)]
    pub integer: Option<[i64; 2]>,
    /// One of these values.
    #[serde(default)]
    pub choice: Option<Vec<toml::Value>>,
    /// Their weights (all 1 when absent).
    #[serde(default)]
    pub weights: Option<Vec<u32>>,
    /// A month between two months (inclusive): each `YYYY-MM` or an
    /// expression giving a month (or a date: its month).
    #[serde(default)]
    pub month: Option<[Spanned<String>; 2]>,
    /// A date between two dates (inclusive): each `YYYY-MM-DD` or an
    /// expression giving a date, or a month (its first day as the low
    /// bound, its last day as the high one).
    #[serde(default)]
    pub date: Option<[Spanned<String>; 2]>,
    /// The value of an expression over the case drawn so far.
    #[serde(default)]
    pub expr: Option<Spanned<String>>,
    /// A decimal on the grid chosen so that this step of the reference lands
    /// `on`, just `below` or just `above` a value computed from the case.
    #[serde(default)]
    pub target: Option<Spanned<String>>,
    /// The value the target step lands on.
    #[serde(default)]
    pub on: Option<Spanned<String>>,
    /// The value the target step lands just below.
    #[serde(default)]
    pub below: Option<Spanned<String>>,
    /// The value the target step lands just above.
    #[serde(default)]
    pub above: Option<Spanned<String>>,
    /// Where the target's field is searched (two expressions).
    #[serde(default)]
    pub within: Option<[Spanned<String>; 2]>,
    /// A list of `list[0]`..=`list[1]` items, each drawn by `item`.
    #[serde(default)]
    pub list: Option<[u32; 2]>,
    /// A list made of parts, one after the other, each a `list` with its
    /// `item` (and optionally a `chance`); `{n}` counts across the parts.
    #[serde(default)]
    pub parts: Option<Vec<RawField>>,
    /// An object of `object[0]`..=`object[1]` entries keyed by `key`, each drawn by `item`.
    #[serde(default)]
    pub object: Option<[u32; 2]>,
    /// The key of an object entry: a text where `{n}` is the entry's number from 1.
    #[serde(default)]
    pub key: Option<String>,
    /// The fields of a list item or object entry, by path within it.
    #[serde(default)]
    pub item: Option<RawFields>,
    /// An object whose fields (paths within it) are drawn in order.
    #[serde(default)]
    pub fields: Option<RawFields>,
    /// A text where `{n}` is the number of the list item or entry at hand.
    #[serde(default)]
    pub text: Option<String>,
    /// One of the keys of the object at this path of the case.
    #[serde(default)]
    pub key_of: Option<Spanned<String>>,
    /// Written as a JSON number instead of a string (decimals, expressions).
    #[serde(default)]
    pub number: Option<bool>,
    /// Probability that the field is drawn at all (a decimal; absent otherwise).
    #[serde(default)]
    pub chance: Option<Spanned<String>>,
    /// A value the field holds from the start of the draw until its own
    /// turn: for a field the case needs to validate (a required one) before
    /// the expressions that draw it, or fields before it, can be read.
    #[serde(default)]
    pub placeholder: Option<toml::Value>,
}

impl RawField {
    /// The span of the first thing written in it that has one.
    pub fn span(&self) -> Option<std::ops::Range<usize>> {
        let pair = |p: &Option<[Spanned<String>; 2]>| {
            p.as_ref().map(|[a, b]| a.span().start..b.span().end)
        };
        let one = |s: &Option<Spanned<String>>| s.as_ref().map(|s| s.span());
        pair(&self.decimal)
            .or_else(|| one(&self.expr))
            .or_else(|| one(&self.target))
            .or_else(|| pair(&self.month))
            .or_else(|| pair(&self.date))
            .or_else(|| pair(&self.within))
            .or_else(|| one(&self.key_of))
            .or_else(|| one(&self.chance))
            .or_else(|| one(&self.step))
    }
}

/// `[prompt]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPrompt {
    /// The answer format that every task states alike (a template over the
    /// rulebook); available to `task` as `format`.
    #[serde(default)]
    pub format: Option<String>,
    /// The rules part (a template over the rulebook and the task's level);
    /// available to `task` as `rules`.
    #[serde(default)]
    pub rules: Option<String>,
    /// The whole prompt (a template over the rulebook, the case, `rules` and `format`).
    pub task: Spanned<String>,
    /// Switches of the prompt, off or on unless a run says otherwise
    /// (`bareme generate --option NAME`); every template reads them as
    /// `options.NAME`.
    #[serde(default)]
    pub options: IndexMap<String, bool>,
    /// Worked examples: cases the reference answers when the generator is
    /// prepared; every template reads them as `examples`.
    #[serde(default)]
    pub examples: Vec<RawExample>,
}

/// `[[prompt.examples]]`: one worked example.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawExample {
    /// What the example shows, for the templates (`examples[i].name`).
    #[serde(default)]
    pub name: Option<String>,
    /// Its case, as a case file holds it.
    pub case: Spanned<toml::Value>,
    /// An explanation the demonstrated reply adds to the reference's
    /// answer (the optional `explanation` a rubric may grade).
    #[serde(default)]
    pub explanation: Option<String>,
}
