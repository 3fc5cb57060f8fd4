//! `bareme serve`: the sandbox (issue 27). Tasks from a generator served
//! over HTTP, replies graded by a rubric as `bareme score` grades them, runs
//! kept in an embedded SQLite file; expected answers never leave the server.
//!
//! `store` is the SQLite file, `app` the work behind the routes, `routes`
//! the HTTP surface (axum on tokio), `page` the OpenAPI document and the
//! HTML page, `error` the JSON error shape. Exit codes: 2 when the service
//! cannot start (an address in use, a store that does not open), 3 an
//! invalid generator or rubric.

mod app;
mod error;
mod page;
mod routes;
mod store;

use clap::Args;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;

use bareme::{load_generator, TaskDrawer};

use super::taskfile::{companion_failed, load_scorer};
use app::{App, Limits};
use store::Store;

/// `bareme serve`'s arguments.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address to listen on (port 0: any free port, printed on start).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// The SQLite file that keeps the runs (created if absent).
    #[arg(long, default_value = "sandbox.sqlite")]
    pub db: PathBuf,
    /// The generator whose tasks are served.
    #[arg(long, requires = "rubric", value_parser = super::locate::companion,
          default_value = "rulebooks/luma-payroll/generator-4.toml")]
    pub generator: PathBuf,
    /// The rubric that grades the replies.
    #[arg(long, value_parser = super::locate::companion,
          default_value = "rulebooks/luma-payroll/rubric-8.toml")]
    pub rubric: PathBuf,
    /// Most tasks in one run.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub max_tasks: u16,
    /// Seconds a run lives (then 404, and purged).
    #[arg(long, default_value_t = 86_400)]
    pub run_ttl: u32,
    /// Requests one caller (one IP address) may make per minute; at least 1.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(1..))]
    pub rate_limit: u32,
    /// Most bytes of a request body.
    #[arg(long, default_value_t = 256 * 1024)]
    pub max_body: usize,
    /// The judge of explanations, as `bareme score` takes it.
    #[command(flatten)]
    pub judge: super::judge::JudgeArgs,
}

/// Tasks drawn at start to learn the tiers the generator serves.
const TIER_PROBE: u64 = 400;

