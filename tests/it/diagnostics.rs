//! Static checks report every problem, located in the file down to the name
//! inside an expression string.

use bareme::parse_rulebook;

const BASE: &str = r#"[rulebook]
id = "demo"
version = 1
schema = 1

[clauses]
A = "Clause A."

[inputs.x]
type = "money"
required = true

[steps.y]
expr = "x * 2"
clauses = ["A"]

[[checks]]
decision = "ok"

[decisions.ok.answer]
y = { expr = "y", format = "money" }
"#;

/// The problems of a rulebook text, as `code line:col-line:col`.
fn problems(text: &str) -> Vec<String> {
    match parse_rulebook("demo.toml", text) {
        Ok(_) => Vec::new(),
        Err(d) => d.locations(),
    }
}

fn messages(text: &str) -> Vec<String> {
    match parse_rulebook("demo.toml", text) {
        Ok(_) => Vec::new(),
        Err(d) => d.problems.iter().map(|p| p.message.clone()).collect(),
    }
}

/// `line:col-line:col` of the `nth` occurrence of `needle` (1-based columns).
fn at(text: &str, needle: &str, nth: usize) -> String {
    let start = text
        .match_indices(needle)
        .nth(nth)
        .map(|(i, _)| i)
        .expect("needle present");
    let pos = |off: usize| {
        let before = &text[..off];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        format!("{line}:{col}")
    };
    format!("{}-{}", pos(start), pos(start + needle.len()))
}

#[test]
fn the_base_rulebook_is_clean() {
    assert_eq!(problems(BASE), Vec::<String>::new());
}

#[test]
fn a_typo_in_a_name_points_at_the_name() {
    let text = BASE.replace("expr = \"x * 2\"", "expr = \"x * 2 + xx\"");
    assert_eq!(
        problems(&text),
        vec![format!("check::unknown_name {}", at(&text, "xx", 0))]
    );
    let d = parse_rulebook("demo.toml", &text).expect_err("invalid");
    assert_eq!(d.problems[0].help.as_deref(), Some("did you mean `x`?"));
}

/// A rounding outside a step would be in no trace: refused where it is
/// written, in each place a formula runs outside a step; in a step it is
/// recorded, and the same rulebook with the rounding moved there loads.
#[test]
fn a_rounding_outside_a_step_is_refused_where_it_is() {
    let with = |from: &str, to: &str| BASE.replace(from, to);
    let answer = with("y = { expr = \"y\"", "y = { expr = \"round(y / 3, 2)\"");
    let check = with(
        "[[checks]]\ndecision = \"ok\"",
        "[[checks]]\nwhen = \"floor(x, 0) > 100\"\ndecision = \"ok\"\n\n[[checks]]\ndecision = \"ok\"",
    );
    let cite = with(
        "[decisions.ok.answer]",
        "[decisions.ok]\ncite = [{ when = \"ceil(x, 0) > 1\", clauses = [\"A\"] }]\n\n[decisions.ok.answer]",
    );
    let input = with("required = true", "required = true\nreject = [{ when = \"round(value, 2) != value\", message = \"has cents\" }]");
    for (text, call, place) in [
        (
            &answer,
            "round(y / 3, 2)",
            "an answer field or a report's column",
        ),
        (&check, "floor(x, 0)", "a check's `when`"),
        (&cite, "ceil(x, 0)", "a decision's citation"),
        (&input, "round(value, 2)", "an input's `reject` rule"),
    ] {
        assert_eq!(
            problems(text),
            vec![format!("check::unrecorded_rounding {}", at(text, call, 0))],
            "{place}"
        );
        let name = &call[..call.find('(').unwrap_or(0)];
        assert_eq!(
            messages(text),
            vec![format!("`{name}` rounds in {place}, where no trace records a rounding: only a step's roundings are recorded")]
        );
    }
    let in_a_step = with("expr = \"x * 2\"", "expr = \"round(x / 3, 2)\"");
    assert_eq!(problems(&in_a_step), Vec::<String>::new());
}

