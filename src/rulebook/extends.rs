//! `extends`: one rulebook version written as changes to another.
//!
//! A new tax year changes a few parameters, rows and clause texts of the
//! last one; copying the whole file means every formula fix must be made in
//! every copy. A version that names the one it extends (`[rulebook] extends`)
//! holds only what differs, and the loader merges the chain into one
//! effective rulebook before checking it as usual.
//!
//! The merge is by name and whole items, so that what a version says is
//! read exactly as written: an item of the extending file replaces the
//! extended file's item of the same name in place (keeping its position,
//! which orders inputs and answers), a new name is added at the end, and
//! `remove = ["section.name", …]` leaves an item out. A per-item group is
//! merged step by step (its `over`, `item` and `label` replaced when
//! given); a table written without `kind` is merged row by row (each row
//! replaces the row of the same key, period name or band limit, in place);
//! and a non-empty `[[checks]]` list replaces the whole list, as checks are
//! ordered. Spans are kept, so a problem in the effective
//! rulebook points into the file that wrote the item.

use indexmap::IndexMap;
use rust_decimal::Decimal;
use std::collections::HashMap;
use std::str::FromStr;

use super::raw::{RawRulebook, RawTable};
use crate::diag::Problem;
use crate::span::Span;

/// Most files in one chain (the named file and the versions it extends).
pub const MAX_EXTENDS_DEPTH: usize = 8;

/// `base` with `child`'s removals, then its items, applied; a removal that
/// names nothing is a problem located at its entry.
pub fn merge(
    mut base: RawRulebook,
    child: RawRulebook,
    problems: &mut Vec<Problem>,
) -> RawRulebook {
    for entry in &child.rulebook.remove {
        if !remove(&mut base, entry.get_ref()) {
            let message = format!(
                "`{}` names no item of the extended version",
                entry.get_ref()
            );
            problems.push(
                Problem::new("load::remove_unknown", message)
                    .at(Span::from(entry.span()), "here")
                    .help("write `section.name` (e.g. `parameters.rate`) or `per_item.group.steps.name`"),
            );
        }
    }
    let RawRulebook {
        rulebook,
        case,
        clauses,
        inputs,
        parameters,
        tables,
        steps,
        per_item,
        checks,
        decisions,
        limits,
        ablations,
        reports,
    } = child;
    base.rulebook = rulebook;
    base.case.extra_keys = case.extra_keys.or(base.case.extra_keys.take());
    overlay(&mut base.clauses, clauses);
    overlay(&mut base.inputs, inputs);
    overlay(&mut base.parameters, parameters);
    for (name, table) in tables {
        match base.tables.get_mut(&name) {
            Some(old) if table.kind.is_none() => patch_table(&name, old, table, problems),
            _ => {
                base.tables.insert(name, table);
            }
        }
    }
    overlay(&mut base.steps, steps);
    for (name, group) in per_item {
        match base.per_item.get_mut(&name) {
            Some(old) => {
                old.label = group.label.or(old.label.take());
                old.over = group.over.or(old.over.take());
                old.item = group.item.or(old.item.take());
                overlay(&mut old.steps, group.steps);
            }
            None => {
                base.per_item.insert(name, group);
            }
        }
    }
    if !checks.is_empty() {
        base.checks = checks;
    }
    overlay(&mut base.decisions, decisions);
    base.limits.max_case_bytes = limits.max_case_bytes.or(base.limits.max_case_bytes);
    base.limits.max_list_items = limits.max_list_items.or(base.limits.max_list_items);
    base.limits.max_eval_steps = limits.max_eval_steps.or(base.limits.max_eval_steps);
    overlay(&mut base.ablations, ablations);
    overlay(&mut base.reports, reports);
    base
}

/// Each of `new`'s items replaces the item of that name in place, or is added last.
fn overlay<T>(old: &mut IndexMap<String, T>, new: IndexMap<String, T>) {
    for (name, item) in new {
        old.insert(name, item);
    }
}

