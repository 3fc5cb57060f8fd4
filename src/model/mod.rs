//! The checked rulebook: every name resolved, every formula typed and resolved.
//!
//! A `Rulebook` can only be built by `check`, so holding one means the file
//! passed every static check. Formulas hold [`Node`] trees whose names are
//! already slots (input, step, parameter or table indices), and the same
//! formula lowered to `Code` (`code`), which evaluation runs: it never looks
//! a name up by string.
//!
//! The model keeps everything the rulebook says, including what evaluation
//! never reads (labels, clause texts, the source): prompts, diffs and audit
//! pages read those, so the model is whole rather than minimal.

use indexmap::IndexMap;
use rust_decimal::Decimal;
use std::fmt;
use std::sync::{Arc, OnceLock};

pub mod code;
pub mod func;
mod ids;
mod known;
mod node;
pub(crate) mod ops;
mod pattern;

pub use func::Func;
pub use ids::{InputId, StepId, TableId};
pub use known::KnownTrace;
pub use node::{Formula, Node, NodeKind, Type};

use crate::diag::SourceFile;
use crate::num::RoundingMode;
use crate::value::{Month, Record, Value};

/// Index of a record layout in [`Rulebook::shapes`].
pub type ShapeId = usize;

/// A checked, compiled rulebook.
///
/// ```
/// let rb = bareme::load_rulebook("rulebooks/succession-fr/v2026".as_ref())?;
/// assert_eq!((rb.id(), rb.version()), ("succession-fr", 2026));
/// assert_eq!(rb.hash().len(), 64);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[allow(dead_code)] // Read by prompts, diffs and audit pages, not by evaluation.
#[derive(Clone, Debug)]
pub struct Rulebook {
    /// Stable id, e.g. `luma-payroll`.
    pub(crate) id: String,
    /// Version of the rules.
    pub(crate) version: i64,
    /// File-format version.
    pub(crate) schema: i64,
    /// Human title.
    pub(crate) title: Option<String>,
    /// SHA-256 of the file text (line endings normalised), hex.
    pub(crate) hash: String,
    /// `id@version#hash12`, written once: every trace and task records it.
    pub(crate) reference: String,
    /// The file it came from (for a chain of versions, their texts one after the other).
    pub(crate) source: SourceFile,
    /// The files it was read from, the named one first, then each version
    /// it extends (empty for text read from no file), so that the
    /// conformance cases of an extended version can run on this one.
    pub(crate) files: Vec<String>,
    /// Clause texts by id.
    pub(crate) clauses: IndexMap<Arc<str>, String>,
    /// Top-level inputs in validation order.
    pub(crate) inputs: Vec<Input>,
    /// What a case may hold at its top level besides its inputs (`[case]
    /// extra_keys`); by default a key no input declares is refused.
    pub(crate) extra_keys: ExtraKeys,
    /// Record layouts (record inputs, table rows).
    pub(crate) shapes: Vec<Shape>,
    /// Parameters.
    pub(crate) params: Vec<Parameter>,
    /// Tables.
    pub(crate) tables: Vec<Table>,
    /// Steps, in declaration order.
    pub(crate) steps: Vec<Step>,
    /// Per-item step groups.
    pub(crate) groups: Vec<Group>,
    /// Ordered checks; the last one always holds.
    pub(crate) checks: Vec<Check>,
    /// Decisions.
    pub(crate) decisions: Vec<Decision>,
    /// Evaluation bounds.
    pub(crate) limits: Limits,
    /// Declared alternative readings.
    pub(crate) ablations: Vec<Ablation>,
    /// The ablations this copy of the rulebook evaluates under, in the order applied.
    pub(crate) applied_ablations: Vec<Arc<str>>,
    /// Tables shown at the top of a text trace.
    pub(crate) reports: Vec<Report>,
    /// What `bareme check` warns of (names nothing reads); evaluation ignores them.
    pub(crate) warnings: Vec<crate::diag::Problem>,
}

