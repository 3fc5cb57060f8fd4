//! `bareme diff`: the structural diff of two rulebook versions by meaning,
//! the compatibility verdict on generators and rubrics, and the impact on a
//! task set, with JSON snapshots of each section.

mod impact;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};

use super::cli::{bareme, stderr, stdout, tempdir};
use super::root;
use bareme::unstable::diff::{diff_rulebooks, impact, ImpactOptions, Version};
use bareme::Task;

/// A small rulebook with something in every section a diff compares.
const MINI: &str = r#"# A small rulebook that has something in every section a diff compares.
[rulebook]
id = "mini"
version = 1
schema = 1
title = "Mini"

[clauses]
R1 = "Tax is the rate of the region times the amount, rounded half up to the cent."
R2 = "A negative amount is refused."

[inputs.amount]
type = "money"
required = true
clause = "R1"

[inputs.region]
type = "enum"
values = ["north", "south"]
required = true

[parameters.fee]
label = "Flat fee"
value = "1.50"
clause = "R1"

[tables.rates]
kind = "keyed"
keys = ["region"]
clause = "R1"
columns = { region = { type = "text" }, rate = { type = "decimal" } }
rows = [
  { region = "north", rate = "0.10" },
  { region = "south", rate = "0.20" },
]

[steps.tax]
label = "Tax"
expr = "amount * lookup(rates, region).rate"
round = { places = 2, mode = "half_up" }
clauses = ["R1"]

[steps.total]
expr = "amount + tax + fee"

[[checks]]
label = "too large"
when = "amount > 1000000"
reject = "amount"
message = "is too large"

[[checks]]
decision = "ok"

[decisions.ok]
clauses = ["R1"]

[decisions.ok.answer]
tax = { expr = "tax", format = "money" }
total = { expr = "total", format = "money" }

[ablations.no_fee]
label = "No fee"
steps = { total = "amount + tax" }

[limits]
max_eval_steps = 100000
"#;

/// MINI with the same meaning: comments, whitespace, key order, tables
/// reordered, expressions laid out otherwise, `0.10` written `0.1`.
const MINI_SAME: &str = r#"[rulebook]
schema = 1
version = 1
id = "mini"
title = "Mini"

[limits]
max_eval_steps = 100000

[clauses]
R2 = "A negative amount is refused."
R1 = "Tax is the rate of the region times the amount, rounded half up to the cent."

[steps.total]
# the tax is rounded already
expr = """amount + tax
  + fee"""   # layout is no change

[steps.tax]
clauses = ["R1"]
round = { mode = "half_up", places = 2 }
expr = "(amount * lookup(rates, region).rate)"
label = "Tax"

[inputs.amount]
clause = "R1"
required = true
type = "money"

[inputs.region]
required = true
type = "enum"
values = ["north", "south"]

[tables.rates]
clause = "R1"
keys = ["region"]
kind = "keyed"
columns = { rate = { type = "decimal" }, region = { type = "text" } }
rows = [
  { rate = "0.10", region = "north" },
  { region = "south", rate = "0.20" },
]

[parameters.fee]
clause = "R1"
value = "1.50"
label = "Flat fee"

[ablations.no_fee]
steps = { total = "amount+tax" }
label = "No fee"

[[checks]]
label = "too large"
message = "is too large"
when = "amount>1000000"
reject = "amount"

[[checks]]
decision = "ok"

[decisions.ok.answer]
tax = { format = "money", expr = "tax" }
total = { expr = "total", format = "money" }

[decisions.ok]
clauses = ["R1"]
"#;

fn diff_json(old: &str, new: &str) -> Value {
    let d = diff_rulebooks(
        &Version {
            file: "old.toml",
            text: old,
        },
        &Version {
            file: "new.toml",
            text: new,
        },
    )
    .expect("both parse");
    serde_json::to_value(&d).expect("serialises")
}

