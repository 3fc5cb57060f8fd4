//! The Markdown audit page of one evaluation (`eval --trace markdown`,
//! `docs/audit-page.md`): what the HTML page shows, as GitHub-flavoured
//! Markdown tables and lists, for a review or a pull request.
//!
//! Invariant: no text from the case or the rulebook is written unescaped:
//! prose and table cells go through [`escape_markdown`] (`escape_text`
//! first, then every character Markdown or a table gives a meaning, HTML
//! brackets as references), code through a fence or span longer than any
//! run of backticks it holds; the only HTML written is `<a id>` anchors
//! whose ids hold `[A-Za-z0-9_-]` alone, and the empty comment that keeps
//! an `@` from making a mail link.

use std::fmt::Write;

use super::answer::{answer_fields, Field, FieldValue};
use super::page::{cell_text, is_nothing, safe, value_text, Block, Group, Page, PageSource};
use super::{escape_text, CheckTrace, CiteTrace, OutcomeTrace, ReadTrace, StepTrace};
use crate::facts::Given;

/// Text as Markdown prose or a table cell: `escape_text`'s visible escapes,
/// then `\`, `` ` ``, `*`, `_`, `[`, `]`, `|`, `~`, `#`, `$` behind a
/// backslash, and `<`, `>`, `&` as character references. GitHub also makes
/// links of bare text (`https://…`, `www.…`, `name@host.tld`): the `:`
/// before `//` and the `.` after `www` go behind a backslash, and an `@`
/// is followed by an empty comment, since mail links are found after
/// escapes are undone.
///
/// ```
/// # use bareme::unstable::trace::escape_markdown;
/// assert_eq!(escape_markdown("a|b *c*"), r"a\|b \*c\*");
/// assert_eq!(escape_markdown("<b>"), "&lt;b&gt;");
/// assert_eq!(escape_markdown("https://e.x www.e.x a@e.x"), r"https\://e.x www\.e.x a@<!-- -->e.x");
/// ```
pub fn escape_markdown(text: &str) -> String {
    let text = escape_text(text);
    let mut out = String::with_capacity(text.len() + 8);
    for (i, c) in text.char_indices() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' | '#' | '$' => {
                out.push('\\');
                out.push(c);
            }
            ':' if text[i + 1..].starts_with("//") => out.push_str("\\:"),
            '.' if (out.get(out.len().saturating_sub(3)..))
                .is_some_and(|end| end.eq_ignore_ascii_case("www")) =>
            {
                out.push_str("\\.")
            }
            '@' => out.push_str("@<!-- -->"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            c => out.push(c),
        }
    }
    out
}

/// The longest run of backticks in `text`.
fn longest_ticks(text: &str) -> usize {
    let (mut best, mut run) = (0, 0);
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

/// Code in a table cell: one line, in a span longer than any run of
/// backticks inside, `|` escaped (GitHub reads `\|` in a cell's span as `|`,
/// and a bare one as the cell's end).
pub(super) fn code(text: &str) -> String {
    span(text, true)
}

/// Code in a line outside a table, where `\|` would show its backslash.
fn code_line(text: &str) -> String {
    span(text, false)
}

fn span(text: &str, cell: bool) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let joined = words.join(" ");
    let flat = escape_text(&joined);
    let flat = match cell {
        true => flat.replace('|', "\\|"),
        false => flat.into_owned(),
    };
    let fence = "`".repeat(longest_ticks(&flat) + 1);
    let pad = if flat.starts_with('`') || flat.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{flat}{pad}{fence}")
}

/// A formula as a fenced block, its lines as written.
fn code_block(out: &mut String, text: &str) {
    let lines: Vec<String> = text
        .trim()
        .lines()
        .map(|l| escape_text(l).into_owned())
        .collect();
    let body = lines.join("\n");
    let fence = "`".repeat((longest_ticks(&body) + 1).max(3));
    let _ = writeln!(out, "{fence}text\n{body}\n{fence}\n");
}