/// A table of a per-item group shown in traces.
#[allow(dead_code)] // Read by prompts, diffs and audit pages, not by evaluation.
#[derive(Clone, Debug)]
pub struct Report {
    /// Name.
    pub name: Arc<str>,
    /// Title.
    pub title: Option<String>,
    /// The group whose items are the rows.
    pub group: usize,
    /// Which items are shown.
    pub when: Option<Formula>,
    /// Column titles and values (in the item's scope).
    pub columns: Vec<Output>,
    /// Lines under the table (top-level scope).
    pub totals: Vec<Output>,
}

/// A named alternative reading: some steps computed by other formulas.
#[allow(dead_code)] // Read by prompts, diffs and audit pages, not by evaluation.
#[derive(Clone, Debug)]
pub struct Ablation {
    /// Name, as `--ablate` takes it.
    pub name: Arc<str>,
    /// Human label.
    pub label: Option<String>,
    /// What reading it stands for.
    pub description: Option<String>,
    /// The steps replaced and their new formulas.
    pub replacements: Vec<(StepRef, Formula)>,
}

/// A step of a rulebook: top-level, or of a per-item group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepRef {
    /// `steps[i]`.
    Top(StepId),
    /// `groups[g].steps[j]`.
    Item(usize, usize),
}

impl Rulebook {
    /// Stable id, e.g. `luma-payroll`.
    ///
    /// ```
    /// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
    /// assert_eq!(rb.id(), "luma-payroll");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Version of the rules.
    ///
    /// ```
    /// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
    /// assert_eq!(rb.version(), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn version(&self) -> i64 {
        self.version
    }

    /// SHA-256 of the file text (line endings normalised), hex; for a
    /// chain of versions, of every file's hash, so a change to any file of
    /// the chain changes it.
    ///
    /// ```
    /// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
    /// assert!(rb.hash().chars().all(|c| c.is_ascii_hexdigit()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn hash(&self) -> &str {
        &self.hash
    }

    /// The files read, the named one first, then each version it extends.
    ///
    /// ```
    /// let rb = bareme::load_rulebook("rulebooks/paie-fr/v2025".as_ref())?;
    /// // v2025 extends v2026: both files were read.
    /// assert_eq!(rb.files().len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn files(&self) -> &[String] {
        &self.files
    }

    /// Human title, when the rulebook gives one.
    ///
    /// ```
    /// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
    /// assert_eq!(rb.title(), Some("Luma payroll rules, version 3"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// Bounds on one evaluation.
    ///
    /// ```
    /// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
    /// assert!(rb.limits().max_case_bytes >= 1024);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The declared ablations' names, as `--ablate` takes them.
    ///
    /// ```
    /// let rb = bareme::load_rulebook("rulebooks/sales-tax/v1".as_ref())?;
    /// assert_eq!(rb.ablation_names().count(), 8);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn ablation_names(&self) -> impl Iterator<Item = &str> {
        self.ablations.iter().map(|a| &*a.name)
    }

    /// The ablations this copy evaluates under, in the order applied.
    ///
    /// ```
    /// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
    /// assert_eq!(rb.applied_ablations().count(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn applied_ablations(&self) -> impl Iterator<Item = &str> {
        self.applied_ablations.iter().map(|a| &**a)
    }

    /// The ablations this copy evaluates under as traces name them, joined
    /// with `,` as `--ablate` takes them; `None` for the rulebook as written.
    ///
    /// ```
    /// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
    /// assert_eq!(rb.ablation_label(), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn ablation_label(&self) -> Option<String> {
        (!self.applied_ablations.is_empty()).then(|| self.applied_ablations.join(","))
    }

    /// The warnings `bareme check` prints, located in the rulebook's file.
    ///
    /// ```
    /// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
    /// for warning in &rb.warnings().problems {
    ///     println!("{}: {}", warning.code, warning.message);
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn warnings(&self) -> crate::diag::Diagnostics {
        let mut diags = crate::diag::Diagnostics::new(self.source.clone());
        for w in &self.warnings {
            diags.push(w.clone());
        }
        diags
    }

    /// What the rulebook declares, counted, as `bareme check` reports it.
    ///
    /// ```
    /// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
    /// assert!(rb.summary().contains("inputs"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn summary(&self) -> String {
        let per_item: usize = self.groups.iter().map(|g| g.steps.len()).sum();
        format!(
            "{} inputs, {} tables, {} steps + {per_item} per-item steps in {} groups, {} checks, {} decisions, {} ablations",
            self.inputs.len(),
            self.tables.len(),
            self.steps.len(),
            self.groups.len(),
            self.checks.len(),
            self.decisions.len(),
            self.ablations.len()
        )
    }

    /// Clause texts by id, in the rulebook's order.
    ///
    /// ```
    /// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
    /// assert!(rb.clauses()["R3"].starts_with("Employee contribution"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn clauses(&self) -> &IndexMap<Arc<str>, String> {
        &self.clauses
    }

    /// `id@version#hash12`, the reference every task and trace records.
    ///
    /// ```
    /// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
    /// assert_eq!(rb.reference(), format!("luma-payroll@3#{}", &rb.hash()[..12]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reference(&self) -> String {
        self.reference.clone()
    }
}