/// A table's row at fault is the place named, not the table's `kind`:
/// with `extends`, the row is in the file that wrote it.
#[test]
fn a_row_at_fault_is_located_at_the_row() {
    let periods = format!(
        "{BASE}\n[tables.p]\nkind = \"periods\"\ncolumns = {{ rate = {{ type = \"decimal\" }} }}\nrows = [\n  {{ name = \"a\", from = \"2026-01\", rate = \"1\" }},\n  {{ name = \"b\", from = \"2026-07\", rate = \"2\" }},\n]\n"
    );
    let row_b = r#"{ name = "b", from = "2026-07", rate = "2" }"#;
    assert_eq!(
        problems(&periods),
        vec![format!("check::bad_table {}", at(&periods, row_b, 0))]
    );
    let keyed = format!(
        "{BASE}\n[tables.k]\nkind = \"keyed\"\nkeys = [\"n\"]\ncolumns = {{ n = {{ type = \"text\" }} }}\nrows = [{{ n = \"x\" }}, {{ n = \"y\" }}, {{ n = \"x\" }}]\n"
    );
    assert_eq!(
        problems(&keyed),
        vec![format!(
            "check::bad_table {}",
            at(&keyed, r#"{ n = "x" }"#, 1)
        )]
    );
}

#[test]
fn a_cycle_names_its_members() {
    let text = BASE.replace(
        "[steps.y]\nexpr = \"x * 2\"",
        "[steps.a]\nexpr = \"b + 1\"\n\n[steps.b]\nexpr = \"y - a\"\n\n[steps.y]\nexpr = \"a * 2\"",
    );
    let msgs = messages(&text);
    assert_eq!(msgs.len(), 1, "{msgs:?}");
    assert!(msgs[0].contains("a → b → a"), "{}", msgs[0]);
}

#[test]
fn every_problem_is_reported_at_once() {
    let text = BASE
        .replace("expr = \"x * 2\"", "expr = \"clamp(x) + (x and true)\"")
        .replace("clauses = [\"A\"]", "clauses = [\"B\"]")
        .replace("decision = \"ok\"", "decision = \"okay\"");
    // `clamp(x)` has one argument; `x` is not a boolean; `(x and true)`, brackets
    // included, is not a number.
    let found = problems(&text);
    assert_eq!(
        found,
        vec![
            "check::arity 14:9-14:17",
            "check::type_mismatch 14:21-14:22",
            "check::type_mismatch 14:20-14:32",
            "check::unknown_clause 15:12-15:15",
            "check::unknown_decision 18:12-18:18",
        ],
    );
}

#[test]
fn unknown_keys_are_errors() {
    let text = BASE.replace("clauses = [\"A\"]", "clause = [\"A\"]");
    let found = problems(&text);
    assert_eq!(found.len(), 1);
    assert!(found[0].starts_with("load::unknown_key"), "{found:?}");
}

#[test]
fn unknown_fields_of_records_and_rows_are_located() {
    let text = BASE.replace(
        "[steps.y]\nexpr = \"x * 2\"",
        "[tables.t]\nkind = \"periods\"\ncolumns = { rate = { type = \"decimal\" } }\nrows = [{ name = \"all\", from = \"2026-01\", rate = \"0.1\" }]\n\n[inputs.m]\ntype = \"month\"\n\n[steps.y]\nexpr = \"x * period_row(t, m).rat\"",
    );
    let field = at(&text, ".rat\"", 0);
    let (start, end) = field.split_once('-').expect("range");
    let (line, col) = start.split_once(':').expect("line:col");
    let col: usize = col.parse().expect("col");
    let end_col: usize = end
        .split_once(':')
        .expect("line:col")
        .1
        .parse()
        .expect("col");
    let expected = format!(
        "check::unknown_field {line}:{}-{line}:{}",
        col + 1,
        end_col - 1
    );
    assert_eq!(problems(&text), vec![expected]);
    assert!(messages(&text)[0].contains("row of table t has no field `rat`"));
}

#[test]
fn syntax_errors_point_inside_the_expression() {
    let text = BASE.replace("expr = \"x * 2\"", "expr = \"x * * 2\"");
    let found = problems(&text);
    assert_eq!(found.len(), 1);
    let pos = at(&text, "* 2\"", 0);
    let start = pos.split('-').next().unwrap_or("");
    assert!(
        found[0].starts_with(&format!("check::syntax {start}")),
        "{found:?} vs {pos}"
    );
}

/// Several values of one `match` arm are separated by `|`; a comma there
/// is located at the comma, not at the arm's first literal.
#[test]
fn a_comma_between_the_literals_of_an_arm_is_located() {
    let text = BASE.replace(
        "expr = \"x * 2\"",
        "expr = \"match x { 1, 2 => 1, else => 0 }\"",
    );
    let found = problems(&text);
    let pos = at(&text, ", 2 =>", 0);
    let start = pos.split('-').next().unwrap_or("");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with(&format!("check::syntax {start}")),
        "{found:?} vs {pos}"
    );
    assert_eq!(messages(&text), ["syntax error: expected `=>`, `|`"]);
}

