//! `extends`: a version written as changes to another. The merge by name,
//! removals, problems located in the file that wrote the item, cycles and
//! depth refused, the hash over every file, the effective rulebook printed,
//! and cases run against several versions.

use super::cli::{bareme, stderr, stdout, tempdir};
use bareme::unstable::conformance::run_conformance;
use bareme::{load_rulebook, LoadError};
use serde_json::json;
use std::path::{Path, PathBuf};

const BASE: &str = r#"[rulebook]
id = "toy"
version = 1
schema = 1

[clauses]
R1 = "Tax is 10 % of the pay."

[inputs.pay]
type = "money"
required = true

[inputs.counts]
type = "list"
items = { type = "integer" }

[parameters.rate]
value = "10"
clause = "R1"

[parameters.unused]
value = "1"

[steps.tax]
expr = "pay * rate / 100"
round = { places = 2, mode = "half_up" }
clauses = ["R1"]

[per_item.lines]
over = "counts"
item = "n"

[per_item.lines.steps.double]
expr = "n * 2"

[[checks]]
decision = "ok"

[decisions.ok.answer]
tax = { expr = "tax", format = "money" }
lines = { expr = "sum(lines.double)", format = "decimal" }
"#;

/// A folder `dir/name` holding `text` as its rulebook.toml.
fn version(dir: &Path, name: &str, text: &str) -> PathBuf {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).expect("folder");
    std::fs::write(folder.join("rulebook.toml"), text).expect("write");
    folder
}

fn child(body: &str) -> String {
    format!("[rulebook]\nid = \"toy\"\nversion = 2\nschema = 1\nextends = \"../v1\"\n{body}")
}

fn answer(path: &Path, case: serde_json::Value) -> serde_json::Value {
    let rb = super::rulebook(&path.display().to_string());
    let (outcome, _) = bareme::evaluate_value(&rb, &case, false).expect("evaluates");
    match outcome {
        bareme::Outcome::Answer(a) => a.to_json(),
        other => panic!("not an answer: {other:?}"),
    }
}

fn problems(path: &Path) -> Vec<(String, String)> {
    match load_rulebook(path) {
        Err(LoadError::Invalid(d)) => d
            .problems
            .iter()
            .map(|p| {
                let file = p.file().unwrap_or("");
                let file = Path::new(file).parent().and_then(Path::file_name);
                let file = file
                    .map(|f| f.to_string_lossy().to_string())
                    .unwrap_or_default();
                (file, p.location())
            })
            .collect(),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("loads"),
    }
}

#[test]
fn a_version_overrides_parameters_steps_and_per_item_steps_and_keeps_the_rest() {
    let dir = tempdir("extends-merge");
    version(&dir, "v1", BASE);
    let v2 = version(
        &dir,
        "v2",
        &child(
            "remove = [\"parameters.unused\"]\n\n[clauses]\nR1 = \"Tax is 12 % of the pay.\"\n\n\
             [parameters.rate]\nvalue = \"12\"\nclause = \"R1\"\n\n\
             [per_item.lines.steps.double]\nexpr = \"n * 3\"\n",
        ),
    );
    // 12 % of 100.05 is 12.006, rounded half up: 12.01; the items 1 and 2 tripled sum to 9.
    assert_eq!(
        answer(&v2, json!({"pay": "100.05", "counts": [1, 2]})),
        json!({"tax": "12.01", "lines": "9"})
    );
    // The base is unchanged: 10.005 rounds half up to 10.01; doubled, 6.
    assert_eq!(
        answer(&dir.join("v1"), json!({"pay": "100.05", "counts": [1, 2]})),
        json!({"tax": "10.01", "lines": "6"})
    );
    let rb = super::rulebook(&v2.display().to_string());
    assert_eq!(rb.files().len(), 2);
    assert!(
        rb.summary().starts_with("2 inputs, 0 tables, 1 steps"),
        "{}",
        rb.summary()
    );
}

