//! The sandbox's work behind the routes: drawing a run's tasks, showing
//! them by their public fields alone, grading a submission as `bareme score`
//! does, and keeping it once. Blocking (SQLite, drawing, grading): the
//! routes call it off the async workers.

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use bareme::unstable::reply::Malformed;
use bareme::unstable::score::{grade_malformed, number, Graded, ScoreError, Scorer};
use bareme::unstable::tasks::{lone_halves_marked, read_json};
use bareme::{Task, TaskDrawer};

use super::error::ApiError;
use super::store::{Saved, Store, StoredRun, StoredTask};

/// The limits a caller meets; each one a flag of `bareme serve`.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Most tasks in a run.
    pub max_tasks: usize,
    /// How long a run lives, in milliseconds.
    pub run_ttl_ms: i64,
    /// Requests a caller may make per minute.
    pub per_minute: u32,
    /// Most bytes of a request body.
    pub max_body: usize,
}

/// What the service holds: the drawer, the scorer, the store.
pub struct App {
    /// Draws the tasks (generator and rulebook live as long as the process).
    pub drawer: TaskDrawer<'static>,
    /// Grades the replies.
    pub scorer: Scorer,
    /// The tiers the generator draws, in the order first seen.
    pub tiers: Vec<String>,
    /// The runs.
    pub store: Mutex<Store>,
    /// The limits.
    pub limits: Limits,
    /// What draws and grades this server's tasks ([`grader`]), kept with
    /// each run.
    pub grader: String,
}

/// A digest of the generator, rulebook and rubric a server draws and
/// grades with: a run drawn under one is graded under the same or not at all.
pub fn grader(generator_hash: &str, rulebook_hash: &str, rubric_hash: &str) -> String {
    let text = format!("{generator_hash}\n{rulebook_hash}\n{rubric_hash}");
    hex(&Sha256::digest(text.as_bytes()))
}

/// Milliseconds since the Unix epoch (0 on a clock before it).
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Draws this many tasks at most, per task asked, looking for a tier.
const DRAWS_PER_TASK: u64 = 200;

/// A task's fields a caller may see: never `expected`, `tags`, `branch`
/// (the profile it was drawn from names the answer's path) or its index.
fn public(task: &Task, id: &str) -> Value {
    let mut m = Map::new();
    m.insert("id".into(), json!(id));
    m.insert("tier".into(), json!(task.tier));
    m.insert("level".into(), json!(task.level));
    m.insert("prompt".into(), json!(task.prompt));
    m.insert("case".into(), task.case.clone());
    m.insert(
        "rulebook".into(),
        json!(format!("{}@{}", task.rulebook_id, task.version)),
    );
    m.insert("rubric".into(), json!(task.rubric));
    Value::Object(m)
}

/// A submission as the body of `POST /submit`: read by hand
/// ([`Submission::of`]), not by serde's derive, which also took an array
/// of the fields in order and answered in its own words about its types.
pub struct Submission {
    /// The run answered.
    pub run_id: String,
    /// One answer per task: `{"id", "reply"}` objects.
    pub answers: Vec<Map<String, Value>>,
    /// The character written for half a surrogate pair in a reply, when the
    /// body held any (each such reply scores its floor).
    lone: Option<char>,
}

/// A 400 for a body that is not a submission, saying why.
fn not_a_submission(why: impl std::fmt::Display) -> ApiError {
    ApiError::bad("bad_json", format!("the body is not a submission: {why}"))
}

impl Submission {
    /// Reads a body, strictly (a key twice at any depth is refused, as
    /// in a replies file). Half a surrogate pair inside a reply (as
    /// Python's `json.dumps` writes a model's broken output) is that
    /// reply's fault, as in `bareme score`; anywhere else the body is not a
    /// submission.
    pub fn read(body: &[u8]) -> Result<Submission, ApiError> {
        let text =
            std::str::from_utf8(body).map_err(|e| not_a_submission(format!("not UTF-8 ({e})")))?;
        let fault = match read_json(text) {
            Ok(value) => return Submission::of(value),
            Err(fault) => fault,
        };
        let Some(marked) = lone_halves_marked(text) else {
            return Err(not_a_submission(format!("it {fault}")));
        };
        let mut sub = read_json(&marked.text)
            .map_err(|_| not_a_submission(format!("it {fault}")))
            .and_then(Submission::of)?;
        let in_replies: usize = (sub.answers.iter())
            .filter_map(|a| a.get("reply").and_then(Value::as_str))
            .map(|r| r.matches(marked.marker).count())
            .sum();
        if in_replies != marked.count {
            return Err(not_a_submission(format!("it {fault}")));
        }
        sub.lone = Some(marked.marker);
        Ok(sub)
    }

