//! Generators: determinism across runs and shards, reference answers equal
//! to evaluation, self-checks held, and schema drift caught at load.

mod load;

use bareme::unstable::generate::{
    parse_generator, run, Generator, Manifest, RunOptions, TaskDrawer,
};
use bareme::{evaluate_value, parse_rulebook, Outcome, Rulebook};
use serde_json::Value;

const LUMA_GEN: &str = "rulebooks/luma-payroll/generator-4.toml";
const LUMA_RB: &str = "rulebooks/luma-payroll/v3/rulebook.toml";

fn read(rel: &str) -> String {
    std::fs::read_to_string(super::root().join(rel)).expect("bundled file")
}

fn luma() -> (Generator, Rulebook) {
    let rb = super::rulebook("rulebooks/luma-payroll/v3");
    let g = match parse_generator(LUMA_GEN, &read(LUMA_GEN), &rb) {
        Ok(g) => g,
        Err(d) => panic!("{}", d.render(100, false)),
    };
    (g, rb)
}

fn generate(
    g: &Generator,
    rb: &Rulebook,
    seed: u64,
    start: u64,
    count: u64,
    jobs: usize,
) -> (String, Manifest) {
    let engine = TaskDrawer::new(g, rb).expect("engine");
    let mut out = Vec::new();
    let options = RunOptions {
        seed,
        start,
        count,
        level: None,
        jobs,
    };
    let manifest = run(&engine, options, &mut out, &|_| {}).expect("run");
    (String::from_utf8(out).expect("UTF-8"), manifest)
}

#[test]
fn same_seed_same_bytes_and_shards_write_the_full_runs_lines() {
    let (g, rb) = luma();
    let (full, manifest) = generate(&g, &rb, 7, 0, 90, 2);
    let (again, _) = generate(&g, &rb, 7, 0, 90, 1);
    assert_eq!(full, again, "a run depends on nothing but its seed");
    let (a, _) = generate(&g, &rb, 7, 0, 37, 2);
    let (b, _) = generate(&g, &rb, 7, 37, 53, 1);
    assert_eq!(
        full,
        format!("{a}{b}"),
        "two shards write the full run's lines"
    );
    assert_eq!(manifest.tasks, 90, "every index gives a task");
    assert_eq!(full.lines().count(), 90);
    let (other, _) = generate(&g, &rb, 8, 0, 90, 2);
    assert_ne!(full, other, "another seed draws other tasks");
}

#[test]
fn every_expected_answer_is_the_reference_and_no_amount_leaks() {
    let (g, rb) = luma();
    let (lines, manifest) = generate(&g, &rb, 3, 0, 200, 2);
    let mut seen_reasons = std::collections::BTreeSet::new();
    for line in lines.lines() {
        let task: Value = serde_json::from_str(line).expect("a JSON line");
        let (outcome, _) = evaluate_value(&rb, &task["case"], false).expect("evaluates");
        let Outcome::Answer(answer) = outcome else {
            panic!("task {} is rejected", task["id"]);
        };
        let answer = answer.to_json();
        assert_eq!(answer, task["expected"], "task {}", task["id"]);
        assert_eq!(task["rulebook"], "luma-payroll@3");
        assert_eq!(task["rulebook_hash"], rb.hash());
        let prompt = task["prompt"].as_str().expect("prompt");
        let shown_ok = matches!(
            task["branch"].as_str(),
            Some("on_upper_line" | "on_free_line")
        );
        for field in [
            "employee_contribution",
            "taxable_pay",
            "income_tax",
            "net_pay",
        ] {
            if let Some(v) = answer[field].as_str() {
                let exempt = shown_ok && matches!(field, "taxable_pay" | "net_pay");
                if v != "0.00" && !exempt {
                    let digits_around = |at: usize| {
                        let before = prompt[..at]
                            .chars()
                            .next_back()
                            .is_some_and(|c| c.is_ascii_digit());
                        let after = prompt[at + v.len()..]
                            .chars()
                            .next()
                            .is_some_and(|c| c.is_ascii_digit());
                        before || after
                    };
                    let leaked = prompt.match_indices(v).any(|(at, _)| !digits_around(at));
                    assert!(!leaked, "task {}: {field} {v} is in the prompt", task["id"]);
                }
            }
        }
        if let Some(code) = answer["reason_code"].as_str() {
            seen_reasons.insert(code.to_string());
            assert_eq!(
                prompt.matches(code).count(),
                1,
                "only the answer format names {code}"
            );
        }
    }
    assert_eq!(
        seen_reasons.len(),
        4,
        "traps cover the four reason codes: {seen_reasons:?}"
    );
    for tier in ["payslip", "trap", "retrieval"] {
        assert!(
            manifest.tiers.get(tier).is_some_and(|n| *n > 10),
            "tier {tier}: {:?}",
            manifest.tiers
        );
    }
    for branch in [
        "below_free",
        "middle_bracket",
        "upper_bracket",
        "above_cap",
        "on_cap",
        "on_upper_line",
        "on_free_line",
        "amendment_resolved",
    ] {
        assert!(
            manifest.branches.contains_key(branch),
            "branch {branch} missing: {:?}",
            manifest.branches
        );
    }
}