/// JSON as the CLI prints it (insta's own JSON writer does not know
/// `arbitrary_precision` numbers).
fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).expect("serialises")
}

fn changes(v: &Value) -> Vec<Value> {
    v["sections"]
        .as_object()
        .expect("sections")
        .values()
        .flat_map(|s| s.as_array().expect("list").clone())
        .collect()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("dir");
    }
    std::fs::write(&path, text).expect("write");
    path
}

#[test]
fn a_rulebook_against_itself_or_a_reformatted_copy_reports_no_change() {
    bareme::parse_rulebook("same.toml", MINI_SAME).expect("the copy is a valid rulebook");
    assert_eq!(changes(&diff_json(MINI, MINI)), Vec::<Value>::new());
    assert_eq!(changes(&diff_json(MINI, MINI_SAME)), Vec::<Value>::new());
    let dir = tempdir("diff-same");
    let (a, b) = (
        write(&dir, "old.toml", MINI),
        write(&dir, "new.toml", MINI_SAME),
    );
    let out = bareme(&["diff", a.to_str().unwrap(), b.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out)
            .lines()
            .next()
            .unwrap()
            .ends_with(": no change"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn one_changed_rate_cell_is_reported_with_both_values_and_lines() {
    let new = MINI.replace(
        r#"{ region = "south", rate = "0.20" }"#,
        r#"{ region = "south", rate = "0.25" }"#,
    );
    let all = changes(&diff_json(MINI, &new));
    assert_eq!(
        all,
        vec![json!({
            "kind": "changed",
            "entity": "tables.rates[region=south]",
            "attr": "rate",
            "old": "0.20",
            "new": "0.25",
            "old_line": 34,
            "new_line": 34
        })]
    );
}

#[test]
fn a_reworded_clause_is_diffed_word_by_word() {
    let new = MINI.replace("rounded half up to the cent", "rounded down to the cent");
    let all = changes(&diff_json(MINI, &new));
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(
        all[0]["words"],
        json!([
            {"op": "same", "text": "Tax is the rate of the region times the amount, rounded"},
            {"op": "removed", "text": "half up"},
            {"op": "added", "text": "down"},
            {"op": "same", "text": "to the cent."}
        ])
    );
    assert_eq!(all[0]["old_line"], json!(9));
}

/// MINI changed in every section, one snapshot per section.
fn mini_changed() -> String {
    MINI.replace("version = 1", "version = 2")
        .replace("R2 = \"A negative amount is refused.\"", "R3 = \"Amounts are in euros.\"")
        .replace("type = \"money\"\nrequired = true", "type = \"money\"\nmin = \"1\"\nrequired = true")
        .replace("values = [\"north\", \"south\"]", "values = [\"north\", \"south\", \"east\"]")
        .replace("value = \"1.50\"", "value = \"2.00\"")
        .replace("  { region = \"south\", rate = \"0.20\" },", "  { region = \"south\", rate = \"0.20\" },\n  { region = \"east\", rate = \"0.30\" },")
        .replace("expr = \"amount + tax + fee\"", "expr = \"amount + tax + fee * 2\"")
        .replace("when = \"amount > 1000000\"", "when = \"amount > 2000000\"")
        .replace("[decisions.ok]\nclauses = [\"R1\"]", "[decisions.ok]\nlabel = \"Computed\"\nclauses = [\"R1\"]")
        .replace("total = { expr = \"total\", format = \"money\" }", "total = { expr = \"total\", format = \"decimal\" }\nfee = { expr = \"fee\", format = \"money\" }")
        .replace("steps = { total = \"amount + tax\" }", "steps = { total = \"amount\" }")
        .replace("max_eval_steps = 100000", "max_eval_steps = 50000")
}

#[test]
fn every_section_of_the_json_diff_is_snapshot() {
    let new = mini_changed();
    bareme::parse_rulebook("new.toml", &new).expect("the changed copy is a valid rulebook");
    let v = diff_json(MINI, &new);
    for (section, list) in v["sections"].as_object().expect("sections") {
        if section == "reports" {
            continue; // MINI has no report: the paie-fr diff below snapshots one
        }
        assert!(
            !list.as_array().unwrap().is_empty(),
            "no change in {section}"
        );
        insta::assert_snapshot!(format!("diff_mini_{section}"), pretty(list));
    }
}

#[test]
fn paie_fr_2025_to_2026_lists_every_change_of_the_law_and_nothing_else() {
    // Run from the repository root with relative paths, so the files an
    // extending version's lines point into are named the same on any machine.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bareme"))
        .current_dir(root())
        .args([
            "diff",
            "rulebooks/paie-fr/v2025",
            "rulebooks/paie-fr/v2026",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    for (section, list) in v["sections"].as_object().expect("sections") {
        insta::assert_snapshot!(format!("diff_paie_fr_{section}"), pretty(list));
    }
    // Read against both files by hand: the entities changed, and no other.
    let mut entities: Vec<String> = changes(&v)
        .iter()
        .map(|c| c["entity"].as_str().unwrap().to_string())
        .collect();
    entities.dedup();
    assert_eq!(
        entities,
        [
            "rulebook",
            "clauses.ceiling",
            "clauses.schedule",
            "clauses.rgdu",
            "inputs.month",
            "parameters.pmss",
            "parameters.smic",
            "parameters.reduction_t_below_50",
            "parameters.reduction_t_from_50",
            "parameters.reduction_smic_multiple",
            "parameters.reduction_divisor",
            "parameters.sickness_smic_multiple",
            "parameters.family_smic_multiple",
            "parameters.rgdu_tmin",
            "parameters.rgdu_tdelta_below_50",
            "parameters.rgdu_tdelta_from_50",
            "parameters.rgdu_exponent",
            "parameters.rgdu_smic_multiple",
            "tables.schedule",
            "tables.schedule[code=maladie_reduit]",
            "tables.schedule[code=maladie]",
            "tables.schedule[code=vieillesse_deplafonnee]",
            "tables.schedule[code=allocations_familiales_reduit]",
            "tables.schedule[code=allocations_familiales]",
            // v2025 extends v2026: its own steps come after the ones it inherits.
            "steps.rgdu_rate",
            "steps.rgdu",
            "steps.reduction_t",
            "per_item.lines.applies",
            "steps.rgdu_tdelta",
            "reports.bulletin",
        ]
    );
    assert_eq!(
        v["compatibility"],
        json!([]),
        "nothing beside v2025 names paie-fr@2025"
    );
}

#[test]
fn removing_a_scored_answer_field_breaks_the_rubric_with_both_locations() {
    let dir = tempdir("diff-compat");
    let set = root().join("rulebooks/paie-fr");
    let old_text = std::fs::read_to_string(set.join("v2026/rulebook.toml")).expect("read");
    let rubric = std::fs::read_to_string(set.join("rubric-1.toml")).expect("read");
    let field = "net_a_payer = { expr = \"net_a_payer\", format = \"money\" }\n";
    assert!(old_text.contains(field));
    let old = write(&dir, "paie-fr/v2026/rulebook.toml", &old_text);
    write(&dir, "paie-fr/rubric-1.toml", &rubric);
    let new = write(&dir, "next/rulebook.toml", &old_text.replace(field, ""));
    let out = bareme(
        &[
            "diff",
            old.to_str().unwrap(),
            new.to_str().unwrap(),
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let verdicts = v["compatibility"].as_array().expect("verdicts");
    assert_eq!(verdicts.len(), 1, "{verdicts:?}");
    assert!(verdicts[0]["file"]
        .as_str()
        .unwrap()
        .ends_with("paie-fr/rubric-1.toml"));
    assert_eq!(verdicts[0]["loads"], json!(false));
    let line_of =
        |text: &str, needle: &str| text.lines().position(|l| l.starts_with(needle)).unwrap() + 1;
    let first = &verdicts[0]["breaks"][0];
    assert_eq!(first["code"], json!("score::unknown_field"), "{first}");
    assert!(
        first["message"].as_str().unwrap().contains("`net_a_payer`"),
        "{first}"
    );
    assert_eq!(first["line"], json!(line_of(&rubric, "net_a_payer = ")));
    assert_eq!(
        first["old_entity"],
        json!("decisions.payslip.answer.net_a_payer")
    );
    assert_eq!(
        first["old_line"],
        json!(line_of(&old_text, "net_a_payer = "))
    );
    let mut redacted = v["compatibility"].clone();
    redacted[0]["file"] = json!("[dir]/paie-fr/rubric-1.toml");
    for b in redacted[0]["breaks"].as_array_mut().unwrap() {
        let m = b["message"]
            .as_str()
            .unwrap()
            .replace(dir.to_str().unwrap(), "[dir]");
        b["message"] = json!(m);
    }
    insta::assert_snapshot!("diff_compatibility", pretty(&redacted));
    // The text report names the rubric, the field and both lines too.
    let text = stdout(&bareme(
        &["diff", old.to_str().unwrap(), new.to_str().unwrap()],
        None,
    ));
    assert!(text.contains("BREAKS"), "{text}");
    // Named from inside the set (`v2026`, `v2026/`, `v2026/rulebook.toml`),
    // the rubric beside it is found too: the empty parent listed nothing,
    // and the verdict was "no generator or rubric", exit 0.
    for named in ["v2026", "v2026/", "v2026/rulebook.toml"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_bareme"))
            .current_dir(dir.join("paie-fr"))
            .args(["diff", named, new.to_str().unwrap()])
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(1), "{named}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains("BREAKS ./rubric-1.toml"), "{named}: {text}");
    }
}

#[test]
fn markdown_and_text_show_a_changed_cell_with_both_values() {
    let dir = tempdir("diff-markdown");
    let new = MINI.replace(
        r#"{ region = "south", rate = "0.20" }"#,
        r#"{ region = "south", rate = "0.25" }"#,
    );
    let (a, b) = (write(&dir, "old.toml", MINI), write(&dir, "new.toml", &new));
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let md = stdout(&bareme(&["diff", a, b, "--format", "markdown"], None));
    assert!(
        md.contains("\n## tables\n\n| | what | old | new | lines |\n|---|---|---|---|---|\n| changed | `tables.rates[region=south].rate` | 0.20 | 0.25 | lines 34 → 34 |\n"),
        "{md}"
    );
    let text = stdout(&bareme(&["diff", a, b], None));
    assert!(
        text.contains(
            "\ntables\n  ~ tables.rates[region=south].rate (lines 34 → 34): 0.20 → 0.25\n"
        ),
        "{text}"
    );
}

#[test]
fn checks_with_one_label_are_told_apart_by_position() {
    let twice = MINI.replace(
        "[[checks]]\ndecision = \"ok\"",
        "[[checks]]\nlabel = \"too large\"\nwhen = \"amount > 5000000\"\nreject = \"amount\"\nmessage = \"is far too large\"\n\n[[checks]]\ndecision = \"ok\"",
    );
    let changed = twice.replace("5000000", "6000000");
    bareme::parse_rulebook("twice.toml", &changed).expect("valid");
    let all = changes(&diff_json(&twice, &changed));
    let named: Vec<(&str, &str)> = all
        .iter()
        .map(|c| (c["entity"].as_str().unwrap(), c["attr"].as_str().unwrap()))
        .collect();
    assert_eq!(named, [("checks[too large #2]", "when")]);
}

#[test]
fn named_rubrics_and_generators_replace_the_ones_found_beside_old() {
    let set = root().join("rulebooks/paie-fr");
    let path = |p: &str| set.join(p).to_str().unwrap().to_string();
    let (old, new, rubric, generator) = (
        path("v2025"),
        path("v2026"),
        path("rubric-1.toml"),
        path("generator-1.toml"),
    );
    let out = bareme(
        &[
            "diff",
            &old,
            &new,
            "--format",
            "json",
            "--rubrics",
            &rubric,
            "--generators",
            &generator,
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let verdicts: Vec<(String, bool)> = v["compatibility"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["kind"].as_str().unwrap().to_string(),
                x["loads"].as_bool().unwrap(),
            )
        })
        .collect();
    // Both are written for paie-fr@2026, which is NEW here: they load.
    assert_eq!(
        verdicts,
        [
            ("generator".to_string(), true),
            ("rubric".to_string(), true)
        ]
    );
}

/// A number at another scale is a change (a `decimal` answer writes it
/// with its places), as a text written otherwise is; the same number at
/// the same scale is none.
#[test]
fn a_number_at_another_scale_is_a_change_as_a_text_is() {
    let with_note = |note: &str, rate: &str| {
        MINI.replace(
            "rate = { type = \"decimal\" } }",
            "rate = { type = \"decimal\" }, note = { type = \"text\" } }",
        )
        .replace(
            r#"{ region = "north", rate = "0.10" }"#,
            &format!(r#"{{ region = "north", rate = "{rate}", note = "{note}" }}"#),
        )
        .replace(
            r#"{ region = "south", rate = "0.20" }"#,
            r#"{ region = "south", rate = "0.20", note = "-" }"#,
        )
    };
    let named = |old: &str, new: &str| -> Vec<(String, String)> {
        bareme::parse_rulebook("new.toml", new).expect("valid");
        let all = changes(&diff_json(old, new));
        all.iter()
            .map(|c| {
                (
                    c["entity"].as_str().unwrap().into(),
                    c["attr"].as_str().unwrap().into(),
                )
            })
            .collect()
    };
    let north = |attr: &str| ("tables.rates[region=north]".to_string(), attr.to_string());
    let old = with_note("1.0", "0.10");
    assert_eq!(
        named(&old, &with_note("1.00", "0.100")),
        [north("rate"), north("note")]
    );
    assert_eq!(named(&old, &with_note("1.00", "0.10")), [north("note")]);
    // A row moved is its table's order changed: `rows(t)` goes in row order.
    let moved = old.replace(
        "rows = [\n  { region = \"north\"",
        "rows = [\n  { region = \"south\", rate = \"0.20\", note = \"-\" },\n  { region = \"north\"",
    );
    let moved = moved.replacen(
        "  { region = \"south\", rate = \"0.20\", note = \"-\" },\n]",
        "]",
        1,
    );
    assert_eq!(
        named(&old, &moved),
        [("tables.rates".to_string(), "order".to_string())]
    );
}

#[test]
fn a_steps_citation_added_or_changed_is_reported() {
    let cited = MINI.replace(
        "clauses = [\"R1\"]\n\n[steps.total]",
        "clauses = [\"R1\"]\ncite = [{ when = \"region == 'south'\", clauses = [\"R2\"] }]\n\n[steps.total]",
    );
    let attrs = |v: &Value| -> Vec<(String, String, String)> {
        changes(v)
            .iter()
            .map(|c| {
                let s = |k: &str| c[k].as_str().unwrap_or("").to_string();
                (s("kind"), s("entity"), s("attr"))
            })
            .collect()
    };
    let added = diff_json(MINI, &cited);
    assert_eq!(
        attrs(&added),
        [
            ("changed".into(), "steps.tax".into(), "cite[1].when".into()),
            (
                "changed".into(),
                "steps.tax".into(),
                "cite[1].clauses".into()
            ),
        ],
        "{}",
        pretty(&added)
    );
    // The condition is compared in canonical form: only a change of meaning shows.
    let respaced = cited.replace("region == 'south'", "region=='south'");
    assert_eq!(changes(&diff_json(&cited, &respaced)), Vec::<Value>::new());
    let changed = cited.replace("region == 'south'", "region == 'north'");
    let d = diff_json(&cited, &changed);
    assert_eq!(
        attrs(&d),
        [("changed".into(), "steps.tax".into(), "cite[1].when".into())]
    );
    assert_eq!(changes(&d)[0]["new"], "region == \"north\"");
}

/// An extending version's changes point at the file on disk that writes
/// them, not at a line of the merged text: v2025 writes its month bounds
/// at lines 34 and 35 of its own file (v2026, compared as written, at 37
/// and 38), and its removed reduced sickness row at line 99.
#[test]
fn an_extending_versions_lines_are_lines_of_its_own_file() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bareme"))
        .current_dir(root())
        .args(["diff", "rulebooks/paie-fr/v2025", "rulebooks/paie-fr/v2026"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("~ inputs.month.min (rulebooks/paie-fr/v2025/rulebook.toml:34 → line 37): 2025-01 → 2026-01"),
        "{text}"
    );
    assert!(
        text.contains(
            "- tables.schedule[code=maladie_reduit] (old rulebooks/paie-fr/v2025/rulebook.toml:99)"
        ),
        "{text}"
    );
    let v2025 =
        std::fs::read_to_string(root().join("rulebooks/paie-fr/v2025/rulebook.toml")).unwrap();
    assert_eq!(v2025.lines().nth(33), Some("min = \"2025-01\""));
}

/// What a diff was not asked for is a usage error, never silently ignored,
/// and an impact on tasks of another rulebook set (each rejected by both
/// versions) is refused rather than reported as "0 tasks change".
#[test]
fn a_diff_refuses_options_it_would_ignore_and_tasks_of_another_set() {
    let dir = tempdir("diff-options");
    let luma = dir.join("luma.jsonl");
    let o = bareme(
        &[
            "generate",
            "rulebooks/luma-payroll/generator-4.toml",
            "-n",
            "3",
            "-o",
            luma.to_str().expect("utf-8"),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let (v2026, v2025) = ("rulebooks/paie-fr/v2026", "rulebooks/paie-fr/v2025");
    let o = bareme(
        &[
            "diff",
            v2026,
            v2025,
            "--impact",
            luma.to_str().expect("utf-8"),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("is written for luma-payroll, not for paie-fr"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).is_empty());
    for extra in [
        &["--examples", "2"][..],
        &["--old-years", "-1"],
        &["--seed", "4"],
    ] {
        let mut args = vec!["diff", v2026, v2025];
        args.extend_from_slice(extra);
        let o = bareme(&args, None);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
    }
    let rubrics = [
        "rulebooks/luma-payroll/rubric-7.toml",
        "rulebooks/luma-payroll/rubric-8.toml",
    ];
    for extra in [
        &["--impact", luma.to_str().expect("utf-8")][..],
        &["--rubrics", rubrics[0]],
        &["--generators", "rulebooks/luma-payroll/generator-4.toml"],
    ] {
        let mut args = vec!["diff", rubrics[0], rubrics[1]];
        args.extend_from_slice(extra);
        let o = bareme(&args, None);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("diff two rulebook versions, not two rubrics"),
            "{}",
            stderr(&o)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A record's fields are validated in their order (the first at fault
/// names the refusal) and a list answer's line is written in its fields'
/// order: both were reported "no change" when reordered below the top
/// level (hostile probe: sales-tax's cart fields, an answer's line).
#[test]
fn nested_fields_reordered_are_reported_at_their_depth() {
    let rulebook = |pay: &str, line: &str| {
        format!(
            "[rulebook]\nid = \"nest\"\nversion = 1\nschema = 1\n\n\
             [inputs.pay]\ntype = \"record\"\nrequired = true\nfields = {{ {pay} }}\n\n\
             [inputs.xs]\ntype = \"list\"\nitems = {{ type = \"record\", fields = {{ v = {{ type = \"money\", required = true }}, w = {{ type = \"money\", required = true }} }} }}\n\n\
             [per_item.g]\nover = \"xs\"\nitem = \"x\"\n\n\
             [per_item.g.steps.t]\nexpr = \"x.v + x.w\"\n\n\
             [[checks]]\ndecision = \"ok\"\n\n\
             [decisions.ok.answer]\nlines = {{ each = \"g\", fields = {{ {line} }} }}\n"
        )
    };
    let (a, b) = (
        "a = { type = \"money\", required = true }",
        "b = { type = \"money\", required = true }",
    );
    let (v, w) = (
        "v = { expr = \"x.v\", format = \"money\" }",
        "w = { expr = \"x.w\", format = \"money\" }",
    );
    let old = rulebook(&format!("{a}, {b}"), &format!("{v}, {w}"));
    bareme::parse_rulebook("old.toml", &old).expect("a valid rulebook");
    assert_eq!(changes(&diff_json(&old, &old)), Vec::<Value>::new());
    let new = rulebook(&format!("{b}, {a}"), &format!("{w}, {v}"));
    let found: Vec<(String, String, String, String)> = changes(&diff_json(&old, &new))
        .iter()
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap_or_default().to_string();
            (s("entity"), s("attr"), s("old"), s("new"))
        })
        .collect();
    let order = |entity: &str, old: &str, new: &str| {
        (
            entity.to_string(),
            "order".to_string(),
            old.to_string(),
            new.to_string(),
        )
    };
    assert_eq!(
        found,
        [
            order("inputs.pay.fields", "a, b", "b, a"),
            order("decisions.ok.answer.lines.fields", "v, w", "w, v"),
        ]
    );
}

/// A report's columns and totals are shown in their order (the trace's
/// header, rows and totals, the payslip's table): swapping two was "no
/// change" (hostile probe).
#[test]
fn a_reports_columns_or_totals_reordered_are_reported() {
    let old = std::fs::read_to_string(root().join("rulebooks/paie-fr/v2026/rulebook.toml"))
        .expect("paie-fr");
    let (ligne, base) = (
        "\"Ligne\" = { expr = \"line.label\" }",
        "\"Base\" = { expr = \"base\", format = \"money\" }",
    );
    let pair = format!("{ligne}, {base}");
    assert!(old.contains(&pair));
    let new = old.replacen(&pair, &format!("{base}, {ligne}"), 1);
    let found: Vec<(String, String)> = changes(&diff_json(&old, &new))
        .iter()
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap_or_default().to_string();
            (format!("{}.{}", s("entity"), s("attr")), s("new"))
        })
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "reports.bulletin.columns.order");
    assert!(found[0].1.starts_with("Base, Ligne, "), "{found:?}");
}

/// An answer field's format written out where the other version leaves it
/// to its default is no change (both write the field alike): the diff read
/// only the TOML and reported `(none) → decimal`. A format that writes the
/// field otherwise (`money` on a decimal) is still one.
#[test]
fn a_default_format_written_out_is_no_change() {
    let old = "[rulebook]\nid = \"fmt\"\nversion = 1\nschema = 1\n\n\
        [inputs.x]\ntype = \"money\"\n\n\
        [inputs.l]\ntype = \"list\"\nitems = { type = \"decimal\" }\n\n\
        [per_item.g]\nover = \"l\"\nitem = \"i\"\n\n\
        [per_item.g.steps.a]\nexpr = \"i * 2\"\n\n\
        [[checks]]\ndecision = \"ok\"\n\n\
        [decisions.ok.answer]\ny = { expr = \"x\" }\nlines = { each = \"g\", fields = { a = { expr = \"a\" } } }\n";
    let dir = tempdir("diff-default-format");
    let changed = |y: &str, a: &str| -> Vec<(String, String, String)> {
        let new = old
            .replace("y = { expr = \"x\" }", y)
            .replace("a = { expr = \"a\" }", a);
        let (o, n) = (
            write(&dir, "old/rulebook.toml", old),
            write(&dir, "new/rulebook.toml", &new),
        );
        let json: Value = serde_json::from_str(
            &bareme::diff_versions(o.parent().unwrap(), n.parent().unwrap()).expect("diffed"),
        )
        .expect("json");
        changes(&json)
            .iter()
            .map(|c| {
                let s = |k: &str| c[k].as_str().unwrap_or_default().to_string();
                (s("entity"), s("attr"), s("new"))
            })
            .collect()
    };
    assert_eq!(
        changed(
            "y = { expr = \"x\", format = \"decimal\" }",
            "a = { expr = \"a\", format = \"decimal\" }"
        ),
        Vec::<(String, String, String)>::new()
    );
    assert_eq!(
        changed(
            "y = { expr = \"x\", format = \"money\" }",
            "a = { expr = \"a\", format = \"number\" }"
        ),
        [
            (
                "decisions.ok.answer.y".into(),
                "format".into(),
                "money".into()
            ),
            (
                "decisions.ok.answer.lines".into(),
                "fields.a.format".into(),
                "number".into()
            ),
        ]
    );
}

/// A version that changes a table's rows one by one writes them without
/// the table's `kind`, `keys` or `columns`: its rows are named as the
/// extended table's, so each change points at the line of the extending
/// file that writes it (they pointed at the extended file, and an added row
/// at a line of the merged text, past the end of an 11-line file).
#[test]
fn rows_changed_one_by_one_point_at_the_file_that_changes_them() {
    let dir = tempdir("diff-rows-by-one");
    let (v1, v2) = (dir.join("v1"), dir.join("v2"));
    std::fs::create_dir_all(&v1).unwrap();
    std::fs::create_dir_all(&v2).unwrap();
    std::fs::write(
        v1.join("rulebook.toml"),
        r#"[rulebook]
id = "ex"
version = 1
schema = 1

[inputs.k]
type = "decimal"
default = "2"

[inputs.mo]
type = "month"
default = "2026-03"

[tables.ky]
kind = "keyed"
keys = ["size"]
columns = { size = { type = "decimal" }, amount = { type = "money" } }
rows = [{ size = "2", amount = "150.00" }, { size = "3", amount = "175.00" }]

[tables.pm]
kind = "periods"
columns = { rate = { type = "decimal" } }
rows = [
  { name = "a", from = "2026-01", to = "2026-03", rate = "1" },
  { name = "b", from = "2026-04", rate = "2" },
]

[[checks]]
decision = "d"

[decisions.d.answer]
ky = { expr = "coalesce(lookup(ky, k).amount, -1)", format = "decimal" }
pm = { expr = "coalesce(period_row(pm, mo).rate, -1)", format = "decimal" }
"#,
    )
    .unwrap();
    std::fs::write(
        v2.join("rulebook.toml"),
        r#"[rulebook]
id = "ex"
version = 2
schema = 1
extends = "../v1"

[tables.ky]
rows = [{ size = "3", amount = "999.00" }, { size = "4", amount = "1.00" }]

[tables.pm]
rows = [{ name = "a", from = "2026-01", to = "2026-02", rate = "5" }]
"#,
    )
    .unwrap();
    let o = bareme(
        &[
            "diff",
            v1.to_str().expect("utf-8"),
            v2.to_str().expect("utf-8"),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    let new = v2.join("rulebook.toml");
    let new = new.display();
    for line in [
        format!("~ tables.ky[size=3].amount (line 18 → {new}:8): 175.00 → 999.00"),
        format!("~ tables.pm[from=2026-01].to (line 24 → {new}:11): 2026-03 → 2026-02"),
        format!("~ tables.pm[from=2026-01].rate (line 24 → {new}:11): 1 → 5"),
        format!("+ tables.ky[size=4] (new {new}:8): size = 4; amount = 1.00"),
    ] {
        assert!(text.contains(&line), "{line}\n{text}");
    }
}
