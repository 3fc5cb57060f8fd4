//! Exploit baselines: scripted strategies that write a reply to every task
//! without reading its rules, so a rubric designer sees what each cheap
//! policy earns before trusting the rubric.
//!
//! A strategy sees what a policy under training sees or can learn cheaply:
//! the task's case, the answer contract, and what is usual among the task
//! set's reference answers (the most common value of each field per
//! decision: what a prompt's worked examples show). Some strategies are
//! oracles on purpose (the reference, or the reference on every task but
//! one kind) so that a rubric's incentives can be read as differences.
//!
//! A field is a *copied input* when the case holds the reference's value
//! under a key of the same name (`gross_pay`), and *given* when it is a
//! copied input or the same in every reference of its decision (a currency):
//! what a policy writes without arithmetic.
//!
//! Given the rulebook ([`Baselines::with_rulebook`]), the strategies also
//! include the rulebook's own wrong readings: the answer under each
//! declared ablation, and under each number step dropped (made 0), each
//! computed from the case. These read no reference: with the constant
//! strategies they are the *exploits*, and the best exploit per tier is
//! what a policy earns without the rules (sales-tax: "compute the nets,
//! charge no tax", the rate dropped).
//!
//! Last come the per-field strategies (`fields`): the rulebook's answer
//! with one amount field zeroed, or copied from the input its formula reads
//! whose copy is right most often in the set (Luma: net pay copied from
//! gross pay), one of each per field, named by field: what the rubric pays
//! for an answer wrong in that field alone.
//!
//! Invariant: nothing here knows a rule set; every strategy is derived from
//! the rubric's decisions and formats, the rulebook's steps and ablations
//! and the task set's references.

use rust_decimal::Decimal;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

use rayon::prelude::*;

use super::error::ScoreError;
use super::fields::{decimal, field_plays, fit, zero, FieldPlay};
use super::grade::expected_decision;
use super::means::Means;
use super::model::{DecisionRubric, Field, FieldKind, Format, Rubric};
use super::Scorer;
use crate::model::Rulebook;
use crate::tasks::Task;

/// Most distinct values a text field may take for one constant strategy per value.
const MAX_FIXED_VALUES: usize = 16;

/// The text of the `refuse` strategy.
const REFUSAL: &str = "I cannot answer this from the information given.";

/// One scripted strategy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Strategy {
    /// A stable name: `reference`, `always clarify`, `calculate tasks answered wrongly`.
    pub name: String,
    /// Whether it writes the same reply to every task of a set (the case aside).
    pub constant: bool,
    /// Whether it reads no task's reference (an exploit a policy can find).
    pub exploit: bool,
    play: Play,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Play {
    Reference,
    Fenced,
    Truncated,
    Refuse,
    /// The first decision, every amount zero, given text values.
    Zeros,
    /// The first decision, top-level inputs of the field's name copied.
    CopyInputs,
    /// The reference's decision, inputs copied, no arithmetic.
    RightDecision,
    /// The usual answer of a decision (with one field fixed).
    Usual {
        decision: usize,
        fixed: Option<(String, Value)>,
    },
    /// The reference on tasks of this decision, else its usual answer.
    Always(usize),
    /// The reference, except on tasks of decision `from`: the usual answer of `to`.
    Instead {
        from: usize,
        to: usize,
    },
    /// The reference, except on tasks of this decision: every field not given, wrong.
    Wrong(usize),
    /// The answer under one of the rulebook's wrong readings (`readings[i]`).
    Reading(usize),
    /// The rulebook's answer with one field changed (`fields[i]`).
    Field(usize),
}

/// The strategies of a rubric over one task set, and what they learned from it.
#[derive(Clone, Debug)]
pub struct Baselines {
    strategies: Vec<Strategy>,
    /// Per decision: each root value field's values among the references,
    /// counted, in order of first appearance.
    seen: Vec<BTreeMap<String, Vec<(Value, usize)>>>,
    /// The rulebook under each wrong reading, named.
    readings: Vec<Rulebook>,
    /// The rulebook itself, for the per-field strategies.
    rulebook: Option<Rulebook>,
    /// The per-field strategies' changes.
    fields: Vec<FieldPlay>,
}

