//! Per-field exploit strategies of `bareme baselines`: the rulebook's own
//! answer to a case with one amount field changed, one strategy per field,
//! so the table says what a rubric pays for an answer right but for that
//! field (the seeds' "each field zeroed", "gross pay copied into net pay").
//!
//! Two kinds, each derived from the rubric's fields and the rulebook's
//! inputs and steps (and a copy's input chosen by the set's references):
//! - *zeroed*: every amount field of every decision (money, signed money,
//!   amount, decimal), at the root or in the items of a list or keyed
//!   field (`lines.tax`: the field zeroed in every item);
//! - *copied*: a root amount field that is no input of its own name (those
//!   are copied already) takes the value of an input its formula reads:
//!   the candidates are the top-level inputs of the field's kind (a money
//!   input for a money or amount field, a decimal one for a decimal field)
//!   that the field's answer formula depends on, directly or through the
//!   steps and per-item groups it reads; an input the field never reads is
//!   no candidate (Luma's contract gross pay decides a conflict, not a net
//!   pay). Of them the strategy copies the one whose copy equals the
//!   field's reference value on the most tasks of the set (the first in
//!   the rulebook's declaration order among equals, so with no hit the
//!   first read): one strategy per field, the best copy a policy could
//!   settle on, learned from the set as the usual answers are. The value
//!   is written in the field's format, zero when the case leaves it out.
//!   Items are not copied: an answer's item is no case item by position.
//!
//! Everything else of the answer is the rulebook's, so a strategy differs
//! from the right answer in its one field; on a task whose answer has
//! another decision it is the right answer.

use rust_decimal::Decimal;
use serde_json::Value;
use std::collections::BTreeSet;
use std::str::FromStr;

use super::grade::expected_decision;
use super::model::{DecisionRubric, Field, FieldKind, Format, Rubric};
use crate::model::{InputKind, Node, NodeKind, OutputValue, Rulebook, Step};
use crate::tasks::Task;

/// One per-field strategy: which field of which decision, and how it is changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FieldPlay {
    /// The decision's name, as the answer's `decision` writes it.
    decision: String,
    /// The root field's key.
    key: String,
    /// The item field's key, for a field of a list's or keyed field's items.
    item: Option<String>,
    /// The field's format.
    format: Format,
    /// `None`: zeroed; `Some(input)`: the case's top-level input copied.
    from: Option<String>,
}

impl FieldPlay {
    /// The strategy's name, what the reply writes: `` `lines.tax` = 0``,
    /// `` `net_pay` = `gross_pay` ``, after the decision when the rubric
    /// has several (`` calculate: `net_pay` = 0``). Short, so that the
    /// bundled rubrics' tables keep their column widths.
    pub(crate) fn name(&self, several: bool) -> String {
        let path = match &self.item {
            Some(item) => format!("{}.{item}", self.key),
            None => self.key.clone(),
        };
        let value = match &self.from {
            None => "0".to_string(),
            Some(input) => format!("`{input}`"),
        };
        match several {
            true => format!("{}: `{path}` = {value}", self.decision),
            false => format!("`{path}` = {value}"),
        }
    }

    /// The rulebook's `answer` to `case` with this strategy's field changed
    /// (an answer of another decision is left as it is).
    /// `decision` is the answer's, as the rubric reads it.
    pub(crate) fn apply(&self, answer: &mut Value, case: &Value, decision: &str) {
        if decision != self.decision {
            return;
        }
        let value = match &self.from {
            None => zero(self.format),
            Some(input) => copy(case, input, self.format),
        };
        let Some(root) = answer.get_mut(&self.key) else {
            return;
        };
        let Some(item) = &self.item else {
            *root = value;
            return;
        };
        let items: Vec<&mut Value> = match root {
            Value::Array(list) => list.iter_mut().collect(),
            Value::Object(keyed) => keyed.values_mut().collect(),
            _ => Vec::new(),
        };
        for entry in items {
            if let Some(v) = entry.get_mut(item) {
                *v = value.clone();
            }
        }
    }
}

/// Whether a format is an amount a strategy can zero or copy.
fn amount(format: Format) -> bool {
    matches!(
        format,
        Format::Money | Format::SignedMoney | Format::Amount | Format::Decimal
    )
}

/// The case's `input` written in a field's format, zero when the case
/// leaves it out (or holds what the format cannot write).
fn copy(case: &Value, input: &str, format: Format) -> Value {
    case.get(input)
        .and_then(|v| fit(format, v))
        .unwrap_or_else(|| zero(format))
}

