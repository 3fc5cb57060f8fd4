//! Loading a rulebook from disk or from text.
//!
//! A rulebook path is a folder holding `rulebook.toml`, or the TOML file
//! itself; a file may extend another version (`extends`), read here too
//! and merged by `extends`. TOML syntax and unknown keys are reported as located
//! diagnostics, like every later check.
//!
//! Invariant: the only file IO of the rulebook layer is here, and every
//! read from outside is capped by a constant of this file.

use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::check::check_rulebook;
use super::extends::{incomplete, merge, MAX_EXTENDS_DEPTH};
use super::raw::RawRulebook;
use crate::diag::{Diagnostics, Problem, SourceFile};
use crate::model::{Limits, Rulebook};
use crate::span::Span;

// Caps on what bareme reads from outside, all in one place, so that no file
// or stream (`bareme check /dev/zero`) can grow memory without bound.

/// Most bytes read from a rulebook file (16 MiB; the bundled ones are under 200 KiB).
pub const MAX_RULEBOOK_BYTES: u64 = 16 << 20;
/// Most bytes read from a conformance case file (16 MiB).
pub const MAX_CASE_FILE_BYTES: u64 = 16 << 20;
/// Most bytes read of a case given to `eval`, or of one batch line (64 MiB):
/// the largest `[limits] max_case_bytes` the checker accepts
/// ([`Limits::MAX_CASE_BYTES`], where the caps of every limit are).
pub const MAX_CASE_BYTES: usize = Limits::MAX_CASE_BYTES;

/// Opens a rulebook file for reading, refusing a FIFO or a device before
/// opening it: opening one for reading waits for a writer, and a rulebook
/// (a candidate's above all) comes from anyone.
pub fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (a FIFO, a device or a folder is never read)",
        ));
    }
    std::fs::File::open(path)
}

/// All the bytes of `reader` if there are at most `cap`, `None` if there are
/// more; never holds more than `cap` + 1 of them.
pub fn read_capped(reader: impl Read, cap: u64) -> std::io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    reader.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    let fits = u64::try_from(bytes.len()).is_ok_and(|n| n <= cap);
    Ok(fits.then_some(bytes))
}

/// Why a rulebook could not be loaded.
///
/// ```
/// let err = bareme::load_rulebook("rulebooks/no-such-rulebook".as_ref()).unwrap_err();
/// assert!(matches!(err, bareme::LoadError::Io { .. }));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path tried.
        path: String,
        /// The IO error.
        source: std::io::Error,
    },
    /// The file holds more than `MAX_RULEBOOK_BYTES` (`bareme check /dev/zero`).
    #[error("cannot read {path}: a rulebook file is at most {cap} bytes, and this one is larger")]
    TooLarge {
        /// The path tried.
        path: String,
        /// The cap, in bytes.
        cap: u64,
    },
    /// The file has problems.
    #[error("{} problem(s) in {}", .0.problems.len(), .0.source.name)]
    Invalid(Diagnostics),
}

impl LoadError {
    /// The stable code of this kind of failure: `load::io`,
    /// `load::too_large` or, for a rulebook with problems, `load::invalid`
    /// (each problem carries its own code, e.g. `check::unknown_name`).
    ///
    /// ```
    /// let err = bareme::load_rulebook("rulebooks/no-such-rulebook".as_ref()).unwrap_err();
    /// assert_eq!(err.code(), "load::io");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            LoadError::Io { .. } => "load::io",
            LoadError::TooLarge { .. } => "load::too_large",
            LoadError::Invalid(_) => "load::invalid",
        }
    }
}

/// How a rulebook path is loaded.
///
/// ```
/// let rb = bareme::load_rulebook_with("rulebooks/paie-fr/v2026".as_ref(), bareme::LoadOptions::default())?;
/// assert_eq!(rb.id(), "paie-fr");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct LoadOptions {
    /// Let `extends` name a file outside the rulebook set's folder (the
    /// folder holding the named version's folder). Off by default, so a
    /// rulebook from elsewhere cannot make bareme read, and quote in its
    /// diagnostics, any file the process can read (`bareme --allow-outside`).
    pub allow_outside: bool,
}

