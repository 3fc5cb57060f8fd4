//! The shape of a format-1 trace (a compact one once expanded), checked
//! before anything in it is recomputed: every object holds the keys of its
//! kind and no other, and what the walk reads for structure (an event's
//! kind, a check's index, whether a condition held, what a check gives, a
//! report's cells) has its type.
//!
//! A key the verifier does not read would pass unverified under a trace
//! it certifies, and a field of the wrong type would be read as a default
//! and reported as a value that was never recorded (`check 0` for an index
//! of `"1"`): both refuse the line instead, naming where.

use serde_json::Value as Json;

/// Where the first object or field out of shape is, and why.
pub(super) fn check(trace: &Json) -> Result<(), String> {
    for (i, r) in array(trace.get("reports"), "trace.reports")?
        .iter()
        .enumerate()
    {
        report(r, &format!("trace.reports[{i}]"))?;
    }
    for (i, input) in array(trace.get("inputs"), "trace.inputs")?
        .iter()
        .enumerate()
    {
        let at = format!("trace.inputs[{i}]");
        keys(input, &["name", "given", "value"], &at)?;
        text(input, "name", &at)?;
        text(input, "given", &at)?;
    }
    for (i, ev) in array(trace.get("events"), "trace.events")?
        .iter()
        .enumerate()
    {
        event(ev, &format!("trace.events[{i}]"))?;
    }
    if let Some(outcome) = trace.get("outcome") {
        let at = "trace.outcome";
        match outcome.get("kind").and_then(Json::as_str) {
            Some("decision") => {
                keys(outcome, &["kind", "decision", "reason", "clauses"], at)?;
                text(outcome, "decision", at)?;
                optional_text(outcome, "reason", at)?;
                texts(outcome.get("clauses"), &format!("{at}.clauses"))?;
            }
            Some("rejected") => {
                keys(outcome, &["kind", "error"], at)?;
                let error = outcome.get("error").unwrap_or(&Json::Null);
                keys(error, &["path", "message"], &format!("{at}.error"))?;
            }
            _ => {
                return Err(format!(
                    "{at}: \"kind\" is neither \"decision\" nor \"rejected\""
                ))
            }
        }
    }
    Ok(())
}

fn event(ev: &Json, at: &str) -> Result<(), String> {
    match ev.get("event").and_then(Json::as_str) {
        Some("check") => {
            keys(
                ev,
                &["event", "index", "label", "when", "reads", "held", "gives"],
                at,
            )?;
            match ev.get("index").and_then(Json::as_u64) {
                Some(n) if n >= 1 => {}
                _ => {
                    return Err(format!(
                        "{at}: \"index\" is not a check's position (1, 2, …)"
                    ))
                }
            }
            optional_text(ev, "label", at)?;
            if !ev.get("when").is_some_and(|w| w.is_string() || w.is_null()) {
                return Err(format!("{at}: \"when\" is neither a formula nor null"));
            }
            reads(ev, at)?;
            boolean(ev, "held", at)?;
            text(ev, "gives", at)
        }
        Some("cite") => cite(ev, &["event", "when", "held", "clauses"], at),
        Some("step") => {
            keys(
                ev,
                &[
                    "event",
                    "step",
                    "item",
                    "label",
                    "clauses",
                    "cites",
                    "detail",
                    "formula",
                    "condition",
                    "reads",
                    "lookups",
                    "roundings",
                    "exact",
                    "value",
                ],
                at,
            )?;
            text(ev, "step", at)?;
            optional_text(ev, "item", at)?;
            optional_text(ev, "label", at)?;
            text(ev, "formula", at)?;
            texts(ev.get("clauses"), &format!("{at}.clauses"))?;
            if ev.get("detail").is_some() {
                boolean(ev, "detail", at)?;
            }
            if let Some(cites) = ev.get("cites") {
                for (k, c) in array(Some(cites), &format!("{at}.cites"))?
                    .iter()
                    .enumerate()
                {
                    cite(c, &["when", "held", "clauses"], &format!("{at}.cites[{k}]"))?;
                }
            }
            if let Some(c) = ev.get("condition") {
                let at = format!("{at}.condition");
                keys(c, &["formula", "held"], &at)?;
                text(c, "formula", &at)?;
                boolean(c, "held", &at)?;
            }
            reads(ev, at)?;
            for (k, l) in array(ev.get("lookups"), &format!("{at}.lookups"))?
                .iter()
                .enumerate()
            {
                let at = format!("{at}.lookups[{k}]");
                keys(l, &["kind", "table", "source", "key", "row", "why"], &at)?;
            }
            let roundings = array(ev.get("roundings"), &format!("{at}.roundings"))?;
            for (k, r) in roundings.iter().enumerate() {
                let at = format!("{at}.roundings[{k}]");
                keys(
                    r,
                    &["at", "mode", "places", "before", "after", "margin"],
                    &at,
                )?;
            }
            if ev.get("value").is_none() {
                return Err(format!("{at}: no \"value\""));
            }
            Ok(())
        }
        _ => Err(format!(
            "{at}: \"event\" is not \"check\", \"step\" or \"cite\""
        )),
    }
}

