//! The report tables (`trace.reports`) recomputed: for each of the
//! rulebook's reports, the rows its `when` shows, each cell its column's
//! formula in the item's scope written in the column's format (empty when
//! the value is missing), and each total at the top.
//!
//! A report is what a reader of a payslip looks at first, so a cell that
//! does not follow from the steps is named like any other value: `report
//! lines[3].Base` (the item's index, the column's key), `report lines
//! total Net à payer`.

use serde_json::Value as Json;

use crate::model::{Format, Output, OutputValue, Report};
use crate::value::{plain, Value};

use super::calc::Calc;
use super::decode::{encode, fixed_text, same};
use super::walk::State;

impl State<'_> {
    /// Every report table recorded against the rulebook's reports.
    pub fn reports(&mut self, recorded: &[Json]) {
        let rb = self.rb;
        if recorded.len() != rb.reports.len() {
            self.find(
                "reports",
                "tables",
                recorded.len().to_string(),
                rb.reports.len().to_string(),
            );
        }
        for (report, table) in rb.reports.iter().zip(recorded) {
            self.report(report, table);
        }
    }

    fn report(&mut self, report: &Report, table: &Json) {
        let rb = self.rb;
        let at = format!("report {}", report.name);
        let g = report.group;
        // What a reader reads the cells by: the title, the columns' titles
        // and the totals' labels, as the rulebook writes them.
        let title = table.get("title").and_then(Json::as_str);
        if title != report.title.as_deref() {
            let recorded = title.map_or_else(|| "none".to_string(), str::to_string);
            let follows = report.title.clone().unwrap_or_else(|| "none".to_string());
            self.find(at.clone(), "title", recorded, follows);
        }
        let header: Vec<&str> = (table.get("header").and_then(Json::as_array))
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter_map(Json::as_str)
            .collect();
        let columns: Vec<&str> = report.columns.iter().map(|c| &*c.key).collect();
        if header != columns {
            self.find(
                at.clone(),
                "header",
                header.join(" | "),
                columns.join(" | "),
            );
        }
        let rows = table
            .get("rows")
            .and_then(Json::as_array)
            .map_or(&[][..], Vec::as_slice);
        let n = match self.over(g) {
            Ok(items) => items.len(),
            Err(e) => return self.find(at, "cannot recompute", e, String::new()),
        };
        let mut shown = 0;
        for i in 0..n {
            let item_at = format!("{at}[{i}]");
            if let Some(w) = &report.when {
                match Calc::new(rb, self, Some((g, i)), &[]).condition(&w.text) {
                    Ok(true) => {}
                    Ok(false) => continue,
                    Err(e) => {
                        self.find(item_at, "cannot recompute", e, String::new());
                        continue;
                    }
                }
            }
            let row = rows.get(shown).and_then(Json::as_array);
            shown += 1;
            let Some(row) = row else {
                continue;
            };
            if row.len() != report.columns.len() {
                let (recorded, follows) = (row.len(), report.columns.len());
                self.find(&item_at, "cells", recorded.to_string(), follows.to_string());
            }
            for (c, column) in report.columns.iter().enumerate() {
                let cell_at = format!("{item_at}.{}", column.key);
                self.cell(&cell_at, row.get(c), column, Some((g, i)));
            }
        }
        if shown != rows.len() {
            self.find(
                at.clone(),
                "rows",
                rows.len().to_string(),
                shown.to_string(),
            );
        }
        let totals = table
            .get("totals")
            .and_then(Json::as_array)
            .map_or(&[][..], Vec::as_slice);
        if totals.len() != report.totals.len() {
            let (recorded, follows) = (totals.len(), report.totals.len());
            self.find(
                at.clone(),
                "totals",
                recorded.to_string(),
                follows.to_string(),
            );
        }
        for (k, total) in report.totals.iter().enumerate() {
            let total_at = format!("{at} total {}", total.key);
            let label = totals.get(k).and_then(|t| t.get(0)).and_then(Json::as_str);
            if label.is_some_and(|l| l != &*total.key) {
                let recorded = label.unwrap_or_default().to_string();
                self.find(&total_at, "label", recorded, total.key.to_string());
            }
            let recorded = totals.get(k).and_then(|t| t.get(1));
            self.cell(&total_at, recorded, total, None);
        }
    }

    /// One cell: the column's value in its format, `""` when missing.
    fn cell(
        &mut self,
        at: &str,
        recorded: Option<&Json>,
        column: &Output,
        item: Option<(usize, usize)>,
    ) {
        // A nested `each` or the decision's clauses in a cell: the clauses are
        // checked with the outcome, and no bundled report nests a list.
        let OutputValue::Value { expr, format } = &column.value else {
            return;
        };
        if *format == Format::Clauses {
            return;
        }
        let cell = recorded.and_then(Json::as_str);
        let v = match Calc::new(self.rb, self, item, &[]).formula(&expr.text) {
            Ok(v) => v,
            Err(e) => return self.find(at, "cannot recompute", e, String::new()),
        };
        let follows = if v.is_missing() {
            String::new()
        } else {
            plain(&v)
        };
        let ok = cell.is_some_and(|cell| follows_as_cell(cell, &v, *format));
        if !ok {
            let recorded = recorded.map_or_else(|| "none".to_string(), Json::to_string);
            self.find(at, "value", recorded, follows);
        }
    }
}

/// Whether a cell's text is `v` written in `format`: a fixed number of
/// places exactly, numbers by value, anything else as its text.
fn follows_as_cell(cell: &str, v: &Value, format: Format) -> bool {
    if v.is_missing() {
        return cell.is_empty();
    }
    let text = Json::String(cell.to_string());
    match (format, v) {
        // As the engine writes it: `3477.91`, never `+3477.91`, `03477.91`
        // or `-0.00`, which are the same value.
        (Format::Fixed(p), Value::Number(_)) => {
            fixed_text(cell, p as usize) && same(&text, &encode(v))
        }
        // A decimal as held, scale kept (`6.90` is not `6.900`).
        (Format::Decimal, Value::Number(_)) => cell == plain(v),
        _ => cell == plain(v) || same(&text, &encode(v)),
    }
}