/// `[text](#id)`, or the escaped text alone.
fn linked(text: &str, href: Option<&str>) -> String {
    match href {
        Some(h) => format!("[{}](#{h})", escape_markdown(text)),
        None => escape_markdown(text),
    }
}

fn clause_links<S: AsRef<str>>(page: &Page<'_>, clauses: &[S]) -> String {
    let links: Vec<String> = clauses
        .iter()
        .map(|c| {
            let c = c.as_ref();
            format!("[{}](#{})", escape_markdown(c), page.clause_anchor(c))
        })
        .collect();
    links.join(", ")
}

/// A table's header and alignment lines: `num` columns right-aligned.
pub(super) fn table_head(out: &mut String, columns: &[String], num: &[bool]) {
    out.push('|');
    for c in columns {
        let _ = write!(out, " {c} |");
    }
    out.push_str("\n|");
    for i in 0..columns.len() {
        out.push_str(if num.get(i).copied().unwrap_or(false) {
            "--:|"
        } else {
            "---|"
        });
    }
    out.push('\n');
}

pub(super) fn table_row(out: &mut String, cells: &[String]) {
    out.push('|');
    for c in cells {
        let _ = write!(out, " {c} |");
    }
    out.push('\n');
}

/// Renders the Markdown audit page of one evaluation (see `render_html`).
pub fn render_markdown(src: &PageSource<'_>) -> String {
    let page = Page::new(src);
    let mut out = String::with_capacity(32 << 10);
    let _ = writeln!(
        out,
        "# {} — audit of one evaluation\n",
        escape_markdown(&page.title)
    );
    table_head(&mut out, &["".into(), "".into()], &[]);
    for (label, value) in &page.header {
        table_row(&mut out, &[(*label).into(), code(value)]);
    }
    if let Some(a) = page.ablation {
        table_row(
            &mut out,
            &[
                "**ablation**".into(),
                format!("{} — an alternative reading, not the rules", code(a)),
            ],
        );
    }
    out.push('\n');
    let answer = src
        .answer
        .map(|a| answer_fields(&page, a))
        .unwrap_or_default();
    write_answer(&mut out, &page, &answer);
    write_why(&mut out, &page);
    write_reports(&mut out, &page);
    write_inputs(&mut out, &page);
    out.push_str("## Evaluation, step by step\n\n");
    let mut quoted: Vec<String> = Vec::new();
    for block in &page.blocks {
        match block {
            Block::Check(c) => write_check(&mut out, &page, c),
            Block::Step(s) => write_step(&mut out, &page, s, &mut quoted),
            Block::Cite(c) => {
                let _ = writeln!(out, "- {}\n", cite(&page, c));
            }
            Block::Group(g) => write_group(&mut out, &page, g),
        }
    }
    if !page.clauses.is_empty() {
        out.push_str("## Clauses\n\n");
        for (id, text) in &page.clauses {
            let _ = writeln!(
                out,
                "- <a id=\"{}\"></a>**{}** — {}",
                page.clause_anchor(id),
                escape_markdown(id),
                escape_markdown(text)
            );
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "*Written by {} from the evaluation's trace; every value links to the step that made it.*",
        escape_markdown(&page.engine)
    );
    out
}

fn write_answer(out: &mut String, page: &Page<'_>, answer: &[Field]) {
    out.push_str("## Answer\n\n");
    match &page.trace.outcome {
        OutcomeTrace::Decision {
            decision,
            reason,
            clauses,
        } => {
            let _ = write!(out, "Decision **{}**", escape_markdown(decision));
            if let Some(r) = reason {
                let _ = write!(out, ", reason **{}**", escape_markdown(r));
            }
            let _ = writeln!(out, " — clauses {}\n", clause_links(page, clauses));
        }
        OutcomeTrace::Rejected { error } => {
            let _ = writeln!(
                out,
                "**Rejected** at {}: {}\n",
                code_line(&error.path),
                escape_markdown(&error.message)
            );
        }
    }
    let scalars: Vec<_> = answer
        .iter()
        .filter_map(|f| match &f.value {
            FieldValue::Scalar(v) => Some((f, v)),
            FieldValue::Items { .. } => None,
        })
        .collect();
    if !scalars.is_empty() {
        table_head(out, &["field".into(), "value".into()], &[false, true]);
        for (f, v) in scalars {
            table_row(
                out,
                &[escape_markdown(&f.key), linked(v, f.href.as_deref())],
            );
        }
        out.push('\n');
    }
    for f in answer {
        let FieldValue::Items { columns, rows } = &f.value else {
            continue;
        };
        let _ = writeln!(out, "### {}\n", escape_markdown(&f.key));
        let keyed = rows.iter().any(|(k, _)| k.is_some());
        let mut head: Vec<String> = Vec::new();
        if keyed {
            head.push("key".into());
        }
        head.extend(columns.iter().map(|c| escape_markdown(c)));
        table_head(out, &head, &[]);
        for (key, cells) in rows {
            let mut row: Vec<String> = Vec::new();
            if keyed {
                row.push(escape_markdown(key.as_deref().unwrap_or("")));
            }
            row.extend(cells.iter().map(|(t, h)| linked(t, h.as_deref())));
            table_row(out, &row);
        }
        out.push('\n');
    }
}

fn write_why(out: &mut String, page: &Page<'_>) {
    out.push_str("## Why this decision\n\n");
    let failed: Vec<String> = page
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Check(c) if !c.held => Some(format!("[{}](#check-{})", c.index, c.index)),
            _ => None,
        })
        .collect();
    if !failed.is_empty() {
        let _ = writeln!(
            out,
            "- Check{} {} did not hold.",
            if failed.len() == 1 { "" } else { "s" },
            failed.join(", ")
        );
    }
    match page.deciding_check() {
        Some(c) => {
            let label = c
                .label
                .as_deref()
                .map(|l| format!(" — {}", escape_markdown(l)))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "- [Check {}](#check-{}){label}: {} holds → **{}**.",
                c.index,
                c.index,
                code_line(c.when.as_deref().unwrap_or("always")),
                escape_markdown(&c.gives)
            );
        }
        None => out.push_str("- No check held: the case was rejected as it was read.\n"),
    }
    for c in page.decision_cites() {
        let _ = writeln!(out, "- {}", cite(page, c));
    }
    out.push('\n');
}

