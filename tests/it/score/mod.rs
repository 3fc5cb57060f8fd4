//! Rubrics against their rulebooks: every bundled rubric loads; a rubric
//! that disagrees with its rulebook fails to load, located, naming both
//! sides; reference replies score the maximum on generated tasks and
//! conformance cases; arbitrary text never panics the grader; the CLI.

mod command;

use std::path::{Path, PathBuf};
use std::process::Command;

use bareme::unstable::coverage::Task;
use bareme::unstable::generate::{load_generator, run, RunOptions, TaskDrawer};
use bareme::unstable::score::{
    grade, load_rubric, parse_rubric, reference_outcome, Rubric, Scorer,
};
use proptest::prelude::*;
use serde_json::{json, Value};

use super::{root, rulebook};

const RUBRICS: &[(&str, &str)] = &[
    (
        "rulebooks/luma-payroll/rubric-8.toml",
        "rulebooks/luma-payroll/v3",
    ),
    ("rulebooks/paie-fr/rubric-1.toml", "rulebooks/paie-fr/v2026"),
    (
        "rulebooks/succession-fr/rubric-1.toml",
        "rulebooks/succession-fr/v2026",
    ),
    (
        "rulebooks/sales-tax/rubric-1.toml",
        "rulebooks/sales-tax/v1",
    ),
];

fn rubric(rel: &str) -> Rubric {
    match load_rubric(&root().join(rel), None) {
        Ok((r, _)) => r,
        Err(bareme::unstable::score::RubricError::Invalid(d)) => panic!("{}", d.render(100, false)),
        Err(e) => panic!("{e}"),
    }
}

