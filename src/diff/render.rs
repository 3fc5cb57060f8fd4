//! A diff report as a person reads it: text (coloured on a terminal) or
//! Markdown. JSON is the report's serde form. Every piece of rulebook or
//! case text goes through `escape_text` (one line each, no terminal codes)
//! before any colour is added.

use std::fmt::Write as _;

use super::changes::{Change, ChangeKind, Section};
use super::compat::Verdict;
use super::impact::{Impact, Rejections, StepMove};
use super::Report;
use crate::trace::escape_text;

/// How text output looks.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// ANSI colours (a terminal).
    pub color: bool,
}

impl Style {
    fn paint(self, code: &str, text: &str) -> String {
        if self.color {
            format!("\u{1b}[{code}m{text}\u{1b}[0m")
        } else {
            text.to_string()
        }
    }
    fn removed(self, text: &str) -> String {
        self.paint("31", text)
    }
    fn added(self, text: &str) -> String {
        self.paint("32", text)
    }
    fn head(self, text: &str) -> String {
        self.paint("1", text)
    }
}

/// One line of outside text: whitespace runs collapsed, controls escaped.
fn clean(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    escape_text(&joined).into_owned()
}

fn json_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => clean(s),
        other => clean(&other.to_string()),
    }
}

/// A step's value in one version, or that the version did not compute it.
fn computed(v: &Option<serde_json::Value>) -> String {
    v.as_ref()
        .map_or_else(|| "(not computed)".to_string(), json_text)
}

/// A step's formula in one version, or that the version did not compute it.
fn formula(f: &Option<String>) -> String {
    f.as_deref()
        .map_or_else(|| "(not computed)".to_string(), clean)
}

/// Where a change is: `lines 344 → 264`, or with the files on disk of a
/// version that extends another, `v2025/rulebook.toml:337 → v2026/rulebook.toml:264`.
fn lines(c: &Change) -> String {
    let at = |file: &Option<String>, line: usize| match file {
        Some(f) => format!("{}:{line}", clean(f)),
        None => format!("line {line}"),
    };
    let files = c.old_file.is_some() || c.new_file.is_some();
    match (c.old_line, c.new_line) {
        (Some(a), Some(b)) if files => format!("{} → {}", at(&c.old_file, a), at(&c.new_file, b)),
        (Some(a), Some(b)) => format!("lines {a} → {b}"),
        (Some(a), None) => format!("old {}", at(&c.old_file, a)),
        (None, Some(b)) => format!("new {}", at(&c.new_file, b)),
        (None, None) => String::new(),
    }
}

fn thing(c: &Change) -> String {
    match &c.attr {
        Some(a) => clean(&format!("{}.{a}", c.entity)),
        None => clean(&c.entity),
    }
}

/// The report as text.
pub fn render_text(r: &Report, style: Style) -> String {
    let d = &r.diff;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} ({}) → {} ({}): {}",
        clean(&d.old.rulebook),
        clean(&d.old.file),
        clean(&d.new.rulebook),
        clean(&d.new.file),
        match d.len() {
            0 => "no change".to_string(),
            1 => "1 change".to_string(),
            n => format!("{n} changes"),
        }
    );
    for section in Section::ALL {
        let changes = &d.sections[&section];
        if changes.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{}", style.head(section.name()));
        for c in changes {
            let (mark, body) = match c.kind {
                ChangeKind::Added => (
                    style.added("+"),
                    style.added(&clean(c.new.as_deref().unwrap_or(""))),
                ),
                ChangeKind::Removed => (
                    style.removed("-"),
                    style.removed(&clean(c.old.as_deref().unwrap_or(""))),
                ),
                ChangeKind::Changed if !c.words.is_empty() => {
                    ("~".to_string(), words_text(c, style))
                }
                ChangeKind::Changed => (
                    "~".to_string(),
                    match (&c.old, &c.new) {
                        (Some(o), Some(n)) => {
                            format!("{} → {}", style.removed(&clean(o)), style.added(&clean(n)))
                        }
                        (Some(o), None) => format!("{} → (none)", style.removed(&clean(o))),
                        (None, Some(n)) => format!("(none) → {}", style.added(&clean(n))),
                        (None, None) => String::new(),
                    },
                ),
            };
            let at = match lines(c) {
                at if at.is_empty() => String::new(),
                at => format!(" ({at})"),
            };
            let _ = writeln!(out, "  {mark} {}{at}: {body}", thing(c));
        }
    }
    if let Some(verdicts) = &r.compatibility {
        compat_text(&mut out, verdicts, d, style);
    }
    if let Some(impact) = &r.impact {
        impact_text(&mut out, impact, style);
    }
    out
}

