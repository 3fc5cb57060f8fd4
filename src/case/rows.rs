//! Table rows a case supplies: a period table's declared rows, or a keyed
//! table replaced whole, every cell validated like its column.
//!
//! An input of `type = "table"` lets a case replace the rows of a table for
//! that case only; the rows become part of the facts. Faults cite the table
//! input's clause, since that is what the case author fills in.
//!
//! Invariant: a period table keeps its declared rows (names and periods),
//! and a keyed table has at most the case's list limit of rows.

use std::sync::Arc;

use super::json::{JsonKey, JsonView};
use super::keys;
use super::messages::{clause_note, fail, json_kind};
use super::shape::validate_value;
use super::shape::{count_bounds, PartPaths};
use crate::facts::CaseError;
use crate::model::{Input, InputKind, Row, Table, TableKind};
use crate::value::{Record, Value};

/// Rows a case supplies for a table, every column validated.
///
/// A period table's rows keep their names and periods: the case gives every
/// declared row by name. A keyed table (one key) is replaced whole: each
/// entry of the object is a row, its key the key column.
pub(super) fn validate_rows<'j, J: JsonView<'j>>(
    input: &Input,
    table: &Table,
    raw: J,
    path: &str,
    max_rows: usize,
) -> Result<Arc<[Row]>, CaseError> {
    if !raw.is_object() {
        return fail(
            input,
            path,
            format!("must be an object of rows, found {}", json_kind(raw)),
        );
    }
    let row_object = |row_path: &str, name: &str, v: Option<J>| match v {
        Some(cells) if cells.is_object() => Ok(cells),
        Some(other) if !other.is_null() => fail(
            input,
            row_path,
            format!("must be an object, found {}", json_kind(other)),
        ),
        _ => fail(
            input,
            row_path,
            format!("is missing: the table needs row {name}"),
        ),
    };
    let mut rows = Vec::new();
    let mut row_paths = PartPaths::new(path);
    match &table.kind {
        TableKind::Keyed { keys } => {
            count_bounds(input, path, raw.len(), 0, max_rows)?;
            let key_col = keys.first().copied().unwrap_or(0);
            for (key, entry) in raw.entries() {
                let row_path = row_paths.field(key);
                let cells = row_object(row_path, key, Some(entry))?;
                let values = row_cells(input, table, cells, row_path, Some((key_col, key)))?;
                let record = Record {
                    name: None,
                    names: table.names.clone(),
                    fields: values,
                };
                rows.push(Row {
                    name: Some(Arc::from(key)),
                    period: None,
                    record: Arc::new(record),
                });
            }
            unique_keys(input, &rows, key_col, &mut row_paths)?;
        }
        _ => {
            let declared = || table.rows.iter().filter_map(|r| r.name.as_deref());
            let extra = &input.extra_keys;
            let present = period_rows(input, table, raw, &mut row_paths, &mut rows, row_object)
                .map_err(|fault| keys::unknown_first(fault, extra, raw, declared(), path, "row"))?;
            keys::refuse_unknown(raw, present, declared(), extra, path, "row")?;
        }
    }
    Ok(rows.into())
}