/// Every `rubric-*.toml` under `rulebooks/`.
fn rubric_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for set in std::fs::read_dir(root().join("rulebooks"))
        .into_iter()
        .flatten()
        .flatten()
    {
        for f in std::fs::read_dir(set.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let name = f.file_name().to_string_lossy().to_string();
            if name.starts_with("rubric-") && name.ends_with(".toml") {
                out.push(f.path());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_bundled_rubric_loads() {
    let files = rubric_files();
    assert!(files.len() >= 4, "{files:?}");
    for f in files {
        if let Err(e) = load_rubric(&f, None) {
            match e {
                bareme::unstable::score::RubricError::Invalid(d) => {
                    panic!("{}", d.render(100, false))
                }
                e => panic!("{}: {e}", f.display()),
            }
        }
    }
}

/// The luma rubric's text with one replacement, checked against luma-payroll@3.
fn luma_with(from: &str, to: &str) -> Result<Rubric, bareme::unstable::diag::Diagnostics> {
    let path = root().join("rulebooks/luma-payroll/rubric-8.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{from}");
    let text = text.replace(from, to);
    parse_rubric(
        "rubric-8.toml",
        &text,
        &rulebook("rulebooks/luma-payroll/v3"),
    )
}

#[test]
fn a_field_the_rulebook_lacks_fails_naming_both() {
    let d = luma_with(
        "net_pay = { format = \"money\", clauses = [\"R6\"] }",
        "net_pay = { format = \"money\", clauses = [\"R6\"] }\nbonus = { format = \"money\" }",
    )
    .unwrap_err();
    assert_eq!(d.locations(), ["score::unknown_field 42:9-42:29"]);
    let message = &d.problems[0].message;
    assert!(
        message.contains("luma-payroll@3") && message.contains("`bonus`"),
        "{message}"
    );
    insta::assert_snapshot!("rubric_unknown_field", d.render(80, false));
}

/// A rubric is untrusted: numbers past 1,000,000 in size are refused where
/// they are written (weights of 7.9 × 10^28 made grading panic on their
/// sum), and the largest allowed grade a reply without a fault.
#[test]
fn rubric_numbers_are_bounded_so_grading_cannot_overflow() {
    let weights = "weights = { employee_contribution = \"1\", taxable_pay = \"1\", income_tax = \"1\", net_pay = \"1\" }";
    let huge = "79228162514264337593543950335";
    let d = luma_with(
        weights,
        &format!("weights = {{ employee_contribution = \"{huge}\", taxable_pay = \"{huge}\", income_tax = \"1\", net_pay = \"1\" }}"),
    )
    .unwrap_err();
    assert_eq!(d.problems.len(), 2);
    assert!(
        d.problems.iter().all(|p| p.code == "score::decimal"
            && p.message
                .contains("larger than a rubric number may be (1000000)")),
        "{:?}",
        d.problems
    );
    assert!(luma_with("scale = \"0.2\"", "scale = \"-1000000.5\"").is_err());
    // At the bound, a wrong reply grades and stays a number (`exact` at
    // the bound too, so that partial credit stays below the most).
    let text = std::fs::read_to_string(root().join("rulebooks/luma-payroll/rubric-8.toml"))
        .expect("the rubric");
    assert!(text.contains("exact = \"0.95\""));
    let text = text
        .replace("exact = \"0.95\"", "exact = \"999999.95\"")
        .replace(
            "base = \"-0.5\"\nscale = \"0.2\"\ncap = \"-0.3\"",
            "base = \"1000000\"\nscale = \"-1000000\"\ncap = \"1000000\"",
        )
        .replace(weights, &weights.replace("\"1\"", "\"1000000\""));
    let r = parse_rubric(
        "rubric-8.toml",
        &text,
        &rulebook("rulebooks/luma-payroll/v3"),
    )
    .expect("a rubric at the bound");
    let expected = json!({"decision": "calculate", "currency": "LCR", "gross_pay": "3084.04",
        "employee_contribution": "123.36", "allowed_deduction": "131.70", "taxable_pay": "2828.98",
        "income_tax": "138.32", "net_pay": "2690.66", "clauses": ["R1", "R2", "R3", "R4", "R5", "R6"]});
    let mut reply = expected.clone();
    reply["income_tax"] = json!("138.33");
    let g = grade(&r, &expected, &reply.to_string(), None).expect("graded");
    // 1,000,000 − 1,000,000 × 3/4 of the weight right.
    assert_eq!(g.score.normalize().to_string(), "250000");
}

/// Every score lies between the floor (`malformed`) and the most
/// (`exact` + `citations`): rubrics whose numbers said otherwise loaded,
/// and graded a malformed reply 5 where the most was 1, partial credit
/// −5 under a floor of 0, a wrong answer above an exact one.
#[test]
fn a_rubrics_scores_lie_between_its_floor_and_its_most() {
    let codes = |r: Result<Rubric, bareme::unstable::diag::Diagnostics>| -> Vec<String> {
        match r {
            Ok(_) => Vec::new(),
            Err(d) => d
                .problems
                .iter()
                .map(|p| format!("{}: {}", p.code, p.message))
                .collect(),
        }
    };
    // The line of the key each problem underlines, and the underlined text.
    let underlined = |from: &str, to: &str| -> Vec<String> {
        let text = std::fs::read_to_string(root().join("rulebooks/luma-payroll/rubric-8.toml"))
            .unwrap()
            .replace(from, to);
        let Err(d) = luma_with(from, to) else {
            return Vec::new();
        };
        d.problems
            .iter()
            .map(|p| {
                let Some(span) = p.span else {
                    return String::from("(nowhere)");
                };
                let (start, end) = (span.start as usize, span.end as usize);
                let line_from = text[..start].rfind('\n').map_or(0, |i| i + 1);
                let line_to = text[start..].find('\n').map_or(text.len(), |i| start + i);
                format!("{} <{}>", &text[line_from..line_to], &text[start..end])
            })
            .collect()
    };
    assert_eq!(
        underlined("cap = \"-0.3\"", "cap = \"-5\""),
        ["cap = \"-5\" <\"-5\">"]
    );
    assert_eq!(
        underlined(
            "scale = \"0.2\"\ncap = \"-0.3\"",
            "scale = \"3\"\ncap = \"3\""
        ),
        ["scale = \"3\" <\"3\">"]
    );
    assert_eq!(
        underlined("malformed = \"-0.5\"", "malformed = \"5\"").last(),
        Some(&String::from("base = \"-0.5\" <\"-0.5\">"))
    );
    assert_eq!(
        codes(luma_with("malformed = \"-0.5\"", "malformed = \"5\"")),
        [
            "score::order: `wrong_decision` = -0.5 is below the floor, `malformed` = 5: a malformed reply scores the least",
            "score::order: `wrong` = -0.5 is below the floor, `malformed` = 5: a malformed reply scores the least",
            "score::order: `exact` = 0.95 is below the floor, `malformed` = 5: a malformed reply scores the least",
            "score::order: the partial credit of `calculate` can score -0.5, below the floor, `malformed` = 5",
        ]
    );
    assert_eq!(
        codes(luma_with("wrong = \"-0.5\"", "wrong = \"2\"")),
        ["score::order: `wrong` = 2 is above `exact` = 0.95: an exact answer scores the most"]
    );
    assert_eq!(
        codes(luma_with("cap = \"-0.3\"", "cap = \"-5\"")),
        ["score::order: the partial credit of `calculate` can score -5, below the floor, `malformed` = -0.5"]
    );
    assert_eq!(
        codes(luma_with("scale = \"0.2\"\ncap = \"-0.3\"", "scale = \"3\"\ncap = \"3\"")),
        ["score::order: the partial credit of `calculate` can score 2.5, above the most a reply scores, 1.00"]
    );
    assert!(codes(luma_with("cap = \"-0.3\"", "cap = \"-0.3\"")).is_empty());
}

#[test]
fn rubric_drift_is_located() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "net_pay = { format = \"money\", clauses = [\"R6\"] }\n",
            "",
            "score::ungraded_field",
        ),
        (
            "[decisions.retrieve",
            "[decisions.refund",
            "score::unknown_decision",
        ),
        (
            "reason_code = { format = \"any\"",
            "reason_code = { format = \"money\"",
            "score::format",
        ),
        (
            "rulebook = \"luma-payroll@3\"",
            "rulebook = \"luma-payroll@2\"",
            "score::rulebook_version",
        ),
        (
            "clauses = [\"R1\", \"R7\", \"R9\"]",
            "clauses = [\"R1\", \"R77\"]",
            "score::unknown_clause",
        ),
        (
            "weights = { employee_contribution",
            "weights = { employer_contribution",
            "score::unknown_field",
        ),
        (
            "decision_key = \"decision\"",
            "decision_key = \"currency\"",
            "score::decision_key",
        ),
        (
            "format = \"decimal\"",
            "format = \"percent\"",
            "score::format",
        ),
    ];
    for (from, to, code) in cases {
        let d = luma_with(from, to).unwrap_err();
        let codes: Vec<&str> = d.problems.iter().map(|p| p.code).collect();
        assert!(codes.contains(code), "{from} → {to}: {codes:?}");
        assert!(
            d.problems.iter().all(|p| p.span.is_some()),
            "{:?}",
            d.locations()
        );
    }
}

