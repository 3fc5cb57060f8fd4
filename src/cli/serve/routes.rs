//! The sandbox's routes: `GET /tasks`, `POST /submit`, `GET /runs/{run_id}`,
//! `GET /openapi.json` and `GET /`, with the per-caller rate limit and the
//! body cap. Every rejection the framework makes (a bad query, a body too
//! large, an unknown route or method) is turned into the JSON error shape,
//! its message ours: neither axum's nor serde's wording reaches a caller.

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::extract::{ConnectInfo, DefaultBodyLimit, Path, Query, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::app::{App, Submission};
use super::error::ApiError;
use super::page;

/// The state the handlers share.
#[derive(Clone)]
pub struct Shared {
    app: Arc<App>,
    callers: Arc<Mutex<HashMap<IpAddr, (Instant, u32)>>>,
}

/// The service's router.
pub fn router(app: App) -> Router {
    let max_body = app.limits.max_body;
    let shared = Shared {
        app: Arc::new(app),
        callers: Arc::new(Mutex::new(HashMap::new())),
    };
    let api = Router::new()
        // `GET` makes a run; `HEAD`, which axum answers with `GET`'s
        // handler, must not (a request only about headers).
        .route("/tasks", get(tasks).head(wrong_method))
        .route("/submit", post(submit))
        .route("/runs/{run_id}", get(run))
        .layer(middleware::from_fn_with_state(shared.clone(), rate_limit));
    Router::new()
        .route("/", get(index))
        .route("/openapi.json", get(openapi))
        .merge(api)
        .fallback(unknown_route)
        .method_not_allowed_fallback(wrong_method)
        .layer(DefaultBodyLimit::max(max_body))
        .layer(middleware::from_fn(move |req, next| {
            body_in_time(req, next, max_body)
        }))
        .with_state(shared)
}

/// How long a request's body may take to arrive once its headers have
/// (hyper bounds the headers, `serve`'s `HEADER_TIMEOUT`): a body
/// promised by its length and sent slowly, or never, held its handler
/// and connection for good.
const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// Reads the body, at most one byte past the cap, within
/// [`BODY_TIMEOUT`], then runs the request on the bytes read; a body past
/// the cap is left to the extractors, which refuse it as before. A body
/// declared larger than the cap is refused before any of it is asked for
/// ([`declared_too_large`]).
async fn body_in_time(req: Request, next: Next, max_body: usize) -> Response {
    if let Some(refused) = declared_too_large(&req, max_body) {
        return refused;
    }
    let (parts, body) = req.into_parts();
    let limit = max_body.saturating_add(1);
    match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, limit)).await {
        Ok(Ok(bytes)) => next.run(Request::from_parts(parts, bytes.into())).await,
        Ok(Err(_)) => ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body_too_large",
            format!("the body is larger than {max_body} bytes, or was cut"),
        )
        .into_response(),
        Err(_) => ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            "body_timeout",
            format!(
                "the body did not arrive within {} s",
                BODY_TIMEOUT.as_secs()
            ),
        )
        .into_response(),
    }
}

/// 413 at once for a body whose `Content-Length` is over the cap: reading
/// it first sent `100 Continue` to a client that asked, then waited for a
/// body it could only refuse, and answered 408 when the client, rightly,
/// sent none. The body is never read, so the connection is closed after
/// the reply. A chunked body, whose length is not declared, is cut where
/// it passes the cap, as before.
fn declared_too_large(req: &Request, max_body: usize) -> Option<Response> {
    let declared = (req.headers().get(header::CONTENT_LENGTH))
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())?;
    if declared <= u64::try_from(max_body).unwrap_or(u64::MAX) {
        return None;
    }
    let mut refused = ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "body_too_large",
        format!("the body is declared {declared} bytes long, over the {max_body} bytes a request may send"),
    )
    .into_response();
    (refused.headers_mut()).insert(
        header::CONNECTION,
        header::HeaderValue::from_static("close"),
    );
    Some(refused)
}

/// The window of the rate limit.
const WINDOW: Duration = Duration::from_secs(60);

/// Counts a caller's requests in fixed one-minute windows; past the limit,
/// 429 with the seconds left in the window.
async fn rate_limit(State(s): State<Shared>, req: Request, next: Next) -> Response {
    let ip = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    if let Some(ip) = ip {
        let now = Instant::now();
        let wait = {
            let mut callers = s.callers.lock().unwrap_or_else(|e| e.into_inner());
            if callers.len() > 100_000 {
                callers.retain(|_, (start, _)| now.duration_since(*start) < WINDOW);
            }
            let entry = callers.entry(ip).or_insert((now, 0));
            if now.duration_since(entry.0) >= WINDOW {
                *entry = (now, 0);
            }
            entry.1 = entry.1.saturating_add(1);
            match entry.1 > s.app.limits.per_minute {
                true => Some(WINDOW.saturating_sub(now.duration_since(entry.0)).as_secs() + 1),
                false => None,
            }
        };
        if let Some(secs) = wait {
            return ApiError::too_many(secs).into_response();
        }
    }
    next.run(req).await
}

