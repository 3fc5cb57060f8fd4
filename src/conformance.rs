//! Conformance cases: worked examples that pin a rulebook's behaviour.
//!
//! Each rulebook folder holds `cases/*.toml`, one case per file: a JSON case
//! (as text, so it can hold `null` and numbers as written) and the expected
//! answer or rejection path. `bareme test` and the test suite run them.
//!
//! A case may hold expectations per rulebook version (`[versions.2025.answer]`
//! beside or instead of `[expect.answer]`): a version that extends another
//! also runs the extended versions' cases that name it, so one case pins
//! what changes, or does not, from one version to the next.
//!
//! Invariant: a case is run twice, with and without the trace, and both
//! runs must agree: tracing never changes an answer.

use serde::Deserialize;
use std::path::{Path, PathBuf};

use crate::case::toml::json_from_toml as toml_to_json;
use crate::eval::Outcome;
use crate::evaluation::evaluate_value;
use crate::rulebook::load::{read_capped, MAX_CASE_FILE_BYTES};
use crate::rulebook::Rulebook;
use crate::tasks::version_number;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCase {
    description: Option<String>,
    /// Evaluate under this ablation of the rulebook (`a,b`: these together).
    ablation: Option<String>,
    case: String,
    /// What the rulebook of the folder holding the file gives.
    expect: Option<RawExpect>,
    /// What each named version gives (this folder's, or one extending it).
    #[serde(default)]
    versions: indexmap::IndexMap<String, RawExpect>,
}

impl RawCase {
    /// The expectation for `version`: its own, else `expect` when the case
    /// is in the rulebook's own folder.
    fn expectation(&self, version: i64, own: bool) -> Option<&RawExpect> {
        self.versions
            .get(&version.to_string())
            .or(if own { self.expect.as_ref() } else { None })
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExpect {
    answer: Option<toml::Value>,
    error: Option<ExpectedError>,
    /// Under `versions.V`: the answer of `expect` with these fields
    /// replaced, so a version's expectation states only what it changes.
    changes: Option<toml::Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectedError {
    path: String,
    message: Option<String>,
}

/// The result of one conformance case.
#[derive(Debug)]
pub struct CaseResult {
    /// File name without extension.
    pub name: String,
    /// What the case says it covers.
    pub description: Option<String>,
    /// One line per difference; empty when the case passes.
    pub failures: Vec<String>,
}

/// Results of all cases of a rulebook.
#[derive(Debug)]
pub struct Report {
    /// One per case file, in file-name order.
    pub results: Vec<CaseResult>,
}

impl Report {
    /// Number of failing cases.
    pub fn failed(&self) -> usize {
        self.results
            .iter()
            .filter(|r| !r.failures.is_empty())
            .count()
    }
}

/// Why a rulebook's conformance cases cannot be listed or read. A run
/// ([`run_conformance`]) fails only when the folder cannot be listed; a bad
/// case file is one failed case there.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConformanceError {
    /// The `cases` folder cannot be listed.
    #[error("cannot read {path}: {source}")]
    Folder {
        /// The folder tried.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A case file cannot be read, or is no case file.
    #[error("{name}: {message}")]
    CaseFile {
        /// The file's name, without extension.
        name: String,
        /// Why, as a failed case of a run says it.
        message: String,
    },
}

impl ConformanceError {
    /// A stable code: `conformance.folder`, `conformance.case_file`.
    pub fn code(&self) -> &'static str {
        match self {
            ConformanceError::Folder { .. } => "conformance::folder",
            ConformanceError::CaseFile { .. } => "conformance::case_file",
        }
    }
}

/// The JSON cases of a rulebook's conformance files (those without an ablation), by file name.
pub fn cases(dir: &Path) -> Result<Vec<(String, serde_json::Value)>, ConformanceError> {
    let mut out = Vec::new();
    for file in case_files(dir)? {
        let (name, parsed) = read_case(&file);
        let raw = match parsed {
            Ok(raw) => raw,
            Err(message) => return Err(ConformanceError::CaseFile { name, message }),
        };
        if raw.ablation.is_none() {
            match case_value(&raw.case) {
                Ok(case) => out.push((name, case)),
                Err(message) => return Err(ConformanceError::CaseFile { name, message }),
            }
        }
    }
    Ok(out)
}

/// A case file's name and its parsed content, or why it cannot be read or
/// parsed: one bad file is one failed case, never the end of the run.
fn read_case(file: &Path) -> (String, Result<RawCase, String>) {
    let name = file
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    (name, case_text(file).and_then(|text| parse_case(&text)))
}

fn case_text(file: &Path) -> Result<String, String> {
    // A named pipe or a device would be read until it ends (a FIFO blocked
    // `bareme test` for good), as the `extends` loader refuses them.
    match std::fs::metadata(file) {
        Ok(m) if !m.is_file() => return Err(format!("{} is not a regular file", file.display())),
        Err(e) => return Err(format!("cannot read {}: {e}", file.display())),
        Ok(_) => {}
    }
    let bytes = std::fs::File::open(file)
        .and_then(|f| read_capped(f, MAX_CASE_FILE_BYTES))
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?
        .ok_or_else(|| {
            format!("the case file is larger than the cap of {MAX_CASE_FILE_BYTES} bytes")
        })?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "the case file is not UTF-8 text: invalid byte at offset {}",
            e.utf8_error().valid_up_to()
        )
    })
}