#[test]
fn problems_point_into_the_file_that_wrote_the_item() {
    let dir = tempdir("extends-located");
    // The base's own step reads a parameter the child removes: reported in v1, at `rate`.
    version(&dir, "v1", BASE);
    let v2 = version(
        &dir,
        "v2",
        &child("remove = [\"parameters.rate\", \"steps.nothing\"]\n\n[steps.extra]\nexpr = \"pay * missing\"\n"),
    );
    let found = problems(&v2);
    assert_eq!(
        found,
        vec![(
            "v2".to_string(),
            "load::remove_unknown 6:30-6:45".to_string()
        )]
    );
    // With the removal fixed, the checker's problems: `rate` unknown in
    // v1's step (line 25), `missing` unknown in v2's step (line 9).
    let v2 = version(
        &dir,
        "v2",
        &child("remove = [\"parameters.rate\"]\n\n[steps.extra]\nexpr = \"pay * missing\"\n"),
    );
    let found = problems(&v2);
    assert!(
        found.contains(&(
            "v1".to_string(),
            "check::unknown_name 25:15-25:19".to_string()
        )),
        "{found:?}"
    );
    assert!(
        found.contains(&(
            "v2".to_string(),
            "check::unknown_name 9:15-9:22".to_string()
        )),
        "{found:?}"
    );
}

/// Warnings were left with the chain's offsets and shown in the named
/// file, at a line past its end (the named file's length added to the
/// line in the base): they point into the file that wrote the item too.
#[test]
fn warnings_point_into_the_file_that_wrote_the_item() {
    let dir = tempdir("extends-warned");
    version(&dir, "v1", BASE);
    let v2 = version(&dir, "v2", &child("\n[steps.extra]\nexpr = \"pay * 2\"\n"));
    let rb = super::rulebook(&v2.display().to_string());
    let warnings: Vec<(String, String, String)> = rb
        .warnings()
        .problems
        .iter()
        .map(|p| {
            let file = Path::new(p.file().unwrap_or(""))
                .parent()
                .and_then(Path::file_name);
            let file = file.map(|f| f.to_string_lossy().to_string());
            (file.unwrap_or_default(), p.location(), p.message.clone())
        })
        .collect();
    assert_eq!(
        warnings,
        [
            (
                "v1".to_string(),
                "warn::unused_parameter 22:9-22:12".to_string(),
                "parameter `unused` is never read".to_string()
            ),
            (
                "v2".to_string(),
                "warn::unused_step 8:8-8:17".to_string(),
                "step `extra` is never read".to_string()
            ),
        ]
    );
}

#[test]
fn a_cycle_and_a_missing_base_are_refused_where_extends_is_written() {
    let dir = tempdir("extends-cycle");
    let a = version(
        &dir,
        "v1",
        &BASE.replace("schema = 1\n", "schema = 1\nextends = \"../v2\"\n"),
    );
    version(&dir, "v2", &child(""));
    assert_eq!(
        problems(&a),
        vec![(
            "v2".to_string(),
            "load::extends_cycle 5:11-5:18".to_string()
        )]
    );
    let lone = version(&dir, "v3", &child("").replace("../v1", "../nowhere"));
    assert_eq!(
        problems(&lone),
        vec![("v3".to_string(), "load::extends 5:11-5:23".to_string())]
    );
    // A version extending itself.
    let own = version(&dir, "v4", &child("").replace("../v1", "."));
    assert_eq!(
        problems(&own),
        vec![(
            "v4".to_string(),
            "load::extends_cycle 5:11-5:14".to_string()
        )]
    );
}

#[test]
fn a_chain_longer_than_the_bound_is_refused() {
    let dir = tempdir("extends-depth");
    version(&dir, "v1", BASE);
    for n in 2..=9 {
        let text = child("")
            .replace("version = 2", &format!("version = {n}"))
            .replace("../v1", &format!("../v{}", n - 1));
        version(&dir, &format!("v{n}"), &text);
    }
    assert!(load_rulebook(&dir.join("v8")).is_ok(), "8 files load");
    assert_eq!(
        problems(&dir.join("v9")),
        vec![(
            "v2".to_string(),
            "load::extends_depth 5:11-5:18".to_string()
        )]
    );
}