/// The TOML file of a rulebook path (a folder or the file).
pub fn rulebook_file(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join("rulebook.toml")
    } else {
        path.to_path_buf()
    }
}

/// Reads, parses and checks a rulebook, and the versions it extends
/// (within the rulebook set's folder: [`LoadOptions`]).
///
/// ```
/// let rb = bareme::load_rulebook("rulebooks/sales-tax/v1".as_ref())?;
/// assert_eq!(rb.id(), "sales-tax");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load_rulebook(path: &Path) -> Result<Rulebook, LoadError> {
    load_rulebook_with(path, LoadOptions::default())
}

/// [`load_rulebook`] with options.
///
/// ```
/// let options = bareme::LoadOptions { allow_outside: false };
/// let rb = bareme::load_rulebook_with("rulebooks/paie-fr/v2025".as_ref(), options)?;
/// assert_eq!(rb.version(), 2025);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load_rulebook_with(path: &Path, options: LoadOptions) -> Result<Rulebook, LoadError> {
    let file = rulebook_file(path);
    let name = file.display().to_string();
    let text = read_text(&file, &name)?;
    let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let eff = effective(&name, &text, Some((dir, &file)), options).map_err(LoadError::Invalid)?;
    checked(eff)
}

/// Parses and checks rulebook text; `name` is shown in diagnostics. Text
/// read from no file cannot extend another version.
///
/// ```
/// let text = std::fs::read_to_string("rulebooks/luma-payroll/v3/rulebook.toml")?;
/// let rb = bareme::parse_rulebook("rulebook.toml", &text)?;
/// assert_eq!(rb.id(), "luma-payroll");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn parse_rulebook(name: &str, text: &str) -> Result<Rulebook, Diagnostics> {
    let eff = effective(name, text, None, LoadOptions::default())?;
    checked(eff).map_err(|e| match e {
        LoadError::Invalid(d) => d,
        other => {
            let mut d = Diagnostics::new(SourceFile {
                name: name.to_string(),
                text: Arc::from(text),
            });
            d.push(Problem::new("load::io", other.to_string()));
            d
        }
    })
}

/// The effective rulebook of a path as TOML (its `extends` chain merged),
/// once it checks: what `bareme check --effective` prints.
pub fn effective_toml(path: &Path) -> Result<String, LoadError> {
    effective_toml_with(path, LoadOptions::default())
}

/// [`effective_toml`] with options.
pub fn effective_toml_with(path: &Path, options: LoadOptions) -> Result<String, LoadError> {
    let file = rulebook_file(path);
    let name = file.display().to_string();
    let text = read_text(&file, &name)?;
    let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut eff =
        effective(&name, &text, Some((dir, &file)), options).map_err(LoadError::Invalid)?;
    eff.raw.rulebook.extends = None;
    eff.raw.rulebook.remove.clear();
    let printed = toml::to_string_pretty(&eff.raw);
    let mut diags = eff.diags.clone();
    checked(eff)?;
    printed.map_err(|e| {
        diags.push(Problem::new(
            "load::effective",
            format!("cannot print the effective rulebook: {e}"),
        ));
        LoadError::Invalid(diags)
    })
}

/// A chain merged into one raw rulebook, with the diagnostics of its files.
struct Effective {
    raw: RawRulebook,
    diags: Diagnostics,
    hash: String,
    files: Vec<String>,
}

fn checked(eff: Effective) -> Result<Rulebook, LoadError> {
    let mut rb = check_rulebook(eff.raw, eff.diags, eff.hash).map_err(LoadError::Invalid)?;
    rb.files = eff.files;
    Ok(rb)
}