#[test]
fn a_task_on_the_bracket_line_lands_exactly_on_it() {
    let (g, rb) = luma();
    let (lines, _) = generate(&g, &rb, 11, 0, 300, 2);
    let mut found = 0;
    for line in lines.lines() {
        let task: Value = serde_json::from_str(line).expect("JSON");
        if task["branch"] != "on_upper_line" {
            continue;
        }
        found += 1;
        let case = &task["case"];
        let month = case["payroll_month"].as_str().expect("month");
        let row = if month <= "2026-06" {
            "first-half"
        } else {
            "second-half"
        };
        let upper =
            case["reference_tables"][row]["upper"]
                .as_str()
                .unwrap_or(if row == "first-half" {
                    "3300.00"
                } else {
                    "3000.00"
                });
        assert_eq!(
            task["expected"]["taxable_pay"].as_str(),
            Some(upper),
            "task {}",
            task["id"]
        );
    }
    assert!(found > 0, "no task drawn on the upper line");
}

/// Schema drift: a generator written against a rulebook fails to load, naming
/// both sides, once the rulebook changes what it draws or reads.
#[test]
fn schema_drift_fails_the_load_naming_both_sides() {
    let gen_text = read(LUMA_GEN);
    let rb_text = read(LUMA_RB);
    let load = |rb_text: &str| -> Vec<String> {
        let rb = parse_rulebook("rulebook.toml", rb_text).expect("the changed rulebook is valid");
        match parse_generator(LUMA_GEN, &gen_text, &rb) {
            Ok(_) => Vec::new(),
            Err(d) => d
                .problems
                .iter()
                .map(|p| format!("{} {}", p.location(), p.message))
                .collect(),
        }
    };
    assert!(load(&rb_text).is_empty());

    // Inputs retyped: the payroll month and the amendment's month become dates.
    let retyped = rb_text.replace(
        "type = \"month\"\nmin = \"2000-01\"\nmax = \"2099-12\"",
        "type = \"date\"",
    );
    assert_ne!(retyped, rb_text);
    let problems = load(&retyped);
    assert!(
        problems.iter().any(|p| p
            .contains("`payroll_month` is drawn as a month, but in luma-payroll@3 it is a date")),
        "{problems:#?}"
    );
    assert!(
        problems.iter().any(|p| p
            .contains("`effective_month` is drawn as a month, but in luma-payroll@3 it is a date")),
        "{problems:#?}"
    );

    // A step removed: the generator aims at `taxable_pay`.
    let start = rb_text.find("[steps.taxable_pay]").expect("step");
    let end = start + rb_text[start..].find("\n\n").expect("end of step");
    let renamed = format!(
        "{}{}",
        &rb_text[..start],
        rb_text[start..end].replacen("[steps.taxable_pay]", "[steps.taxable_amount]", 1)
    ) + &rb_text[end..]
        .replace("clamp(taxable_pay", "clamp(taxable_amount")
        .replace("max(taxable_pay", "max(taxable_amount")
        .replace("expr = \"taxable_pay\"", "expr = \"taxable_amount\"");
    let problems = load(&renamed);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("luma-payroll@3 has no step `taxable_pay` to aim at")),
        "{problems:#?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains("generate::unknown_name") || p.contains("unknown")),
        "accept conditions reading the step fail too: {problems:#?}"
    );

    // Another version: refused outright.
    let v4 = rb_text.replacen("version = 3", "version = 4", 1);
    let problems = load(&v4);
    assert!(
        problems.iter().any(|p| p
            .contains("written against luma-payroll@3, but the rulebook loaded is luma-payroll@4")),
        "{problems:#?}"
    );
}