/// A `let` name may not hide another name: the step's reader would not
/// know which one a later read means.
#[test]
fn a_let_name_may_not_hide_another_name() {
    let text = BASE.replace("expr = \"x * 2\"", "expr = \"let x = 2; x * 2\"");
    assert_eq!(
        messages(&text),
        ["`x` is already a name here; choose another name to bind"]
    );
    // The name has its value's type.
    let text = BASE.replace("expr = \"x * 2\"", "expr = \"let d = x * 2; d + 'a'\"");
    assert_eq!(
        messages(&text),
        ["the right operand of `+` must be a number, found a text"]
    );
}

/// A `pattern` is compiled at load with its size capped, and its named
/// groups and the declared fields must be the same names.
#[test]
fn a_pattern_and_its_fields_are_checked_at_load() {
    let with = |pattern: &str, fields: &str| {
        BASE.replace(
            "[steps.y]",
            &format!(
                "[inputs.code]\ntype = \"text\"\npattern = '{pattern}'\nfields = {{ {fields} }}\n\n[steps.y]"
            ),
        )
    };
    let ok = with("^(?P<n>[0-9]+)$", "n = { type = \"integer\" }");
    assert_eq!(messages(&ok), Vec::<String>::new());
    assert_eq!(
        messages(&with("^(?P<n>[0-9]+$", "n = { type = \"integer\" }")),
        ["the pattern is not a regular expression this engine reads: error: unclosed group"]
    );
    assert_eq!(
        messages(&with(
            "^(?P<n>[0-9]+)(?P<s>[A-Z])$",
            "n = { type = \"integer\" }, t = { type = \"text\" }"
        )),
        [
            "field `t` names no group of the pattern: write `(?P<t>…)` in it",
            "group `s` of the pattern has no field: declare its type in `fields`",
        ]
    );
    assert_eq!(
        messages(&with("^(?P<n>.)$", "n = { type = \"list\", items = { type = \"text\" } }")),
        ["field `n` of a pattern holds the text of a group: a number, text, enum, bool, date or month"]
    );
    // A pattern that would compile to more than the cap is refused, located.
    let huge = with("^(?P<n>\\w{1000}){1000}$", "n = { type = \"text\" }");
    let found = problems(&huge);
    assert_eq!(found.len(), 1, "{found:?}");
    let pos = at(&huge, "'^(?P<n>", 0);
    let start = pos.split('-').next().unwrap_or("");
    assert!(
        found[0].starts_with(&format!("check::bad_input {start}")),
        "{found:?} vs {pos}"
    );
    assert!(
        messages(&huge)[0].contains("exceeds size limit"),
        "{:?}",
        messages(&huge)
    );
}

/// `unique` stands on the plain items of a list, not on items that are
/// themselves lists (nor on a top-level input).
#[test]
fn unique_applies_to_plain_items_of_a_list() {
    let with = |items: &str| {
        BASE.replace(
            "[steps.y]",
            &format!("[inputs.codes]\ntype = \"list\"\nitems = {items}\n\n[steps.y]"),
        )
    };
    assert_eq!(
        messages(&with("{ type = \"text\", unique = true }")),
        Vec::<String>::new()
    );
    assert_eq!(
        messages(&with(
            "{ type = \"list\", unique = true, items = { type = \"text\" } }"
        )),
        ["`unique` applies to a field of the records of a list, or to the plain items of a list"]
    );
}

