//! `bareme diff OLD NEW --format json` in one call: the two versions read
//! as the command reads them (a version that `extends` another as its
//! effective rulebook), the structural diff, and the verdict on the
//! generators and rubrics beside OLD that name it.

use std::path::{Path, PathBuf};

use crate::diff::{diff_rulebooks, verdict, Dependent, DependentKind, Report, Verdict, Version};
use crate::rulebook::load::{read_capped, rulebook_file, MAX_RULEBOOK_BYTES};
use crate::rulebook::{effective_toml, load_rulebook, parse_rulebook, LoadError};

/// Why two versions could not be diffed.
///
/// ```
/// let err = bareme::diff_versions("rulebooks/no-such/v1".as_ref(), "rulebooks/paie-fr/v2026".as_ref()).unwrap_err();
/// assert_eq!(err.code(), "load::io");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DiffError {
    /// A version (or a file beside it) could not be read, or has problems.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// A file beside OLD could not be read.
    #[error("cannot read {path}: {message}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
    /// The two versions could not be compared.
    #[error("{0}")]
    Compare(crate::diff::DiffError),
    /// The report could not be written as JSON.
    #[error("cannot write the report: {0}")]
    Write(String),
}

impl DiffError {
    /// The stable code of the failure: the load's (`load::io`,
    /// `load::invalid`, …), `diff::read` or `diff::compare`.
    pub fn code(&self) -> &'static str {
        match self {
            DiffError::Load(e) => e.code(),
            DiffError::Read { .. } => "diff::read",
            DiffError::Compare(e) => e.code(),
            DiffError::Write(_) => "diff::write",
        }
    }
}

/// A version as the diff reads it: its file name, text and rulebook.
struct Loaded {
    file: String,
    text: String,
    /// For a version that extends another, each file of the chain and its
    /// text (where the diff's lines are pointed, as `bareme diff` does).
    parts: Vec<(String, String)>,
    id: String,
    version: i64,
}

fn read_text(path: &Path) -> Result<String, DiffError> {
    let fail = |message: String| DiffError::Read {
        path: path.display().to_string(),
        message,
    };
    let bytes = std::fs::File::open(path)
        .and_then(|f| read_capped(f, MAX_RULEBOOK_BYTES))
        .map_err(|e| fail(e.to_string()))?
        .ok_or_else(|| fail(format!("the file is over {MAX_RULEBOOK_BYTES} bytes")))?;
    String::from_utf8(bytes).map_err(|e| {
        fail(format!(
            "not UTF-8 text: invalid byte at offset {}",
            e.utf8_error().valid_up_to()
        ))
    })
}

fn load(path: &Path) -> Result<(Loaded, crate::model::Rulebook), DiffError> {
    let file = rulebook_file(path);
    let name = file.display().to_string();
    let rulebook = load_rulebook(&file)?;
    let mut parts = Vec::new();
    let (file, text) = if rulebook.files().len() > 1 {
        for part in rulebook.files() {
            parts.push((part.clone(), read_text(Path::new(part))?));
        }
        (format!("{name} (effective)"), effective_toml(&file)?)
    } else {
        let text = read_text(&file)?;
        parse_rulebook(&name, &text).map_err(LoadError::Invalid)?;
        (name, text)
    };
    let loaded = Loaded {
        file,
        text,
        parts,
        id: rulebook.id().to_string(),
        version: rulebook.version(),
    };
    Ok((loaded, rulebook))
}

/// `[section] rulebook = "…"` of a generator or rubric, read loosely.
fn names(text: &str, section: &str) -> Option<String> {
    let table = toml::from_str::<toml::Table>(text).ok()?;
    Some(table.get(section)?.get("rulebook")?.as_str()?.to_string())
}

/// The generators or rubrics beside OLD's version folder that name OLD.
fn beside(old: &Loaded, prefix: &str, section: &str) -> Result<Vec<PathBuf>, DiffError> {
    let file = Path::new(&old.file);
    let Some(set) = file.parent().and_then(Path::parent) else {
        return Ok(Vec::new());
    };
    let Ok(entries) = std::fs::read_dir(set) else {
        return Ok(Vec::new());
    };
    let wanted = format!("{}@{}", old.id, old.version);
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(prefix) && name.ends_with(".toml") {
            let text = read_text(&path)?;
            if names(&text, section).as_deref() == Some(wanted.as_str()) {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Two rulebook versions compared, as `bareme diff OLD NEW --format json`
/// prints its report (pretty-printed JSON, without the final newline):
/// the structural diff and a verdict on each generator and rubric beside
/// OLD that names OLD.
///
/// ```
/// let json = bareme::diff_versions("rulebooks/paie-fr/v2025".as_ref(), "rulebooks/paie-fr/v2026".as_ref())?;
/// let report: serde_json::Value = serde_json::from_str(&json)?;
/// assert_eq!(report["new"]["rulebook"], "paie-fr@2026");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn diff_versions(old: &Path, new: &Path) -> Result<String, DiffError> {
    let (old, _) = load(old)?;
    let (new, new_rb) = load(new)?;
    let version = |l: &Loaded| (l.file.clone(), l.text.clone());
    let (of, ot) = version(&old);
    let (nf, nt) = version(&new);
    let diff = diff_rulebooks(
        &Version {
            file: &of,
            text: &ot,
        },
        &Version {
            file: &nf,
            text: &nt,
        },
    )
    .map_err(DiffError::Compare)?;
    let versions = |l: &Loaded| -> Vec<(String, String)> { l.parts.clone() };
    let (op, np) = (versions(&old), versions(&new));
    let ov: Vec<Version<'_>> = op
        .iter()
        .map(|(file, text)| Version { file, text })
        .collect();
    let nv: Vec<Version<'_>> = np
        .iter()
        .map(|(file, text)| Version { file, text })
        .collect();
    let mut diff = diff;
    crate::diff::relocate(&mut diff, &ov, &nv);
    let mut compatibility: Vec<Verdict> = Vec::new();
    let kinds = beside(&old, "generator-", "generator")?
        .into_iter()
        .map(|p| (DependentKind::Generator, p))
        .chain(
            beside(&old, "rubric-", "rubric")?
                .into_iter()
                .map(|p| (DependentKind::Rubric, p)),
        );
    for (kind, path) in kinds {
        let text = read_text(&path)?;
        let file = path.display().to_string();
        let dep = Dependent {
            kind,
            file: &file,
            text: &text,
        };
        compatibility.push(verdict(&dep, &new_rb, &diff));
    }
    let report = Report {
        diff,
        compatibility: Some(compatibility),
        impact: None,
    };
    serde_json::to_string_pretty(&report).map_err(|e| DiffError::Write(e.to_string()))
}