/// Bounds on one evaluation.
///
/// ```
/// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// assert!(rb.limits().max_case_bytes > 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Largest case accepted, in bytes of JSON.
    pub max_case_bytes: usize,
    /// Most items in any list input.
    pub max_list_items: usize,
    /// Most expression nodes evaluated for one case.
    pub max_eval_steps: u64,
}

impl Limits {
    /// The largest `max_case_bytes` a rulebook may set (64 MiB): no case or
    /// batch line is read beyond it.
    pub const MAX_CASE_BYTES: usize = 64 << 20;
    /// The largest `max_list_items` a rulebook may set.
    pub const MAX_LIST_ITEMS: usize = 1_000_000;
    /// The largest `max_eval_steps` a rulebook may set.
    pub const MAX_EVAL_STEPS: u64 = 100_000_000;
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_case_bytes: 1 << 20,
            max_list_items: 10_000,
            max_eval_steps: 1_000_000,
        }
    }
}

/// A record layout.
#[derive(Clone, Debug)]
pub struct Shape {
    /// What it is the layout of (`amendment`, `table schedule`).
    pub name: Arc<str>,
    /// Field names and types, in order.
    pub fields: Vec<(Arc<str>, Type)>,
}

/// How JSON numbers are taken for a money or decimal input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonNumbers {
    /// Only strings.
    Reject,
    /// Numbers written as plain decimals (no exponent), judged as written.
    Plain,
    /// Only integer numbers.
    Integer,
}

/// Syntax and bounds of a money or decimal input.
#[derive(Clone, Debug)]
pub struct NumberSpec {
    /// Most decimals that may be written.
    pub places: Option<u32>,
    /// Scale every value is brought to (money: its places).
    pub rescale: Option<u32>,
    /// Lower bound, inclusive.
    pub min: Option<Decimal>,
    /// Upper bound, inclusive.
    pub max: Option<Decimal>,
    /// JSON numbers accepted.
    pub numbers: JsonNumbers,
}

/// One input field (or record field, or table column).
#[allow(dead_code)] // Read by prompts, diffs and audit pages, not by evaluation.
#[derive(Clone, Debug)]
pub struct Input {
    /// Field name.
    pub name: Arc<str>,
    /// Human label.
    pub label: Option<String>,
    /// Governing clause, cited in rejections.
    pub clause: Option<Arc<str>>,
    /// Absent is a rejection.
    pub required: bool,
    /// Read only when this holds (over earlier inputs); ignored otherwise.
    pub when: Option<Formula>,
    /// Required when this holds (over earlier inputs).
    pub required_when: Option<Formula>,
    /// Rejections checked right after this input, in order: condition, path, message.
    pub after: Vec<(Formula, Vec<MessagePart>, Vec<MessagePart>)>,
    /// Null is kept distinct from absent.
    pub nullable: bool,
    /// Value when absent.
    pub default: Option<Value>,
    /// A text that must be a key of a map input or a keyed table.
    pub refers: Option<RefTarget>,
    /// In a list of records: no two items may share this field's value.
    pub unique: bool,
    /// For a map: what its keys must name.
    pub key_ref: Option<RefTarget>,
    /// Rules that reject a valid-looking value, in order.
    pub rejects: Vec<FieldRule>,
    /// A value that does not validate reads as absent (`invalid = "absent"`)
    /// instead of rejecting the case.
    pub invalid_absent: bool,
    /// What the object this input holds (a record, or a supplied table and
    /// its rows) may have besides the keys the rulebook declares
    /// (`extra_keys`); by default such a key is refused.
    pub extra_keys: ExtraKeys,
    /// Type and its constraints.
    pub kind: InputKind,
}