/// No two supplied rows with the same key, by value as a lookup compares
/// them (`"1.0"` and `"1.00"` of a decimal key, which as object keys are
/// two): which of the two a lookup found hung on the order the case wrote
/// them in. A rulebook's own rows are held to the same (`check::bad_table`).
/// Texts, dates and months are equal only as the same text, which an
/// object cannot give twice; numbers are sorted to find equal neighbours.
fn unique_keys(
    input: &Input,
    rows: &[Row],
    key_col: usize,
    row_paths: &mut PartPaths,
) -> Result<(), CaseError> {
    let mut keyed: Vec<(&rust_decimal::Decimal, usize)> = (rows.iter().enumerate())
        .filter_map(|(i, r)| match r.record.fields.get(key_col) {
            Some(Value::Number(n)) => Some((n, i)),
            _ => None,
        })
        .collect();
    keyed.sort_unstable_by(|(a, i), (b, j)| a.cmp(b).then(i.cmp(j)));
    // The later row of the first pair, in the case's order.
    let repeated = keyed
        .windows(2)
        .filter(|w| w[0].0 == w[1].0)
        .map(|w| (w[0].1, w[1].1))
        .min_by_key(|&(_, later)| later);
    match repeated {
        None => Ok(()),
        Some((first, later)) => {
            let name = |i: usize| rows.get(i).and_then(|r| r.name.as_deref()).unwrap_or("?");
            let earlier = name(first);
            fail(
                input,
                row_paths.field(name(later)),
                format!("has the same key as row {earlier:?}: keys are compared by value"),
            )
        }
    }
}

/// A period table's rows, each given by name, into `rows`; how many of the
/// declared rows the object holds.
fn period_rows<'j, J: JsonView<'j>>(
    input: &Input,
    table: &Table,
    raw: J,
    row_paths: &mut PartPaths,
    rows: &mut Vec<Row>,
    row_object: impl Fn(&str, &str, Option<J>) -> Result<J, CaseError>,
) -> Result<usize, CaseError> {
    let mut present = 0;
    for row in &table.rows {
        let name = row.name.as_deref().unwrap_or_default();
        let row_path = row_paths.field(name);
        let given = raw.get(name);
        present += usize::from(given.is_some());
        let cells = row_object(row_path, name, given)?;
        let values = row_cells(input, table, cells, row_path, None)?;
        let record = Record {
            name: row.name.clone(),
            names: table.names.clone(),
            fields: values,
        };
        rows.push(Row {
            name: row.name.clone(),
            period: row.period,
            record: Arc::new(record),
        });
    }
    Ok(present)
}

/// The cells of one supplied row, in column order; a keyed row's key column
/// comes from the object's key (`(column, key)`), not from its cells.
fn row_cells<'j, J: JsonView<'j>>(
    input: &Input,
    table: &Table,
    cells: J,
    row_path: &str,
    key: Option<(usize, &str)>,
) -> Result<Box<[Value]>, CaseError> {
    let mut cell_paths = PartPaths::new(row_path);
    let mut present = 0;
    // A keyed row may repeat its key column among its cells: declared.
    let declared = || table.columns.iter().map(|c| &*c.name);
    let extra = &input.extra_keys;
    let values = table
        .columns
        .iter()
        .enumerate()
        .map(|(c, col)| match key {
            Some((key_col, key)) if c == key_col => {
                // An integer column takes JSON numbers, and an object's key is a text.
                let number = matches!(col.kind, InputKind::Integer { .. });
                cell(input, col, Some(JsonKey { key, number }), row_path)
            }
            _ => {
                let given = cells.get(&col.name);
                present += usize::from(given.is_some());
                cell(input, col, given, cell_paths.field(&col.name))
            }
        })
        .collect::<Result<Box<[Value]>, CaseError>>()
        .map_err(|fault| {
            keys::unknown_first(fault, extra, cells, declared(), row_path, "column")
        })?;
    keys::refuse_unknown(cells, present, declared(), extra, row_path, "column")?;
    Ok(values)
}

/// One cell of a supplied row: required, typed like the column, citing the table input's clause.
fn cell<'j, J: JsonView<'j>>(
    input: &Input,
    col: &Input,
    raw: Option<J>,
    path: &str,
) -> Result<Value, CaseError> {
    let cite = |e: CaseError| CaseError {
        path: e.path,
        message: format!("{}{}", e.message, clause_note(input)),
    };
    match raw {
        Some(v) if !v.is_null() => validate_value(col, Some(v), path, None).map_err(cite),
        _ if col.nullable => Ok(Value::Absent),
        _ => fail(
            input,
            path,
            format!("is missing: every row needs column {}", col.name),
        ),
    }
}