/// The index of `for i, x in` is a number, and neither name may hide
/// another, nor the two be the same.
#[test]
fn the_names_of_an_indexed_comprehension_are_checked() {
    let with = |expr: &str| {
        BASE.replace(
            "[steps.y]\nexpr = \"x * 2\"",
            &format!(
                "[inputs.xs]\ntype = \"list\"\nitems = {{ type = \"decimal\" }}\n\n[steps.y]\nexpr = \"{expr}\""
            ),
        )
    };
    assert_eq!(
        messages(&with("x + sum([i * v for i, v in xs])")),
        Vec::<String>::new()
    );
    assert_eq!(
        messages(&with("x + sum([i * 2 for i, i in xs])")),
        ["`i` is already a name here; choose another name for the item"]
    );
    assert_eq!(
        messages(&with("x + sum([v for x, v in xs])")),
        ["`x` is already a name here; choose another name for the index"]
    );
    assert_eq!(
        messages(&with("x + count([i for i, v in xs if i == 'a'])")),
        ["the right operand of `==` must be a number like the first, found a text"]
    );
}

#[test]
fn types_of_answers_and_conditions_are_checked() {
    let text = BASE
        .replace(
            "decision = \"ok\"",
            "when = \"x\"\ndecision = \"ok\"\n\n[[checks]]\ndecision = \"ok\"",
        )
        .replace(
            "y = { expr = \"y\", format = \"money\" }",
            "y = { expr = \"y > 1\", format = \"money\" }",
        );
    let found = problems(&text);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("check::type_mismatch"));
    assert!(found[1].starts_with("check::type_mismatch"));
}

#[test]
fn the_last_check_must_decide_unconditionally() {
    let text = BASE.replace("decision = \"ok\"", "when = \"x > 1\"\ndecision = \"ok\"");
    assert_eq!(problems(&text).len(), 1);
    assert!(problems(&text)[0].starts_with("check::no_fallback"));
}

#[test]
fn malformed_toml_is_a_located_diagnostic() {
    let found = problems("[rulebook\nid = 1");
    assert_eq!(found.len(), 1);
    assert!(found[0].starts_with("load::toml 1:"), "{found:?}");
}

#[test]
fn rendered_diagnostic_snapshot() {
    let text = BASE.replace("expr = \"x * 2\"", "expr = \"x * rate\"");
    let d = parse_rulebook("demo.toml", &text).expect_err("invalid");
    insta::assert_snapshot!(d.render(80, false));
}

#[test]
fn a_scale_must_end_with_an_open_band() {
    let text = BASE.replace(
        "[steps.y]\nexpr = \"x * 2\"",
        "[tables.bands]\nkind = \"scale\"\nrows = [{ upto = \"100\", rate = \"0.1\" }, { upto = \"200\", rate = \"0.2\" }]\n\n[steps.y]\nexpr = \"scale(bands, x)\"",
    );
    let msgs = messages(&text);
    assert_eq!(msgs, vec!["the last band of scale `bands` must be open (no `upto`), or amounts above it would go untaxed"]);
}

#[test]
fn per_item_steps_are_typed_and_their_cycles_named() {
    let group = "[inputs.items]\ntype = \"list\"\nitems = { type = \"record\", fields = { q = { type = \"integer\" } } }\n\n[per_item.rows]\nover = \"items\"\nitem = \"it\"\n\n[per_item.rows.steps.a]\nexpr = \"b + it.q\"\n\n[per_item.rows.steps.b]\nexpr = \"a * 2\"\n\n[steps.y]\nexpr = \"x * sum(rows.a)\"";
    let text = BASE.replace("[steps.y]\nexpr = \"x * 2\"", group);
    let msgs = messages(&text);
    assert_eq!(
        msgs,
        vec!["per-item steps depend on each other in a cycle: rows.a → rows.b → rows.a"]
    );

    let typo = BASE.replace(
        "[steps.y]\nexpr = \"x * 2\"",
        &group
            .replace("b + it.q", "it.qq")
            .replace("a * 2", "sum(it)"),
    );
    let found = problems(&typo);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("check::unknown_field"), "{found:?}");
    assert!(found[1].starts_with("check::type_mismatch"), "{found:?}");
}

#[test]
fn references_must_name_a_map_or_a_keyed_table() {
    let text = BASE.replace(
        "[inputs.x]\ntype = \"money\"\nrequired = true",
        "[inputs.x]\ntype = \"money\"\nrequired = true\n\n[inputs.who]\ntype = \"text\"\nref = \"people\"",
    );
    assert_eq!(
        problems(&text),
        vec![format!("check::unknown_ref {}", at(&text, "\"people\"", 0))]
    );
}