impl Baselines {
    /// The strategies for a rubric, learning usual values from the tasks'
    /// references. A task whose reference names no decision is skipped.
    pub fn new<'t>(rubric: &Rubric, tasks: impl IntoIterator<Item = &'t Task>) -> Baselines {
        let mut seen: Vec<BTreeMap<String, Vec<(Value, usize)>>> =
            vec![BTreeMap::new(); rubric.decisions.len()];
        for task in tasks {
            let Some(d) = decision_index(rubric, &task.expected) else {
                continue;
            };
            for field in &rubric.decisions[d].fields {
                if !matches!(field.kind, FieldKind::Value(_)) {
                    continue;
                }
                let Some(v) = task.expected.get(&field.key) else {
                    continue;
                };
                let counts = seen[d].entry(field.key.clone()).or_default();
                match counts.iter_mut().find(|(w, _)| w == v) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((v.clone(), 1)),
                }
            }
        }
        let mut b = Baselines {
            strategies: Vec::new(),
            seen,
            readings: Vec::new(),
            rulebook: None,
            fields: Vec::new(),
        };
        b.strategies = b.list(rubric);
        b
    }

    /// [`Baselines::new`], plus the rulebook's wrong readings: each
    /// declared ablation and each number step dropped, answered from the
    /// case (`rb` is the rubric's rulebook); then the per-field
    /// strategies (`fields`): the rulebook's answer with one amount field
    /// zeroed, or copied from the input of its kind, among those its
    /// formula reads, whose copy the tasks' references hold most often.
    pub fn with_rulebook<'t>(
        rubric: &Rubric,
        rb: &Rulebook,
        tasks: impl IntoIterator<Item = &'t Task>,
    ) -> Baselines {
        let tasks: Vec<&Task> = tasks.into_iter().collect();
        let mut b = Baselines::new(rubric, tasks.iter().copied());
        let mut add = |name: String, reading: Rulebook| {
            b.strategies.push(Strategy {
                name,
                constant: false,
                exploit: true,
                play: Play::Reading(b.readings.len()),
            });
            b.readings.push(reading);
        };
        let names: Vec<String> = rb.ablation_names().map(str::to_string).collect();
        for name in names {
            if let Ok(reading) = rb.ablated(&name) {
                add(format!("reading `{name}`"), reading);
            }
        }
        for (step, reading) in rb.dropped_steps() {
            add(format!("step `{step}` dropped (0)"), reading);
        }
        let several = rubric.decisions.len() > 1;
        for play in field_plays(rubric, rb, &tasks) {
            b.strategies.push(Strategy {
                name: play.name(several),
                constant: false,
                exploit: true,
                play: Play::Field(b.fields.len()),
            });
            b.fields.push(play);
        }
        b.rulebook = Some(rb.clone());
        b
    }

    /// The exploit that scores best on each group (`all`, each tier, each
    /// level), with its mean: ties go to the first listed. A strategy that
    /// scores on a group what the reference scores there is no exploit of
    /// that group: the reference earns the top grade on each task, so an
    /// equal mean means the strategy answered each task as the reference
    /// does (a step dropped that feeds only a report, or only another tier).
    pub fn best_exploits<'s>(&'s self, means: &[Means]) -> Vec<(String, &'s Strategy, Decimal)> {
        let reference: BTreeMap<String, Decimal> = self
            .strategies
            .iter()
            .zip(means)
            .find(|(s, _)| s.play == Play::Reference)
            .map(|(_, m)| m.groups().into_iter().map(|(g, t)| (g, t.mean())).collect())
            .unwrap_or_default();
        let mut best: Vec<(String, &Strategy, Decimal)> = Vec::new();
        for (strategy, m) in self.strategies.iter().zip(means) {
            if !strategy.exploit {
                continue;
            }
            for (group, tally) in m.groups() {
                let mean = tally.mean();
                if reference.get(&group) == Some(&mean) {
                    continue;
                }
                match best.iter_mut().find(|(g, _, _)| *g == group) {
                    Some(entry) if mean > entry.2 => *entry = (group, strategy, mean),
                    Some(_) => {}
                    None => best.push((group, strategy, mean)),
                }
            }
        }
        best
    }

    /// Every strategy, in a fixed order.
    pub fn strategies(&self) -> &[Strategy] {
        &self.strategies
    }

    fn list(&self, rubric: &Rubric) -> Vec<Strategy> {
        let named = |name: &str, constant, play: Play| Strategy {
            name: name.to_string(),
            constant,
            exploit: matches!(
                play,
                Play::Refuse | Play::Zeros | Play::CopyInputs | Play::Usual { .. }
            ),
            play,
        };
        let mut out = vec![
            named("reference", false, Play::Reference),
            named("fenced reference", false, Play::Fenced),
            named("malformed (reference cut short)", false, Play::Truncated),
            named("refuse in prose", true, Play::Refuse),
            named("all zeros", true, Play::Zeros),
            named("copy the inputs", true, Play::CopyInputs),
            named("right decision, no arithmetic", false, Play::RightDecision),
        ];
        let first = &rubric.decisions[0].name;
        out.push(named(
            &format!("usual {first} answer (the prompt's example)"),
            true,
            Play::Usual {
                decision: 0,
                fixed: None,
            },
        ));
        for (d, decision) in rubric.decisions.iter().enumerate() {
            for field in &decision.fields {
                let FieldKind::Value(Format::String | Format::Any) = field.kind else {
                    continue;
                };
                let values = self.seen[d].get(&field.key).map_or(&[][..], |v| &v[..]);
                if values.len() < 2 || values.len() > MAX_FIXED_VALUES {
                    continue;
                }
                let mut sorted: Vec<&Value> = values.iter().map(|(v, _)| v).collect();
                sorted.sort_by_key(|v| v.to_string());
                for v in sorted {
                    out.push(named(
                        &format!("always {} with {} = {}", decision.name, field.key, text(v)),
                        true,
                        Play::Usual {
                            decision: d,
                            fixed: Some((field.key.clone(), v.clone())),
                        },
                    ));
                }
            }
        }
        if rubric.decisions.len() > 1 {
            for (d, decision) in rubric.decisions.iter().enumerate() {
                out.push(named(
                    &format!("always {}", decision.name),
                    false,
                    Play::Always(d),
                ));
            }
            for (to, other) in rubric.decisions.iter().enumerate().skip(1) {
                out.push(named(
                    &format!("{first} tasks answered {}", other.name),
                    false,
                    Play::Instead { from: 0, to },
                ));
            }
        }
        out.push(named(
            &format!("{first} tasks answered wrongly"),
            false,
            Play::Wrong(0),
        ));
        out
    }

    /// The strategy's reply to a task. `None` when the task's reference
    /// names no decision (a rejection): no reply is graded against it.
    pub fn reply(&self, rubric: &Rubric, strategy: &Strategy, task: &Task) -> Option<String> {
        let want = decision_index(rubric, &task.expected)?;
        let expected = &task.expected;
        let answer = match &strategy.play {
            Play::Reference => expected.clone(),
            Play::Fenced => {
                return Some(wrap(rubric, &format!("```json\n{expected}\n```")));
            }
            Play::Truncated => {
                let text = expected.to_string();
                let cut = text.char_indices().last().map_or(0, |(i, _)| i);
                return Some(wrap(rubric, &text[..cut]));
            }
            Play::Refuse => return Some(REFUSAL.to_string()),
            Play::Zeros => self.fill(rubric, 0, task, Fill::Zeros, None),
            Play::CopyInputs => self.fill(rubric, 0, task, Fill::Copy, None),
            Play::RightDecision => self.fill(rubric, want, task, Fill::Copy, None),
            Play::Usual { decision, fixed } => {
                self.fill(rubric, *decision, task, Fill::Usual, fixed.as_ref())
            }
            Play::Always(d) if *d == want => expected.clone(),
            Play::Always(d) => self.fill(rubric, *d, task, Fill::Usual, None),
            Play::Instead { from, to } if *from == want => {
                self.fill(rubric, *to, task, Fill::Usual, None)
            }
            Play::Wrong(d) if *d == want => self.fill(rubric, *d, task, Fill::Wrong, None),
            Play::Instead { .. } | Play::Wrong(_) => expected.clone(),
            Play::Reading(i) => {
                let answer = self
                    .readings
                    .get(*i)
                    .map(|rb| super::reference_outcome(rb, &task.case))?;
                if answer.get("error").is_some() {
                    // The reading refuses the case: the policy says so in prose.
                    return Some(REFUSAL.to_string());
                }
                answer
            }
            Play::Field(i) => {
                let rb = self.rulebook.as_ref()?;
                let mut answer = super::reference_outcome(rb, &task.case);
                if answer.get("error").is_some() {
                    return Some(REFUSAL.to_string());
                }
                if let (Some(play), Some(d)) =
                    (self.fields.get(*i), decision_index(rubric, &answer))
                {
                    play.apply(&mut answer, &task.case, &rubric.decisions[d].name);
                }
                answer
            }
        };
        Some(wrap(rubric, &answer.to_string()))
    }

    /// Each strategy's replies to every task, graded: its means, in the
    /// order of [`Baselines::strategies`]. Strategies are graded in parallel.
    pub fn measure(&self, scorer: &Scorer, tasks: &[Task]) -> Result<Vec<Means>, ScoreError> {
        self.measure_with(scorer, tasks, &|_| {})
    }

    /// [`Baselines::measure`], calling `graded(n)` as each `n` replies are
    /// graded (strategies × tasks in all): what a progress bar counts.
    pub fn measure_with(
        &self,
        scorer: &Scorer,
        tasks: &[Task],
        graded: &(dyn Fn(u64) + Sync),
    ) -> Result<Vec<Means>, ScoreError> {
        let rubric = scorer.rubric();
        self.strategies
            .par_iter()
            .map(|strategy| {
                let mut means = Means::default();
                for task in tasks {
                    let reply = self.reply(rubric, strategy, task).ok_or_else(|| {
                        ScoreError::RejectedReference {
                            task: task.id.to_string(),
                        }
                    })?;
                    means.add(task, scorer.score(task, &reply, None)?.score);
                    graded(1);
                }
                Ok(means)
            })
            .collect()
    }

    /// The most common value of a root field among the references of a
    /// decision (the first seen among equals), given another field's value.
    fn usual(&self, d: usize, key: &str, fixed: Option<&(String, Value)>) -> Option<Value> {
        if let Some((k, v)) = fixed {
            if k == key {
                return Some(v.clone());
            }
        }
        let values = self.seen[d].get(key)?;
        let mut best: Option<&(Value, usize)> = None;
        for entry in values {
            if best.is_none_or(|b| entry.1 > b.1) {
                best = Some(entry);
            }
        }
        best.map(|(v, _)| v.clone())
    }

    /// Whether a root field holds one value in every reference of its decision.
    fn constant(&self, d: usize, key: &str) -> bool {
        self.seen[d].get(key).is_some_and(|v| v.len() == 1)
    }

    /// An answer of decision `d` to a task, each field as `how` says.
    fn fill(
        &self,
        rubric: &Rubric,
        d: usize,
        task: &Task,
        how: Fill,
        fixed: Option<&(String, Value)>,
    ) -> Value {
        let decision = &rubric.decisions[d];
        let same = decision_index(rubric, &task.expected) == Some(d);
        let reference = same.then_some(&task.expected);
        let mut answer = Map::new();
        for field in &decision.fields {
            let expected = reference.and_then(|r| r.get(&field.key));
            let value = match &field.kind {
                FieldKind::Value(format) => {
                    self.root_value(decision, d, field, *format, expected, task, how, fixed)
                }
                FieldKind::List(items) => {
                    let list = expected.and_then(Value::as_array);
                    Value::Array(list.map_or_else(Vec::new, |list| {
                        list.iter()
                            .map(|item| item_answer(items, item, &task.case, how))
                            .collect()
                    }))
                }
                FieldKind::Keyed(items) => {
                    let keyed = expected.and_then(Value::as_object);
                    Value::Object(keyed.map_or_else(Map::new, |keyed| {
                        keyed
                            .iter()
                            .map(|(k, item)| (k.clone(), item_answer(items, item, &task.case, how)))
                            .collect()
                    }))
                }
            };
            answer.insert(field.key.clone(), value);
        }
        Value::Object(answer)
    }

    #[allow(clippy::too_many_arguments)]
    fn root_value(
        &self,
        decision: &DecisionRubric,
        d: usize,
        field: &Field,
        format: Format,
        expected: Option<&Value>,
        task: &Task,
        how: Fill,
        fixed: Option<&(String, Value)>,
    ) -> Value {
        let usual = || self.usual(d, &field.key, fixed);
        match format {
            Format::Decision => Value::String(decision.name.clone()),
            Format::Clauses => match how {
                Fill::Zeros => Value::Array(Vec::new()),
                Fill::Wrong => expected.cloned().unwrap_or(Value::Array(Vec::new())),
                Fill::Copy | Fill::Usual => usual().unwrap_or(Value::Array(Vec::new())),
            },
            _ => match how {
                Fill::Usual => usual().unwrap_or_else(|| zero(format)),
                Fill::Wrong => match expected {
                    Some(v)
                        if self.constant(d, &field.key) || copied(&task.case, &field.key, v) =>
                    {
                        v.clone()
                    }
                    Some(v) => wrong(format, v),
                    None => zero(format),
                },
                Fill::Copy => task
                    .case
                    .get(&field.key)
                    .and_then(|v| fit(format, v))
                    .or_else(|| (!format.is_amount()).then(usual).flatten())
                    .unwrap_or_else(|| zero(format)),
                Fill::Zeros => {
                    if format.is_amount() {
                        zero(format)
                    } else {
                        usual().unwrap_or_else(|| zero(format))
                    }
                }
            },
        }
    }
}

