//! Verifying a candidate rulebook against a repair task: loaded as
//! untrusted input under the task's caps, held to the reference's
//! contract, evaluated on the visible and hidden cases, and rewarded.
//!
//! The candidate is text from outside (an agent wrote it): its size is
//! capped before it is parsed; once checked, its expressions are counted
//! and measured, its tables' rows counted, and its `[limits]` clamped to
//! the caps, whatever it declares. Its inputs, the tables a case may
//! replace and its answer fields must be the reference's, so that it reads
//! nothing the reference is not given and answers what the reference does.
//! Every case is then compared whole (`Outcome` equality: ordered lines,
//! every field), each case against the reference's own outcome.

use indexmap::IndexMap;
use rust_decimal::Decimal;
use std::collections::HashSet;
use std::sync::Arc;

use super::task::{Caps, RepairTask};
use crate::diag::Diagnostics;
use crate::evaluation::evaluate_value;
use crate::generate::{load_generator, TaskDrawer};
use crate::model::{Node, Rulebook};
use crate::outcome::{AnswerValue, EvalError, Fields, Outcome};
use crate::rulebook::raw::{RawOutput, RawRulebook};
use crate::rulebook::LoadError;
use crate::rulebook::{effective_toml, parse_rulebook};
use crate::tasks::CompanionError;

/// Why a repair task cannot verify anything (its own fault, not a candidate's).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RepairError {
    /// The repair file or its rulebook does not load.
    #[error(transparent)]
    Load(Box<CompanionError>),
    /// The seeded candidate cannot be read (missing, over the byte cap, not UTF-8).
    #[error("the seeded candidate of {file} cannot be read within its cap")]
    Candidate {
        /// The repair file.
        file: String,
    },
    /// The hidden-case generator does not load: its problems, or its
    /// rulebook's, are the source's ([`RepairError::diagnostics`]).
    #[error("the hidden cases of {file}: {source}")]
    Generator {
        /// The repair file.
        file: String,
        /// Why the generator did not load.
        source: Box<CompanionError>,
    },
    /// The hidden cases cannot be drawn, or the reference not read.
    #[error("the hidden cases of {file}: {message}")]
    Hidden {
        /// The repair file.
        file: String,
        /// Why.
        message: String,
    },
    /// A group selects no hidden case, so it could never fail.
    #[error("group `{group}` of {file} selects no hidden case")]
    EmptyGroup {
        /// The repair file.
        file: String,
        /// The group.
        group: String,
    },
    /// The reference itself does not keep within the caps or answer a case.
    #[error("the reference of {file} fails its own verification: {message}")]
    Reference {
        /// The repair file.
        file: String,
        /// Why.
        message: String,
    },
}

impl RepairError {
    /// A stable code: `repair::load`, `repair::candidate`, `repair::hidden`
    /// (the generator does not load, or draw), `repair::empty_group` or
    /// `repair::reference`.
    pub fn code(&self) -> &'static str {
        match self {
            RepairError::Load(_) => "repair::load",
            RepairError::Candidate { .. } => "repair::candidate",
            RepairError::Hidden { .. } | RepairError::Generator { .. } => "repair::hidden",
            RepairError::EmptyGroup { .. } => "repair::empty_group",
            RepairError::Reference { .. } => "repair::reference",
        }
    }

    /// The problems behind the error, each with its file, line and
    /// column, when a file did not load for them: the repair file's, the
    /// hidden-case generator's, or the rulebook either names.
    pub fn diagnostics(&self) -> Option<&Diagnostics> {
        let companion = match self {
            RepairError::Load(e) => e,
            RepairError::Generator { source, .. } => source,
            _ => return None,
        };
        match companion.as_ref() {
            CompanionError::Invalid(d)
            | CompanionError::Rulebook {
                source: LoadError::Invalid(d),
                ..
            } => Some(d),
            _ => None,
        }
    }
}

/// Why a candidate earns 0 before any case is compared: a fixed category
/// and at most a line and a column, never a piece of its text or of a case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// `cap::source_bytes`, `cap::nodes`, `cap::depth`, `cap::rows`,
    /// `cap::eval_steps`, `candidate::invalid`, `contract::inputs`,
    /// `contract::tables`, `contract::answer`.
    pub category: &'static str,
    /// For `candidate::invalid`, the first problem's code (`check::unknown_name`, …).
    pub code: Option<&'static str>,
    /// The first problem's line, 1-based.
    pub line: Option<usize>,
    /// Its column, 1-based.
    pub column: Option<usize>,
}