fn words_text(c: &Change, style: Style) -> String {
    let parts: Vec<String> = c
        .words
        .iter()
        .map(|w| match w.op {
            "removed" => style.removed(&format!("[-{}-]", clean(&w.text))),
            "added" => style.added(&format!("{{+{}+}}", clean(&w.text))),
            _ => clean(&w.text),
        })
        .collect();
    parts.join(" ")
}

fn compat_text(out: &mut String, verdicts: &[Verdict], d: &super::RulebookDiff, style: Style) {
    let new = &d.new.rulebook;
    let _ = writeln!(
        out,
        "\n{}",
        style.head(&format!("compatibility with {}", clean(new)))
    );
    if verdicts.is_empty() {
        let _ = writeln!(
            out,
            "  no generator or rubric written against the old version"
        );
    }
    for v in verdicts {
        if v.loads {
            let _ = writeln!(out, "  {} {}", style.added("loads"), clean(&v.file));
            continue;
        }
        let _ = writeln!(out, "  {} {}", style.removed("BREAKS"), clean(&v.file));
        for b in &v.breaks {
            let here = b.line.map_or_else(String::new, |l| format!(":{l}"));
            let _ = writeln!(
                out,
                "    {}{here} [{}] {}",
                clean(&v.file),
                b.code,
                clean(&b.message)
            );
            if let (Some(e), Some(l)) = (&b.old_entity, b.old_line) {
                let _ = writeln!(out, "      was {} at {}:{l}", clean(e), clean(&d.old.file));
            }
        }
    }
}

fn counts(map: &std::collections::BTreeMap<String, usize>) -> String {
    let parts: Vec<String> = map
        .iter()
        .map(|(k, n)| format!("{} {n}", clean(k)))
        .collect();
    parts.join(", ")
}

/// The impact's headline: moved answers, and refusals apart.
fn impact_head(i: &Impact) -> String {
    let mut head = format!("impact: {} of {} tasks change", i.changed, i.tasks);
    if i.old_rejects.count + i.new_rejects.count > 0 {
        head.push_str(&format!(
            "; {} refused by the old version only, {} by the new only",
            i.old_rejects.count, i.new_rejects.count
        ));
    }
    head
}

/// A step's move, `step of item: old → new (+delta)`.
fn step_move(m: &StepMove) -> (String, String, String, String) {
    let item = m
        .item
        .as_deref()
        .map_or_else(String::new, |i| format!(" of {}", clean(i)));
    let value = |v: &Option<serde_json::Value>| {
        v.as_ref()
            .map_or_else(|| "(not computed)".to_string(), json_text)
    };
    let delta = m
        .delta
        .as_deref()
        .map_or_else(String::new, |d| format!(" ({d})"));
    (
        format!("{}{item}", clean(&m.step)),
        value(&m.old),
        value(&m.new),
        delta,
    )
}

fn rejections_text(out: &mut String, what: &str, r: &Rejections) {
    if r.count == 0 {
        return;
    }
    let _ = writeln!(
        out,
        "  refused by {what} only: {} (by path: {})",
        r.count,
        counts(&r.by_path)
    );
    for e in &r.examples {
        let _ = writeln!(
            out,
            "    {}: {}: {}",
            clean(&e.task),
            clean(&e.path),
            clean(&e.message)
        );
    }
}

