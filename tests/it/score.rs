//! Rubrics against their rulebooks: every bundled rubric loads; a rubric
//! that disagrees with its rulebook fails to load, located, naming both
//! sides; reference replies score the maximum on generated tasks and
//! conformance cases; arbitrary text never panics the grader; the CLI.

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

fn bareme(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_bareme"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run bareme");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn write(dir: &Path, name: &str, lines: &[Value]) -> String {
    let path = dir.join(name);
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn cli_scores_replies_in_order_with_a_summary() {
    let dir = std::env::temp_dir().join(format!("bareme-score-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rb = rulebook("rulebooks/luma-payroll/v3");
    let task = |id: &str, case: Value| {
        let expected = reference_outcome(&rb, &case);
        json!({"id": id, "level": 1, "tier": "payslip", "rulebook": "luma-payroll@3", "rulebook_hash": rb.hash(), "case": case, "expected": expected})
    };
    let pay = task(
        "p1",
        json!({"task": "payslip", "gross_pay": "1205.12", "payroll_month": "2026-07", "allowed_deduction": "74.70"}),
    );
    let mut trap = task("t1", json!({"task": "payslip", "payroll_month": "2026-07"}));
    trap["tier"] = json!("trap");
    let tasks = write(&dir, "tasks.jsonl", &[pay.clone(), trap.clone()]);
    let score = |replies: &str, more: &[&str]| {
        let mut args = vec![
            "score",
            "rulebooks/luma-payroll/rubric-8.toml",
            "--tasks",
            &tasks,
            "--replies",
            replies,
        ];
        args.extend_from_slice(more);
        bareme(&args)
    };
    let replies = write(
        &dir,
        "replies.jsonl",
        &[
            json!({"id": "p1", "reply": pay["expected"].to_string()}),
            json!({"id": "t1", "reply": with_explanation(&trap["expected"]), "explanation_grade": 0.5}),
            json!({"id": "p1", "reply": format!("```json\n{}\n```", pay["expected"])}),
            json!({"id": "t1"}),
        ],
    );
    let (code, out, err) = score(&replies, &[]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let scores: Vec<(String, String, Option<&str>)> = lines
        .iter()
        .map(|l| {
            (
                l["id"].as_str().unwrap().to_string(),
                l["score"].to_string(),
                l["malformed"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        scores,
        [
            ("p1".to_string(), "1".to_string(), None),
            // 0.9 × 1 + 0.1 × 0.5
            ("t1".to_string(), "0.95".to_string(), None),
            ("p1".to_string(), "-0.5".to_string(), Some("reply::fence")),
            (
                "t1".to_string(),
                "-0.5".to_string(),
                Some("reply::not_text")
            ),
        ]
    );
    assert!(err.contains("4 replies, mean 0.2375, 2 malformed"), "{err}");
    assert!(err.contains("tier payslip: 2 replies, mean 0.25"), "{err}");
    assert!(err.contains("tier trap: 2 replies, mean 0.225"), "{err}");
    // Half a surrogate pair in one reply (as Python's json.dumps writes
    // it) is that reply's floor, not the end of the run.
    let lone = dir.join("lone.jsonl");
    std::fs::write(
        &lone,
        format!(
            "{}\n{}\n",
            r#"{"id": "p1", "reply": "{\"net_pay\": \"1\ud800\"}"}"#,
            json!({"id": "p1", "reply": pay["expected"].to_string()})
        ),
    )
    .unwrap();
    let (code, out, err) = score(&lone.display().to_string(), &[]);
    assert_eq!(code, 0, "{err}");
    let graded: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        graded
            .iter()
            .map(|g| (g["score"].to_string(), g["malformed"].clone()))
            .collect::<Vec<_>>(),
        [
            ("-0.5".to_string(), json!("reply::lone_surrogate")),
            ("1".to_string(), Value::Null)
        ]
    );
    // No reply has no mean: not a 0 that reads as every reply wrong.
    let none = write(&dir, "none.jsonl", &[]);
    let summary = dir.join("summary.json");
    let (code, out, err) = score(&none, &["--summary", &summary.display().to_string()]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert!(err.contains("0 replies, mean none (no reply)"), "{err}");
    let s: Value = serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap();
    assert_eq!((&s["replies"], &s["mean"]), (&json!(0), &Value::Null));

    // A task written for another hash of the rulebook is refused, naming both.
    let mut drifted = pay.clone();
    drifted["rulebook_hash"] = json!("f".repeat(64));
    let tasks2 = write(&dir, "drifted.jsonl", &[drifted]);
    let (code, _, err) = bareme(&[
        "score",
        "rulebooks/luma-payroll/rubric-8.toml",
        "--tasks",
        &tasks2,
        "--replies",
        &replies,
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains(&"f".repeat(64)) && err.contains(rb.hash()),
        "{err}"
    );
    // A reply to an unknown task is an error.
    let unknown = write(&dir, "unknown.jsonl", &[json!({"id": "zz", "reply": "{}"})]);
    let (code, _, err) = score(&unknown, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("no task has this id"), "{err}");
    // A fault names its own line, and the replies before it are still
    // written, in order, on one worker or two.
    let good = json!({"id": "p1", "reply": pay["expected"].to_string()});
    let late = write(
        &dir,
        "late.jsonl",
        &[
            good.clone(),
            good.clone(),
            json!({"id": "zz", "reply": "{}"}),
            good,
        ],
    );
    let mut outs = Vec::new();
    for jobs in ["1", "2"] {
        let (code, out, err) = score(&late, &["--jobs", jobs]);
        assert_eq!(code, 2);
        assert!(
            err.contains(&format!("{late}, line 3: reply zz: no task has this id")),
            "{err}"
        );
        assert_eq!(out.lines().count(), 2, "{out}");
        assert!(
            out.lines()
                .all(|l| l.starts_with(r#"{"id":"p1","score":1"#)),
            "{out}"
        );
        outs.push(out);
    }
    assert_eq!(outs[0], outs[1]);
    let broken = dir.join("broken.jsonl");
    std::fs::write(
        &broken,
        format!("{}\n\n{{\"id\": \n", json!({"id": "p1", "reply": "{}"})),
    )
    .unwrap();
    let (code, out, err) = score(&broken.display().to_string(), &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("broken.jsonl, line 3: the line is not JSON"),
        "{err}"
    );
    assert_eq!(out.lines().count(), 1, "{out}");
    // A rubric of another rulebook refuses the tasks.
    let (code, _, err) = bareme(&[
        "score",
        "rulebooks/paie-fr/rubric-1.toml",
        "--tasks",
        &tasks,
        "--replies",
        &replies,
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("paie-fr@2026"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn luma_rubric_history_prices_the_seeds_incentives() {
    let expected = json!({"decision": "calculate", "currency": "LCR", "gross_pay": "3084.04",
        "employee_contribution": "123.36", "allowed_deduction": "131.70", "taxable_pay": "2828.98",
        "income_tax": "138.32", "net_pay": "2690.66", "clauses": ["R1", "R2", "R3", "R4", "R5", "R6"]});
    // Copied inputs and the usual clauses, no arithmetic.
    let mut copied = expected.clone();
    for k in [
        "employee_contribution",
        "taxable_pay",
        "income_tax",
        "net_pay",
    ] {
        copied[k] = json!("0.00");
    }
    let refusal = json!({"decision": "clarify", "reason_code": "MISSING_PAYROLL_MONTH", "clauses": ["R1", "R7"]});
    let trap =
        json!({"decision": "clarify", "reason_code": "MISSING_GROSS_PAY", "clauses": ["R1", "R7"]});
    let wrong_reason = json!({"decision": "clarify", "reason_code": "CONFLICTING_GROSS_PAY", "clauses": ["R7", "R9"]});
    let score = |n: u32, expected: &Value, reply: &Value| {
        let r = rubric(&format!("rulebooks/luma-payroll/rubric-{n}.toml"));
        grade(&r, expected, &reply.to_string(), None)
            .unwrap()
            .score
            .normalize()
            .to_string()
    };
    // 3: copying inputs pays (0.25 × 4/8).
    assert_eq!(score(3, &expected, &copied), "0.125");
    // 4: only computed fields: copying pays nothing, as does a refusal.
    assert_eq!(score(4, &expected, &copied), "0");
    assert_eq!(score(4, &expected, &refusal), "0");
    // 5: the right decision pays 0.05, on payslips and traps alike; calculating through a trap 0.
    assert_eq!(score(5, &expected, &copied), "0.05");
    assert_eq!(score(5, &trap, &wrong_reason), "0.05");
    assert_eq!(score(5, &trap, &copied), "0");
    // 6: a refusal and a wrong payslip both 0.
    assert_eq!(score(6, &expected, &refusal), "0");
    assert_eq!(score(6, &expected, &copied), "0");
    // 7: a refusal (-0.5) below a wrong payslip (0).
    assert_eq!(score(7, &expected, &refusal), "-0.5");
    assert_eq!(score(7, &expected, &copied), "0");
    // 8: parity: a refusal and a payslip with every computed field wrong, both -0.5.
    assert_eq!(score(8, &expected, &refusal), "-0.5");
    assert_eq!(score(8, &expected, &copied), "-0.5");
    for n in 3..=8 {
        assert_eq!(score(n, &expected, &expected), "1", "rubric {n}");
    }
}

/// A reference answer with an explanation added.
fn with_explanation(expected: &Value) -> String {
    let mut v = expected.clone();
    v["explanation"] = json!("The payroll month is missing; which month is it?");
    v.to_string()
}

#[test]
fn cli_judge_grades_records_and_replays_explanations() {
    let dir = std::env::temp_dir().join(format!("bareme-judge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rb = rulebook("rulebooks/luma-payroll/v3");
    let case = json!({"task": "payslip", "payroll_month": "2026-07"});
    let expected = reference_outcome(&rb, &case);
    assert_eq!(expected["reason_code"], "MISSING_GROSS_PAY");
    let trap = json!({"id": "t1", "level": 1, "tier": "trap", "rulebook": "luma-payroll@3",
        "rulebook_hash": rb.hash(), "case": case, "expected": expected});
    let tasks = write(&dir, "tasks.jsonl", &[trap]);
    let replies = write(
        &dir,
        "replies.jsonl",
        &[
            json!({"id": "t1", "reply": with_explanation(&expected)}),
            json!({"id": "t1", "reply": expected.to_string()}),
        ],
    );
    let verdicts = dir.join("verdicts.jsonl");
    let _ = std::fs::remove_file(&verdicts);
    let score = |extra: &[&str]| {
        let mut args = vec![
            "score",
            "rulebooks/luma-payroll/rubric-8.toml",
            "--tasks",
            &tasks,
            "--replies",
            &replies,
        ];
        args.extend_from_slice(extra);
        bareme(&args)
    };
    // No judge: the explanation is ungraded, the score its deterministic
    // part; the reply without one scores 0.9 × 1.
    let (code, out, err) = score(&[]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        (
            lines[0]["score"].to_string(),
            lines[0]["explanation"].as_str()
        ),
        ("1".to_string(), Some("ungraded"))
    );
    assert_eq!(
        (
            lines[1]["score"].to_string(),
            lines[1]["explanation"].as_str()
        ),
        ("0.9".to_string(), Some("graded"))
    );
    assert!(
        err.contains("1 explanations ungraded (no judge: deterministic part only)"),
        "{err}"
    );
    // A judge saying yes to two criteria: 0.9 × 1 + 0.1 × 2/3, the verdict recorded.
    let v = verdicts.to_str().unwrap();
    let two = r#"cat > /dev/null; echo '{"identifies_blocker": true, "requests_resolution": true, "avoids_unsupported_answer": false}'"#;
    let (code, out, err) = score(&["--judge", two, "--verdicts", v]);
    assert_eq!(code, 0, "{err}");
    let first: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert!(
        first["score"].to_string().starts_with("0.966666666"),
        "{first}"
    );
    assert_eq!(first["explanation"], "graded");
    assert!(err.contains("0 explanations ungraded"), "{err}");
    assert!(!err.contains("no judge"), "{err}");
    let record = std::fs::read_to_string(&verdicts).unwrap();
    assert_eq!(record.lines().count(), 1, "{record}");
    // Replayed: a failing judge is never called, and the record alone replays.
    for extra in [
        &["--judge", "exit 3", "--verdicts", v][..],
        &["--verdicts", v][..],
    ] {
        let (code, again, err) = score(extra);
        assert_eq!((code, again.clone()), (0, out.clone()), "{err}");
    }
    assert_eq!(std::fs::read_to_string(&verdicts).unwrap(), record);
    // A judge's failure is an error, never a score.
    let fresh = dir.join("fresh.jsonl");
    let f = fresh.to_str().unwrap();
    for (judge, says) in [
        ("echo down >&2; exit 3", "judge failed"),
        ("echo '{\"identifies_blocker\": true}'", "malformed"),
        ("sleep 10", "no verdict within 1 s"),
    ] {
        let _ = std::fs::remove_file(&fresh);
        let (code, _, err) = score(&["--judge", judge, "--verdicts", f, "--judge-timeout", "1"]);
        assert_eq!(code, 2, "{judge}: {err}");
        assert!(err.contains(says), "{judge}: {err}");
    }
    // A timeout an instant cannot hold (it panicked adding it), or none, is
    // a usage error.
    for secs in ["9223372036854775807", "18446744073709551615", "86401", "0"] {
        let (code, _, err) = score(&["--judge", "true", "--judge-timeout", secs]);
        assert_eq!(code, 2, "{secs}: {err}");
        assert!(err.contains("--judge-timeout"), "{secs}: {err}");
        assert!(!err.contains("panicked"), "{secs}: {err}");
    }
    // Replaying a record that lacks the request is an error too.
    let _ = std::fs::remove_file(&fresh);
    let (code, _, err) = score(&["--verdicts", f]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no verdict is recorded"), "{err}");
}

#[test]
fn luma_retrieval_clause_components_cite_what_the_task_cites() {
    // The rulebook's retrieval cites R1, then R4 for the deduction cap and
    // R3 for every other field; the clause list's component said R1 alone.
    let (rubric, _) =
        load_rubric(&root().join("rulebooks/luma-payroll/rubric-8.toml"), None).expect("rubric");
    let scorer = Scorer::new(rubric, false);
    let tasks = generated("rulebooks/luma-payroll/generator-4.toml", 400);
    let mut seen = std::collections::BTreeMap::new();
    for t in tasks
        .iter()
        .filter(|t| t.expected["decision"] == "retrieve")
    {
        let g = scorer
            .score(t, &scorer.reference_reply(&t.expected), None)
            .expect("scored");
        let c = g
            .components
            .iter()
            .find(|c| c.path.as_deref() == Some("clauses"))
            .expect("clauses");
        let cited: Vec<&str> = c.clauses.iter().map(|c| &**c).collect();
        let want = if t.expected["field"] == "deduction_cap" {
            ["R1", "R4"]
        } else {
            ["R1", "R3"]
        };
        assert_eq!(cited, want, "{}", t.id);
        *seen.entry(want[1]).or_insert(0) += 1;
    }
    assert_eq!(seen.len(), 2, "{seen:?}");
}

/// An `amount` field reads a JSON number, or a string only with
/// `[amounts] strings`: on a field the rulebook writes as a string (money)
/// it is refused at load without it, where it loaded and then graded
/// every reply, the reference's included, a bad value.
#[test]
fn an_amount_on_a_money_field_needs_strings() {
    let field = "net_pay = { format = \"money\"";
    let d = luma_with(field, "net_pay = { format = \"amount\"").unwrap_err();
    let messages: Vec<String> = d
        .problems
        .iter()
        .map(|p| format!("{}: {}", p.code, p.message))
        .collect();
    assert_eq!(
        messages,
        ["score::format: `net_pay` of `calculate` in luma-payroll@3 is written as money (`money`), which the format `amount` cannot read without `[amounts] strings = true`"]
    );
    let path = root().join("rulebooks/luma-payroll/rubric-8.toml");
    let text = std::fs::read_to_string(&path)
        .expect("rubric 8")
        .replacen(field, "net_pay = { format = \"amount\"", 1)
        .replacen("[score]", "[amounts]\nstrings = true\n\n[score]", 1);
    parse_rubric(
        "rubric-8.toml",
        &text,
        &rulebook("rulebooks/luma-payroll/v3"),
    )
    .expect("with strings, an amount reads what the rulebook writes");
}

/// Tasks and replies cannot both come from standard input (the tasks read
/// it all, and a run of "0 replies" exited 0), and a run that fails prints
/// its error and no summary of what it did not grade.
#[test]
fn stdin_read_twice_is_refused_and_a_failed_run_has_no_summary() {
    use super::cli::{bareme, stderr, tempdir};
    let rubric = "rulebooks/luma-payroll/rubric-8.toml";
    let both = ["--tasks", "-", "--replies", "-"];
    let mut score = vec!["score", rubric];
    score.extend_from_slice(&both);
    let mut rescore = vec!["rescore", "--rubric", rubric];
    rescore.extend_from_slice(&both);
    for args in [score, rescore] {
        let o = bareme(&args, Some(""));
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(
            stderr(&o).trim(),
            "error: --tasks and --replies cannot both read standard input (`-`)"
        );
    }
    let dir = tempdir("score-failed");
    let tasks = dir.join("t.jsonl");
    let o = bareme(
        &[
            "generate",
            "rulebooks/luma-payroll/generator-4.toml",
            "-n",
            "2",
            "-o",
            tasks.to_str().expect("utf-8"),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = bareme(
        &[
            "score",
            rubric,
            "--tasks",
            tasks.to_str().expect("utf-8"),
            "--replies",
            "-",
        ],
        Some("[1, 2]\n"),
    );
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("line 1: a reply line is a JSON object"),
        "{err}"
    );
    assert!(!err.contains("mean"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
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