/// A generator file is untrusted input: what it asks for is bounded.
#[test]
fn a_hostile_generator_is_refused_or_stopped() {
    let sales = super::rulebook("rulebooks/sales-tax/v1");
    let huge = r#"
[generator]
number = 9
rulebook = "sales-tax@1"
rubric = 1

[profiles.big.case]
"cart.lines" = { list = [1, 4000000000], item = { id = { text = "L{n}" } } }

[prompt]
task = "x"
"#;
    let problems = match parse_generator("huge.toml", huge, &sales) {
        Ok(_) => panic!("a list of four billion lines loads"),
        Err(d) => d
            .problems
            .iter()
            .map(|p| p.message.clone())
            .collect::<Vec<_>>(),
    };
    assert!(
        problems.iter().any(|p| p.contains("`cart.lines` is drawn with up to 4000000000 items, but in sales-tax@1 it holds at most 24")),
        "{problems:#?}"
    );

    let rb = super::rulebook("rulebooks/luma-payroll/v3");
    let runaway = r#"
[generator]
number = 9
rulebook = "luma-payroll@3"
rubric = 8
max_redraws = 5

[profiles.gross_missing.case]
task = { value = "payslip" }
payroll_month = { month = ["2026-01", "2026-12"] }

[prompt]
task = "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}"
"#;
    let g = parse_generator("runaway.toml", runaway, &rb).expect("loads");
    let engine = TaskDrawer::new(&g, &rb).expect("engine");
    let err = engine
        .task(1, 0, None)
        .expect_err("the template runs out of fuel");
    assert!(err.message.contains("fuel"), "{}", err.message);
}

/// A Luma generator whose profile carries `moving` perturbations that move
/// the gross pay, then one that moves nothing, so every draw evaluates the
/// rulebook for each of them and is then redrawn (the shape of generator
/// input 2525177 of the long run, issue 24: 120 perturbations times 3,000
/// redraws took minutes a task).
fn perturbed_luma(moving: usize, header: &str) -> String {
    let mut text = format!(
        "[generator]\nnumber = 9\nrulebook = \"luma-payroll@3\"\nrubric = 8\n{header}\n\n\
         [profiles.p.case]\ntask = {{ value = \"payslip\" }}\n\
         gross_pay = {{ decimal = [\"1000\", \"5000\"], step = \"0.01\" }}\n\
         payroll_month = {{ month = [\"2026-01\", \"2026-12\"] }}\n"
    );
    for i in 0..moving {
        text.push_str(&format!(
            "\n[[profiles.p.perturb]]\nname = \"gross + {i}\"\n\
             set = {{ gross_pay = \"value + 100\" }}\nmoves = [\"gross_pay\"]\n"
        ));
    }
    text.push_str(
        "\n[[profiles.p.perturb]]\nname = \"still\"\nset = { gross_pay = \"value + 1\" }\n\
         moves = [\"payroll_month\"]\n\n[prompt]\ntask = \"x\"\n",
    );
    text
}

/// What the draws of one task may cost is bounded in evaluations of the
/// rulebook, over every redraw: a generator whose every draw evaluates it
/// hundreds of times and is then redrawn, with 100,000 redraws allowed,
/// fails its task at the budget (50,000 by default) instead of running for
/// hours, naming the budget and the reason draws were abandoned.
#[test]
fn the_draws_of_a_task_stop_at_their_budget_of_evaluations() {
    let rb = super::rulebook("rulebooks/luma-payroll/v3");
    let g = parse_generator("p.toml", &perturbed_luma(120, "max_redraws = 100000"), &rb)
        .expect("loads");
    let err = TaskDrawer::new(&g, &rb)
        .expect("engine")
        .task(1, 0, None)
        .expect_err("no draw passes");
    // Each draw (its fields read nothing): the case validated, evaluated
    // and read (1 + 1 + 1), then 4 per perturbation (its rewrite, the
    // copy's validation, the move read before and after): 3 + 121 * 4 =
    // 487, so the 50,000 are spent during draw 103 (with 20, 7 a draw:
    // during draw 3).
    assert_eq!(
        err.message,
        "its draws made the 50000 evaluations of the rulebook a task may \
         (`max_evaluations`) in 103 attempts; most frequent reason: \
         p: perturbation still: `payroll_month` does not move (102 times)"
    );

    // A file may set the budget, within bounds.
    let g =
        parse_generator("p.toml", &perturbed_luma(0, "max_evaluations = 20"), &rb).expect("loads");
    let err = TaskDrawer::new(&g, &rb)
        .expect("engine")
        .task(1, 0, None)
        .expect_err("no draw passes");
    assert!(
        err.message.starts_with(
            "its draws made the 20 evaluations of the rulebook a task may (`max_evaluations`) in 3 attempts"
        ),
        "{}",
        err.message
    );
}