/// A table written without `kind` changes the extended table: its label,
/// clause, keys and columns when given, and each row replaces the row of
/// the same identity in place, or is added. The identity is what `check`
/// already holds unique: a keyed row's keys, a period row's `name`, a
/// band's `upto` by value (none for the open top band).
///
/// A row may say what it does with one of three keys, read here and never
/// passed on: `remove = true` leaves the row of its identity out;
/// `was = LIMIT` moves the band of that limit to the row's `upto`; and
/// `insert = true` adds a row whose identity is new. A band of a new limit
/// needs `insert = true`: a band is found by its limit, so a version that
/// moves a limit by writing the band with its new limit would otherwise
/// add a band and change every amount above it without a word. New and
/// moved bands are merged in before the first band above each, so the
/// bands still rise. Linear in the rows of both versions: a rulebook is
/// untrusted input.
fn patch_table(name: &str, old: &mut RawTable, new: RawTable, problems: &mut Vec<Problem>) {
    let RawTable {
        kind: _,
        label,
        clause,
        columns,
        keys,
        rows,
    } = new;
    old.label = label.or(old.label.take());
    old.clause = clause.or(old.clause.take());
    if !keys.is_empty() {
        old.keys = keys;
    }
    overlay(&mut old.columns, columns);
    let kind = old.kind.as_ref().map(|k| k.get_ref().as_str());
    let bands = matches!(kind, Some("scale" | "ranges"));
    let identity: Vec<String> = match kind {
        Some("keyed") => old.keys.clone(),
        Some("periods") => vec!["name".into()],
        _ => vec!["upto".into()],
    };
    // Cells as TOML writes them, so `2` and `"2"` of a text stay apart as
    // they compare; a band's limit, and a number column's key, by value as
    // `check` holds keys unique, so `"28000"` is `28000.00` and `"2.0"` is
    // `"2"` (a row written `"2"` was not found by `"2.0"`, and replacing
    // `"1.0"` by `"1.00"` added a second row of one key).
    let numeric = |c: &str| {
        (old.columns.get(c))
            .is_some_and(|col| matches!(col.ty.get_ref().as_str(), "money" | "decimal" | "integer"))
    };
    let cell_id = |c: &String, v: Option<&toml::Value>| match v {
        Some(v) if (bands && c == "upto") || numeric(c) => band_limit(v)
            .map(|d| d.normalize().to_string())
            .unwrap_or_else(|| v.to_string()),
        Some(v) => v.to_string(),
        None => String::new(),
    };
    let id = |row: &IndexMap<String, toml::Value>| -> String {
        let cells: Vec<String> = identity.iter().map(|c| cell_id(c, row.get(c))).collect();
        cells.join("\u{0}")
    };
    let mut at: HashMap<String, usize> = HashMap::with_capacity(old.rows.len());
    for (n, row) in old.rows.iter().enumerate().rev() {
        at.insert(id(row.get_ref()), n);
    }
    let mut gone = vec![false; old.rows.len()];
    let mut touched = vec![false; old.rows.len()];
    let mut added = Vec::new();
    for mut row in rows {
        let span = Span::from(row.span());
        let refuse = |code: &'static str, message: String, help: &str| {
            Problem::new(code, message)
                .at(span, "this row")
                .help(help.to_string())
        };
        let cells = row.get_mut();
        if let Some(d) = ["was", "insert", "remove"]
            .into_iter()
            .find(|d| cells.contains_key(*d) && old.columns.contains_key(*d))
        {
            problems.push(refuse(
                "load::row_directive",
                format!("the table `{name}` has a column `{d}`, so its rows cannot be changed one by one"),
                "write the table whole, with its `kind`",
            ));
            continue;
        }
        let flag = |cells: &mut IndexMap<String, toml::Value>, key: &str| {
            cells
                .shift_remove(key)
                .map(|v| v == toml::Value::Boolean(true))
        };
        let remove = flag(cells, "remove");
        let insert = flag(cells, "insert");
        let was = cells.shift_remove("was");
        let directive = |what: &str| {
            refuse(
                "load::row_directive",
                format!("in the table `{name}`, {what}"),
                "`remove = true` leaves out the row of this identity; `was = LIMIT` moves a band's limit; `insert = true` adds a row",
            )
        };
        if remove == Some(false) || insert == Some(false) {
            problems.push(directive(
                "`remove` and `insert` are written `= true` or left out",
            ));
            continue;
        }
        if usize::from(remove.is_some())
            + usize::from(insert.is_some())
            + usize::from(was.is_some())
            > 1
        {
            problems.push(directive(
                "a row says at most one of `remove`, `insert` and `was`",
            ));
            continue;
        }
        if was.is_some() && !bands {
            problems.push(directive(
                "`was` moves a band's limit: only in a scale or ranges table",
            ));
            continue;
        }
        let target = match &was {
            Some(limit) => cell_id(&"upto".to_string(), Some(limit)),
            None => id(cells),
        };
        let found = at.get(&target).copied();
        let shown = |t: &str| t.replace('\u{0}', ", ");
        match (found, remove.is_some() || was.is_some(), insert.is_some()) {
            (Some(n), _, _) if touched[n] => problems.push(directive(&format!(
                "another row of this version already changes the row `{}`",
                shown(&target)
            ))),
            (Some(_), _, true) => problems.push(directive(&format!(
                "`insert = true`, but the extended table has a row `{}`; leave `insert` out to replace it",
                shown(&target)
            ))),
            (Some(n), _, false) => {
                touched[n] = true;
                if remove.is_some() {
                    gone[n] = true;
                } else if was.is_some() {
                    gone[n] = true;
                    added.push(row);
                } else {
                    old.rows[n] = row;
                }
            }
            (None, true, _) => problems.push(refuse(
                "load::row_unknown",
                format!("the table `{name}` of the extended version has no row `{}`", shown(&target)),
                "name the row by its key, period `name` or band limit as the extended version writes it",
            )),
            (None, false, false) if bands => problems.push(refuse(
                "load::band_new",
                format!(
                    "the table `{name}` of the extended version has no band of limit `{}`: a new band changes every amount above it",
                    shown(&target)
                ),
                "to move an existing band's limit, write `was = \"OLD LIMIT\"` in this row; to add a band, `insert = true`",
            )),
            (None, false, _) => added.push(row),
        }
    }
    if gone.contains(&true) {
        let mut gone = gone.into_iter();
        old.rows.retain(|_| !gone.next().unwrap_or(false));
    }
    if !bands {
        old.rows.extend(added);
        return;
    }
    let limit = |r: &IndexMap<String, toml::Value>| r.get("upto").and_then(band_limit);
    // The open band (no limit) sorts last.
    let key = |r: &toml::Spanned<IndexMap<String, toml::Value>>| {
        limit(r.get_ref()).map_or((1, Decimal::ZERO), |u| (0, u))
    };
    added.sort_by_key(key);
    let mut merged = Vec::with_capacity(old.rows.len() + added.len());
    let mut added = added.into_iter().peekable();
    for row in std::mem::take(&mut old.rows) {
        while let Some(new_row) = added.next_if(|a| key(a) < key(&row)) {
            merged.push(new_row);
        }
        merged.push(row);
    }
    merged.extend(added);
    old.rows = merged;
}

