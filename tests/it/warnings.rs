//! Warnings of `bareme check`: inputs, parameters, tables, steps and groups that
//! nothing reads and decisions no check gives, located at their declaration; `--deny warnings` makes
//! them fail; `eval` and `test` say nothing of them; the bundled rulebooks
//! have none.

use super::cli::{bareme, stderr, stdout, tempdir};
use bareme::parse_rulebook;

/// A rulebook with one unused name of each kind, and used ones of each
/// kind beside them (read directly, through a step, a table input's rows,
/// a `ref`, an ablation).
const RULEBOOK: &str = r#"[rulebook]
id = "w"
version = 1
schema = 1

[inputs.x]
type = "decimal"
required = true

[inputs.forgotten]
type = "decimal"

[inputs.people]
type = "map"
items = { type = "text" }

[inputs.boss]
type = "text"
ref = "people"

[inputs.own_rates]
type = "table"
table = "rates"

[parameters.rate]
value = "0.1"

[parameters.dead_rate]
value = "0.2"

[parameters.alt_rate]
value = "0.3"

[tables.rates]
kind = "keyed"
keys = ["k"]
columns = { k = { type = "text" }, r = { type = "decimal" } }
rows = [{ k = "a", r = "1" }]

[tables.old_rates]
kind = "keyed"
keys = ["k"]
columns = { k = { type = "text" }, r = { type = "decimal" } }
rows = [{ k = "a", r = "2" }]

[steps.base]
expr = "x * rate * lookup(rates, 'a').r"

[steps.taxed]
expr = "base + 1"

[steps.helper]
expr = "x * 3"

[steps.orphan]
expr = "helper + 1"

[[checks]]
decision = "d"

[decisions.d.answer]
taxed = { expr = "taxed", format = "decimal" }
boss = { expr = "coalesce(boss, 'none')", format = "text" }

[ablations.alt]
steps = { base = "x * alt_rate" }
"#;

fn warnings(text: &str) -> Vec<String> {
    let rb = parse_rulebook("w.toml", text).unwrap_or_else(|d| panic!("{}", d.render(100, false)));
    let w = rb.warnings();
    w.problems
        .iter()
        .zip(w.locations())
        .map(|(p, at)| format!("{at} {}", p.message))
        .collect()
}

#[test]
fn each_kind_of_unused_name_is_located_at_its_declaration() {
    // `orphan` is read by nothing; `helper` only by `orphan`, so by nothing
    // that counts either.
    assert_eq!(
        warnings(RULEBOOK),
        [
            "warn::unused_input 11:8-11:17 input `forgotten` is never read",
            "warn::unused_parameter 29:9-29:14 parameter `dead_rate` is never read",
            "warn::unused_table 41:8-41:15 table `old_rates` is never read",
            "warn::unused_step 53:8-53:15 step `helper` is never read",
            "warn::unused_step 56:8-56:20 step `orphan` is never read",
        ]
    );
}

#[test]
fn a_name_read_anywhere_is_not_warned_of() {
    let text = RULEBOOK.replace(
        "taxed = { expr = \"taxed\", format = \"decimal\" }",
        "taxed = { expr = \"taxed + orphan + dead_rate + coalesce(forgotten, 0) + lookup(old_rates, 'a').r\", format = \"decimal\" }",
    );
    assert_eq!(warnings(&text), Vec::<String>::new());
}

