//! Loading a rulebook from disk or from text.
//!
//! A rulebook path is a folder holding `rulebook.toml`, or the TOML file
//! itself. TOML syntax and unknown keys are reported as located
//! diagnostics, like every later check.
//!
//! Invariant: the only file IO of the rulebook layer is here, and every
//! read from outside is capped by a constant of this file.

use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::check::check_rulebook;
use super::schema::RawRulebook;
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

/// All the bytes of `reader` if there are at most `cap`, `None` if there are
/// more; never holds more than `cap` + 1 of them.
pub fn read_capped(reader: impl Read, cap: u64) -> std::io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    reader.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    let fits = u64::try_from(bytes.len()).is_ok_and(|n| n <= cap);
    Ok(fits.then_some(bytes))
}

/// Why a rulebook could not be loaded.
#[derive(Debug, thiserror::Error)]
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

/// The TOML file of a rulebook path (a folder or the file).
pub fn rulebook_file(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join("rulebook.toml")
    } else {
        path.to_path_buf()
    }
}

/// Reads, parses and checks a rulebook.
pub fn load_rulebook(path: &Path) -> Result<Rulebook, LoadError> {
    let file = rulebook_file(path);
    let name = file.display().to_string();
    let io = |source| LoadError::Io {
        path: name.clone(),
        source,
    };
    let bytes = std::fs::File::open(&file)
        .and_then(|f| read_capped(f, MAX_RULEBOOK_BYTES))
        .map_err(io)?
        .ok_or_else(|| LoadError::TooLarge {
            path: name.clone(),
            cap: MAX_RULEBOOK_BYTES,
        })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not UTF-8 text: invalid byte at offset {offset}"),
        ))
    })?;
    parse_rulebook(&name, &text).map_err(LoadError::Invalid)
}

/// Parses and checks rulebook text; `name` is shown in diagnostics.
pub fn parse_rulebook(name: &str, text: &str) -> Result<Rulebook, Diagnostics> {
    let source = SourceFile {
        name: name.to_string(),
        text: Arc::from(text),
    };
    let mut diags = Diagnostics::new(source);
    let raw: RawRulebook = match toml::from_str(text) {
        Ok(raw) => raw,
        Err(e) => {
            let span = e.span().map(Span::from).unwrap_or_default();
            let message = e.message().to_string();
            let code = if message.contains("unknown field") {
                "load::unknown_key"
            } else {
                "load::toml"
            };
            diags.push(Problem::new(code, message).at(span, "here"));
            return Err(diags);
        }
    };
    check_rulebook(raw, diags, content_hash(text))
}

/// Why a file written against a rulebook (a generator, a rubric) could not be read.
#[derive(Debug)]
pub enum BesideError {
    /// The file itself: unreadable, too large or not UTF-8.
    Io(String),
    /// The rulebook it names.
    Rulebook(LoadError),
}

/// Reads a file written against one rulebook version (a generator, a
/// rubric) with the rulebook's caps, and loads the rulebook it names:
/// `rulebook` when given, else `v<version>` beside the file, the version
/// read loosely from `[section] rulebook = "id@version"` (the file is
/// checked against the rulebook only after both are loaded).
pub fn read_beside(
    path: &Path,
    section: &str,
    rulebook: Option<&Path>,
) -> Result<(String, Rulebook), BesideError> {
    let bytes = std::fs::File::open(path)
        .and_then(|f| read_capped(f, MAX_RULEBOOK_BYTES))
        .map_err(|e| BesideError::Io(e.to_string()))?
        .ok_or_else(|| BesideError::Io(format!("the file is over {MAX_RULEBOOK_BYTES} bytes")))?;
    let text = String::from_utf8(bytes).map_err(|_| BesideError::Io("not UTF-8 text".into()))?;
    let rb_path = match rulebook {
        Some(p) => p.to_path_buf(),
        None => {
            let version = toml::from_str::<toml::Table>(&text)
                .ok()
                .and_then(|t| {
                    let r = t.get(section)?.get("rulebook")?.as_str()?.to_string();
                    Some(r.split_once('@')?.1.to_string())
                })
                .unwrap_or_default();
            path.parent()
                .unwrap_or(Path::new("."))
                .join(format!("v{version}"))
        }
    };
    let rb = load_rulebook(&rb_path).map_err(BesideError::Rulebook)?;
    Ok((text, rb))
}

/// SHA-256 of the text with line endings normalised, so a checkout on any OS hashes the same.
pub fn content_hash(text: &str) -> String {
    let normalised = text.replace("\r\n", "\n");
    let digest = Sha256::digest(normalised.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}