/// How a strategy fills an answer's fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fill {
    /// Amounts zero; text fields their usual value; no clauses.
    Zeros,
    /// Inputs of the field's name copied; usual text and clauses; other amounts zero.
    Copy,
    /// Every field its usual value.
    Usual,
    /// The reference, every field not given made wrong.
    Wrong,
}

/// An item of a list or keyed field: the reference item's copied inputs
/// kept (and, for `Wrong`, every other value made wrong), amounts zero.
fn item_answer(fields: &[Field], item: &Value, case: &Value, how: Fill) -> Value {
    let mut out = Map::new();
    for field in fields {
        let FieldKind::Value(format) = field.kind else {
            continue;
        };
        let expected = item.get(&field.key);
        let value = match expected {
            Some(v) if copied(case, &field.key, v) => v.clone(),
            Some(v) if how == Fill::Wrong => wrong(format, v),
            _ => zero(format),
        };
        out.insert(field.key.clone(), value);
    }
    Value::Object(out)
}

/// The reference decision's index in the rubric.
fn decision_index(rubric: &Rubric, expected: &Value) -> Option<usize> {
    let d = expected_decision(rubric, expected).ok()?;
    rubric.decisions.iter().position(|x| x.name == d.name)
}

/// The reply text holding `json`: inside the rubric's tag when it has one.
fn wrap(rubric: &Rubric, json: &str) -> String {
    match &rubric.envelope.tag {
        Some(tag) => format!("<{0}>\n{json}\n</{0}>", tag.name),
        None => json.to_string(),
    }
}