    /// The submission a JSON value holds: an object with a string
    /// `run_id`, an array of objects `answers` and no other key, as the
    /// OpenAPI schema says (`additionalProperties: false`). Each refusal
    /// names the field.
    fn of(value: Value) -> Result<Submission, ApiError> {
        let Value::Object(mut o) = value else {
            return Err(not_a_submission(
                r#"a submission is a JSON object {"run_id", "answers"}"#,
            ));
        };
        let run_id = match o.shift_remove("run_id") {
            Some(Value::String(s)) => s,
            Some(_) => return Err(not_a_submission("`run_id` must be a string")),
            None => return Err(not_a_submission("it has no `run_id`")),
        };
        let answers = match o.shift_remove("answers") {
            Some(Value::Array(a)) => a,
            Some(_) => {
                return Err(not_a_submission(
                    r#"`answers` must be an array of {"id", "reply"} objects"#,
                ))
            }
            None => return Err(not_a_submission("it has no `answers`")),
        };
        if let Some(key) = o.keys().next() {
            return Err(not_a_submission(format!(
                "unknown key `{key}` (a submission holds `run_id` and `answers`)"
            )));
        }
        let answers = (answers.into_iter().enumerate())
            .map(|(i, answer)| match answer {
                Value::Object(m) => only_id_and_reply(i, &m).map(|()| m),
                _ => Err(ApiError::bad(
                    "bad_answer",
                    format!(r#"answers[{i}] must be an object {{"id", "reply"}}"#),
                )),
            })
            .collect::<Result<_, _>>()?;
        Ok(Submission {
            run_id,
            answers,
            lone: None,
        })
    }
}

impl App {
    fn store(&self) -> std::sync::MutexGuard<'_, Store> {
        // A panic while holding the lock leaves SQLite consistent (every
        // write is one transaction), so the connection stays usable.
        self.store.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn cutoff(&self, now: i64) -> i64 {
        now.saturating_sub(self.limits.run_ttl_ms)
    }

    /// The tiers as the `tier` parameter takes them.
    pub fn tier_names(&self) -> Vec<String> {
        let mut names = vec!["all".to_string()];
        names.extend(self.tiers.iter().cloned());
        names
    }

    /// `GET /tasks`: a new run of `n` tasks of `tier`, drawn with a fresh seed.
    pub fn new_run(&self, n: usize, tier: &str) -> Result<Value, ApiError> {
        if n == 0 || n > self.limits.max_tasks {
            return Err(ApiError::bad(
                "bad_n",
                format!("n must be between 1 and {}", self.limits.max_tasks),
            ));
        }
        if tier != "all" && !self.tiers.iter().any(|t| t == tier) {
            return Err(ApiError::bad(
                "unknown_tier",
                format!("unknown tier; one of {}", self.tier_names().join(", ")),
            ));
        }
        let run_id = format!("{:032x}", rand::random::<u128>());
        let seed = rand::random::<u64>();
        let mut tasks = Vec::new();
        let mut shown = Vec::new();
        let mut index = 0u64;
        while tasks.len() < n && index < DRAWS_PER_TASK * n as u64 {
            let drawn = self
                .drawer
                .task(seed, index, None)
                .map_err(ApiError::internal)?;
            if tier == "all" || drawn.task.tier.as_deref() == Some(tier) {
                let id = format!("{run_id}-{}", tasks.len());
                let p = public(&drawn.task, &id);
                tasks.push(StoredTask {
                    id,
                    draw_index: index,
                    public: p.to_string(),
                });
                shown.push(p);
            }
            index += 1;
        }
        let now = now_ms();
        let mut store = self.store();
        store.purge(self.cutoff(now)).map_err(ApiError::internal)?;
        store
            .create_run(&run_id, seed, tier, &self.grader, now, &tasks)
            .map_err(ApiError::internal)?;
        Ok(json!({"run_id": run_id, "tasks": shown}))
    }