/// Runs `bareme serve` until interrupted (SIGINT) or terminated (SIGTERM).
pub fn run(args: &ServeArgs) -> ExitCode {
    let (generator, rb) = match load_generator(&args.generator, None) {
        Ok(pair) => pair,
        Err(e) => return companion_failed(e),
    };
    let (scorer, _) = match load_scorer(&args.rubric, None, false) {
        Ok(pair) => pair,
        Err(code) => return code,
    };
    // The judge seam, as `bareme score` configures it: a submission whose
    // explanation the judge cannot grade is refused, never scored.
    let scorer = match args.judge.attach(scorer) {
        Ok(scorer) => scorer,
        Err(code) => return code,
    };
    // The generator and its rulebook serve every request until the process
    // ends: leaked once, so the drawer borrows them for `'static`.
    let generator = Box::leak(Box::new(generator));
    let rb = Box::leak(Box::new(rb));
    let drawer = match TaskDrawer::new(generator, rb) {
        Ok(d) => d,
        Err(e) => {
            warn!("error: {e}");
            return ExitCode::from(3);
        }
    };
    let mut tiers: Vec<String> = Vec::new();
    for index in 0..TIER_PROBE {
        let task = match drawer.task(0, index, None) {
            Ok(d) => d.task,
            Err(e) => {
                warn!("error: {e}");
                return ExitCode::from(3);
            }
        };
        if let Err(e) = scorer.check_task(&task) {
            warn!("error: the rubric does not grade the generator's tasks: {e}");
            return ExitCode::from(3);
        }
        if let Some(t) = task.tier.filter(|t| !tiers.contains(t)) {
            tiers.push(t);
        }
    }
    let store = match Store::open(&args.db) {
        Ok(s) => s,
        Err(e) => {
            warn!("error: cannot open {}: {e}", args.db.display());
            return ExitCode::from(2);
        }
    };
    let grader = app::grader(generator.hash(), rb.hash(), &scorer.rubric().hash);
    let app = App {
        grader,
        drawer,
        scorer,
        tiers,
        store: Mutex::new(store),
        limits: Limits {
            max_tasks: usize::from(args.max_tasks),
            run_ttl_ms: i64::from(args.run_ttl) * 1000,
            per_minute: args.rate_limit,
            max_body: args.max_body,
        },
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            warn!("error: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    runtime.block_on(serve(args.addr, app))
}

async fn serve(addr: SocketAddr, app: App) -> ExitCode {
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            warn!("error: cannot listen on {addr}: {e}");
            return ExitCode::from(2);
        }
    };
    // The bound address on standard output, one line: with port 0 it is how
    // a caller (the tests, CI) learns the port.
    match listener.local_addr() {
        Ok(a) => {
            use std::io::Write as _;
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "listening on http://{a}").and_then(|()| out.flush());
        }
        Err(e) => {
            warn!("error: {e}");
            return ExitCode::from(2);
        }
    }
    let router = routes::router(app);
    let (closing, closed) = tokio::sync::watch::channel(false);
    let mut connections = tokio::task::JoinSet::new();
    let mut shutdown = std::pin::pin!(stop_asked());
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                // Out of descriptors, or a connection reset before it was
                // accepted: wait a moment, as axum's own server does.
                Err(_) => {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        // The caller's address, for the rate limit (`ConnectInfo`).
        let service = router
            .clone()
            .layer(axum::Extension(axum::extract::ConnectInfo(peer)));
        let mut closed = closed.clone();
        connections.spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT);
            let conn = builder.serve_connection(
                hyper_util::rt::TokioIo::new(stream),
                hyper_util::service::TowerToHyperService::new(service),
            );
            let mut conn = std::pin::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => return,
                _ = closed.changed() => conn.as_mut().graceful_shutdown(),
            }
            let _ = conn.await;
        });
        // Finished connections are reaped as others come.
        while connections.try_join_next().is_some() {}
    }
    // Asked to stop: no new connection; those open finish their request.
    let _ = closing.send(true);
    let drained = tokio::time::timeout(DRAIN, async {
        while connections.join_next().await.is_some() {}
    });
    let _ = drained.await;
    ExitCode::SUCCESS
}

/// Resolves when the service is asked to stop: SIGINT (Ctrl-C) or, on
/// Unix, SIGTERM, which `kill`, systemd and container runtimes send. Both
/// drain the connections and close the store; SIGTERM left to its default
/// ended the process at once (status 143), the SQLite `-wal` and `-shm`
/// files left behind. A handler that cannot be installed leaves the other.
async fn stop_asked() {
    let interrupt = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    tokio::select! {
        () = interrupt => {}
        () = terminate() => {}
    }
}

/// Resolves on SIGTERM; never when its handler cannot be installed.
#[cfg(unix)]
async fn terminate() {
    use tokio::signal::unix::{signal, SignalKind};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            term.recv().await;
        }
        Err(e) => {
            warn!("warning: SIGTERM will not stop the service cleanly: {e}");
            std::future::pending::<()>().await;
        }
    }
}

/// No SIGTERM off Unix: never resolves.
#[cfg(not(unix))]
async fn terminate() {
    std::future::pending::<()>().await;
}

/// How long a caller has to send a request's headers, from the moment the
/// connection waits for them (opened, or kept alive after a response).
/// Without it, connections that sent headers a byte at a time, or none,
/// were held open for good, and the rate limit, which counts requests
/// once their headers are read, never saw them.
const HEADER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// How long open requests may finish once the service is asked to stop.
const DRAIN: std::time::Duration = std::time::Duration::from_secs(10);
