//! Regressions of issue 24: no abort from a generator, a sweep or an
//! argument, and no file lost to a run that fails. Each test failed (an
//! abort, a panic, a quiet short run or a clobbered file) before its fix.

mod templates;

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
    // One new file by two spellings: the manifest was written over the tasks.
    let folder = g.parent().expect("a folder");
    let fresh = folder.join("fresh.jsonl");
    let name = folder.file_name().expect("named");
    let fresh_again = folder.join("..").join(name).join("fresh.jsonl");
    for args in [
        vec!["--out", arg(&g)],
        vec!["--manifest", arg(&g)],
        vec!["--out", "same.jsonl", "--manifest", "same.jsonl"],
        vec!["--out", arg(&fresh), "--manifest", arg(&fresh_again)],
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
    assert!(!fresh.exists(), "refused before anything is written");
    let rulebook = super::root().join(LUMA).join("rulebook.toml");
    let o = bareme(&["compile", LUMA, "-o", arg(&rulebook)], None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("an input of this run"),
        "{}",
        stderr(&o)
    );
}

/// A conformance case of the rulebook is no output's to write: `compile
/// -o rb/cases/01.toml` replaced one with Rust and exited 0.
#[test]
fn an_output_naming_a_conformance_case_is_refused() {
    let rb = file(
        "clobber-case",
        "rulebook.toml",
        &std::fs::read_to_string(super::root().join(LUMA).join("rulebook.toml")).expect("Luma"),
    );
    let folder = rb.parent().expect("a folder");
    std::fs::create_dir_all(folder.join("cases")).expect("cases/");
    let name = "01-spec-example-below-free.toml";
    let case_text =
        std::fs::read_to_string(super::root().join(LUMA).join("cases").join(name)).expect("a case");
    let case = folder.join("cases").join(name);
    std::fs::write(&case, &case_text).expect("copied");
    let payslip = super::root().join("examples/luma-payroll/payslip.json");
    for args in [
        vec!["compile", arg(folder), "-o", arg(&case)],
        vec![
            "eval",
            arg(folder),
            arg(&payslip),
            "--trace",
            "html",
            "--out",
            arg(&case),
        ],
    ] {
        let o = bareme(&args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!(
                "names {}, a conformance case of the rulebook",
                case.display()
            )),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    assert_eq!(std::fs::read_to_string(&case).expect("kept"), case_text);
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