/// `n` tasks of a generator with a seed, as task lines.
pub(super) fn generated(rel: &str, n: u64) -> Vec<Task> {
    let (generator, rb) = load_generator(&root().join(rel), None).expect("generator");
    let engine = TaskDrawer::new(&generator, &rb).expect("engine");
    let options = RunOptions {
        seed: 11,
        start: 0,
        count: n,
        level: None,
        jobs: 2,
    };
    let mut out = Vec::new();
    run(&engine, options, &mut out, &|_| {}).expect("run");
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| Task::from_json(l).expect("task"))
        .collect()
}

/// Tasks made from a rulebook's conformance cases whose outcome is an answer.
fn conformance_tasks(dir: &str) -> Vec<Task> {
    let rb = rulebook(dir);
    bareme::unstable::conformance::cases(&root().join(dir))
        .expect("cases")
        .into_iter()
        .filter_map(|(name, case)| {
            let expected = reference_outcome(&rb, &case);
            expected.get("error").is_none().then(|| {
                let line = json!({"id": name, "rulebook": format!("{}@{}", rb.id(), rb.version()),
                    "rulebook_hash": rb.hash(), "case": case, "expected": expected});
                Task::from_json(&line.to_string()).expect("task")
            })
        })
        .collect()
}

fn all_score_the_maximum(scorer: &Scorer, tasks: &[Task]) {
    assert!(!tasks.is_empty());
    for t in tasks {
        let reply = scorer.reference_reply(&t.expected);
        let g = scorer.score(t, &reply, None).expect("scored");
        // Under an explanation rule the reference's explanation is ungraded
        // (no judge): the reply keeps its full deterministic score.
        let explained = scorer.rubric().score.explanation.as_ref().is_some_and(|e| {
            e.decisions
                .iter()
                .any(|d| t.expected["decision"] == d.as_str())
        });
        assert_eq!(g.explanation_graded, explained.then_some(false), "{}", t.id);
        assert_eq!(
            g.score.normalize(),
            scorer.rubric().max().normalize(),
            "{}: {:?}",
            t.id,
            g.components
        );
        assert_eq!(g.malformed, None);
    }
}