impl Refusal {
    /// A refusal of that category, placed nowhere.
    pub fn of(category: &'static str) -> Refusal {
        Refusal {
            category,
            code: None,
            line: None,
            column: None,
        }
    }

    /// The refusal as one short line, the same for every candidate refused
    /// alike: `candidate::invalid (check::unknown_name) at 12:7`.
    pub fn message(&self) -> String {
        let mut out = self.category.to_string();
        if let Some(code) = self.code {
            out.push_str(&format!(" ({code})"));
        }
        if let (Some(l), Some(c)) = (self.line, self.column) {
            out.push_str(&format!(" at {l}:{c}"));
        }
        out
    }
}

/// One case a candidate is scored on, with the reference's outcome.
#[derive(Clone, Debug)]
pub struct ScoredCase {
    /// `Some(id)` for a visible case, `None` for a hidden one.
    pub visible: Option<String>,
    /// The case.
    pub case: serde_json::Value,
    /// The generator's tags (hidden cases).
    pub tags: Vec<String>,
    /// The readings named by a group that answer it otherwise than the
    /// reference (hidden cases), in the order the groups name them.
    pub readings: Vec<String>,
    /// The reference's outcome.
    pub expected: Outcome,
}

/// A repair task ready to verify candidates: its cases drawn and answered
/// once, the reference's contract read once.
#[derive(Debug)]
pub struct Verifier {
    /// The task.
    pub task: RepairTask,
    /// The reference rulebook.
    pub reference: Rulebook,
    /// Visible cases first, then hidden ones in index order.
    pub cases: Vec<ScoredCase>,
    /// For each group, the indices of its cases in `cases`.
    pub members: Vec<Vec<usize>>,
    contract: Contract,
}

/// A verification's result.
///
/// ```
/// # let repair = bareme::repair::Repair::load("rulebooks/sales-tax/repair-1.toml".as_ref())?;
/// let reference = std::fs::read_to_string("rulebooks/sales-tax/v1/rulebook.toml")?;
/// let verdict: bareme::repair::RepairVerdict = repair.verify(&reference);
/// assert_eq!((verdict.reward, verdict.cases_passed), (1.into(), verdict.cases));
/// assert_eq!(verdict.reward_text(), "1.0");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct RepairVerdict {
    /// 1 when every case is right; else `partial` × the share of groups
    /// fully right; 0 when refused.
    pub reward: Decimal,
    /// Cases right.
    pub cases_passed: usize,
    /// Cases scored.
    pub cases: usize,
    /// Each group: whether every case in it is right.
    pub groups: IndexMap<String, bool>,
    /// Why the candidate was refused, if it was.
    pub refusal: Option<Refusal>,
    /// Indices (into `Verifier::cases`) of the cases got wrong: evaluator-only.
    pub failed: Vec<usize>,
}

impl RepairVerdict {
    /// The reward as a JSON number with a decimal point: `1.0`, `0.0`, `0.405`.
    pub fn reward_text(&self) -> String {
        let r = self.reward.normalize();
        if r.scale() == 0 {
            format!("{r}.0")
        } else {
            r.to_string()
        }
    }

    /// What may be shown of a verdict: `{"reward", "cases_passed",
    /// "cases", "groups"}` and, when refused, `"refused"` (its category).
    pub fn summary_json(&self) -> serde_json::Value {
        let reward: serde_json::Value =
            serde_json::from_str(&self.reward_text()).unwrap_or(serde_json::Value::Null);
        let mut out = serde_json::json!({
            "reward": reward,
            "cases_passed": self.cases_passed,
            "cases": self.cases,
            "groups": self.groups,
        });
        if let Some(r) = &self.refusal {
            out["refused"] = r.message().into();
        }
        out
    }
}

