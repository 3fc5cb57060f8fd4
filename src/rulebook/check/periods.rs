//! Periods: the `from`/`to` of a period table's row or a dated parameter.
//!
//! A period is months (`YYYY-MM`) or dates (`YYYY-MM-DD`), both read with the
//! one calendar of `value`. Tables and parameters share these; overlaps are
//! found by sorting, so a table of a million rows is checked in n log n.
//!
//! Invariant: no section here, only what the table and parameter sections
//! share; no file imports this one but `mod.rs` and those sections.

use super::Checker;
use crate::model::Period;
use crate::span::Span;
use crate::value::{parse_date, Month};

impl Checker<'_> {
    /// A period from `from` and `to`: months or dates of one kind, `from` ≤ `to`.
    pub(super) fn period(
        &mut self,
        from: Option<&toml::Value>,
        to: Option<&toml::Value>,
        span: Span,
    ) -> Option<Period> {
        // A TOML date (`from = 2026-01-01`) reads as its text.
        let text = |v: &toml::Value| match v {
            toml::Value::String(s) => Some(s.clone()),
            toml::Value::Datetime(d) => Some(d.to_string()),
            _ => None,
        };
        let from = from.and_then(text);
        let to = to.and_then(text);
        let (from, to) = (from.as_deref(), to.as_deref());
        let Some(from) = from else {
            self.problem(
                "check::bad_table",
                span,
                "a period row needs `from` (YYYY-MM or YYYY-MM-DD)",
                "this row",
            );
            return None;
        };
        let period = if let Some(f) = Month::parse(from) {
            match to.map(Month::parse) {
                None => Some(Period::Months(f, None)),
                Some(Some(t)) if t >= f => Some(Period::Months(f, Some(t))),
                _ => None,
            }
        } else if let Some(f) = parse_date(from) {
            match to.map(parse_date) {
                None => Some(Period::Dates(f, None)),
                Some(Some(t)) if t >= f => Some(Period::Dates(f, Some(t))),
                _ => None,
            }
        } else {
            None
        };
        if period.is_none() {
            self.problem("check::bad_table", span, "`from` and `to` must be months (YYYY-MM) or dates (YYYY-MM-DD) of the same kind, `from` ≤ `to`", "this row");
        }
        period
    }
}

/// The rows of `periods` (row, period) whose period overlaps another of its
/// kind, in n log n: each kind sorted by start, a period starting on or
/// before the furthest end so far overlaps the row that reaches it. Each such
/// row comes once, as a pair (the smaller row first), the pairs ordered by
/// their larger row. Rows of different kinds are never paired here.
pub(super) fn overlapping_periods(periods: &[(usize, Period)]) -> Vec<(usize, usize)> {
    fn sweep<T: Ord + Copy>(mut spans: Vec<(T, Option<T>, usize)>, out: &mut Vec<(usize, usize)>) {
        spans.sort_by(|a, b| a.0.cmp(&b.0).then(a.2.cmp(&b.2)));
        // The furthest end so far (`None` = open) and the row it belongs to.
        let mut reach: Option<(Option<T>, usize)> = None;
        for (from, to, row) in spans {
            let further = match reach {
                None => true,
                Some((end, other)) => {
                    if end.is_none_or(|end| from <= end) {
                        out.push((other.min(row), other.max(row)));
                    }
                    match (end, to) {
                        (None, _) => false,
                        (Some(_), None) => true,
                        (Some(end), Some(to)) => to > end,
                    }
                }
            };
            if further {
                reach = Some((to, row));
            }
        }
    }
    let (mut months, mut dates) = (Vec::new(), Vec::new());
    for (row, period) in periods {
        match *period {
            Period::Months(from, to) => months.push((from, to, *row)),
            Period::Dates(from, to) => dates.push((from, to, *row)),
        }
    }
    let mut out = Vec::new();
    sweep(months, &mut out);
    sweep(dates, &mut out);
    out.sort_by_key(|(a, b)| (*b, *a));
    out
}
