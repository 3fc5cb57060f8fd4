//! The text rendering of a trace: an indented explanation an auditor reads.

use std::fmt::Write;

use super::{Event, OutcomeTrace, StepTrace, Trace};
use crate::facts::Given;

/// Renders a trace as indented text, one block per check and step.
pub fn render_text(trace: &Trace) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "rulebook {}", trace.rulebook);
    if let Some(ablation) = &trace.ablation {
        let _ = writeln!(
            out,
            "ablation {ablation} (an alternative reading, not the rules)"
        );
    }
    for report in &trace.reports {
        write_report(&mut out, report);
    }
    out.push_str("\ninputs\n");
    for input in &trace.inputs {
        let value = input.value.to_string();
        let _ = match input.given {
            Given::Value => writeln!(out, "  {} = {value}", input.name),
            Given::Absent => writeln!(out, "  {} absent", input.name),
            Given::Null => writeln!(out, "  {} = null", input.name),
            Given::Default => writeln!(out, "  {} = {value} (default)", input.name),
            Given::Ignored => writeln!(
                out,
                "  {} ignored (its condition does not hold)",
                input.name
            ),
        };
    }
    out.push_str("\nevaluation\n");
    for event in &trace.events {
        match event {
            Event::Check(c) => {
                let when = c.when.as_deref().unwrap_or("always");
                let verdict = if c.held {
                    format!("holds → {}", c.gives)
                } else {
                    "does not hold".into()
                };
                let _ = writeln!(out, "  check {}: {when}", c.index);
                if let Some(label) = &c.label {
                    let _ = writeln!(out, "    {label}");
                }
                write_reads(&mut out, &c.reads);
                let _ = writeln!(out, "    {verdict}");
            }
            Event::Step(s) => write_step(&mut out, s),
            Event::Cite(c) => {
                let verdict = if c.held { "cites" } else { "does not cite" };
                let _ = writeln!(
                    out,
                    "  citation: {} → {verdict} {}",
                    c.when,
                    c.clauses.join(", ")
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
            let _ = writeln!(out, "  {decision}{reason} [{}]", clauses.join(", "));
        }
        OutcomeTrace::Rejected { error } => {
            let _ = writeln!(out, "  rejected at {}: {}", error.path, error.message);
        }
    }
    out
}

/// A report as an aligned table: the first column left, the others right.
fn write_report(out: &mut String, report: &super::ReportTrace) {
    out.push('\n');
    if let Some(title) = &report.title {
        let _ = writeln!(out, "{title}");
    }
    let n = report.header.len();
    let mut widths: Vec<usize> = report.header.iter().map(|h| h.chars().count()).collect();
    for row in &report.rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| {
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
    let _ = writeln!(out, "{}", line(&report.header));
    let rule: usize = widths.iter().sum::<usize>() + 2 * n;
    let _ = writeln!(out, "  {}", "─".repeat(rule.saturating_sub(1)));
    for row in &report.rows {
        let _ = writeln!(out, "{}", line(row));
    }
    if !report.totals.is_empty() {
        let label_width = report
            .totals
            .iter()
            .map(|(l, _)| l.chars().count())
            .max()
            .unwrap_or(0);
        let value_width = report
            .totals
            .iter()
            .map(|(_, v)| v.chars().count())
            .max()
            .unwrap_or(0);
        let _ = writeln!(out, "  {}", "─".repeat(rule.saturating_sub(1)));
        for (label, value) in &report.totals {
            let _ = writeln!(out, "  {label:<label_width$}  {value:>value_width$}");
        }
    }
}

fn write_reads(out: &mut String, reads: &[super::Read]) {
    if !reads.is_empty() {
        let list: Vec<String> = reads
            .iter()
            .map(|r| format!("{} = {}", r.name, r.value))
            .collect();
        let _ = writeln!(out, "    with {}", list.join(", "));
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
            let _ = writeln!(out, "  step {item}.{}{label}{clauses}", s.step);
        }
        None => {
            let _ = writeln!(out, "  step {}{label}{clauses}", s.step);
        }
    }
    if let Some(c) = &s.condition {
        let _ = writeln!(
            out,
            "    when {} → {}",
            c.formula,
            if c.held { "applies" } else { "does not apply" }
        );
    }
    let _ = writeln!(out, "    = {}", s.formula);
    write_reads(out, &s.reads);
    for l in &s.lookups {
        if l.kind == "scale" {
            let _ = writeln!(
                out,
                "    scale {} ({}) on {}: {}",
                l.table, l.source, l.key, l.why
            );
            continue;
        }
        let row = l
            .row
            .as_deref()
            .map(|r| format!("row {r}"))
            .unwrap_or_else(|| "no row".into());
        let _ = writeln!(
            out,
            "    table {} ({}): {} → {row}: {}",
            l.table, l.source, l.key, l.why
        );
    }
    let exact = s.exact.to_string();
    if s.roundings.iter().all(|r| r.at != "step") {
        let _ = writeln!(out, "    → {}", s.value);
    } else {
        let _ = writeln!(out, "    exact {exact}");
    }
    for r in &s.roundings {
        let what = if r.at == "step" {
            "rounded".to_string()
        } else {
            format!("inside, {}", r.at)
        };
        let _ = writeln!(
            out,
            "    {what} {} to {} places: {} → {} (margin {})",
            r.rounded.mode.name(),
            r.rounded.places,
            r.rounded.before,
            r.rounded.after,
            r.rounded.margin
        );
    }
}
