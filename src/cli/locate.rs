//! Where a file named on the command line is: the path as given, else a
//! bundled rulebook, generator or rubric found by name on the search path,
//! so an installed `bareme` runs `bareme eval luma-payroll/v3 case.json`
//! from any folder.
//!
//! The search path, first match wins (README, "Finding rulebooks"):
//! 1. the path as given, from the current folder;
//! 2. each folder of `BAREME_PATH` (separated as `PATH` is);
//! 3. `rulebooks/` in the current folder;
//! 4. `rulebooks/` of the source tree this binary was built from, while it
//!    is there (`cargo install --path .` keeps it).
//!
//! A rulebook argument that names a rulebook set (the folder of versions)
//! or a case file is refused with what to write instead: those are the
//! two slips a newcomer makes.

use std::path::{Path, PathBuf};

/// The folders searched after the path as given, in order.
pub fn search_path() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("BAREME_PATH")
        .map(|v| {
            std::env::split_paths(&v)
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        })
        .unwrap_or_default();
    dirs.push(PathBuf::from("rulebooks"));
    dirs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("rulebooks"));
    dirs
}

/// The file or folder an argument names: as given when it exists, else the
/// first match on the search path, else as given (whose reader then says
/// it cannot be read). An absolute path is never searched for.
pub fn bundled(arg: &Path) -> PathBuf {
    if arg.exists() || arg.is_absolute() {
        return arg.to_path_buf();
    }
    search_path()
        .into_iter()
        .map(|dir| dir.join(arg))
        .find(|p| p.exists())
        .unwrap_or_else(|| arg.to_path_buf())
}

/// A rulebook argument (clap's value parser): found as `bundled` finds it,
/// refused with a hint when it names a rulebook set or a case.
pub fn rulebook(arg: &str) -> Result<PathBuf, String> {
    let path = bundled(Path::new(arg));
    if path.is_dir() && !path.join("rulebook.toml").exists() {
        let versions = versions(&path);
        if !versions.is_empty() {
            let with = |v: &String| Path::new(arg).join(v).display().to_string();
            return Err(format!(
                "{arg} is a rulebook set, not a version: name one of its versions ({})",
                versions.iter().map(with).collect::<Vec<_>>().join(", ")
            ));
        }
    }
    if is_case_file(&path) {
        return Err(format!(
            "{arg} is a case, not a rulebook: the rulebook comes first \
             (bareme eval RULEBOOK CASE); were the two swapped?"
        ));
    }
    Ok(path)
}

/// A generator or rubric argument: found as `bundled` finds it.
pub fn companion(arg: &str) -> Result<PathBuf, String> {
    let path = bundled(Path::new(arg));
    if path.join("rulebook.toml").exists() {
        return Err(format!(
            "{arg} is a rulebook, not a generator or rubric file (rulebooks/<id>/generator-<n>.toml, rubric-<n>.toml)"
        ));
    }
    Ok(path)
}

/// A case argument: refused with a hint when it names a rulebook.
pub fn case(arg: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(arg);
    if path.is_dir() && (path.join("rulebook.toml").exists() || !versions(&path).is_empty()) {
        return Err(format!(
            "{arg} is a rulebook, not a case: the rulebook comes first \
             (bareme eval RULEBOOK CASE); were the two swapped?"
        ));
    }
    Ok(path)
}

/// The version folders of a rulebook set (each holding `rulebook.toml`), sorted.
pub fn versions(set: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(set)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().join("rulebook.toml").is_file())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    out.sort();
    out
}

fn is_case_file(path: &Path) -> bool {
    path.is_file()
        && path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("json") || e.eq_ignore_ascii_case("jsonl"))
}