/// The budget only counts: a task drawn within it is the same task, with
/// the same redraws, whatever the budget, and says what it spent.
#[test]
fn a_task_within_its_budget_is_the_same_whatever_the_budget() {
    let rb = super::rulebook("rulebooks/luma-payroll/v3");
    let text = read(LUMA_GEN);
    let (g, _) = luma();
    let engine = TaskDrawer::new(&g, &rb).expect("engine");
    // Task `index` of the bundled generator with `max_evaluations = most`.
    let within = |most: u64, index: u64| {
        let header = format!("[generator]\nmax_evaluations = {most}\n");
        let text = text.replacen("[generator]\n", &header, 1);
        let g = parse_generator(LUMA_GEN, &text, &rb).expect("loads");
        let drawer = TaskDrawer::new(&g, &rb).expect("engine");
        drawer.task(2026, index, None)
    };
    for index in 0..40 {
        let drawn = engine.task(2026, index, None).expect("a task");
        assert!(drawn.evaluations > 0 && drawn.evaluations <= 50_000);
        let again =
            within(drawn.evaluations, index).expect("the same task, on its last evaluation");
        assert_eq!(again.task.case, drawn.task.case);
        assert_eq!(again.task.expected, drawn.task.expected);
        assert_eq!(again.redraws, drawn.redraws);
        assert_eq!(again.evaluations, drawn.evaluations);
        if drawn.evaluations > 1 {
            let err = within(drawn.evaluations - 1, index).expect_err("one evaluation short");
            assert!(err.message.contains("`max_evaluations`"), "{}", err.message);
        }
    }
}

/// The manifest adds up what each task's draws spent, and names the most
/// one task spent, the figure `max_evaluations` bounds.
#[test]
fn the_manifest_counts_the_evaluations_each_task_spent() {
    let (g, rb) = luma();
    let engine = TaskDrawer::new(&g, &rb).expect("engine");
    let (_, manifest) = generate(&g, &rb, 2026, 0, 40, 2);
    // No duplicate redrawn: each index's task is the one drawn alone.
    assert_eq!(manifest.duplicates, 0);
    let spent: Vec<u64> = (0..40)
        .map(|i| engine.task(2026, i, None).expect("a task").evaluations)
        .collect();
    assert_eq!(manifest.evaluations, spent.iter().sum::<u64>());
    assert_eq!(Some(manifest.most_evaluations), spent.iter().max().copied());
    assert!(manifest.most_evaluations < manifest.evaluations);
    // A shard counts its own tasks.
    let (_, shard) = generate(&g, &rb, 2026, 30, 10, 1);
    assert_eq!(shard.evaluations, spent[30..].iter().sum::<u64>());
}

/// A text read through a pattern is drawn whole, and every text a
/// generator writes for it must match the pattern when the generator loads.
#[test]
fn a_text_read_through_a_pattern_is_checked_against_it() {
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
    let generator = |draw: &str| {
        format!(
            "[generator]\nnumber = 1\nrulebook = \"coded@1\"\nrubric = 1\n\n[profiles.p.case]\n{draw}\n\n[prompt]\ntask = \"x\"\n"
        )
    };
    let problems = |draw: &str| -> Vec<String> {
        match parse_generator("g.toml", &generator(draw), &rb) {
            Ok(_) => Vec::new(),
            Err(d) => d.problems.iter().map(|p| p.message.clone()).collect(),
        }
    };
    assert_eq!(
        problems("code = { choice = [\"K123\", \"S042\"] }"),
        Vec::<String>::new()
    );
    assert_eq!(
        problems("code = { text = \"K{n}00\" }"),
        Vec::<String>::new()
    );
    assert_eq!(
        problems("code = { choice = [\"K123\", \"X12\"] }"),
        ["`code` is drawn as `X12`, which does not match its pattern `^(?P<region>[KS])(?P<n>[0-9]{3})$` in coded@1"]
    );
    assert_eq!(
        problems("code = { value = \"k123\" }"),
        ["`code` is drawn as `k123`, which does not match its pattern `^(?P<region>[KS])(?P<n>[0-9]{3})$` in coded@1"]
    );
    assert_eq!(
        problems("\"code.region\" = { value = \"K\" }"),
        ["`code.region`: input `code` of coded@1 is a text read through its pattern: draw the text whole"]
    );
}

