//! What a generator cannot do is refused at load, located where it is
//! written: parts, profiles, templates, ids, limits, worked examples.

use super::*;

/// The messages of a generator that fails to load, each with the text its
/// span covers.
fn refused(name: &str, text: &str, rb: &Rulebook) -> Vec<(String, String)> {
    match parse_generator(name, text, rb) {
        Ok(_) => panic!("{name} loads"),
        Err(d) => d
            .problems
            .iter()
            .map(|p| {
                let at = p
                    .span
                    .map_or("", |s| &text[s.start as usize..s.end as usize]);
                (p.message.clone(), at.to_string())
            })
            .collect(),
    }
}

/// A list drawn in parts is one list: its parts' maxima together are
/// bounded as a single list's is. The fuzz run's generator input 222 (the
/// last part of sales-tax's `full_cart` repeated 5,000 times) loaded and
/// drew a case of 40,000 lines at each of 400 redraws of each task
/// (137 s in release); it is refused at load, where its parts are written.
#[test]
fn parts_drawing_more_than_the_list_holds_are_refused_at_load() {
    const GEN: &str = "rulebooks/sales-tax/generator-1.toml";
    let rb = crate::rulebook("rulebooks/sales-tax/v1");
    let text = read(GEN);
    let last = "  { list = [8, 8], item = { id = { text = \"L{n}\" }, product_id = { key_of = \"products\" }, quantity = { integer = [1, 12] }, jurisdiction = { choice = [\"STATE_A\", \"STATE_B\", \"STATE_C\"] } } },\n";
    assert_eq!(text.matches(last).count(), 1, "full_cart's last part");

    // As bundled, full_cart's parts draw at most 9 + 1 + 6 + 8 = 24 lines,
    // the most the rulebook takes, and a task is drawn.
    let g = parse_generator(GEN, &text, &rb).expect("the bundled generator loads");
    let drawer = TaskDrawer::new(&g, &rb).expect("engine");
    let task = drawer.task(2026, 0, None).expect("a task");
    let lines = task.task.case["cart"]["lines"]
        .as_array()
        .map_or(0, Vec::len);
    assert!((1..=24).contains(&lines), "{lines} lines");

    // One line more, and the first profile holding the key is where it is shown.
    let one_more = text.replace(last, &last.replace("[8, 8]", "[8, 9]"));
    assert_eq!(
        refused("one-more.toml", &one_more, &rb),
        [(
            "`cart.lines` is drawn in 4 parts of up to 25 items in all, but in sales-tax@1 it holds at most 24".to_string(),
            "\"cart.lines\"".to_string()
        )]
    );

    let repeated = text.replace(last, &last.repeat(5_000));
    assert_eq!(
        refused("repeated.toml", &repeated, &rb),
        [(
            "`cart.lines` is drawn in 5003 parts of up to 40016 items in all, but in sales-tax@1 it holds at most 24".to_string(),
            "\"cart.lines\"".to_string()
        )]
    );
}

/// A field whose value has no span of its own is located at its key, quoted
/// or bare, where its own profile writes it: a search of the text for the
/// key pointed at the first profile writing it, whichever was at fault.
#[test]
fn a_field_without_a_span_is_located_at_its_key() {
    let rb = crate::rulebook("rulebooks/sales-tax/v1");
    let text = r#"[generator]
number = 9
rulebook = "sales-tax@1"
rubric = 1

[profiles.p.case]
"cart.lines" = { list = [1, 2], item = { quantity = { integer = [1, 2] }, idd = { text = "L{n}" } } }
"cart.nope" = { value = "x" }

[profiles.q.case]
"cart.lines" = { list = [1, 2], item = { quantity = { integer = [1, 2] }, id = { text = "L{n}" } } }
"cart.nope" = { value = "x" }

[prompt]
task = "x"
"#;
    assert_eq!(
        refused("keys.toml", text, &rb),
        [
            (
                "`idd`: input `item` of sales-tax@1 has no field `idd`".to_string(),
                "idd".to_string()
            ),
            (
                "`cart.nope`: input `cart` of sales-tax@1 has no field `nope`".to_string(),
                "\"cart.nope\"".to_string()
            ),
            (
                "`cart.nope`: input `cart` of sales-tax@1 has no field `nope`".to_string(),
                "\"cart.nope\"".to_string()
            ),
        ]
    );
    let nope: Vec<usize> = text
        .match_indices("\"cart.nope\"")
        .map(|(i, _)| i)
        .collect();
    let idd = text.find("idd =").expect("idd");
    let spans: Vec<usize> = match parse_generator("keys.toml", text, &rb) {
        Ok(_) => panic!("loads"),
        Err(d) => d
            .problems
            .iter()
            .filter_map(|p| p.span.map(|s| s.start as usize))
            .collect(),
    };
    // Each profile's fault where that profile writes it.
    assert_eq!(spans, [idd, nope[0], nope[1]]);
}