/// The per-field strategies of a rubric against its rulebook, in the
/// rubric's order: each decision's fields, each root field's zeroing, then
/// its copy (from the input `tasks` favour), then its items' zeroings.
pub(crate) fn field_plays(rubric: &Rubric, rb: &Rulebook, tasks: &[&Task]) -> Vec<FieldPlay> {
    let mut out = Vec::new();
    for decision in &rubric.decisions {
        let play = |key: &Field, item: Option<&Field>, format, from| FieldPlay {
            decision: decision.name.clone(),
            key: key.key.clone(),
            item: item.map(|i| i.key.clone()),
            format,
            from,
        };
        for field in &decision.fields {
            match &field.kind {
                FieldKind::Value(format) if amount(*format) => {
                    out.push(play(field, None, *format, None));
                    let inputs = copied_from(rb, &decision.name, &field.key, *format);
                    if let Some(input) =
                        best_copy(rubric, decision, &field.key, *format, inputs, tasks)
                    {
                        out.push(play(field, None, *format, Some(input)));
                    }
                }
                FieldKind::Value(_) => {}
                FieldKind::List(items) | FieldKind::Keyed(items) => {
                    for item in items {
                        if let FieldKind::Value(format) = item.kind {
                            if amount(format) {
                                out.push(play(field, Some(item), format, None));
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// The case inputs a root field may be copied from (its candidates), in
/// the rulebook's declaration order: none when an input bears the field's own name (it is
/// copied already) or the rulebook writes no such field; else every
/// top-level input of the field's kind that its answer formula reads.
fn copied_from(rb: &Rulebook, decision: &str, key: &str, format: Format) -> Vec<String> {
    if rb.inputs.iter().any(|i| &*i.name == key) {
        return Vec::new();
    }
    let formula = rb
        .decisions
        .iter()
        .filter(|d| &*d.name == decision)
        .flat_map(|d| &d.answer)
        .find(|o| &*o.key == key)
        .and_then(|o| match &o.value {
            OutputValue::Value { expr, .. } => Some(expr),
            OutputValue::Each { .. } => None,
        });
    let Some(formula) = formula else {
        return Vec::new();
    };
    let read = inputs_read(rb, &formula.node);
    rb.inputs
        .iter()
        .enumerate()
        .filter(|(i, input)| {
            read.contains(i)
                && match format {
                    Format::Decimal => matches!(input.kind, InputKind::Decimal(_)),
                    _ => matches!(input.kind, InputKind::Money(_)),
                }
        })
        .map(|(_, input)| input.name.to_string())
        .collect()
}

/// Of the candidate `inputs`, the one whose copy equals the field's
/// reference value (equal in value, as the rubric compares amounts) on the
/// most tasks whose reference takes the decision; the first among equals.
fn best_copy(
    rubric: &Rubric,
    decision: &DecisionRubric,
    key: &str,
    format: Format,
    inputs: Vec<String>,
    tasks: &[&Task],
) -> Option<String> {
    let references: Vec<(&Value, Decimal)> = tasks
        .iter()
        .filter(|t| expected_decision(rubric, &t.expected).is_ok_and(|d| d.name == decision.name))
        .filter_map(|t| Some((&t.case, decimal(t.expected.get(key)?)?)))
        .collect();
    let mut best: Option<(String, usize)> = None;
    for input in inputs {
        let hits = references
            .iter()
            .filter(|(case, want)| decimal(&copy(case, &input, format)) == Some(*want))
            .count();
        if best.as_ref().is_none_or(|(_, most)| hits > *most) {
            best = Some((input, hits));
        }
    }
    best.map(|(input, _)| input)
}

/// The top-level inputs (their indices) a formula's value depends on:
/// those it names, and those of every step and per-item group it reads,
/// transitively. A step's value depends on its formula, its condition and
/// its fallback, not on the conditions that add citations; a group read is
/// every step of it and the list it runs over. Each step and group is
/// walked once, with a stack of its own (no recursion on a chain of steps).
fn inputs_read(rb: &Rulebook, root: &Node) -> BTreeSet<usize> {
    fn value_nodes(step: &Step) -> impl Iterator<Item = &Node> {
        std::iter::once(&step.expr)
            .chain(&step.when)
            .chain(&step.otherwise)
            .map(|f| &f.node)
    }
    let mut inputs = BTreeSet::new();
    let (mut steps, mut groups) = (BTreeSet::new(), BTreeSet::new());
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match &node.kind {
            NodeKind::Input(i) => {
                inputs.insert(i.index());
            }
            NodeKind::Step(s) if steps.insert(s.index()) => {
                stack.extend(rb.steps.get(s.index()).into_iter().flat_map(value_nodes));
            }
            NodeKind::Group(g) if groups.insert(*g) => {
                if let Some(group) = rb.groups.get(*g) {
                    stack.push(&group.over.node);
                    stack.extend(group.steps.iter().flat_map(value_nodes));
                }
            }
            _ => {}
        }
        stack.extend(node.children());
    }
    inputs
}

/// A zero, or an empty text, in a format.
pub(super) fn zero(format: Format) -> Value {
    match format {
        Format::Money | Format::SignedMoney => Value::String("0.00".into()),
        Format::Amount => Value::from(0),
        Format::Decimal => Value::String("0".into()),
        Format::Clauses => Value::Array(Vec::new()),
        Format::Decision | Format::String | Format::Any => Value::String(String::new()),
    }
}

/// A decimal held by a JSON number or string.
pub(super) fn decimal(v: &Value) -> Option<Decimal> {
    let text = match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => return None,
    };
    Decimal::from_str(&text)
        .or_else(|_| Decimal::from_scientific(&text))
        .ok()
}

/// A case value written in a format, when it can be without changing it.
pub(super) fn fit(format: Format, v: &Value) -> Option<Value> {
    match format {
        Format::Money | Format::SignedMoney => {
            let d = decimal(v)?;
            let negative_ok = format == Format::SignedMoney;
            (d.scale() <= 2 && (negative_ok || !d.is_sign_negative()))
                .then(|| Value::String(format!("{:.2}", d)))
        }
        Format::Amount => {
            let d = decimal(v)?.normalize();
            serde_json::from_str(&d.to_string()).ok()
        }
        Format::Decimal => decimal(v).map(|d| Value::String(d.normalize().to_string())),
        Format::String => v.is_string().then(|| v.clone()),
        Format::Any => Some(v.clone()),
        Format::Decision | Format::Clauses => None,
    }
}