#[test]
fn an_ablation_may_not_make_the_steps_cyclic() {
    let text = BASE.replace(
        "[steps.y]\nexpr = \"x * 2\"",
        "[steps.a]\nexpr = \"x\"\n\n[steps.y]\nexpr = \"a * 2\"",
    ) + "\n[ablations.loop]\nsteps = { a = \"y\" }\n";
    let msgs = messages(&text);
    assert_eq!(msgs, vec!["steps depend on each other in a cycle: a (ablation loop) → y (ablation loop) → a (ablation loop)"]);
}

/// A name that cannot be declared, or is declared twice, is underlined
/// where it is written: the problem pointed at the input's `type` value.
#[test]
fn keywords_are_not_names() {
    let text = BASE.replace("[inputs.x]", "[inputs.in]\ntype = \"bool\"\n\n[inputs.x]");
    assert_eq!(
        problems(&text),
        vec![format!("check::bad_name {}", at(&text, "[inputs.in]", 0))]
    );
    let text = BASE.replace(
        "[inputs.x]",
        "[inputs]\ndecision = { type = \"text\" }\n\n[inputs.x]",
    );
    assert_eq!(
        problems(&text),
        vec![format!("check::bad_name {}", at(&text, "decision", 0))]
    );
    let text = format!("{BASE}\n[parameters.x]\nvalue = \"1\"\n");
    assert_eq!(
        problems(&text),
        vec![format!(
            "check::duplicate_name {}",
            at(&text, "[parameters.x]", 0)
        )]
    );
}

/// `[limits]` took any value, so a rulebook could switch the budget off
/// (`max_eval_steps = 9223372036854775807`) or make every case fail (0).
/// Each limit is from 1 to its cap, refused where it is written.
#[test]
fn limits_are_capped_where_they_are_written() {
    let text = format!(
        "{BASE}\n[limits]\nmax_eval_steps = 0\nmax_list_items = 1000001\nmax_case_bytes = 67108865\n"
    );
    // Where a key's value is: `at` of the text from it to the line's end.
    let value_at = |key: &str| {
        let start = text.find(&format!("{key} = ")).expect("key") + key.len() + 3;
        let value = text[start..].lines().next().expect("value");
        let line = text[..start].matches('\n').count();
        let col = start - text[..start].rfind('\n').map_or(0, |i| i + 1);
        format!(
            "check::bad_limit {}:{}-{}:{}",
            line + 1,
            col + 1,
            line + 1,
            col + 1 + value.len()
        )
    };
    assert_eq!(
        problems(&text),
        vec![
            value_at("max_case_bytes"),
            value_at("max_list_items"),
            value_at("max_eval_steps"),
        ]
    );
    assert_eq!(
        messages(&text),
        vec![
            "`max_case_bytes` must be from 1 to 67108864, found 67108865",
            "`max_list_items` must be from 1 to 1000000, found 1000001",
            "`max_eval_steps` must be from 1 to 100000000, found 0",
        ]
    );
    let text = format!(
        "{BASE}\n[limits]\nmax_eval_steps = 100000000\nmax_list_items = 1000000\nmax_case_bytes = 67108864\n"
    );
    assert_eq!(problems(&text), Vec::<String>::new());
    let text = format!("{BASE}\n[limits]\nmax_eval_steps = 9223372036854775807\n");
    assert_eq!(
        problems(&text),
        vec![format!(
            "check::bad_limit {}",
            at(&text, "9223372036854775807", 0)
        )]
    );
}

/// The checker read dates with chrono's `%Y-%m-%d`, which takes year 0000,
/// five-digit years and unpadded fields that no case may hold: date bounds
/// and periods now go through the one calendar (`value::parse_date`).
#[test]
fn date_bounds_and_periods_keep_to_the_calendar() {
    for bad in ["0000-01-01", "2026-1-5", "+12026-01-01"] {
        let text = BASE.replace(
            "[inputs.x]",
            &format!("[inputs.on]\ntype = \"date\"\nmin = \"{bad}\"\n\n[inputs.x]"),
        );
        assert_eq!(
            problems(&text),
            vec![format!(
                "check::bad_value {}",
                at(&text, &format!("\"{bad}\""), 0)
            )],
            "{bad}"
        );
        assert_eq!(messages(&text), vec!["expected a date YYYY-MM-DD"]);
    }
    let text = BASE.replace(
        "[inputs.x]",
        "[tables.p]\nkind = \"periods\"\ncolumns = { v = { type = \"decimal\" } }\nrows = [{ name = \"a\", from = \"0000-12-31\", v = \"1\" }]\n\n[inputs.x]",
    );
    assert_eq!(
        messages(&text),
        vec!["`from` and `to` must be months (YYYY-MM) or dates (YYYY-MM-DD) of the same kind, `from` ≤ `to`"]
    );
}