fn write_reports(out: &mut String, page: &Page<'_>) {
    for report in &page.trace.reports {
        let _ = writeln!(
            out,
            "## {}\n",
            escape_markdown(report.title.as_deref().unwrap_or("Report"))
        );
        let head: Vec<String> = report.header.iter().map(|h| escape_markdown(h)).collect();
        let num: Vec<bool> = (0..head.len()).map(|i| i > 0).collect();
        table_head(out, &head, &num);
        for row in &report.rows {
            let cells: Vec<String> = row.iter().map(|c| escape_markdown(c)).collect();
            table_row(out, &cells);
        }
        out.push('\n');
        if !report.totals.is_empty() {
            table_head(out, &["total".into(), "amount".into()], &[false, true]);
            for (label, value) in &report.totals {
                table_row(
                    out,
                    &[
                        format!("**{}**", escape_markdown(label)),
                        format!("**{}**", escape_markdown(value)),
                    ],
                );
            }
            out.push('\n');
        }
    }
}

fn write_inputs(out: &mut String, page: &Page<'_>) {
    out.push_str("## Inputs\n\n");
    table_head(out, &["input".into(), "value".into(), "given".into()], &[]);
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
            _ => escape_markdown(&value_text(&i.value)),
        };
        table_row(
            out,
            &[
                format!(
                    "<a id=\"input-{}\"></a>{}",
                    safe(&i.name),
                    escape_markdown(&i.name)
                ),
                value,
                given.into(),
            ],
        );
    }
    out.push('\n');
}

fn cite(page: &Page<'_>, c: &CiteTrace) -> String {
    let verdict = if c.held { "cites" } else { "does not cite" };
    format!(
        "citation {} → {verdict} {}",
        code_line(&c.when),
        clause_links(page, &c.clauses)
    )
}

