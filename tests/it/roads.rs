//! An untraced evaluation (which takes the lowered code's shortcuts:
//! constants folded, sums over a group read in place, decimals computed
//! without a value per node) and a traced one (which reads every node as
//! written, to note it) give the same outcome, byte for byte, on formulas
//! chosen to take every shortcut and every way off it: fractions, missing
//! values, faults of another step, ties between equal numbers of different
//! scales, per-item groups and comprehensions.

use bareme::{evaluate_value, parse_rulebook};

pub(crate) const RULEBOOK: &str = r#"
[rulebook]
id = "roads"
version = 1
schema = 1

[inputs.x]
type = "decimal"
required = true

[inputs.y]
type = "decimal"

[inputs.kind]
type = "enum"
values = ["a", "b"]
required = true

[inputs.lines]
type = "list"
max_items = 5
items = { type = "decimal" }

[parameters.rate]
value = "12.5"

[steps.third]
expr = "x / 3"

[steps.third_rounded]
expr = "third * 3"
round = { places = 2, mode = "half_even" }

[steps.percent]
expr = "x * rate / 100"

[steps.tie]
expr = "min(2.0, 2.00, x)"

[steps.bigger]
expr = "max(x, 2.00) - 0"

[steps.fallback]
expr = "coalesce(y, x * 2)"

[steps.guarded]
expr = "if is_missing(y) then 0 else y * 2"

[steps.unguarded]
expr = "y + 1"

[steps.reads_unguarded]
expr = "unguarded * 2"

[steps.by_kind]
expr = "match kind { 'a' => x, 'b' => -x, else => 0 }"

[steps.when_positive]
when = "x > 0"
expr = "x / 7"
otherwise = "0 - x"
round = { places = 3, mode = "down" }

[steps.big]
expr = "x * 10000000000000000"

[steps.doubled]
expr = "sum([l * 2 for l in lines if l > 0])"

[per_item.each]
over = "lines"
item = "line"

[per_item.each.steps.share]
expr = "line / x"

[per_item.each.steps.cents]
expr = "round(share, 2)"

[steps.total]
expr = "sum(each.cents)"

[steps.positive_cents]
expr = "sum([e.cents * 2 for e in each if e.share > 0])"

[steps.rated]
expr = "x * rate / 100"
round = { places = 1, mode = "half_even" }

[steps.abs_cents]
expr = "sum([abs(e.cents) for e in each if e.share > 0])"

[[checks]]
when = "x == 99"
reject = "x"
message = "x may not be {x}"

[[checks]]
decision = "d"

[decisions.d.answer]
third_rounded = { expr = "third_rounded", format = "decimal" }
percent = { expr = "percent", format = "decimal" }
tie = { expr = "tie", format = "decimal" }
bigger = { expr = "bigger", format = "decimal" }
fallback = { expr = "fallback", format = "decimal" }
guarded = { expr = "guarded", format = "decimal" }
by_kind = { expr = "by_kind", format = "decimal" }
when_positive = { expr = "when_positive", format = "decimal" }
doubled = { expr = "doubled", format = "decimal" }
total = { expr = "total", format = "decimal" }
positive_cents = { expr = "positive_cents", format = "decimal" }
abs_cents = { expr = "abs_cents", format = "decimal" }
rated = { expr = "rated", format = "decimal" }
"#;

/// The line `eval --batch` writes for the case, the same bytes on both roads.
pub(crate) fn both_roads(rb: &bareme::Rulebook, case: serde_json::Value) -> String {
    let line = |trace: bool| {
        let result = evaluate_value(rb, &case, trace);
        let mut out = Vec::new();
        bareme::unstable::outcome::write_outcome(&mut out, result.as_ref().map(|(o, _)| o));
        String::from_utf8(out).expect("UTF-8")
    };
    let untraced = line(false);
    assert_eq!(untraced, line(true), "the two roads differ on {case}");
    untraced
}

