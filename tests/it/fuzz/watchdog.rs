//! The per-input time limit: a watchdog thread beside each target's run.
//!
//! A hang cannot be interrupted on the thread that runs it, so another thread
//! watches the input in flight. Past the limit it writes the input as
//! `<target>-<index>.timeout.txt` with the line that reproduces it on stderr
//! (once per input); past the hard limit (ten times the limit) it ends the
//! process with [`HARD_EXIT`] and that message, since the input may never
//! finish. An input that finishes late but under the hard limit is a finding
//! of the run like a panic ([`Watchdog::done`] returns it).
//!
//! This is a hang detector, not a speed test: the default limit
//! ([`DEFAULT_LIMIT`]) is far above any normal input, even in a debug build
//! on a busy machine.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::Finding;

/// Seconds per input unless `BAREME_FUZZ_TIMEOUT` says otherwise: 60 s in
/// a release build, 600 s in a debug build, which is ten to thirty times
/// slower (the short mode's slowest input, a rulebook of 6,000 `[[checks]]`,
/// took 246 s in a debug build on a 2-core machine at load 18).
pub const DEFAULT_LIMIT: Duration =
    Duration::from_secs(if cfg!(debug_assertions) { 600 } else { 60 });

/// The hard limit is this many times the limit.
pub const HARD_FACTOR: u32 = 10;

/// The exit code of a process ended by the hard limit.
pub const HARD_EXIT: i32 = 124;

/// The signature of an input over the limit.
pub const OVER_LIMIT: &str = "over the time limit";

/// What the hard limit does once its message is written: ends the process
/// (a test replaces it, to watch the watchdog without dying of it).
pub type OnHard = Box<dyn Fn(&str) + Send + Sync>;

/// The input being checked.
struct Current {
    index: u64,
    bytes: Vec<u8>,
    started: Instant,
    /// The timeout file is written.
    reported: bool,
}

struct Shared {
    current: Mutex<Option<Current>>,
    stop: AtomicBool,
    /// Some input went past the limit while running (for tests).
    fired: AtomicBool,
    /// The hard limit was reached (for tests; the default handler never returns).
    hard: AtomicBool,
}

/// A target's watchdog: [`start`](Watchdog::start) before an input,
/// [`done`](Watchdog::done) after it.
pub struct Watchdog {
    shared: Arc<Shared>,
    limit: Duration,
    target: &'static str,
    seed: u64,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// The line that reproduces input `index` of `target` under `seed`.
pub fn reproduce(seed: u64, target: &str, index: u64) -> String {
    format!(
        "BAREME_FUZZ_SEED={seed:#x} BAREME_FUZZ_INDEX={index} cargo test --release --test it fuzz::{target}"
    )
}

/// The file an input over the limit is written to.
pub fn timeout_file(dir: &Path, target: &str, index: u64) -> PathBuf {
    dir.join(format!("{target}-{index}.timeout.txt"))
}

/// The finding of an input that took `took`, over `limit`.
pub fn over_limit(seed: u64, target: &str, index: u64, took: Duration, limit: Duration) -> Finding {
    Finding::new(
        OVER_LIMIT,
        format!(
            "took {took:.1?}, over the limit of {limit:?} per input (BAREME_FUZZ_TIMEOUT); reproduce: {}",
            reproduce(seed, target, index)
        ),
    )
}

impl Watchdog {
    /// A watchdog for `target` that ends the process at the hard limit.
    pub fn new(target: &'static str, seed: u64, limit: Duration, dir: PathBuf) -> Watchdog {
        Watchdog::with(
            target,
            seed,
            limit,
            dir,
            Box::new(|_| std::process::exit(HARD_EXIT)),
        )
    }

    /// A watchdog whose hard limit calls `on_hard` after writing its message.
    pub fn with(
        target: &'static str,
        seed: u64,
        limit: Duration,
        dir: PathBuf,
        on_hard: OnHard,
    ) -> Watchdog {
        let shared = Arc::new(Shared {
            current: Mutex::new(None),
            stop: AtomicBool::new(false),
            fired: AtomicBool::new(false),
            hard: AtomicBool::new(false),
        });
        let hard = limit.saturating_mul(HARD_FACTOR);
        // Polling: often enough for a tiny limit, rarely enough to cost nothing.
        let tick = (limit / 4).clamp(Duration::from_millis(1), Duration::from_millis(250));
        let watched = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name(format!("fuzz-watchdog-{target}"))
            .spawn(move || {
                while !watched.stop.load(Ordering::Relaxed) {
                    std::thread::sleep(tick);
                    let mut guard = match watched.current.lock() {
                        Ok(g) => g,
                        Err(poisoned) => poisoned.into_inner(),
                    };
                    let Some(cur) = guard.as_mut() else {
                        continue;
                    };
                    let took = cur.started.elapsed();
                    if took > limit && !cur.reported {
                        cur.reported = true;
                        let file = timeout_file(&dir, target, cur.index);
                        super::write_file(&dir, &file_name(&file), &cur.bytes);
                        eprintln!(
                            "fuzz {target}: input {} still running after {limit:?} (BAREME_FUZZ_TIMEOUT), written to {}\n  reproduce: {}",
                            cur.index,
                            file.display(),
                            reproduce(seed, target, cur.index)
                        );
                        watched.fired.store(true, Ordering::SeqCst);
                    }
                    if took > hard && !watched.hard.load(Ordering::SeqCst) {
                        let message = format!(
                            "fuzz {target}: input {} still running after {hard:?} ({HARD_FACTOR} × the limit): ending the process\n  input in {}\n  reproduce: {}",
                            cur.index,
                            timeout_file(&dir, target, cur.index).display(),
                            reproduce(seed, target, cur.index)
                        );
                        eprintln!("{message}");
                        watched.hard.store(true, Ordering::SeqCst);
                        on_hard(&message);
                    }
                }
            })
            .ok();
        Watchdog {
            shared,
            limit,
            target,
            seed,
            thread,
        }
    }

    /// Input `index`, whose bytes are `bytes`, starts now.
    pub fn start(&self, index: u64, bytes: Vec<u8>) {
        let mut guard = match self.shared.current.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        *guard = Some(Current {
            index,
            bytes,
            started: Instant::now(),
            reported: false,
        });
    }

    /// The input started last has finished after `took`: a finding if over the limit.
    pub fn done(&self, index: u64, took: Duration) -> Option<Finding> {
        let mut guard = match self.shared.current.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        *guard = None;
        (took > self.limit).then(|| over_limit(self.seed, self.target, index, took, self.limit))
    }

    /// Whether the watchdog has reported an input over the limit.
    pub fn fired(&self) -> bool {
        self.shared.fired.load(Ordering::SeqCst)
    }

    /// Whether the watchdog has reached the hard limit.
    pub fn hard_reached(&self) -> bool {
        self.shared.hard.load(Ordering::SeqCst)
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