#[test]
fn reference_replies_score_the_maximum() {
    for (rubric_rel, dir) in RUBRICS {
        let scorer = Scorer::new(rubric(rubric_rel), false);
        all_score_the_maximum(&scorer, &conformance_tasks(dir));
    }
    let luma = Scorer::new(rubric("rulebooks/luma-payroll/rubric-8.toml"), false);
    all_score_the_maximum(
        &luma,
        &generated("rulebooks/luma-payroll/generator-4.toml", 120),
    );
    let paie = Scorer::new(rubric("rulebooks/paie-fr/rubric-1.toml"), false);
    all_score_the_maximum(&paie, &generated("rulebooks/paie-fr/generator-1.toml", 24));
    let succ = Scorer::new(rubric("rulebooks/succession-fr/rubric-1.toml"), false);
    all_score_the_maximum(
        &succ,
        &generated("rulebooks/succession-fr/generator-1.toml", 24),
    );
}

#[test]
fn a_task_for_another_rulebook_version_is_refused() {
    let scorer = Scorer::new(rubric("rulebooks/luma-payroll/rubric-8.toml"), false);
    let mut task = conformance_tasks("rulebooks/luma-payroll/v3").remove(0);
    task.hash = "0".repeat(64);
    let err = scorer.score(&task, "{}", None).unwrap_err();
    assert_eq!(err.code(), "score::task_mismatch");
    let err = err.to_string();
    assert!(
        err.contains(&"0".repeat(64)) && err.contains(scorer.rubric().rulebook_hash.as_str()),
        "{err}"
    );
    let paie = Scorer::new(rubric("rulebooks/paie-fr/rubric-1.toml"), false);
    let task = conformance_tasks("rulebooks/luma-payroll/v3").remove(0);
    let err = paie.score(&task, "{}", None).unwrap_err();
    assert_eq!(err.code(), "score::task_mismatch");
    assert!(err.to_string().contains("paie-fr@2026"), "{err}");
}

#[test]
fn a_component_breakdown() {
    let r = rubric("rulebooks/luma-payroll/rubric-8.toml");
    let expected = json!({"decision": "calculate", "currency": "LCR", "gross_pay": "3084.04",
        "employee_contribution": "123.36", "allowed_deduction": "131.70", "taxable_pay": "2828.98",
        "income_tax": "138.32", "net_pay": "2690.66", "clauses": ["R1", "R2", "R3", "R4", "R5", "R6"]});
    let mut reply = expected.clone();
    reply["income_tax"] = json!("138.33");
    reply["net_pay"] = json!("2690.65");
    let g = grade(&r, &expected, &reply.to_string(), None).unwrap();
    let pretty = serde_json::to_string_pretty(&g.to_json()).unwrap();
    insta::assert_snapshot!("luma_partial_payslip", pretty);
}

