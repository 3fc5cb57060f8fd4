//! Regressions of the rulebook front end's hardening (issue 24): a moved
//! band limit in an extending version, rows removed, inherited cases run
//! without a `cases/` folder, the parse of a failing expression bounded,
//! diagnostics rendered in linear time and capped, and `extends` kept to
//! regular files inside the rulebook set's folder.

use super::cli::{bareme, stderr, tempdir};
use bareme::diag::{Diagnostics, Problem, SourceFile, MAX_RENDERED};
use bareme::rulebook::{load_rulebook_with, LoadOptions};
use bareme::span::Span;
use bareme::LoadError;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A file of `lines` lines and one problem located on each of its first
/// `problems` lines.
fn many_problems(lines: usize, problems: usize) -> Diagnostics {
    let line = "[steps.s]\n";
    let text: String = line.repeat(lines);
    let mut d = Diagnostics::new(SourceFile {
        name: "many.toml".into(),
        text: Arc::from(text.as_str()),
    });
    for i in 0..problems {
        let at = i * line.len() + 1;
        d.push(
            Problem::new("check::unknown_name", format!("problem {i}"))
                .at(Span::new(at, at + 5), "here"),
        );
    }
    d
}

/// Rendering draws the first `MAX_RENDERED` problems, in order, and counts
/// the others on one line; each is located in its own line of the file
/// (drawn through the line index, not a scan from the file's start).
#[test]
fn rendering_draws_the_first_problems_and_counts_the_rest() {
    let d = many_problems(16_000, 16_000);
    let text = d.render(100, false);
    assert_eq!(text.matches("check::unknown_name").count(), MAX_RENDERED);
    assert!(
        text.contains("problem 199\n"),
        "{}",
        &text[text.len() - 400..]
    );
    assert!(!text.contains("problem 200\n"));
    // The 200th problem is on line 200, column 2.
    assert!(
        text.contains("[many.toml:200:2]"),
        "{}",
        &text[text.len() - 400..]
    );
    assert!(
        text.ends_with("… and 15800 more problems\n"),
        "{}",
        &text[text.len() - 200..]
    );
    // At most the cap: no count line.
    let d = many_problems(300, MAX_RENDERED);
    let text = d.render(100, false);
    assert_eq!(text.matches("check::unknown_name").count(), MAX_RENDERED);
    assert!(!text.contains("more problem"));
    let d = many_problems(300, MAX_RENDERED + 1);
    assert!(d.render(100, false).ends_with("… and 1 more problem\n"));
}

const BASE: &str = "[rulebook]\nid = \"toy\"\nversion = 1\nschema = 1\n\n[inputs.pay]\ntype = \"money\"\nrequired = true\n\n\
[steps.tax]\nexpr = \"pay / 10\"\n\n[[checks]]\ndecision = \"ok\"\n\n[decisions.ok.answer]\ntax = { expr = \"tax\", format = \"money\" }\n";

/// `dir/name/rulebook.toml` holding `text`; the folder.
fn version(dir: &Path, name: &str, text: &str) -> PathBuf {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).expect("folder");
    std::fs::write(folder.join("rulebook.toml"), text).expect("write");
    folder
}

/// A version 2 extending `target`, with `body` after its `[rulebook]`.
fn child(target: &str, body: &str) -> String {
    format!("[rulebook]\nid = \"toy\"\nversion = 2\nschema = 1\nextends = \"{target}\"\n{body}")
}

/// The problems of loading `path` as `code line:col-line:col`, and the rendered text.
fn refused(path: &Path, options: LoadOptions) -> (Vec<String>, String) {
    match load_rulebook_with(path, options) {
        Err(LoadError::Invalid(d)) => (d.locations(), d.render(100, false)),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("loads"),
    }
}

/// A FIFO (which blocks when opened) and `/dev/stdin` are refused before
/// they are opened: the load ends, with the problem at `extends`.
#[test]
fn extends_naming_a_fifo_or_standard_input_is_refused_unread() {
    let dir = tempdir("front-fifo");
    let fifo = dir.join("pipe");
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let v2 = version(&dir, "v2", &child("../pipe", ""));
    let (found, text) = refused(&v2, LoadOptions::default());
    assert_eq!(found, ["load::extends 5:11-5:20"]);
    assert!(text.contains("is not a regular file"), "{text}");
    // `/dev/stdin` is outside the set's folder; allowed outside, it is still no regular file.
    let v3 = version(&dir, "v3", &child("/dev/stdin", ""));
    let (found, _) = refused(&v3, LoadOptions::default());
    assert_eq!(found.len(), 1);
    assert!(found[0].ends_with(" 5:11-5:23"), "{found:?}");
    let (found, _) = refused(
        &v3,
        LoadOptions {
            allow_outside: true,
        },
    );
    assert_eq!(found, ["load::extends 5:11-5:23"]);
    // A folder without `rulebook.toml` is a missing file, as before.
    std::fs::create_dir_all(dir.join("empty")).expect("folder");
    let v4 = version(&dir, "v4", &child("../empty", ""));
    assert_eq!(
        refused(&v4, LoadOptions::default()).0,
        ["load::extends 5:11-5:21"]
    );
}

/// `extends` stays inside the rulebook set's folder unless allowed: the
/// file outside is never read, so no line of it is quoted.
#[test]
fn extends_stays_inside_the_rulebook_sets_folder() {
    let dir = tempdir("front-outside");
    version(
        &dir.join("other-set"),
        "v1",
        &format!("{BASE}# SECRET LINE\n[steps.bad]\nexpr = \"nothing\"\n"),
    );
    let v2 = version(&dir.join("set"), "v2", &child("../../other-set/v1", ""));
    let (found, text) = refused(&v2, LoadOptions::default());
    assert_eq!(found, ["load::extends_outside 5:11-5:31"]);
    assert!(
        !text.contains("SECRET") && !text.contains("nothing"),
        "{text}"
    );
    // Allowed outside, the base is read, and its own problem shown in it.
    let (found, text) = refused(
        &v2,
        LoadOptions {
            allow_outside: true,
        },
    );
    assert_eq!(found, ["check::unknown_name 20:9-20:16"], "{text}");
    // Inside the set, a version extends its sibling.
    version(&dir.join("set"), "v1", BASE);
    let v3 = version(&dir.join("set"), "v3", &child("../v1", ""));
    assert!(load_rulebook_with(&v3, LoadOptions::default()).is_ok());
    // The binary's flag.
    let fixed = version(&dir.join("other-set"), "v1", BASE);
    assert!(fixed.exists());
    let path = v2.display().to_string();
    let o = bareme(&["check", &path], None);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("load::extends_outside"),
        "{}",
        stderr(&o)
    );
    let o = bareme(&["--allow-outside", "check", &path], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = bareme(&["check", "--allow-outside", "--effective", &path], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}
