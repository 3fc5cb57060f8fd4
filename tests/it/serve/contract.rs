//! The sandbox's contract (issue 27): the routes' paths and fields, grading
//! exactly as `bareme score`, one submission per run, the limits, and no
//! expected answer or revealing tag in any response.

use serde_json::{json, Value};

use super::{assert_client_error, submission, temp_dir, Server, OPEN};
use bareme::unstable::score::reference_outcome;
use bareme::{load_rubric, Scorer, Task};

/// The rubric the server grades with by default, and its rulebook.
fn scorer() -> (Scorer, bareme::Rulebook) {
    let (rubric, rb) = load_rubric(
        &crate::root().join("rulebooks/luma-payroll/rubric-8.toml"),
        None,
    )
    .expect("rubric 8 loads");
    (Scorer::new(rubric, false), rb)
}

/// A served task as the library grades it: its public case, and the
/// expected answer the rulebook gives for it (which the server must keep).
fn task_of(public: &Value, rb: &bareme::Rulebook) -> Task {
    let case = public["case"].clone();
    Task {
        id: public["id"].as_str().unwrap_or("").to_string(),
        index: None,
        level: public["level"].as_i64(),
        tier: public["tier"].as_str().map(String::from),
        branch: None,
        rulebook_id: rb.id().to_string(),
        version: rb.version(),
        hash: rb.hash().to_string(),
        generator: None,
        generator_hash: None,
        options: None,
        rubric: public["rubric"].as_i64(),
        expected: reference_outcome(rb, &case),
        case,
        prompt: public["prompt"].as_str().map(String::from),
        tags: None,
    }
}

/// The strings of a value that a caller must not learn: the expected
/// answer's values that appear nowhere in what the caller is shown (every
/// task's case and prompt of the run: another task's prompt may hold the
/// very figure this task expects).
fn secrets(expected: &Value, public: &Value) -> Vec<String> {
    let shown = public.to_string();
    let mut out = vec![expected.to_string()];
    let mut stack = vec![expected];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) if !shown.contains(s.as_str()) => out.push(s.clone()),
            Value::Array(a) => stack.extend(a),
            Value::Object(m) => stack.extend(m.values()),
            _ => {}
        }
    }
    out
}

/// Keys that would carry the answer.
const HIDDEN_KEYS: [&str; 6] = [
    "expected",
    "tags",
    "branch",
    "ground_truth",
    "index",
    "seed",
];

fn assert_hides(body: &Value, secrets: &[String], what: &str) {
    let text = body.to_string();
    for s in secrets {
        assert!(!text.contains(s.as_str()), "{what} reveals {s}: {text}");
    }
    for key in HIDDEN_KEYS {
        assert!(
            !text.contains(&format!("\"{key}\"")),
            "{what} has key {key}"
        );
    }
}