/// Three problems were located at 0:0, where the file has nothing: a
/// decision without answer fields or clauses, an ablation without steps
/// whose name is no identifier, and a cycle of per-item steps under an
/// ablation. Each is now at the nearest thing written: the decision's or
/// ablation's header, or the ablation's formula.
#[test]
fn problems_about_bare_tables_point_at_their_headers() {
    let text = BASE.replace(
        "[decisions.ok.answer]\ny = { expr = \"y\", format = \"money\" }\n",
        "[decisions.ok]\nanswer = {}\n",
    );
    assert_eq!(
        problems(&text),
        vec![format!(
            "check::empty_answer {}",
            at(&text, "[decisions.ok]", 0)
        )]
    );
    let text = BASE.replace(
        "[decisions.ok.answer]\ny = { expr = \"y\", format = \"money\" }\n",
        "[decisions]\nok = { answer = {} }\n",
    );
    assert_eq!(
        problems(&text),
        vec![format!(
            "check::empty_answer {}",
            at(&text, "ok", text.matches("ok").count() - 1)
        )]
    );

    // A parameter with neither `value` nor `at` was shown at line 1.
    for body in ["label = \"no value\"", "periods = []"] {
        let text = format!("{BASE}\n[parameters.rate]\n{body}\n");
        assert_eq!(
            problems(&text),
            vec![format!(
                "check::bad_value {}",
                at(&text, "[parameters.rate]", 0)
            )]
        );
    }

    let text = format!("{BASE}\n[ablations.in]\nsteps = {{}}\n");
    assert_eq!(
        problems(&text),
        vec![format!(
            "check::bad_name {}",
            at(&text, "[ablations.in]", 0)
        )]
    );

    let text = format!(
        "{BASE}\n[inputs.lines]\ntype = \"list\"\nitems = {{ type = \"decimal\" }}\n\n[per_item.g]\nover = \"lines\"\nitem = \"line\"\n\n[per_item.g.steps.a]\nexpr = \"line\"\n\n[per_item.g.steps.b]\nexpr = \"a + 1\"\n\n[ablations.loop]\nsteps = {{ \"g.a\" = \"b\" }}\n"
    );
    // At the ablation's formula: the `b` of `"g.a" = "b"`.
    let formula = text.find("= \"b\"").expect("formula") + 3;
    let expected = at(
        &text[..formula + 1],
        "b",
        text[..formula].matches('b').count(),
    );
    assert_eq!(problems(&text), vec![format!("check::cycle {expected}")]);
}

/// A cycle is shown at the formula that closes it: a `cite` condition
/// reading its own step underlined the step's `expr`, which reads nothing
/// of the cycle; a `when` reading a later step, likewise.
#[test]
fn a_cycle_is_shown_where_it_closes() {
    let text = BASE.replace(
        "clauses = [\"A\"]\n\n[[checks]]",
        "clauses = [\"A\"]\ncite = [{ when = \"y > 2\", clauses = [\"A\"] }]\n\n[[checks]]",
    );
    assert_eq!(
        problems(&text),
        vec![format!("check::cycle {}", at(&text, "\"y > 2\"", 0))]
    );
    let text = BASE.replace(
        "expr = \"x * 2\"",
        "expr = \"x * 2\"\nwhen = \"z > 0\"\n\n[steps.z]\nexpr = \"y + 1\"",
    );
    let problems = problems(&text);
    assert_eq!(problems.len(), 1, "{problems:?}");
    let either = [at(&text, "\"z > 0\"", 0), at(&text, "\"y + 1\"", 0)];
    assert!(
        either
            .iter()
            .any(|a| problems[0] == format!("check::cycle {a}")),
        "{problems:?}"
    );
}

/// `[case] extra_keys = ["case"]` loaded, and the schema called `case` an
/// ignored key, while `eval` read `{"case": {...}}` as the envelope: the
/// case inside it was evaluated instead of the defaults.
#[test]
fn the_envelope_key_is_never_ignored() {
    let text = format!("[case]\nextra_keys = [\"id\", \"case\"]\n\n{BASE}");
    assert_eq!(
        problems(&text),
        vec![format!("check::bad_name {}", at(&text, "\"case\"", 0))]
    );
}

