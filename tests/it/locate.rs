//! The command line as a newcomer meets it: bundled rulebooks, generators
//! and rubrics found by name from any folder (the search path of the
//! README's "Install"), a rulebook set or a swapped pair of arguments
//! named as such, and the one-line summary closing `eval --batch`.

use std::process::{Command, Output};

use crate::cli::{stderr, stdout};
use crate::root;

/// The binary run from `dir`, with `BAREME_PATH` as given (unset for `None`).
fn bareme_in(dir: &std::path::Path, path: Option<&std::path::Path>, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_bareme"));
    cmd.current_dir(dir).args(args).env_remove("BAREME_PATH");
    if let Some(p) = path {
        cmd.env("BAREME_PATH", p);
    }
    cmd.output().expect("bareme runs")
}

fn payslip() -> String {
    root()
        .join("examples/luma-payroll/payslip.json")
        .display()
        .to_string()
}

/// From a folder with no `rulebooks/`, `luma-payroll/v3` is the bundled
/// rulebook of the source tree: the payslip's net pay is its hand-checked
/// 3155.20 (examples/luma-payroll: 3650.00 − 146.00 − 228.80 − 120.00).
#[test]
fn a_bundled_rulebook_is_found_by_name_from_any_folder() {
    let dir = std::env::temp_dir();
    let o = bareme_in(&dir, None, &["eval", "luma-payroll/v3", &payslip()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("\"net_pay\":\"3155.20\""),
        "{}",
        stdout(&o)
    );
    let o = bareme_in(
        &dir,
        None,
        &[
            "generate",
            "luma-payroll/generator-4.toml",
            "-n",
            "1",
            "--seed",
            "7",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("{\"id\":\"luma-"), "{}", stdout(&o));
}

/// `BAREME_PATH` comes before the bundled folder: a rulebook set of the
/// same name there is the one read.
#[test]
fn bareme_path_is_searched_first() {
    let tmp = tempdir("bareme-path");
    let set = tmp.join("luma-payroll");
    std::fs::create_dir_all(set.join("v3")).expect("folders");
    std::fs::write(set.join("v3/rulebook.toml"), "not toml [").expect("written");
    let o = bareme_in(&tmp, Some(&tmp), &["check", "luma-payroll/v3"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let o = bareme_in(
        &std::env::temp_dir(),
        Some(&tmp),
        &["check", "luma-payroll/v3"],
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&tmp.display().to_string()),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_rulebook_set_lists_its_versions() {
    let o = bareme_in(&root(), None, &["eval", "rulebooks/paie-fr", &payslip()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(
            "rulebooks/paie-fr is a rulebook set, not a version: name one of its versions \
             (rulebooks/paie-fr/v2025, rulebooks/paie-fr/v2026)"
        ),
        "{}",
        stderr(&o)
    );
}

#[test]
fn swapped_arguments_are_named() {
    let o = bareme_in(
        &root(),
        None,
        &["eval", &payslip(), "rulebooks/luma-payroll/v3"],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("is a case, not a rulebook"), "{err}");
    assert!(err.contains("were the two swapped?"), "{err}");
    let o = bareme_in(
        &root(),
        None,
        &[
            "sweep",
            "rulebooks/luma-payroll/v3",
            "rulebooks/luma-payroll/v3",
            "--vary",
            "gross_pay=1..2:1",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is a rulebook, not a case"),
        "{}",
        stderr(&o)
    );
}

/// The bundled batch: three answered (a payslip, a clarification, a
/// retrieval), two rejected (a negative gross pay, a line that is not
/// JSON), no fault.
#[test]
fn a_batch_ends_with_its_counts() {
    let o = bareme_in(
        &root(),
        None,
        &[
            "eval",
            "rulebooks/luma-payroll/v3",
            "--batch",
            "examples/luma-payroll/batch.jsonl",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), 5);
    let answered = stdout(&o)
        .lines()
        .filter(|l| !l.starts_with("{\"error\""))
        .count();
    assert_eq!(answered, 3);
    assert_eq!(
        stderr(&o).trim_end(),
        "5 cases: 3 answered, 2 rejected, 0 faults"
    );
}

fn tempdir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}
