//! `bareme score` and its judge on the command line: replies graded in
//! order with a summary, explanations judged, recorded and replayed, and
//! the rubric's history priced on the seeds' incentives.

use super::*;

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
    use crate::cli::{bareme, stderr, tempdir};
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