/// Runs blocking work (SQLite, drawing, grading) off the async workers.
async fn blocking<F>(app: &Arc<App>, f: F) -> Result<Json<Value>, ApiError>
where
    F: FnOnce(&App) -> Result<Value, ApiError> + Send + 'static,
{
    let app = Arc::clone(app);
    tokio::task::spawn_blocking(move || f(&app))
        .await
        .map_err(ApiError::internal)?
        .map(Json)
}

async fn tasks(
    State(s): State<Shared>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(pairs) = q.map_err(|_| {
        ApiError::bad(
            "bad_query",
            "the query is not `key=value` pairs joined by `&`",
        )
    })?;
    let (n, tier) = tasks_query(pairs, s.app.limits.max_tasks)?;
    blocking(&s.app, move |app| app.new_run(n, &tier)).await
}

/// The `n` and `tier` of `GET /tasks` (3 and `all` when absent), read by
/// hand, so that a refusal names the parameter in our words (serde's
/// said "Failed to deserialize query string: invalid digit found in
/// string"). A key it does not know (`seed`, a misspelt `tier`) is
/// refused, not a run made without it; a key given twice is refused, not
/// one of its values chosen.
fn tasks_query(pairs: Vec<(String, String)>, max: usize) -> Result<(usize, String), ApiError> {
    let (mut n, mut tier) = (None, None);
    for (key, value) in pairs {
        let slot = match key.as_str() {
            "n" => &mut n,
            "tier" => &mut tier,
            _ => {
                return Err(ApiError::bad(
                    "bad_query",
                    format!("unknown query parameter `{key}`; /tasks takes `n` and `tier`"),
                ))
            }
        };
        if slot.replace(value).is_some() {
            return Err(ApiError::bad(
                "bad_query",
                format!("the query parameter `{key}` is given twice"),
            ));
        }
    }
    let bad_n = || {
        ApiError::bad(
            "bad_query",
            format!("`n` must be a whole number between 1 and {max}"),
        )
    };
    // Digits alone: Rust's reading of an integer also takes a `+`.
    let n = match n {
        None => 3,
        Some(text) if text.bytes().all(|b| b.is_ascii_digit()) => {
            text.parse::<usize>().map_err(|_| bad_n())?
        }
        Some(_) => return Err(bad_n()),
    };
    Ok((n, tier.unwrap_or_else(|| "all".into())))
}

async fn submit(
    State(s): State<Shared>,
    headers: header::HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    // JSON said so: a page elsewhere can post a form or plain text to a
    // sandbox on this machine without asking, and lock a run it knows.
    let json = (headers.get(header::CONTENT_TYPE))
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"));
    if !json {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "a submission is sent with `Content-Type: application/json`",
        ));
    }
    // In our words: axum's say "Failed to buffer the body".
    let max_body = s.app.limits.max_body;
    let body = body.map_err(|e| match e.status() {
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body_too_large",
            format!("the body is larger than {max_body} bytes"),
        ),
        status => ApiError::new(status, "bad_body", "the body could not be read"),
    })?;
    let sub = Submission::read(&body)?;
    blocking(&s.app, move |app| app.submit(&sub)).await
}

async fn run(
    State(s): State<Shared>,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<Value>, ApiError> {
    // In our words: axum's name its own types.
    let Path(id) = id.map_err(|_| {
        ApiError::bad(
            "bad_path",
            "the path holds no run id this service reads (a run id is UTF-8 text)",
        )
    })?;
    blocking(&s.app, move |app| app.show_run(&id)).await
}

async fn openapi(State(s): State<Shared>) -> Json<Value> {
    Json(page::openapi(&s.app.tier_names(), s.app.limits.max_tasks))
}

/// The query of `GET /`: a run whose scores the page shows.
#[derive(Deserialize)]
struct IndexQuery {
    run_id: Option<String>,
}

async fn index(State(s): State<Shared>, q: Result<Query<IndexQuery>, QueryRejection>) -> Response {
    let run_id = q
        .ok()
        .and_then(|Query(q)| q.run_id)
        .filter(|r| !r.is_empty());
    let app = Arc::clone(&s.app);
    let shown = match run_id.clone() {
        Some(id) => tokio::task::spawn_blocking(move || app.show_run(&id))
            .await
            .ok()
            .map(|r| r.ok()),
        None => None,
    };
    let html = page::index(run_id.as_deref(), shown.flatten().as_ref());
    ([(header::CACHE_CONTROL, "no-store")], Html(html)).into_response()
}

async fn unknown_route() -> ApiError {
    ApiError::not_found("unknown_route", "no such route; see /openapi.json")
}

async fn wrong_method() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this route does not take that method; see /openapi.json",
    )
}
