//! Regressions of issue 24: no abort from a generator, a sweep or an
//! argument, and no file lost to a run that fails. Each test failed (an
//! abort, a panic, a quiet short run or a clobbered file) before its fix.

use std::path::{Path, PathBuf};

use bareme::unstable::generate::{parse_generator, run, RunError, RunOptions, TaskDrawer};
use bareme::unstable::sweep::Vary;

use super::cli::{bareme, stderr, tempdir};

const SALES_GEN: &str = "rulebooks/sales-tax/generator-1.toml";
const SALES_RB: &str = "rulebooks/sales-tax/v1";
const LUMA: &str = "rulebooks/luma-payroll/v3";
const PAYSLIP: &str = "examples/luma-payroll/payslip.json";

/// The bundled sales-tax generator with `task` as its task template.
fn sales_generator(task: &str) -> String {
    let text = std::fs::read_to_string(super::root().join(SALES_GEN)).expect("bundled generator");
    let head = text.split("[prompt]").next().expect("a prompt section");
    format!("{head}[prompt]\ntask = '''{task}'''\n")
}

/// The bundled sales-tax rubric the generator names, beside `generator`.
fn sales_rubric_beside(generator: &Path) {
    let rubric = super::root().join("rulebooks/sales-tax/rubric-1.toml");
    let beside = generator.with_file_name("rubric-1.toml");
    std::fs::copy(rubric, beside).expect("the rubric copied");
}

/// `text` written to a file of its own in a folder of this test.
fn file(test: &str, name: &str, text: &str) -> PathBuf {
    let path = tempdir(test).join(name);
    std::fs::write(&path, text).expect("write a test file");
    path
}