/// Profiles built on a base are checked with its fields: what they inherit
/// in all is bounded, so that a short file of many profiles on one large
/// base cannot cost the product of the two to load.
#[test]
fn what_profiles_inherit_in_all_is_bounded() {
    let rb = crate::rulebook("rulebooks/sales-tax/v1");
    // The base passes on 1 field and its 999 choices; each profile built on
    // it counts 1,000 and its link to the base, 1,001.
    let generator = |children: usize| {
        let ids: Vec<String> = (1..=999).map(|i| format!("\"C{i}\"")).collect();
        let mut text = format!(
            "[generator]\nnumber = 9\nrulebook = \"sales-tax@1\"\nrubric = 1\n\n\
             [profiles.base.case]\n\"cart.cart_id\" = {{ choice = [{}] }}\n",
            ids.join(", ")
        );
        for c in 1..=children {
            text.push_str(&format!("\n[profiles.c{c}]\nbase = \"base\"\n"));
        }
        text.push_str("\n[prompt]\ntask = \"x\"\n");
        text
    };
    // 19 × 1,001 = 19,019: under the bound of 20,000.
    if let Err(d) = parse_generator("under.toml", &generator(19), &rb) {
        panic!(
            "19 profiles on the base are refused: {}",
            d.render(100, false)
        );
    }
    // 20 × 1,001 = 20,020: the twentieth profile goes past it.
    assert_eq!(
        refused("over.toml", &generator(20), &rb),
        [(
            "profiles inherit more than 20000 fields, conditions and values in all (each profile counting again what it inherits); profile `c20` goes past it".to_string(),
            "\"base\"".to_string()
        )]
    );
}

/// A template with thousands of `elif` branches overflowed the stack in
/// minijinja's parser (one frame per branch) and aborted the process (fuzz
/// seed 0x126d6dc08fd0, input 359): it is refused at load, on a test
/// thread's small stack, naming the count and the bound.
#[test]
fn a_template_of_thousands_of_elif_branches_is_refused_not_an_abort() {
    const GEN: &str = "rulebooks/luma-payroll/generator-transfer-1.toml";
    let rb = crate::rulebook("rulebooks/luma-payroll/v3");
    let text = read(GEN);
    let branch = "{%- elif branch == \"upload_date\" -%}\n";
    assert_eq!(
        text.matches(branch).count(),
        1,
        "the transfer template's branch"
    );
    // 200 in all still load; 5,000 more are refused.
    let within = text.replace(branch, &branch.repeat(200 - elifs(&text) + 1));
    assert_eq!(elifs(&within), 200);
    parse_generator("within.toml", &within, &rb).expect("200 branches load");
    let many = text.replace(branch, &branch.repeat(5_000));
    let problems = refused("many.toml", &many, &rb);
    assert!(
        problems
            .iter()
            .any(|(m, _)| m.contains("`elif` branches, more than the 200 a template may have")),
        "{problems:?}"
    );
}

/// `{% elif` tags in a text, as the guard counts them.
fn elifs(text: &str) -> usize {
    text.matches("{%- elif").count() + text.matches("{% elif").count()
}

/// A field's `chance` is a probability, and a task id holds `{index}` and
/// no other placeholder than the four: `chance = "2"` drew the field
/// always and `"-1"` never, `id = "p"` gave every task one id (and
/// `score` then refused the set), `{nope}` was written as it is.
#[test]
fn chances_and_task_ids_are_checked_at_load() {
    let gen_text = read(LUMA_GEN);
    let rb = parse_rulebook("rulebook.toml", &read(LUMA_RB)).expect("luma");
    let problems = |from: &str, to: &str| -> Vec<String> {
        assert!(gen_text.contains(from), "{from}");
        let text = gen_text.replacen(from, to, 1);
        match parse_generator(LUMA_GEN, &text, &rb) {
            Ok(_) => Vec::new(),
            Err(d) => (d.problems.iter())
                .map(|p| format!("{} {}", p.code, p.message))
                .collect(),
        }
    };
    assert_eq!(
        problems("chance = \"0.6\"", "chance = \"2\""),
        ["generate::decimal `chance` is a probability from 0 to 1, found 2"]
    );
    assert_eq!(
        problems("chance = \"0.6\"", "chance = \"-1\""),
        ["generate::decimal `chance` is a probability from 0 to 1, found -1"]
    );
    assert_eq!(
        problems("id = \"luma-{tier}-{index}\"", "id = \"p\""),
        ["generate::id the task id holds no `{index}`: every task would have the same id"]
    );
    assert_eq!(
        problems("id = \"luma-{tier}-{index}\"", "id = \"luma-{nope}-{index}\""),
        ["generate::id the task id names `{nope}`: its placeholders are {level}, {index}, {tier} and {branch}"]
    );
    assert!(problems("chance = \"0.6\"", "chance = \"1\"").is_empty());
}

