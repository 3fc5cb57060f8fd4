//! Companion files: a generator or a rubric, written against one rulebook
//! version (`rulebook = "id@version"` in its header). What the two share is
//! here, once: reading the file with the rulebook's caps and the rulebook
//! beside it, its TOML as located diagnostics, the one error of a load,
//! and the check that the file names the rulebook loaded. What each file
//! *means* is its own loader's (`generate::load`, `score::load`).
//!
//! Invariant: besides `rulebook::load`, this is the one file IO of the
//! library above the rulebook; every read is capped by the rulebook's cap.

use serde::de::DeserializeOwned;
use std::path::Path;
use std::sync::Arc;
use toml::Spanned;

use crate::diag::{Diagnostics, Problem, SourceFile};
use crate::model::Rulebook;
use crate::rulebook::load::{open_regular, read_capped};
use crate::rulebook::{load_rulebook, LoadError};
use crate::span::Span;

/// Why a companion file (a generator or a rubric, pinned to one rulebook
/// version) could not be loaded.
///
/// ```
/// let err = bareme::load_rubric("rulebooks/no-such/rubric-1.toml".as_ref(), None).unwrap_err();
/// assert!(matches!(err, bareme::CompanionError::Io { .. }));
/// assert_eq!(err.code(), "companion::io");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CompanionError {
    /// The file itself could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path tried.
        path: String,
        /// Why.
        source: ReadError,
    },
    /// The rulebook it names could not be loaded.
    #[error("the rulebook of {file}: {source}")]
    Rulebook {
        /// The companion file.
        file: String,
        /// Why.
        source: LoadError,
    },
    /// The file has problems, or disagrees with its rulebook.
    #[error("{} problem(s) in {}", .0.problems.len(), .0.source.name)]
    Invalid(Diagnostics),
}

impl CompanionError {
    /// A stable code: `companion::io`, `companion::invalid`, or the
    /// rulebook's load error's own (`load::io`, `load::invalid`, …).
    pub fn code(&self) -> &'static str {
        match self {
            CompanionError::Io { .. } => "companion::io",
            CompanionError::Rulebook { source, .. } => source.code(),
            CompanionError::Invalid(_) => "companion::invalid",
        }
    }
}

/// Why the bytes of a companion file are not its text.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be opened or read.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// It holds more than the cap.
    #[error("the file is over {0} bytes")]
    TooLarge(u64),
    /// It is not UTF-8.
    #[error("not UTF-8 text")]
    NotUtf8,
}

/// Loads a companion file and the rulebook it names, then checks the one
/// against the other with `parse` (name, text, rulebook). The rulebook is
/// `rulebook` when given, else `v<version>` beside the file, the version
/// read loosely from `[section] rulebook = "id@version"`: the file is
/// checked against the rulebook only once both are loaded.
pub fn load_companion<T>(
    path: &Path,
    section: &str,
    rulebook: Option<&Path>,
    parse: impl FnOnce(&str, &str, &Rulebook) -> Result<T, Diagnostics>,
) -> Result<(T, Rulebook), CompanionError> {
    let name = path.display().to_string();
    let text = read_text(path).map_err(|source| CompanionError::Io {
        path: name.clone(),
        source,
    })?;
    let rb_path = match rulebook {
        Some(p) => p.to_path_buf(),
        None => path
            .parent()
            .unwrap_or(Path::new("."))
            .join(format!("v{}", written_version(&name, &text, section)?)),
    };
    let rb = load_rulebook(&rb_path).map_err(|source| CompanionError::Rulebook {
        file: name.clone(),
        source,
    })?;
    let parsed = parse(&name, &text, &rb).map_err(CompanionError::Invalid)?;
    Ok((parsed, rb))
}

/// Most bytes of a companion file (4 MiB; the bundled ones are under
/// 110 KB). TOML read with its spans takes about fifty times its text:
/// a file at the rulebook's 16 MiB held 800 MB while it was read, and a
/// generator, rubric or repair file comes from anyone.
pub const MAX_COMPANION_BYTES: u64 = 4 << 20;

/// The file's text, at most `MAX_COMPANION_BYTES`.
pub(crate) fn read_text(path: &Path) -> Result<String, ReadError> {
    let bytes = open_regular(path)
        .and_then(|f| read_capped(f, MAX_COMPANION_BYTES))?
        .ok_or(ReadError::TooLarge(MAX_COMPANION_BYTES))?;
    String::from_utf8(bytes).map_err(|_| ReadError::NotUtf8)
}

