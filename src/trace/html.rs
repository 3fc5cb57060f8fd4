//! The HTML audit page of one evaluation (`eval --trace html`,
//! `docs/audit-page.md`): one self-contained file an auditor reads, prints
//! and signs — the answer first, why the decision is what it is, the
//! rulebook's report tables, the inputs, then every step in order with
//! what it read and where from, its exact value, rounding and margin.
//!
//! Invariant: the page names nothing outside itself (inline CSS, no
//! script, no URL: every link is a `#fragment` of the page), and every
//! piece of text from the case or the rulebook goes through [`escape_html`]
//! (after `escape_text`, so a control or bidi character is shown, not
//! obeyed); the same trace gives the same bytes.

use std::fmt::Write;

use super::answer::{answer_fields, Field, FieldValue};
use super::page::{cell_text, is_nothing, safe, value_text, Block, Group, Page, PageSource};
use super::{escape_text, CheckTrace, CiteTrace, OutcomeTrace, ReadTrace, StepTrace};
use crate::facts::Given;

/// The page's style: readable on a screen, printable on A4.
pub(super) const STYLE: &str = include_str!("page.css");

/// Text as HTML: `escape_text`'s visible escapes, then `&`, `<`, `>`, `"`
/// and `'` as character references, so no text can close an element,
/// open one, or leave an attribute.
///
/// ```
/// # use bareme::unstable::trace::escape_html;
/// assert_eq!(escape_html("</details><script>"), "&lt;/details&gt;&lt;script&gt;");
/// assert_eq!(escape_html("a\u{202e}b"), "a\\u{202e}b");
/// ```
pub fn escape_html(text: &str) -> String {
    let text = escape_text(text);
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A multi-line formula: each line escaped, line breaks kept (inside `<pre>`).
fn escape_block(text: &str) -> String {
    let lines: Vec<String> = text.trim().lines().map(escape_html).collect();
    lines.join("\n")
}

/// Renders the HTML audit page of one evaluation.
///
/// ```
/// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// # let case = br#"{"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"}"#;
/// # let value: serde_json::Value = serde_json::from_slice(case)?;
/// let (outcome, trace) = bareme::evaluate_value(&rb, &value, true)?;
/// let bareme::Outcome::Answer(answer) = outcome else { panic!() };
/// let mut json = Vec::new();
/// answer.write_json(&mut json);
/// let page = bareme::unstable::trace::render_html(&bareme::unstable::trace::PageSource {
///     rulebook: &rb,
///     trace: &trace.expect("asked for"),
///     answer: Some(std::str::from_utf8(&json)?),
///     case,
/// });
/// assert!(page.contains(r##"<a href="#step-net_pay">2237.50</a>"##));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn render_html(src: &PageSource<'_>) -> String {
    let page = Page::new(src);
    let mut out = String::with_capacity(64 << 10);
    let title = escape_html(&page.title);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title} — audit</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n"
    );
    write_header(&mut out, &page, &title);
    out.push_str("<main>\n");
    let answer = src
        .answer
        .map(|a| answer_fields(&page, a))
        .unwrap_or_default();
    write_answer(&mut out, &page, &answer);
    write_why(&mut out, &page);
    write_reports(&mut out, &page);
    write_inputs(&mut out, &page);
    out.push_str("<section id=\"evaluation\">\n<h2>Evaluation, step by step</h2>\n");
    let mut quoted = Vec::new();
    for block in &page.blocks {
        match block {
            Block::Check(c) => write_check(&mut out, &page, c),
            Block::Step(s) => write_step(&mut out, &page, s, &mut quoted),
            Block::Cite(c) => {
                out.push_str("<p class=\"cite\">");
                write_cite(&mut out, &page, c);
                out.push_str("</p>\n");
            }
            Block::Group(g) => write_group(&mut out, &page, g),
        }
    }
    out.push_str("</section>\n");
    write_clauses(&mut out, &page);
    out.push_str("</main>\n<footer>Written by ");
    out.push_str(&escape_html(&page.engine));
    out.push_str(" from the evaluation's trace; every value links to the step that made it.</footer>\n</body>\n</html>\n");
    out
}

fn write_header(out: &mut String, page: &Page<'_>, title: &str) {
    let _ = writeln!(
        out,
        "<header>\n<p class=\"kicker\">Audit of one evaluation</p>\n<h1>{title}</h1>"
    );
    out.push_str("<table class=\"meta\">\n");
    for (label, value) in &page.header {
        let _ = writeln!(
            out,
            "<tr><th>{label}</th><td><code>{}</code></td></tr>",
            escape_html(value)
        );
    }
    if let Some(a) = page.ablation {
        let _ = writeln!(
            out,
            "<tr class=\"warn\"><th>ablation</th><td><code>{}</code> — an alternative reading, not the rules</td></tr>",
            escape_html(a)
        );
    }
    out.push_str("</table>\n</header>\n");
}

