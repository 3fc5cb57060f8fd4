//! The seeds the mutators start from: every bundled rulebook with its text,
//! its names and expressions, and the bundled cases that go with it.
//!
//! Cases come from `examples/<set>/*.json` (and the JSON lines of
//! `examples/<set>/*.jsonl`) and from each rulebook's `cases/*.toml`, whose
//! `case` key holds the case as JSON text.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

/// One bundled rulebook and what the mutators need of it.
pub struct Book {
    /// The folder holding `rulebook.toml`.
    pub dir: PathBuf,
    /// The text of `rulebook.toml`.
    pub text: String,
    /// The rulebook, loaded once.
    pub rb: bareme::Rulebook,
    /// Its bundled cases, parsed.
    pub cases: Vec<serde_json::Value>,
    /// Lines of its set's `.jsonl` examples, as written (some are not JSON).
    pub raw_lines: Vec<String>,
    /// The names it declares: inputs, parameters, tables, steps, fields.
    pub names: Vec<String>,
    /// The expressions it holds (`expr`, `when`, `over`, …).
    pub exprs: Vec<String>,
}

/// Every bundled rulebook, in folder order.
pub static BOOKS: LazyLock<Vec<Book>> = LazyLock::new(|| {
    let books: Vec<Book> = super::super::rulebook_dirs()
        .iter()
        .map(|dir| load(dir))
        .collect();
    assert!(!books.is_empty(), "no bundled rulebooks");
    books
});

/// Every expression of every bundled rulebook.
pub static ALL_EXPRS: LazyLock<Vec<String>> =
    LazyLock::new(|| BOOKS.iter().flat_map(|b| b.exprs.clone()).collect());

fn load(dir: &Path) -> Book {
    let root = super::super::root();
    let rel = dir.strip_prefix(&root).unwrap_or(dir);
    let name = dir.display();
    let set = rel
        .iter()
        .nth(1)
        .map(|c| c.to_string_lossy().to_string())
        .unwrap_or_default();
    let text = std::fs::read_to_string(dir.join("rulebook.toml")).expect("rulebook text");
    let rb = bareme::load_rulebook(dir).expect("bundled rulebooks load");
    let mut cases = Vec::new();
    let mut raw_lines = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("cases"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("case file");
        let table: toml::Table = toml::from_str(&text).expect("case file is TOML");
        if let Some(json) = table.get("case").and_then(|c| c.as_str()) {
            if let Ok(case) = serde_json::from_str(json) {
                cases.push(case);
            }
        }
    }
    let mut examples: Vec<PathBuf> = std::fs::read_dir(root.join("examples").join(&set))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    examples.sort();
    for file in examples {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        match file.extension().and_then(|x| x.to_str()) {
            Some("json") => cases.extend(serde_json::from_str(&text).ok()),
            Some("jsonl") => {
                for line in text.lines() {
                    raw_lines.push(line.to_string());
                    cases.extend(serde_json::from_str(line).ok());
                }
            }
            _ => {}
        }
    }
    assert!(!cases.is_empty(), "{name} has no bundled cases");
    let doc: toml::Table = toml::from_str(&text).expect("rulebook is TOML");
    let mut names = Vec::new();
    let mut exprs = Vec::new();
    walk(&toml::Value::Table(doc), "", &mut names, &mut exprs);
    names.sort();
    names.dedup();
    Book {
        dir: dir.to_path_buf(),
        text,
        rb,
        cases,
        raw_lines,
        names,
        exprs,
    }
}

/// Collects the names under the declaring tables and the expression strings.
fn walk(v: &toml::Value, parent: &str, names: &mut Vec<String>, exprs: &mut Vec<String>) {
    const DECLARING: [&str; 8] = [
        "inputs",
        "parameters",
        "tables",
        "steps",
        "fields",
        "columns",
        "per_item",
        "decisions",
    ];
    const EXPRESSIONS: [&str; 7] = [
        "expr",
        "when",
        "over",
        "otherwise",
        "required_when",
        "reject",
        "check",
    ];
    match v {
        toml::Value::Table(t) => {
            for (k, v) in t {
                if DECLARING.contains(&parent) {
                    names.push(k.clone());
                }
                if let (true, Some(s)) = (EXPRESSIONS.contains(&k.as_str()), v.as_str()) {
                    exprs.push(s.to_string());
                }
                walk(v, k, names, exprs);
            }
        }
        toml::Value::Array(items) => {
            for it in items {
                walk(it, parent, names, exprs);
            }
        }
        _ => {}
    }
}