/// A citation: a decision's (an event) or a step's.
fn cite(c: &Json, known: &[&str], at: &str) -> Result<(), String> {
    keys(c, known, at)?;
    text(c, "when", at)?;
    boolean(c, "held", at)?;
    texts(c.get("clauses"), &format!("{at}.clauses"))
}

fn reads(ev: &Json, at: &str) -> Result<(), String> {
    for (k, r) in array(ev.get("reads"), &format!("{at}.reads"))?
        .iter()
        .enumerate()
    {
        let at = format!("{at}.reads[{k}]");
        keys(r, &["name", "value"], &at)?;
        text(r, "name", &at)?;
    }
    Ok(())
}

/// A report table: its title, column titles, rows of text cells and
/// totals as `[label, cell]`. What each holds is the walk's to recompute.
fn report(r: &Json, at: &str) -> Result<(), String> {
    keys(r, &["title", "header", "rows", "totals"], at)?;
    optional_text(r, "title", at)?;
    texts(r.get("header"), &format!("{at}.header"))?;
    for (k, row) in array(r.get("rows"), &format!("{at}.rows"))?
        .iter()
        .enumerate()
    {
        texts(Some(row), &format!("{at}.rows[{k}]"))?;
    }
    for (k, total) in array(r.get("totals"), &format!("{at}.totals"))?
        .iter()
        .enumerate()
    {
        let at = format!("{at}.totals[{k}]");
        texts(Some(total), &at)?;
        if total.as_array().map_or(0, Vec::len) != 2 {
            return Err(format!("{at}: a total is [label, cell]"));
        }
    }
    Ok(())
}

/// No key but `known` (the object's absent keys are the walk's to miss).
pub(super) fn keys(v: &Json, known: &[&str], at: &str) -> Result<(), String> {
    let map = v
        .as_object()
        .ok_or_else(|| format!("{at} is not an object"))?;
    match map.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(format!("{at} holds an unknown key {k:?}")),
        None => Ok(()),
    }
}

/// A list, or nothing (the walk reads an absent list as empty).
fn array<'j>(v: Option<&'j Json>, at: &str) -> Result<&'j [Json], String> {
    match v {
        None => Ok(&[]),
        Some(Json::Array(items)) => Ok(items),
        Some(_) => Err(format!("{at} is not a list")),
    }
}

/// A list of texts, or nothing.
fn texts(v: Option<&Json>, at: &str) -> Result<(), String> {
    match array(v, at)?.iter().all(Json::is_string) {
        true => Ok(()),
        false => Err(format!("{at} holds something other than text")),
    }
}

fn text(v: &Json, key: &str, at: &str) -> Result<(), String> {
    match v.get(key) {
        Some(Json::String(_)) => Ok(()),
        Some(_) => Err(format!("{at}: {key:?} is not a text")),
        None => Err(format!("{at}: no {key:?}")),
    }
}

fn optional_text(v: &Json, key: &str, at: &str) -> Result<(), String> {
    match v.get(key) {
        None | Some(Json::String(_)) => Ok(()),
        Some(_) => Err(format!("{at}: {key:?} is not a text")),
    }
}

fn boolean(v: &Json, key: &str, at: &str) -> Result<(), String> {
    match v.get(key) {
        Some(Json::Bool(_)) => Ok(()),
        Some(_) => Err(format!("{at}: {key:?} is not true or false")),
        None => Err(format!("{at}: no {key:?}")),
    }
}
