//! Tables: periods, keyed rows, scales and ranges, with their rows.
//!
//! Tables are checked first, because an input may replace a table's rows.
//! A table's columns are declared as inputs are ([`Checker::input`]), and
//! each cell is validated with the code that validates a case's value, so a
//! row written in the rulebook and a row a case supplies obey the same rules.
//! Then the rows as a whole: period rows are named once and do not overlap,
//! keys are unique, a scale's bands rise and its last band is open.
//!
//! Invariant: a table that cannot be built still takes its place, empty, so
//! the indices of the tables after it hold.

use indexmap::IndexMap;
use rust_decimal::Decimal;
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::mem::discriminant;
use std::sync::Arc;

use super::periods::overlapping_periods;
use super::{sp, Checker, InputCx};
use crate::case::{toml::json_from_toml as toml_to_json, validate_value};
use crate::model::*;
use crate::rulebook::raw::*;
use crate::span::Span;
use crate::value::{Record, Value};

impl Checker<'_> {
    /// Builds every table, in order. A table that cannot be built (an unknown
    /// kind) still takes its place, empty, so the indices of the others hold.
    pub(super) fn tables(
        &mut self,
        raw: &IndexMap<String, RawTable>,
        clause_ids: &[Arc<str>],
        limits: &Limits,
    ) -> Vec<Table> {
        let mut built = Vec::new();
        for (name, t) in raw {
            if let Some(table) = self.table(name, t, clause_ids, limits) {
                built.push(table);
            } else {
                built.push(Table {
                    name: Arc::from(name.as_str()),
                    label: None,
                    clause: None,
                    kind: TableKind::Periods,
                    columns: Vec::new(),
                    shape: self.shape(format!("table {name}"), Vec::new()),
                    names: Arc::from([]),
                    rows: Vec::new(),
                });
            }
        }
        built
    }

    /// One table: its columns, its kind, its rows; `None` for an unknown kind.
    fn table(
        &mut self,
        name: &str,
        raw: &RawTable,
        clause_ids: &[Arc<str>],
        limits: &Limits,
    ) -> Option<Table> {
        let clause = raw.clause.as_ref().map(|c| self.clause_ref(c, clause_ids));
        let columns = self.table_columns(raw, clause_ids, limits);
        let kind = self.table_kind(raw, &columns)?;
        if !raw.keys.is_empty() && !matches!(kind, TableKind::Keyed { .. }) {
            self.problem(
                "check::bad_table",
                sp(raw),
                "`keys` belongs to keyed tables",
                "here",
            );
        }
        let shape = self.shape(
            format!("row of table {name}"),
            columns
                .iter()
                .map(|c| (c.name.clone(), c.kind.value_type()))
                .collect(),
        );
        let names: Arc<[Arc<str>]> = columns.iter().map(|c| c.name.clone()).collect();
        let rows = self.table_rows(name, raw, &kind, &columns, &names);
        let row_spans: Vec<Span> = raw.rows.iter().map(sp).collect();
        self.check_rows(name, &kind, &rows, sp(raw), &row_spans);
        Some(Table {
            name: Arc::from(name),
            label: raw.label.clone(),
            clause,
            kind,
            columns,
            shape,
            names,
            rows,
        })
    }

    /// The columns: a scale's fixed `upto` and `rate`, or those declared
    /// (after the implicit `upto` of a ranges table). Cells are required
    /// unless their column is `nullable`.
    fn table_columns(
        &mut self,
        raw: &RawTable,
        clause_ids: &[Arc<str>],
        limits: &Limits,
    ) -> Vec<Input> {
        let kind_name = raw.kind.as_ref().map_or("", |k| k.get_ref().as_str());
        let mut columns: Vec<Input> = Vec::new();
        if kind_name == "scale" {
            if !raw.columns.is_empty() {
                self.problem(
                    "check::bad_table",
                    sp(raw),
                    "a scale has the fixed columns `upto` and `rate`",
                    "remove `columns`",
                );
            }
            columns.push(implicit_column("upto", true, false));
            columns.push(implicit_column("rate", false, true));
            return columns;
        }
        if kind_name == "ranges" {
            // `upto` bounds each range from above, inclusive; the last range is open.
            columns.push(implicit_column("upto", false, false));
        }
        for (cname, c) in &raw.columns {
            self.check_ident(cname, sp(c));
            let no_tables = HashMap::new();
            let no_maps = HashMap::new();
            let no_lists = HashMap::new();
            let cx = InputCx {
                clause_ids,
                tables: &no_tables,
                built_tables: &[],
                limits,
                maps: &no_maps,
                lists: &no_lists,
            };
            let input = self.input(cname, c, &cx, 1);
            if c.default.is_some()
                || c.refers.is_some()
                || c.unique
                || c.key_ref.is_some()
                || !c.reject.is_empty()
                || c.invalid.is_some()
            {
                self.problem(
                    "check::bad_table",
                    sp(c),
                    "table columns take no `default`, `ref` or `unique`",
                    "here",
                );
            }
            if matches!(
                input.kind,
                InputKind::Record { .. } | InputKind::List { .. } | InputKind::Table { .. }
            ) {
                self.problem(
                    "check::bad_table",
                    sp(c),
                    "table cells are numbers, texts, booleans, dates, months or maps",
                    "here",
                );
            }
            columns.push(Input {
                required: !input.nullable,
                ..input
            });
        }
        columns
    }

    /// The table's kind; a keyed table's `keys` as column positions.
    fn table_kind(&mut self, raw: &RawTable, columns: &[Input]) -> Option<TableKind> {
        // A table without a kind is reported with the merged chain (`extends`).
        let kind = raw.kind.as_ref()?;
        Some(match kind.get_ref().as_str() {
            "periods" => TableKind::Periods,
            "scale" => TableKind::Scale,
            "ranges" => TableKind::Ranges,
            "keyed" => {
                let mut keys = Vec::new();
                for k in &raw.keys {
                    match columns.iter().position(|c| &*c.name == k) {
                        Some(i) => keys.push(i),
                        None => self.problem(
                            "check::bad_table",
                            sp(raw),
                            format!("key `{k}` is not a column"),
                            "in this table",
                        ),
                    }
                }
                if keys.is_empty() {
                    self.problem(
                        "check::bad_table",
                        sp(raw),
                        "a keyed table needs `keys`",
                        "in this table",
                    );
                }
                TableKind::Keyed { keys }
            }
            other => {
                self.problem(
                    "check::bad_table",
                    sp(kind),
                    format!(
                        "unknown table kind `{other}`; kinds are periods, keyed, scale, ranges"
                    ),
                    "here",
                );
                return None;
            }
        })
    }

    /// Each row on its own: a period row's name and period, no unknown
    /// column, each cell valid for its column, `upto` only omitted last.
    fn table_rows(
        &mut self,
        name: &str,
        raw: &RawTable,
        kind: &TableKind,
        columns: &[Input],
        names: &Arc<[Arc<str>]>,
    ) -> Vec<Row> {
        let mut rows: Vec<Row> = Vec::new();
        for (ri, row) in raw.rows.iter().enumerate() {
            let cells = row.get_ref();
            let span = sp(row);
            let mut reserved: Vec<&str> = Vec::new();
            let (mut row_name, mut period) = (None, None);
            if *kind == TableKind::Periods {
                reserved.extend(["name", "from", "to"]);
                row_name = match cells.get("name").and_then(|v| v.as_str()) {
                    Some(n) => Some(Arc::from(n)),
                    None => {
                        self.problem(
                            "check::bad_table",
                            span,
                            "a period row needs a `name`",
                            "this row",
                        );
                        None
                    }
                };
                period = self.period(cells.get("from"), cells.get("to"), span);
            }
            for key in cells.keys() {
                if !reserved.contains(&key.as_str()) && !columns.iter().any(|c| &*c.name == key) {
                    self.problem(
                        "check::bad_table",
                        span,
                        format!("unknown column `{key}` in row {}", ri + 1),
                        "this row",
                    );
                }
            }
            let values = self.row_cells(name, ri, cells, columns, span);
            if matches!(kind, TableKind::Scale | TableKind::Ranges)
                && ri + 1 < raw.rows.len()
                && values.first().is_some_and(Value::is_missing)
            {
                self.problem(
                    "check::bad_table",
                    span,
                    "only the last row of a scale or ranges table may omit `upto`",
                    "this row",
                );
            }
            let record = Record {
                name: row_name.clone(),
                names: names.clone(),
                fields: values.into(),
            };
            rows.push(Row {
                name: row_name,
                period,
                record: Arc::new(record),
            });
        }
        rows
    }

    /// A row's cells, in column order, each validated as a case's value; a
    /// bad cell is reported and left absent.
    fn row_cells(
        &mut self,
        name: &str,
        ri: usize,
        cells: &IndexMap<String, toml::Value>,
        columns: &[Input],
        span: Span,
    ) -> Vec<Value> {
        let mut values = Vec::new();
        for col in columns {
            let path = format!("{name}.rows[{ri}].{}", col.name);
            let cell = cells.get(&*col.name).map(toml_to_json);
            let cell = match cell {
                Some(Err(message)) => {
                    self.problem(
                        "check::bad_value",
                        span,
                        format!("{path}: {message}"),
                        "this row",
                    );
                    values.push(Value::Absent);
                    continue;
                }
                Some(Ok(v)) => Some(v),
                None => None,
            };
            match validate_value(col, cell.as_ref(), &path, None) {
                Ok(v) => values.push(v),
                Err(e) => {
                    self.problem(
                        "check::bad_value",
                        span,
                        format!("{}: {}", e.path, e.message),
                        "this row",
                    );
                    values.push(Value::Absent);
                }
            }
        }
        values
    }

    /// The rows together, by kind of table. A problem of one row is
    /// reported at that row (`rows[j]`, in the file that wrote it when an
    /// extending version did), one of the whole table at `span`.
    fn check_rows(
        &mut self,
        name: &str,
        kind: &TableKind,
        rows: &[Row],
        span: Span,
        row_spans: &[Span],
    ) {
        let at = |j: usize| row_spans.get(j).copied().unwrap_or(span);
        match kind {
            TableKind::Periods => self.check_period_rows(name, rows, at),
            TableKind::Scale | TableKind::Ranges => self.check_bands(name, kind, rows, span, at),
            TableKind::Keyed { keys } => self.check_keys(name, keys, rows, at),
        }
    }

    /// Period rows: no two with one name, one kind of period (months or
    /// dates) for all, no two periods overlapping. Each row at fault is
    /// reported once per fault, in row order: against the first row with its
    /// name, if its kind is not the first period's, and with the row its
    /// period overlaps ([`overlapping_periods`]). Sorting keeps this n log n
    /// (every pair was compared before: 30,000 rows took seconds), and the
    /// problems at most three per row.
    fn check_period_rows(&mut self, name: &str, rows: &[Row], at: impl Fn(usize) -> Span) {
        // (row, message), in the order found; sorted by row at the end.
        let mut found: Vec<(usize, String)> = Vec::new();
        let mut named: HashSet<&str> = HashSet::new();
        for (j, row) in rows.iter().enumerate() {
            if let Some(n) = row.name.as_deref() {
                if !named.insert(n) {
                    found.push((j, format!("table `{name}` has two rows named `{n}`")));
                }
            }
        }
        let first_kind = rows.iter().find_map(|r| r.period.map(|p| discriminant(&p)));
        for (j, row) in rows.iter().enumerate() {
            if row
                .period
                .is_some_and(|p| Some(discriminant(&p)) != first_kind)
            {
                let message = format!(
                    "table `{name}` mixes month and date periods: use one kind for every row"
                );
                found.push((j, message));
            }
        }
        let periods: Vec<(usize, Period)> = rows
            .iter()
            .enumerate()
            .filter_map(|(i, r)| Some((i, r.period?)))
            .collect();
        let row_name = |i: usize| {
            rows.get(i)
                .and_then(|r| r.name.as_deref())
                .unwrap_or("?")
                .to_string()
        };
        for (a, b) in overlapping_periods(&periods) {
            let message = format!(
                "rows `{}` and `{}` of table `{name}` overlap",
                row_name(a),
                row_name(b)
            );
            found.push((b, message));
        }
        found.sort_by_key(|(j, _)| *j);
        for (j, message) in found {
            self.problem("check::bad_table", at(j), message, "this row");
        }
    }

    /// A scale's bands (or a ranges table's rows) rise, the last is open, and
    /// there is at least one.
    fn check_bands(
        &mut self,
        name: &str,
        kind: &TableKind,
        rows: &[Row],
        span: Span,
        at: impl Fn(usize) -> Span,
    ) {
        let mut last: Option<Decimal> = None;
        for (j, row) in rows.iter().enumerate() {
            if let Some(Value::Number(upto)) = row.record.fields.first() {
                if last.is_some_and(|l| *upto <= l) {
                    self.problem(
                        "check::bad_table",
                        at(j),
                        format!("the bands of scale `{name}` must rise"),
                        "this band",
                    );
                }
                last = Some(*upto);
            }
        }
        if rows
            .last()
            .is_some_and(|r| r.record.fields.first().is_some_and(|u| !u.is_missing()))
        {
            let message = if *kind == TableKind::Scale {
                format!("the last band of scale `{name}` must be open (no `upto`), or amounts above it would go untaxed")
            } else {
                format!("the last row of ranges table `{name}` must be open (no `upto`), so every value has a row")
            };
            self.problem("check::bad_table", span, message, "here");
        }
        if rows.is_empty() {
            self.problem(
                "check::bad_table",
                span,
                format!("scale `{name}` has no bands"),
                "here",
            );
        }
    }

    /// A keyed table's rows: no two with the same key. Rows are sorted by
    /// key, so equal keys are neighbours (n log n; every pair was compared
    /// before), and each row whose key an earlier row has is reported once,
    /// in row order: a table of a million equal keys gives one problem a row,
    /// not one a pair.
    fn check_keys(&mut self, name: &str, keys: &[usize], rows: &[Row], at: impl Fn(usize) -> Span) {
        let mut keyed: Vec<(Vec<Option<&Value>>, usize)> = rows
            .iter()
            .enumerate()
            .map(|(i, r)| (keys.iter().map(|k| r.record.fields.get(*k)).collect(), i))
            .collect();
        keyed.sort_by(|(a, i), (b, j)| key_order(a, b).then(i.cmp(j)));
        let mut repeated: Vec<usize> = Vec::new();
        // A run of rows the order cannot tell apart; within it, the rows whose
        // key an earlier row of the run has, by `==` (maps with the same
        // entries in another order are in one run, and equal).
        for run in keyed.chunk_by(|(a, _), (b, _)| key_order(a, b).is_eq()) {
            let mut distinct: Vec<&[Option<&Value>]> = Vec::new();
            for (k, i) in run {
                if distinct.contains(&k.as_slice()) {
                    repeated.push(*i);
                } else {
                    distinct.push(k);
                }
            }
        }
        repeated.sort_unstable();
        for j in repeated {
            self.problem(
                "check::bad_table",
                at(j),
                format!("table `{name}` has two rows with the same key"),
                "this row",
            );
        }
    }
}

