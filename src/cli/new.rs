//! `bareme new ID`: a rulebook folder to start from, whose `check` and
//! `test` pass as written, so an author edits a working rulebook instead of
//! facing an empty file.
//!
//! Invariant: nothing that exists is overwritten; the version folder is
//! created with `create_dir` (which fails when it exists) before any file.

use std::path::Path;
use std::process::ExitCode;

use crate::cli::output::Stdout;

/// The rulebook, `{id}` standing for the id.
const RULEBOOK: &str = include_str!("templates/rulebook.toml");
/// Its one conformance case.
const CASE: &str = include_str!("templates/case.toml");

/// Writes `dir/ID/v1/rulebook.toml` and `dir/ID/v1/cases/01-bonus.toml`.
pub fn run(id: &str, dir: &Path) -> ExitCode {
    if !bareme::unstable::rulebook::is_rulebook_id(id) {
        warn!("error: the id {id:?} must be lowercase letters, digits, `-` and `_`");
        return ExitCode::from(2);
    }
    let set = dir.join(id);
    let version = set.join("v1");
    // A half-written folder would fail `check` and block the next `new`:
    // the version folder this run made goes when filling it fails.
    let made_set = !set.exists();
    let written = std::fs::create_dir_all(&set)
        .and_then(|()| std::fs::create_dir(&version))
        .and_then(|()| {
            fill(&version, id).inspect_err(|_| {
                let _ = std::fs::remove_dir_all(&version);
            })
        });
    match written {
        Ok(()) => {
            let mut out = Stdout::new();
            out.say(&format!(
                "wrote {}: try `bareme check {0}` and `bareme test {0}`",
                version.display()
            ));
            out.flush();
            // A failed exit leaves nothing behind: the next `new` would
            // refuse a folder this run reported as not made.
            if out.lost() {
                let _ = std::fs::remove_dir_all(&version);
                if made_set {
                    let _ = std::fs::remove_dir(&set);
                }
            }
            out.finish(ExitCode::SUCCESS)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            warn!(
                "error: {} exists; `bareme new` never overwrites",
                version.display()
            );
            ExitCode::from(2)
        }
        Err(e) => {
            warn!("error: cannot write {}: {e}", version.display());
            ExitCode::from(2)
        }
    }
}

/// Writes the rulebook and its case into the new, empty `version` folder.
fn fill(version: &Path, id: &str) -> std::io::Result<()> {
    std::fs::create_dir(version.join("cases"))?;
    write_new(
        &version.join("rulebook.toml"),
        &RULEBOOK.replace("{id}", id),
    )?;
    write_new(&version.join("cases/01-bonus.toml"), CASE)
}

/// Writes a file that must not exist yet.
fn write_new(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    file.write_all(text.as_bytes())
}
