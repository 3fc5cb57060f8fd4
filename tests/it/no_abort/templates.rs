//! A generator's templates cannot abort the process or run unbounded:
//! doubling strings and lists, folded constants, namespaces, long walks,
//! operator chains, slices, numbers out of range.

use super::*;

/// Item 4: fuel bounds instructions, not bytes; forty doublings asked for
/// a terabyte and aborted. Every road to a doubling is now sized first.
#[test]
fn a_template_that_doubles_a_string_forty_times_is_stopped() {
    let budget = "the template builds more than 8388608 bytes of text";
    for task in [
        // Through a namespace, in a loop.
        r#"{% set ns = namespace(s="x") %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s|length }}"#,
        // Through a macro's argument.
        r#"{% macro d(s, n) %}{% if n > 0 %}{{ d(s ~ s, n - 1) }}{% else %}{{ s|length }}{% endif %}{% endmacro %}{{ d("x", 40) }}"#,
        // In straight lines, with `+`.
        &format!(
            "{{% set s = 'x' %}}{}{{{{ s|length }}}}",
            "{% set s = s + s %}".repeat(40)
        ),
        // A filter that squares its text.
        r#"{% set s = "x" * 1000 %}{% set s = s|replace("", s) %}{% set s = s|replace("", s) %}{{ s|length }}"#,
        // A list of a hundred thousand long texts joined.
        r#"{% set s = "x" * 100000 %}{{ ([s] * 50)|join|length }}{{ ([s] * 100000)|join|length }}"#,
        // Lists doubled, then made whole.
        r#"{% set ns = namespace(l=[1]) %}{% for i in range(60) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l|list|length }}"#,
    ] {
        let message = first_task_error(&sales_generator(task));
        assert!(
            message.contains(budget) || message.contains("more than 1000000 items"),
            "{task}: {message}"
        );
    }
}