impl Verifier {
    /// Draws the hidden cases and answers every case with the reference,
    /// under the caps (the reference must keep within them).
    pub fn new(task: RepairTask, reference: Rulebook) -> Result<Verifier, RepairError> {
        let file = task.name.clone();
        let hidden = |message: String| RepairError::Hidden {
            file: file.clone(),
            message,
        };
        let ref_text = reference
            .files()
            .first()
            .map(|f| effective_toml(f.as_ref()))
            .transpose()
            .map_err(|e| hidden(format!("the reference: {e}")))?
            .unwrap_or_default();
        let contract = toml::from_str::<RawRulebook>(&ref_text)
            .map(|raw| Contract::of(&raw))
            .map_err(|e| hidden(format!("the reference: {e}")))?;
        let (generator, gen_rb) =
            load_generator(&task.hidden.generator, None).map_err(|e| RepairError::Generator {
                file: file.clone(),
                source: Box::new(e),
            })?;
        if gen_rb.hash() != reference.hash() {
            return Err(hidden(
                "the generator is written for another rulebook".to_string(),
            ));
        }
        let drawer = TaskDrawer::new(&generator, &gen_rb).map_err(|e| hidden(e.to_string()))?;
        let capped = clamp(reference.clone(), &task.caps);
        let mut cases = Vec::new();
        let answer = |case: &serde_json::Value| match evaluate_value(&capped, case, false) {
            Ok((outcome @ Outcome::Answer(_), _)) => Ok(outcome),
            Ok((Outcome::Rejected(e), _)) => Err(format!("a case is rejected: {e}")),
            Err(e) => Err(e.to_string()),
        };
        let refail = |message| RepairError::Reference {
            file: file.clone(),
            message,
        };
        for v in &task.visible {
            cases.push(ScoredCase {
                visible: Some(v.id.clone()),
                expected: answer(&v.case).map_err(refail)?,
                case: v.case.clone(),
                tags: Vec::new(),
                readings: Vec::new(),
            });
        }
        for index in 0..task.hidden.count {
            let drawn = drawer
                .task(task.hidden.seed, index, None)
                .map_err(|e| hidden(e.to_string()))?;
            let case = drawn.task.case;
            cases.push(ScoredCase {
                visible: None,
                expected: answer(&case).map_err(refail)?,
                tags: drawn.task.tags.unwrap_or_default(),
                readings: Vec::new(),
                case,
            });
        }
        measure_readings(&task, &reference, &mut cases).map_err(refail)?;
        let mut members = Vec::new();
        for g in &task.groups {
            let m: Vec<usize> = (0..cases.len())
                .filter(|&i| {
                    let c = &cases[i];
                    c.visible.is_none() && g.holds(&c.case, &c.tags, &c.readings)
                })
                .collect();
            if m.is_empty() {
                return Err(RepairError::EmptyGroup {
                    file,
                    group: g.name.clone(),
                });
            }
            members.push(m);
        }
        let verifier = Verifier {
            task,
            reference,
            cases,
            members,
            contract,
        };
        // The reference, as a candidate would give it, earns 1 under the
        // file's own caps: a cap below it (a `magnitude` under its amounts,
        // `source_bytes`, `nodes` or `depth` under its own) would score every
        // candidate 0 against answers none may give.
        let own = verifier.verify_text(&ref_text);
        let message = match (&own.refusal, own.cases_passed == own.cases) {
            (Some(r), _) => Some(format!("it is refused ({})", r.category)),
            (None, false) => Some(format!(
                "it answers {} of {} cases within the caps (`magnitude` {})",
                own.cases_passed, own.cases, verifier.task.caps.magnitude
            )),
            (None, true) => None,
        };
        match message {
            Some(message) => Err(RepairError::Reference { file, message }),
            None => Ok(verifier),
        }
    }

    /// The verdict of candidate text: refused (reward 0) if it is over a
    /// cap, does not load or breaks the contract; else scored on every case.
    pub fn verify_text(&self, text: &str) -> RepairVerdict {
        match self.load_candidate(text) {
            Ok(rb) => self.verify_rulebook(&rb),
            Err(refusal) => self.refuse(refusal),
        }
    }

