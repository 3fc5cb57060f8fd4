//! Loading a rulebook from disk or from text.
//!
//! A rulebook path is a folder holding `rulebook.toml`, or the TOML file
//! itself. TOML syntax and unknown keys are reported as located
//! diagnostics, like every later check.
//!
//! Invariant: the only file IO of the rulebook layer is here.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::check::check_rulebook;
use super::schema::RawRulebook;
use crate::diag::{Diagnostics, Problem, SourceFile};
use crate::model::Rulebook;
use crate::span::Span;

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
    let text = std::fs::read_to_string(&file).map_err(|source| LoadError::Io {
        path: file.display().to_string(),
        source,
    })?;
    parse_rulebook(&file.display().to_string(), &text).map_err(LoadError::Invalid)
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

/// SHA-256 of the text with line endings normalised, so a checkout on any OS hashes the same.
pub fn content_hash(text: &str) -> String {
    let normalised = text.replace("\r\n", "\n");
    let digest = Sha256::digest(normalised.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}