#[test]
fn a_doubling_template_fails_generate_and_diff_sample_cleanly() {
    let task = r#"{% set ns = namespace(s="x") %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}"#;
    let dir = tempdir("doubling");
    let g = dir.join("generator-1.toml");
    std::fs::write(&g, sales_generator(task)).expect("write the generator");
    sales_rubric_beside(&g);
    // `diff --sample` reads the rulebook beside the generator.
    std::fs::create_dir_all(dir.join("v1")).expect("a version folder");
    std::fs::copy(
        crate::root().join(SALES_RB).join("rulebook.toml"),
        dir.join("v1").join("rulebook.toml"),
    )
    .expect("the rulebook copied");
    let o = bareme(
        &["generate", arg(&g), "--rulebook", SALES_RB, "-n", "2"],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // The generator file is named first: a template's failure on its
    // draws is the file's (it was named only when it failed to load).
    assert!(
        stderr(&o).starts_with(&format!(
            "error: {}: task 0: template `task`: invalid operation: the template builds more than 8388608 bytes of text",
            g.display()
        )),
        "{}",
        stderr(&o)
    );
    let o = bareme(
        &[
            "diff",
            SALES_RB,
            SALES_RB,
            "--sample",
            "2",
            "--generator",
            arg(&g),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("8388608 bytes"), "{}", stderr(&o));
}

/// The compiler folds expressions of literals before any operator runs:
/// those are sized at load, where the template is refused, located.
#[test]
fn a_constant_the_compiler_would_fold_too_large_is_refused_at_load() {
    for (task, at) in [
        (r#"{{ ("x" * 99999999)|length }}"#, "line 1, column 4"),
        // A repetition whose count overflowed minijinja's own (a panic).
        (
            "{{ ([1, 2] * 10000000000000000000)|list|length }}",
            "line 1, column 4",
        ),
        (
            "x\n{{ ([1] * 1000000000000)|list|length }}",
            "line 2, column 4",
        ),
    ] {
        let message = first_task_error(&sales_generator(task));
        assert_eq!(
            message,
            format!("template `task`: invalid operation: the constant expression at {at} builds more than 8388608 bytes or 1000000 items when compiled"),
            "{task}"
        );
    }
}

/// What the templates may not reach: other templates, the whole state,
/// filters whose size an argument alone sets; and a percentage past the
/// decimal range is an error, not a panic.
#[test]
fn a_template_reaches_neither_other_templates_nor_unbounded_filters() {
    for (task, expected) in [
        (r#"{% include "task" %}"#, "template not found"),
        ("{{ debug() }}", "debug is unknown"),
        (
            r#"{{ "x"|indent(100000000000) }}"#,
            "filter indent is unknown",
        ),
        (
            r#"{{ "79228162514264337593543950335"|percent }}"#,
            "`79228162514264337593543950335` × 100 leaves the decimal range",
        ),
        // An amount is written as a case writes one, or refused.
        (r#"{{ "1_000"|money }}"#, "`1_000` is not an amount"),
        (r#"{{ "+5"|amount }}"#, "`+5` is not an amount"),
        (r#"{{ "5."|percent }}"#, "`5.` is not an amount"),
    ] {
        let message = first_task_error(&sales_generator(task));
        assert!(message.contains(expected), "{task}: {message}");
    }
}

/// A list or map built of one value twice, forty times over, is small to
/// build and 2^40 steps to walk: comparing two of them ran for hours (fuel
/// counts a comparison as one instruction). Each literal, `dict` and
/// `namespace` is now sized as it is built.
#[test]
fn a_template_that_doubles_a_shared_list_forty_times_is_stopped() {
    let budget = "the template builds more than 8388608 bytes of text";
    for build in [
        "[ns.a, ns.a]",
        "{'l': ns.a, 'r': ns.a}",
        "dict(l=ns.a, r=ns.a)",
        "(ns.a, ns.a)",
    ] {
        let task = format!(
            "{{% set ns = namespace(a=[1], b=[1]) %}}{{% for i in range(40) %}}{{% set ns.a = {build} %}}{{% set ns.b = {b} %}}{{% endfor %}}{{{{ ns.a == ns.b }}}}",
            b = build.replace("ns.a", "ns.b")
        );
        let message = first_task_error(&sales_generator(&task));
        assert!(message.contains(budget), "{task}: {message}");
    }
    // In straight lines, through namespaces made of one another.
    let task = format!(
        "{{% set a = namespace(x=1) %}}{}{{{{ a == a }}}}",
        "{% set a = namespace(l=a, r=a) %}".repeat(40)
    );
    let message = first_task_error(&sales_generator(&task));
    assert!(message.contains(budget), "{message}");
}

/// A namespace given itself sent the next write or comparison of it round
/// forever: the process overflowed its stack and aborted.
#[test]
fn a_namespace_cannot_come_to_hold_itself() {
    let refused = "a namespace cannot hold a namespace, nor a list or map that holds one";
    for task in [
        "{% set ns = namespace() %}{% set ns.me = ns %}{{ ns }}",
        "{% set ns = namespace() %}{% set ns.me = [1, {'k': ns}] %}{{ ns == ns }}",
        "{% set ns = namespace() %}{% set m = namespace(ns=ns) %}{% set ns.m = m %}{{ ns }}",
        "{% set ns = namespace(n=0) %}{% for i in range(3) %}{% set a, ns.x = (1, ns) %}{% endfor %}{{ ns }}",
    ] {
        let message = first_task_error(&sales_generator(task));
        assert!(message.contains(refused), "{task}: {message}");
    }
}

/// Fuel counts a comparison, a lookup or a filter as one instruction: a
/// loop comparing two lists of 200,000 items ran for minutes. What each
/// walks is counted against a budget of its own.
#[test]
fn a_template_that_walks_large_values_in_a_loop_is_stopped() {
    let budget = "the template walks more than 33554432 bytes of values";
    // Not folded by the compiler: built when the template runs.
    let big = "(range(2)|length * 100000)";
    for walk in [
        "s == t",
        "s < t",
        "s in t",
        "s <= t <= s",
        "t is eq(s)",
        "lt|select('eq', s)|list",
        "s|min",
        "m[s]",
        "l == l",
    ] {
        let task = format!(
            "{{% set s = 'x' * {big} %}}{{% set t = 'y' * {big} %}}{{% set m = {{s: 1}} %}}{{% set lt = [t] %}}{{% set l = ['x'] * (range(2)|length * 10000) %}}{{% for i in range(100000) %}}{{% if {walk} %}}{{% endif %}}{{% endfor %}}"
        );
        let message = first_task_error(&sales_generator(&task));
        assert!(message.contains(budget), "{walk}: {message}");
    }
}

/// minijinja reads `1 + 1 + …` or `x.a.b…` without recursion, then
/// compiles and drops the tree by recursion: 35,000 links in one tag
/// overflowed the stack and aborted the load (exit 134). A tag holds at
/// most 2,000 tokens, refused at load wherever it is written.
#[test]
fn a_chain_of_forty_thousand_operators_is_refused_not_an_abort() {
    for chain in [
        format!("{{{{ {}1 }}}}", "1 + ".repeat(40_000)),
        format!(
            "{{% if false %}}{{{{ {}1 }}}}{{% endif %}}",
            "- ".repeat(40_000)
        ),
        format!("x\n{{{{ case{} }}}}", ".x".repeat(40_000)),
    ] {
        let message = first_task_error(&sales_generator(&chain));
        assert!(
            message.contains("holds more than 2000 tokens: split the expression with `set`"),
            "{message}"
        );
    }
    let message = first_task_error(&sales_generator(&format!(
        "x\n{{{{ case{} }}}}",
        ".x".repeat(40_000)
    )));
    assert!(message.contains("the tag on line 2"), "{message}");
}

/// A slice copies what it slices, and `|int`, `|length`, `is lower` or an
/// index read a text through: none was counted, and a loop of them over an
/// 8 MB text ran for minutes or took gigabytes.
#[test]
fn slices_and_what_reads_a_text_through_are_counted() {
    let big = "(range(2)|length * 100000)";
    let loop_of = |body: &str| {
        format!(
            "{{% set s = 'x' * {big} %}}{{% set z = '0' * {big} %}}{{% for i in range(30000) %}}{body}{{% endfor %}}"
        )
    };
    let message = first_task_error(&sales_generator(&loop_of("{% set t = s[1:] %}")));
    assert!(
        message.contains("the template builds more than 8388608 bytes of text"),
        "{message}"
    );
    for walk in [
        "{% if z|int %}{% endif %}",
        "{% if z|float %}{% endif %}",
        "{% if s|length %}{% endif %}",
        "{% if s is lower %}{% endif %}",
        "{% if s[-1] %}{% endif %}",
    ] {
        let message = first_task_error(&sales_generator(&loop_of(walk)));
        assert!(
            message.contains("the template walks more than 33554432 bytes of values"),
            "{walk}: {message}"
        );
    }
    // A list's length is kept, not counted through: a loop reading a
    // 100,000-item list's length renders.
    let text = sales_generator(
        "{% set l = range(100000)|list %}{% set ns = namespace(n=0) %}{% for i in range(2000) %}{% set ns.n = ns.n + l|length %}{% endfor %}{{ ns.n }} {{ l|count }}",
    );
    assert_eq!(first_prompt(&text), "200000000 100000");
}

/// The operators still compute what minijinja computes.
#[test]
fn guarded_operators_give_minijinja_s_values() {
    let task = r#"{% set ns = namespace(n=0) %}{% for i in range(10) %}{% set ns.n = ns.n + 1.5 %}{% endfor %}{{ ns.n }} {{ [1, 2] + [3] }} {{ "ab" * 3 }} {{ 2 * 3 }} {{ "a" ~ 1 }} {{ (["k"] * 2)|join("-") }} {% set x = 1 %}{{ [x, 2] }} {{ {"b": x, "a": [x]} }} {{ {"k": 1, "k": x + 1} }} {{ dict(a=x) }} {% set ns.l = [] %}{% for i in range(3) %}{% set ns.l = ns.l + [i, {"i": i}] %}{% endfor %}{{ ns.l }} {% for a, b in [(x, 2), (3, x)] if a > 1 %}{{ a ~ b }}{% endfor %} {% set p, ns.q = [x, [x]] %}{{ p }}{{ ns.q }} {{ x == 1 }}{{ x != 1 }}{{ x < 2 }}{{ 1 < x < 2 }}{{ x in [1] }}{{ "a" not in "b" }}{{ {"k": x}["k"] }}{{ x is eq(1) }}{{ [3, 1]|sort|join }}"#;
    let rb = crate::rulebook(SALES_RB);
    let g = parse_generator("g.toml", &sales_generator(task), &rb).expect("loads");
    let engine = TaskDrawer::new(&g, &rb).expect("an engine");
    let drawn = engine.task(2026, 0, None).expect("a task");
    assert_eq!(
        drawn.task.prompt.as_deref(),
        Some(
            r#"15.0 [1, 2, 3] ababab 6 a1 k-k [1, 2] {"b": 1, "a": [1]} {"k": 2} {"a": 1} [0, {"i": 0}, 1, {"i": 1}, 2, {"i": 2}] 31 1[1] TrueFalseTrueFalseTrueTrue1True13"#
        )
    );
}

/// A number past a float's range printed `inf` or `nan` into a prompt, and
/// `|int` clamped `1e40` to i128's largest and `nan` to 0, all without a
/// word: each is now a template error naming what it met.
#[test]
fn a_template_number_out_of_range_is_an_error_not_inf_in_the_prompt() {
    // Not folded by the compiler: computed when the template runs.
    let one = "(range(2)|length - 1)";
    for (task, expected) in [
        (
            format!("{{{{ {one} / 0 }}}}"),
            "a number out of range (`inf`)",
        ),
        (
            format!("{{{{ -{one} / 0 }}}}"),
            "a number out of range (`-inf`)",
        ),
        (
            format!("{{{{ 'x' ~ ({one} / 0) }}}}"),
            "a number out of range (`inf`)",
        ),
        (
            format!("{{{{ ({one} * 1e308) * 10 }}}}"),
            "a number out of range (`inf`)",
        ),
        (
            format!("{{{{ [{one} / 0]|join(',') }}}}"),
            "a number out of range (`[inf]`)",
        ),
        (
            format!("{{{{ ({one} / 0)|string }}}}"),
            "a number out of range (`inf`)",
        ),
        (
            format!("{{{{ ({one} * 1e40)|int }}}}"),
            "has no integer value (`int`)",
        ),
        (
            format!("{{{{ ({one} / 0)|int }}}}"),
            "`inf` has no integer value",
        ),
        ("{{ 'nan'|int }}".to_string(), "`nan` has no integer value"),
        (
            "{{ '1e39'|int }}".to_string(),
            "`1e39` has no integer value",
        ),
    ] {
        let message = first_task_error(&sales_generator(&task));
        assert!(message.contains(expected), "{task}: {message}");
    }
    // Within range, as minijinja has them.
    let text = sales_generator(&format!(
        "{{{{ ({one} * 1e30)|int }}}} {{{{ '12'|int }}}} {{{{ '2.9'|int }}}} {{{{ {one} / 4 }}}}"
    ));
    assert_eq!(
        first_prompt(&text),
        "1000000000000000019884624838656 12 2 0.25"
    );
}