    fn live_run(&self, run_id: &str) -> Result<StoredRun, ApiError> {
        self.store()
            .run(run_id, self.cutoff(now_ms()))
            .map_err(ApiError::internal)?
            .ok_or_else(|| ApiError::not_found("unknown_run", "no such run (or it expired)"))
    }

    /// `GET /runs/{run_id}`: the run's public tasks and, once submitted, its result.
    pub fn show_run(&self, run_id: &str) -> Result<Value, ApiError> {
        let run = self.live_run(run_id)?;
        let tasks: Vec<Value> = run
            .tasks
            .iter()
            .map(|t| serde_json::from_str(&t.public).unwrap_or(Value::Null))
            .collect();
        let result = run
            .submission
            .and_then(|(_, r)| serde_json::from_str::<Value>(&r).ok());
        Ok(json!({
            "run_id": run.id,
            "tier": run.tier,
            "tasks": tasks,
            "submitted": result.is_some(),
            "scores": result.as_ref().map(|r| r["scores"].clone()),
            "mean": result.as_ref().map(|r| r["mean"].clone()),
        }))
    }

    /// `POST /submit`: grades every task of the run (an unanswered one at
    /// the floor) and keeps the first result; the same answers again get it
    /// back, other answers a conflict.
    pub fn submit(&self, sub: &Submission) -> Result<Value, ApiError> {
        let run = self.live_run(&sub.run_id)?;
        let mut replies: Vec<(String, Result<String, Malformed>)> = Vec::new();
        let mut seen = HashSet::new();
        for (i, answer) in sub.answers.iter().enumerate() {
            let Some(Value::String(id)) = answer.get("id") else {
                return Err(ApiError::bad(
                    "bad_answer",
                    format!("answers[{i}].id must be a string"),
                ));
            };
            if !run.tasks.iter().any(|t| &t.id == id) {
                return Err(ApiError::not_found(
                    "unknown_task",
                    format!("answers[{i}]: no task of this run has that id"),
                ));
            }
            if !seen.insert(id.clone()) {
                return Err(ApiError::bad(
                    "duplicate_answer",
                    format!("answers[{i}]: one answer per task"),
                ));
            }
            // A reply that is no text is the model's fault, not the
            // body's: it scores the floor, as in a replies file.
            let reply = match answer.get("reply") {
                Some(Value::String(r)) => Ok(r.clone()),
                _ => Err(Malformed::new(
                    "reply::not_text",
                    "the reply is not a string",
                )),
            };
            let graded_as = match reply {
                Ok(r) if sub.lone.is_some_and(|c| r.contains(c)) => {
                    Err(Malformed::lone_surrogate())
                }
                other => other,
            };
            replies.push((id.clone(), graded_as));
        }
        let digest = hex(&Sha256::digest(canonical(sub).as_bytes()));
        if let Some((hash, saved)) = &run.submission {
            return match hash == &digest {
                true => serde_json::from_str(saved).map_err(ApiError::internal),
                false => Err(conflict()),
            };
        }
        if run.grader != self.grader {
            return Err(ApiError::new(
                axum::http::StatusCode::CONFLICT,
                "stale_run",
                "this run was drawn by another generator, rulebook or rubric than the server now serves (it was restarted with other files): it cannot be graded here; draw a new run",
            ));
        }
        let result = self.grade(&run, replies)?;
        let text = result.to_string();
        let saved = self
            .store()
            .save_submission(&run.id, &digest, &text, now_ms())
            .map_err(ApiError::internal)?;
        match saved {
            Saved::New => Ok(result),
            Saved::Same(s) => serde_json::from_str(&s).map_err(ApiError::internal),
            Saved::Conflict => Err(conflict()),
        }
    }