#[test]
fn the_untraced_road_gives_what_the_traced_road_gives() {
    let rb = parse_rulebook("roads.toml", RULEBOOK).expect("valid");
    let answer = both_roads(
        &rb,
        serde_json::json!({"x": "2.00", "kind": "b", "lines": ["1", "-2", "0.50"]}),
    );
    for expected in [
        "\"third_rounded\":\"2.00\"",
        "\"percent\":\"0.250\"",
        "\"tie\":\"2.0\"",
        "\"bigger\":\"2.00\"",
        "\"fallback\":\"4.00\"",
        "\"guarded\":\"0\"",
        "\"by_kind\":\"-2.00\"",
        "\"when_positive\":\"0.285\"",
        "\"doubled\":\"3.00\"",
        "\"total\":\"-0.25\"",
        "\"positive_cents\":\"1.50\"",
        "\"abs_cents\":\"0.75\"",
        "\"rated\":\"0.2\"",
    ] {
        assert!(answer.contains(expected), "{expected} not in {answer}");
    }
    // Fractions off the decimal road.
    both_roads(&rb, serde_json::json!({"x": "7", "y": "1", "kind": "a"}));
    // A rejection decided by a check.
    assert!(
        both_roads(&rb, serde_json::json!({"x": "99", "kind": "a"})).contains("x may not be 99")
    );
}

#[test]
fn faults_are_named_alike_on_both_roads() {
    let mut text = RULEBOOK.replace(
        "total = { expr = \"total\", format = \"decimal\" }",
        "total = { expr = \"total\", format = \"decimal\" }\nfault = { expr = \"reads_unguarded\", format = \"decimal\" }",
    );
    let rb = parse_rulebook("roads.toml", &text).expect("valid");
    // `y` is missing: the fault belongs to step `unguarded`, read by another step.
    let case = serde_json::json!({"x": "1", "kind": "a"});
    let untraced = evaluate_value(&rb, &case, false).expect_err("a fault");
    let traced = evaluate_value(&rb, &case, true).expect_err("a fault");
    assert_eq!(untraced, traced);
    assert_eq!(untraced.context, "step unguarded");
    // A division by zero inside a per-item step.
    text = text.replace("expr = \"line / x\"", "expr = \"line / (x - 1)\"");
    let rb = parse_rulebook("roads.toml", &text).expect("valid");
    let case = serde_json::json!({"x": "1", "y": "1", "kind": "a", "lines": ["3"]});
    let untraced = evaluate_value(&rb, &case, false).expect_err("a fault");
    assert_eq!(
        untraced,
        evaluate_value(&rb, &case, true).expect_err("a fault")
    );
    assert_eq!(untraced.context, "step each.share of item 0");
    // Past the range of exact decimals, both roads refuse alike.
    let rb = parse_rulebook(
        "roads.toml",
        RULEBOOK
            .replace(
                "doubled = { expr",
                "big = { expr = \"big\", format = \"decimal\" }\ndoubled = { expr",
            )
            .as_str(),
    )
    .expect("valid");
    let case = serde_json::json!({"x": "79228162514264", "kind": "a"});
    let untraced = evaluate_value(&rb, &case, false).expect_err("an overflow");
    assert_eq!(
        untraced,
        evaluate_value(&rb, &case, true).expect_err("an overflow")
    );
    assert!(untraced.message.contains("exceeds the range"), "{untraced}");
}

/// A step's `cite` conditions run after its value on both roads, so a fault
/// in one (or in a step one reads) fails the case alike, named where it is.
#[test]
fn citations_fault_alike_on_both_roads() {
    // A per-item step's citation divides by zero when x is 1.
    let text = RULEBOOK.replace(
        "expr = \"line / x\"",
        "expr = \"line / x\"\ncite = [{ when = \"line / (x - 1) > 0\", clauses = [] }]",
    );
    let rb = parse_rulebook("roads.toml", &text).expect("valid");
    let case = serde_json::json!({"x": "1", "kind": "a", "lines": ["3"]});
    let untraced = evaluate_value(&rb, &case, false).expect_err("a fault");
    assert_eq!(
        untraced,
        evaluate_value(&rb, &case, true).expect_err("a fault")
    );
    assert_eq!(untraced.context, "citation of step each.share of item 0");
    // Otherwise the answer is the same on both roads.
    both_roads(
        &rb,
        serde_json::json!({"x": "2", "kind": "a", "lines": ["3"]}),
    );
    // A top-level citation reading a step that faults (`y` is missing): the
    // fault is that step's, though only the citation reads it.
    let text = RULEBOOK.replace(
        "expr = \"x * rate / 100\"\nround",
        "expr = \"x * rate / 100\"\ncite = [{ when = \"unguarded > 0\", clauses = [] }]\nround",
    );
    let rb = parse_rulebook("roads.toml", &text).expect("valid");
    let case = serde_json::json!({"x": "1", "kind": "a"});
    let untraced = evaluate_value(&rb, &case, false).expect_err("a fault");
    assert_eq!(
        untraced,
        evaluate_value(&rb, &case, true).expect_err("a fault")
    );
    assert_eq!(untraced.context, "step unguarded");
}