/// The case file read, its `case` read as the engine reads a case (a key
/// given twice is refused, as `eval` refuses it, where serde_json kept the
/// last) and each `versions` key a version number (an unknown one was never
/// run, silently).
fn parse_case(text: &str) -> Result<RawCase, String> {
    let raw = toml::from_str::<RawCase>(text).map_err(|e| {
        format!(
            "the case file is invalid: {}",
            crate::diag::toml_message(&e, text)
        )
    })?;
    case_value(&raw.case)?;
    // Written as the version is (`1`, not `01` or `+1`): another spelling
    // was never looked up, and one of two expectations silently dropped.
    if let Some(key) = (raw.versions.keys()).find(|k| version_number(k).is_none()) {
        return Err(format!(
            "the case file is invalid: `versions.{key}` names no version (a positive integer, without a sign or leading zeros)"
        ));
    }
    // Every expectation of the file, whichever version runs it: one with
    // both an answer and an error failed under its own version and passed
    // under one that extends it, which ran only its own.
    let stated = |e: &RawExpect| {
        [e.answer.is_some(), e.changes.is_some(), e.error.is_some()]
            .iter()
            .filter(|b| **b)
            .count()
    };
    let expectations = (raw.expect.iter().map(|e| ("expect".to_string(), e))).chain(
        raw.versions
            .iter()
            .map(|(k, e)| (format!("versions.{k}"), e)),
    );
    for (at, e) in expectations {
        if stated(e) != 1 || (at == "expect" && e.changes.is_some()) {
            return Err(format!(
                "the case file is invalid: `{at}` needs exactly one of `answer`, `changes` (under `versions` only) and `error`"
            ));
        }
    }
    Ok(raw)
}

