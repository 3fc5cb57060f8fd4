//! The text rendering of a trace: an indented explanation an auditor reads.
//!
//! Invariant: every line is escaped whole as it is written (`escape_text`),
//! so no text from a case (a map key, an id, a value) can start a line of its
//! own, steer the terminal, or reorder what an auditor sees.

use std::borrow::Cow;
use std::fmt::{self, Write};

use super::{Event, OutcomeTrace, StepTrace, Trace};
use crate::facts::Given;

/// Renders a trace as indented text, one block per check and step.
pub fn render_text(trace: &Trace) -> String {
    let mut text = String::new();
    let out = &mut text;
    line(out, format_args!("rulebook {}", trace.rulebook));
    if let Some(ablation) = &trace.ablation {
        line(
            out,
            format_args!("ablation {ablation} (an alternative reading, not the rules)"),
        );
    }
    for report in &trace.reports {
        write_report(out, report);
    }
    out.push_str("\ninputs\n");
    for input in &trace.inputs {
        let (name, value) = (&input.name, &input.value);
        match input.given {
            Given::Value => line(out, format_args!("  {name} = {value}")),
            Given::Absent => line(out, format_args!("  {name} absent")),
            Given::Null => line(out, format_args!("  {name} = null")),
            Given::Default => line(out, format_args!("  {name} = {value} (default)")),
            Given::Invalid if value.is_missing() => line(
                out,
                format_args!("  {name} absent (the value given is not valid)"),
            ),
            Given::Invalid => line(
                out,
                format_args!("  {name} = {value} (default: the value given is not valid)"),
            ),
            Given::Ignored => line(
                out,
                format_args!("  {name} ignored (its condition does not hold)"),
            ),
        }
    }
    out.push_str("\nevaluation\n");
    for event in &trace.events {
        match event {
            Event::Check(c) => {
                let when = c.when.as_deref().unwrap_or("always");
                line(out, format_args!("  check {}: {when}", c.index));
                if let Some(label) = &c.label {
                    line(out, format_args!("    {label}"));
                }
                write_reads(out, &c.reads);
                if c.held {
                    line(out, format_args!("    holds → {}", c.gives));
                } else {
                    line(out, format_args!("    does not hold"));
                }
            }
            Event::Step(s) => write_step(out, s),
            Event::Cite(c) => {
                let verdict = if c.held { "cites" } else { "does not cite" };
                line(
                    out,
                    format_args!(
                        "  citation: {} → {verdict} {}",
                        c.when,
                        c.clauses.join(", ")
                    ),
                );
            }
        }
    }
    out.push_str("\noutcome\n");
    match &trace.outcome {
        OutcomeTrace::Decision {
            decision,
            reason,
            clauses,
        } => {
            let reason = reason.as_ref().map(|r| format!(" {r}")).unwrap_or_default();
            line(
                out,
                format_args!("  {decision}{reason} [{}]", clauses.join(", ")),
            );
        }
        OutcomeTrace::Rejected { error } => {
            line(
                out,
                format_args!("  rejected at {}: {}", error.path, error.message),
            );
        }
    }
    text
}

/// Text from a case (or a rulebook) as a terminal may show it: control
/// characters (line breaks and ESC among them), the Unicode line and
/// paragraph separators and the bidi controls (U+061C, U+200E, U+200F,
/// U+202A–U+202E, U+2066–U+2069) become escapes like `\n` and `\u{1b}`, so
/// such text can neither start a line of its own, restyle the terminal, nor
/// reorder a line on screen. Other text is unchanged, and escaping twice
/// changes nothing more.
pub fn escape_text(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => escaped.push_str("\\n"),
            '\r' => escaped.push_str("\\r"),
            '\t' => escaped.push_str("\\t"),
            c if needs_escape(c) => {
                let _ = write!(escaped, "\\u{{{:x}}}", u32::from(c));
            }
            c => escaped.push(c),
        }
    }
    Cow::Owned(escaped)
}

fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// Appends one line, escaped whole.
fn line(out: &mut String, args: fmt::Arguments<'_>) {
    let text = fmt::format(args);
    out.push_str(&escape_text(&text));
    out.push('\n');
}

