//! Audit pages (`eval --trace html|markdown`, `docs/audit-page.md`): one
//! case's page on standard output or in `--out FILE`, and a batch's pages
//! in `--out DIR`, one per case line plus an index.
//!
//! A batch's folder is written whole or not at all: the folder named must
//! not exist or be empty (a non-empty one is refused before anything is
//! read), the pages go to a temporary folder beside it, renamed to the
//! name given once the index is written; on any failure the temporary
//! folder is removed and nothing is left behind.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::args::TraceFormat;
use super::input::{case_limit, open_lines_or_exit, read_case_text, too_large};
use bareme::unstable::chunks::{in_order, pool};
use bareme::unstable::evaluation::evaluate_text;
use bareme::unstable::tasks::{next_line, Line as BatchLine};
use bareme::unstable::trace::{
    answer_summary, render_html, render_html_index, render_markdown, render_markdown_index,
    IndexEntry, PageSource,
};
use bareme::{Outcome, Rulebook, Trace};

/// Lines evaluated together between two writes (pages are large).
const CHUNK_LINES: usize = 64;

/// The page of one evaluation in `format` (`Html` or `Markdown`).
pub fn page(
    rb: &Rulebook,
    case: &[u8],
    outcome: &Outcome,
    trace: &Trace,
    format: TraceFormat,
) -> String {
    let mut json = Vec::new();
    if let Outcome::Answer(answer) = outcome {
        answer.write_json(&mut json);
    }
    let answer = std::str::from_utf8(&json).ok().filter(|a| !a.is_empty());
    let src = PageSource {
        rulebook: rb,
        trace,
        answer,
        case,
    };
    match format {
        TraceFormat::Markdown => render_markdown(&src),
        _ => render_html(&src),
    }
}

/// Why a batch of pages stopped.
enum Stop {
    /// The input could not be read.
    Read(std::io::Error),
    /// A page could not be written.
    Write(String),
}

/// Runs `eval --batch FILE --trace html|markdown --out DIR`.
pub fn run_batch(
    rb: &Rulebook,
    path: &Path,
    jobs: usize,
    format: TraceFormat,
    dir: &Path,
) -> ExitCode {
    if let Ok(mut entries) = fs::read_dir(dir) {
        if entries.next().is_some() {
            warn!(
                "error: --out {} is a folder that is not empty: name a new or empty folder",
                dir.display()
            );
            return ExitCode::from(2);
        }
    } else if dir.exists() {
        warn!("error: --out {} is not a folder", dir.display());
        return ExitCode::from(2);
    }
    let mut reader = match open_lines_or_exit(path) {
        Ok(reader) => reader,
        Err(code) => return code,
    };
    let Ok(pool) = pool(jobs) else {
        warn!("error: cannot start {jobs} worker threads");
        return ExitCode::from(2);
    };
    let temp = match temp_dir(dir) {
        Ok(t) => t,
        Err(e) => {
            warn!("error: cannot write {}: {e}", dir.display());
            return ExitCode::from(2);
        }
    };
    let ext = match format {
        TraceFormat::Markdown => "md",
        _ => "html",
    };
    let limit = case_limit(rb);
    let mut buf = Vec::new();
    let mut number = 0u64;
    let fill = |chunk: &mut Vec<(u64, Option<Vec<u8>>)>| -> Result<(), Stop> {
        while chunk.len() < CHUNK_LINES {
            match next_line(&mut reader, limit, &mut buf).map_err(Stop::Read)? {
                None => break,
                Some(BatchLine::TooLong) => {
                    number += 1;
                    chunk.push((number, None));
                }
                Some(BatchLine::Fits(line)) => {
                    number += 1;
                    chunk.push((number, Some(line.to_vec())));
                }
            }
        }
        Ok(())
    };
    let work =
        |(line, bytes): (u64, Option<Vec<u8>>)| one_line(rb, line, bytes, format, ext, limit);
    let mut entries: Vec<IndexEntry> = Vec::new();
    let sink = |(entry, page): (IndexEntry, Option<String>)| -> Result<(), Stop> {
        if let (Some(name), Some(page)) = (&entry.page, page) {
            fs::write(temp.join(name), page)
                .map_err(|e| Stop::Write(format!("cannot write {name}: {e}")))?;
        }
        entries.push(entry);
        Ok(())
    };
    let done = in_order(&pool, fill, work, sink).and_then(|()| {
        let index = match format {
            TraceFormat::Markdown => render_markdown_index(rb, &entries),
            _ => render_html_index(rb, &entries),
        };
        let name = format!("index.{ext}");
        fs::write(temp.join(&name), index)
            .map_err(|e| Stop::Write(format!("cannot write {name}: {e}")))?;
        // An empty folder named is replaced; a file put there meanwhile is not.
        let _ = fs::remove_dir(dir);
        fs::rename(&temp, dir)
            .map_err(|e| Stop::Write(format!("cannot put the pages in place: {e}")))
    });
    match done {
        Ok(()) => {
            let count = |kind: &str| entries.iter().filter(|e| e.kind == kind).count();
            let line = format!(
                "{} cases: {} answered, {} rejected, {} faults; pages in {}",
                entries.len(),
                count("answered"),
                count("rejected"),
                count("fault"),
                dir.display()
            );
            super::closing(&line, ExitCode::SUCCESS)
        }
        Err(stop) => {
            let _ = fs::remove_dir_all(&temp);
            match stop {
                Stop::Read(e) => warn!("error: reading the batch: {e}"),
                Stop::Write(e) => warn!("error: {}: {e}", dir.display()),
            }
            ExitCode::from(2)
        }
    }
}