fn arg(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// The message of the first task's failure, or of the load's first problem.
fn first_task_error(generator: &str) -> String {
    let rb = super::rulebook(SALES_RB);
    let g = match parse_generator("g.toml", generator, &rb) {
        Ok(g) => g,
        Err(d) => return d.problems[0].message.clone(),
    };
    let engine = TaskDrawer::new(&g, &rb).expect("an engine");
    match engine.task(2026, 0, None) {
        Ok(_) => panic!("the template renders"),
        Err(e) => e.message,
    }
}

/// The first task's prompt.
fn first_prompt(generator: &str) -> String {
    let rb = super::rulebook(SALES_RB);
    let g = parse_generator("g.toml", generator, &rb).expect("the generator loads");
    let engine = TaskDrawer::new(&g, &rb).expect("an engine");
    let drawn = engine.task(2026, 0, None).expect("the template renders");
    let prompt = drawn.task.prompt.expect("a prompt");
    prompt.trim_end().to_string()
}

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
        super::root().join(SALES_RB).join("rulebook.toml"),
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

/// Each evaluation is bounded by the rulebook's `max_eval_steps`, and a
/// task's evaluations by `max_evaluations`, but not what they cost
/// together: an `accept` formula of millions of steps that never held ran
/// each of 100,000 draws to the end of its budget (hours a task). The units
/// a task's draws spend are counted across them (`max_steps`).
#[test]
fn a_costly_accept_formula_that_never_holds_spends_the_task_s_steps() {
    let lines = "cart.lines";
    let accept = format!(
        "sum([sum([sum([sum([sum([1 for e in {lines}]) for d in {lines}]) for c in {lines}]) for b in {lines}]) for a in {lines}]) < 0"
    );
    let text = sales_generator("x")
        .replace(
            "max_redraws = 400",
            "max_redraws = 100000\nmax_evaluations = 1000000\nmax_steps = 5000000",
        )
        .replace(
            "[profiles.base]\nweight = 0\n",
            &format!("[profiles.base]\nweight = 0\naccept = [\"{accept}\"]\n"),
        );
    assert!(text.contains("accept = ["), "the profile takes the formula");
    let message = first_task_error(&text);
    assert!(
        message
            .contains("its draws spent the 5000000 steps of evaluation and rendering a task may (`max_steps`)"),
        "{message}"
    );
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

/// Each rendering has its fuel and budgets, but a prompt the leak check
/// refuses is rendered again at every redraw: a costly one, with 100,000
/// redraws, ran for minutes a task. Renderings count towards `max_steps`.
#[test]
fn a_costly_prompt_refused_at_every_draw_spends_the_task_s_steps() {
    // Each line's net written out: a computed amount the leak check refuses.
    let task = "{% for i in range(40000) %}{% endfor %}{% for l in case.cart.lines %}{% set p = case.products[l.product_id] %}net {{ (p.unit_price|float * l.quantity)|money }}\n{% endfor %}";
    let text = sales_generator(task).replace(
        "max_redraws = 400",
        "max_redraws = 100000\nmax_steps = 2000000",
    );
    let message = first_task_error(&text);
    assert!(
        message.contains("its draws spent the 2000000 steps of evaluation and rendering a task may (`max_steps`)"),
        "{message}"
    );
}

/// The operators still compute what minijinja computes.
#[test]
fn guarded_operators_give_minijinja_s_values() {
    let task = r#"{% set ns = namespace(n=0) %}{% for i in range(10) %}{% set ns.n = ns.n + 1.5 %}{% endfor %}{{ ns.n }} {{ [1, 2] + [3] }} {{ "ab" * 3 }} {{ 2 * 3 }} {{ "a" ~ 1 }} {{ (["k"] * 2)|join("-") }} {% set x = 1 %}{{ [x, 2] }} {{ {"b": x, "a": [x]} }} {{ {"k": 1, "k": x + 1} }} {{ dict(a=x) }} {% set ns.l = [] %}{% for i in range(3) %}{% set ns.l = ns.l + [i, {"i": i}] %}{% endfor %}{{ ns.l }} {% for a, b in [(x, 2), (3, x)] if a > 1 %}{{ a ~ b }}{% endfor %} {% set p, ns.q = [x, [x]] %}{{ p }}{{ ns.q }} {{ x == 1 }}{{ x != 1 }}{{ x < 2 }}{{ 1 < x < 2 }}{{ x in [1] }}{{ "a" not in "b" }}{{ {"k": x}["k"] }}{{ x is eq(1) }}{{ [3, 1]|sort|join }}"#;
    let rb = super::rulebook(SALES_RB);
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

/// Item 5: a sweep's range past the decimal range panicked (exit 101).
#[test]
fn a_sweep_range_past_the_decimal_range_is_a_usage_error() {
    let err = "x=0..79228162514264337593543950335:1"
        .parse::<Vary>()
        .expect_err("too many values");
    assert_eq!(err.code(), "sweep::too_wide");
    assert_eq!(
        err.to_string(),
        "the range 0..79228162514264337593543950335 by 1 holds more than 100000 values: a sweep evaluates at most 100000; widen the step"
    );
    let err = "x=-79228162514264337593543950335..79228162514264337593543950335:0.5"
        .parse::<Vary>()
        .expect_err("too wide");
    assert!(
        err.to_string().contains("holds more than 100000 values"),
        "{err}"
    );
    let o = bareme(
        &[
            "sweep",
            LUMA,
            PAYSLIP,
            "--vary",
            "gross_pay=0..79228162514264337593543950335:1",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("holds more than 100000 values"),
        "{}",
        stderr(&o)
    );
}

/// Item 5: a generator's decimal draw whose grid leaves the decimal range
/// panicked in the division; it is now a redraw, and the task fails naming it.
#[test]
fn a_decimal_draw_past_the_decimal_range_fails_the_task_not_the_process() {
    let rb = bareme::parse_rulebook(
        "wide.toml",
        r#"[rulebook]
id = "wide"
version = 1
schema = 1

[inputs.x]
type = "decimal"
required = true

[steps.y]
expr = "x"

[[checks]]
decision = "ok"

[decisions.ok.answer]
y = { expr = "y", format = "decimal" }
"#,
    )
    .expect("the rulebook loads");
    let generator = r#"[generator]
number = 1
rulebook = "wide@1"
rubric = 1
max_redraws = 3

[profiles.p.case]
x = { decimal = ["-79228162514264337593543950335", "79228162514264337593543950335"], step = "0.01" }

[prompt]
task = "x"
"#;
    let g = parse_generator("g.toml", generator, &rb).expect("the generator loads");
    let engine = TaskDrawer::new(&g, &rb).expect("an engine");
    let err = engine.task(1, 0, None).expect_err("no grid");
    assert!(
        err.message
            .contains("-79228162514264337593543950335..79228162514264337593543950335 by 0.01 leaves the decimal range"),
        "{}",
        err.message
    );
}

/// Item 6: `--jobs 100000` spent a minute starting threads, and could abort.
#[test]
fn jobs_past_the_bound_are_a_usage_error() {
    for jobs in ["100000", "257", "0"] {
        let o = bareme(
            &[
                "eval",
                LUMA,
                "--batch",
                "examples/luma-payroll/batch.jsonl",
                "--jobs",
                jobs,
            ],
            None,
        );
        assert_eq!(o.status.code(), Some(2), "--jobs {jobs}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("a number of worker threads from 1 to 256"),
            "{}",
            stderr(&o)
        );
    }
    let o = bareme(
        &[
            "eval",
            LUMA,
            "--batch",
            "examples/luma-payroll/batch.jsonl",
            "--jobs",
            "256",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let help = super::cli::stdout(&bareme(&["generate", "--help"], None));
    assert!(help.contains("Worker threads, 1 to 256"), "{help}");
}

/// Item 11 (a): a range of indices past `u64::MAX` quietly wrote fewer tasks.
#[test]
fn a_range_of_indices_past_the_last_is_refused() {
    let rb = super::rulebook(SALES_RB);
    let text = std::fs::read_to_string(super::root().join(SALES_GEN)).expect("bundled");
    let g = parse_generator(SALES_GEN, &text, &rb).expect("loads");
    let engine = TaskDrawer::new(&g, &rb).expect("an engine");
    let options = RunOptions {
        seed: 1,
        start: u64::MAX - 1,
        count: 3,
        level: None,
        jobs: 1,
    };
    let mut out = Vec::new();
    match run(&engine, options, &mut out, &|_| {}) {
        Err(RunError::Range { start, count }) => assert_eq!((start, count), (u64::MAX - 1, 3)),
        other => panic!("{other:?}"),
    }
    assert!(out.is_empty());
    let o = bareme(
        &[
            "generate",
            SALES_GEN,
            "--start",
            "18446744073709551614",
            "-n",
            "3",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "--start 18446744073709551614 and -n 3 go past the last index a run may draw, 99999999"
        ),
        "{}",
        stderr(&o)
    );
    assert!(o.stdout.is_empty());
}

/// Item 11 (b): a text read through a pattern and drawn by `expr` was
/// refused with the debug form of a type (`Record(0)`).
#[test]
fn a_pattern_text_drawn_by_an_expression_is_refused_by_name() {
    let rb = bareme::parse_rulebook(
        "coded.toml",
        r#"[rulebook]
id = "coded"
version = 1
schema = 1

[inputs.code]
type = "text"
required = true
pattern = '^(?P<region>[KS])(?P<n>[0-9]{3})$'
fields = { region = { type = "enum", values = ["K", "S"] }, n = { type = "integer" } }

[steps.n]
expr = "code.n"

[[checks]]
decision = "ok"

[decisions.ok.answer]
n = { expr = "n", format = "integer" }
"#,
    )
    .expect("the rulebook loads");
    let generator = "[generator]\nnumber = 1\nrulebook = \"coded@1\"\nrubric = 1\n\n[profiles.p.case]\ncode = { expr = \"'K123'\" }\n\n[prompt]\ntask = \"x\"\n";
    let problems: Vec<String> = match parse_generator("g.toml", generator, &rb) {
        Ok(_) => panic!("an expression's text cannot be checked against the pattern at load"),
        Err(d) => d.problems.iter().map(|p| p.message.clone()).collect(),
    };
    assert_eq!(
        problems,
        ["`code` is a text read through its pattern `^(?P<region>[KS])(?P<n>[0-9]{3})$` in coded@1: draw it with `value`, `choice` or `text`, whose texts are checked against the pattern when the generator loads, not with `expr`"]
    );
}

/// No temporary file is left beside `path`.
fn no_leftovers(path: &Path) {
    let dir = path.parent().expect("a folder");
    let left: Vec<String> = std::fs::read_dir(dir)
        .expect("the folder")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Item 11 (c): `generate --out` truncated the file before a run that then
/// failed; a failed run now leaves it as it was.
#[test]
fn a_failed_run_leaves_its_output_files_as_they_were() {
    let task = r#"{% set ns = namespace(s="x") %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}"#;
    let g = file("keep", "generator-1.toml", &sales_generator(task));
    sales_rubric_beside(&g);
    let out = file("keep", "tasks.jsonl", "the old tasks\n");
    let manifest = file("keep", "manifest.json", "the old manifest\n");
    let o = bareme(
        &[
            "generate",
            arg(&g),
            "--rulebook",
            SALES_RB,
            "-n",
            "3",
            "--out",
            arg(&out),
            "--manifest",
            arg(&manifest),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&out).expect("kept"),
        "the old tasks\n"
    );
    assert_eq!(
        std::fs::read_to_string(&manifest).expect("kept"),
        "the old manifest\n"
    );
    no_leftovers(&out);
    // A range refused: the same.
    let o = bareme(
        &[
            "generate",
            SALES_GEN,
            "--start",
            "18446744073709551614",
            "-n",
            "3",
            "--out",
            arg(&out),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&out).expect("kept"),
        "the old tasks\n"
    );
    // A run that succeeds replaces both, whole.
    let o = bareme(
        &[
            "generate",
            SALES_GEN,
            "-n",
            "2",
            "--out",
            arg(&out),
            "--manifest",
            arg(&manifest),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&out)
            .expect("written")
            .lines()
            .count(),
        2
    );
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).expect("written")).expect("JSON");
    assert_eq!(m["tasks"], 2);
    no_leftovers(&out);
}

/// Item 11 (c): `sweep --plot` onto the case's own path overwrote the case;
/// an output naming an input of the same run is refused, the input kept.
#[test]
fn an_output_naming_an_input_of_the_run_is_refused() {
    let case_text = std::fs::read_to_string(super::root().join(PAYSLIP)).expect("the example");
    let case = file("clobber", "payslip.json", &case_text);
    let o = bareme(
        &[
            "sweep",
            LUMA,
            arg(&case),
            "--vary",
            "gross_pay=1000..1002:1",
            "--plot",
            arg(&case),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("--plot {} names", case.display())),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read_to_string(&case).expect("kept"), case_text);

    let generator_text = std::fs::read_to_string(super::root().join(SALES_GEN)).expect("bundled");
    let g = file("clobber", "generator-1.toml", &generator_text);
    for args in [
        vec!["--out", arg(&g)],
        vec!["--manifest", arg(&g)],
        vec!["--out", "same.jsonl", "--manifest", "same.jsonl"],
    ] {
        let mut all = vec!["generate", arg(&g), "--rulebook", SALES_RB, "-n", "1"];
        all.extend(args.iter().copied());
        let o = bareme(&all, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("an input of this run")
                || stderr(&o).contains("give each its own file"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    assert_eq!(std::fs::read_to_string(&g).expect("kept"), generator_text);
    let rulebook = super::root().join(LUMA).join("rulebook.toml");
    let o = bareme(&["compile", LUMA, "-o", arg(&rulebook)], None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("an input of this run"),
        "{}",
        stderr(&o)
    );
}

/// Item 7: `ablations --subsets K` built every combination's copy of the
/// rulebook up front: 4,095 copies of a rulebook holding a 400 KB clause
/// need 1.6 GB, and aborted under a 1 GB limit. A copy now lives only while
/// its combination is evaluated.
#[cfg(target_os = "linux")]
#[test]
fn every_combination_of_twelve_ablations_fits_in_bounded_memory() {
    let mut text = format!(
        "[rulebook]\nid = \"many\"\nversion = 1\nschema = 1\n\n[clauses]\nR1 = \"{}\"\n\n[inputs.x]\ntype = \"decimal\"\nrequired = true\n\n",
        "x".repeat(400_000)
    );
    for i in 0..12 {
        text.push_str(&format!("[steps.s{i}]\nexpr = \"x + {i}\"\n\n"));
    }
    text.push_str("[[checks]]\ndecision = \"ok\"\n\n[decisions.ok.answer]\n");
    for i in 0..12 {
        text.push_str(&format!(
            "s{i} = {{ expr = \"s{i}\", format = \"decimal\" }}\n"
        ));
    }
    for i in 0..12 {
        text.push_str(&format!(
            "\n[ablations.a{i}]\nsteps = {{ s{i} = \"x * 100 + {i}\" }}\n"
        ));
    }
    let rulebook = file("many", "rulebook.toml", &text);
    let rb = bareme::parse_rulebook("rulebook.toml", &text).expect("the rulebook loads");
    // x = 1: s_i = 1 + i; under a_i, s_i = 100 + i: every combination detected.
    let expected: serde_json::Map<String, serde_json::Value> = (0..12)
        .map(|i| (format!("s{i}"), serde_json::json!((1 + i).to_string())))
        .collect();
    let task = serde_json::json!({"id": "t", "rulebook": "many@1", "rulebook_hash": rb.hash(),
        "case": {"x": "1"}, "expected": expected});
    let tasks = file("many", "tasks.jsonl", &format!("{task}\n"));
    let command = format!(
        "ulimit -v 1000000 && exec '{}' ablations '{}' --rulebook '{}' --subsets 12",
        env!("CARGO_BIN_EXE_bareme"),
        tasks.display(),
        rulebook.parent().expect("a folder").display()
    );
    let o = std::process::Command::new("sh")
        .args(["-c", &command])
        .output()
        .expect("sh runs");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!(
            "many@1#{}: 1 task; 4095 combinations of 12 ablations (up to 12 at once): 4095 detected, 0 undetected\n",
            &rb.hash()[..12]
        )
    );
}

/// An output onto a file the rulebook `extends` (a parent version no path
/// of the command line names) is refused like one onto a named input,
/// once the rulebook is loaded and before anything is written.
#[test]
fn an_output_onto_an_extended_version_is_refused() {
    let dir = tempdir("clobber-extends");
    for v in ["v2025", "v2026"] {
        let from = super::root()
            .join("rulebooks/paie-fr")
            .join(v)
            .join("rulebook.toml");
        std::fs::create_dir_all(dir.join(v)).expect("version folder");
        std::fs::copy(&from, dir.join(v).join("rulebook.toml")).expect("copied");
    }
    let parent = dir.join("v2026").join("rulebook.toml");
    let before = std::fs::read(&parent).expect("parent");
    let child = dir.join("v2025");
    let o = bareme(&["compile", arg(&child), "-o", arg(&parent)], None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("-o {} names", parent.display()))
            && stderr(&o).contains("an input of this run"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&parent).expect("parent"), before);
    // The parent folder written as the child names it, `v2025/../v2026`.
    let roundabout = child.join("..").join("v2026").join("rulebook.toml");
    let o = bareme(&["compile", arg(&child), "-o", arg(&roundabout)], None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(std::fs::read(&parent).expect("parent"), before);
    // Elsewhere, the module is written.
    let module = dir.join("module.rs");
    let o = bareme(&["compile", arg(&child), "-o", arg(&module)], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(std::fs::metadata(&module).is_ok_and(|m| m.len() > 0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `generate` finds its rulebook beside the generator file; an output onto
/// that rulebook was written over it (exit 0) before: it is now refused.
#[test]
fn a_generated_set_is_never_written_onto_the_rulebook_found_beside_the_generator() {
    let dir = tempdir("clobber-generate");
    let set = super::root().join("rulebooks/paie-fr");
    std::fs::create_dir_all(dir.join("v2026")).expect("version folder");
    std::fs::copy(
        set.join("v2026/rulebook.toml"),
        dir.join("v2026/rulebook.toml"),
    )
    .expect("copied");
    std::fs::copy(set.join("generator-1.toml"), dir.join("generator-1.toml")).expect("copied");
    std::fs::copy(set.join("rubric-1.toml"), dir.join("rubric-1.toml")).expect("copied");
    let rulebook = dir.join("v2026").join("rulebook.toml");
    let before = std::fs::read(&rulebook).expect("rulebook");
    let generator = dir.join("generator-1.toml");
    let o = bareme(
        &[
            "generate",
            arg(&generator),
            "-n",
            "2",
            "--out",
            arg(&rulebook),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("an input of this run"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&rulebook).expect("rulebook"), before);
    let _ = std::fs::remove_dir_all(&dir);
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

/// `diff --sample N` holds its N tasks in memory: 10^12 asked for ran the
/// process out of memory, and the largest index was refused naming
/// `--start` and `-n`, which `diff` does not have. 1 to 100,000, as a
/// usage error naming `--sample`.
#[test]
fn a_diff_sample_is_bounded_and_refused_by_its_own_name() {
    for n in ["0", "100001", "18446744073709551615"] {
        let o = bareme(
            &[
                "diff",
                SALES_RB,
                SALES_RB,
                "--sample",
                n,
                "--generator",
                "rulebooks/sales-tax/generator-1.toml",
            ],
            None,
        );
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!(
                "invalid value '{n}' for '--sample <N>': {n} is not in 1..=100000"
            )),
            "{}",
            stderr(&o)
        );
    }
}
