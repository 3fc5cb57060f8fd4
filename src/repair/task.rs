//! The repair task file (`rulebooks/<set>/repair-N.toml`): a faulty
//! rulebook to fix, what the agent may see, how a candidate is scored.
//!
//! Written against one rulebook version like a generator or a rubric
//! (`[repair] rulebook = "id@version"`, read by the shared companion
//! loader), and pinned to that version's hash too: the hidden answers are
//! the reference's, so a reference that changed would silently move them.
//! The file names the seeded candidate (a folder beside it), the visible
//! business records and carts, the incident prompt, the hidden-case
//! generator with its seed and count, the verification groups, the caps
//! under which a candidate runs and the reward.

use indexmap::IndexMap;
use rust_decimal::Decimal;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use toml::Spanned;

use crate::diag::{Diagnostics, Problem};
use crate::model::Rulebook;
use crate::rulebook::load::content_hash;
use crate::span::Span;
use crate::tasks::{check_pin, load_companion, parse_toml, CompanionError, Pin, PinWords};

/// How a repair file names its rulebook, in its diagnostics.
const PIN: PinWords = PinWords {
    malformed: "repair::rulebook",
    other_version: "repair::rulebook_version",
    says: "this repair task fixes",
};

/// The most hidden cases a file may ask for: one verification stays bounded.
pub const MAX_HIDDEN: u64 = 10_000;
/// The most visible cases and groups.
pub const MAX_VISIBLE: usize = 64;

/// A checked repair task.
#[derive(Clone, Debug)]
pub struct RepairTask {
    /// The file, as named.
    pub name: String,
    /// Its number (`repair-N`).
    pub number: i64,
    /// Title.
    pub title: Option<String>,
    /// The SHA-256 of the file's text.
    pub hash: String,
    /// The reference rulebook's hash the file is pinned to.
    pub rulebook_hash: String,
    /// The seeded candidate's folder, resolved beside the file.
    pub candidate: Option<PathBuf>,
    /// The incident: symptoms, never the faults.
    pub prompt: String,
    /// The business records an agent may inspect, by section, as JSON (a
    /// text section is a JSON string).
    pub business: IndexMap<String, serde_json::Value>,
    /// The visible carts: cases an agent may calculate, scored too.
    pub visible: Vec<Visible>,
    /// Where the hidden cases come from.
    pub hidden: Hidden,
    /// What a candidate may spend.
    pub caps: Caps,
    /// The most an incomplete repair earns (the share of groups fully right times this).
    pub partial: Decimal,
    /// The verification groups, in file order.
    pub groups: Vec<Group>,
}

/// A visible case.
#[derive(Clone, Debug)]
pub struct Visible {
    /// Its id (`calculate_cart(id)`).
    pub id: String,
    /// The case.
    pub case: serde_json::Value,
}

/// The hidden cases: tasks `0..count` of a generator's run with `seed`.
#[derive(Clone, Debug)]
pub struct Hidden {
    /// The generator file, resolved beside the repair file.
    pub generator: PathBuf,
    /// The run's seed.
    pub seed: u64,
    /// How many.
    pub count: u64,
}

/// The caps a candidate runs under; they override whatever it declares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caps {
    /// Most bytes of candidate text.
    pub source_bytes: usize,
    /// Most expression nodes, all formulas together.
    pub nodes: usize,
    /// Deepest expression.
    pub depth: usize,
    /// Most evaluation steps a case (the candidate's `max_eval_steps`, clamped).
    pub eval_steps: u64,
    /// Most items of a list a case holds and rows of a table (`max_list_items`, clamped).
    pub collection_items: usize,
    /// Largest magnitude of an amount answered.
    pub magnitude: Decimal,
}

impl Default for Caps {
    /// The tax-calculation seed's caps.
    fn default() -> Self {
        Caps {
            source_bytes: 16_000,
            nodes: 2_500,
            depth: 60,
            eval_steps: 30_000,
            collection_items: 256,
            magnitude: Decimal::from(1_000_000_000_000_000_i64),
        }
    }
}

