//! `ref` and `key_ref` checks: a text of a case must name something the
//! case or the rulebook holds.
//!
//! A reference is checked against what is in force when it is read: the
//! inputs validated before it (a map's keys, a list's records) and the rows
//! of a table, the case's own when it supplies them. Inputs are validated in
//! declaration order, so a reference can only point back.
//!
//! Invariant: only reads the facts validated so far; never changes them.

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
}

impl Refs<'_> {
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
                let wanted = Value::Text(key.clone());
                let found = match self.facts.values.get(i.index()) {
                    Some(Value::List(items)) => items.iter().any(|it| match it {
                        Value::Record(r) => r.fields.get(f) == Some(&wanted),
                        _ => false,
                    }),
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
                let wanted = Value::Text(key.clone());
                if rows
                    .iter()
                    .any(|r| r.record.fields.get(col) == Some(&wanted))
                {
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