/// A sum over a group read in place sums as `sum` sums the list it stands
/// for: fractions exactly, a value that is no number refused at the call,
/// and a fault of a later item before any fault of the sum itself.
#[test]
fn sums_read_in_place_sum_as_the_list_would() {
    let with = |expr: &str| {
        let text = RULEBOOK.replace(
            "[steps.total]",
            &format!("[steps.probe]\nexpr = \"{expr}\"\n\n[steps.total]"),
        );
        let text = text.replace(
            "total = { expr = \"total\", format = \"decimal\" }",
            "total = { expr = \"total\", format = \"decimal\" }\nprobe = { expr = \"probe\", format = \"decimal\" }",
        );
        parse_rulebook("roads.toml", &text).expect("valid")
    };
    let lines = serde_json::json!({"x": "3", "kind": "a", "lines": ["1", "-1", "2"]});
    for (expr, expected) in [
        // Thirds, summed exactly, then a rounding point.
        ("round(sum(each.share) * 3, 2)", "\"probe\":\"2.00\""),
        (
            "round(sum([e.share for e in each if e.cents > 0]) * 3, 2)",
            "\"probe\":\"3.00\"",
        ),
        // A sum left a fraction cannot be written.
        ("sum([e.share for e in each])", "fraction"),
        // `y` is missing: `sum` refuses it, at the call.
        (
            "sum([y for e in each])",
            "`sum` needs numbers, found absent",
        ),
        // The third item divides by zero: that fault comes first.
        (
            "sum([if e.share < 0.5 then y else e.share / (x - 3) for e in each])",
            "division by zero",
        ),
        // A filter that faults.
        (
            "sum([e.share for e in each if e.share / (x - 3) > 0])",
            "division by zero",
        ),
        // A value missing in the body's arithmetic, named by its path.
        ("sum([e.share * y for e in each])", "`y` is missing"),
        // Constants folded at load.
        ("x * (rate / 100) + (2 - 1)", "\"probe\":\"1.375\""),
    ] {
        let outcome = both_roads(&with(expr), lines.clone());
        assert!(outcome.contains(expected), "{expr}: {outcome}");
    }
}