#[test]
fn the_hash_covers_every_file_of_the_chain() {
    let dir = tempdir("extends-hash");
    version(&dir, "v1", BASE);
    let v2 = version(&dir, "v2", &child(""));
    let before = super::rulebook(&v2.display().to_string())
        .hash()
        .to_string();
    version(&dir, "v1", &format!("{BASE}# a comment in the base\n"));
    let after = super::rulebook(&v2.display().to_string())
        .hash()
        .to_string();
    assert_ne!(before, after);
    // One file alone keeps the hash of its text.
    let one = super::rulebook(&dir.join("v1").display().to_string());
    assert_eq!(
        one.hash(),
        bareme::unstable::rulebook::load::content_hash(&format!("{BASE}# a comment in the base\n"))
    );
}

#[test]
fn text_read_from_no_file_cannot_extend() {
    let Err(err) = bareme::parse_rulebook("inline.toml", &child("")) else {
        panic!("loads")
    };
    assert_eq!(err.locations(), vec!["load::extends 5:11-5:18"]);
}

#[test]
fn a_group_without_over_is_refused_at_load() {
    let text = BASE.replace("over = \"counts\"\n", "");
    let Err(err) = bareme::parse_rulebook("inline.toml", &text) else {
        panic!("loads")
    };
    assert_eq!(err.locations(), vec!["load::missing_key 33:8-33:15"]);
}

