//! A checked generator: every name it draws or reads resolved against the
//! rulebook version it is written against (built by `load`).

use rust_decimal::Decimal;
use std::sync::Arc;

use crate::model::Formula;
use crate::value::Month;

/// A generator, checked against its rulebook.
///
/// ```
/// let (generator, rb) = bareme::load_generator("rulebooks/paie-fr/generator-1.toml".as_ref(), None)?;
/// let drawer = bareme::TaskDrawer::new(&generator, &rb)?;
/// let task = drawer.task(1, 0, Some(1))?.task;
/// assert_eq!(task.level, Some(1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Generator {
    /// `luma-payroll/generator-4`.
    pub(crate) name: String,
    /// Its number.
    pub(crate) number: i64,
    /// Human title.
    pub(crate) title: Option<String>,
    /// `luma-payroll@3`.
    pub(crate) rulebook: String,
    /// The rulebook's hash it was checked against.
    pub(crate) rulebook_hash: String,
    /// SHA-256 of the generator file.
    pub(crate) hash: String,
    /// The rubric whose answer format the prompt states.
    pub(crate) rubric: i64,
    /// How amounts are written in prompts.
    pub(crate) language: Language,
    /// Task id template: `{level}`, `{index}`, `{tier}`, `{branch}`.
    pub(crate) id: String,
    /// The cycle of levels.
    pub(crate) mix: Vec<i64>,
    /// Levels, by number.
    pub(crate) levels: Vec<Level>,
    /// Profiles.
    pub(crate) profiles: Vec<Profile>,
    /// Self-checks.
    pub(crate) checks: Checks,
    /// Prompt templates.
    pub(crate) prompt: Prompt,
    /// Most draws of one task.
    pub(crate) max_redraws: u32,
    /// Most evaluations of the rulebook the draws of one task make
    /// (`budget`).
    pub(crate) max_evaluations: u64,
    /// Most units of evaluation budget the draws of one task spend, all
    /// their evaluations together (`budget`).
    pub(crate) max_steps: u64,
    /// Redraws stay in the profile first picked.
    pub(crate) keep_profile: bool,
    /// Profiles are picked by strata of task indices, not one task at a
    /// time (`pick = "stratified"`); redraws then stay in the profile.
    pub(crate) stratified: bool,
    /// Profiles (indices into `profiles`) of the first task indices of a
    /// mixed run (`opening`): they set the level and the profile.
    pub(crate) opening: Vec<usize>,
}

/// The language of a prompt: how amounts are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    /// `1,234.56`
    English,
    /// `1 234,56`
    French,
}

/// A level.
#[derive(Clone, Debug)]
pub(crate) struct Level {
    pub(crate) number: i64,
    pub(crate) label: Option<String>,
    /// One of them must change every task's answer.
    pub(crate) ablations: Vec<Arc<str>>,
    /// Measured only: a task is tagged `ablation:<name>` when one changes its answer.
    pub(crate) watch: Vec<Arc<str>>,
    /// Its profiles and their weights.
    pub(crate) profiles: Vec<(usize, u32)>,
}

/// Checks every task passes.
#[derive(Clone, Debug, Default)]
pub(crate) struct Checks {
    pub(crate) no_leak: Vec<Arc<str>>,
    pub(crate) hide_reason: bool,
    pub(crate) margin: Option<Decimal>,
    /// Margins of the rounding points of named steps (`step`, `group.step`).
    pub(crate) margins: Vec<(Arc<str>, Decimal)>,
    /// Answer fields that may appear in the prompt as a copy of an amount of the case.
    pub(crate) may_copy: Vec<Arc<str>>,
    pub(crate) signature: Vec<Formula>,
}