/// The case files of a rulebook folder, sorted.
pub fn case_files(dir: &Path) -> Result<Vec<PathBuf>, ConformanceError> {
    let cases = dir.join("cases");
    let entries = std::fs::read_dir(&cases).map_err(|source| ConformanceError::Folder {
        path: cases.display().to_string(),
        source,
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    Ok(files)
}

/// Runs every case of `dir/cases` against a rulebook, then the cases of
/// each version it extends that name its version.
pub fn run_conformance(rb: &Rulebook, dir: &Path) -> Result<Report, ConformanceError> {
    let mut results = Vec::new();
    run_folder(rb, dir, None, &mut results)?;
    for file in rb.files().iter().skip(1) {
        let base = Path::new(file).parent().unwrap_or(Path::new("."));
        let label = base
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        run_folder(rb, base, Some(&label), &mut results)?;
    }
    Ok(Report { results })
}

/// The cases of one folder; `inherited` names an extended version's folder,
/// whose cases run only where they name this rulebook's version.
fn run_folder(
    rb: &Rulebook,
    dir: &Path,
    inherited: Option<&str>,
    results: &mut Vec<CaseResult>,
) -> Result<(), ConformanceError> {
    // A version that extends another may have no cases of its own: the
    // cases it inherits are then all it has.
    let extends = rb.files().len() > 1;
    let files = match (case_files(dir), inherited) {
        (Ok(f), _) => f,
        (Err(_), Some(_)) => return Ok(()),
        (Err(_), None) if extends && !dir.join("cases").exists() => return Ok(()),
        (Err(e), None) => return Err(e),
    };
    for file in files {
        let (name, parsed) = read_case(&file);
        let name = match inherited {
            Some(folder) => format!("{folder}/{name}"),
            None => name,
        };
        let (description, failures) = match parsed {
            Ok(raw) => match raw.expectation(rb.version(), inherited.is_none()) {
                Some(expect) => (raw.description.clone(), run_case(rb, &raw, expect)),
                None if inherited.is_some() => continue,
                None => (
                    raw.description.clone(),
                    vec![format!(
                        "no `expect`, and no `versions.{}` for this version",
                        rb.version()
                    )],
                ),
            },
            Err(e) => (None, vec![e]),
        };
        results.push(CaseResult {
            name,
            description,
            failures,
        });
    }
    Ok(())
}

/// The case a file's `case` holds, read as `eval` reads one (a key given
/// twice refused, where serde_json kept the last; out of its `{"case": …}`
/// envelope, which `test` alone left on, refusing `case` as an input).
fn case_value(text: &str) -> Result<serde_json::Value, String> {
    crate::case::CaseText::read(text)
        .map(|c| c.without_envelope().root().to_value())
        .map_err(|e| format!("`case` is not a case as `eval` reads one: {e}"))
}

fn run_case(rb: &Rulebook, raw: &RawCase, expect: &RawExpect) -> Vec<String> {
    let case = match case_value(&raw.case) {
        Ok(v) => v,
        Err(e) => return vec![e],
    };
    let ablated;
    let rb = match &raw.ablation {
        None => rb,
        Some(list) => match rb.ablated_all(&list.split(',').map(str::trim).collect::<Vec<_>>()) {
            Ok(a) => {
                ablated = a;
                &ablated
            }
            Err(e) => return vec![e.to_string()],
        },
    };
    let plain = evaluate_value(rb, &case, false);
    let traced = evaluate_value(rb, &case, true);
    let outcome = match (plain, traced) {
        (Ok((a, _)), Ok((b, _))) if a == b => a,
        (Ok(_), Ok(_)) => return vec!["the traced and untraced evaluations disagree".into()],
        (Err(e), _) | (_, Err(e)) => return vec![format!("evaluation failed: {e}")],
    };
    let mut failures = Vec::new();
    let answer = match expected_answer(raw, expect) {
        Ok(answer) => answer,
        Err(e) => return vec![e],
    };
    match (&answer, &expect.error, outcome) {
        (Some(expected), None, Outcome::Answer(actual)) => {
            diff_json("", expected, &actual.to_json(), &mut failures)
        }
        (Some(_), None, Outcome::Rejected(err)) => {
            failures.push(format!(
                "expected an answer, got a rejection at {}: {}",
                err.path, err.message
            ));
        }
        (None, Some(expected), Outcome::Rejected(err)) => {
            if expected.path != err.path {
                failures.push(format!(
                    "rejection path: expected {}, got {} ({})",
                    expected.path, err.path, err.message
                ));
            }
            if let Some(m) = &expected.message {
                if !err.message.contains(m.as_str()) {
                    failures.push(format!(
                        "rejection message: expected it to contain {m:?}, got {:?}",
                        err.message
                    ));
                }
            }
        }
        (None, Some(expected), Outcome::Answer(actual)) => {
            failures.push(format!(
                "expected a rejection at {}, got the answer {actual}",
                expected.path
            ));
        }
        _ => failures
            .push("an expectation needs exactly one of `answer`, `changes` and `error`".into()),
    }
    failures
}

/// The answer an expectation states, as JSON: its `answer`, or the case's
/// `expect.answer` with the fields of `changes` replaced.
fn expected_answer(raw: &RawCase, expect: &RawExpect) -> Result<Option<serde_json::Value>, String> {
    let Some(changes) = &expect.changes else {
        return expect.answer.as_ref().map(toml_to_json).transpose();
    };
    if expect.answer.is_some() || expect.error.is_some() {
        return Err("an expectation needs exactly one of `answer`, `changes` and `error`".into());
    }
    let base = raw
        .expect
        .as_ref()
        .and_then(|e| e.answer.as_ref())
        .ok_or("`changes` apply to `expect.answer`, which the case does not give")?;
    let (mut answer, changes) = (toml_to_json(base)?, toml_to_json(changes)?);
    let (Some(fields), serde_json::Value::Object(changes)) = (answer.as_object_mut(), changes)
    else {
        return Err("`changes` is a table of answer fields".into());
    };
    for (key, value) in changes {
        if !fields.contains_key(&key) {
            return Err(format!(
                "`changes.{key}`: `expect.answer` has no field `{key}` to change"
            ));
        }
        fields.insert(key, value);
    }
    Ok(Some(answer))
}

/// Field-by-field differences between an expected and an actual JSON value.
pub fn diff_json(
    path: &str,
    expected: &serde_json::Value,
    actual: &serde_json::Value,
    out: &mut Vec<String>,
) {
    use serde_json::Value::*;
    let here = if path.is_empty() {
        "answer".to_string()
    } else {
        path.to_string()
    };
    match (expected, actual) {
        (Object(e), Object(a)) => {
            for (k, ev) in e {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match a.get(k) {
                    Some(av) => diff_json(&p, ev, av, out),
                    None => out.push(format!("{p}: expected {ev}, missing")),
                }
            }
            for k in a.keys().filter(|k| !e.contains_key(*k)) {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                out.push(format!("{p}: not expected, got {}", a[k]));
            }
        }
        (Array(e), Array(a)) if e.len() == a.len() => {
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                diff_json(&format!("{path}[{i}]"), ev, av, out);
            }
        }
        (e, a) if e == a => {}
        (e, a) => out.push(format!("{here}: expected {e}, got {a}")),
    }
}