/// A verification group: the hidden cases a predicate selects; a group is
/// right when every case in it is.
#[derive(Clone, Debug)]
pub struct Group {
    /// Name.
    pub name: String,
    /// What it checks, for people.
    pub label: Option<String>,
    /// Cases with any of these tags (the generator's `ablation:…`,
    /// `feature:…`); empty: no condition.
    pub tags: Vec<String>,
    /// Cases where this dotted path of the case is present and not null.
    pub present: Option<String>,
    /// Cases where the list at `path` has at least `min_items` items.
    pub min_items: Option<(String, usize)>,
    /// Cases that any of these declared readings of the reference answers
    /// differently, as the verifier measures them (whatever the generator
    /// watches); empty: no condition.
    pub readings: Vec<String>,
    /// With `readings`: only the cases that no reading named by another
    /// group gets wrong too, so that the group fails on its own readings
    /// and an incomplete repair keeps the groups it fixed.
    pub exclusive: bool,
}

impl Group {
    /// Whether a hidden case belongs to the group: with these generator
    /// tags, and these readings (of those the groups name) answering it
    /// otherwise than the reference.
    pub fn holds(&self, case: &serde_json::Value, tags: &[String], readings: &[String]) -> bool {
        let tagged = self.tags.is_empty() || self.tags.iter().any(|t| tags.contains(t));
        let misread = self.readings.is_empty()
            || (self.readings.iter().any(|r| readings.contains(r))
                && (!self.exclusive || readings.iter().all(|r| self.readings.contains(r))));
        let present = self
            .present
            .as_deref()
            .is_none_or(|p| at_path(case, p).is_some_and(|v| !v.is_null()));
        let long = self.min_items.as_ref().is_none_or(|(p, n)| {
            at_path(case, p)
                .and_then(serde_json::Value::as_array)
                .is_some_and(|l| l.len() >= *n)
        });
        tagged && misread && present && long
    }
}