/// A kind of task.
#[derive(Clone, Debug)]
pub(crate) struct Profile {
    pub(crate) name: Arc<str>,
    pub(crate) level: i64,
    pub(crate) tier: Arc<str>,
    pub(crate) fields: Vec<FieldDraw>,
    pub(crate) accept: Vec<Formula>,
    pub(crate) decision: Option<Arc<str>>,
    pub(crate) reason: Option<Arc<str>>,
    pub(crate) detect: Vec<Arc<str>>,
    /// Each of them must change the answer.
    pub(crate) detect_each: Vec<Arc<str>>,
    /// Answer fields the prompt may show.
    pub(crate) shown: Vec<Arc<str>>,
    pub(crate) tags: Vec<(String, Option<Formula>)>,
    pub(crate) perturb: Vec<Perturb>,
    pub(crate) margin_check: bool,
    /// Relative weight among its level's profiles.
    pub(crate) weight: u32,
}

/// A perturbed copy of the case and what must move.
#[derive(Clone, Debug)]
pub(crate) struct Perturb {
    pub(crate) name: String,
    /// Paths (`*` for every item of a list) and their new values, where
    /// `value` is the field's value in the original.
    pub(crate) set: Vec<(Vec<Segment>, Formula)>,
    pub(crate) moves: Vec<Formula>,
}

/// One segment of a field's path in the case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Segment {
    Key(String),
    /// Every item of a list.
    Each,
}

/// One field of the case and how it is drawn.
#[derive(Clone, Debug)]
pub(crate) struct FieldDraw {
    /// Its path, relative to the case or to the item at hand.
    pub(crate) path: Vec<String>,
    pub(crate) draw: Draw,
    /// Probability that it is drawn at all.
    pub(crate) chance: Option<Decimal>,
    /// Written as a JSON number, not a string.
    pub(crate) number: bool,
    /// Held from the start of the draw until the field's own turn.
    pub(crate) placeholder: Option<serde_json::Value>,
}

/// A bound of a draw: known at load or computed from the case.
#[derive(Clone, Debug)]
pub(crate) enum Bound {
    Const(Decimal),
    Expr(Formula),
}

/// A bound of a month or date draw: known at load or computed from the case.
#[derive(Clone, Debug)]
pub(crate) enum Moment {
    Date(chrono::NaiveDate),
    Month(Month),
    /// A date or month expression (a month stands for its first or last day).
    Expr(Formula),
}

/// Where a target step must land.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    On,
    Below,
    Above,
}

/// How a field is drawn.
#[derive(Clone, Debug)]
pub(crate) enum Draw {
    Value(serde_json::Value),
    Absent,
    Decimal {
        lo: Bound,
        hi: Bound,
        step: Decimal,
    },
    Integer(i64, i64),
    Choice {
        values: Vec<serde_json::Value>,
        weights: Vec<u32>,
    },
    Month(Moment, Moment),
    Date(Moment, Moment),
    Expr(Formula),
    /// Boxed: two formulas and two bounds would make every draw this large.
    Target(Box<Target>),
    List {
        min: u32,
        max: u32,
        item: Vec<FieldDraw>,
    },
    Object {
        min: u32,
        max: u32,
        key: String,
        item: Vec<FieldDraw>,
    },
    /// A list made of parts (each a `List` field, maybe with a chance).
    Parts(Vec<FieldDraw>),
    Record(Vec<FieldDraw>),
    Text(String),
    KeyOf(Vec<String>),
}

/// A field chosen on its grid so that a step lands on, below or above a goal.
#[derive(Clone, Debug)]
pub(crate) struct Target {
    pub(crate) step: Formula,
    pub(crate) side: Side,
    pub(crate) goal: Formula,
    pub(crate) lo: Bound,
    pub(crate) hi: Bound,
    pub(crate) step_size: Decimal,
}

/// The prompt's templates.
#[derive(Clone, Debug)]
pub(crate) struct Prompt {
    pub(crate) format: String,
    pub(crate) rules: String,
    pub(crate) task: String,
    /// Declared switches and their values for this run.
    pub(crate) options: Vec<(String, bool)>,
    /// Each switch's declared value, in the same order: what a run that
    /// sets none uses.
    pub(crate) defaults: Vec<bool>,
    /// Worked examples, answered by the reference.
    pub(crate) examples: Vec<Example>,
}