/// An object of more than one entry whose key has no `{n}` wrote every
/// entry under one key, the last kept: a case of one product where the
/// generator asked for up to six, exit 0. Refused at load.
#[test]
fn an_object_key_without_its_number_is_refused() {
    let rb = crate::rulebook("rulebooks/sales-tax/v1");
    let path = "rulebooks/sales-tax/generator-1.toml";
    let text = std::fs::read_to_string(path).expect("the generator");
    assert!(parse_generator(path, &text, &rb).is_ok());
    let changed = text.replacen(
        "products = { object = [1, 6], key = \"P{n}\"",
        "products = { object = [1, 6], key = \"P\"",
        1,
    );
    assert_ne!(changed, text);
    let d = parse_generator(path, &changed, &rb).expect_err("refused");
    assert!(
        d.problems.iter().any(|p| p.code == "generate::object"
            && p.message
                .contains("the key `P` has no `{n}`, so its 6 entries")),
        "{:?}",
        d.problems
    );
}

/// An id whose `{index}` runs into a placeholder or a digit let two tasks
/// share an id (`{tier}{index}`: tier `a` task 11 and tier `a1` task 1 are
/// both `a11`), and `score` refused the file `generate` wrote.
#[test]
fn an_id_whose_index_does_not_stand_apart_is_refused() {
    let rb = crate::rulebook("rulebooks/sales-tax/v1");
    let path = "rulebooks/sales-tax/generator-1.toml";
    let text = std::fs::read_to_string(path).expect("the generator");
    for (id, ok) in [
        ("{index}", true),
        ("s-{index}", true),
        ("s-{level}-{index}.x", true),
        ("s{level}{index}", false),
        ("s-{index}{branch}", false),
        ("s-{index}0", false),
        ("s1{index}", false),
    ] {
        let changed = text.replacen("id = \"sales-{index}\"", &format!("id = \"{id}\""), 1);
        assert_ne!(changed, text);
        let loaded = parse_generator(path, &changed, &rb);
        match (loaded, ok) {
            (Ok(_), true) => {}
            (Err(d), false) => assert!(
                d.problems.iter().any(|p| p.code == "generate::id"
                    && p.message.contains("`{index}` must stand apart")),
                "{id}: {:?}",
                d.problems
            ),
            (Ok(_), false) => panic!("{id} loaded"),
            (Err(d), true) => panic!("{id}: {:?}", d.problems),
        }
    }
}

