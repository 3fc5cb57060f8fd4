//! `invalid = "absent"`: a value the rules may read but never reject for.

use bareme::unstable::facts::Given;
use bareme::{evaluate_value, parse_rulebook, render_text, Outcome};
use serde_json::json;

const DEMO: &str = r#"[rulebook]
id = "invalid-demo"
version = 1
schema = 1

[inputs.people]
type = "map"
required = true

[inputs.people.items]
type = "record"

[inputs.people.items.fields.region]
type = "text"
max_length = 10
invalid = "absent"

[inputs.people.items.fields.age]
type = "integer"
default = 0
invalid = "absent"

[inputs.people.items.fields.name]
type = "text"
invalid = "reject"

[inputs.note]
type = "text"
invalid = "absent"

[inputs.level]
type = "integer"
default = 1
invalid = "absent"

[steps.known]
expr = "count([p for p in values(people) if not is_missing(p.region)])"

[[checks]]
decision = "ok"

[decisions.ok.answer]
known = { expr = "known", format = "integer" }
ages = { expr = "sum(values(people).age)", format = "integer" }
note = { expr = "coalesce(note, 'none')" }
level = { expr = "level", format = "integer" }
"#;

#[test]
fn a_value_that_does_not_validate_reads_as_absent_or_its_default() {
    let rb = parse_rulebook("invalid-demo.toml", DEMO).expect("checks");
    // a: a number for a text, a text for an integer; c: a text longer than 10.
    let case = json!({
        "people": {"a": {"region": 7, "age": "x"}, "b": {"region": "north", "age": 30},
                   "c": {"region": "far too long a region"}},
        "note": [1],
        "level": "high"
    });
    let (outcome, trace) = evaluate_value(&rb, &case, true).expect("evaluates");
    let Outcome::Answer(answer) = outcome else {
        panic!("rejected: {outcome:?}")
    };
    // Only b's region is known; a's age is the default 0, so the ages sum to 30.
    assert_eq!(
        answer.to_json(),
        json!({"known": 1, "ages": 30, "note": "none", "level": 1})
    );
    let trace = trace.expect("asked for");
    let given: Vec<Given> = trace.inputs.iter().map(|i| i.given).collect();
    assert_eq!(given, [Given::Value, Given::Invalid, Given::Invalid]);
    let text = render_text(&trace);
    assert!(
        text.contains("\n  note absent (the value given is not valid)\n"),
        "{text}"
    );
    assert!(
        text.contains("\n  level = 1 (default: the value given is not valid)\n"),
        "{text}"
    );
    // A valid value is read as given, and `invalid = "reject"` is the default.
    let valid = json!({"people": {"b": {"region": "north", "age": 30}}, "note": "hi", "level": 3});
    let (outcome, _) = evaluate_value(&rb, &valid, false).expect("evaluates");
    assert_eq!(
        bareme::unstable::outcome::outcome_json(Ok(&outcome)),
        json!({"known": 1, "ages": 30, "note": "hi", "level": 3})
    );
    let bad_name = json!({"people": {"b": {"name": 5}}});
    let (outcome, _) = evaluate_value(&rb, &bad_name, false).expect("evaluates");
    let Outcome::Rejected(err) = outcome else {
        panic!("accepted: {outcome:?}")
    };
    assert_eq!(err.path, "people.b.name");
}

#[test]
fn invalid_absent_is_refused_where_it_would_hide_a_rule() {
    let with = |extra: &str| DEMO.replace("[inputs.note]\n", &format!("[inputs.note]\n{extra}"));
    let messages = |text: &str| match parse_rulebook("demo.toml", text) {
        Ok(_) => Vec::new(),
        Err(d) => d
            .problems
            .iter()
            .map(|p| format!("{} {}", p.code, p.message))
            .collect(),
    };
    assert_eq!(
        messages(&with("required = true\n")),
        ["check::bad_input `invalid = \"absent\"` cannot go with `required`: a value that is not valid would be read as absent"]
    );
    assert_eq!(
        messages(&DEMO.replace("invalid = \"reject\"", "invalid = \"maybe\"")),
        ["check::bad_input `invalid` is `reject` or `absent`, not `maybe`"]
    );
    let list = DEMO.to_string()
        + "\n[inputs.tags]\ntype = \"list\"\nitems = { type = \"text\", invalid = \"absent\" }\n";
    assert_eq!(
        messages(&list),
        ["check::bad_input `invalid` applies to inputs and record fields, not to the items of a list"]
    );
    // A default must be valid whatever `invalid` says.
    assert_eq!(
        messages(&DEMO.replace("default = 1\n", "default = \"one\"\n")),
        ["check::bad_value bad default: must be a whole number, found the string \"one\""]
    );
}