/// What an object of a case may hold besides the keys the rulebook declares
/// (`extra_keys`). A misspelt key read as absent gives a wrong answer with
/// no error, so an unknown key is refused unless the rulebook says
/// otherwise, and naming the keys the records really carry keeps every
/// other key refused.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ExtraKeys {
    /// Refused, with the declared key it most likely misspells (the default).
    #[default]
    Refuse,
    /// Any key, ignored (`"allow"`).
    Allow,
    /// These keys, ignored; any other is refused (`["id", "label"]`).
    Ignore(Arc<[Arc<str>]>),
}

impl ExtraKeys {
    /// The keys ignored by name (none unless [`ExtraKeys::Ignore`]).
    pub fn ignored(&self) -> &[Arc<str>] {
        match self {
            ExtraKeys::Ignore(keys) => keys,
            _ => &[],
        }
    }
}

impl Input {
    /// An optional input of this kind with no constraint beyond it.
    pub fn new(name: &str, kind: InputKind) -> Self {
        Input {
            name: Arc::from(name),
            label: None,
            clause: None,
            required: false,
            when: None,
            required_when: None,
            after: Vec::new(),
            nullable: false,
            default: None,
            refers: None,
            unique: false,
            key_ref: None,
            rejects: Vec::new(),
            invalid_absent: false,
            extra_keys: ExtraKeys::Refuse,
            kind,
        }
    }
}

/// A rule that rejects a field's value.
#[derive(Clone, Debug)]
pub struct FieldRule {
    /// Rejects when this holds; `value` and `item` are the first locals.
    pub when: Formula,
    /// The message.
    pub message: Vec<MessagePart>,
}

/// What a `ref` field must name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RefTarget {
    /// A key of this (earlier) top-level map input.
    Input(InputId),
    /// The value of this field in some record of this (earlier) top-level list input.
    ListField(InputId, usize),
    /// A key of this single-key keyed table, as in force for the case.
    Table(TableId),
}

/// A `pattern` of a text input: a linear-time regular expression whose
/// named groups are the fields of the record the text is read as.
#[derive(Clone, Debug)]
pub struct Pattern {
    /// Compiled, with its size capped at load (rulebooks are untrusted).
    pub regex: regex::Regex,
    /// As written, for messages.
    pub text: Arc<str>,
}

/// The type of an input with its constraints.
#[derive(Clone, Debug)]
pub enum InputKind {
    /// A money amount.
    Money(NumberSpec),
    /// A decimal number.
    Decimal(NumberSpec),
    /// An integer.
    Integer {
        /// Lower bound.
        min: Option<Decimal>,
        /// Upper bound.
        max: Option<Decimal>,
    },
    /// A boolean.
    Bool,
    /// A text.
    Text {
        /// Longest accepted, in characters.
        max_length: usize,
    },
    /// One of fixed texts.
    Enum {
        /// Allowed values.
        values: Vec<Arc<str>>,
    },
    /// A date.
    Date {
        /// Earliest.
        min: Option<chrono::NaiveDate>,
        /// Latest.
        max: Option<chrono::NaiveDate>,
    },
    /// A month.
    Month {
        /// Earliest.
        min: Option<Month>,
        /// Latest.
        max: Option<Month>,
    },
    /// A record.
    Record {
        /// Its layout.
        shape: ShapeId,
        /// Its fields, in validation order.
        fields: Vec<Input>,
        /// Its field names, shared by the records it validates.
        names: Arc<[Arc<str>]>,
        /// A text input read through a pattern: the case gives a text, and
        /// the record is made of the pattern's named groups.
        pattern: Option<Pattern>,
    },
    /// A list.
    List {
        /// Item type.
        item: Box<Input>,
        /// Fewest items.
        min_items: usize,
        /// Most items.
        max_items: usize,
    },
    /// A JSON object keyed by id: `{"P1": {...}, "P2": {...}}`.
    Map {
        /// Value type.
        item: Box<Input>,
        /// Keys that must be present; when set, other keys are ignored.
        keys: Option<Vec<Arc<str>>>,
        /// Fewest entries.
        min_items: usize,
        /// Most entries.
        max_items: usize,
    },
    /// An exact fraction or decimal: `"3/8"`, `"0.25"`, `1`.
    Fraction {
        /// Lower bound.
        min: Option<Decimal>,
        /// Upper bound.
        max: Option<Decimal>,
    },
    /// Replacement values for the rows of a table.
    Table {
        /// The table replaced.
        table: TableId,
    },
}

