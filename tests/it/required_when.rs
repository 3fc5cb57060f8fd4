//! `required_when` (docs/rulebook-format.md §4.16): an input required only
//! while its condition holds, where a `null` does not count as given, even
//! on a `nullable` input (which `required` lets keep it). Worked examples
//! of the format's own table, and the nullable input a probe found
//! answered with a kept `null`.

use bareme::parse_rulebook;
use serde_json::json;

const RULEBOOK: &str = r#"[rulebook]
id = "required-when"
version = 1
schema = 1

[clauses]
R1 = "Levels 1 and 2 give the coefficient."

[inputs.level]
type = "integer"
min = "1"
max = "4"
required = true

[inputs.coefficient]
type = "decimal"
required_when = "level <= 2"
clause = "R1"

[inputs.bonus]
type = "money"
default = "0"
required_when = "level == 4"

[inputs.allowance]
type = "money"
nullable = true
required_when = "level == 3"

[[checks]]
decision = "ok"

[decisions.ok.answer]
coefficient_missing = { expr = "is_missing(coefficient)" }
bonus = { expr = "bonus", format = "money" }
allowance_null = { expr = "is_null(allowance)" }
"#;

/// The outcome line `eval --batch` would print, traced and untraced alike.
fn line(case: serde_json::Value) -> String {
    let rb = parse_rulebook("required-when.toml", RULEBOOK).expect("valid");
    super::roads::both_roads(&rb, case)
}

fn rejected(path: &str, message: &str) -> String {
    format!(r#"{{"error":{{"path":"{path}","message":"{message}"}}}}"#)
}

#[test]
fn the_formats_table_holds() {
    let coefficient = rejected("coefficient", "is required when level <= 2 (R1)");
    for (case, expected) in [
        (json!({"level": 1}), coefficient.clone()),
        (json!({"level": 1, "coefficient": null}), coefficient),
        (
            json!({"level": 2, "coefficient": "0.1234"}),
            r#"{"coefficient_missing":false,"bonus":"0.00","allowance_null":false}"#.into(),
        ),
        (
            json!({"level": 3, "allowance": "5.00"}),
            r#"{"coefficient_missing":true,"bonus":"0.00","allowance_null":false}"#.into(),
        ),
        (
            json!({"level": 4, "coefficient": "0.5"}),
            rejected("bonus", "is required when level == 4"),
        ),
    ] {
        assert_eq!(line(case.clone()), expected, "{case}");
    }
}

/// A `nullable` input keeps a `null` while its condition does not hold,
/// and is refused one while it does: `null` is not the value asked for.
#[test]
fn a_null_is_refused_while_the_condition_holds_even_when_nullable() {
    assert_eq!(
        line(json!({"level": 3, "allowance": null})),
        rejected("allowance", "is required when level == 3")
    );
    assert_eq!(
        line(json!({"level": 3})),
        rejected("allowance", "is required when level == 3")
    );
    assert_eq!(
        line(json!({"level": 2, "coefficient": "1", "allowance": null})),
        r#"{"coefficient_missing":false,"bonus":"0.00","allowance_null":true}"#
    );
}