fn impact_text(out: &mut String, i: &Impact, style: Style) {
    let _ = writeln!(out, "\n{}", style.head(&impact_head(i)));
    let _ = writeln!(
        out,
        "  tasks by level: {}; by tier: {}",
        counts(&i.levels),
        counts(&i.tiers)
    );
    if i.old_years != 0 {
        let _ = writeln!(
            out,
            "  the old version read each case with its months and dates moved by {} year(s)",
            i.old_years
        );
    }
    rejections_text(out, "the old version", &i.old_rejects);
    rejections_text(out, "the new version", &i.new_rejects);
    for (field, f) in &i.fields {
        let _ = writeln!(
            out,
            "\n  {}: {} changed (by level: {}; by tier: {})",
            clean(field),
            f.changed,
            counts(&f.by_level),
            counts(&f.by_tier)
        );
        for e in &f.examples {
            let _ = writeln!(
                out,
                "    {}: {} → {}",
                clean(&e.task),
                style.removed(&json_text(&e.old)),
                style.added(&json_text(&e.new))
            );
            if let Some(d) = &e.divergence {
                let item = d
                    .item
                    .as_deref()
                    .map_or_else(String::new, |i| format!(" of {}", clean(i)));
                let _ = writeln!(
                    out,
                    "      first divergence: step {}{item}: {} → {}",
                    clean(&d.step),
                    style.removed(&computed(&d.old_value)),
                    style.added(&computed(&d.new_value))
                );
                if d.old_formula == d.new_formula {
                    let _ = writeln!(out, "        formula (both): {}", formula(&d.old_formula));
                } else {
                    let _ = writeln!(out, "        old: {}", formula(&d.old_formula));
                    let _ = writeln!(out, "        new: {}", formula(&d.new_formula));
                }
                for r in &d.reads {
                    let _ = writeln!(
                        out,
                        "        read {}: {} → {}",
                        clean(&r.name),
                        style.removed(&json_text(&r.old)),
                        style.added(&json_text(&r.new))
                    );
                }
                if !d.lookups.is_empty() {
                    let _ = writeln!(out, "        looked up: {}", clean(&d.lookups.join(", ")));
                }
                let _ = writeln!(out, "        clauses: {}", clean(&d.clauses.join(", ")));
            }
            if !e.steps.is_empty() {
                let _ = writeln!(out, "      steps that moved ({}):", e.steps_moved);
                for m in &e.steps {
                    let (at, old, new, delta) = step_move(m);
                    let _ = writeln!(
                        out,
                        "        {at}: {} → {}{delta}",
                        style.removed(&old),
                        style.added(&new)
                    );
                }
                if e.steps_moved > e.steps.len() {
                    let _ = writeln!(out, "        … and {} more", e.steps_moved - e.steps.len());
                }
            }
        }
    }
}

