//! An audit page's answer (`docs/audit-page.md`), read back from the JSON
//! text its one writer wrote (`outcome` sits above the trace, so a page
//! reads what `eval --trace json` prints) with `json`'s reader: each field
//! with its value as written, a list (or keyed object) of objects as a
//! table, each value linked to the step or input its decision's formula
//! names; and the answer in one line for a batch's index.
//!
//! Invariant: any text is read without a panic (an answer that is not JSON
//! is shown as its text); nothing here is escaped, the renderers do it.

use super::page::Page;
use super::OutcomeTrace;
use crate::json::{self, Item, Node};
use crate::model::OutputValue;

/// Deepest answer JSON read (an answer nests a few levels at most).
const ANSWER_DEPTH: usize = 64;

/// One answer field.
pub(super) struct Field {
    /// Its key.
    pub key: String,
    /// Its value.
    pub value: FieldValue,
    /// The step or input it comes from.
    pub href: Option<String>,
}

/// One object of a list answer: its key (keyed answers), then each cell's
/// text and link.
pub(super) type ItemRow = (Option<String>, Vec<(String, Option<String>)>);

/// An answer field's value.
pub(super) enum FieldValue {
    /// A value as written in the JSON (a string without its quotes).
    Scalar(String),
    /// A list (or keyed object) of objects: a table.
    Items {
        /// The objects' keys, in order of first appearance.
        columns: Vec<String>,
        /// Each object's key (keyed answers) and cells, each with its link.
        rows: Vec<ItemRow>,
    },
}

/// The answer's fields read back from its JSON text, each linked to the
/// step (or input) its decision's formula names.
pub(super) fn answer_fields(page: &Page<'_>, text: &str) -> Vec<Field> {
    let mut nodes: Vec<Node<'_>> = Vec::new();
    if json::read(text, ANSWER_DEPTH, &mut nodes).is_err() {
        return vec![Field {
            key: "answer".into(),
            value: FieldValue::Scalar(text.to_string()),
            href: None,
        }];
    }
    let decision = match &page.trace.outcome {
        OutcomeTrace::Decision { decision, .. } => {
            page.rb.decisions.iter().find(|d| *d.name == **decision)
        }
        OutcomeTrace::Rejected { .. } => None,
    };
    let mut fields = Vec::new();
    for (key, at) in entries(&nodes, 0) {
        let output = decision.and_then(|d| d.answer.iter().find(|o| *o.key == *key));
        let (value, href) = match output.map(|o| &o.value) {
            Some(OutputValue::Value { expr, .. }) => (
                field_value(&nodes, at, page, None),
                page.name_href(None, &expr.text),
            ),
            Some(OutputValue::Each { group, fields, .. }) => {
                let group = page.rb.groups.get(*group).map(|g| g.name.to_string());
                let links = group.map(|g| (g, fields.as_slice()));
                (field_value(&nodes, at, page, links), None)
            }
            None => (field_value(&nodes, at, page, None), None),
        };
        fields.push(Field { key, value, href });
    }
    fields
}

/// The entries of the object at `at`: (key, index of the value).
pub(super) fn entries(nodes: &[Node<'_>], at: usize) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let Some(node) = nodes.get(at) else {
        return out;
    };
    if !matches!(node.item, Item::Object(_)) {
        return out;
    }
    let mut i = at + 1;
    while i + 1 < node.end.min(nodes.len()) {
        let key = match &nodes[i].item {
            Item::String(k) => k.to_string(),
            _ => String::new(),
        };
        out.push((key, i + 1));
        i = nodes[i + 1].end;
    }
    out
}

/// The items of the array at `at`.
fn items(nodes: &[Node<'_>], at: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let Some(node) = nodes.get(at) else {
        return out;
    };
    let mut i = at + 1;
    while i < node.end.min(nodes.len()) {
        out.push(i);
        i = nodes[i].end;
    }
    out
}

/// An answer value: a table when it is a list (or keyed object) of objects.
fn field_value(
    nodes: &[Node<'_>],
    at: usize,
    page: &Page<'_>,
    links: Option<(String, &[crate::model::Output])>,
) -> FieldValue {
    let objects: Vec<(Option<String>, usize)> = match nodes.get(at).map(|n| &n.item) {
        Some(Item::Array(_)) => items(nodes, at).into_iter().map(|i| (None, i)).collect(),
        Some(Item::Object(_)) if links.is_some() => entries(nodes, at)
            .into_iter()
            .map(|(k, i)| (Some(k), i))
            .collect(),
        _ => return FieldValue::Scalar(json_text(nodes, at)),
    };
    if objects.is_empty()
        || !objects
            .iter()
            .all(|(_, i)| matches!(nodes[*i].item, Item::Object(_)))
    {
        return FieldValue::Scalar(json_text(nodes, at));
    }
    let mut columns: Vec<String> = Vec::new();
    for (_, i) in &objects {
        for (k, _) in entries(nodes, *i) {
            if !columns.contains(&k) {
                columns.push(k);
            }
        }
    }
    let rows = objects
        .iter()
        .enumerate()
        .map(|(n, (key, i))| {
            let cells = entries(nodes, *i);
            let item = links.as_ref().map(|(g, _)| format!("{g}[{n}]"));
            let row = columns
                .iter()
                .map(|c| {
                    let text = cells
                        .iter()
                        .find(|(k, _)| k == c)
                        .map(|(_, v)| json_text(nodes, *v))
                        .unwrap_or_default();
                    let formula = links
                        .as_ref()
                        .and_then(|(_, fields)| fields.iter().find(|o| *o.key == **c))
                        .and_then(|o| match &o.value {
                            OutputValue::Value { expr, .. } => Some(&expr.text),
                            OutputValue::Each { .. } => None,
                        });
                    let href = match (&item, formula) {
                        (Some(item), Some(f)) => page.name_href(Some(item), f),
                        _ => None,
                    };
                    (text, href)
                })
                .collect();
            (key.clone(), row)
        })
        .collect();
    FieldValue::Items { columns, rows }
}

/// A JSON value as a person reads it: a string without quotes, a number as
/// written, a list as `[a, b]`, an object as `{k: v}`.
pub(super) fn json_text(nodes: &[Node<'_>], at: usize) -> String {
    match nodes.get(at).map(|n| &n.item) {
        None | Some(Item::Null) => "null".into(),
        Some(Item::Bool(b)) => b.to_string(),
        Some(Item::Number(n)) => n.to_string(),
        Some(Item::String(s)) => s.to_string(),
        Some(Item::Array(_)) => {
            let parts: Vec<String> = items(nodes, at)
                .into_iter()
                .map(|i| json_text(nodes, i))
                .collect();
            format!("[{}]", parts.join(", "))
        }
        Some(Item::Object(_)) => {
            let parts: Vec<String> = entries(nodes, at)
                .into_iter()
                .map(|(k, i)| format!("{k}: {}", json_text(nodes, i)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
    }
}

/// The answer in a line for a batch's index: its scalar fields, `key value`
/// joined with `, `, lists counted.
pub fn answer_summary(answer: &str) -> String {
    let mut nodes: Vec<Node<'_>> = Vec::new();
    if json::read(answer, ANSWER_DEPTH, &mut nodes).is_err() {
        return answer.to_string();
    }
    let parts: Vec<String> = entries(&nodes, 0)
        .into_iter()
        .map(|(k, i)| match &nodes[i].item {
            Item::Array(n) => format!("{k} [{n} items]"),
            Item::Object(n) => format!("{k} {{{n} entries}}"),
            _ => format!("{k} {}", json_text(&nodes, i)),
        })
        .collect();
    parts.join(", ")
}