/// The text of one rulebook file, read under the cap.
fn read_text(file: &Path, name: &str) -> Result<String, LoadError> {
    let io = |source| LoadError::Io {
        path: name.to_string(),
        source,
    };
    let bytes = open_regular(file)
        .and_then(|f| read_capped(f, MAX_RULEBOOK_BYTES))
        .map_err(io)?
        .ok_or_else(|| LoadError::TooLarge {
            path: name.to_string(),
            cap: MAX_RULEBOOK_BYTES,
        })?;
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not UTF-8 text: invalid byte at offset {offset}"),
        ))
    })
}

/// Parses the first file and every version it extends (`from`: its folder
/// and path, `None` for text read from no file), then merges them.
///
/// A file extended is read only if it is a regular file (a FIFO or
/// `/dev/stdin` would block, a device never end) and, unless `options`
/// allow it, inside the rulebook set's folder: the folder holding the
/// first file's folder. Both are checked before the file is opened, so a
/// refused file is never read, nor quoted in a diagnostic.
///
/// The files are laid one after the other in one text, the first file at
/// offset 0, and each is parsed at its offset (behind blanks), so every
/// span of the merged rulebook indexes that text and the diagnostics show
/// each problem in the file that wrote it.
fn effective(
    name: &str,
    text: &str,
    from: Option<(PathBuf, &Path)>,
    options: LoadOptions,
) -> Result<Effective, Diagnostics> {
    let mut all = String::new();
    let mut parts: Vec<(usize, SourceFile)> = Vec::new();
    let mut raws: Vec<RawRulebook> = Vec::new();
    let mut problems: Vec<Problem> = Vec::new();
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut current = Some((
        name.to_string(),
        text.to_string(),
        from.clone().map(|(d, _)| d),
    ));
    if let Some((_, file)) = &from {
        seen.push(std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf()));
    }
    // The rulebook set's folder: `extends` stays inside it.
    let set_root = match (&from, options.allow_outside) {
        (Some(_), false) => seen
            .first()
            .and_then(|f| f.parent())
            .and_then(Path::parent)
            .map(Path::to_path_buf),
        _ => None,
    };
    let diags_of = |all: &str, parts: &[(usize, SourceFile)], problems: Vec<Problem>| {
        let source = SourceFile {
            name: name.to_string(),
            text: Arc::from(all),
        };
        let mut d = Diagnostics::of_parts(source, parts.to_vec());
        for p in problems {
            d.push(p);
        }
        d
    };
    while let Some((file_name, file_text, dir)) = current.take() {
        let start = if all.is_empty() { 0 } else { all.len() + 1 };
        if start > 0 {
            all.push('\n');
        }
        all.push_str(&file_text);
        parts.push((
            start,
            SourceFile {
                name: file_name,
                text: Arc::from(file_text.as_str()),
            },
        ));
        let raw = match parse_at(start, &file_text) {
            Ok(raw) => raw,
            Err(problem) => return Err(diags_of(&all, &parts, vec![*problem])),
        };
        match (&raw.rulebook.extends, &dir) {
            (Some(ext), Some(dir)) => {
                let span = Span::from(ext.span());
                let target = rulebook_file(&dir.join(ext.get_ref()));
                let canon = std::fs::canonicalize(&target).unwrap_or_else(|_| target.clone());
                let target_name = target.display().to_string();
                if seen.contains(&canon) {
                    problems.push(
                        Problem::new(
                            "load::extends_cycle",
                            format!("`{target_name}` is already in this chain of versions"),
                        )
                        .at(span, "extended again here")
                        .help("a version cannot extend itself or a version that extends it"),
                    );
                } else if seen.len() >= MAX_EXTENDS_DEPTH {
                    problems.push(
                        Problem::new(
                            "load::extends_depth",
                            format!("a chain of versions has at most {MAX_EXTENDS_DEPTH} files"),
                        )
                        .at(span, "one too many"),
                    );
                } else if let Some(root) = set_root.as_ref().filter(|root| {
                    std::fs::canonicalize(&target).is_ok_and(|c| !c.starts_with(root))
                }) {
                    problems.push(
                        Problem::new(
                            "load::extends_outside",
                            format!(
                                "`{target_name}` is outside the rulebook set's folder `{}`",
                                root.display()
                            ),
                        )
                        .at(span, "extended here")
                        .help("a version extends another version of its set (`../v2026`); `bareme --allow-outside` lifts this"),
                    );
                } else if std::fs::metadata(&target).is_ok_and(|m| !m.is_file()) {
                    problems.push(
                        Problem::new(
                            "load::extends",
                            format!("`{target_name}` is not a regular file"),
                        )
                        .at(span, "extended here")
                        .help("name a rulebook folder or its `rulebook.toml`; a FIFO, a device or a folder is never read"),
                    );
                } else {
                    match read_text(&target, &target_name) {
                        Ok(t) => {
                            seen.push(canon);
                            let next_dir =
                                target.parent().map(Path::to_path_buf).unwrap_or_default();
                            current = Some((target_name, t, Some(next_dir)));
                        }
                        Err(e) => problems.push(
                            Problem::new("load::extends", e.to_string()).at(span, "extended here"),
                        ),
                    }
                }
            }
            (Some(ext), None) => problems.push(
                Problem::new(
                    "load::extends",
                    "text read from no file cannot extend another version",
                )
                .at(Span::from(ext.span()), "here"),
            ),
            (None, _) => {
                if let Some(first) = raw.rulebook.remove.first() {
                    problems.push(
                        Problem::new(
                            "load::remove_unknown",
                            "`remove` needs `extends`: there is nothing to remove from",
                        )
                        .at(Span::from(first.span()), "here"),
                    );
                }
            }
        }
        raws.push(raw);
    }
    if !problems.is_empty() {
        return Err(diags_of(&all, &parts, problems));
    }
    let hash = match parts.as_slice() {
        [(_, only)] => content_hash(&only.text),
        many => content_hash(
            &many
                .iter()
                .map(|(_, f)| content_hash(&f.text) + "\n")
                .collect::<String>(),
        ),
    };
    let files = parts.iter().map(|(_, f)| f.name.clone()).collect();
    let mut merged = raws.pop();
    while let Some(child) = raws.pop() {
        merged = merged.map(|base| merge(base, child, &mut problems));
    }
    let Some(raw) = merged else {
        return Err(diags_of(&all, &parts, problems));
    };
    problems.extend(incomplete(&raw));
    let diags = diags_of(&all, &parts, problems);
    if !diags.is_empty() {
        return Err(diags);
    }
    Ok(Effective {
        raw,
        diags,
        hash,
        files,
    })
}

/// One file's TOML parsed as if it began at byte `start` of the chain's
/// text, so that its spans index that text; syntax and unknown keys are
/// reported alone, as serde stops at the first.
fn parse_at(start: usize, text: &str) -> Result<RawRulebook, Box<Problem>> {
    let padded;
    let source = if start == 0 {
        text
    } else {
        padded = " ".repeat(start) + text;
        padded.as_str()
    };
    toml::from_str(source).map_err(|e| {
        let span = e.span().map(Span::from).unwrap_or(Span::new(start, start));
        let message = crate::diag::toml_message(&e, source);
        let code = if message.contains("unknown field") {
            "load::unknown_key"
        } else {
            "load::toml"
        };
        Box::new(Problem::new(code, message).at(span, "here"))
    })
}

/// SHA-256 of the text with line endings normalised, so a checkout on any OS hashes the same.
/// A chain of versions hashes the hashes of its files, the named file first.
pub fn content_hash(text: &str) -> String {
    let normalised = text.replace("\r\n", "\n");
    let digest = Sha256::digest(normalised.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}
