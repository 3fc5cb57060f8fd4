//! The task line: one graded task of a task file, as `bareme generate`
//! writes it and `ablations`, `score`, `rescore`, `baselines` and
//! `diff --impact` read it. One type, one list of keys ([`KEYS`]), written
//! in that order and read strictly: a key the line does not know, a key
//! written twice, a value of the wrong type are refused, never skipped.

use serde::ser::{SerializeStruct, Serializer};
use serde::Serialize;
use serde_json::{Map, Value};
use std::path::PathBuf;

use super::json::{read_json, JsonFault};
use crate::rulebook::is_rulebook_id;

/// Most bytes of one line of a task file (16 MiB): a case, its answer and
/// whatever else the task carries, such as its prompt.
pub const MAX_TASK_BYTES: usize = 16 << 20;

/// The keys of a task line, in the order they are written.
pub const KEYS: [&str; 15] = [
    "id",
    "index",
    "level",
    "tier",
    "branch",
    "rulebook",
    "rulebook_hash",
    "generator",
    "generator_hash",
    "options",
    "rubric",
    "case",
    "prompt",
    "expected",
    "tags",
];

/// One task: a case, its reference outcome and what it was written for.
/// `id`, `rulebook`, `rulebook_hash`, `case` and `expected` are in every
/// line; the rest is written by `bareme generate` and may be left out of a
/// task set made by hand.
///
/// ```
/// let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
/// let drawer = bareme::TaskDrawer::new(&generator, &rb)?;
/// let drawn = drawer.task(2026, 0, None)?;
/// let (rubric, _) = bareme::load_rubric("rulebooks/luma-payroll/rubric-8.toml".as_ref(), None)?;
/// let scorer = bareme::Scorer::new(rubric, false);
/// let task: &bareme::Task = &drawn.task;
/// assert_eq!((task.rulebook_id.as_str(), task.hash.as_str()), (rb.id(), rb.hash()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Task {
    /// `id`: names the task in messages and pairs it with its replies.
    pub id: String,
    /// `index`: its index in the generator's run.
    pub index: Option<u64>,
    /// `level`.
    pub level: Option<i64>,
    /// `tier`.
    pub tier: Option<String>,
    /// `branch`: the generator's profile it was drawn from.
    pub branch: Option<String>,
    /// The rulebook's id, from `rulebook` (`"<id>@<version>"`).
    pub rulebook_id: String,
    /// The rulebook's version, from `rulebook`.
    pub version: i64,
    /// `rulebook_hash`: the rulebook's hash as [`Rulebook::hash`](crate::Rulebook::hash) gives it.
    pub hash: String,
    /// `generator`: `luma-payroll/generator-4`.
    pub generator: Option<String>,
    /// `generator_hash`: SHA-256 of the generator file.
    pub generator_hash: Option<String>,
    /// `options`: the generator's prompt switches (`[prompt.options]`) as
    /// the run set them, every declared one in declaration order; written
    /// only when some switch differs from its declared value, so a default
    /// run's lines carry none.
    pub options: Option<Vec<(String, bool)>>,
    /// `rubric`: the rubric whose answer format the prompt states.
    pub rubric: Option<i64>,
    /// `case`: the case as `bareme eval` takes it.
    pub case: Value,
    /// `prompt`.
    pub prompt: Option<String>,
    /// `expected`: the reference outcome, as `bareme eval --batch` prints it
    /// (the answer, or `{"error": {"path", "message"}}`).
    pub expected: Value,
    /// `tags`: `decision:<name>`, `reason:<code>`, `ablation:<name>`, the profile's.
    pub tags: Option<Vec<String>>,
}

