//! Authoring tools: `bareme new` scaffolds a rulebook that checks and
//! passes its case; the tutorial's rulebooks (`examples/authoring/`) check
//! and pass theirs.

use super::cli::{bareme, stderr, stdout, tempdir};

#[test]
fn new_scaffolds_a_rulebook_whose_check_and_test_pass_and_never_overwrites() {
    let dir = tempdir("new");
    let _ = std::fs::remove_dir_all(dir.join("regional-pay"));
    let dir_arg = dir.display().to_string();
    let o = bareme(&["new", "regional-pay", "--dir", &dir_arg], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let version = dir.join("regional-pay/v1");
    let v = version.display().to_string();
    let check = bareme(&["check", &v], None);
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
    assert!(stdout(&check).starts_with("ok: regional-pay@1#"));
    let test = bareme(&["test", &v], None);
    assert_eq!(test.status.code(), Some(0), "{}", stdout(&test));
    assert!(
        stdout(&test).ends_with(": 1 passed, 0 failed\n"),
        "{}",
        stdout(&test)
    );
    // A second run refuses, and leaves the rulebook as it was.
    let before = std::fs::read_to_string(version.join("rulebook.toml")).expect("written");
    std::fs::write(version.join("rulebook.toml"), "edited").expect("edit");
    let again = bareme(&["new", "regional-pay", "--dir", &dir_arg], None);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains("never overwrites"),
        "{}",
        stderr(&again)
    );
    assert_eq!(
        std::fs::read_to_string(version.join("rulebook.toml")).expect("kept"),
        "edited"
    );
    assert!(before.contains("id = \"regional-pay\""));
    // An id the format refuses is refused before anything is written.
    let bad = bareme(&["new", "Regional Pay", "--dir", &dir_arg], None);
    assert_eq!(bad.status.code(), Some(2));
    assert!(!dir.join("Regional Pay").exists());
}

/// A `new` whose report cannot be written fails (exit 2) and leaves no
/// folder behind: it wrote the rulebook and exited 2, and the next `new`
/// then refused a folder the failed run had made.
#[cfg(target_os = "linux")]
#[test]
fn new_whose_report_is_lost_leaves_nothing_behind() {
    let dir = tempdir("new-lost");
    let _ = std::fs::remove_dir_all(dir.join("lost-pay"));
    let dir_arg = dir.display().to_string();
    let o = super::cli::bareme_into_a_full_disk(&["new", "lost-pay", "--dir", &dir_arg]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("No space left on device"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.join("lost-pay").exists());
    let again = bareme(&["new", "lost-pay", "--dir", &dir_arg], None);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(dir.join("lost-pay/v1/rulebook.toml").is_file());
    let _ = std::fs::remove_dir_all(dir.join("lost-pay"));
}

#[test]
fn the_checked_in_json_schema_is_the_generated_one() {
    let generated = bareme::unstable::rulebook::raw::json_schema();
    let path = super::root().join("docs/rulebook.schema.json");
    let file = std::fs::read_to_string(&path).expect("docs/rulebook.schema.json");
    assert!(
        file == generated,
        "docs/rulebook.schema.json is stale: run `bareme schema > docs/rulebook.schema.json`"
    );
    let o = bareme(&["schema"], None);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), generated);
    // Misspelt keys are what an editor should flag: every table refuses
    // keys it does not name, as the loader does.
    let schema: serde_json::Value = serde_json::from_str(&generated).expect("JSON");
    let step = &schema["definitions"]["RawStep"];
    assert_eq!(step["additionalProperties"], serde_json::json!(false));
    assert_eq!(step["required"], serde_json::json!(["expr"]));
    assert_eq!(schema["required"], serde_json::json!(["rulebook"]));
    let identity = &schema["definitions"]["RawIdentity"]["properties"];
    assert!(identity.get("extends").is_some() && identity.get("remove").is_some());
}

/// Every rulebook folder under `examples/authoring/`.
fn tutorial_versions() -> Vec<std::path::PathBuf> {
    let root = super::root().join("examples/authoring");
    let mut out = Vec::new();
    for set in std::fs::read_dir(&root)
        .expect("examples/authoring")
        .flatten()
    {
        for v in std::fs::read_dir(set.path()).expect("a rule set").flatten() {
            if v.path().join("rulebook.toml").exists() {
                out.push(v.path());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_tutorial_rulebooks_check_and_pass_their_cases() {
    let versions = tutorial_versions();
    assert_eq!(versions.len(), 2, "{versions:?}");
    for v in versions {
        let v = v.display().to_string();
        let check = bareme(&["check", &v], None);
        assert_eq!(check.status.code(), Some(0), "{v}: {}", stderr(&check));
        let test = bareme(&["test", &v], None);
        assert_eq!(test.status.code(), Some(0), "{v}: {}", stdout(&test));
    }
    // v2027 runs its own case and the 2026 case that names it.
    let test = bareme(&["test", "examples/authoring/fjord-pay/v2027"], None);
    assert!(
        stdout(&test).ends_with(": 2 passed, 0 failed\n"),
        "{}",
        stdout(&test)
    );
}

#[test]
fn every_toml_snippet_of_the_tutorial_is_in_its_rulebooks() {
    let mut files = String::new();
    let mut stack = vec![super::root().join("examples/authoring")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "toml") {
                files.push_str(&std::fs::read_to_string(&path).expect("text"));
                files.push('\n');
            }
        }
    }
    let doc = std::fs::read_to_string(super::root().join("docs/authoring.md")).expect("doc");
    let mut snippets = 0;
    for block in doc.split("```toml\n").skip(1) {
        let snippet = block.split("```").next().unwrap_or_default();
        assert!(
            files.contains(snippet),
            "this snippet of docs/authoring.md is in no file of examples/authoring:\n{snippet}"
        );
        snippets += 1;
    }
    assert!(snippets >= 15, "{snippets} snippets");
}

/// The regional payroll written from the docs alone, with no change to
/// `src/` (a tax code read by a pattern, cumulative bands pro-rated to the
/// month, a second version that extends the first): both versions check
/// without a warning and pass their hand-computed cases, v2027 also the
/// four v2026 cases that name it.
#[test]
fn the_regional_payroll_written_from_the_docs_checks_and_passes() {
    for v in ["v2026", "v2027"] {
        let dir = format!("examples/regional-payroll/{v}");
        let check = bareme(&["check", "--deny", "warnings", &dir], None);
        assert_eq!(check.status.code(), Some(0), "{dir}: {}", stderr(&check));
        let test = bareme(&["test", &dir], None);
        assert_eq!(test.status.code(), Some(0), "{dir}: {}", stdout(&test));
    }
    let test = bareme(&["test", "examples/regional-payroll/v2027"], None);
    assert!(
        stdout(&test).ends_with(": 13 passed, 0 failed\n"),
        "{}",
        stdout(&test)
    );
}
