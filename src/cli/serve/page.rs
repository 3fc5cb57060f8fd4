//! What the sandbox says about itself: its OpenAPI 3.1 document and the
//! small HTML page at `/` that explains the API and shows a run's scores.

use serde_json::{json, Value};

/// The OpenAPI 3.1 document of the routes, with the tiers this server draws.
pub fn openapi(tiers: &[String], max_tasks: usize) -> Value {
    let error = json!({"$ref": "#/components/schemas/Error"});
    let err = |what: &str| json!({"description": what, "content": {"application/json": {"schema": error}}});
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "bareme sandbox",
            "version": "1",
            "description": "Tasks drawn from a bareme generator, graded by its rubric; expected answers never leave the server."
        },
        "paths": {
            "/tasks": {"get": {
                "operationId": "getTasks",
                "summary": "Start a run: draw tasks with a fresh seed.",
                "parameters": [
                    {"name": "n", "in": "query", "required": false,
                     "schema": {"type": "integer", "minimum": 1, "maximum": max_tasks, "default": 3}},
                    {"name": "tier", "in": "query", "required": false,
                     "schema": {"type": "string", "enum": tiers, "default": "all"}}
                ],
                "responses": {
                    "200": {"description": "The run and its tasks.",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Run"}}}},
                    "400": err("n not a whole number or out of range, an unknown tier, or a query parameter unknown or given twice."),
                    "429": err("Too many requests; see Retry-After.")
                }
            }},
            "/submit": {"post": {
                "operationId": "submit",
                "summary": "Grade one answer per task of a run; the first result is kept.",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Submission"}}}},
                "responses": {
                    "200": {"description": "The scores (the saved ones for an identical retry).",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Result"}}}},
                    "400": err("Not a submission."),
                    "404": err("No such run (or it expired), or a task of another run."),
                    "409": err("The run was scored with other answers, or was drawn by another generator, rulebook or rubric than the server now serves."),
                    "408": err("The body did not arrive within 10 s of the headers."),
                    "413": err("The body is too large."),
                    "415": err("The body is not sent as application/json."),
                    "429": err("Too many requests; see Retry-After."),
                    "502": err("The explanation judge gave no grade for a task (named by its id); nothing was scored.")
                }
            }},
            "/runs/{run_id}": {"get": {
                "operationId": "getRun",
                "summary": "A run's tasks and, once submitted, its scores.",
                "parameters": [{"name": "run_id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "responses": {
                    "200": {"description": "The run.",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/RunState"}}}},
                    "404": err("No such run (or it expired)."),
                    "429": err("Too many requests; see Retry-After.")
                }
            }}
        },
        "components": {"schemas": {
            "Error": {"type": "object", "required": ["error"], "properties": {
                "error": {"type": "object", "required": ["code", "message"], "properties": {
                    "code": {"type": "string"}, "message": {"type": "string"}}}}},
            "Task": {"type": "object", "required": ["id", "case"], "properties": {
                "id": {"type": "string"}, "tier": {"type": ["string", "null"]},
                "level": {"type": ["integer", "null"]}, "prompt": {"type": ["string", "null"]},
                "case": {"type": "object"}, "rulebook": {"type": "string"},
                "rubric": {"type": ["integer", "null"]}}},
            "Run": {"type": "object", "required": ["run_id", "tasks"], "properties": {
                "run_id": {"type": "string"},
                "tasks": {"type": "array", "items": {"$ref": "#/components/schemas/Task"}}}},
            "Answer": {"type": "object", "required": ["id", "reply"], "additionalProperties": false, "properties": {
                "id": {"type": "string"},
                "reply": {"type": "string", "description": "The model's reply; one that is not a string, or holds half a surrogate pair, scores the floor."}}},
            "Submission": {"type": "object", "required": ["run_id", "answers"], "additionalProperties": false,
                "properties": {"run_id": {"type": "string"},
                    "answers": {"type": "array", "items": {"$ref": "#/components/schemas/Answer"}}}},
            "Score": {"type": "object", "required": ["id", "score", "components"], "properties": {
                "id": {"type": "string"}, "score": {"type": "number"}, "max": {"type": "number"},
                "malformed": {"type": "string"},
                "explanation": {"type": "string", "enum": ["graded", "ungraded"]},
                "components": {"type": "array", "items": {"type": "object"}}}},
            "Result": {"type": "object", "required": ["run_id", "scores", "mean", "ungraded"], "properties": {
                "run_id": {"type": "string"},
                "scores": {"type": "array", "items": {"$ref": "#/components/schemas/Score"}},
                "mean": {"type": "number"},
                "ungraded": {"type": "integer", "description": "Scores whose explanation no judge graded: each is its deterministic part alone."}}},
            "RunState": {"type": "object", "required": ["run_id", "tasks", "submitted"], "properties": {
                "run_id": {"type": "string"}, "tier": {"type": "string"},
                "tasks": {"type": "array", "items": {"$ref": "#/components/schemas/Task"}},
                "submitted": {"type": "boolean"},
                "scores": {"type": ["array", "null"], "items": {"$ref": "#/components/schemas/Score"}},
                "mean": {"type": ["number", "null"]}}}
        }}
    })
}

/// Text made safe inside HTML.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#222;line-height:1.5}\
code,pre{background:#f3f3f3;padding:.1rem .3rem;border-radius:3px}pre{padding:.6rem;overflow-x:auto}\
table{border-collapse:collapse;margin-top:1rem}td,th{border:1px solid #ccc;padding:.3rem .6rem;text-align:left}\
.bad{color:#a00}input{font:inherit;width:22rem}";

/// The page at `/`: the API in a few lines, a form for a run id, and that
/// run's scores when one is given (`run` is what `GET /runs/{id}` returns).
pub fn index(run_id: Option<&str>, run: Option<&Value>) -> String {
    let mut body = String::from(
        "<h1>bareme sandbox</h1>\
<p>Tasks drawn from a generator with a fresh seed per run, graded by its rubric exactly as <code>bareme score</code> grades. Expected answers never leave the server.</p>\
<ul><li><code>GET /tasks?n=3&amp;tier=all</code> starts a run (at most 10 tasks).</li>\
<li><code>POST /submit</code> with <code>{\"run_id\": \"…\", \"answers\": [{\"id\": \"…\", \"reply\": \"…\"}]}</code> grades it; an identical retry returns the saved result, other answers get 409.</li>\
<li><code>GET /runs/{run_id}</code> shows a run and its scores.</li>\
<li><code>GET /openapi.json</code> is the OpenAPI document.</li></ul>\
<p>Runs expire after a day; each caller has a few requests a minute (429 with <code>Retry-After</code> past them). Errors are <code>{\"error\": {\"code\", \"message\"}}</code>.</p>\
<form method=\"get\" action=\"/\"><label>Run id <input name=\"run_id\"",
    );
    if let Some(id) = run_id {
        body.push_str(&format!(" value=\"{}\"", escape(id)));
    }
    body.push_str("></label> <button>Show scores</button></form>");
    match (run_id, run) {
        (Some(_), None) => body.push_str("<p class=\"bad\">No such run (or it expired).</p>"),
        (Some(_), Some(run)) if run["submitted"] != Value::Bool(true) => {
            body.push_str("<p>This run has not been submitted yet.</p>")
        }
        (Some(_), Some(run)) => {
            body.push_str(&format!(
                "<p>Mean score: <strong>{}</strong></p><table><tr><th>Task</th><th>Score</th><th>Malformed</th></tr>",
                escape(&run["mean"].to_string())
            ));
            for s in run["scores"].as_array().into_iter().flatten() {
                body.push_str(&format!(
                    "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                    escape(s["id"].as_str().unwrap_or("")),
                    escape(&s["score"].to_string()),
                    escape(s["malformed"].as_str().unwrap_or(""))
                ));
            }
            body.push_str("</table>");
        }
        (None, _) => {}
    }
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>bareme sandbox</title><style>{STYLE}</style></head><body>{body}</body></html>"
    )
}