impl InputKind {
    /// The expression type of such an input.
    pub fn value_type(&self) -> Type {
        match self {
            InputKind::Money(_)
            | InputKind::Decimal(_)
            | InputKind::Integer { .. }
            | InputKind::Fraction { .. } => Type::Number,
            InputKind::Bool => Type::Bool,
            InputKind::Text { .. } | InputKind::Enum { .. } => Type::Text,
            InputKind::Date { .. } => Type::Date,
            InputKind::Month { .. } => Type::Month,
            InputKind::Record { shape, .. } => Type::Record(*shape),
            InputKind::List { item, .. } => Type::List(Box::new(item.kind.value_type())),
            InputKind::Map { item, .. } => Type::Map(Box::new(item.kind.value_type())),
            InputKind::Table { table } => Type::Table(*table),
        }
    }
}

/// A period: months or dates, inclusive, open-ended when `to` is `None`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Period {
    /// `from`…`to` months.
    Months(Month, Option<Month>),
    /// `from`…`to` dates.
    Dates(chrono::NaiveDate, Option<chrono::NaiveDate>),
}

/// As a trace's lookup writes it: `2026-01…2026-06`, open-ended `2026-01…`.
impl fmt::Display for Period {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Period::Months(from, Some(to)) => write!(f, "{from}…{to}"),
            Period::Months(from, None) => write!(f, "{from}…"),
            Period::Dates(from, Some(to)) => write!(f, "{from}…{to}"),
            Period::Dates(from, None) => write!(f, "{from}…"),
        }
    }
}

/// A parameter.
#[allow(dead_code)] // Read by prompts, diffs and audit pages, not by evaluation.
#[derive(Clone, Debug)]
pub struct Parameter {
    /// Name.
    pub name: Arc<str>,
    /// Human label.
    pub label: Option<String>,
    /// The clause that sets it.
    pub clause: Option<Arc<str>>,
    /// Its value or dated values.
    pub value: ParamValue,
}

/// A parameter's value.
#[derive(Clone, Debug)]
pub enum ParamValue {
    /// One value.
    Fixed(Value),
    /// One value per period, chosen by `at`.
    Dated {
        /// The date or month that chooses.
        at: Formula,
        /// Periods and their values.
        periods: Vec<(Period, Value)>,
    },
}

/// A table.
#[allow(dead_code)] // Read by prompts, diffs and audit pages, not by evaluation.
#[derive(Clone, Debug)]
pub struct Table {
    /// Name.
    pub name: Arc<str>,
    /// Human label.
    pub label: Option<String>,
    /// The clause it comes from.
    pub clause: Option<Arc<str>>,
    /// Kind.
    pub kind: TableKind,
    /// Typed columns.
    pub columns: Vec<Input>,
    /// Layout of a row.
    pub shape: ShapeId,
    /// Column names, shared by the rows.
    pub names: Arc<[Arc<str>]>,
    /// The default rows.
    pub rows: Vec<Row>,
}

/// Kinds of tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableKind {
    /// Rows chosen by the period covering a month or date.
    Periods,
    /// Rows chosen by key columns.
    Keyed {
        /// Indices of the key columns.
        keys: Vec<usize>,
    },
    /// Progressive bands: `upto` (absent on the last) and `rate`.
    Scale,
    /// Rows by range: `upto` (inclusive; absent on the last) and declared columns.
    Ranges,
}