/// A report as an aligned table: the first column left, the others right.
/// Cells are escaped before they are measured, so hostile text cannot break the alignment.
fn write_report(out: &mut String, report: &super::ReportTrace) {
    let shown = |cells: &[String]| -> Vec<String> {
        cells.iter().map(|c| escape_text(c).into_owned()).collect()
    };
    let header = shown(&report.header);
    let rows: Vec<Vec<String>> = report.rows.iter().map(|r| shown(r)).collect();
    out.push('\n');
    if let Some(title) = &report.title {
        line(out, format_args!("{title}"));
    }
    let n = header.len();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let aligned = |cells: &[String]| {
        let mut text = String::from(" ");
        for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
            let pad = w.saturating_sub(cell.chars().count());
            text.push(' ');
            if i == 0 {
                text.push_str(cell);
                text.push_str(&" ".repeat(pad));
            } else {
                text.push_str(&" ".repeat(pad + 1));
                text.push_str(cell);
            }
        }
        text.trim_end().to_string()
    };
    line(out, format_args!("{}", aligned(&header)));
    let rule: usize = widths.iter().sum::<usize>() + 2 * n;
    line(
        out,
        format_args!("  {}", "─".repeat(rule.saturating_sub(1))),
    );
    for row in &rows {
        line(out, format_args!("{}", aligned(row)));
    }
    if !report.totals.is_empty() {
        let totals: Vec<(String, String)> = report
            .totals
            .iter()
            .map(|(l, v)| (escape_text(l).into_owned(), escape_text(v).into_owned()))
            .collect();
        let label_width = totals
            .iter()
            .map(|(l, _)| l.chars().count())
            .max()
            .unwrap_or(0);
        let value_width = totals
            .iter()
            .map(|(_, v)| v.chars().count())
            .max()
            .unwrap_or(0);
        line(
            out,
            format_args!("  {}", "─".repeat(rule.saturating_sub(1))),
        );
        for (label, value) in &totals {
            line(
                out,
                format_args!("  {label:<label_width$}  {value:>value_width$}"),
            );
        }
    }
}

fn write_reads(out: &mut String, reads: &[super::Read]) {
    if !reads.is_empty() {
        let list: Vec<String> = reads
            .iter()
            .map(|r| format!("{} = {}", r.name, r.value))
            .collect();
        line(out, format_args!("    with {}", list.join(", ")));
    }
}

fn write_step(out: &mut String, s: &StepTrace) {
    let label = s
        .label
        .as_ref()
        .map(|l| format!(" — {l}"))
        .unwrap_or_default();
    let clauses = if s.clauses.is_empty() {
        String::new()
    } else {
        format!(" [{}]", s.clauses.join(", "))
    };
    match &s.item {
        Some(item) => {
            line(
                out,
                format_args!("  step {item}.{}{label}{clauses}", s.step),
            );
        }
        None => {
            line(out, format_args!("  step {}{label}{clauses}", s.step));
        }
    }
    if let Some(c) = &s.condition {
        line(
            out,
            format_args!(
                "    when {} → {}",
                c.formula,
                if c.held { "applies" } else { "does not apply" }
            ),
        );
    }
    line(out, format_args!("    = {}", s.formula));
    write_reads(out, &s.reads);
    for l in &s.lookups {
        if l.kind == "scale" {
            line(
                out,
                format_args!(
                    "    scale {} ({}) on {}: {}",
                    l.table, l.source, l.key, l.why
                ),
            );
            continue;
        }
        let row = l
            .row
            .as_deref()
            .map(|r| format!("row {r}"))
            .unwrap_or_else(|| "no row".into());
        line(
            out,
            format_args!(
                "    table {} ({}): {} → {row}: {}",
                l.table, l.source, l.key, l.why
            ),
        );
    }
    let exact = s.exact.to_string();
    if s.roundings.iter().all(|r| r.at != "step") {
        line(out, format_args!("    → {}", s.value));
    } else {
        line(out, format_args!("    exact {exact}"));
    }
    for r in &s.roundings {
        let what = if r.at == "step" {
            "rounded".to_string()
        } else {
            format!("inside, {}", r.at)
        };
        line(
            out,
            format_args!(
                "    {what} {} to {} places: {} → {} (margin {})",
                r.rounded.mode.name(),
                r.rounded.places,
                r.rounded.before,
                r.rounded.after,
                r.rounded.margin
            ),
        );
    }
}