/// A payslip case of paie-fr, mostly valid, with every optional part sometimes there.
pub(crate) fn payslip() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
    use proptest::prelude::*;
    let cents = |max: i64| (0..max).prop_map(|c| format!("{}.{:02}", c / 100, c % 100));
    let hours = prop_oneof![Just("151.67"), Just("86.67"), Just("104"), Just("130")];
    (
        (1u32..=4, 1u32..=12, any::<bool>(), 0u32..120, cents(2_000_000), hours),
        (cents(6_000), 0u32..2000, 0u32..800, proptest::option::of(cents(100_000))),
        (proptest::option::of(0u32..3000), proptest::option::of(cents(50_000))),
        (proptest::option::of((cents(20_000), 0u32..=100)), proptest::option::of((0u32..25, cents(1_500), 0u32..=60))),
        (0u32..=1, 1u32..=28, 0u32..800_000, 0u32..1000),
    )
        .prop_map(
            |(
                (level, month, cadre, headcount, base, hours),
                (hourly, ot25, ot50, bonus),
                (absence, benefit),
                (health, meals),
                (move_kind, day, ytd, rate),
            )| {
                let mut case = serde_json::json!({
                    "level": level,
                    "month": format!("2026-{month:02}"),
                    "status": if cadre { "cadre" } else { "non_cadre" },
                    "headcount": headcount,
                    "base_salary": base,
                    "contract_hours": hours,
                    "hourly_rate": hourly,
                    "at_rate": format!("{}.{:02}", rate / 100 % 5, rate % 100),
                    "mobility_rate": "2.00",
                    "withholding_rate": format!("{}.{}", rate / 50, rate % 10),
                    "rgdu_coefficient": format!("0.{:04}", rate * 3),
                    "overtime_exempt_ytd": format!("{}.{:02}", ytd / 100, ytd % 100),
                });
                let set = |case: &mut serde_json::Value, key: &str, v: serde_json::Value| {
                    if let Some(o) = case.as_object_mut() {
                        o.insert(key.to_string(), v);
                    }
                };
                if hours == "151.67" {
                    set(&mut case, "overtime_25_hours", format!("{}.{:02}", ot25 / 100, ot25 % 100).into());
                    set(&mut case, "overtime_50_hours", format!("{}.{:02}", ot50 / 100, ot50 % 100).into());
                }
                if let Some(b) = bonus {
                    set(&mut case, "bonus", b.into());
                }
                if let (Some(a), true) = (absence, level <= 3) {
                    set(&mut case, "unpaid_absence_hours", format!("{}.{:02}", a / 100, a % 100).into());
                }
                if let Some(b) = benefit {
                    set(&mut case, "benefit_in_kind", b.into());
                }
                if let Some((premium, share)) = health {
                    set(&mut case, "health_insurance", serde_json::json!({"premium": premium, "employer_share": format!("{}.{:02}", share / 100, share % 100)}));
                }
                if let Some((count, face, share)) = meals {
                    set(&mut case, "meal_vouchers", serde_json::json!({"count": count, "face_value": face, "employer_share": format!("0.{share:02}")}));
                }
                if level == 4 {
                    let date = format!("2026-{month:02}-{day:02}");
                    set(&mut case, if move_kind == 0 { "entry_date" } else { "exit_date" }, date.into());
                }
                case
            },
        )
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 48, ..Default::default() })]

    /// Generated payslips come out the same on both roads, in both years and
    /// under every ablation: answers, rejections and faults alike.
    #[test]
    fn payslips_agree_on_both_roads(case in payslip()) {
        for rb in PAYSLIP_RULEBOOKS.iter() {
            // The month and dates fall in the rulebook's own year.
            let text = case.to_string().replace("\"2026-", &format!("\"{}-", rb.version()));
            let case: serde_json::Value = serde_json::from_str(&text).expect("JSON");
            let untraced = evaluate_value(rb, &case, false).map(|(o, _)| o);
            let traced = evaluate_value(rb, &case, true).map(|(o, _)| o);
            proptest::prop_assert_eq!(untraced, traced, "{} on {}", rb.reference(), case);
        }
    }
}

/// paie-fr 2025 and 2026, each as written and under each of its ablations.
pub(crate) static PAYSLIP_RULEBOOKS: std::sync::LazyLock<Vec<bareme::Rulebook>> =
    std::sync::LazyLock::new(|| {
        let mut all = Vec::new();
        for dir in ["rulebooks/paie-fr/v2025", "rulebooks/paie-fr/v2026"] {
            let rb = super::rulebook(dir);
            for a in rb.ablation_names() {
                all.push(rb.ablated(a).expect("a declared ablation"));
            }
            all.push(rb);
        }
        all
    });

/// A rulebook whose group runs over the rows of a table: the untraced road
/// runs each row's steps folded against its constant fields.
const ROWS: &str = r#"
[rulebook]
id = "rows"
version = 1
schema = 1

[inputs.x]
type = "decimal"
required = true

[parameters.default_rate]
value = "2"

[tables.lines]
kind = "keyed"
keys = ["code"]

[tables.lines.columns]
code = { type = "text" }
rate = { type = "decimal", nullable = true }
rate_from = { type = "enum", values = ["default"], nullable = true }

[[tables.lines.rows]]
code = "a"
rate = "3"