    /// The run's result: each task drawn again from the run's seed and graded.
    fn grade(
        &self,
        run: &StoredRun,
        mut replies: Vec<(String, Result<String, Malformed>)>,
    ) -> Result<Value, ApiError> {
        let mut scores = Vec::new();
        let mut sum = rust_decimal::Decimal::ZERO;
        let mut ungraded = 0usize;
        for stored in &run.tasks {
            let task = self
                .drawer
                .task(run.seed, stored.draw_index, None)
                .map_err(ApiError::internal)?
                .task;
            let reply = replies
                .iter()
                .position(|(id, _)| id == &stored.id)
                .map(|at| replies.swap_remove(at).1);
            let graded: Graded = match reply {
                Some(Ok(text)) => self.scorer.score(&task, &text, None),
                Some(Err(m)) => floor(&self.scorer, &task, m),
                None => Err(Malformed::new(
                    "reply::missing",
                    "no answer to this task was submitted",
                ))
                .or_else(|m| floor(&self.scorer, &task, m)),
            }
            .map_err(|e| judge_failed(&stored.id, e))?;
            sum += graded.score;
            ungraded += usize::from(graded.explanation_graded == Some(false));
            let mut m = Map::new();
            m.insert("id".into(), json!(stored.id));
            if let Value::Object(rest) = graded.to_json() {
                m.extend(rest);
            }
            scores.push(Value::Object(m));
        }
        let mean = match run.tasks.len() {
            0 => rust_decimal::Decimal::ZERO,
            n => sum / rust_decimal::Decimal::from(n),
        };
        // The mean mixes scores a judge completed with deterministic parts
        // alone: how many of the second kind it holds is part of it.
        Ok(json!({
            "run_id": run.id,
            "scores": scores,
            "mean": number(mean.round_dp(6)),
            "ungraded": ungraded,
        }))
    }
}

/// A grading failure as the caller sees it. The judge failing is a 502
/// naming the task by the id the caller was given (`<run_id>-<k>`), with
/// the failure's code: the error's own text names the generator's task id
/// and the server's judge command (`exit 3` ended with exit status: 3),
/// which are the server's, so it goes to standard error alone. Nothing is
/// scored, nothing stored: the run may be submitted again.
fn judge_failed(task: &str, e: ScoreError) -> ApiError {
    let ScoreError::Judge { .. } = e else {
        return ApiError::internal(e);
    };
    warn!("error: task {task}: {e}");
    ApiError::new(
        axum::http::StatusCode::BAD_GATEWAY,
        e.code(),
        format!(
            "the explanation judge gave no grade for task {task} ({}); nothing was scored, and the run may be submitted again",
            e.code()
        ),
    )
}

/// Refuses an answer holding a key beside `id` and `reply` (a `note`, a
/// `score` or `ground_truth` slipped in), as `bareme score` refuses a
/// replies-file line with a key it does not know: the body's fault, a 400
/// as the body is read, before the run is even looked up, so the run
/// stays open to a corrected body
/// (it was graded `reply::padded` and locked the run). Not the reply
/// line's reader ([`bareme::unstable::tasks::ReplyLine`]): a replies file
/// may carry `explanation_grade`, an outside grade the sandbox must never
/// take from its caller, and `strategy`.
fn only_id_and_reply(i: usize, answer: &Map<String, Value>) -> Result<(), ApiError> {
    match answer.keys().find(|k| *k != "id" && *k != "reply") {
        Some(key) => Err(ApiError::bad(
            "bad_answer",
            format!("answers[{i}]: unknown key `{key}` (an answer holds `id` and `reply`)"),
        )),
        None => Ok(()),
    }
}

/// The floor score of a malformed answer, with why.
fn floor(scorer: &Scorer, task: &Task, m: Malformed) -> Result<Graded, ScoreError> {
    grade_malformed(scorer.rubric(), &task.expected, m).map_err(|error| ScoreError::Expected {
        task: task.id.clone(),
        error,
    })
}

fn conflict() -> ApiError {
    ApiError::new(
        axum::http::StatusCode::CONFLICT,
        "already_submitted",
        "this run was scored with other answers; a run takes one submission",
    )
}

/// The submission as the same text whatever its spacing, key order or
/// answer order.
fn canonical(sub: &Submission) -> String {
    let mut answers: Vec<String> = sub
        .answers
        .iter()
        .map(|a| {
            let mut keys: Vec<&String> = a.keys().collect();
            keys.sort();
            let pairs = keys.into_iter().map(|k| json!([k, a.get(k)]));
            Value::Array(pairs.collect()).to_string()
        })
        .collect();
    // One answer per task, so their order says nothing.
    answers.sort();
    json!([sub.run_id, answers]).to_string()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