/// A new folder beside `dir` for the pages until they are all written.
fn temp_dir(dir: &Path) -> std::io::Result<PathBuf> {
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "pages".into());
    let mut attempt = 0u32;
    loop {
        let temp = parent.join(format!(".{name}.{}.{attempt}.tmp", std::process::id()));
        match fs::create_dir(&temp) {
            Ok(()) => return Ok(temp),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => {
                attempt += 1;
            }
            Err(e) => return Err(e),
        }
    }
}

/// The index entry and page of one batch line.
fn one_line(
    rb: &Rulebook,
    line: u64,
    bytes: Option<Vec<u8>>,
    format: TraceFormat,
    ext: &str,
    limit: usize,
) -> (IndexEntry, Option<String>) {
    let entry = |kind, page, summary| IndexEntry {
        line,
        page,
        kind,
        summary,
    };
    let Some(bytes) = bytes else {
        return (entry("rejected", None, too_large(limit)), None);
    };
    let case = match read_case_text(&bytes) {
        Ok(case) => case,
        Err(e) => {
            let summary = format!("not a case: {}: {}", e.path, e.message);
            return (entry("rejected", None, summary), None);
        }
    };
    match evaluate_text(rb, &case, true) {
        Ok((outcome, Some(trace))) => {
            let name = format!("line-{line:06}.{ext}");
            let (kind, summary) = match &outcome {
                Outcome::Answer(answer) => {
                    let mut json = Vec::new();
                    answer.write_json(&mut json);
                    let text = String::from_utf8_lossy(&json).into_owned();
                    ("answered", answer_summary(&text))
                }
                Outcome::Rejected(e) => {
                    ("rejected", format!("rejected at {}: {}", e.path, e.message))
                }
                _ => ("answered", String::new()),
            };
            let page = page(rb, &bytes, &outcome, &trace, format);
            (entry(kind, Some(name), summary), Some(page))
        }
        Ok((_, None)) => (entry("fault", None, "no trace was recorded".into()), None),
        Err(e) => (
            entry("fault", None, format!("the rulebook failed: {e}")),
            None,
        ),
    }
}