[[tables.lines.rows]]
code = "b"
rate_from = "default"

[[tables.lines.rows]]
code = "c"

[per_item.each]
over = "rows(lines)"
item = "line"

[per_item.each.steps.rate]
expr = "FORMULA"

[per_item.each.steps.amount]
expr = "x * coalesce(rate, 0)"

[steps.total]
expr = "sum(each.amount)"

[[checks]]
decision = "d"

[decisions.d.answer]
total = { expr = "total", format = "decimal" }
"#;

/// A choice settled by a row's constant fields on the untraced road names a
/// value it cannot use as the evaluator names it on the traced road: the
/// whole choice, not the arm it settled on (found by the rulebook fuzz
/// target: a `match … { else => line.rate } + 0` over a row without a rate).
#[test]
fn a_choice_settled_by_a_row_is_named_as_the_choice_on_both_roads() {
    let case = serde_json::json!({"x": "10"});
    for (formula, named, item) in [
        (
            "match coalesce(line.rate_from, '') { 'default' => default_rate, else => line.rate } + 0",
            "`match coalesce(line.rate_from, '') { 'default' => default_rate, else => line.rate }` is missing",
            2,
        ),
        (
            "(if is_missing(line.rate_from) then line.rate else default_rate) * 1",
            "`(if is_missing(line.rate_from) then line.rate else default_rate)` is missing",
            2,
        ),
        // Row b has no rate either.
        ("line.rate * 1", "`line.rate` is missing", 1),
    ] {
        let rb = parse_rulebook("rows.toml", &ROWS.replace("FORMULA", formula)).expect("valid");
        let untraced = evaluate_value(&rb, &case, false).expect_err("a row has no rate");
        let traced = evaluate_value(&rb, &case, true).expect_err("a row has no rate");
        assert_eq!(untraced, traced, "{formula}");
        assert!(untraced.message.starts_with(named), "{formula}: {untraced}");
        assert_eq!(
            untraced.context,
            format!("step each.rate of item {item}"),
            "{formula}"
        );
    }
    // Settled at the root of a step, a missing arm is the step's missing
    // value, and the answer the same on both roads: 10 × 3 + 10 × 2 + 0.
    let rb = parse_rulebook(
        "rows.toml",
        &ROWS.replace(
            "FORMULA",
            "match coalesce(line.rate_from, '') { 'default' => default_rate, else => line.rate }",
        ),
    )
    .expect("valid");
    assert_eq!(both_roads(&rb, case), "{\"total\":\"50\"}");
}

/// `x in list` with a null on either side names the null: the value by
/// its text, an item by the list it is an item of (both used to show the
/// whole `code in codes`), the same on both roads.
#[test]
fn a_null_compared_by_in_is_named() {
    let rb = parse_rulebook(
        "in.toml",
        r#"
[rulebook]
id = "in"
version = 1
schema = 1

[inputs.codes]
type = "list"
items = { type = "text", nullable = true }
required = true

[inputs.code]
type = "text"
nullable = true
default = "A"

[steps.listed]
expr = "code in codes"

[steps.unlisted]
expr = "code not in codes"

[[checks]]
decision = "done"

[decisions.done.answer]
listed = { expr = "listed" }
unlisted = { expr = "unlisted" }
"#,
    )
    .expect("valid");
    let item = "an item of `codes` is null, so it cannot be used here (test it with is_missing first) (in step listed: `codes`)";
    let value = "`code` is null, so it cannot be used here (test it with is_missing first) (in step listed: `code`)";
    for (case, expected) in [
        (
            serde_json::json!({"codes": ["B", "A"]}),
            r#"{"listed":true,"unlisted":false}"#,
        ),
        (
            serde_json::json!({"codes": []}),
            r#"{"listed":false,"unlisted":true}"#,
        ),
        // Every item is compared: a null after the match faults too.
        (serde_json::json!({"codes": ["A", null]}), item),
        (serde_json::json!({"codes": ["B", null]}), item),
        (serde_json::json!({"codes": ["B"], "code": null}), value),
    ] {
        let outcome = both_roads(&rb, case.clone());
        assert!(outcome.contains(expected), "{case}: {outcome}");
    }
}
