//! Where a name the verifier reads comes from: the trace read so far (the
//! inputs, the steps it recomputed, each item of a group) and the rulebook
//! (parameters, tables, groups), and the rows a table has for this case,
//! the rulebook's or those the case supplies.

use std::sync::Arc;

use serde_json::Value as Json;

use crate::model::{InputKind, Row, TableKind};
use crate::value::Value;

use super::calc::{record, Resolved, World};
use super::decode::decode;
use super::walk::State;

impl World for State<'_> {
    fn resolve(&self, name: &str, item: Option<(usize, usize)>) -> Resolved {
        let rb = self.rb;
        if let Some((g, i)) = item {
            if let Some(group) = rb.groups.get(g) {
                if *group.item == *name {
                    return match self.overs.get(&g).and_then(|l| l.get(i)) {
                        Some(v) => Resolved::Value(v.clone()),
                        None => Resolved::Unknown(format!("no item {i} of {}", group.name)),
                    };
                }
                if group.steps.iter().any(|s| *s.name == *name) {
                    return match self.items.get(&(g, i)).and_then(|m| m.get(name)) {
                        Some(v) => Resolved::Value(v.clone()),
                        None => Resolved::Unknown(format!(
                            "reads {name} of {}[{i}] before the trace computed it",
                            group.name
                        )),
                    };
                }
            }
        }
        if rb.steps.iter().any(|s| *s.name == *name) {
            return match self.steps.get(name) {
                Some(v) => Resolved::Value(v.clone()),
                None => Resolved::Unknown(format!(
                    "reads the step {name} before the trace computed it"
                )),
            };
        }
        if let Some((v, _)) = self.inputs.get(name) {
            return Resolved::Value(v.clone());
        }
        if let Some(p) = rb.params.iter().position(|p| *p.name == *name) {
            return Resolved::Param(p);
        }
        if let Some(g) = rb.groups.iter().position(|g| *g.name == *name) {
            return Resolved::Group(g);
        }
        if let Some(t) = rb.tables.iter().position(|t| *t.name == *name) {
            return Resolved::Table(t);
        }
        if let Some((_, v)) = self.decided.iter().find(|(n, _)| *n == name) {
            return Resolved::Value(v.clone());
        }
        Resolved::Unknown(format!(
            "nothing named {name} is in the trace or the rulebook"
        ))
    }

    fn rows(&self, t: usize) -> Result<(Arc<[Row]>, String), String> {
        let rb = self.rb;
        let supplied = rb.inputs.iter().find(|i| {
            matches!(&i.kind, InputKind::Table { table } if table.index() == t)
                && self.inputs.get(&i.name).is_some_and(|(_, g)| g == "value")
        });
        let Some(input) = supplied else {
            let rows = self.rows.get(t).cloned().ok_or("no such table")?;
            return Ok((rows, "rulebook".into()));
        };
        let source = format!("case:{}", input.name);
        let Some(given) = self.case.and_then(|c| c.get(&*input.name)) else {
            return Err(format!(
                "the rows of {source} are not in the trace: give the case to check them"
            ));
        };
        let table = rb.tables.get(t).ok_or("no such table")?;
        let object = given
            .as_object()
            .ok_or("the case's rows are not an object")?;
        let cells = |row: &serde_json::Map<String, Json>, key: Option<(usize, &str)>| {
            let mut fields = Vec::with_capacity(table.columns.len());
            for (c, col) in table.columns.iter().enumerate() {
                let v = match key {
                    Some((k, text)) if k == c => decode(&Json::String(text.into()), col),
                    _ => match row.get(&*col.name) {
                        Some(j) => decode(j, col),
                        None => Some(col.default.clone().unwrap_or(Value::Absent)),
                    },
                };
                fields.push(
                    v.ok_or_else(|| format!("the case's cell {} is not of its kind", col.name))?,
                );
            }
            Ok::<_, String>(fields)
        };
        let mut rows = Vec::new();
        match &table.kind {
            TableKind::Keyed { keys } if keys.len() == 1 => {
                for (k, row) in object {
                    let row = row.as_object().ok_or("a case's row is not an object")?;
                    let key_column = keys.first().copied().unwrap_or_default();
                    let fields = cells(row, Some((key_column, k)))?;
                    rows.push(Row {
                        name: None,
                        period: None,
                        record: match record(None, table.names.clone(), fields) {
                            Value::Record(r) => r,
                            _ => return Err("not a record".into()),
                        },
                    });
                }
            }
            _ => {
                for declared in table.rows.iter() {
                    let name = declared.name.as_deref().unwrap_or_default();
                    let row = object
                        .get(name)
                        .and_then(Json::as_object)
                        .ok_or_else(|| format!("the case gives no row {name}"))?;
                    let fields = cells(row, None)?;
                    rows.push(Row {
                        name: declared.name.clone(),
                        period: declared.period,
                        record: match record(declared.name.clone(), table.names.clone(), fields) {
                            Value::Record(r) => r,
                            _ => return Err("not a record".into()),
                        },
                    });
                }
            }
        }
        Ok((Arc::from(rows), source))
    }

    fn group_value(&self, g: usize) -> Result<Value, String> {
        let group = self.rb.groups.get(g).ok_or("no such group")?;
        let n = self
            .overs
            .get(&g)
            .map(|l| l.len())
            .ok_or_else(|| format!("reads the group {} before the trace ran it", group.name))?;
        let mut items = Vec::with_capacity(n);
        for i in 0..n {
            let memo = self.items.get(&(g, i));
            let fields = group
                .names
                .iter()
                .map(|s| {
                    memo.and_then(|m| m.get(s))
                        .cloned()
                        .unwrap_or(Value::Absent)
                })
                .collect();
            items.push(record(None, group.names.clone(), fields));
        }
        Ok(Value::List(Arc::from(items)))
    }
}