/// Text for a Markdown table cell: one line, `|` escaped.
fn cell(text: &str) -> String {
    let mut out = String::new();
    for c in clean(text).chars() {
        if matches!(
            c,
            '\\' | '|' | '*' | '_' | '`' | '[' | ']' | '<' | '>' | '#' | '~'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Text for inside a code span in a table cell: one line, `|` escaped (a
/// table splits on it even there), a backtick written as `'` (it would end
/// the span); nothing else is read as Markdown inside a span.
fn code(text: &str) -> String {
    clean(text).replace('|', "\\|").replace('`', "'")
}

/// The report as Markdown: a table per section.
pub fn render_markdown(r: &Report) -> String {
    let d = &r.diff;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {} → {}\n\n`{}` → `{}`: {} change(s).",
        cell(&d.old.rulebook),
        cell(&d.new.rulebook),
        code(&d.old.file),
        code(&d.new.file),
        d.len()
    );
    for section in Section::ALL {
        let changes = &d.sections[&section];
        if changes.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "\n## {}\n\n| | what | old | new | lines |\n|---|---|---|---|---|",
            section.name()
        );
        for c in changes {
            let mark = match c.kind {
                ChangeKind::Added => "added",
                ChangeKind::Removed => "removed",
                ChangeKind::Changed => "changed",
            };
            let (old, new) = if c.words.is_empty() {
                (
                    cell(c.old.as_deref().unwrap_or("")),
                    cell(c.new.as_deref().unwrap_or("")),
                )
            } else {
                let w: Vec<String> = c
                    .words
                    .iter()
                    .map(|w| match w.op {
                        "removed" => format!("~~{}~~", cell(&w.text)),
                        "added" => format!("**{}**", cell(&w.text)),
                        _ => cell(&w.text),
                    })
                    .collect();
                (String::new(), w.join(" "))
            };
            let _ = writeln!(
                out,
                "| {mark} | `{}` | {old} | {new} | {} |",
                thing(c),
                cell(&lines(c))
            );
        }
    }
    if let Some(verdicts) = &r.compatibility {
        let _ = writeln!(out, "\n## compatibility with {}\n", cell(&d.new.rulebook));
        if verdicts.is_empty() {
            let _ = writeln!(
                out,
                "No generator or rubric written against the old version."
            );
        }
        for v in verdicts {
            let _ = writeln!(
                out,
                "- `{}`: {}",
                code(&v.file),
                if v.loads { "loads" } else { "**breaks**" }
            );
            for b in &v.breaks {
                let here = b.line.map_or_else(String::new, |l| format!("line {l}"));
                let there = match (&b.old_entity, b.old_line) {
                    (Some(e), Some(l)) => format!(", old rulebook line {l} (`{}`)", code(e)),
                    _ => String::new(),
                };
                let _ = writeln!(out, "  - {here}{there}: `{}` {}", b.code, cell(&b.message));
            }
        }
    }
    if let Some(i) = &r.impact {
        let _ = writeln!(out, "\n## {}\n", cell(&impact_head(i)));
        if i.old_years != 0 {
            let _ = writeln!(
                out,
                "The old version read each case with its months and dates moved by {} year(s).\n",
                i.old_years
            );
        }
        for (what, r) in [
            ("the old version", &i.old_rejects),
            ("the new version", &i.new_rejects),
        ] {
            if r.count == 0 {
                continue;
            }
            let _ = writeln!(
                out,
                "Refused by {what} only: {} (by path: {}).\n",
                r.count,
                cell(&counts(&r.by_path))
            );
            for e in &r.examples {
                let _ = writeln!(
                    out,
                    "- `{}`: `{}`: {}",
                    code(&e.task),
                    code(&e.path),
                    cell(&e.message)
                );
            }
            if !r.examples.is_empty() {
                let _ = writeln!(out);
            }
        }
        let _ = writeln!(
            out,
            "| field | changed | by level | by tier |\n|---|---|---|---|"
        );
        for (field, f) in &i.fields {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} |",
                code(field),
                f.changed,
                cell(&counts(&f.by_level)),
                cell(&counts(&f.by_tier))
            );
        }
        for (field, f) in &i.fields {
            for e in &f.examples {
                let _ = writeln!(
                    out,
                    "\n- `{}` of `{}`: {} → {}",
                    code(field),
                    code(&e.task),
                    cell(&json_text(&e.old)),
                    cell(&json_text(&e.new))
                );
                if let Some(dv) = &e.divergence {
                    let _ = writeln!(
                        out,
                        "  first divergence: step `{}`{}: {} → {}; old `{}`, new `{}`; clauses {}",
                        code(&dv.step),
                        dv.item
                            .as_deref()
                            .map_or_else(String::new, |i| format!(" of `{}`", code(i))),
                        cell(&computed(&dv.old_value)),
                        cell(&computed(&dv.new_value)),
                        formula(&dv.old_formula),
                        formula(&dv.new_formula),
                        cell(&dv.clauses.join(", "))
                    );
                    if !dv.lookups.is_empty() {
                        let _ = writeln!(out, "  looked up: {}", cell(&dv.lookups.join(", ")));
                    }
                    for r in &dv.reads {
                        let (old, new) = (json_text(&r.old), json_text(&r.new));
                        let _ = writeln!(out, "  read `{}`: {old} → {new}", code(&r.name));
                    }
                }
                if !e.steps.is_empty() {
                    let _ = writeln!(out, "  steps that moved ({}):", e.steps_moved);
                    for m in &e.steps {
                        let (at, old, new, delta) = step_move(m);
                        let _ = writeln!(
                            out,
                            "  - `{}`: {} → {}{}",
                            code(&at),
                            cell(&old),
                            cell(&new),
                            cell(&delta)
                        );
                    }
                    if e.steps_moved > e.steps.len() {
                        let _ = writeln!(out, "  - … and {} more", e.steps_moved - e.steps.len());
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{cell, code};

    #[test]
    fn a_markdown_cell_escapes_what_markdown_reads_and_a_code_span_only_its_pipe() {
        assert_eq!(cell("a_b * c|d"), "a\\_b \\* c\\|d");
        assert_eq!(cell("net_a_payer"), "net\\_a\\_payer");
        assert_eq!(code("a|b`c_d*"), "a\\|b'c_d*");
    }
}