/// Why a line is not a task.
#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    /// Not one JSON value, a key twice, a byte order mark.
    #[error("the task {0}")]
    Json(JsonFault),
    /// Not an object.
    #[error("a task must be a JSON object")]
    NotObject,
    /// `id`, `rulebook` or `rulebook_hash` is absent.
    #[error("the task has no `{0}`")]
    NoKey(&'static str),
    /// `id`, `rulebook` or `rulebook_hash` is not a string.
    #[error("the task's `{0}` must be a string")]
    NotText(&'static str),
    /// `rulebook` is not `ID@VERSION`.
    #[error("task {id}: `rulebook` must be ID@VERSION, as `sales-tax@1`, found {found:?}")]
    Rulebook {
        /// The task's id.
        id: String,
        /// What `rulebook` holds.
        found: String,
    },
    /// `case` or `expected` is absent.
    #[error("task {id} has no `{key}`")]
    Missing {
        /// The task's id.
        id: String,
        /// The key.
        key: &'static str,
    },
    /// A key holds a value of another type.
    #[error("task {id}: `{key}` must be {what}")]
    WrongType {
        /// The task's id.
        id: String,
        /// The key.
        key: &'static str,
        /// What it must be.
        what: &'static str,
    },
    /// A key no task line has.
    #[error("task {id}: unknown key `{key}` (a task line holds {})", keys_text())]
    Unknown {
        /// The task's id.
        id: String,
        /// The key.
        key: String,
    },
}

fn keys_text() -> String {
    KEYS.map(|k| format!("`{k}`")).join(", ")
}

impl Task {
    /// A task from its line's text, read strictly.
    ///
    /// ```
    /// # let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
    /// # let task = bareme::TaskDrawer::new(&generator, &rb)?.task(2026, 0, None)?.task;
    /// let line = serde_json::to_string(&task)?;
    /// assert_eq!(bareme::Task::from_json(&line)?.id, task.id);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_json(text: &str) -> Result<Task, TaskError> {
        let Value::Object(mut o) = read_json(text).map_err(TaskError::Json)? else {
            return Err(TaskError::NotObject);
        };
        let id = required_text(&mut o, "id")?;
        let rulebook = required_text(&mut o, "rulebook")?;
        let hash = required_text(&mut o, "rulebook_hash")?;
        let Some((rulebook_id, version)) = rulebook
            .rsplit_once('@')
            .and_then(|(id, v)| Some((id, version_number(v)?)))
            .filter(|(id, _)| is_rulebook_id(id))
        else {
            return Err(TaskError::Rulebook {
                id,
                found: rulebook,
            });
        };
        let rulebook_id = rulebook_id.to_string();
        let mut take = |key: &'static str| {
            o.shift_remove(key).ok_or_else(|| TaskError::Missing {
                id: id.clone(),
                key,
            })
        };
        let case = take("case")?;
        let expected = take("expected")?;
        let mut optional = Optional { o: &mut o, id: &id };
        let task = Task {
            index: optional.get("index", "a whole number from 0", Value::as_u64)?,
            level: optional.get("level", "a whole number", Value::as_i64)?,
            tier: optional.text("tier")?,
            branch: optional.text("branch")?,
            generator: optional.text("generator")?,
            generator_hash: optional.text("generator_hash")?,
            options: optional.get("options", "an object of booleans", |v| {
                v.as_object()?
                    .iter()
                    .map(|(k, on)| Some((k.clone(), on.as_bool()?)))
                    .collect()
            })?,
            rubric: optional.get("rubric", "a whole number", Value::as_i64)?,
            prompt: optional.text("prompt")?,
            tags: optional.get("tags", "a list of strings", |v| {
                v.as_array()?
                    .iter()
                    .map(|t| t.as_str().map(str::to_string))
                    .collect()
            })?,
            id,
            rulebook_id,
            version,
            hash,
            case,
            expected,
        };
        match o.keys().next() {
            Some(key) => Err(TaskError::Unknown {
                id: task.id,
                key: key.clone(),
            }),
            None => Ok(task),
        }
    }

    /// Where a bundled rulebook of the task's id and version is, relative to
    /// the repository root: `rulebooks/<id>/v<version>`.
    ///
    /// ```
    /// # let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
    /// # let task = bareme::TaskDrawer::new(&generator, &rb)?.task(2026, 0, None)?.task;
    /// assert_eq!(task.rulebook_dir(), std::path::Path::new("rulebooks/luma-payroll/v3"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn rulebook_dir(&self) -> PathBuf {
        PathBuf::from("rulebooks")
            .join(&self.rulebook_id)
            .join(format!("v{}", self.version))
    }

    /// `id@version#hash`, the hash in full.
    ///
    /// ```
    /// # let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
    /// # let task = bareme::TaskDrawer::new(&generator, &rb)?.task(2026, 0, None)?.task;
    /// assert_eq!(task.written_for(), format!("luma-payroll@3#{}", rb.hash()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn written_for(&self) -> String {
        format!("{}@{}#{}", self.rulebook_id, self.version, self.hash)
    }
}