/// A clause listed twice was kept twice: the trace, the page and the
/// receipt cited it twice (a citation's clauses are added without
/// duplicates, the list itself was not).
#[test]
fn a_clause_listed_twice_is_refused_where_it_is_listed_again() {
    for (from, to) in [
        ("clauses = [\"A\"]", "clauses = [\"A\", \"A\"]"),
        (
            "decision = \"ok\"",
            "decision = \"ok\"\nclauses = [\"A\", \"A\"]",
        ),
        (
            "clauses = [\"A\"]",
            "clauses = [\"A\"]\ncite = [{ when = \"x > 0\", clauses = [\"A\", \"A\"] }]",
        ),
    ] {
        let text = BASE.replacen(from, to, 1);
        let list = text.find("\"A\", \"A\"").expect("the list");
        let second = text[..list].matches("\"A\"").count() + 1;
        let want = format!("check::duplicate_clause {}", at(&text, "\"A\"", second));
        assert_eq!(problems(&text), vec![want], "{to}");
        let msgs = messages(&text);
        assert!(msgs[0].contains("clause `A` is listed twice"), "{msgs:?}");
    }
    // The same clause in a step's list and in its citation's is no
    // duplicate: the citation says when it applies again.
    let text = BASE.replace(
        "clauses = [\"A\"]",
        "clauses = [\"A\"]\ncite = [{ when = \"x > 0\", clauses = [\"A\"] }]",
    );
    assert_eq!(problems(&text), Vec::<String>::new());
}

#[test]
fn a_steps_citations_are_checked_like_a_decisions() {
    // The condition must be a boolean, its names known, its clauses declared.
    let text = BASE.replace(
        "clauses = [\"A\"]",
        "clauses = [\"A\"]\ncite = [{ when = \"x\", clauses = [\"A\"] }, { when = \"xx > 0\", clauses = [\"B\"] }]",
    );
    assert_eq!(
        problems(&text),
        vec![
            format!("check::type_mismatch {}", at(&text, "\"x\"", 0)),
            format!("check::unknown_name {}", at(&text, "xx", 0)),
            format!("check::unknown_clause {}", at(&text, "\"B\"", 0)),
        ]
    );
    let msgs = messages(&text);
    assert!(
        msgs[0].contains("a citation's `when` must be a boolean, found a number"),
        "{msgs:?}"
    );
}

#[test]
fn a_steps_citations_count_in_its_cycles() {
    // A citation reads what it names: `y`'s reads `z`, which reads `y`.
    let text = BASE.replace(
        "clauses = [\"A\"]",
        "clauses = [\"A\"]\ncite = [{ when = \"z > 0\", clauses = [\"A\"] }]\n\n[steps.z]\nexpr = \"y + 1\"",
    );
    let msgs = messages(&text);
    assert_eq!(msgs.len(), 1, "{msgs:?}");
    assert!(msgs[0].contains("y → z → y"), "{}", msgs[0]);
    // A citation may not read its own step (its value is being computed).
    let own = BASE.replace(
        "clauses = [\"A\"]",
        "clauses = [\"A\"]\ncite = [{ when = \"y > 0\", clauses = [\"A\"] }]",
    );
    let msgs = messages(&own);
    assert_eq!(msgs.len(), 1, "{msgs:?}");
    assert!(msgs[0].contains("y → y"), "{}", msgs[0]);
}

#[test]
fn an_ablation_may_not_make_a_cycle_through_a_citation() {
    // `y` cites a clause when `a` is positive; replacing `a` by `y` closes
    // the loop through the citation alone. Without it, the ablation applies.
    let text = BASE.replace(
        "[steps.y]\nexpr = \"x * 2\"\nclauses = [\"A\"]",
        "[steps.a]\nexpr = \"x\"\n\n[steps.y]\nexpr = \"x * 2\"\nclauses = [\"A\"]\ncite = [{ when = \"a > 0\", clauses = [\"A\"] }]",
    );
    assert_eq!(problems(&text), Vec::<String>::new());
    let looped = text.clone() + "\n[ablations.loop]\nsteps = { a = \"y\" }\n";
    let msgs = messages(&looped);
    assert_eq!(msgs, vec!["steps depend on each other in a cycle: a (ablation loop) → y (ablation loop) → a (ablation loop)"]);
    let fine = text + "\n[ablations.zero]\nsteps = { a = \"x - x\" }\n";
    let rb = parse_rulebook("demo.toml", &fine).expect("valid");
    let ablated = rb.ablated("zero").expect("applies");
    let case = serde_json::json!({"x": "5"});
    let (_, trace) = bareme::evaluate_value(&ablated, &case, true).expect("evaluates");
    let text = bareme::render_text(&trace.expect("traced"));
    assert!(text.contains("citation: a > 0 → does not cite A"), "{text}");
}