fn envelope_cases() -> &'static [(Rubric, Value)] {
    static CASES: std::sync::OnceLock<Vec<(Rubric, Value)>> = std::sync::OnceLock::new();
    CASES.get_or_init(|| vec![
        (
            rubric(RUBRICS[0].0),
            json!({"decision": "clarify", "reason_code": "MISSING_GROSS_PAY", "clauses": ["R1", "R7"]}),
        ),
        (
            rubric(RUBRICS[1].0),
            json!({"brut": "1.00", "total_cotisations_salariales": "0.00", "net_imposable": "1.00", "prelevement_source": "0.00", "net_a_payer": "1.00", "cout_employeur": "1.00"}),
        ),
        (
            rubric(RUBRICS[2].0),
            json!({"beneficiaires": {"B1": {"part_taxable": 0, "droits": 0}}, "total_droits": 0}),
        ),
        (
            rubric(RUBRICS[3].0),
            json!({"cart_id": "C1", "lines": [], "subtotal": "0.00", "tax": "0.00", "total": "0.00"}),
        ),
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_never_panic_the_grader(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes);
        for (r, expected) in envelope_cases() {
            let g = grade(r, expected, &text, None).unwrap();
            prop_assert!(g.score <= r.max());
        }
    }
}

/// Partial credit whose weights are all 0 loaded, and gave every reply the
/// same share (0): `scale` never counted. It is refused at the first weight;
/// a negative weight is named as such.
#[test]
fn partial_credit_weighing_no_field_is_refused() {
    let d = luma_with(
        "weights = { employee_contribution = \"1\", taxable_pay = \"1\", income_tax = \"1\", net_pay = \"1\" }",
        "weights = { employee_contribution = \"0\", taxable_pay = \"0.00\", income_tax = \"0\", net_pay = \"0\" }",
    )
    .unwrap_err();
    assert_eq!(d.locations(), ["score::weights 48:37-48:40"]);
    assert!(
        d.problems[0].message.contains("every weight is 0"),
        "{}",
        d.problems[0].message
    );
    let d = luma_with(
        "taxable_pay = \"1\", income_tax",
        "taxable_pay = \"-1\", income_tax",
    )
    .unwrap_err();
    assert_eq!(d.problems[0].message, "a weight cannot be negative");
}

/// An exponent is read into 64 bits, 18 digits at most: a rubric asking
/// for more loaded and was held to 18 without a word.
#[test]
fn max_exponent_digits_past_18_is_refused_at_load() {
    let with = |digits: &str| {
        let text = std::fs::read_to_string(root().join("rulebooks/luma-payroll/rubric-8.toml"))
            .expect("rubric 8")
            .replacen(
                "[score]",
                &format!("[amounts]\nmax_exponent_digits = {digits}\n\n[score]"),
                1,
            );
        parse_rubric(
            "rubric-8.toml",
            &text,
            &rulebook("rulebooks/luma-payroll/v3"),
        )
    };
    assert!(with("18").is_ok());
    for digits in ["19", "9223372036854775807"] {
        let d = with(digits).expect_err("refused");
        assert_eq!(
            d.problems[0].message,
            format!("`max_exponent_digits` is at most 18, not {digits}")
        );
    }
}

/// A list that names one thing twice was read as it is and copied into
/// every graded line: a clause repeated 100,000 times made 500 KB of
/// output per reply.
#[test]
fn a_clause_or_gate_named_twice_is_refused_at_load() {
    let d = luma_with(
        "format_clauses = [\"R6\"]",
        "format_clauses = [\"R6\", \"R6\"]",
    )
    .expect_err("refused");
    assert_eq!(d.problems[0].message, "a clause list names `R6` twice");
    assert_eq!(d.problems[0].code, "score::repeated");
}

