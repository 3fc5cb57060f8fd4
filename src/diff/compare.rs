//! Two flattened rulebooks compared entity by entity and option by option.
//!
//! A thing in one version only is one change (its rows or answer fields are
//! not listed again); a thing in both gives one change per option added,
//! removed or changed. A number is compared by value and scale where the
//! option is a number (`07.50` is `7.50`), as the evaluator holds it: `7.0`
//! and `7.00` are equal, but a `decimal` answer or a trace writes each with
//! its own places, so a changed scale is a change; a text is compared as
//! written.

use indexmap::IndexMap;

use super::changes::{Change, ChangeKind, Section};
use super::flatten::{Entity, Fact, Flat, Order};
use super::words::word_diff;
use crate::rulebook::check::parse_plain_decimal;

/// Line numbers of byte offsets in one text.
pub(super) struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    pub(super) fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { starts }
    }

    /// 1-based line of a byte offset.
    pub(super) fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset).max(1)
    }
}

/// Whether two options hold the same value: the same text, or the same
/// number at the same scale written otherwise where the option is a number.
fn same_value(a: &Fact, b: &Fact) -> bool {
    a.value == b.value
        || (a.numeric
            && b.numeric
            && matches!(
                (parse_plain_decimal(&a.value), parse_plain_decimal(&b.value)),
                (Some(x), Some(y)) if x == y && x.scale() == y.scale()
            ))
}

/// A value long enough that its words changed say more than both values whole.
fn long(text: &str) -> bool {
    text.split_whitespace().nth(WORDY).is_some()
}

/// Words beyond which a changed value is shown word by word.
const WORDY: usize = 12;

fn summary(e: &Entity) -> String {
    let parts: Vec<String> = e
        .facts
        .iter()
        .map(|f| format!("{} = {}", f.attr, f.value))
        .collect();
    parts.join("; ")
}

/// Every change from `old` to `new`, by section (each section present).
pub(super) fn compare(
    old: &Flat,
    old_text: &str,
    new: &Flat,
    new_text: &str,
) -> IndexMap<Section, Vec<Change>> {
    let (la, lb) = (Lines::new(old_text), Lines::new(new_text));
    let mut out: IndexMap<Section, Vec<Change>> =
        Section::ALL.iter().map(|s| (*s, Vec::new())).collect();
    let only = |side: &Flat, name: &Option<String>| {
        name.as_ref()
            .is_some_and(|p| !side.entities.contains_key(p))
    };
    for (name, a) in &old.entities {
        let Some(b) = new.entities.get(name) else {
            if !only(new, &a.parent) {
                push(
                    &mut out,
                    a.section,
                    Change {
                        kind: ChangeKind::Removed,
                        entity: name.clone(),
                        attr: None,
                        old: Some(summary(a)),
                        new: None,
                        old_line: Some(la.line(a.offset)),
                        new_line: None,
                        old_file: None,
                        new_file: None,
                        words: Vec::new(),
                    },
                );
            }
            continue;
        };
        let change = |attr: &str, old: Option<String>, new: Option<String>, ol, nl| Change {
            kind: ChangeKind::Changed,
            entity: name.clone(),
            attr: Some(attr.to_string()),
            words: match (&old, &new) {
                (Some(o), Some(n)) if a.section == Section::Clauses || long(o) || long(n) => {
                    word_diff(o, n)
                }
                _ => Vec::new(),
            },
            old,
            new,
            old_line: ol,
            new_line: nl,
            old_file: None,
            new_file: None,
        };
        let bf: IndexMap<&str, _> = b.facts.iter().map(|f| (f.attr.as_str(), f)).collect();
        let af: IndexMap<&str, _> = a.facts.iter().map(|f| (f.attr.as_str(), f)).collect();
        for fa in &a.facts {
            let ol = Some(la.line(fa.offset));
            match bf.get(fa.attr.as_str()) {
                None => {
                    let c = change(
                        &fa.attr,
                        Some(fa.value.clone()),
                        None,
                        ol,
                        Some(lb.line(b.offset)),
                    );
                    push(&mut out, a.section, c);
                }
                Some(fb) if !same_value(fa, fb) => {
                    let nl = Some(lb.line(fb.offset));
                    let c = change(
                        &fa.attr,
                        Some(fa.value.clone()),
                        Some(fb.value.clone()),
                        ol,
                        nl,
                    );
                    push(&mut out, a.section, c);
                }
                Some(_) => {}
            }
        }
        for fb in &b.facts {
            if !af.contains_key(fb.attr.as_str()) {
                let nl = Some(lb.line(fb.offset));
                let c = change(
                    &fb.attr,
                    None,
                    Some(fb.value.clone()),
                    Some(la.line(a.offset)),
                    nl,
                );
                push(&mut out, a.section, c);
            }
        }
    }
    for (name, b) in &new.entities {
        if !old.entities.contains_key(name) && !only(old, &b.parent) {
            push(
                &mut out,
                b.section,
                Change {
                    kind: ChangeKind::Added,
                    entity: name.clone(),
                    attr: None,
                    old: None,
                    new: Some(summary(b)),
                    old_line: None,
                    new_line: Some(lb.line(b.offset)),
                    old_file: None,
                    new_file: None,
                    words: Vec::new(),
                },
            );
        }
    }
    for (section, c) in orders(old, new) {
        push(&mut out, section, c);
    }
    out
}

fn push(out: &mut IndexMap<Section, Vec<Change>>, section: Section, change: Change) {
    out.entry(section).or_default().push(change);
}

/// The members both versions have of each ordered thing (the checks, the
/// inputs, a table's rows, an answer's fields), when they come in another
/// order: the first check that holds decides, the first input at fault
/// names the refusal, `rows(t)` goes in row order, an answer is written in
/// its fields' order.
fn orders(old: &Flat, new: &Flat) -> Vec<(Section, Change)> {
    let mut out = Vec::new();
    let new_orders: std::collections::HashMap<&str, &Order> =
        new.orders.iter().map(|b| (b.entity.as_str(), b)).collect();
    for a in &old.orders {
        let Some(b) = new_orders.get(a.entity.as_str()) else {
            continue;
        };
        // A table may hold 100,000 rows: the other side's names as a set.
        let common = |side: &[String], other: &[String]| -> Vec<String> {
            let other: std::collections::HashSet<&String> = other.iter().collect();
            side.iter().filter(|c| other.contains(c)).cloned().collect()
        };
        let (x, y) = (common(&a.names, &b.names), common(&b.names, &a.names));
        // Each member by its name within the thing: `a, b` for
        // `inputs.a, inputs.b`, `[code=x]` for a table's row.
        let short = |names: &[String]| -> String {
            let within = |n: &'_ String| -> String {
                let rest = n.strip_prefix(a.entity.as_str()).unwrap_or(n);
                rest.strip_prefix('.').unwrap_or(rest).to_string()
            };
            names.iter().map(within).collect::<Vec<_>>().join(", ")
        };
        if x != y {
            let change = Change {
                kind: ChangeKind::Changed,
                entity: a.entity.clone(),
                attr: Some("order".into()),
                old: Some(short(&x)),
                new: Some(short(&y)),
                old_line: None,
                new_line: None,
                old_file: None,
                new_file: None,
                words: Vec::new(),
            };
            out.push((a.section, change));
        }
    }
    out
}
