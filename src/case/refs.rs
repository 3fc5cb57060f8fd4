//! `ref` and `key_ref` checks: a text of a case must name something the
//! case or the rulebook holds.
//!
//! A reference is checked against what is in force when it is read: the
//! inputs validated before it (a map's keys, a list's records) and the rows
//! of a table, the case's own when it supplies them. Inputs are validated in
//! declaration order, so a reference can only point back.
//!
//! Invariant: only reads the facts validated so far; never changes them.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::messages::fail;
use crate::facts::{CaseError, Facts};
use crate::model::{Input, InputKind, RefTarget, Rulebook, TableKind};
use crate::value::Value;

/// What `ref` fields are checked against: the inputs validated so far and the tables in force.
pub(crate) struct Refs<'a> {
    /// The rulebook.
    pub(super) rb: &'a Rulebook,
    /// The facts validated so far.
    pub(super) facts: &'a Facts,
    /// The case's budget spent so far by validation's formulas.
    pub(super) spent: &'a std::cell::Cell<u64>,
    /// The texts of a list's field or a table's key, for a target longer
    /// than [`SCANNED`], made at its first reference: each of 100,000
    /// items referring into a list of 100,000 records scanned it, and the
    /// case took an hour (hostile probe).
    pub(super) index: RefCell<HashMap<RefTarget, HashSet<Arc<str>>>>,
}

/// Most values a reference scans before it indexes them.
const SCANNED: usize = 16;

/// A text value's text.
fn text_of(v: Option<&Value>) -> Option<&Arc<str>> {
    match v {
        Some(Value::Text(t)) => Some(t),
        _ => None,
    }
}

impl Refs<'_> {
    /// Whether `key` is among `values` (the texts of target's field or key
    /// column): scanned when they are few, else looked up in their index.
    fn holds<'v>(
        &self,
        target: RefTarget,
        key: &str,
        values: impl ExactSizeIterator<Item = Option<&'v Value>>,
    ) -> bool {
        if values.len() <= SCANNED {
            return values.filter_map(text_of).any(|t| **t == *key);
        }
        let mut index = self.index.borrow_mut();
        let texts = index
            .entry(target)
            .or_insert_with(|| values.filter_map(text_of).cloned().collect());
        texts.contains(key)
    }

    pub(super) fn check(
        &self,
        input: &Input,
        target: RefTarget,
        key: &Arc<str>,
        path: &str,
    ) -> Result<(), CaseError> {
        match target {
            RefTarget::Input(i) => {
                let name = &self.rb.inputs[i.index()].name;
                match self.facts.values.get(i.index()) {
                    Some(Value::Map(entries)) if crate::value::entry(entries, key).is_some() => {
                        Ok(())
                    }
                    _ => fail(input, path, format!("{key:?} is not a key of {name}")),
                }
            }
            RefTarget::ListField(i, f) => {
                let input_decl = &self.rb.inputs[i.index()];
                let found = match self.facts.values.get(i.index()) {
                    Some(Value::List(items)) => {
                        let fields = items.iter().map(|it| match it {
                            Value::Record(r) => r.fields.get(f),
                            _ => None,
                        });
                        self.holds(target, key, fields)
                    }
                    _ => false,
                };
                if found {
                    return Ok(());
                }
                let field = match &input_decl.kind {
                    InputKind::List { item, .. } => match &item.kind {
                        InputKind::Record { fields, .. } => fields
                            .get(f)
                            .map(|x| x.name.to_string())
                            .unwrap_or_default(),
                        _ => String::new(),
                    },
                    _ => String::new(),
                };
                fail(
                    input,
                    path,
                    format!("{key:?} is not the {field} of any of {}", input_decl.name),
                )
            }
            RefTarget::Table(t) => {
                let table = &self.rb.tables[t.index()];
                let rows = self
                    .facts
                    .tables
                    .get(t.index())
                    .and_then(Option::as_ref)
                    .map_or(&table.rows[..], |r| &r[..]);
                let TableKind::Keyed { keys } = &table.kind else {
                    return Ok(());
                };
                let Some(&col) = keys.first() else {
                    return Ok(());
                };
                let keys = rows.iter().map(|r| r.record.fields.get(col));
                if self.holds(target, key, keys) {
                    return Ok(());
                }
                let source = match self
                    .rb
                    .inputs
                    .iter()
                    .find(|i| matches!(i.kind, InputKind::Table { table } if table == t))
                {
                    Some(i)
                        if self
                            .facts
                            .tables
                            .get(t.index())
                            .is_some_and(Option::is_some) =>
                    {
                        format!(" (as supplied at {})", i.name)
                    }
                    _ => String::new(),
                };
                fail(
                    input,
                    path,
                    format!("{key:?} is not in table {}{source}", table.name),
                )
            }
        }
    }
}
