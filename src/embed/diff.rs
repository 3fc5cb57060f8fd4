//! `bareme diff OLD NEW --format json` in one call: the two versions read
//! as the command reads them (a version that `extends` another as its
//! effective rulebook), the structural diff, and the verdict on the
//! generators and rubrics beside OLD that name it.

use std::path::{Path, PathBuf};

use crate::diff::{
    diff_rulebooks, drop_default_formats, relocate, verdict, Dependent, DependentKind, Report,
    RulebookDiff, Verdict, Version,
};
use crate::model::Rulebook;
use crate::rulebook::load::{open_regular, read_capped, rulebook_file, MAX_RULEBOOK_BYTES};
use crate::rulebook::{
    effective_toml_with, load_rulebook_with, parse_rulebook, LoadError, LoadOptions,
};

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

/// A rulebook version as a diff reads it: the file name and text compared
/// (a version that `extends` another is compared as its effective rulebook,
/// the chain merged and printed as TOML), its rulebook, and for such a
/// version each file of the chain with its text, where the diff's lines are
/// pointed back. `bareme diff` and [`diff_versions`] both read versions
/// through it.
pub struct DiffedVersion {
    /// The file compared (`… (effective)` for an extending version).
    pub file: String,
    /// Its text.
    pub text: String,
    /// The checked rulebook.
    pub rulebook: Rulebook,
    /// Each file of an extending version's chain and its text, the named one first.
    pub parts: Vec<(String, String)>,
}

impl DiffedVersion {
    /// Reads the version at `path` (a folder or its `rulebook.toml`).
    pub fn load(path: &Path, options: LoadOptions) -> Result<DiffedVersion, DiffError> {
        let file = rulebook_file(path);
        let name = file.display().to_string();
        let rulebook = load_rulebook_with(&file, options)?;
        if rulebook.files().len() > 1 {
            let text = effective_toml_with(&file, options)?;
            let mut parts = Vec::new();
            for part in rulebook.files() {
                parts.push((part.clone(), read_text(Path::new(part))?));
            }
            return Ok(DiffedVersion {
                file: format!("{name} (effective)"),
                text,
                rulebook,
                parts,
            });
        }
        let text = read_text(&file)?;
        parse_rulebook(&name, &text).map_err(LoadError::Invalid)?;
        Ok(DiffedVersion {
            file: name,
            text,
            rulebook,
            parts: Vec::new(),
        })
    }

    /// The version as the structural diff takes it.
    pub fn version(&self) -> Version<'_> {
        Version {
            file: &self.file,
            text: &self.text,
        }
    }

    fn parts(&self) -> Vec<Version<'_>> {
        self.parts
            .iter()
            .map(|(file, text)| Version { file, text })
            .collect()
    }

    /// The generators, then the rubrics, beside this version's folder that
    /// name this version (`[generator] rulebook = "id@version"`), each kind
    /// in the order of their paths.
    pub fn dependents(&self) -> Result<Vec<(DependentKind, PathBuf)>, DiffError> {
        let generators = self.beside("generator-", "generator")?;
        let rubrics = self.beside("rubric-", "rubric")?;
        Ok(generators
            .into_iter()
            .map(|p| (DependentKind::Generator, p))
            .chain(rubrics.into_iter().map(|p| (DependentKind::Rubric, p)))
            .collect())
    }

    fn beside(&self, prefix: &str, section: &str) -> Result<Vec<PathBuf>, DiffError> {
        let file = Path::new(&self.file);
        let Some(set) = file.parent().and_then(Path::parent) else {
            return Ok(Vec::new());
        };
        // `v1/rulebook.toml`'s set is the folder it is named from: an empty
        // path lists nothing, and the verdict said no companion was there.
        let set = match set.as_os_str().is_empty() {
            true => Path::new("."),
            false => set,
        };
        let Ok(entries) = std::fs::read_dir(set) else {
            return Ok(Vec::new());
        };
        let wanted = format!("{}@{}", self.rulebook.id(), self.rulebook.version());
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
}

/// A file's text, capped as a rulebook is.
pub fn read_text(path: &Path) -> Result<String, DiffError> {
    let fail = |message: String| DiffError::Read {
        path: path.display().to_string(),
        message,
    };
    let bytes = open_regular(path)
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

/// `[section] rulebook = "…"` of a generator or rubric, read loosely.
fn names(text: &str, section: &str) -> Option<String> {
    let table = toml::from_str::<toml::Table>(text).ok()?;
    Some(table.get(section)?.get("rulebook")?.as_str()?.to_string())
}

/// The structural diff of two versions, its lines pointed into the files
/// of an extending version's chain.
pub fn compare_versions(
    old: &DiffedVersion,
    new: &DiffedVersion,
) -> Result<RulebookDiff, DiffError> {
    let mut diff = diff_rulebooks(&old.version(), &new.version()).map_err(DiffError::Compare)?;
    drop_default_formats(&mut diff, &old.rulebook, &new.rulebook);
    relocate(&mut diff, &old.parts(), &new.parts());
    Ok(diff)
}

/// The verdict on each generator or rubric against NEW under the diff.
pub fn verdicts(
    dependents: &[(DependentKind, PathBuf)],
    new: &Rulebook,
    diff: &RulebookDiff,
) -> Result<Vec<Verdict>, DiffError> {
    let mut out = Vec::new();
    for (kind, path) in dependents {
        let text = read_text(path)?;
        let file = path.display().to_string();
        let dep = Dependent {
            kind: *kind,
            file: &file,
            text: &text,
        };
        out.push(verdict(&dep, new, diff));
    }
    Ok(out)
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
    let old = DiffedVersion::load(old, LoadOptions::default())?;
    let new = DiffedVersion::load(new, LoadOptions::default())?;
    let diff = compare_versions(&old, &new)?;
    let compatibility = verdicts(&old.dependents()?, &new.rulebook, &diff)?;
    let report = Report {
        diff,
        compatibility: Some(compatibility),
        impact: None,
    };
    serde_json::to_string_pretty(&report).map_err(|e| DiffError::Write(e.to_string()))
}