/// A string every task line holds.
fn required_text(o: &mut Map<String, Value>, key: &'static str) -> Result<String, TaskError> {
    match o.shift_remove(key) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(TaskError::NotText(key)),
        None => Err(TaskError::NoKey(key)),
    }
}

/// The keys a task line may leave out, taken from what is left of it.
struct Optional<'a> {
    o: &'a mut Map<String, Value>,
    id: &'a str,
}

impl Optional<'_> {
    fn get<T>(
        &mut self,
        key: &'static str,
        what: &'static str,
        read: impl Fn(&Value) -> Option<T>,
    ) -> Result<Option<T>, TaskError> {
        match self.o.shift_remove(key) {
            None => Ok(None),
            Some(v) => read(&v).map(Some).ok_or_else(|| TaskError::WrongType {
                id: self.id.to_string(),
                key,
                what,
            }),
        }
    }

    fn text(&mut self, key: &'static str) -> Result<Option<String>, TaskError> {
        self.get(key, "a string", |v| v.as_str().map(str::to_string))
    }
}

/// The line as `bareme generate` writes it: [`KEYS`] in order, the keys a
/// task does not have left out.
impl Serialize for Task {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut line = s.serialize_struct("Task", KEYS.len())?;
        line.serialize_field("id", &self.id)?;
        skip_or(&mut line, "index", &self.index)?;
        skip_or(&mut line, "level", &self.level)?;
        skip_or(&mut line, "tier", &self.tier)?;
        skip_or(&mut line, "branch", &self.branch)?;
        line.serialize_field(
            "rulebook",
            &format_args!("{}@{}", self.rulebook_id, self.version),
        )?;
        line.serialize_field("rulebook_hash", &self.hash)?;
        skip_or(&mut line, "generator", &self.generator)?;
        skip_or(&mut line, "generator_hash", &self.generator_hash)?;
        skip_or(&mut line, "options", &self.options.as_deref().map(Switches))?;
        skip_or(&mut line, "rubric", &self.rubric)?;
        line.serialize_field("case", &self.case)?;
        skip_or(&mut line, "prompt", &self.prompt)?;
        line.serialize_field("expected", &self.expected)?;
        skip_or(&mut line, "tags", &self.tags)?;
        line.end()
    }
}

fn skip_or<S: SerializeStruct, T: Serialize>(
    line: &mut S,
    key: &'static str,
    value: &Option<T>,
) -> Result<(), S::Error> {
    match value {
        Some(v) => line.serialize_field(key, v),
        None => line.skip_field(key),
    }
}

/// Prompt switches written as one JSON object, in their order.
struct Switches<'a>(&'a [(String, bool)]);

impl Serialize for Switches<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(name, on)| (name, on)))
    }
}

/// A rulebook version written as the rulebook writes it: a positive whole
/// number without a sign or leading zeros. `01` or `+1` would name `v1` and
/// then fail as another version (or be looked up nowhere), so a task line,
/// a companion's pin and a conformance case's `versions` key refuse them alike.
pub fn version_number(text: &str) -> Option<i64> {
    text.parse::<i64>()
        .ok()
        .filter(|n| *n >= 1 && n.to_string() == text)
}
