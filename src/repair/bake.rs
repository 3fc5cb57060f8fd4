//! Baking: a rulebook rewritten so that some of its declared readings are
//! its main formulas, as text a person reads and edits.
//!
//! A repair task hands an agent a faulty calculator; in bareme a faulty
//! calculator is a rulebook whose steps compute declared wrong readings.
//! `bake` writes it: each named ablation's formulas replace the `expr` of
//! the steps it names, exactly as `Rulebook::ablated_all` replaces them in
//! the checked model, and every ablation is dropped, so that nothing left
//! in the text names a reading or keeps the formula that would undo it.
//! The effective rulebook is written (an `extends` chain merged, comments
//! gone: a comment may describe the right rule beside a baked wrong one).

use std::path::Path;
use std::sync::Arc;

use crate::diag::{Diagnostics, Problem, SourceFile};
use crate::model::Rulebook;
use crate::rulebook::raw::RawRulebook;
use crate::rulebook::{effective_toml_with, parse_rulebook, AblationError, LoadError, LoadOptions};

/// Why a rulebook could not be baked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BakeError {
    /// The rulebook does not load.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The readings named do not apply together (unknown, twice, same step, cycle).
    #[error(transparent)]
    Ablation(#[from] AblationError),
    /// The baked text did not load again (a bug of `bake`, reported, never written).
    #[error("the baked rulebook does not load: {0}")]
    Baked(Box<Diagnostics>),
    /// The folder to write exists and holds something, or is not a folder.
    #[error("{path} is not an empty folder: bake writes a folder of its own, never over one")]
    Occupied {
        /// The folder given.
        path: String,
    },
    /// The folder or file could not be written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The path tried.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

impl BakeError {
    /// A stable code: `bake::load`, the ablation's own (`ablation::unknown`,
    /// …), `bake::reload` or `bake::io`.
    pub fn code(&self) -> &'static str {
        match self {
            BakeError::Load(_) => "bake::load",
            BakeError::Ablation(e) => e.code(),
            BakeError::Baked(_) => "bake::reload",
            BakeError::Occupied { .. } => "bake::occupied",
            BakeError::Io { .. } => "bake::io",
        }
    }
}

/// A baked rulebook: its text and the rulebook that text loads as.
#[derive(Debug)]
pub struct Baked {
    /// The `rulebook.toml` text.
    pub text: String,
    /// It, loaded and checked.
    pub rulebook: Rulebook,
}

/// Bakes the rulebook at `path` (its effective rulebook, an `extends`
/// chain merged) under the readings `names`.
pub fn bake_path(path: &Path, names: &[&str], options: LoadOptions) -> Result<Baked, BakeError> {
    let text = effective_toml_with(path, options)?;
    bake_text("rulebook.toml", &text, names)
}

/// Bakes rulebook text (read from no file, so extending none) under the
/// readings `names`: they are first applied to the checked rulebook, so
/// that they are refused as `--ablate` refuses them.
pub fn bake_text(name: &str, text: &str, names: &[&str]) -> Result<Baked, BakeError> {
    let rb = parse_rulebook(name, text).map_err(LoadError::Invalid)?;
    rb.ablated_all(names)?;
    // The text checked, so it parses into its mirror; a failure here is
    // reported as a load problem all the same.
    let mut raw: RawRulebook = toml::from_str(text).map_err(|e| printing(name, &e))?;
    let ablations = std::mem::take(&mut raw.ablations);
    for name in names {
        let Some(ablation) = ablations.get(*name) else {
            continue;
        };
        for (target, formula) in &ablation.steps {
            let step = match target.split_once('.') {
                Some((group, step)) => raw
                    .per_item
                    .get_mut(group)
                    .and_then(|g| g.steps.get_mut(step)),
                None => raw.steps.get_mut(target.as_str()),
            };
            // The checked rulebook applied this ablation, so its step
            // exists; a miss would show in the reload below.
            if let Some(step) = step {
                *step.expr.get_mut() = formula.get_ref().clone();
            }
        }
    }
    let baked = toml::to_string_pretty(&raw).map_err(|e| printing(name, &e))?;
    let rulebook = parse_rulebook(name, &baked).map_err(|d| BakeError::Baked(Box::new(d)))?;
    Ok(Baked {
        text: baked,
        rulebook,
    })
}

/// A rulebook that cannot be read into its mirror or printed again.
fn printing(name: &str, e: &dyn std::fmt::Display) -> BakeError {
    let mut d = Diagnostics::new(SourceFile {
        name: name.to_string(),
        text: Arc::from(""),
    });
    d.push(Problem::new("bake::print", e.to_string()));
    BakeError::Baked(Box::new(d))
}

/// Writes a baked rulebook as the folder `dir` (`dir/rulebook.toml`),
/// creating the folder; no conformance case is written, as a case would
/// show the answers the readings get wrong.
pub fn write_baked(dir: &Path, baked: &Baked) -> Result<(), BakeError> {
    let file = dir.join("rulebook.toml");
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| BakeError::Io { path, source }
    };
    // A folder of its own: an old `rulebook.toml` was overwritten without a
    // word, a link in its place written through, and an old `cases/` left
    // beside the baked rulebook for `bareme test` to run.
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(BakeError::Occupied {
                    path: dir.display().to_string(),
                });
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(dir).map_err(io(dir))?;
        }
        Err(_) if dir.symlink_metadata().is_ok_and(|m| !m.is_dir()) => {
            return Err(BakeError::Occupied {
                path: dir.display().to_string(),
            });
        }
        Err(e) => return Err(io(dir)(e)),
    }
    use std::io::Write;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&file)
        .and_then(|mut f| {
            f.write_all(baked.text.as_bytes())
                .and_then(|()| f.sync_all())
        })
        .map_err(io(&file))
}