/// One row of a table.
#[derive(Clone, Debug)]
pub struct Row {
    /// Row name (period tables), used by case overrides and traces.
    pub name: Option<Arc<str>>,
    /// Period covered (period tables).
    pub period: Option<Period>,
    /// Cell values, in column order.
    pub record: Arc<Record>,
}

/// A list of clause ids, shared between the model and every trace that
/// cites it.
pub type Clauses = Arc<[Arc<str>]>;

/// A step.
#[derive(Clone, Debug)]
pub struct Step {
    /// Name.
    pub name: Arc<str>,
    /// Human label (shared with each trace of the step).
    pub label: Option<Arc<str>>,
    /// Clauses it applies (shared with each trace of the step).
    pub clauses: Clauses,
    /// Clauses it applies in addition when a condition holds, in order;
    /// the conditions are evaluated after the step's value, on both roads.
    pub cite: Vec<(Formula, Clauses)>,
    /// The formula.
    pub expr: Formula,
    /// Applicability condition.
    pub when: Option<Formula>,
    /// Value when not applicable.
    pub otherwise: Option<Formula>,
    /// Rounding point.
    pub round: Option<(u32, RoundingMode)>,
    /// Static type.
    pub ty: Type,
    /// A helper step, shown on one line in a text trace.
    pub detail: bool,
}

impl Step {
    /// Every formula of the step: its `expr`, `when`, `otherwise` and the
    /// conditions of its `cite`, so that what reads a step's dependencies
    /// (cycles, depth, usage, ablations) misses none of them.
    pub fn formulas(&self) -> impl Iterator<Item = &Formula> {
        std::iter::once(&self.expr)
            .chain(&self.when)
            .chain(&self.otherwise)
            .chain(self.cite.iter().map(|(when, _)| when))
    }
}

/// Steps computed once per item of a list.
#[allow(dead_code)] // Read by prompts, diffs and audit pages, not by evaluation.
#[derive(Clone, Debug)]
pub struct Group {
    /// Name; at the top level it is the list of per-item results.
    pub name: Arc<str>,
    /// Human label.
    pub label: Option<String>,
    /// Name of the current item inside the group.
    pub item: Arc<str>,
    /// The list the group runs over.
    pub over: Formula,
    /// The steps, in declaration order.
    pub steps: Vec<Step>,
    /// Layout of one item's results (a field per step).
    pub shape: ShapeId,
    /// Step names, shared by the result records.
    pub names: Arc<[Arc<str>]>,
    /// For a group over the rows of a table no case replaces: its items and
    /// its steps with each row's fields folded in, per row (run when no
    /// trace is asked for; a traced evaluation replays the known steps).
    pub specialized: Option<Arc<Specialized>>,
}

/// A group over the rows of a table no case replaces, specialised at load.
#[derive(Clone, Debug)]
pub struct Specialized {
    /// The group's items: the table's rows, the same for every case.
    pub items: Value,
    /// The steps for each row.
    pub rows: Vec<SpecializedRow>,
    /// How a trace names each row's item ([`item_label`]): made once,
    /// shared by every traced evaluation.
    pub(crate) labels: Box<[Arc<str>]>,
}

/// How a trace names item `index` of group `group`: `lines[3]`. Spelt
/// into a text of the right size by the JSON writer's integer speller:
/// through `format!` it cost 6k instructions a sales-tax line and 18k a
/// payslip.
pub(crate) fn item_label(group: &str, index: usize) -> Arc<str> {
    let mut label = Vec::with_capacity(group.len() + 22);
    label.extend_from_slice(group.as_bytes());
    label.push(b'[');
    crate::json::write_integer(&mut label, index as u64);
    label.push(b']');
    // A name, then ASCII: always UTF-8.
    Arc::from(String::from_utf8(label).unwrap_or_default())
}