/// `[amounts] places` below the places the rulebook writes, or a bound of
/// 0 or below, made every reply malformed, the reference's own included:
/// `baselines` showed the reference at 0 and exited 0.
#[test]
fn amounts_the_reference_could_not_write_are_refused_at_load() {
    let path = root().join("rulebooks/paie-fr/rubric-1.toml");
    let text = std::fs::read_to_string(&path).expect("rubric 1");
    let rb = rulebook("rulebooks/paie-fr/v2026");
    let with = |from: &str, to: &str| {
        assert!(text.contains(from), "{from}");
        match parse_rubric("rubric-1.toml", &text.replacen(from, to, 1), &rb) {
            Ok(_) => Vec::new(),
            Err(d) => d
                .problems
                .iter()
                .map(|p| p.message.clone())
                .collect::<Vec<_>>(),
        }
    };
    assert!(with("places = 2", "places = 2").is_empty());
    let problems = with("places = 2", "places = 1");
    assert!(
        problems.iter().any(|p| p.ends_with(
            "of `payslip` in paie-fr@2026 is written with 2 places, more than the 1 `[amounts] places` lets an amount have"
        )),
        "{problems:?}"
    );
    for bound in ["0", "-1", "0.00", "-0", "-0.01"] {
        let problems = with(
            "max_abs = \"1000000000\"",
            &format!("max_abs = \"{bound}\""),
        );
        assert_eq!(
            problems,
            [format!("`max_abs = \"{bound}\"`: the bound is above 0")]
        );
    }
}

/// A failed gate paid `otherwise` (0 by default) even when every reply
/// whose gates held was paid less (rubric 8: `base` −0.5, `cap` −0.3), so
/// a wrong net pay scored above a right one.
#[test]
fn a_failed_gate_cannot_pay_more_than_holding_it() {
    let partial =
        "[decisions.calculate.partial]  # derived-field accuracy; copied inputs earn nothing\n";
    let d = luma_with(partial, &format!("{partial}gates = [\"net_pay\"]\n")).expect_err("refused");
    assert_eq!(
        d.problems[0].message,
        "the partial credit of `calculate` pays 0 (`otherwise`) when a gate fails, more than the -0.5 it can pay when they hold"
    );
    luma_with(
        partial,
        &format!("{partial}gates = [\"net_pay\"]\notherwise = \"-0.5\"\n"),
    )
    .expect("a failed gate paid the least");
}

/// A rubric is named by its number: `rubric-33.toml` holding `number = 8`
/// loaded as "rubric-33" and was compared beside rubric 8, and
/// `number = -8` loaded.
#[test]
fn a_rubric_s_number_is_its_file_s_and_from_1() {
    let path = root().join("rulebooks/luma-payroll/rubric-8.toml");
    let text = std::fs::read_to_string(&path).expect("rubric 8");
    let rb = rulebook("rulebooks/luma-payroll/v3");
    let first = |name: &str, text: &str| match parse_rubric(name, text, &rb) {
        Ok(_) => String::new(),
        Err(d) => d.problems[0].message.clone(),
    };
    assert_eq!(first("rubric-8.toml", &text), "");
    assert_eq!(first("mine.toml", &text), "");
    assert_eq!(
        first("rubric-33.toml", &text),
        "`number = 8` in a file named rubric-33: the file is named by its number"
    );
    let negative = text.replacen("number = 8", "number = -8", 1);
    assert_ne!(negative, text);
    assert_eq!(
        first("mine.toml", &negative),
        "`number = -8`: a rubric's number is a whole number from 1"
    );
}

/// An optional key an answer has loaded and was silently ignored: the
/// field was still graded as the answer's (hostile probe). It is refused
/// where it is named, the decision key too.
#[test]
fn an_optional_key_the_answer_has_is_refused_at_load() {
    for key in ["net_pay", "decision"] {
        let d = luma_with(
            "optional = { explanation = \"string\" }",
            &format!("optional = {{ explanation = \"string\", {key} = \"string\" }}"),
        )
        .expect_err("refused");
        assert_eq!(d.problems[0].code, "score::optional", "{key}");
        assert!(
            d.problems[0].message.starts_with(&format!(
                "`{key}` is a field of the answer of `calculate`: optional keys are those beside the answer's"
            )),
            "{}",
            d.problems[0].message
        );
    }
}