/// Whether the case holds `value` under a key named `key`, at any depth.
fn copied(case: &Value, key: &str, value: &Value) -> bool {
    let mut stack = vec![case];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                if m.get(key) == Some(value) {
                    return true;
                }
                stack.extend(m.values());
            }
            Value::Array(list) => stack.extend(list),
            _ => {}
        }
    }
    false
}

/// A value of the format that differs from `v`: one more for an amount
/// (one less at the top of the decimal range, where one more overflows).
fn wrong(format: Format, v: &Value) -> Value {
    let off = |d: Decimal| {
        d.checked_add(Decimal::ONE)
            .or_else(|| d.checked_sub(Decimal::ONE))
            .unwrap_or(Decimal::ZERO)
    };
    match (format, decimal(v)) {
        (Format::Money | Format::SignedMoney, Some(d)) => Value::String(format!("{:.2}", off(d))),
        (Format::Amount, Some(d)) => {
            serde_json::from_str(&off(d).normalize().to_string()).unwrap_or(Value::Null)
        }
        (Format::Decimal, Some(d)) => Value::String(off(d).normalize().to_string()),
        (Format::Clauses, _) => v.clone(),
        _ => Value::String(format!("not {}", text(v))),
    }
}

/// A value as a person reads it in a strategy's name: a string unquoted.
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reference at the top of the decimal range is made wrong by one
    /// less: one more overflowed, and `bareme baselines` aborted on a
    /// rulebook whose answer reached it.
    #[test]
    fn a_wrong_amount_stays_in_the_decimal_range() {
        let max = Value::String("79228162514264337593543950335".into());
        assert_eq!(
            wrong(Format::Decimal, &max),
            Value::String("79228162514264337593543950334".into())
        );
        let min = Value::String("-79228162514264337593543950335".into());
        assert_eq!(
            wrong(Format::Decimal, &min),
            Value::String("-79228162514264337593543950334".into())
        );
        let pay = Value::String("2500.00".into());
        assert_eq!(wrong(Format::Money, &pay), Value::String("2501.00".into()));
    }
}
