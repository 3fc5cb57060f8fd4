//! The index of a batch's audit pages (`eval --batch … --trace html|markdown
//! --out DIR`, `docs/audit-page.md`): the rulebook and engine, then one row
//! per case line with its outcome, a summary and a link to its page.
//!
//! Invariant: a link is a page's file name in the same folder (which the
//! command makes, `line-NNNNNN.html`), never a URL; every summary is escaped
//! as the page's text is.

use std::fmt::Write;

use super::html::{escape_html, STYLE};
use super::markdown::{code, escape_markdown, table_head, table_row};

/// One line of a batch's index: a case's line, its page and what it gave.
#[derive(Clone, Debug)]
pub struct IndexEntry {
    /// The case's line number in the batch, from 1.
    pub line: u64,
    /// The page's file name, when the case has one (not for a line that is
    /// no case, nor for a fault).
    pub page: Option<String>,
    /// `answered`, `rejected` or `fault`.
    pub kind: &'static str,
    /// The decision and answer in a line, or the rejection, or the fault.
    pub summary: String,
}

/// The index of a batch's pages: one row per case line, its page linked
/// (a relative file name in the same folder, never a URL).
pub fn render_html_index(rulebook: &crate::model::Rulebook, entries: &[IndexEntry]) -> String {
    let mut out = String::with_capacity(256 + entries.len() * 160);
    let title = escape_html(rulebook.title().unwrap_or(rulebook.id()));
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title} — audit pages</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n\
         <header>\n<p class=\"kicker\">Audit pages of a batch</p>\n<h1>{title}</h1>\n<table class=\"meta\">\n\
         <tr><th>rulebook</th><td><code>{}</code></td></tr>\n<tr><th>version</th><td><code>{}</code></td></tr>\n\
         <tr><th>rulebook sha256</th><td><code>{}</code></td></tr>\n<tr><th>engine</th><td><code>bareme {}</code></td></tr>\n\
         <tr><th>cases</th><td>{}</td></tr>\n</table>\n</header>\n<main>\n<table class=\"index\">\n\
         <thead><tr><th>line</th><th>outcome</th><th>answer</th></tr></thead>\n<tbody>\n",
        escape_html(rulebook.id()),
        rulebook.version(),
        escape_html(rulebook.hash()),
        env!("CARGO_PKG_VERSION"),
        entries.len()
    );
    for e in entries {
        let line = match &e.page {
            Some(p) => format!("<a href=\"{}\">{}</a>", escape_html(p), e.line),
            None => e.line.to_string(),
        };
        let _ = writeln!(
            out,
            "<tr class=\"{}\"><th>{line}</th><td>{}</td><td>{}</td></tr>",
            e.kind,
            e.kind,
            escape_html(&e.summary)
        );
    }
    out.push_str("</tbody>\n</table>\n</main>\n</body>\n</html>\n");
    out
}

/// The index of a batch's Markdown pages (see `render_html_index`).
pub fn render_markdown_index(rulebook: &crate::model::Rulebook, entries: &[IndexEntry]) -> String {
    let mut out = String::with_capacity(256 + entries.len() * 120);
    let _ = writeln!(
        out,
        "# {} — audit pages of a batch\n",
        escape_markdown(rulebook.title().unwrap_or(rulebook.id()))
    );
    table_head(&mut out, &["".into(), "".into()], &[]);
    table_row(&mut out, &["rulebook".into(), code(rulebook.id())]);
    table_row(
        &mut out,
        &["version".into(), rulebook.version().to_string()],
    );
    table_row(&mut out, &["rulebook sha256".into(), code(rulebook.hash())]);
    table_row(
        &mut out,
        &[
            "engine".into(),
            code(&format!("bareme {}", env!("CARGO_PKG_VERSION"))),
        ],
    );
    table_row(&mut out, &["cases".into(), entries.len().to_string()]);
    out.push('\n');
    table_head(
        &mut out,
        &["line".into(), "outcome".into(), "answer".into()],
        &[],
    );
    for e in entries {
        let line = match &e.page {
            Some(p) => format!("[{}]({})", e.line, escape_markdown(p)),
            None => e.line.to_string(),
        };
        table_row(
            &mut out,
            &[line, e.kind.into(), escape_markdown(&e.summary)],
        );
    }
    out
}
