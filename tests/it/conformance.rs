//! Every bundled rulebook passes its own conformance cases, and has some.

use bareme::unstable::conformance::run_conformance;

/// How many conformance cases a rulebook folder holds, and each failing
/// one as `name: failure; failure`.
pub(super) fn failures_of(rb: &bareme::Rulebook, dir: &std::path::Path) -> (usize, Vec<String>) {
    let report = run_conformance(rb, dir).expect("cases readable");
    let failures = report
        .results
        .iter()
        .filter(|r| !r.failures.is_empty())
        .map(|r| format!("{}: {}", r.name, r.failures.join("; ")))
        .collect();
    (report.results.len(), failures)
}

#[test]
fn every_bundled_rulebook_passes_its_cases() {
    let dirs = super::rulebook_dirs();
    assert!(!dirs.is_empty(), "no rulebooks found");
    for dir in dirs {
        let rb = match bareme::load_rulebook(&dir) {
            Ok(rb) => rb,
            Err(bareme::LoadError::Invalid(d)) => panic!("{}", d.render(100, false)),
            Err(e) => panic!("{e}"),
        };
        let (cases, failures) = failures_of(&rb, &dir);
        assert!(cases > 0, "{} has no conformance cases", dir.display());
        assert!(
            failures.is_empty(),
            "{}:\n{}",
            dir.display(),
            failures.join("\n")
        );
    }
}

#[test]
fn luma_cases_cover_every_reason_and_rejection_path() {
    let dir = super::root().join("rulebooks/luma-payroll/v3/cases");
    let mut all = String::new();
    for entry in std::fs::read_dir(&dir).expect("cases").flatten() {
        all.push_str(&std::fs::read_to_string(entry.path()).expect("case"));
    }
    for needle in [
        "MISSING_GROSS_PAY",
        "MISSING_PAYROLL_MONTH",
        "NO_APPLICABLE_REFERENCE",
        "CONFLICTING_GROSS_PAY",
        "\"contribution_rate\"",
        "\"contribution_cap\"",
        "\"deduction_cap\"",
        "path = \"$\"",
        "path = \"task\"",
        "path = \"field\"",
        "path = \"amendment.approved\"",
        "path = \"reference_tables.second-half\"",
    ] {
        assert!(
            all.contains(needle),
            "no conformance case mentions {needle}"
        );
    }
}

/// An ablation that changes no conformance case proves nothing about the rules it stands for.
#[test]
fn every_declared_ablation_changes_some_conformance_answer() {
    for dir in super::rulebook_dirs() {
        let rb = bareme::load_rulebook(&dir).expect("loads");
        let cases = bareme::unstable::conformance::cases(&dir).expect("cases");
        for ablation in rb.ablation_names() {
            let ablated = rb.ablated(ablation).expect("declared");
            let changed = cases.iter().any(|(_, case)| {
                let plain = bareme::evaluate_value(&rb, case, false).map(|r| r.0);
                let other = bareme::evaluate_value(&ablated, case, false).map(|r| r.0);
                plain != other
            });
            assert!(
                changed,
                "{}: ablation {} changes no conformance case",
                dir.display(),
                ablation
            );
        }
    }
}

#[test]
fn a_folder_without_cases_is_an_error_with_its_code() {
    let dir = super::root().join("rulebooks/luma-payroll/v3");
    let rb = bareme::load_rulebook(&dir).expect("loads");
    let nowhere = dir.join("no-such-folder");
    let e = run_conformance(&rb, &nowhere).expect_err("no cases folder");
    assert_eq!(e.code(), "conformance::folder");
    let shown = e.to_string();
    let want = format!("cannot read {}: ", nowhere.join("cases").display());
    assert!(shown.starts_with(&want), "{shown}");
}

/// A case file is read as strictly as `eval` reads a case: a key given
/// twice fails the case (serde_json kept the last, and the case passed on an
/// input `eval` refuses), a `versions` key that names no version fails it
/// (it was never run; `01` beside `1` was dropped silently), and a named pipe among the cases fails alone (it
/// blocked `bareme test` for good).
#[test]
fn case_files_are_read_as_strictly_as_eval_reads_a_case() {
    let dir = super::cli::tempdir("strict-cases");
    let cases = dir.join("cases");
    std::fs::create_dir_all(&cases).expect("cases folder");
    let rulebook = r#"[rulebook]
id = "strict"
version = 1
schema = 1

[inputs.salary]
type = "money"
required = true

[steps.bonus]
expr = "salary / 10"

[[checks]]
decision = "paid"

[decisions.paid.answer]
bonus = { expr = "bonus", format = "money" }
"#;
    std::fs::write(dir.join("rulebook.toml"), rulebook).expect("rulebook");
    let write = |name: &str, text: &str| std::fs::write(cases.join(name), text).expect("case");
    // 2.00 / 10: the second value of the key twice, which passed.
    write(
        "01-twice.toml",
        "case = '{\"salary\": \"1.00\", \"salary\": \"2.00\"}'\n[expect.answer]\nbonus = \"0.20\"\n",
    );
    write(
        "02-versions.toml",
        "case = '{\"salary\": \"1.00\"}'\n[expect.answer]\nbonus = \"0.10\"\n[versions.1.answer]\nbonus = \"0.10\"\n[versions.01.answer]\nbonus = \"9\"\n",
    );
    write(
        "03-fine.toml",
        "case = '{\"salary\": \"1.00\"}'\n[expect.answer]\nbonus = \"0.10\"\n",
    );
    let fifo = cases.join("04-pipe.toml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let rb = bareme::load_rulebook(&dir).expect("loads");
    let (count, failures) = failures_of(&rb, &dir);
    assert_eq!(count, if made { 4 } else { 3 });
    assert_eq!(failures.len(), count - 1, "{failures:?}");
    assert_eq!(
        failures[0],
        "01-twice: `case` is not a case as `eval` reads one: salary: duplicate key \"salary\": an object of a case gives each key once"
    );
    assert_eq!(
        failures[1],
        "02-versions: the case file is invalid: `versions.01` names no version (a positive integer, without a sign or leading zeros)"
    );
    if made {
        assert_eq!(
            failures[2],
            format!("04-pipe: {} is not a regular file", fifo.display())
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