/// A band's limit as written (a string or a TOML integer), to order bands.
fn band_limit(cell: &toml::Value) -> Option<Decimal> {
    match cell {
        toml::Value::String(s) => Decimal::from_str(s).ok(),
        toml::Value::Integer(i) => Some(Decimal::from(*i)),
        _ => None,
    }
}

/// Leaves out the item a dotted name names; whether there was one.
fn remove(rb: &mut RawRulebook, dotted: &str) -> bool {
    let parts: Vec<&str> = dotted.split('.').collect();
    match parts.as_slice() {
        ["clauses", n] => rb.clauses.shift_remove(*n).is_some(),
        ["inputs", n] => rb.inputs.shift_remove(*n).is_some(),
        ["parameters", n] => rb.parameters.shift_remove(*n).is_some(),
        ["tables", n] => rb.tables.shift_remove(*n).is_some(),
        ["steps", n] => rb.steps.shift_remove(*n).is_some(),
        ["per_item", n] => rb.per_item.shift_remove(*n).is_some(),
        ["per_item", g, "steps", n] => rb
            .per_item
            .get_mut(*g)
            .is_some_and(|group| group.steps.shift_remove(*n).is_some()),
        ["decisions", n] => rb.decisions.shift_remove(*n).is_some(),
        ["ablations", n] => rb.ablations.shift_remove(*n).is_some(),
        ["reports", n] => rb.reports.shift_remove(*n).is_some(),
        _ => false,
    }
}

/// Problems of a merged rulebook that serde would have reported in one
/// file: a per-item group must end with its `over` and `item`.
pub fn incomplete(rb: &RawRulebook) -> Vec<Problem> {
    use super::raw::Anchor;
    let mut out = Vec::new();
    for (name, table) in &rb.tables {
        if table.kind.is_none() {
            let message = format!("the table `{name}` has no `kind`");
            out.push(
                Problem::new("load::missing_key", message)
                    .at(table.anchor(), "in this table")
                    .help("write `kind = \"periods\"`, `\"keyed\"`, `\"scale\"` or `\"ranges\"`; only in a version that extends one holding this table may `kind` be left out, to change its rows"),
            );
        }
    }
    for (name, group) in &rb.per_item {
        for (key, missing) in [
            ("over", group.over.is_none()),
            ("item", group.item.is_none()),
        ] {
            if missing {
                let message = format!("the per-item group `{name}` has no `{key}`");
                out.push(
                    Problem::new("load::missing_key", message).at(group.anchor(), "in this group"),
                );
            }
        }
    }
    out
}