/// Keys in the order of their cells, one column after the other.
fn key_order(a: &[Option<&Value>], b: &[Option<&Value>]) -> Ordering {
    a.iter()
        .zip(b)
        .map(|(x, y)| cell_order(*x, *y))
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
}

/// An order of table cells in which equal cells are neighbours: by kind,
/// then by value for numbers, texts, booleans, dates and months. Cells it
/// cannot order (maps) are equal to it, and told apart by `==`.
fn cell_order(a: Option<&Value>, b: Option<&Value>) -> Ordering {
    fn rank(v: Option<&Value>) -> u8 {
        match v {
            None => 0,
            Some(Value::Absent) => 1,
            Some(Value::Null) => 2,
            Some(Value::Number(_)) => 3,
            Some(Value::Fraction(_)) => 4,
            Some(Value::Bool(_)) => 5,
            Some(Value::Text(_)) => 6,
            Some(Value::Date(_)) => 7,
            Some(Value::Month(_)) => 8,
            Some(Value::Record(_)) => 9,
            Some(Value::List(_)) => 10,
            Some(Value::Map(_)) => 11,
        }
    }
    match (a, b) {
        (Some(Value::Number(x)), Some(Value::Number(y))) => x.cmp(y),
        (Some(Value::Bool(x)), Some(Value::Bool(y))) => x.cmp(y),
        (Some(Value::Text(x)), Some(Value::Text(y))) => x.cmp(y),
        (Some(Value::Date(x)), Some(Value::Date(y))) => x.cmp(y),
        (Some(Value::Month(x)), Some(Value::Month(y))) => x.cmp(y),
        _ => rank(a).cmp(&rank(b)),
    }
}

/// A number column a kind of table always has (a scale's `upto` and `rate`,
/// a ranges table's `upto`): at least zero, read as written.
fn implicit_column(name: &str, money: bool, required: bool) -> Input {
    let spec = NumberSpec {
        places: None,
        rescale: None,
        min: Some(Decimal::ZERO),
        max: None,
        numbers: JsonNumbers::Plain,
    };
    Input {
        required,
        ..Input::new(
            name,
            if money {
                InputKind::Money(spec)
            } else {
                InputKind::Decimal(spec)
            },
        )
    }
}