    /// Loads candidate text under the caps, checks it and its contract:
    /// the rulebook it evaluates as, its limits clamped.
    pub fn load_candidate(&self, text: &str) -> Result<Rulebook, Refusal> {
        let caps = &self.task.caps;
        if text.len() > caps.source_bytes {
            return Err(Refusal::of("cap::source_bytes"));
        }
        let rb = parse_rulebook("candidate.toml", text).map_err(|d| invalid(&d))?;
        let (nodes, depth) = measure(&rb);
        if depth > caps.depth {
            return Err(Refusal::of("cap::depth"));
        }
        if nodes > caps.nodes {
            return Err(Refusal::of("cap::nodes"));
        }
        if rb
            .tables
            .iter()
            .any(|t| t.rows.len() > caps.collection_items)
        {
            return Err(Refusal::of("cap::rows"));
        }
        // It parsed and checked, so it reads into its mirror.
        let raw =
            toml::from_str::<RawRulebook>(text).map_err(|_| Refusal::of("candidate::invalid"))?;
        self.contract.keeps(&Contract::of(&raw))?;
        Ok(clamp(rb, caps))
    }

    /// The verdict of a loaded candidate (its limits clamped here too).
    pub fn verify_rulebook(&self, candidate: &Rulebook) -> RepairVerdict {
        let candidate = clamp(candidate.clone(), &self.task.caps);
        let mut right = vec![false; self.cases.len()];
        for (i, c) in self.cases.iter().enumerate() {
            match evaluate_value(&candidate, &c.case, false) {
                Ok((outcome, _)) => {
                    right[i] = outcome == c.expected && within(&outcome, self.task.caps.magnitude);
                }
                Err(e) if budget_spent(&e) => return self.refuse(Refusal::of("cap::eval_steps")),
                Err(_) => {}
            }
        }
        let groups: IndexMap<String, bool> = self
            .task
            .groups
            .iter()
            .zip(&self.members)
            .map(|(g, m)| (g.name.clone(), m.iter().all(|&i| right[i])))
            .collect();
        let cases_passed = right.iter().filter(|r| **r).count();
        let reward = if cases_passed == right.len() {
            Decimal::ONE
        } else {
            let fully = groups.values().filter(|r| **r).count();
            (self.task.partial * Decimal::from(fully) / Decimal::from(groups.len().max(1)))
                .round_dp(6)
                .normalize()
        };
        RepairVerdict {
            reward,
            cases_passed,
            cases: right.len(),
            groups,
            refusal: None,
            failed: (0..right.len()).filter(|&i| !right[i]).collect(),
        }
    }

    /// The verdict of a candidate refused before any case: reward 0.
    pub fn refuse(&self, refusal: Refusal) -> RepairVerdict {
        RepairVerdict {
            reward: Decimal::ZERO,
            cases_passed: 0,
            cases: self.cases.len(),
            groups: self
                .task
                .groups
                .iter()
                .map(|g| (g.name.clone(), false))
                .collect(),
            refusal: Some(refusal),
            failed: Vec::new(),
        }
    }
}

/// Notes on each hidden case the readings its groups name that answer it
/// otherwise than the reference: what a candidate keeping that reading gets
/// wrong, measured here whatever the generator watches. A reading that
/// faults on a case (its budget spent included) answers it otherwise too.
fn measure_readings(
    task: &RepairTask,
    reference: &Rulebook,
    cases: &mut [ScoredCase],
) -> Result<(), String> {
    let mut names: Vec<&str> = Vec::new();
    for r in task.groups.iter().flat_map(|g| &g.readings) {
        if !names.contains(&r.as_str()) {
            names.push(r);
        }
    }
    for name in names {
        let misread = reference
            .ablated(name)
            .map(|rb| clamp(rb, &task.caps))
            .map_err(|e| format!("reading `{name}`: {e}"))?;
        for c in cases.iter_mut().filter(|c| c.visible.is_none()) {
            let same = matches!(
                evaluate_value(&misread, &c.case, false),
                Ok((outcome, _)) if outcome == c.expected
            );
            if !same {
                c.readings.push(name.to_string());
            }
        }
    }
    Ok(())
}

/// The refusal of a candidate with problems: the first one's code and place.
fn invalid(d: &Diagnostics) -> Refusal {
    let first = d.problems.first();
    let at = first.and_then(|p| p.line_column());
    Refusal {
        category: "candidate::invalid",
        code: first.map(|p| p.code),
        line: at.map(|(l, _)| l),
        column: at.map(|(_, c)| c),
    }
}

/// A rulebook whose limits are the caps where it declares more.
fn clamp(mut rb: Rulebook, caps: &Caps) -> Rulebook {
    rb.limits.max_eval_steps = rb.limits.max_eval_steps.min(caps.eval_steps);
    rb.limits.max_list_items = rb.limits.max_list_items.min(caps.collection_items);
    rb
}

