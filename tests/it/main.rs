//! One integration test binary: conformance of every bundled rulebook, the
//! CLI contract, located diagnostics, trace snapshots and hostile input.

mod cli;
mod conformance;
mod diagnostics;
mod hostile;
mod properties;
mod traces;

use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Loads a bundled rulebook, failing the test with its diagnostics.
pub fn rulebook(rel: &str) -> bareme::Rulebook {
    match bareme::load_rulebook(&root().join(rel)) {
        Ok(rb) => rb,
        Err(bareme::LoadError::Invalid(d)) => panic!("{}", d.render(100, false)),
        Err(e) => panic!("{e}"),
    }
}

/// Every rulebook folder (holding rulebook.toml) under `rulebooks/`.
pub fn rulebook_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let Ok(sets) = std::fs::read_dir(root().join("rulebooks")) else {
        return dirs;
    };
    for set in sets.flatten() {
        let Ok(versions) = std::fs::read_dir(set.path()) else {
            continue;
        };
        for v in versions.flatten() {
            if Path::new(&v.path().join("rulebook.toml")).exists() {
                dirs.push(v.path());
            }
        }
    }
    dirs.sort();
    dirs
}