/// What a generator names but cannot do was found only when a task reached
/// it: a filter or test no template has, in a branch few tasks render,
/// failed the run at that task (exit 2, not a load error); `number = true`
/// on a `value` was ignored; a decimal range written high to low failed
/// every draw, where an integer range in either order is one range.
#[test]
fn what_a_generator_cannot_do_is_refused_at_load() {
    let rb = crate::rulebook("rulebooks/sales-tax/v1");
    let path = "rulebooks/sales-tax/generator-1.toml";
    let text = std::fs::read_to_string(path).expect("the generator");
    let branch = "version {{ rulebook.version }}, to the case below";
    assert_eq!(text.matches(branch).count(), 1);
    for (used, message) in [
        (
            "{{ rulebook.version|nosuch }}",
            "template `task`: filter nosuch is unknown (in task:2)",
        ),
        (
            "{% if rulebook.version is nosuch %}1{% endif %}",
            "template `task`: test nosuch is unknown (in task:2)",
        ),
    ] {
        let changed = text.replace(
            branch,
            &format!("version {{{{ rulebook.version }}}}, to the case below\n{{% if level > 99 %}}{used}{{% endif %}}"),
        );
        let d = parse_generator(path, &changed, &rb).expect_err("refused at load");
        assert!(
            d.problems
                .iter()
                .any(|p| p.code == "generate::template" && p.message == message),
            "{:?}",
            d.problems
        );
    }

    let changed = text.replacen(
        "quantity = { integer = [1, 12] }",
        "quantity = { value = \"3\", number = true }",
        1,
    );
    assert_ne!(changed, text);
    let d = parse_generator(path, &changed, &rb).expect_err("refused at load");
    assert!(
        d.problems.iter().any(|p| p.code == "generate::number"
            && p.message
                .contains("`number` writes a drawn number as a JSON number")),
        "{:?}",
        d.problems
    );

    // A key that serves another way of drawing was silently ignored:
    // `step` beside `integer` still drew every integer (hostile probe).
    for (from, to, message) in [
        (
            "quantity = { integer = [1, 12] }",
            "quantity = { integer = [1, 12], step = \"5\" }",
            "`quantity`: `step` does not apply to `integer`, only to `decimal` and `target`",
        ),
        (
            "unit_price = { decimal = [\"0.01\", \"400\"] }",
            "unit_price = { decimal = [\"0.01\", \"400\"], weights = [1] }",
            "`unit_price`: `weights` does not apply to `decimal`, only to `choice`",
        ),
        (
            "product_id = { key_of = \"products\" }",
            "product_id = { key_of = \"products\", key = \"P{n}\" }",
            "`product_id`: `key` does not apply to `key_of`, only to `object`",
        ),
        (
            "id = { text = \"L{n}\" }",
            "id = { text = \"L{n}\", within = [\"1\", \"2\"] }",
            "`id`: `within` does not apply to `text`, only to `target`",
        ),
    ] {
        let changed = text.replacen(from, to, 1);
        assert_ne!(changed, text, "{from}");
        let d = parse_generator(path, &changed, &rb).expect_err("refused at load");
        assert!(
            d.problems
                .iter()
                .any(|p| p.code == "generate::draw" && p.message == message),
            "{:?}",
            d.problems
        );
    }

    // A decimal range high to low draws what the same range low to high does.
    let low_high = parse_generator(path, &text, &rb).expect("loads");
    let reversed = text.replacen(
        "decimal = [\"0.01\", \"400\"]",
        "decimal = [\"400\", \"0.01\"]",
        1,
    );
    assert_ne!(reversed, text);
    let high_low = parse_generator(path, &reversed, &rb).expect("loads");
    for index in 0..5 {
        let a = TaskDrawer::new(&low_high, &rb)
            .expect("engine")
            .task(7, index, None);
        let b = TaskDrawer::new(&high_low, &rb)
            .expect("engine")
            .task(7, index, None);
        let (a, b) = (a.expect("a task"), b.expect("a task"));
        assert_eq!(a.task.case, b.task.case, "task {index}");
    }
}

/// Every worked example is evaluated at load and shown in every prompt:
/// 8,000 of them took 1.5 GB to load. A prompt holds at most 100.
#[test]
fn a_prompt_of_more_than_a_hundred_examples_is_refused() {
    let rb = crate::rulebook("rulebooks/luma-payroll/v3");
    let path = "rulebooks/luma-payroll/generator-4.toml";
    let text = std::fs::read_to_string(path).expect("the generator");
    let example = "[[prompt.examples]]\nname = \"A payslip\"\ncase = { task = \"payslip\", gross_pay = \"2450.00\", payroll_month = \"2026-03\", allowed_deduction = \"120.00\" }\n\n";
    assert!(text.contains(example));
    let many = text.replacen(example, &example.repeat(95), 1);
    assert!(
        parse_generator(path, &many, &rb).is_ok(),
        "100 examples load"
    );
    let more = text.replacen(example, &example.repeat(96), 1);
    let d = parse_generator(path, &more, &rb).expect_err("refused");
    assert!(
        d.problems.iter().any(|p| p.code == "generate::example"
            && p.message
                == "the prompt has 101 worked examples, more than the 100 a prompt may hold"),
        "{:?}",
        d.problems
    );
}

/// A worked example whose case the reference refuses (an unknown key, a
/// value out of range) loaded, and every prompt showed its error object as
/// the answer and the reply to give (hostile probe): refused at load.
#[test]
fn a_worked_example_the_reference_refuses_fails_the_load() {
    let rb = crate::rulebook("rulebooks/luma-payroll/v3");
    let path = "rulebooks/luma-payroll/generator-4.toml";
    let text = std::fs::read_to_string(path).expect("the generator");
    let example = "allowed_deduction = \"120.00\" }";
    assert!(text.contains(example));
    for (case, why) in [
        (
            "allowed_deduction = \"120.00\", bonus = \"1\" }",
            "bonus: unknown input",
        ),
        (
            "allowed_deduction = \"-120.00\" }",
            "allowed_deduction: must not be negative, found \"-120.00\" (R4)",
        ),
    ] {
        let changed = text.replacen(example, case, 1);
        let g = parse_generator(path, &changed, &rb).expect("parses");
        let Err(e) = TaskDrawer::new(&g, &rb) else {
            panic!("{case}: the drawer is made");
        };
        assert_eq!(
            e.to_string(),
            format!("example 1: the reference refuses its case: {why}"),
            "{case}"
        );
    }
}