#[test]
fn check_effective_prints_a_rulebook_that_answers_as_the_chain_does() {
    let o = bareme(&["check", "--effective", "rulebooks/paie-fr/v2025"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("[rulebook]\nid = \"paie-fr\"\nversion = 2025\n"));
    assert!(!text.contains("extends") && !text.contains("rgdu_tdelta"));
    let file = tempdir("extends-effective").join("rulebook.toml");
    std::fs::write(&file, &text).expect("write");
    let flat = super::rulebook(&file.display().to_string());
    let chain = super::rulebook("rulebooks/paie-fr/v2025");
    assert_eq!(flat.summary(), chain.summary());
    for (name, case) in
        bareme::unstable::conformance::cases(&super::root().join("rulebooks/paie-fr/v2025"))
            .expect("cases")
    {
        let a = bareme::evaluate_value(&flat, &case, false).expect("flat").0;
        let b = bareme::evaluate_value(&chain, &case, false)
            .expect("chain")
            .0;
        assert_eq!(format!("{a:?}"), format!("{b:?}"), "{name}");
    }
}

#[test]
fn a_case_runs_against_each_version_it_names() {
    let dir = tempdir("extends-cases");
    let v1 = version(&dir, "v1", BASE);
    let v2 = version(&dir, "v2", &child("\n[parameters.rate]\nvalue = \"12\"\n"));
    std::fs::create_dir_all(v1.join("cases")).expect("cases");
    std::fs::create_dir_all(v2.join("cases")).expect("cases");
    std::fs::write(
        v1.join("cases/both.toml"),
        "case = '{\"pay\": \"100.00\", \"counts\": [1, 2]}'\n[expect.answer]\ntax = \"10.00\"\nlines = \"6\"\n\
         [versions.2.answer]\ntax = \"12.00\"\nlines = \"6\"\n",
    )
    .expect("write");
    std::fs::write(
        v1.join("cases/only-v1.toml"),
        "case = '{\"pay\": \"1.00\", \"counts\": [1, 2]}'\n[expect.answer]\ntax = \"0.10\"\nlines = \"6\"\n",
    )
    .expect("write");
    std::fs::write(
        v2.join("cases/own.toml"),
        "case = '{\"pay\": \"1.00\", \"counts\": [1, 2]}'\n[expect.answer]\ntax = \"0.12\"\nlines = \"6\"\n",
    )
    .expect("write");
    let rb2 = load_rulebook(&v2).expect("loads");
    let report = run_conformance(&rb2, &v2).expect("runs");
    let names: Vec<(&str, usize)> = report
        .results
        .iter()
        .map(|r| (r.name.as_str(), r.failures.len()))
        .collect();
    assert_eq!(names, vec![("own", 0), ("v1/both", 0)]);
    // A wrong per-version expectation fails.
    std::fs::write(
        v1.join("cases/both.toml"),
        "case = '{\"pay\": \"100.00\", \"counts\": [1, 2]}'\n[expect.answer]\ntax = \"10.00\"\nlines = \"6\"\n\
         [versions.2.answer]\ntax = \"10.00\"\nlines = \"6\"\n",
    )
    .expect("write");
    let report = run_conformance(&rb2, &v2).expect("runs");
    assert_eq!(report.failed(), 1);
    assert_eq!(
        report.results[1].failures,
        vec!["tax: expected \"10.00\", got \"12.00\"".to_string()]
    );
}

/// A version overriding a step carries its `cite`: the extending version's
/// trace names the clause of the branch taken, the base's does not.
#[test]
fn a_version_overriding_a_step_carries_its_citations() {
    let dir = tempdir("extends-cite");
    version(&dir, "v1", BASE);
    let v2 = version(
        &dir,
        "v2",
        &child(
            "[clauses]\nR2 = \"Pay above 1000 is taxed at 12 %.\"\n\n\
             [steps.tax]\nexpr = \"pay * (if pay > 1000 then 12 else rate) / 100\"\n\
             round = { places = 2, mode = \"half_up\" }\nclauses = [\"R1\"]\n\
             cite = [{ when = \"pay > 1000\", clauses = [\"R2\"] }]\n",
        ),
    );
    let clauses_of_tax = |path: &Path| -> Vec<String> {
        let rb = super::rulebook(&path.display().to_string());
        let case = json!({"pay": "2000", "counts": []});
        let (_, trace) = bareme::evaluate_value(&rb, &case, true).expect("evaluates");
        trace
            .expect("traced")
            .events
            .iter()
            .find_map(|e| match e {
                bareme::unstable::trace::Event::Step(s) if &*s.step == "tax" => {
                    Some(s.clauses.iter().map(|c| c.to_string()).collect())
                }
                _ => None,
            })
            .expect("the tax step")
    };
    assert_eq!(clauses_of_tax(&v2), ["R1", "R2"]);
    assert_eq!(clauses_of_tax(&dir.join("v1")), ["R1"]);
    // 12 % of 2000 is 240.
    assert_eq!(
        answer(&v2, json!({"pay": "2000", "counts": []})),
        json!({"tax": "240.00", "lines": "0"})
    );
}

#[test]
fn a_version_expectation_may_state_only_the_fields_it_changes() {
    let dir = tempdir("extends-changes");
    let v1 = version(&dir, "v1", BASE);
    let v2 = version(&dir, "v2", &child("\n[parameters.rate]\nvalue = \"12\"\n"));
    std::fs::create_dir_all(v1.join("cases")).expect("cases");
    std::fs::create_dir_all(v2.join("cases")).expect("cases");
    let case = "case = '{\"pay\": \"100.00\", \"counts\": [1, 2]}'\n[expect.answer]\ntax = \"10.00\"\nlines = \"6\"\n";
    let run = |versions: &str| {
        std::fs::write(v1.join("cases/both.toml"), format!("{case}{versions}")).expect("write");
        let rb2 = load_rulebook(&v2).expect("loads");
        let report = run_conformance(&rb2, &v2).expect("runs");
        assert_eq!(report.results.len(), 1);
        report.results[0].failures.clone()
    };
    // 100.00 × 12 % = 12.00; `lines` is kept from `expect.answer`.
    assert!(run("[versions.2.changes]\ntax = \"12.00\"\n").is_empty());
    assert_eq!(
        run("[versions.2.changes]\ntax = \"10.00\"\n"),
        ["tax: expected \"10.00\", got \"12.00\""]
    );
    assert_eq!(
        run("[versions.2.changes]\ntaxes = \"12.00\"\n"),
        ["`changes.taxes`: `expect.answer` has no field `taxes` to change"]
    );
    assert_eq!(
        run("[versions.2.changes]\ntax = \"12.00\"\n[versions.2.error]\npath = \"pay\"\n"),
        ["the case file is invalid: `versions.2` needs exactly one of `answer`, `changes` (under `versions` only) and `error`"]
    );
    // The file's own expectation at fault fails the extending version's
    // run too: it passed there, where only `versions.2` was read.
    std::fs::write(
        v1.join("cases/both.toml"),
        format!(
            "{case}[expect.error]\npath = \"nonsense\"\n[versions.2.changes]\ntax = \"12.00\"\n"
        ),
    )
    .expect("write");
    let report = run_conformance(&load_rulebook(&v2).expect("loads"), &v2).expect("runs");
    assert_eq!(
        report.results[0].failures,
        ["the case file is invalid: `expect` needs exactly one of `answer`, `changes` (under `versions` only) and `error`"]
    );
}

/// A base with a keyed table, a period table and a scale.
const TABLES: &str = r#"[rulebook]
id = "toy"
version = 1
schema = 1

[inputs.region]
type = "text"
required = true

[inputs.month]
type = "month"
required = true

[inputs.income]
type = "money"
required = true

[tables.allowances]
kind = "keyed"
keys = ["region"]

[tables.allowances.columns]
region = { type = "text" }
amount = { type = "money" }

[[tables.allowances.rows]]
region = "north"
amount = "100.00"

[[tables.allowances.rows]]
region = "south"
amount = "50.00"

[tables.rates]
kind = "periods"

[tables.rates.columns]
rate = { type = "decimal" }

[[tables.rates.rows]]
name = "y1"
from = "2026-01"
rate = "0.10"

[tables.bands]
kind = "scale"
rows = [{ upto = "1000", rate = "0" }, { rate = "0.20" }]

[steps.allowance]
expr = "lookup(allowances, region).amount"

[steps.rate]
expr = "period_row(rates, month).rate"

[steps.tax]
expr = "scale(bands, income)"
round = { places = 2, mode = "half_up" }

[[checks]]
decision = "ok"

[decisions.ok.answer]
allowance = { expr = "allowance", format = "money" }
rate = { expr = "rate", format = "decimal" }
tax = { expr = "tax", format = "money" }
"#;

#[test]
fn a_table_without_kind_changes_rows_by_key_period_name_and_band() {
    let dir = tempdir("extends-rows");
    let v1 = version(&dir, "v1", TABLES);
    let v2 = version(
        &dir,
        "v2",
        &child(
            r#"
[[tables.allowances.rows]]
region = "south"
amount = "60.00"

[[tables.allowances.rows]]
region = "east"
amount = "70.00"

[[tables.rates.rows]]
name = "y1"
from = "2026-01"
to = "2026-12"
rate = "0.10"

[[tables.rates.rows]]
name = "y2"
from = "2027-01"
rate = "0.12"

[[tables.bands.rows]]
upto = "2000"
rate = "0.10"
insert = true

[[tables.bands.rows]]
rate = "0.30"
"#,
        ),
    );
    let case = |region: &str, month: &str, income: &str| serde_json::json!({"region": region, "month": month, "income": income});
    // v1: 3000 taxed 20 % above 1000 = 400.00.
    assert_eq!(
        answer(&v1, case("south", "2027-03", "3000.00")),
        serde_json::json!({"allowance": "50.00", "rate": "0.10", "tax": "400.00"})
    );
    // v2: south changed, y1 closed and y2 added, a band inserted below the
    // top band, whose rate changed: 0 × 1000 + 0.10 × 1000 + 0.30 × 1000.
    assert_eq!(
        answer(&v2, case("south", "2027-03", "3000.00")),
        serde_json::json!({"allowance": "60.00", "rate": "0.12", "tax": "400.00"})
    );
    assert_eq!(
        answer(&v2, case("north", "2026-03", "1500.00")),
        serde_json::json!({"allowance": "100.00", "rate": "0.10", "tax": "50.00"})
    );
    assert_eq!(
        answer(&v2, case("east", "2026-03", "500.00")),
        serde_json::json!({"allowance": "70.00", "rate": "0.10", "tax": "0.00"})
    );
    // The effective rulebook states each table once, its rows in order.
    let effective = bareme::unstable::rulebook::load::effective_toml(&v2).expect("checks");
    let bands = effective.find("[tables.bands]").expect("bands");
    let upto: Vec<&str> = effective[bands..]
        .lines()
        .filter(|l| l.trim_start().starts_with("upto"))
        .take(2)
        .collect();
    assert_eq!(upto, ["upto = \"1000\"", "upto = \"2000\""], "{effective}");

    // Without `kind` and nothing to change, the table is refused where it is written.
    let v3 = version(
        &dir,
        "v3",
        &child("\n[[tables.fresh.rows]]\nname = \"a\"\nfrom = \"2026-01\"\n")
            .replace("../v1", "../v2"),
    );
    assert_eq!(
        problems(&v3),
        [("v3".to_string(), "load::missing_key 7:1-9:17".to_string())]
    );
}