#[test]
fn check_prints_warnings_and_denies_them_on_request() {
    let dir = tempdir("warnings");
    let file = dir.join("rulebook.toml");
    std::fs::write(&file, RULEBOOK).expect("write");
    let path = file.to_str().expect("utf-8 path");
    let o = bareme(&["check", path], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("ok: w@1#"), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(err.contains("warn::unused_parameter"), "{err}");
    assert!(
        err.contains("⚠ parameter `dead_rate` is never read"),
        "{err}"
    );
    assert!(err.contains("warning: 5 warning(s) in"), "{err}");
    let o = bareme(&["check", path, "--deny", "warnings"], None);
    assert_eq!(o.status.code(), Some(3));
    assert_eq!(stdout(&o), "");
    assert!(
        stderr(&o).contains("error: 5 warning(s) in"),
        "{}",
        stderr(&o)
    );
    // Evaluation says nothing of them.
    let o = bareme(&["eval", path, "-"], Some(r#"{"x": "2"}"#));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
}

#[test]
fn the_bundled_rulebooks_have_no_warnings() {
    for dir in super::rulebook_dirs() {
        let rb = bareme::load_rulebook(&dir).expect("loads");
        let w = rb.warnings();
        assert!(w.is_empty(), "{}", w.render(100, false));
    }
    let o = bareme(&["check", "tests/lang", "--deny", "warnings"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_name_read_only_by_a_steps_citation_is_read() {
    // `orphan` cites a clause when `helper` (read nowhere else) is positive.
    let text = RULEBOOK
        .replace(
            "[steps.orphan]\nexpr = \"helper + 1\"",
            "[steps.orphan]\nexpr = \"1\"",
        )
        .replace(
            "[steps.taxed]\nexpr = \"base + 1\"",
            "[steps.taxed]\nexpr = \"base + orphan\"\ncite = [{ when = \"helper > 0\", clauses = [] }]",
        );
    assert_eq!(
        warnings(&text),
        [
            "warn::unused_input 11:8-11:17 input `forgotten` is never read",
            "warn::unused_parameter 29:9-29:14 parameter `dead_rate` is never read",
            "warn::unused_table 41:8-41:15 table `old_rates` is never read",
        ]
    );
}

/// A per-item group is read by a formula, an answer written for each of its
/// items or a report over it; a decision is used when a check gives it.
#[test]
fn an_unread_group_and_a_decision_no_check_gives_are_warned_of() {
    let text = r#"[rulebook]
id = "g"
version = 1
schema = 1

[inputs.xs]
type = "list"
items = { type = "decimal" }

[per_item.summed]
over = "xs"
item = "x"
steps = { twice = { expr = "x * 2" } }

[per_item.listed]
over = "xs"
item = "x"
steps = { half = { expr = "x / 2" } }

[per_item.reported]
over = "xs"
item = "x"
steps = { third = { expr = "x / 4" } }

[per_item.forgotten]
over = "xs"
item = "x"
steps = { gone = { expr = "x * 3" } }

[[checks]]
decision = "d"

[decisions.d.answer]
total = { expr = "sum(summed.twice)", format = "decimal" }
halves = { each = "listed", fields = { half = { expr = "half", format = "decimal" } } }

[decisions.never.answer]
total = { expr = "0", format = "decimal" }

[reports.quarters]
each = "reported"
columns = { third = { expr = "third", format = "decimal" } }
"#;
    assert_eq!(
        warnings(text),
        [
            "warn::unused_group 26:8-26:12 per-item group `forgotten` is never read",
            "warn::unused_decision 38:18-38:21 decision `never` is given by no check",
        ]
    );
}

#[test]
fn a_part_that_fails_on_every_case_is_warned_of_where_it_fails() {
    // `taxed` written as `expr`: its `always_fails` warnings.
    let failing = |expr: &str| -> Vec<String> {
        let text = RULEBOOK.replace("expr = \"base + 1\"", &format!("expr = \"{expr}\""));
        (warnings(&text).into_iter())
            .filter(|w| w.starts_with("warn::always_fails"))
            .collect()
    };
    // `base / (rate - 0.1)` reads `base`, a step: not the same on every
    // case; only `rate - 0.1` is, and it computes.
    assert_eq!(
        failing("if x > 10 then base / (rate - 0.1) else base + 1"),
        Vec::<String>::new()
    );
    // `1 / (rate - 0.1)` reads a parameter with one value and nothing
    // else: the same on every case, and a division by zero on every case
    // that takes the branch.
    let expr = "if x > 10 then base * (1 / (rate - 0.1)) else base + 1";
    assert_eq!(
        failing(expr),
        [
            "warn::always_fails 50:31-50:49 `(1 / (rate - 0.1))` reads nothing of the case and fails \
             on every case that computes it: division by zero (1 / 0)"
        ]
    );
    let text = RULEBOOK.replace("expr = \"base + 1\"", &format!("expr = \"{expr}\""));
    // Evaluation computes it where the case takes the branch, and only there.
    let dir = tempdir("always-fails");
    let file = dir.join("rulebook.toml");
    std::fs::write(&file, &text).expect("write");
    let path = file.to_str().expect("utf-8 path");
    let o = bareme(&["eval", path, "-"], Some(r#"{"x": "2"}"#));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = bareme(&["eval", path, "-"], Some(r#"{"x": "20"}"#));
    assert_ne!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stderr(&o).contains("division by zero"), "{}", stderr(&o));
    let o = bareme(&["check", path, "--deny", "warnings"], None);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("⚠ `(1 / (rate - 0.1))` reads nothing of the case"),
        "{}",
        stderr(&o)
    );
}