#[test]
fn a_per_item_steps_citations_are_checked_and_count_in_its_cycles() {
    let group = "[inputs.items]\ntype = \"list\"\nitems = { type = \"record\", fields = { q = { type = \"integer\" } } }\n\n[per_item.rows]\nover = \"items\"\nitem = \"it\"\n\n[per_item.rows.steps.a]\nexpr = \"it.q\"\ncite = [{ when = \"b > 0\", clauses = [\"A\"] }]\n\n[per_item.rows.steps.b]\nexpr = \"a * 2\"\n\n[steps.y]\nexpr = \"x * sum(rows.a)\"";
    // `a` cites when `b` is positive, and `b` reads `a`: a cycle through the citation.
    let text = BASE.replace("[steps.y]\nexpr = \"x * 2\"", group);
    assert_eq!(
        messages(&text),
        vec!["per-item steps depend on each other in a cycle: rows.a → rows.b → rows.a"]
    );
    // Reading the item is fine; an unknown field and an unknown clause are located.
    let text = BASE.replace(
        "[steps.y]\nexpr = \"x * 2\"",
        &group.replace(
            "\"b > 0\", clauses = [\"A\"]",
            "\"it.qq > 0\", clauses = [\"Z\"]",
        ),
    );
    let found = problems(&text);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("check::unknown_field"), "{found:?}");
    assert_eq!(
        found[1],
        format!("check::unknown_clause {}", at(&text, "\"Z\"", 0))
    );
    assert_eq!(
        problems(&BASE.replace(
            "[steps.y]\nexpr = \"x * 2\"",
            &group.replace("\"b > 0\"", "\"it.q > 0\"")
        )),
        Vec::<String>::new()
    );
}

#[test]
fn a_rounding_point_written_with_a_computed_place_or_mode_is_located() {
    let text = BASE.replace(
        r#"expr = "x * 2""#,
        r#"expr = "round(x, x + 0, half_up) + round(x, 2, sideways)""#,
    );
    assert_eq!(
        messages(&text),
        [
            "the places of `round` must be a whole number from 0 to 28, written as is",
            "the mode of `round` must be one of half_up, half_down, half_even, half_ceiling, half_floor, down, up, floor, ceiling",
        ]
    );
    assert_eq!(
        problems(&text),
        [
            format!("check::rounding {}", at(&text, "x + 0", 0)),
            format!("check::rounding {}", at(&text, "sideways", 0)),
        ]
    );
}

/// toml gives no words for a control character in a comment: the
/// diagnostic was a bare `×` (hostile probe). It names the character.
#[test]
fn a_control_character_in_a_comment_is_named() {
    let text = format!("{BASE}# a note\u{0}\n");
    assert_eq!(
        messages(&text),
        ["the control character U+0000 is not allowed here (TOML allows only tab in text and comments)"]
    );
    assert_eq!(
        problems(&text),
        [format!("load::toml {}", at(&text, "\u{0}", 0))]
    );
}

/// A per-item step's ablation written as a dotted key (`steps.g.a = …`)
/// is a table where a formula is read: toml's span protocol said
/// "invalid type: string \"a\", expected a borrowed string".
#[test]
fn a_table_where_text_is_read_says_how_to_quote_a_dotted_name() {
    let text = format!("{BASE}\n[ablations.twice]\nsteps.y.tax = \"x * 3\"\n");
    assert_eq!(
        messages(&text),
        ["a table (with the key `tax`) is written where text is expected: a dotted key such as `a.tax = …` makes tables, so a name that holds a dot is quoted (`\"group.step\" = …`)"]
    );
    assert_eq!(
        problems(&text),
        [format!("load::toml {}", at(&text, "tax", 0))]
    );
}