/// A profile of weight 0 is a base, never drawn: the only profile of its
/// level was drawn anyway (a level's weights summing to 0 fell to its last
/// profile). The default mix leaves such a level out, a mix naming it is
/// refused at load, and `--level` asking for it is an error.
#[test]
fn a_level_of_bases_alone_is_never_drawn() {
    let rb = super::rulebook("rulebooks/sales-tax/v1");
    let text = |mix: &str| {
        format!(
            "[generator]\nnumber = 9\nrulebook = \"sales-tax@1\"\nrubric = 1\nid = \"s-{{index}}\"\n{mix}\n\
             [levels.2]\nlabel = \"two\"\n\n\
             [profiles.base]\nweight = 0\n\n\
             [profiles.base.case]\n\
             products = {{ object = [1, 1], key = \"P{{n}}\", item = {{ category = {{ choice = [\"STANDARD\"] }}, unit_price = {{ decimal = [\"1\", \"300\"] }} }} }}\n\
             customers = {{ object = [1, 1], key = \"K{{n}}\", item = {{ billing_jurisdiction = {{ choice = [\"STATE_A\"] }} }} }}\n\
             \"cart.cart_id\" = {{ value = \"C1\" }}\n\
             \"cart.customer_id\" = {{ key_of = \"customers\" }}\n\
             \"cart.lines\" = {{ list = [1, 3], item = {{ id = {{ text = \"L{{n}}\" }}, product_id = {{ key_of = \"products\" }}, quantity = {{ integer = [1, 300] }}, jurisdiction = {{ choice = [\"STATE_A\"] }} }} }}\n\n\
             [profiles.derived]\nbase = \"base\"\nlevel = 2\n\n\
             [prompt]\nformat = \"f\"\nrules = \"r\"\ntask = \"{{{{ case_json }}}}\"\n"
        )
    };
    let g = match parse_generator("g.toml", &text(""), &rb) {
        Ok(g) => g,
        Err(d) => panic!("{}", d.render(100, false)),
    };
    let drawer = TaskDrawer::new(&g, &rb).expect("drawer");
    for i in 0..8 {
        let task = drawer.task(1, i, None).expect("a task").task;
        assert_eq!(
            (task.level, task.branch.as_deref()),
            (Some(2), Some("derived")),
            "{i}"
        );
    }
    let e = drawer
        .task(1, 0, Some(1))
        .expect_err("level 1 has only a base");
    assert!(
        e.to_string().contains("level 1 has no drawn profile"),
        "{e}"
    );
    let refused = parse_generator("g.toml", &text("mix = [1, 2]"), &rb).expect_err("refused");
    assert!(
        refused.problems.iter().any(|p| p
            .message
            .contains("the mix names level 1, whose profiles all weigh 0")),
        "{:?}",
        refused.problems
    );
}

/// A template printing a value that is not there (a parameter's empty
/// label, a row's open `to`) wrote `None` into the prompt; it is now a
/// template error naming the line, and a test of it prints nothing.
#[test]
fn a_prompt_never_states_none() {
    let rb = super::rulebook("rulebooks/paie-fr/v2026");
    let text = read("rulebooks/paie-fr/generator-1.toml");
    let with = |line: &str| text.replacen("task = \"\"\"", &format!("task = \"\"\"{line}"), 1);
    let printed = with("[{{ rulebook.parameters.overtime_premium_25.label }}]");
    let g = parse_generator("g.toml", &printed, &rb).expect("it loads");
    let drawer = TaskDrawer::new(&g, &rb).expect("a drawer");
    let e = drawer
        .task(1, 0, None)
        .expect_err("a prompt with None")
        .to_string();
    assert!(e.contains("prints a value that is not there (none)"), "{e}");
    assert!(e.contains("task:1"), "{e}");
    let tested =
        with("[{% if rulebook.parameters.overtime_premium_25.label is not none %}x{% endif %}]");
    let g = parse_generator("g.toml", &tested, &rb).expect("it loads");
    let drawer = TaskDrawer::new(&g, &rb).expect("a drawer");
    let task = drawer.task(1, 0, None).expect("a task").task;
    let prompt = task.prompt.expect("a prompt");
    assert!(prompt.starts_with("[]"), "{prompt}");
}