fn write_reads(out: &mut String, page: &Page<'_>, reads: &[ReadTrace], item: Option<&str>) {
    if reads.is_empty() {
        return;
    }
    table_head(
        out,
        &["read".into(), "value".into(), "from".into()],
        &[false, true, false],
    );
    for r in reads {
        let o = page.origin(r, item);
        let from = if o.detail.is_empty() {
            o.kind.to_string()
        } else {
            format!("{} — {}", o.kind, escape_markdown(&o.detail))
        };
        table_row(
            out,
            &[
                code(&r.name),
                linked(&value_text(&r.value), o.href.as_deref()),
                from,
            ],
        );
    }
    out.push('\n');
}

fn write_check(out: &mut String, page: &Page<'_>, c: &CheckTrace) {
    let label = c
        .label
        .as_deref()
        .map(|l| format!(" — {}", escape_markdown(l)))
        .unwrap_or_default();
    let verdict = if c.held {
        format!("**holds: {}**", escape_markdown(&c.gives))
    } else {
        "does not hold".into()
    };
    let _ = writeln!(
        out,
        "<a id=\"check-{}\"></a>**check {}** {}{label} → {verdict}\n",
        c.index,
        c.index,
        code_line(c.when.as_deref().unwrap_or("always"))
    );
    write_reads(out, page, &c.reads, None);
}

/// A step's work as list items: condition, lookups, exact value,
/// roundings with their margins, citations.
fn work(page: &Page<'_>, s: &StepTrace) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(c) = &s.condition {
        lines.push(format!(
            "when {} → {}",
            code_line(&c.formula),
            if c.held { "applies" } else { "does not apply" }
        ));
    }
    for l in &s.lookups {
        let row = match &l.row {
            Some(r) => format!("row **{}**", escape_markdown(r)),
            None => "no row".into(),
        };
        let what = if l.kind == "scale" {
            format!("scale on {}", escape_markdown(&l.key))
        } else {
            format!("{} {} → {row}", l.kind, escape_markdown(&l.key))
        };
        lines.push(format!(
            "table {} ({}): {what} — {}",
            code_line(&l.table),
            escape_markdown(&l.source),
            escape_markdown(&l.why)
        ));
    }
    if s.roundings.iter().any(|r| r.at == "step") {
        lines.push(format!("exact {}", escape_markdown(&value_text(s.exact()))));
    }
    for r in &s.roundings {
        let at = if r.at == "step" {
            "rounded".to_string()
        } else {
            format!("inside, {}", code_line(&r.at))
        };
        lines.push(format!(
            "{at} {} to {} places: {} → {}, margin {}",
            r.rounded.mode.name(),
            r.rounded.places,
            escape_markdown(&r.rounded.before.to_string()),
            escape_markdown(&r.rounded.after.to_string()),
            escape_markdown(&r.rounded.margin.to_string())
        ));
    }
    for c in &s.cites {
        lines.push(cite(page, c));
    }
    lines
}

fn write_step(out: &mut String, page: &Page<'_>, s: &StepTrace, quoted: &mut Vec<String>) {
    let _ = write!(
        out,
        "<a id=\"{}\"></a>\n### {}",
        page.anchor(s),
        code_line(&s.step)
    );
    if let Some(l) = &s.label {
        let _ = write!(out, " — {}", escape_markdown(l));
    }
    if !s.clauses.is_empty() {
        let _ = write!(out, " · {}", clause_links(page, &s.clauses));
    }
    let _ = writeln!(out, " · = {}\n", escape_markdown(&value_text(&s.value)));
    for c in s.clauses.iter() {
        if quoted.iter().any(|q| **q == **c) {
            continue;
        }
        quoted.push(c.to_string());
        if let Some(text) = page.clause_text(c) {
            let _ = writeln!(
                out,
                "> **{}** {}\n",
                escape_markdown(c),
                escape_markdown(text)
            );
        }
    }
    code_block(out, &s.formula);
    write_reads(out, page, &s.reads, s.item.as_deref());
    let lines = work(page, s);
    for l in &lines {
        let _ = writeln!(out, "- {l}");
    }
    if !lines.is_empty() {
        out.push('\n');
    }
}