#[test]
fn tasks_submit_and_runs_follow_the_contract_and_grade_as_score_does() {
    let dir = temp_dir("contract");
    let server = Server::start(&dir.join("s.sqlite"), OPEN);
    let (scorer, rb) = scorer();
    let run = server.run("n=3&tier=all");
    let run_id = run["run_id"].as_str().expect("run_id").to_string();
    let tasks = run["tasks"].as_array().expect("tasks").clone();
    assert_eq!(tasks.len(), 3);
    for t in &tasks {
        let keys: Vec<&str> = t
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            ["id", "tier", "level", "prompt", "case", "rulebook", "rubric"]
        );
        assert_eq!(t["rulebook"], "luma-payroll@3");
        assert_eq!(t["rubric"], 8);
    }
    // A perfect reply, a wrong one, a placeholder: each graded as the
    // library grades it, components and clauses included.
    let library: Vec<Task> = tasks.iter().map(|t| task_of(t, &rb)).collect();
    let replies = [
        scorer.reference_reply(&library[0].expected),
        r#"{"decision": "retrieve", "field": "net_pay", "value": "1.00", "clauses": ["R1"]}"#
            .to_string(),
        "placeholder".to_string(),
    ];
    let answers: Vec<(&str, &str)> = library
        .iter()
        .zip(&replies)
        .map(|(t, r)| (t.id.as_str(), r.as_str()))
        .collect();
    let body = submission(&run_id, &answers);
    let (status, result) = server.json("POST", "/submit", &body);
    assert_eq!(status, 200, "{result}");
    assert_eq!(result["run_id"], run_id.as_str());
    let mut sum = rust_decimal::Decimal::ZERO;
    let mut ungraded = 0;
    for ((task, reply), got) in library
        .iter()
        .zip(&replies)
        .zip(result["scores"].as_array().expect("scores"))
    {
        let graded = scorer.score(task, reply, None).expect("graded");
        sum += graded.score;
        ungraded += usize::from(graded.explanation_graded == Some(false));
        let mut want = json!({"id": task.id});
        if let (Some(w), Value::Object(rest)) = (want.as_object_mut(), graded.to_json()) {
            w.extend(rest);
        }
        assert_eq!(got, &want);
    }
    assert_eq!(result["scores"][0]["score"], json!(1));
    assert_eq!(result["scores"][2]["score"], json!(-0.5));
    assert_eq!(result["scores"][2]["malformed"], "reply::invalid_json");
    assert_eq!(
        result["mean"].to_string(),
        (sum / rust_decimal::Decimal::from(3))
            .round_dp(6)
            .normalize()
            .to_string()
    );

    // The identical retry (other spacing) gets the saved result; other
    // answers a 409, and the run is as it was.
    let spaced = body.replace(",\"answers\"", ", \"answers\"");
    assert_eq!(
        server.json("POST", "/submit", &spaced),
        (200, result.clone())
    );
    assert_eq!(result["ungraded"], ungraded, "{result}");
    // The same answers in another order are the same submission.
    let mut reordered = answers.clone();
    reordered.reverse();
    assert_eq!(
        server.json("POST", "/submit", &submission(&run_id, &reordered)),
        (200, result.clone())
    );
    let changed = submission(&run_id, &[(answers[0].0, "other")]);
    let (status, v) = server.json("POST", "/submit", &changed);
    assert_eq!(status, 409);
    assert_eq!(v["error"]["code"], "already_submitted");
    let (status, shown) = server.json("GET", &format!("/runs/{run_id}"), "");
    assert_eq!(status, 200);
    assert_eq!(shown["tasks"], Value::Array(tasks.clone()));
    assert_eq!(shown["submitted"], true);
    assert_eq!(shown["scores"], result["scores"]);
    assert_eq!(shown["mean"], result["mean"]);

    // Nothing revealing in any route's response.
    let public = Value::Array(tasks.clone());
    for lib in &library {
        let hidden = secrets(&lib.expected, &public);
        assert_hides(&run, &hidden, "GET /tasks");
        assert_hides(&shown, &hidden, "GET /runs");
        let page = server.raw("GET", &format!("/?run_id={run_id}"), b"");
        let page = String::from_utf8_lossy(&page.body).to_string();
        assert!(page.contains(&run_id), "the page shows the run");
        for s in &hidden {
            assert!(!page.contains(s.as_str()), "GET / reveals {s}");
        }
    }
    // The first reply was the expected answer itself: only the wrong and
    // the placeholder replies' tasks are checked in the submit response.
    for lib in library.iter().skip(1) {
        assert_hides(&result, &secrets(&lib.expected, &public), "POST /submit");
    }
}

#[test]
fn unknown_runs_tasks_tiers_and_sizes_are_refused() {
    let dir = temp_dir("refused");
    let server = Server::start(&dir.join("s.sqlite"), OPEN);
    let a = server.run("n=1");
    let b = server.run("n=1");
    let (a_id, b_task) = (
        a["run_id"].as_str().unwrap_or(""),
        b["tasks"][0]["id"].as_str().unwrap_or(""),
    );
    // A task of another run, a run that does not exist: 404.
    let (status, v) = server.json("POST", "/submit", &submission(a_id, &[(b_task, "x")]));
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (404, Some("unknown_task"))
    );
    let (status, v) = server.json("POST", "/submit", &submission("nope", &[(b_task, "x")]));
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (404, Some("unknown_run"))
    );
    let (status, v) = server.json("GET", "/runs/nope", "");
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (404, Some("unknown_run"))
    );
    // Two answers to one task: 400.
    let a_task = a["tasks"][0]["id"].as_str().unwrap_or("");
    let (status, _) = server.json(
        "POST",
        "/submit",
        &submission(a_id, &[(a_task, "x"), (a_task, "y")]),
    );
    assert_eq!(status, 400);
    // At most 10 tasks; an unknown tier; n not a number.
    assert_eq!(
        server.run("n=10")["tasks"].as_array().map(Vec::len),
        Some(10)
    );
    // A key it does not know (a seed was taken as given, the run random).
    for q in [
        "n=11",
        "n=0",
        "tier=bonus",
        "n=-1",
        "n=x",
        "n=1&seed=5",
        "n=1&teir=trap",
    ] {
        let (status, v) = server.json("GET", &format!("/tasks?{q}"), "");
        assert_client_error(status, &v, q);
        assert_eq!(status, 400, "{q}");
    }
    // HEAD is refused rather than answered by GET's handler, which makes
    // and stores a run.
    assert_eq!(server.raw("HEAD", "/tasks?n=1", b"").status, 405);
    // Each tier asked for is the tier served.
    for tier in ["trap", "payslip", "retrieval"] {
        let run = server.run(&format!("n=2&tier={tier}"));
        for t in run["tasks"].as_array().into_iter().flatten() {
            assert_eq!(t["tier"], tier);
        }
    }
    // Each run has its own fresh seed: two runs do not serve the same cases.
    assert_ne!(a["tasks"][0]["case"], b["tasks"][0]["case"]);
}