/// A run's limits out of range were quietly taken as the nearest one
/// (`max_evaluations = 1000000000` ran with 1,000,000): refused where
/// written.
#[test]
fn a_run_limit_out_of_range_is_refused_where_written() {
    let rb = crate::rulebook("rulebooks/sales-tax/v1");
    let path = "rulebooks/sales-tax/generator-1.toml";
    let text = std::fs::read_to_string(path).expect("the generator");
    for (limit, message) in [
        (
            "max_redraws = 100000000",
            "`max_redraws` is 100000000: it is 1 to 100000",
        ),
        ("max_redraws = 0", "`max_redraws` is 0: it is 1 to 100000"),
        (
            "max_evaluations = 1000000000",
            "`max_evaluations` is 1000000000: it is 1 to 1000000",
        ),
        ("max_steps = 0", "`max_steps` is 0: it is 1 to 10000000000"),
    ] {
        let changed = text.replacen("max_redraws = 400", limit, 1);
        let (key, value) = limit.split_once(" = ").expect("a key and a value");
        assert_eq!(
            refused(path, &changed, &rb),
            [(message.to_string(), value.to_string())],
            "{key}"
        );
    }
}

/// A `value` its input refuses, in a profile that wants an answer, sent
/// every draw to a redraw: the run failed after all of them with
/// "decision rejected". It is refused at load, where it is written; a
/// profile of rejections may still draw it, and a base is checked only in
/// the profiles drawn from it.
#[test]
fn a_value_the_input_refuses_is_refused_at_load_when_the_profile_wants_an_answer() {
    let rb = crate::rulebook("rulebooks/sales-tax/v1");
    let text = read("rulebooks/sales-tax/generator-1.toml");
    let problems = |text: &str| -> Vec<String> {
        match parse_generator("g.toml", text, &rb) {
            Ok(_) => Vec::new(),
            Err(d) => d.problems.iter().map(|p| p.message.clone()).collect(),
        }
    };
    assert!(problems(&text).is_empty());
    let luxury = text.replacen(
        "\"products.P9\" = { fields = { category = { value = \"STANDARD\" }",
        "\"products.P9\" = { fields = { category = { value = \"LUXURY\" }",
        1,
    );
    assert_ne!(luxury, text);
    assert_eq!(
        problems(&luxury),
        [
            r#"`category` is drawn as "LUXURY", which sales-tax@1 refuses (must be one of "STANDARD", "DIGITAL", "GROCERY", "MEDICAL", found "LUXURY" (R2)): this profile wants an answer, and no case of it could have one"#
        ]
    );
    // The same profile drawing rejections: a refused value is what it wants.
    let rejected = luxury.replacen(
        "[profiles.half_cent_tie]\n",
        "[profiles.half_cent_tie]\ndecision = \"rejected\"\n",
        1,
    );
    assert_ne!(rejected, luxury);
    assert!(
        !problems(&rejected).iter().any(|p| p.contains("LUXURY")),
        "{:?}",
        problems(&rejected)
    );
}

/// A grid's step of 0 or below loaded, and every draw then failed after
/// all its redraws on "empty range 0.01..400".
#[test]
fn a_grid_step_of_zero_or_below_is_refused_at_load() {
    let rb = crate::rulebook("rulebooks/sales-tax/v1");
    let text = read("rulebooks/sales-tax/generator-1.toml");
    let from = "unit_price = { decimal = [\"0.01\", \"400\"] }";
    assert!(text.contains(from));
    for step in ["0", "-0.01", "0.00"] {
        let changed = text.replacen(
            from,
            &format!("unit_price = {{ decimal = [\"0.01\", \"400\"], step = \"{step}\" }}"),
            1,
        );
        let problems = match parse_generator("g.toml", &changed, &rb) {
            Ok(_) => panic!("step {step} loads"),
            Err(d) => d.problems,
        };
        assert_eq!(
            problems[0].message,
            format!("`step = \"{step}\"`: a grid's step is above 0")
        );
    }
}