/// A worked example of the prompt.
#[derive(Clone, Debug)]
pub(crate) struct Example {
    /// What it shows.
    pub(crate) name: Option<String>,
    /// Its case.
    pub(crate) case: serde_json::Value,
    /// The explanation its reply adds to the reference's answer.
    pub(crate) explanation: Option<String>,
}

/// A prompt switch the generator does not declare (`--option NAME`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionError {
    /// The generator, `luma-payroll/generator-4`.
    pub generator: String,
    /// The name asked for.
    pub name: String,
    /// The switches it declares, in order.
    pub declared: Vec<String>,
}

impl OptionError {
    /// `generate::unknown_option`.
    pub fn code(&self) -> &'static str {
        "generate::unknown_option"
    }
}

impl std::fmt::Display for OptionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let declared = if self.declared.is_empty() {
            "none".to_string()
        } else {
            self.declared.join(", ")
        };
        write!(
            f,
            "{} has no prompt option `{}` (it declares: {declared})",
            self.generator, self.name
        )
    }
}

impl std::error::Error for OptionError {}

impl Generator {
    /// Sets a prompt switch the generator declares (`[prompt.options]`)
    /// for the runs that follow; an undeclared name is refused with the
    /// declared ones.
    pub fn set_option(&mut self, name: &str, on: bool) -> Result<(), OptionError> {
        match self.prompt.options.iter_mut().find(|(n, _)| n == name) {
            Some((_, value)) => {
                *value = on;
                Ok(())
            }
            None => Err(OptionError {
                generator: self.name.clone(),
                name: name.to_string(),
                declared: self.prompt.options.iter().map(|(n, _)| n.clone()).collect(),
            }),
        }
    }

    /// Every prompt switch the generator declares with its value for the
    /// runs that follow, in declaration order: what the manifest records.
    pub fn options(&self) -> &[(String, bool)] {
        &self.prompt.options
    }

    /// [`Generator::options`] when some switch differs from its declared
    /// value, else `None`: what a task line records, so that the lines of
    /// a run that sets no switch are those of a generator without any.
    pub fn options_set(&self) -> Option<&[(String, bool)]> {
        let options = &self.prompt.options;
        let changed = options
            .iter()
            .zip(&self.prompt.defaults)
            .any(|((_, on), default)| on != default);
        changed.then_some(&options[..])
    }

    /// `luma-payroll/generator-4`.
    ///
    /// ```
    /// # let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
    /// assert_eq!(generator.name(), "luma-payroll/generator-4");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The rulebook it is written against: `luma-payroll@3`.
    ///
    /// ```
    /// # let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
    /// assert_eq!(generator.rulebook(), "luma-payroll@3");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn rulebook(&self) -> &str {
        &self.rulebook
    }

    /// Its number: `generator-4.toml` has 4.
    ///
    /// ```
    /// # let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
    /// assert_eq!(generator.number(), 4);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn number(&self) -> i64 {
        self.number
    }

    /// The rubric whose answer format its prompts state: `rubric = 8`.
    ///
    /// ```
    /// # let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
    /// assert_eq!(generator.rubric(), 8);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn rubric(&self) -> i64 {
        self.rubric
    }

    /// Human title.
    ///
    /// ```
    /// # let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
    /// assert!(generator.title().is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// SHA-256 of the generator file.
    ///
    /// ```
    /// # let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
    /// assert_eq!(generator.hash().len(), 64);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn hash(&self) -> &str {
        &self.hash
    }

    /// Level numbers, in the order declared.
    ///
    /// ```
    /// # let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
    /// assert!(generator.level_numbers().count() >= 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn level_numbers(&self) -> impl Iterator<Item = i64> + '_ {
        self.levels.iter().map(|l| l.number)
    }
}