/// The version of `[section] rulebook = "id@version"`, a whole number:
/// the folder `v<version>` beside the file is the rulebook. A file that is
/// not TOML, or does not name a version so, is a problem of its own: the
/// version is part of a path, and `1/../../elsewhere` would read any file.
fn written_version(name: &str, text: &str, section: &str) -> Result<u64, CompanionError> {
    let invalid = CompanionError::Invalid;
    let (table, mut diags) =
        parse_toml::<toml::Table>(name, text, "companion::toml").map_err(invalid)?;
    let written = (table.get(section))
        .and_then(|s| s.get("rulebook"))
        .and_then(toml::Value::as_str);
    let version = written
        .and_then(|r| r.split_once('@'))
        .and_then(|(_, v)| super::task::version_number(v).and_then(|n| u64::try_from(n).ok()));
    match version {
        Some(v) => Ok(v),
        None => {
            let message = match written {
                Some(r) => format!("`[{section}] rulebook = {r:?}` names no version: it is `<id>@<version>`, the version a positive whole number without a sign or leading zeros (`luma-payroll@3`)"),
                None => format!("no `[{section}] rulebook = \"<id>@<version>\"` to find the rulebook beside the file"),
            };
            diags.push(
                Problem::new("companion::rulebook", message)
                    .help("name the rulebook so, or give its folder with --rulebook"),
            );
            Err(invalid(diags))
        }
    }
}

/// A companion file's TOML read into its serde mirror `R`, with the
/// diagnostics list that its checks go on filling; TOML syntax and unknown
/// keys are one located problem of code `code`, reported alone, as is a
/// text over `MAX_COMPANION_BYTES` (given in memory, not read from a
/// file: the Python module's, the sandbox's).
pub fn parse_toml<R: DeserializeOwned>(
    name: &str,
    text: &str,
    code: &'static str,
) -> Result<(R, Diagnostics), Diagnostics> {
    let too_large = u64::try_from(text.len()).map_or(true, |n| n > MAX_COMPANION_BYTES);
    let source = SourceFile {
        name: name.to_string(),
        text: Arc::from(if too_large { "" } else { text }),
    };
    let mut diags = Diagnostics::new(source);
    if too_large {
        let message = format!(
            "the text is {} bytes, over the {MAX_COMPANION_BYTES} a generator, rubric or repair file may hold",
            text.len()
        );
        diags.push(Problem::new(code, message));
        return Err(diags);
    }
    match toml::from_str(text) {
        Ok(raw) => Ok((raw, diags)),
        Err(e) => {
            let span = e.span().map(Span::from).unwrap_or_default();
            let message = crate::diag::toml_message(&e, text);
            diags.push(Problem::new(code, message).at(span, "here"));
            Err(diags)
        }
    }
}

/// How a kind of companion file names its rulebook, for its diagnostics.
pub struct PinWords {
    /// The code of a `rulebook` that is not `id@version`.
    pub malformed: &'static str,
    /// The code of another id or version than the rulebook loaded.
    pub other_version: &'static str,
    /// What the file does with it: `this rubric grades`.
    pub says: &'static str,
}

/// What a companion file's `rulebook = "id@version"` is to the rulebook loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pin {
    /// Its id and version.
    Same,
    /// Another id or version (a problem was pushed).
    Other,
    /// Not `id@version` (a problem was pushed).
    Malformed,
}

/// Checks the `rulebook` a companion file names against the rulebook
/// loaded, pushing a problem at it when they differ.
pub fn check_pin(
    written: &Spanned<String>,
    rb: &Rulebook,
    words: &PinWords,
    diags: &mut Diagnostics,
) -> Pin {
    let span = Span::from(written.span());
    let loaded = format!("{}@{}", rb.id(), rb.version());
    match written.get_ref().split_once('@') {
        Some((id, v)) if id == rb.id() && v == rb.version().to_string() => Pin::Same,
        Some(_) => {
            let message = format!(
                "{} {}, but the rulebook loaded is {loaded}",
                words.says,
                written.get_ref()
            );
            diags.push(Problem::new(words.other_version, message).at(span, "here"));
            Pin::Other
        }
        None => {
            let message = "`rulebook` is `<id>@<version>`, e.g. `luma-payroll@3`";
            diags.push(Problem::new(words.malformed, message).at(span, "here"));
            Pin::Malformed
        }
    }
}