/// The value at a dotted path of a JSON object.
fn at_path<'v>(value: &'v serde_json::Value, path: &str) -> Option<&'v serde_json::Value> {
    path.split('.').try_fold(value, |v, key| v.get(key))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRepair {
    repair: RawHeader,
    prompt: RawPrompt,
    #[serde(default)]
    business: IndexMap<String, toml::Value>,
    #[serde(default)]
    visible: Vec<Spanned<RawVisible>>,
    hidden: RawHidden,
    #[serde(default)]
    caps: RawCaps,
    reward: RawReward,
    /// Each group spanned from its header: toml spans no table written
    /// only through its sub-tables' headers (`[groups.a]`), so the table
    /// itself is spanned only when empty ([`groups_span`]).
    groups: IndexMap<String, Spanned<RawGroup>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHeader {
    number: i64,
    rulebook: Spanned<String>,
    rulebook_hash: Spanned<String>,
    title: Option<String>,
    candidate: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPrompt {
    text: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVisible {
    id: Spanned<String>,
    /// The case as TOML, or
    case: Option<toml::Value>,
    /// the case as JSON text (a conformance case's spelling).
    json: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHidden {
    generator: String,
    seed: u64,
    count: Spanned<u64>,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCaps {
    source_bytes: Option<usize>,
    nodes: Option<usize>,
    depth: Option<usize>,
    eval_steps: Option<u64>,
    collection_items: Option<usize>,
    magnitude: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReward {
    partial: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGroup {
    label: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
    present: Option<String>,
    path: Option<Spanned<String>>,
    min_items: Option<Spanned<usize>>,
    #[serde(default)]
    readings: Vec<Spanned<String>>,
    exclusive: Option<Spanned<bool>>,
}

/// The span of `[groups]` (or `groups = {}`) in a file whose groups are
/// empty: written so, the table is spanned (see [`RawRepair::groups`]).
fn groups_span(text: &str) -> Span {
    #[derive(Deserialize)]
    struct Groups {
        groups: Spanned<toml::Value>,
    }
    toml::from_str::<Groups>(text).map_or(Span::default(), |g| Span::from(g.groups.span()))
}

/// A visible case's JSON text read as `bareme eval` reads a case file:
/// one JSON value, a key given twice in an object refused with its path,
/// then out of its `{"case": …}` envelope.
fn case_value(text: &str) -> Result<serde_json::Value, crate::facts::CaseError> {
    crate::case::CaseText::from_bytes(text.as_bytes()).map(|c| c.root().to_value())
}

/// The visible cases that read, each answered by the reference; each
/// problem placed at its entry's key (`id`, `json`) or at the entry.
fn read_visible(
    raw: &[Spanned<RawVisible>],
    rb: &Rulebook,
    problem_at: &mut impl FnMut(&'static str, Span, String),
) -> Vec<Visible> {
    let mut visible: Vec<Visible> = Vec::new();
    for entry in raw {
        let v = entry.get_ref();
        let (id, id_span) = (v.id.get_ref(), Span::from(v.id.span()));
        let case = match (&v.case, &v.json) {
            (Some(case), None) => Ok(toml_json(case)),
            // Read as `eval` reads a case: a key given twice is refused
            // (serde_json kept the last), an envelope `{"case": …}` taken off.
            (None, Some(text)) => case_value(text.get_ref()).map_err(|e| {
                (
                    Span::from(text.span()),
                    format!("visible case `{id}`: `json` is not a case as `eval` reads one: {e}"),
                )
            }),
            (case, json) => Err((
                // Both given: the second is the one too many.
                json.as_ref()
                    .filter(|_| case.is_some())
                    .map_or(Span::from(entry.span()), |j| Span::from(j.span())),
                format!(
                    "visible case `{id}`: give `case` (TOML) or `json` (JSON text), one of them"
                ),
            )),
        };
        let case = match case {
            Ok(case) => case,
            Err((span, message)) => {
                problem_at("repair::visible", span, message);
                continue;
            }
        };
        if visible.iter().any(|w| w.id == *id) {
            problem_at(
                "repair::visible",
                id_span,
                format!("visible case `{id}` is named twice"),
            );
        }
        match crate::evaluation::evaluate_value(rb, &case, false) {
            Ok((crate::outcome::Outcome::Answer(_), _)) => {}
            _ => problem_at(
                "repair::visible",
                id_span,
                format!("visible case `{id}` has no answer under the reference"),
            ),
        }
        visible.push(Visible {
            id: id.clone(),
            case,
        });
    }
    visible
}

/// A TOML value as JSON (a datetime as its text).
fn toml_json(v: &toml::Value) -> serde_json::Value {
    serde_json::to_value(v).unwrap_or(serde_json::Value::Null)
}

/// Loads a repair file and the rulebook it names (`rulebook` when given,
/// else `v<version>` beside the file).
pub fn load_repair(
    path: &Path,
    rulebook: Option<&Path>,
) -> Result<(RepairTask, Rulebook), CompanionError> {
    let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let (mut task, rb) = load_companion(path, "repair", rulebook, parse_repair)?;
    task.candidate = task.candidate.map(|c| dir.join(c));
    task.hidden.generator = dir.join(&task.hidden.generator);
    Ok((task, rb))
}

/// Parses and checks repair-file text against its reference rulebook;
/// paths stay as written (relative to the file).
pub fn parse_repair(name: &str, text: &str, rb: &Rulebook) -> Result<RepairTask, Diagnostics> {
    let (raw, mut diags) = parse_toml::<RawRepair>(name, text, "repair::toml")?;
    let h = &raw.repair;
    let pin = check_pin(&h.rulebook, rb, &PIN, &mut diags);
    // Against another version, every later check would only echo that one.
    let mut problem_at = |code: &'static str, span: Span, message: String| {
        if pin == Pin::Same {
            diags.push(Problem::new(code, message).at(span, "here"));
        }
    };
    if h.rulebook_hash.get_ref() != rb.hash() {
        problem_at(
            "repair::rulebook_hash",
            Span::from(h.rulebook_hash.span()),
            format!(
                "this repair task was written for the rulebook of hash {}, but the one loaded has hash {}",
                h.rulebook_hash.get_ref(),
                rb.hash()
            ),
        );
    }
    if *raw.hidden.count.get_ref() == 0 || *raw.hidden.count.get_ref() > MAX_HIDDEN {
        problem_at(
            "repair::count",
            Span::from(raw.hidden.count.span()),
            format!("`count` is 1 to {MAX_HIDDEN}"),
        );
    }
    let partial = match raw.reward.partial.get_ref().parse::<Decimal>() {
        Ok(p) if p >= Decimal::ZERO && p < Decimal::ONE => p,
        _ => {
            problem_at(
                "repair::reward",
                Span::from(raw.reward.partial.span()),
                "`partial` is a decimal at least 0 and below 1".to_string(),
            );
            Decimal::ZERO
        }
    };
    let defaults = Caps::default();
    let c = &raw.caps;
    let magnitude = c
        .magnitude
        .as_ref()
        .map_or(Some(defaults.magnitude), |m| m.get_ref().parse().ok());
    let caps = Caps {
        source_bytes: c.source_bytes.unwrap_or(defaults.source_bytes),
        nodes: c.nodes.unwrap_or(defaults.nodes),
        depth: c.depth.unwrap_or(defaults.depth),
        eval_steps: c.eval_steps.unwrap_or(defaults.eval_steps),
        collection_items: c.collection_items.unwrap_or(defaults.collection_items),
        magnitude: magnitude.unwrap_or(defaults.magnitude),
    };
    if magnitude.is_none() {
        problem_at(
            "repair::caps",
            c.magnitude
                .as_ref()
                .map_or(Span::default(), |m| Span::from(m.span())),
            "`caps.magnitude` is a decimal".to_string(),
        );
    }
    let visible = read_visible(&raw.visible, rb, &mut problem_at);
    let size = format!(
        "a repair task has 1 to {MAX_VISIBLE} groups and at most {MAX_VISIBLE} visible cases"
    );
    if let Some(v) = raw.visible.get(MAX_VISIBLE) {
        problem_at("repair::size", Span::from(v.span()), size.clone());
    }
    if let Some((_, g)) = raw.groups.get_index(MAX_VISIBLE) {
        problem_at("repair::size", Span::from(g.span()), size.clone());
    }
    if raw.groups.is_empty() {
        problem_at("repair::size", groups_span(text), size);
    }
    let groups = raw
        .groups
        .iter()
        .map(|(name, spanned)| {
            let g = spanned.get_ref();
            let (path, min_items) = (g.path.as_ref(), g.min_items.as_ref());
            let alone = path.map(Spanned::span).xor(min_items.map(Spanned::span));
            if let Some(span) = alone {
                problem_at(
                    "repair::group",
                    Span::from(span),
                    format!("group `{name}`: `path` and `min_items` go together"),
                );
            }
            let exclusive = g.exclusive.as_ref().filter(|e| *e.get_ref());
            if let (Some(e), true) = (exclusive, g.readings.is_empty()) {
                problem_at(
                    "repair::group",
                    Span::from(e.span()),
                    format!("group `{name}`: `exclusive` goes with `readings`"),
                );
            }
            for r in &g.readings {
                if let Err(e) = rb.ablated(r.get_ref()) {
                    problem_at(
                        "repair::group",
                        Span::from(r.span()),
                        format!("group `{name}`: reading `{}`: {e}", r.get_ref()),
                    );
                }
            }
            Group {
                name: name.clone(),
                label: g.label.clone(),
                tags: g.tags.clone(),
                present: g.present.clone(),
                min_items: path
                    .map(|p| p.get_ref().clone())
                    .zip(min_items.map(|n| *n.get_ref())),
                readings: g.readings.iter().map(|r| r.get_ref().clone()).collect(),
                exclusive: exclusive.is_some(),
            }
        })
        .collect();
    let task = RepairTask {
        name: name.to_string(),
        number: h.number,
        title: h.title.clone(),
        hash: content_hash(text),
        rulebook_hash: h.rulebook_hash.get_ref().clone(),
        candidate: h.candidate.as_ref().map(PathBuf::from),
        prompt: raw.prompt.text.clone(),
        business: raw
            .business
            .iter()
            .map(|(k, v)| (k.clone(), toml_json(v)))
            .collect(),
        visible,
        hidden: Hidden {
            generator: PathBuf::from(&raw.hidden.generator),
            seed: raw.hidden.seed,
            count: *raw.hidden.count.get_ref(),
        },
        caps,
        partial,
        groups,
    };
    if diags.problems.is_empty() {
        Ok(task)
    } else {
        Err(diags)
    }
}