/// A group's steps for one constant row, with the row folded in.
#[derive(Clone, Debug)]
pub struct SpecializedRow {
    /// The steps, simplified against the row.
    pub steps: Vec<Step>,
    /// The value of each step that folded to a constant: known before any case
    /// is read, so the evaluator never runs it.
    pub known: Vec<Option<Value>>,
    /// For each known step, what a traced evaluation records for it, set by
    /// the first traced evaluation that runs it (`None` inside: it records
    /// what a replay cannot give, and runs in full every time).
    pub traces: Vec<OnceLock<Option<KnownTrace>>>,
    /// Each step as a traced evaluation runs it, its parts the same for
    /// every case marked for replay (`rulebook::recorded`); `None` where
    /// nothing is marked (or the step is known). Empty until marked.
    pub(crate) traced: Vec<Option<Step>>,
}

/// One ordered check.
#[derive(Clone, Debug)]
pub struct Check {
    /// Human label.
    pub label: Option<Arc<str>>,
    /// Condition; `None` always holds.
    pub when: Option<Formula>,
    /// What happens when it holds.
    pub outcome: CheckOutcome,
    /// What the trace says it gives (`decision calculate`, `reject
    /// allowed_deduction`): written once at load, as every traced
    /// evaluation shares it.
    pub gives: Arc<str>,
}

/// The outcome of a check that holds.
#[derive(Clone, Debug)]
pub enum CheckOutcome {
    /// A decision.
    Decide {
        /// Index in [`Rulebook::decisions`].
        decision: usize,
        /// Reason code.
        reason: Option<Arc<str>>,
        /// Clauses cited (replacing the decision's own when non-empty).
        clauses: Vec<Arc<str>>,
    },
    /// A rejection of the case.
    Reject {
        /// Field path; `{expr}` parts show values (`beneficiaries[{i}].represents`).
        path: Vec<MessagePart>,
        /// Message pieces.
        message: Vec<MessagePart>,
    },
}

/// A piece of a rejection message.
#[derive(Clone, Debug)]
pub enum MessagePart {
    /// Literal text.
    Text(String),
    /// A value shown in the message.
    Value(Formula),
}

/// A template as written, `{…}` parts shown as their formulas (for a
/// trace, which shows the rule rather than one case's text).
pub fn template_text(parts: &[MessagePart]) -> String {
    parts
        .iter()
        .map(|p| match p {
            MessagePart::Text(t) => t.clone(),
            MessagePart::Value(f) => format!("{{{}}}", f.text),
        })
        .collect()
}

/// A decision and its answer.
#[allow(dead_code)] // Read by prompts, diffs and audit pages, not by evaluation.
#[derive(Clone, Debug)]
pub struct Decision {
    /// Name (`calculate`).
    pub name: Arc<str>,
    /// Human label.
    pub label: Option<String>,
    /// Clauses cited by default.
    pub clauses: Vec<Arc<str>>,
    /// Clauses added when a condition holds (shared with each trace).
    pub cite: Vec<(Formula, Clauses)>,
    /// Answer fields in order.
    pub answer: Vec<Output>,
}

/// One answer field.
#[derive(Clone, Debug)]
pub struct Output {
    /// JSON key.
    pub key: Arc<str>,
    /// Its value.
    pub value: OutputValue,
}

/// What an answer field holds.
#[derive(Clone, Debug)]
pub enum OutputValue {
    /// One value in a format.
    Value {
        /// The value.
        expr: Formula,
        /// How it is written.
        format: Format,
    },
    /// A list: one object per item of a group, in input order (an object by `key` when given).
    Each {
        /// The group.
        group: usize,
        /// The key of each item's object, when the answer is an object.
        key: Option<Formula>,
        /// The fields of each object, evaluated in the item's scope.
        fields: Vec<Output>,
    },
}

/// How an answer value is written in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A string with exactly this many decimals; more would be an unrecorded rounding, so an error.
    Fixed(u32),
    /// A decimal string as held.
    Decimal,
    /// A JSON integer.
    Integer,
    /// A JSON number, exact.
    Number,
    /// A JSON string.
    Text,
    /// A JSON boolean.
    Bool,
    /// `YYYY-MM-DD` / `YYYY-MM` string.
    Calendar,
    /// A list of clause ids.
    Clauses,
}
