//! One integration test binary: conformance of every bundled rulebook, the
//! CLI contract, located diagnostics, trace snapshots and hostile input.

mod ablations;
mod authoring;
mod bands;
mod baselines;
mod batch;
mod caps;
mod case_schema;
mod casekeys;
mod cli;
mod compiled;
mod conformance;
mod diagnostics;
mod diff;
mod docs;
mod errors;
mod extends;
mod field_baselines;
mod front;
mod fuzz;
mod generate;
mod generators;
mod handwritten;
mod hardening;
mod hostile;
mod invalid;
mod lang;
mod layers;
mod lists;
mod locate;
mod luma_generators;
mod no_abort;
mod pages;
mod properties;
mod readers;
mod repair;
mod repair_file;
mod repair_readings;
mod required_when;
mod roads;
mod score;
mod seed_sets;
mod serve;
mod splits;
mod sweep;
mod tasks;
mod tools;
mod traces;
mod verify_trace;
mod warnings;
mod written;

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

/// Every source file opens with a `//!` header saying what the module is for.
#[test]
fn every_source_file_has_a_module_header() {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&root().join("src"), &mut files);
    let missing: Vec<String> = files
        .iter()
        .filter(|f| {
            !std::fs::read_to_string(f)
                .unwrap_or_default()
                .starts_with("//!")
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "files without a //! header: {missing:?}"
    );
}