/// `<a href="#id">text</a>`, or the text alone.
fn linked(text: &str, href: Option<&str>) -> String {
    match href {
        Some(h) => format!("<a href=\"#{h}\">{}</a>", escape_html(text)),
        None => escape_html(text),
    }
}

fn clause_links<S: AsRef<str>>(page: &Page<'_>, clauses: &[S]) -> String {
    let links: Vec<String> = clauses
        .iter()
        .map(|c| {
            let c = c.as_ref();
            format!(
                "<a href=\"#{}\">{}</a>",
                page.clause_anchor(c),
                escape_html(c)
            )
        })
        .collect();
    links.join(" ")
}

fn write_answer(out: &mut String, page: &Page<'_>, answer: &[Field]) {
    out.push_str("<section id=\"answer\">\n<h2>Answer</h2>\n");
    match &page.trace.outcome {
        OutcomeTrace::Decision {
            decision,
            reason,
            clauses,
        } => {
            let _ = write!(
                out,
                "<p class=\"decision\">Decision <strong>{}</strong>",
                escape_html(decision)
            );
            if let Some(r) = reason {
                let _ = write!(out, ", reason <strong>{}</strong>", escape_html(r));
            }
            let ids: Vec<std::sync::Arc<str>> = clauses.iter().map(|c| c.as_str().into()).collect();
            let _ = writeln!(
                out,
                " <span class=\"clauses\">{}</span></p>",
                clause_links(page, &ids)
            );
        }
        OutcomeTrace::Rejected { error } => {
            let _ = writeln!(
                out,
                "<p class=\"decision rejected\">Rejected at <code>{}</code>: {}</p>",
                escape_html(&error.path),
                escape_html(&error.message)
            );
        }
    }
    let scalars: Vec<_> = answer
        .iter()
        .filter(|f| matches!(f.value, FieldValue::Scalar(_)))
        .collect();
    if !scalars.is_empty() {
        out.push_str("<table class=\"answer\">\n<thead><tr><th>field</th><th>value</th></tr></thead>\n<tbody>\n");
        for f in scalars {
            if let FieldValue::Scalar(v) = &f.value {
                let _ = writeln!(
                    out,
                    "<tr><th>{}</th><td class=\"num\">{}</td></tr>",
                    escape_html(&f.key),
                    linked(v, f.href.as_deref())
                );
            }
        }
        out.push_str("</tbody>\n</table>\n");
    }
    for f in answer {
        let FieldValue::Items { columns, rows } = &f.value else {
            continue;
        };
        let keyed = rows.iter().any(|(k, _)| k.is_some());
        let _ = writeln!(
            out,
            "<h3>{}</h3>\n<table class=\"answer items\">\n<thead><tr>",
            escape_html(&f.key)
        );
        if keyed {
            out.push_str("<th>key</th>");
        }
        for c in columns {
            let _ = write!(out, "<th>{}</th>", escape_html(c));
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        for (key, cells) in rows {
            out.push_str("<tr>");
            if keyed {
                let _ = write!(
                    out,
                    "<th>{}</th>",
                    escape_html(key.as_deref().unwrap_or(""))
                );
            }
            for (text, href) in cells {
                let _ = write!(out, "<td>{}</td>", linked(text, href.as_deref()));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody>\n</table>\n");
    }
    out.push_str("</section>\n");
}

fn write_why(out: &mut String, page: &Page<'_>) {
    out.push_str("<section id=\"why\">\n<h2>Why this decision</h2>\n<ul>\n");
    let checks: Vec<&CheckTrace> = page
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Check(c) => Some(*c),
            _ => None,
        })
        .collect();
    let failed: Vec<String> = checks
        .iter()
        .filter(|c| !c.held)
        .map(|c| format!("<a href=\"#check-{}\">{}</a>", c.index, c.index))
        .collect();
    if !failed.is_empty() {
        let _ = writeln!(
            out,
            "<li>Check{} {} did not hold.</li>",
            if failed.len() == 1 { "" } else { "s" },
            failed.join(", ")
        );
    }
    match page.deciding_check() {
        Some(c) => {
            let when = c.when.as_deref().unwrap_or("always");
            let label = c
                .label
                .as_deref()
                .map(|l| format!(" — {}", escape_html(l)))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "<li><a href=\"#check-{}\">Check {}</a>{label}: <code>{}</code> holds → <strong>{}</strong>.</li>",
                c.index,
                c.index,
                escape_html(when),
                escape_html(&c.gives)
            );
        }
        None => out.push_str("<li>No check held: the case was rejected as it was read.</li>\n"),
    }
    for c in page.decision_cites() {
        out.push_str("<li>");
        write_cite(out, page, c);
        out.push_str("</li>\n");
    }
    out.push_str("</ul>\n</section>\n");
}