#[test]
fn the_limits_are_flags_runs_expire_and_callers_are_rate_limited() {
    let dir = temp_dir("limits");
    let db = dir.join("s.sqlite");
    {
        let server = Server::start(&db, &["--max-tasks", "2", "--rate-limit", "3"]);
        let (status, _) = server.json("GET", "/tasks?n=3", "");
        assert_eq!(status, 400);
        let run = server.run("n=2");
        let id = run["run_id"].as_str().unwrap_or("").to_string();
        let (status, _) = server.json("GET", &format!("/runs/{id}"), "");
        assert_eq!(status, 200);
        // The fourth request of the minute.
        let r = server.raw("GET", &format!("/runs/{id}"), b"");
        assert_eq!(r.status, 429);
        let wait: u64 = r
            .header("retry-after")
            .and_then(|s| s.parse().ok())
            .expect("Retry-After");
        assert!((1..=60).contains(&wait), "{wait}");
        let v: Value = serde_json::from_slice(&r.body).expect("JSON");
        assert_eq!(v["error"]["code"], "rate_limited");
        // The documentation is not counted.
        assert_eq!(server.raw("GET", "/openapi.json", b"").status, 200);
    }
    // A run that lives 0 seconds has expired when asked for, and the next
    // run purges it from the file.
    let server = Server::start(&db, &["--run-ttl", "0", "--rate-limit", "100"]);
    let run = server.run("n=1");
    let id = run["run_id"].as_str().unwrap_or("").to_string();
    let (status, v) = server.json("GET", &format!("/runs/{id}"), "");
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (404, Some("unknown_run"))
    );
    let task = run["tasks"][0]["id"].as_str().unwrap_or("");
    let (status, _) = server.json("POST", "/submit", &submission(&id, &[(task, "x")]));
    assert_eq!(status, 404);
    let _ = server.run("n=1");
    drop(server);
    let conn = rusqlite::Connection::open(&db).expect("the store opens");
    let left: i64 = conn
        .query_row("SELECT COUNT(*) FROM runs WHERE id = ?1", [&id], |r| {
            r.get(0)
        })
        .expect("count");
    assert_eq!(left, 0, "the expired run was purged");
    let tasks: i64 = conn
        .query_row("SELECT COUNT(*) FROM tasks WHERE run_id = ?1", [&id], |r| {
            r.get(0)
        })
        .expect("count");
    assert_eq!(tasks, 0);
}

#[test]
fn the_openapi_document_and_the_page_describe_the_routes() {
    let dir = temp_dir("docs");
    let server = Server::start(&dir.join("s.sqlite"), OPEN);
    let (status, doc) = server.json("GET", "/openapi.json", "");
    assert_eq!(status, 200);
    assert_eq!(doc["openapi"], "3.1.0");
    let paths: Vec<&str> = doc["paths"]
        .as_object()
        .expect("paths")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(paths, ["/tasks", "/submit", "/runs/{run_id}"]);
    assert_eq!(
        doc["paths"]["/tasks"]["get"]["parameters"][1]["schema"]["enum"],
        json!(["all", "trap", "payslip", "retrieval"])
    );
    let page = server.raw("GET", "/", b"");
    assert_eq!(page.status, 200);
    assert!(page
        .header("content-type")
        .unwrap_or("")
        .starts_with("text/html"));
    let html = String::from_utf8_lossy(&page.body);
    assert!(
        html.contains("POST /submit") && html.contains("<style>"),
        "{html}"
    );
    // A run id is shown escaped, never as markup.
    let page = server.raw("GET", "/?run_id=%3Cscript%3E", b"");
    let html = String::from_utf8_lossy(&page.body);
    assert!(html.contains("&lt;script&gt;") && !html.contains("<script>"));
    assert!(html.contains("No such run"));
}