fn write_group(out: &mut String, page: &Page<'_>, g: &Group<'_>) {
    let _ = write!(
        out,
        "<a id=\"group-{}\"></a>\n### Per item: {}",
        safe(&g.name),
        code_line(&g.name)
    );
    if let Some(l) = &g.label {
        let _ = write!(out, " — {}", escape_markdown(l));
    }
    let _ = write!(out, " ({} items", g.items.len());
    if let Some(over) = &g.over {
        let _ = write!(out, " of {}", code_line(over));
    }
    out.push_str(")\n\n");
    table_head(
        out,
        &["step".into(), "formula".into(), "clauses".into()],
        &[],
    );
    for c in &g.columns {
        let label = c
            .label
            .as_deref()
            .map(|l| format!(" — {}", escape_markdown(l)))
            .unwrap_or_default();
        let when = c
            .condition
            .as_ref()
            .map(|w| format!(" when {}", code(&w.formula)))
            .unwrap_or_default();
        table_row(
            out,
            &[
                format!("{}{label}", code(&c.step)),
                format!("{}{when}", code(&c.formula)),
                {
                    let (own, cites) = page.declared_clauses(&g.name, c);
                    let mut links = vec![clause_links(page, &own)];
                    for (when, ids) in &cites {
                        links.push(format!("{} when {}", clause_links(page, ids), code(when)));
                    }
                    links.retain(|l| !l.is_empty());
                    links.join("; ")
                },
            ],
        );
    }
    out.push('\n');
    let mut head: Vec<String> = vec!["item".into()];
    head.extend(g.fields.iter().map(|f| code(f)));
    head.extend(g.columns.iter().map(|c| escape_markdown(&c.step)));
    let num: Vec<bool> = (0..head.len()).map(|i| i > g.fields.len()).collect();
    table_head(out, &head, &num);
    for (item, steps) in &g.items {
        let dim = steps
            .iter()
            .all(|s| is_nothing(&s.value) && s.roundings.is_empty());
        let name = format!("[{}](#item-{})", escape_markdown(item), safe(item));
        let mut row = vec![if dim { format!("*{name}*") } else { name }];
        for f in &g.fields {
            let value = steps
                .iter()
                .find_map(|s| s.reads.iter().find(|r| *r.name == **f))
                .map(|r| cell_text(&r.value))
                .unwrap_or_default();
            row.push(escape_markdown(&value));
        }
        for c in &g.columns {
            row.push(match steps.iter().find(|s| s.step == c.step) {
                Some(s) => format!(
                    "[{}](#{})",
                    escape_markdown(&cell_text(&s.value)),
                    page.anchor(s)
                ),
                None => String::new(),
            });
        }
        table_row(out, &row);
    }
    out.push('\n');
    for (item, steps) in &g.items {
        let _ = writeln!(
            out,
            "<a id=\"item-{}\"></a>\n#### {}\n",
            safe(item),
            code_line(item)
        );
        table_head(
            out,
            &["step".into(), "read".into(), "work".into(), "value".into()],
            &[false, false, false, true],
        );
        for s in steps {
            let reads: Vec<String> = s
                .reads
                .iter()
                .map(|r| {
                    let o = page.origin(r, Some(item));
                    format!(
                        "{} = {} ({})",
                        code(&r.name),
                        linked(&cell_text(&r.value), o.href.as_deref()),
                        o.kind
                    )
                })
                .collect();
            table_row(
                out,
                &[
                    format!("<a id=\"{}\"></a>{}", page.anchor(s), code(&s.step)),
                    reads.join("; "),
                    work(page, s).join("; "),
                    format!("**{}**", escape_markdown(&cell_text(&s.value))),
                ],
            );
        }
        out.push('\n');
    }
}