fn write_reports(out: &mut String, page: &Page<'_>) {
    for (n, report) in page.trace.reports.iter().enumerate() {
        let title = report.title.as_deref().unwrap_or("Report");
        let _ = writeln!(
            out,
            "<section class=\"report\" id=\"report-{n}\">\n<h2>{}</h2>\n<table class=\"payslip\">\n<thead><tr>",
            escape_html(title)
        );
        for h in &report.header {
            let _ = write!(out, "<th>{}</th>", escape_html(h));
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        for row in &report.rows {
            out.push_str("<tr>");
            for (i, cell) in row.iter().enumerate() {
                let class = if i == 0 { "" } else { " class=\"num\"" };
                let _ = write!(out, "<td{class}>{}</td>", escape_html(cell));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody>\n");
        if !report.totals.is_empty() {
            out.push_str("<tfoot>\n");
            let span = report.header.len().saturating_sub(1).max(1);
            for (label, value) in &report.totals {
                let _ = writeln!(
                    out,
                    "<tr><th>{}</th><td class=\"num\" colspan=\"{span}\">{}</td></tr>",
                    escape_html(label),
                    escape_html(value)
                );
            }
            out.push_str("</tfoot>\n");
        }
        out.push_str("</table>\n</section>\n");
    }
}

fn write_inputs(out: &mut String, page: &Page<'_>) {
    out.push_str("<section id=\"inputs\">\n<h2>Inputs</h2>\n<table class=\"inputs\">\n<thead><tr><th>input</th><th>value</th><th>given</th></tr></thead>\n<tbody>\n");
    for i in &page.trace.inputs {
        let given = match i.given {
            Given::Value => "given",
            Given::Absent => "absent",
            Given::Null => "null",
            Given::Default => "default",
            Given::Invalid => "invalid, read as absent or default",
            Given::Ignored => "ignored: its condition does not hold",
        };
        let value = match i.given {
            Given::Absent | Given::Ignored => String::new(),
            _ => escape_html(&value_text(&i.value)),
        };
        let _ = writeln!(
            out,
            "<tr id=\"input-{}\"><th>{}</th><td>{value}</td><td class=\"muted\">{given}</td></tr>",
            safe(&i.name),
            escape_html(&i.name)
        );
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

fn write_check(out: &mut String, page: &Page<'_>, c: &CheckTrace) {
    let when = c.when.as_deref().unwrap_or("always");
    let class = if c.held { "check held" } else { "check" };
    let _ = write!(
        out,
        "<div class=\"{class}\" id=\"check-{}\"><p><span class=\"tag\">check {}</span> <code>{}</code>",
        c.index,
        c.index,
        escape_html(when)
    );
    if let Some(l) = &c.label {
        let _ = write!(out, " <span class=\"label\">{}</span>", escape_html(l));
    }
    if c.held {
        let _ = write!(out, " → <strong>holds: {}</strong>", escape_html(&c.gives));
    } else {
        out.push_str(" → does not hold");
    }
    out.push_str("</p>\n");
    write_reads(out, page, &c.reads, None);
    out.push_str("</div>\n");
}

fn write_reads(out: &mut String, page: &Page<'_>, reads: &[ReadTrace], item: Option<&str>) {
    if reads.is_empty() {
        return;
    }
    out.push_str("<table class=\"reads\">\n<thead><tr><th>read</th><th>value</th><th>from</th></tr></thead>\n<tbody>\n");
    for r in reads {
        let o = page.origin(r, item);
        let detail = if o.detail.is_empty() {
            String::new()
        } else {
            format!(" <span class=\"muted\">{}</span>", escape_html(&o.detail))
        };
        let _ = writeln!(
            out,
            "<tr><td><code>{}</code></td><td class=\"num\">{}</td><td>{}{detail}</td></tr>",
            escape_html(&r.name),
            linked(&value_text(&r.value), o.href.as_deref()),
            o.kind
        );
    }
    out.push_str("</tbody>\n</table>\n");
}

fn write_cite(out: &mut String, page: &Page<'_>, c: &CiteTrace) {
    let verdict = if c.held { "cites" } else { "does not cite" };
    let _ = write!(
        out,
        "citation <code>{}</code> → {verdict} {}",
        escape_html(&c.when),
        clause_links(page, &c.clauses)
    );
}

/// The parts of a step's work shown both in a step's card and in an
/// item's row: condition, lookups, exact value, roundings, citations.
fn write_work(out: &mut String, page: &Page<'_>, s: &StepTrace) {
    if let Some(c) = &s.condition {
        let _ = writeln!(
            out,
            "<p class=\"when\">when <code>{}</code> → {}</p>",
            escape_html(&c.formula),
            if c.held { "applies" } else { "does not apply" }
        );
    }
    for l in &s.lookups {
        let row = match &l.row {
            Some(r) => format!("row <strong>{}</strong>", escape_html(r)),
            None => "no row".into(),
        };
        let what = if l.kind == "scale" {
            format!("scale on {}", escape_html(&l.key))
        } else {
            format!("{} {} → {row}", l.kind, escape_html(&l.key))
        };
        let _ = writeln!(
            out,
            "<p class=\"lookup\">table <code>{}</code> ({}): {what} — {}</p>",
            escape_html(&l.table),
            escape_html(&l.source),
            escape_html(&l.why)
        );
    }
    let rounds_at_step = s.roundings.iter().any(|r| r.at == "step");
    if rounds_at_step {
        let _ = writeln!(
            out,
            "<p class=\"exact\">exact <span class=\"num\">{}</span></p>",
            escape_html(&value_text(s.exact()))
        );
    }
    for r in &s.roundings {
        let at = if r.at == "step" {
            "rounded".to_string()
        } else {
            format!("inside, <code>{}</code>", escape_html(&r.at))
        };
        let _ = writeln!(
            out,
            "<p class=\"rounding\">{at} {} to {} places: {} → {} <span class=\"margin\">margin {}</span></p>",
            r.rounded.mode.name(),
            r.rounded.places,
            escape_html(&r.rounded.before.to_string()),
            escape_html(&r.rounded.after.to_string()),
            escape_html(&r.rounded.margin.to_string())
        );
    }
    for c in &s.cites {
        out.push_str("<p class=\"cite\">");
        write_cite(out, page, c);
        out.push_str("</p>\n");
    }
}

fn write_step(out: &mut String, page: &Page<'_>, s: &StepTrace, quoted: &mut Vec<String>) {
    let id = page.anchor(s);
    let class = if s.detail { "step detail" } else { "step" };
    let _ = write!(
        out,
        "<article class=\"{class}\" id=\"{id}\">\n<h3><code>{}</code>",
        escape_html(&s.step)
    );
    if let Some(l) = &s.label {
        let _ = write!(out, " <span class=\"label\">{}</span>", escape_html(l));
    }
    if !s.clauses.is_empty() {
        let _ = write!(
            out,
            " <span class=\"clauses\">{}</span>",
            clause_links(page, &s.clauses)
        );
    }
    let _ = writeln!(
        out,
        " <span class=\"value\">= {}</span></h3>",
        escape_html(&value_text(&s.value))
    );
    // A clause's text is quoted where it is first applied; later steps link to it.
    for c in s.clauses.iter() {
        if quoted.iter().any(|q| **q == **c) {
            continue;
        }
        quoted.push(c.to_string());
        if let Some(text) = page.clause_text(c) {
            let _ = writeln!(
                out,
                "<blockquote class=\"clause\"><strong>{}</strong> {}</blockquote>",
                escape_html(c),
                escape_html(text)
            );
        }
    }
    let _ = writeln!(
        out,
        "<pre class=\"formula\">{}</pre>",
        escape_block(&s.formula)
    );
    write_reads(out, page, &s.reads, s.item.as_deref());
    write_work(out, page, s);
    out.push_str("</article>\n");
}

fn write_group(out: &mut String, page: &Page<'_>, g: &Group<'_>) {
    let _ = write!(
        out,
        "<section class=\"group\" id=\"group-{}\">\n<h3>Per item: <code>{}</code>",
        safe(&g.name),
        escape_html(&g.name)
    );
    if let Some(l) = &g.label {
        let _ = write!(out, " <span class=\"label\">{}</span>", escape_html(l));
    }
    let _ = write!(out, " <span class=\"muted\">{} items", g.items.len());
    if let Some(over) = &g.over {
        let _ = write!(out, " of <code>{}</code>", escape_html(over));
    }
    out.push_str("</span></h3>\n");
    out.push_str("<table class=\"defs\">\n<thead><tr><th>step</th><th>formula</th><th>clauses</th></tr></thead>\n<tbody>\n");
    for c in &g.columns {
        let label = c
            .label
            .as_deref()
            .map(|l| format!("<br><span class=\"label\">{}</span>", escape_html(l)))
            .unwrap_or_default();
        let when = c
            .condition
            .as_ref()
            .map(|w| format!("\nwhen {}", escape_block(&w.formula)))
            .unwrap_or_default();
        let (own, cites) = page.declared_clauses(&g.name, c);
        let mut texts: Vec<String> = own
            .iter()
            .map(|id| {
                let text = page.clause_text(id).unwrap_or("");
                format!(
                    "<a href=\"#{}\">{}</a> <span class=\"muted\">{}</span>",
                    page.clause_anchor(id),
                    escape_html(id),
                    escape_html(text)
                )
            })
            .collect();
        for (when, ids) in &cites {
            texts.push(format!(
                "{} when <code>{}</code>",
                clause_links(page, ids),
                escape_html(when)
            ));
        }
        let _ = writeln!(
            out,
            "<tr><th><code>{}</code>{label}</th><td><pre class=\"formula\">{}{when}</pre></td><td class=\"small\">{}</td></tr>",
            escape_html(&c.step),
            escape_block(&c.formula),
            texts.join("<br>")
        );
    }
    out.push_str("</tbody>\n</table>\n<div class=\"scroll\"><table class=\"items\">\n<thead><tr><th>item</th>");
    for f in &g.fields {
        let _ = write!(out, "<th class=\"field\">{}</th>", escape_html(f));
    }
    for c in &g.columns {
        let _ = write!(out, "<th>{}</th>", escape_html(&c.step));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for (item, steps) in &g.items {
        let dim = steps
            .iter()
            .all(|s| is_nothing(&s.value) && s.roundings.is_empty());
        let _ = write!(
            out,
            "<tr{}><th><a href=\"#item-{}\">{}</a></th>",
            if dim { " class=\"nothing\"" } else { "" },
            safe(item),
            escape_html(item)
        );
        for f in &g.fields {
            let value = steps
                .iter()
                .find_map(|s| s.reads.iter().find(|r| *r.name == **f))
                .map(|r| cell_text(&r.value))
                .unwrap_or_default();
            let _ = write!(out, "<td class=\"field\">{}</td>", escape_html(&value));
        }
        for c in &g.columns {
            match steps.iter().find(|s| s.step == c.step) {
                Some(s) => {
                    let _ = write!(
                        out,
                        "<td class=\"num\"><a href=\"#{}\">{}</a></td>",
                        page.anchor(s),
                        escape_html(&cell_text(&s.value))
                    );
                }
                None => out.push_str("<td></td>"),
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table></div>\n");
    for (item, steps) in &g.items {
        let _ = writeln!(
            out,
            "<details class=\"item\" id=\"item-{}\"><summary><code>{}</code> — what each step read, its rounding and margin</summary>",
            safe(item),
            escape_html(item)
        );
        out.push_str("<table class=\"work\">\n<thead><tr><th>step</th><th>read</th><th>work</th><th>value</th></tr></thead>\n<tbody>\n");
        for s in steps {
            let reads: Vec<String> = s
                .reads
                .iter()
                .map(|r| {
                    let o = page.origin(r, Some(item));
                    format!(
                        "<code>{}</code> = {} <span class=\"muted\">{}</span>",
                        escape_html(&r.name),
                        linked(&cell_text(&r.value), o.href.as_deref()),
                        o.kind
                    )
                })
                .collect();
            let mut work = String::new();
            write_work(&mut work, page, s);
            let _ = writeln!(
                out,
                "<tr id=\"{}\"><th><code>{}</code></th><td class=\"small\">{}</td><td class=\"small\">{work}</td><td class=\"num\"><strong>{}</strong></td></tr>",
                page.anchor(s),
                escape_html(&s.step),
                reads.join("<br>"),
                escape_html(&cell_text(&s.value))
            );
        }
        out.push_str("</tbody>\n</table>\n</details>\n");
    }
    out.push_str("</section>\n");
}

fn write_clauses(out: &mut String, page: &Page<'_>) {
    if page.clauses.is_empty() {
        return;
    }
    out.push_str("<section id=\"clauses\">\n<h2>Clauses</h2>\n<dl>\n");
    for (id, text) in &page.clauses {
        let _ = writeln!(
            out,
            "<dt id=\"{}\">{}</dt><dd>{}</dd>",
            page.clause_anchor(id),
            escape_html(id),
            escape_html(text)
        );
    }
    out.push_str("</dl>\n</section>\n");
}
