//! The text rendering of a trace: an indented explanation an auditor reads.
//!
//! Invariant: every line is escaped whole as it is written (`escape_text`),
//! so no text from a case (a map key, an id, a value) can start a line of its
//! own, steer the terminal, or reorder what an auditor sees.

use std::borrow::Cow;
use std::fmt::{self, Write};

use super::{CiteTrace, Event, OutcomeTrace, StepTrace, Trace};
use crate::facts::Given;
use crate::value::Value;

/// Items of a list or map shown before `… N more`.
const SHOWN_ITEMS: usize = 8;

/// Characters of one value shown before `…`.
const SHOWN_CHARS: usize = 400;

/// Renders a trace as indented text, one block per check and step.
///
/// ```
/// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// # let case = serde_json::json!({"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"});
/// let (_, trace) = bareme::evaluate_value(&rb, &case, true)?;
/// let text = bareme::render_text(&trace.expect("asked for"));
/// assert!(text.contains("rulebook luma-payroll@3#"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
            Given::Value => line(out, format_args!("  {name} = {}", shown(value))),
            Given::Absent => line(out, format_args!("  {name} absent")),
            Given::Null => line(out, format_args!("  {name} = null")),
            Given::Default => line(out, format_args!("  {name} = {} (default)", shown(value))),
            Given::Invalid if value.is_missing() => line(
                out,
                format_args!("  {name} absent (the value given is not valid)"),
            ),
            Given::Invalid => line(
                out,
                format_args!(
                    "  {name} = {} (default: the value given is not valid)",
                    shown(value)
                ),
            ),
            Given::Ignored => line(
                out,
                format_args!("  {name} ignored (its condition does not hold)"),
            ),
        }
    }
    out.push_str("\nevaluation\n");
    let mut folded_until = 0;
    for (at, event) in trace.events.iter().enumerate() {
        if at < folded_until {
            continue;
        }
        if let Some(end) = zero_item(&trace.events, at) {
            write_folded(out, &trace.events[at..end]);
            folded_until = end;
            continue;
        }
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
            Event::Cite(c) => write_citation(out, "  ", c),
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
/// paragraph separators, the bidi controls (U+061C, U+200E, U+200F,
/// U+202A–U+202E, U+2066–U+2069) and the invisible format characters
/// (soft hyphen, zero-width space and joiners, word joiner, byte order
/// mark, tags) become escapes like `\n` and `\u{1b}`, so such text can
/// neither start a line of its own, restyle the terminal, reorder a line on
/// screen, nor hide in a message (`gross_pay\u{200b}: unknown input; did
/// you mean gross_pay?` read as a key refused for itself). Other text is
/// unchanged, and escaping twice changes nothing more.
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
            '\u{00ad}'
                | '\u{061c}'
                | '\u{180e}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{206f}'
                | '\u{feff}'
                | '\u{fff9}'..='\u{fffb}'
                | '\u{e0001}'
                | '\u{e0020}'..='\u{e007f}'
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

fn write_reads(out: &mut String, reads: &[super::ReadTrace]) {
    if !reads.is_empty() {
        let list: Vec<String> = reads
            .iter()
            .map(|r| format!("{} = {}", r.name, shown(&r.value)))
            .collect();
        line(out, format_args!("    with {}", list.join(", ")));
    }
}

fn write_step(out: &mut String, s: &StepTrace) {
    let name = match &s.item {
        Some(item) => format!("{item}.{}", s.step),
        None => s.step.to_string(),
    };
    if s.detail && s.roundings.is_empty() && s.lookups.is_empty() && s.cites.is_empty() {
        line(out, format_args!("  · {name} = {}", shown(&s.value)));
        return;
    }
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
    write_formula(out, &s.formula);
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
    let exact = s.exact().to_string();
    if s.roundings.iter().all(|r| r.at != "step") {
        line(out, format_args!("    → {}", shown(&s.value)));
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
    for c in &s.cites {
        write_citation(out, "    ", c);
    }
}

/// `citation: COND → cites R4`: a decision's or a step's `cite` entry,
/// indented under what it belongs to.
fn write_citation(out: &mut String, indent: &str, c: &CiteTrace) {
    let verdict = if c.held { "cites" } else { "does not cite" };
    line(
        out,
        format_args!(
            "{indent}citation: {} → {verdict} {}",
            c.when,
            c.clauses.join(", ")
        ),
    );
}

/// A formula as written, each of its lines on a line of its own, its
/// indentation kept (a multi-line formula of a rulebook reads as it does
/// there); blank lines are left out.
fn write_formula(out: &mut String, formula: &str) {
    let mut lines = formula.lines().filter(|l| !l.trim().is_empty());
    let first = lines.next().unwrap_or("").trim();
    line(out, format_args!("    = {first}"));
    let rest: Vec<&str> = lines.collect();
    let indent = rest
        .iter()
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    for l in rest {
        let l = l.get(indent..).unwrap_or(l.trim_start());
        line(out, format_args!("      {}", l.trim_end()));
    }
}

/// Where the run of per-item steps starting at `at` ends, when they are
/// all the steps of one item there (a whole block, not its tail), there
/// are several, and every value is nothing: zero,
/// false or absent, with no rounding point met. Such an item (a payslip
/// line that does not apply) is shown on one line.
fn zero_item(events: &[Event], at: usize) -> Option<usize> {
    let Event::Step(first) = &events[at] else {
        return None;
    };
    let item = first.item.as_ref()?;
    if at > 0 && matches!(&events[at - 1], Event::Step(p) if p.item.as_ref() == Some(item)) {
        return None;
    }
    let mut end = at;
    while let Some(Event::Step(s)) = events.get(end) {
        if s.item.as_ref() != Some(item) {
            break;
        }
        // A clause a branch cited is shown, never folded away.
        if nothing(&s.value).is_none() || !s.roundings.is_empty() || s.cites.iter().any(|c| c.held)
        {
            return None;
        }
        end += 1;
    }
    (end - at >= 2).then_some(end)
}

/// How a value that is nothing is written: `0`, `false`, `absent`.
fn nothing(v: &Value) -> Option<&'static str> {
    match v {
        Value::Number(d) if d.is_zero() => Some("0"),
        Value::Bool(false) => Some("false"),
        Value::Absent => Some("absent"),
        _ => None,
    }
}

/// One line for an item whose steps are all nothing, grouped by value:
/// `lines[5]: applies false; employee, employer 0; employee_part absent (folded)`.
fn write_folded(out: &mut String, steps: &[Event]) {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    let mut item = "";
    for e in steps {
        let Event::Step(s) = e else { continue };
        item = s.item.as_deref().unwrap_or("");
        let Some(v) = nothing(&s.value) else { continue };
        match groups.iter_mut().find(|(w, _)| *w == v) {
            Some((_, names)) => names.push(&s.step),
            None => groups.push((v, vec![&s.step])),
        }
    }
    let parts: Vec<String> = groups
        .iter()
        .map(|(v, names)| format!("{} {v}", names.join(", ")))
        .collect();
    line(out, format_args!("  {item}: {} (folded)", parts.join("; ")));
}

/// A value as a trace line shows it: a list or map by its first items and
/// how many more, the whole at most `SHOWN_CHARS` characters (the audit
/// pages show values the same way).
pub(super) fn shown(value: &Value) -> String {
    let mut text = Capped {
        text: String::new(),
        left: SHOWN_CHARS,
        cut: false,
    };
    // The writer stops at its cap: the error only says so.
    let _ = write!(text, "{}", Shown(value));
    if text.cut {
        text.text.push('…');
    }
    text.text
}

struct Shown<'v>(&'v Value);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Value::List(items) => {
                f.write_str("[")?;
                for (i, v) in items.iter().take(SHOWN_ITEMS).enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}", Shown(v))?;
                }
                more(f, items.len())?;
                f.write_str("]")
            }
            Value::Map(entries) => {
                f.write_str("{")?;
                for (i, (k, v)) in entries.iter().take(SHOWN_ITEMS).enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {}", Shown(v))?;
                }
                more(f, entries.len())?;
                f.write_str("}")
            }
            Value::Record(r) if r.name.is_none() => {
                f.write_str("{")?;
                for (i, (name, v)) in r.names.iter().zip(r.fields.iter()).enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{name}: {}", Shown(v))?;
                }
                f.write_str("}")
            }
            other => write!(f, "{other}"),
        }
    }
}

fn more(f: &mut fmt::Formatter<'_>, len: usize) -> fmt::Result {
    if len > SHOWN_ITEMS {
        let sep = if SHOWN_ITEMS > 0 { ", " } else { "" };
        write!(f, "{sep}… {} more", len - SHOWN_ITEMS)?;
    }
    Ok(())
}

/// A string that takes at most `left` more characters, then refuses.
struct Capped {
    text: String,
    left: usize,
    cut: bool,
}

impl fmt::Write for Capped {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for c in s.chars() {
            if self.left == 0 {
                self.cut = true;
                return Err(fmt::Error);
            }
            self.text.push(c);
            self.left -= 1;
        }
        Ok(())
    }
}