#[test]
fn a_right_clarification_s_explanation_is_reported_ungraded_without_a_judge() {
    let dir = temp_dir("explanation");
    let server = Server::start(&dir.join("s.sqlite"), OPEN);
    let (scorer, rb) = scorer();
    let run = server.run("n=1&tier=trap");
    let task = task_of(&run["tasks"][0], &rb);
    let mut reply = task.expected.clone();
    if let Some(m) = reply.as_object_mut() {
        m.insert(
            "explanation".into(),
            json!("The record has no gross pay (R7)."),
        );
    }
    let reply = reply.to_string();
    let run_id = run["run_id"].as_str().unwrap_or("");
    let (status, result) = server.json(
        "POST",
        "/submit",
        &submission(run_id, &[(&task.id, &reply)]),
    );
    assert_eq!(status, 200, "{result}");
    let graded = scorer.score(&task, &reply, None).expect("graded");
    assert_eq!(graded.explanation_graded, Some(false));
    assert_eq!(result["scores"][0]["explanation"], "ungraded", "{result}");
    assert_eq!(
        result["scores"][0]["score"],
        crate::serve::decimal(graded.score)
    );
    // The mean says how many of its scores no judge completed.
    assert_eq!(result["ungraded"], 1, "{result}");
}

/// With `--judge`, a right clarification's explanation is graded by the
/// judge (three criteria met: grade 1, so 0.9 × 1 + 0.1 × 1 = 1); a judge
/// that fails leaves the run unscored, with a 502 JSON error.
#[test]
fn a_configured_judge_grades_the_explanation_and_a_failing_one_scores_nothing() {
    let dir = temp_dir("judge");
    let verdict = r#"{"identifies_blocker":true,"requests_resolution":true,"avoids_unsupported_answer":true}"#;
    let judge = format!("cat >/dev/null; echo '{verdict}'");
    let mut flags: Vec<&str> = OPEN.to_vec();
    flags.extend(["--judge", judge.as_str()]);
    let server = Server::start(&dir.join("s.sqlite"), &flags);
    let (scorer, rb) = scorer();
    let explained = |task: &bareme::Task| {
        let mut reply = task.expected.clone();
        if let Some(m) = reply.as_object_mut() {
            m.insert(
                "explanation".into(),
                json!("The record has no gross pay (R7)."),
            );
        }
        reply.to_string()
    };
    let run = server.run("n=1&tier=trap");
    let task = task_of(&run["tasks"][0], &rb);
    let reply = explained(&task);
    let run_id = run["run_id"].as_str().unwrap_or("");
    let (status, result) = server.json(
        "POST",
        "/submit",
        &submission(run_id, &[(&task.id, &reply)]),
    );
    assert_eq!(status, 200, "{result}");
    let graded = scorer
        .score(&task, &reply, Some(rust_decimal::Decimal::ONE))
        .expect("graded");
    assert_eq!(result["scores"][0]["explanation"], "graded", "{result}");
    assert_eq!(
        result["scores"][0]["score"],
        crate::serve::decimal(graded.score)
    );
    drop(server);

    let failing = ["--rate-limit", "100000", "--judge", "exit 3"];
    let server = Server::start(&dir.join("f.sqlite"), &failing);
    let run = server.run("n=1&tier=trap");
    let task = task_of(&run["tasks"][0], &rb);
    let reply = explained(&task);
    let run_id = run["run_id"].as_str().unwrap_or("").to_string();
    let (status, result) = server.json(
        "POST",
        "/submit",
        &submission(&run_id, &[(&task.id, &reply)]),
    );
    assert_eq!(status, 502, "{result}");
    assert!(
        result["error"]["code"]
            .as_str()
            .is_some_and(|c| c.starts_with("judge::")),
        "{result}"
    );
    // The task as the caller knows it, never the generator's own id nor
    // the server's judge command.
    let message = result["error"]["message"].as_str().unwrap_or("");
    assert!(message.contains(&task.id), "{message}");
    assert!(
        !message.contains("luma-") && !message.contains("exit 3"),
        "{message}"
    );
    let (status, shown) = server.json("GET", &format!("/runs/{run_id}"), "");
    assert_eq!(status, 200, "{shown}");
    assert!(shown.get("scores").is_none_or(|s| s.is_null()), "{shown}");
}