/// Whether an evaluation fault is the case's budget running out.
fn budget_spent(e: &EvalError) -> bool {
    e.message.starts_with("evaluation exceeded its limit of")
}

/// The expression nodes of every formula (each text counted once, though
/// groups over constant rows hold copies) and the deepest one.
fn measure(rb: &Rulebook) -> (usize, usize) {
    let mut rb = rb.clone();
    let mut seen: HashSet<*const u8> = HashSet::new();
    let (mut nodes, mut depth) = (0, 0);
    crate::rulebook::lower::each_formula(&mut rb, &mut |f| {
        if seen.insert(Arc::as_ptr(&f.text).cast::<u8>()) {
            let mut stack: Vec<(&Node, usize)> = vec![(&f.node, 1)];
            while let Some((n, d)) = stack.pop() {
                nodes += 1;
                depth = depth.max(d);
                stack.extend(n.children().into_iter().map(|c| (c, d + 1)));
            }
        }
    });
    (nodes, depth)
}

/// Whether every amount of an outcome is within the magnitude cap.
fn within(outcome: &Outcome, cap: Decimal) -> bool {
    fn fields(f: &Fields, cap: Decimal) -> bool {
        f.0.iter().all(|(_, v)| value(v, cap))
    }
    fn value(v: &AnswerValue, cap: Decimal) -> bool {
        match v {
            AnswerValue::Amount(d) | AnswerValue::Number(d) => d.abs() <= cap,
            AnswerValue::List(items) => items.iter().all(|f| fields(f, cap)),
            AnswerValue::Keyed(items) => items.iter().all(|(_, f)| fields(f, cap)),
            _ => true,
        }
    }
    match outcome {
        Outcome::Answer(a) => fields(&a.fields, cap),
        Outcome::Rejected(_) => true,
    }
}

/// What a candidate must keep of the reference: its inputs and `[case]`
/// (so it is given what the reference is given and nothing more), the
/// declarations of the tables a case may replace, and the shape of every
/// decision's answer (names, formats, lists and keys).
#[derive(Debug, PartialEq, Eq)]
struct Contract {
    inputs: String,
    tables: String,
    answers: String,
}

impl Contract {
    fn of(raw: &RawRulebook) -> Contract {
        let inputs = format!(
            "{}\n{}",
            toml::to_string(&raw.inputs).unwrap_or_default(),
            toml::to_string(&raw.case).unwrap_or_default()
        );
        let mut tables = String::new();
        for input in raw.inputs.values() {
            if let Some(name) = &input.table {
                tables.push_str(name.get_ref());
                if let Some(t) = raw.tables.get(name.get_ref()) {
                    tables.push_str(&format!(
                        "{:?}{:?}{}",
                        t.kind.as_ref().map(|k| k.get_ref()),
                        t.keys,
                        toml::to_string(&t.columns).unwrap_or_default()
                    ));
                }
                tables.push('\n');
            }
        }
        let mut answers = String::new();
        for (name, d) in &raw.decisions {
            answers.push_str(name);
            shape(&d.answer, &mut answers);
            answers.push('\n');
        }
        Contract {
            inputs,
            tables,
            answers,
        }
    }

    fn keeps(&self, candidate: &Contract) -> Result<(), Refusal> {
        if candidate.inputs != self.inputs {
            return Err(Refusal::of("contract::inputs"));
        }
        if candidate.tables != self.tables {
            return Err(Refusal::of("contract::tables"));
        }
        if candidate.answers != self.answers {
            return Err(Refusal::of("contract::answer"));
        }
        Ok(())
    }
}

/// The shape of answer fields: names, formats, lists and keys, not formulas.
fn shape(fields: &IndexMap<String, RawOutput>, out: &mut String) {
    out.push('{');
    for (key, o) in fields {
        out.push_str(key);
        if let Some(f) = &o.format {
            out.push(':');
            out.push_str(f.get_ref());
        }
        if o.each.is_some() {
            out.push_str("[each]");
        }
        if o.key.is_some() {
            out.push_str("[key]");
        }
        if let Some(f) = &o.fields {
            shape(f, out);
        }
        out.push(',');
    }
    out.push('}');
}
