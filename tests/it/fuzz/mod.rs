//! A fuzz harness on stable Rust for the five outside inputs: rulebook TOML,
//! expression text, case JSON, batch lines and replies graded by a rubric.
//!
//! Each target derives input `i` from `(seed, target, i)` alone (a ChaCha8
//! generator keyed by the three), so any failure is reproduced by its index:
//! `BAREME_FUZZ_SEED=S BAREME_FUZZ_INDEX=I cargo test --test it fuzz::TARGET`.
//! Inputs are mostly structure-aware mutations of the bundled rulebooks and
//! cases, and typed random expressions, not random bytes.
//!
//! The oracle, per input: no panic (each input runs under `catch_unwind`; the
//! input is written to `target/fuzz-failures/<target>-<index>.txt`, with a
//! reduced copy beside it); no abort (it kills the test binary, and
//! `<target>-inflight.txt` holds the input that was running); and where
//! evaluation succeeds, the same input evaluated twice gives the same bytes,
//! traced or not.
//!
//! `cargo test` runs a short mode (a few thousand inputs per target);
//! `BAREME_FUZZ_COUNT=N` sets the count per target and `BAREME_FUZZ_SECONDS=N`
//! a time budget per target (either selects the long mode, run it with
//! `--release -- --nocapture`; with both, whichever ends first), which also
//! reports the slowest inputs. `tests/fuzz-long.sh` shards a long run by
//! index range over all cores.
//!
//! Every input runs under a time limit (`BAREME_FUZZ_TIMEOUT` seconds, a
//! generous default): a watchdog thread writes an input past it as
//! `<target>-<index>.timeout.txt` and ends the process past ten times it
//! (`watchdog.rs`). It is a hang detector: no other wall-clock assertion;
//! times are only reported, in long mode.

mod batch;
mod case_json;
mod corpus;
mod expr_text;
mod generator_toml;
mod mutate_toml;
mod reply_text;
mod rubric_toml;
mod rulebook_toml;
mod watchdog;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::cell::{Cell, RefCell};
use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The generator every input is drawn from.
pub type Rng = ChaCha8Rng;

/// The seed of the short mode, so CI runs the same inputs every time.
const DEFAULT_SEED: u64 = 0x6261_7265_6d65;

/// An input slower than this is listed in the long mode's report.
const SLOW: Duration = Duration::from_secs(1);

/// At most this many failure files per distinct failure.
const FILES_PER_SIGNATURE: usize = 3;

/// What the environment asks of a run.
#[derive(Clone, Debug)]
pub struct Config {
    /// `BAREME_FUZZ_SEED`.
    pub seed: u64,
    /// `BAREME_FUZZ_COUNT`, when set: the long mode.
    pub count: Option<u64>,
    /// `BAREME_FUZZ_INDEX`: run this one input only.
    pub only: Option<u64>,
    /// `BAREME_FUZZ_FIRST`: start at this index (to go on past an abort).
    pub first: u64,
    /// `BAREME_FUZZ_SECONDS`, when set: a time budget per target (the long mode).
    pub seconds: Option<u64>,
    /// `BAREME_FUZZ_TIMEOUT`: the time limit per input, in seconds.
    pub timeout: Duration,
}

impl Config {
    fn from_env() -> Config {
        let num = |key: &str| {
            std::env::var(key).ok().map(|v| {
                let v = v.trim().replace('_', "");
                let parsed = match v.strip_prefix("0x") {
                    Some(hex) => u64::from_str_radix(hex, 16),
                    None => v.parse(),
                };
                parsed.unwrap_or_else(|_| panic!("{key} must be a number, found {v:?}"))
            })
        };
        Config {
            seed: num("BAREME_FUZZ_SEED").unwrap_or(DEFAULT_SEED),
            count: num("BAREME_FUZZ_COUNT"),
            only: num("BAREME_FUZZ_INDEX"),
            first: num("BAREME_FUZZ_FIRST").unwrap_or(0),
            seconds: num("BAREME_FUZZ_SECONDS"),
            timeout: num("BAREME_FUZZ_TIMEOUT")
                .map_or(watchdog::DEFAULT_LIMIT, |s| Duration::from_secs(s.max(1))),
        }
    }

    /// The long mode: a count or a time budget was given.
    pub fn long(&self) -> bool {
        self.count.is_some() || self.seconds.is_some()
    }

    /// The short mode's settings under `seed` (for tests of the harness).
    pub fn short(seed: u64) -> Config {
        Config {
            seed,
            count: None,
            only: None,
            first: 0,
            seconds: None,
            timeout: watchdog::DEFAULT_LIMIT,
        }
    }
}

/// The seed of input `i` of `target`: the run's seed, the target's name and the index.
pub fn input_rng(seed: u64, target: &str, i: u64) -> Rng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(&fnv1a(target.as_bytes()).to_le_bytes());
    key[16..24].copy_from_slice(&i.to_le_bytes());
    key[24..].copy_from_slice(b"bareme:f");
    ChaCha8Rng::from_seed(key)
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Where failing inputs are written: `BAREME_FUZZ_DIR`, else
/// `target/fuzz-failures` (the shards of `tests/fuzz-long.sh` each get their
/// own, so that their in-flight files do not overwrite one another).
pub fn failures_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("BAREME_FUZZ_DIR") {
        return PathBuf::from(dir);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| super::root().join("target"));
    target.join("fuzz-failures")
}

// ---------------------------------------------------------------- panics

thread_local! {
    /// Set while a fuzz input runs: the hook records the panic instead of printing it.
    static QUIET: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
    /// What the inputs of the running target came to, by kind, for the report.
    static TALLY: RefCell<Vec<(&'static str, u64)>> = const { RefCell::new(Vec::new()) };
}

/// Counts one result of the kind named (`loaded`, `answer`, `not JSON`, …) for the report.
pub fn tally(kind: &'static str) {
    TALLY.with(|t| {
        let mut t = t.borrow_mut();
        match t.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += 1,
            None => t.push((kind, 1)),
        }
    });
}

fn install_hook() {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(Cell::get) {
                let payload = info
                    .payload()
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| info.payload().downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "(no message)".into());
                let at = info
                    .location()
                    .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
                    .unwrap_or_default();
                LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("panic at {at}: {payload}")));
            } else {
                previous(info);
            }
        }));
    });
}

/// A failed oracle: a stable signature (to tell distinct failures apart) and a message.
#[derive(Clone, Debug)]
pub struct Finding {
    /// Same signature, same failure: a panic's location, or the oracle's name.
    pub signature: String,
    /// What happened.
    pub message: String,
}

impl Finding {
    /// A failed oracle other than a panic.
    pub fn new(signature: &str, message: impl Into<String>) -> Finding {
        Finding {
            signature: signature.to_string(),
            message: message.into(),
        }
    }
}

/// Runs `check` under `catch_unwind`; a panic becomes a finding signed by its location.
pub fn guarded(check: impl FnOnce() -> Result<(), Finding>) -> Result<(), Finding> {
    install_hook();
    QUIET.with(|q| q.set(true));
    let res = std::panic::catch_unwind(AssertUnwindSafe(check));
    QUIET.with(|q| q.set(false));
    match res {
        Ok(r) => r,
        Err(_) => {
            let message = LAST_PANIC
                .with(|p| p.borrow_mut().take())
                .unwrap_or_else(|| "panic".into());
            let signature = message.split(": ").next().unwrap_or("panic").to_string();
            Err(Finding { signature, message })
        }
    }
}

// ---------------------------------------------------------------- one target

/// A target: how to draw input `i`, how to write it to a file, how to check it.
pub trait Target {
    /// The input drawn for one index.
    type Input;
    /// The name in test names, file names and reports.
    const NAME: &'static str;
    /// Inputs per run in the short mode, counted as `BAREME_FUZZ_COUNT` counts them.
    const SHORT_COUNT: u64;
    /// How many counted items one input holds (the batch target: lines per chunk).
    const ITEMS_PER_INPUT: u64 = 1;
    /// Draws the input of index `i` from its generator.
    fn draw(&self, rng: &mut Rng, i: u64) -> Self::Input;
    /// The input as the bytes of its failure file (what the program reads).
    fn bytes(&self, input: &Self::Input) -> Vec<u8>;
    /// Extra files beside the failure file, by suffix: cases the input is evaluated on.
    fn extra_files(&self, _input: &Self::Input) -> Vec<(String, Vec<u8>)> {
        Vec::new()
    }
    /// The oracle: `Err` on a failure other than a panic (a panic is caught around it).
    fn check(&self, input: &Self::Input) -> Result<(), Finding>;
    /// A smaller input failing with the same signature, if the target knows how to shrink.
    fn reduce(&self, _input: &Self::Input, _signature: &str) -> Option<Vec<u8>> {
        None
    }
    /// How many counted items this input holds (the batch target: its lines).
    fn items(&self, _input: &Self::Input) -> u64 {
        1
    }
}

/// What one run of a target found.
#[derive(Debug, Default)]
pub struct Report {
    inputs: u64,
    items: u64,
    slowest: Option<(Duration, u64)>,
    slow: Vec<(u64, Duration)>,
    findings: Vec<(u64, Finding)>,
    signatures: Vec<(String, usize)>,
}

/// Runs a target over the inputs the environment asks for, then fails the
/// test if any input failed its oracle.
pub fn run<T: Target>(target: &T) {
    let cfg = Config::from_env();
    let count = match (cfg.count, cfg.seconds) {
        (Some(n), _) => n.div_ceil(T::ITEMS_PER_INPUT),
        // A budget alone: inputs until it is spent.
        (None, Some(_)) => u64::MAX,
        (None, None) => T::SHORT_COUNT.div_ceil(T::ITEMS_PER_INPUT),
    };
    let budget = cfg.seconds.map(Duration::from_secs);
    let indices: Box<dyn Iterator<Item = u64>> = match cfg.only {
        Some(i) => Box::new(std::iter::once(i)),
        None => Box::new(cfg.first..cfg.first.saturating_add(count)),
    };
    let dir = failures_dir();
    let _ = std::fs::create_dir_all(&dir);
    let mut inflight = InFlight::open(&dir, T::NAME);
    let mut report = Report::default();
    TALLY.with(|t| t.borrow_mut().clear());
    let dog = watchdog::Watchdog::new(T::NAME, cfg.seed, cfg.timeout, dir.clone());
    let started = Instant::now();
    for i in indices {
        if budget.is_some_and(|b| started.elapsed() >= b) {
            break;
        }
        let mut rng = input_rng(cfg.seed, T::NAME, i);
        let input = target.draw(&mut rng, i);
        let bytes = target.bytes(&input);
        inflight.record(i, &bytes);
        dog.start(i, bytes);
        let t0 = Instant::now();
        let mut res = guarded(|| target.check(&input));
        let took = t0.elapsed();
        if let Some(late) = dog.done(i, took) {
            write_file(
                &dir,
                &format!("{}-{i}.timeout.txt", T::NAME),
                &target.bytes(&input),
            );
            // Over the limit is the finding, whatever the oracle said besides.
            res = Err(late);
        }
        report.inputs += 1;
        report.items += target.items(&input);
        if report.slowest.is_none_or(|(t, _)| took > t) {
            report.slowest = Some((took, i));
        }
        if took > SLOW && cfg.long() {
            report.slow.push((i, took));
            write_file(
                &dir,
                &format!("{}-{i}.slow.txt", T::NAME),
                &target.bytes(&input),
            );
            for (suffix, bytes) in target.extra_files(&input) {
                write_file(&dir, &format!("{}-{i}.slow.{suffix}", T::NAME), &bytes);
            }
        }
        if let Err(finding) = res {
            record_finding(target, &dir, &cfg, &input, i, finding, &mut report);
        }
        if cfg.long() && report.inputs % 100_000 == 0 {
            eprintln!(
                "fuzz {}: {} inputs, {:.0?}, {} failures",
                T::NAME,
                report.inputs,
                started.elapsed(),
                report.findings.len()
            );
        }
    }
    drop(dog);
    inflight.finish();
    let summary = summarize::<T>(&cfg, &report, started.elapsed());
    assert!(report.findings.is_empty(), "{summary}");
    if cfg.long() {
        println!("{summary}");
    }
}

fn record_finding<T: Target>(
    target: &T,
    dir: &std::path::Path,
    cfg: &Config,
    input: &T::Input,
    i: u64,
    finding: Finding,
    report: &mut Report,
) {
    let seen = match report
        .signatures
        .iter_mut()
        .find(|(s, _)| *s == finding.signature)
    {
        Some((_, n)) => {
            *n += 1;
            *n
        }
        None => {
            report.signatures.push((finding.signature.clone(), 1));
            1
        }
    };
    if seen <= FILES_PER_SIGNATURE {
        let name = format!("{}-{i}", T::NAME);
        write_file(dir, &format!("{name}.txt"), &target.bytes(input));
        for (suffix, bytes) in target.extra_files(input) {
            write_file(dir, &format!("{name}.{suffix}"), &bytes);
        }
        if seen == 1 && finding.signature != watchdog::OVER_LIMIT {
            // A slow input is not shrunk: each try would take as long.
            // Shrinking runs the oracle many times: keep it out of the tally.
            let tally = TALLY.with(|t| t.borrow().clone());
            if let Some(small) = target.reduce(input, &finding.signature) {
                write_file(dir, &format!("{name}.min.txt"), &small);
            }
            TALLY.with(|t| *t.borrow_mut() = tally);
        }
        eprintln!(
            "fuzz {}: input {i} (seed {:#x}) failed: {}\n  reproduce: {}{}",
            T::NAME,
            cfg.seed,
            finding.message,
            if cfg.long() {
                "BAREME_FUZZ_COUNT=1 "
            } else {
                ""
            },
            watchdog::reproduce(cfg.seed, T::NAME, i)
        );
    }
    report.findings.push((i, finding));
}

fn summarize<T: Target>(cfg: &Config, report: &Report, took: Duration) -> String {
    let mut out = format!(
        "fuzz {}: seed {:#x}, {} inputs",
        T::NAME,
        cfg.seed,
        report.inputs
    );
    if report.items != report.inputs {
        out.push_str(&format!(" ({} lines)", report.items));
    }
    out.push_str(&format!(", {} failed", report.findings.len()));
    if cfg.long() {
        let tally = TALLY.with(|t| {
            t.borrow()
                .iter()
                .map(|(k, n)| format!("{n} {k}"))
                .collect::<Vec<_>>()
                .join(", ")
        });
        out.push_str(&format!(" [{tally}]"));
        out.push_str(&format!(", {took:.1?} in all"));
        if let Some((t, i)) = report.slowest {
            out.push_str(&format!(", slowest input {i} ({t:.1?})"));
        }
        out.push_str(&format!(", {} over {SLOW:?}", report.slow.len()));
        for (i, t) in &report.slow {
            out.push_str(&format!("\n  slow: input {i}, {t:.1?}"));
        }
    }
    for (sig, n) in &report.signatures {
        let (first, finding) = report
            .findings
            .iter()
            .find(|(_, f)| f.signature == *sig)
            .expect("a signature has a finding");
        out.push_str(&format!(
            "\n  {n} × {}\n    first: input {first}: {}\n    reproduce: {}{} (input in {})",
            sig,
            finding.message,
            if cfg.long() {
                "BAREME_FUZZ_COUNT=1 "
            } else {
                ""
            },
            watchdog::reproduce(cfg.seed, T::NAME, *first),
            failures_dir()
                .join(format!("{}-{first}.txt", T::NAME))
                .display()
        ));
    }
    out
}

fn write_file(dir: &std::path::Path, name: &str, bytes: &[u8]) {
    let _ = std::fs::File::create(dir.join(name)).and_then(|mut f| f.write_all(bytes));
}

/// The input that is running, kept in a file so an abort leaves it behind.
struct InFlight {
    file: Option<std::fs::File>,
    path: PathBuf,
}

impl InFlight {
    fn open(dir: &std::path::Path, name: &str) -> InFlight {
        let path = dir.join(format!("{name}-inflight.txt"));
        let file = std::fs::File::create(&path).ok();
        InFlight { file, path }
    }

    fn record(&mut self, i: u64, bytes: &[u8]) {
        use std::os::unix::fs::FileExt;
        if let Some(f) = &self.file {
            // The input, then its index on a last line of its own.
            let _ = f.set_len(0);
            let _ = f.write_all_at(bytes, 0);
            let _ = f.write_all_at(
                format!("\n# fuzz input {i}\n").as_bytes(),
                bytes.len() as u64,
            );
        }
    }

    fn finish(self) {
        drop(self.file);
        let _ = std::fs::remove_file(&self.path);
    }
}

// ---------------------------------------------------------------- shared oracle

/// The bytes of one evaluation: the answer, rejection or fault, and (when
/// asked) the trace as JSON.
pub fn outcome_bytes<E: std::fmt::Display>(
    res: &Result<(bareme::Outcome, Option<bareme::Trace>), E>,
    with_trace: bool,
) -> (String, String) {
    match res {
        Ok((outcome, trace)) => {
            let head = match outcome {
                bareme::Outcome::Answer(a) => format!("answer {a}"),
                bareme::Outcome::Rejected(e) => rejected(&e.path, &e.message),
                other => format!("{other:?}"),
            };
            let trace = match trace {
                Some(t) if with_trace => {
                    let mut written = Vec::new();
                    bareme::unstable::trace::write_trace_json(&mut written, t)
                        .expect("a trace within its bound");
                    String::from_utf8_lossy(&written).into_owned()
                }
                _ => String::new(),
            };
            (head, trace)
        }
        Err(e) => (format!("fault {e}"), String::new()),
    }
}

fn rejected(path: &str, message: &str) -> String {
    format!("rejected at {path}: {message}")
}

/// Loads a rulebook text (twice when `thorough`) and evaluates it on each case
/// with [`check_evaluation`]; refusals render their diagnostics, and two
/// loads must agree.
pub fn check_load(text: &str, cases: &[serde_json::Value], thorough: bool) -> Result<(), Finding> {
    let first = bareme::parse_rulebook("fuzz.toml", text);
    let second = thorough.then(|| bareme::parse_rulebook("fuzz.toml", text));
    tally(if first.is_ok() { "loaded" } else { "refused" });
    match (&first, &second) {
        (Ok(a), None) => cases
            .iter()
            .try_for_each(|case| check_evaluation(a, a, case, thorough)),
        (Ok(a), Some(Ok(b))) => cases
            .iter()
            .try_for_each(|case| check_evaluation(a, b, case, thorough)),
        (Err(a), None) => {
            let _ = a.render(100, false);
            Ok(())
        }
        (Err(a), Some(Err(b))) => {
            let (a, b) = (a.render(100, false), b.render(100, false));
            if a == b {
                Ok(())
            } else {
                Err(Finding::new(
                    "nondeterministic: diagnostics",
                    format!("two loads give different diagnostics:\n{a}\n{b}"),
                ))
            }
        }
        _ => Err(Finding::new(
            "nondeterministic: load",
            "one load accepted the rulebook, the other refused it",
        )),
    }
}

/// Evaluates a case untraced twice (once through `evaluate_value`, once
/// through `validate_case` then `evaluate`, on the second load) and traced,
/// and checks the bytes agree: the same answer, rejection or fault, traced or
/// not. When `thorough`, a second traced evaluation must give the same trace.
pub fn check_evaluation(
    first: &bareme::Rulebook,
    second: &bareme::Rulebook,
    case: &serde_json::Value,
    thorough: bool,
) -> Result<(), Finding> {
    let plain_a = outcome_bytes(&bareme::evaluate_value(first, case, false), false);
    tally(match plain_a.0.split(' ').next() {
        Some("answer") => "answers",
        Some("rejected") => "rejections",
        _ => "faults",
    });
    let plain_b = match bareme::validate_case(second, case) {
        Ok(facts) => outcome_bytes(&bareme::evaluate(second, &facts, false), false),
        Err(e) => (rejected(&e.path, &e.message), String::new()),
    };
    if plain_a != plain_b {
        return Err(Finding::new(
            "nondeterministic: untraced",
            format!(
                "two untraced evaluations differ:\n{}\n{}",
                plain_a.0, plain_b.0
            ),
        ));
    }
    if plain_a.0.starts_with(&rejected("", "")) {
        return Err(Finding::new(
            "rejection without a path",
            format!("rejected with an empty path: {}", plain_a.0),
        ));
    }
    let traced_a = outcome_bytes(&bareme::evaluate_value(first, case, true), thorough);
    // Reports run only when a trace is asked for, so a faulty report cell (a
    // fault in an item's answer) fails the traced evaluation alone: a documented limitation
    // (docs/rulebook-format.md §19, item 2), not a disagreement.
    if plain_a.0.starts_with("answer ")
        && traced_a.0.starts_with("fault ")
        && traced_a.0.contains("(in the answer of item ")
    {
        tally("report cell faults");
        return Ok(());
    }
    if plain_a.0 != traced_a.0 {
        return Err(Finding::new(
            "roads disagree: traced and untraced",
            format!(
                "the traced and untraced evaluations differ:\nuntraced: {}\ntraced:   {}",
                plain_a.0, traced_a.0
            ),
        ));
    }
    if thorough {
        let traced_b = outcome_bytes(&bareme::evaluate_value(second, case, true), true);
        if traced_a != traced_b {
            return Err(Finding::new(
                "nondeterministic: traced",
                format!(
                    "two traced evaluations differ:\n{}\n{}\n{}\n{}",
                    traced_a.0, traced_b.0, traced_a.1, traced_b.1
                ),
            ));
        }
    }
    Ok(())
}

/// Shrinks a list of units (lines, characters) while `fails` holds: drops
/// halves, then quarters, down to single units, until nothing more can go.
pub fn shrink<U: Clone>(
    units: Vec<U>,
    mut fails: impl FnMut(&[U]) -> bool,
    budget: usize,
) -> Vec<U> {
    let mut units = units;
    let mut tries = 0;
    let mut chunk = units.len().div_ceil(2).max(1);
    while chunk >= 1 && tries < budget {
        let mut start = 0;
        let mut progress = false;
        while start < units.len() && tries < budget {
            let end = (start + chunk).min(units.len());
            let candidate: Vec<U> = units[..start]
                .iter()
                .chain(&units[end..])
                .cloned()
                .collect();
            tries += 1;
            if fails(&candidate) {
                units = candidate;
                progress = true;
            } else {
                start = end;
            }
        }
        if !progress {
            if chunk == 1 {
                break;
            }
            chunk = chunk.div_ceil(2);
        }
    }
    units
}

/// Whether `check` fails with `signature` (panics included).
pub fn fails_with(signature: &str, check: impl FnOnce() -> Result<(), Finding>) -> bool {
    matches!(guarded(check), Err(f) if f.signature == signature)
}

// ---------------------------------------------------------------- the tests

#[test]
fn rulebook_toml() {
    run(&rulebook_toml::RulebookToml::new(Config::from_env()));
}

#[test]
fn expression_text() {
    run(&expr_text::ExprText::new(Config::from_env()));
}

#[test]
fn case_json() {
    run(&case_json::CaseText::new(Config::from_env()));
}

#[test]
fn reply_text() {
    run(&reply_text::ReplyText::new(Config::from_env()));
}

#[test]
fn batch_lines() {
    run(&batch::BatchLines::new(Config::from_env()));
}

#[test]
fn generator_toml() {
    run(&generator_toml::GeneratorToml::new(Config::from_env()));
}

#[test]
fn rubric_toml() {
    run(&rubric_toml::RubricToml::new(Config::from_env()));
}

/// The watchdog, with a tiny limit, watching an input that runs until the
/// watchdog has acted: no timing decides the outcome, only the order of events.
#[test]
fn the_watchdog_reports_an_input_over_the_limit_then_ends_the_run() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let dir = failures_dir().join("watchdog-test");
    let _ = std::fs::create_dir_all(&dir);
    let file = watchdog::timeout_file(&dir, "watchdog_test", 17);
    let _ = std::fs::remove_file(&file);
    let ended = Arc::new(AtomicBool::new(false));
    let message = Arc::new(std::sync::Mutex::new(String::new()));
    let (e, m) = (Arc::clone(&ended), Arc::clone(&message));
    let limit = Duration::from_millis(2);
    let dog = watchdog::Watchdog::with(
        "watchdog_test",
        0x2a,
        limit,
        dir.clone(),
        Box::new(move |msg| {
            if let Ok(mut m) = m.lock() {
                *m = msg.to_string();
            }
            e.store(true, Ordering::SeqCst);
        }),
    );
    // A quick input: nothing written, no finding.
    dog.start(16, b"quick".to_vec());
    assert!(dog.done(16, Duration::ZERO).is_none());
    // A hanging input: it runs until the watchdog ends the run.
    let t0 = Instant::now();
    dog.start(17, b"if exempt then 0 else 1 + (".to_vec());
    while !ended.load(Ordering::SeqCst) {
        std::thread::yield_now();
    }
    assert!(dog.fired() && dog.hard_reached());
    assert_eq!(
        std::fs::read(&file).ok().as_deref(),
        Some(&b"if exempt then 0 else 1 + ("[..])
    );
    let said = message.lock().map(|m| m.clone()).unwrap_or_default();
    assert!(
        said.contains("input 17 still running after 20ms (10 × the limit)"),
        "{said}"
    );
    assert!(
        said.contains("BAREME_FUZZ_SEED=0x2a BAREME_FUZZ_INDEX=17 cargo test --release --test it fuzz::watchdog_test"),
        "{said}"
    );
    // The input finishes after all: a finding of the run.
    let late = dog
        .done(17, t0.elapsed())
        .expect("over the limit is a finding");
    assert_eq!(late.signature, watchdog::OVER_LIMIT);
    assert!(
        late.message.contains("BAREME_FUZZ_INDEX=17"),
        "{}",
        late.message
    );
    drop(dog);
    let _ = std::fs::remove_dir_all(&dir);
}

/// An input reported over the limit is recorded like a panic: counted,
/// written, and named in the summary with the line that reproduces it.
#[test]
fn an_input_over_the_limit_is_a_finding_of_the_run() {
    let cfg = Config::short(0x2a);
    let target = reply_text::ReplyText::new(cfg.clone());
    let input = target.draw(&mut input_rng(cfg.seed, reply_text::ReplyText::NAME, 5), 5);
    let dir = failures_dir().join("over-limit-test");
    let _ = std::fs::create_dir_all(&dir);
    let mut report = Report::default();
    let late = watchdog::over_limit(
        cfg.seed,
        reply_text::ReplyText::NAME,
        5,
        Duration::from_secs(120),
        Duration::from_secs(60),
    );
    assert_eq!(
        late.message,
        "took 120.0s, over the limit of 60s per input (BAREME_FUZZ_TIMEOUT); reproduce: BAREME_FUZZ_SEED=0x2a BAREME_FUZZ_INDEX=5 cargo test --release --test it fuzz::reply_text"
    );
    record_finding(&target, &dir, &cfg, &input, 5, late, &mut report);
    assert_eq!(report.findings.len(), 1);
    assert_eq!(
        report.signatures,
        vec![(watchdog::OVER_LIMIT.to_string(), 1)]
    );
    assert_eq!(
        std::fs::read(dir.join("reply_text-5.txt")).ok(),
        Some(target.bytes(&input))
    );
    // No shrinking of a slow input.
    assert!(!dir.join("reply_text-5.min.txt").exists());
    let summary = summarize::<reply_text::ReplyText>(&cfg, &report, Duration::ZERO);
    assert!(summary.contains("1 failed"), "{summary}");
    assert!(
        summary.contains("reproduce: BAREME_FUZZ_SEED=0x2a BAREME_FUZZ_INDEX=5 cargo test --release --test it fuzz::reply_text"),
        "{summary}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_harness_catches_panics_and_shrinks_inputs() {
    let caught = guarded(|| panic!("boom {}", 42)).expect_err("a panic is a finding");
    assert!(caught.message.contains("boom 42"), "{}", caught.message);
    assert!(
        caught.signature.contains("fuzz/mod.rs"),
        "{}",
        caught.signature
    );
    assert!(guarded(|| Ok(())).is_ok());
    let small = shrink(
        (0..100).collect::<Vec<u32>>(),
        |u| u.contains(&17) && u.contains(&42),
        1_000,
    );
    assert_eq!(small, vec![17, 42]);
}

#[test]
fn fuzz_inputs_are_reproducible_by_index() {
    fn same<T: Target>(target: &T) {
        let draw = |i| target.bytes(&target.draw(&mut input_rng(7, T::NAME, i), i));
        assert_eq!(draw(3), draw(3), "{}", T::NAME);
        assert!((4..8).any(|i| draw(i) != draw(3)), "{}", T::NAME);
    }
    let cfg = Config::short(7);
    same(&rulebook_toml::RulebookToml::new(cfg.clone()));
    same(&expr_text::ExprText::new(cfg.clone()));
    same(&case_json::CaseText::new(cfg.clone()));
    same(&reply_text::ReplyText::new(cfg.clone()));
    same(&generator_toml::GeneratorToml::new(cfg.clone()));
    same(&rubric_toml::RubricToml::new(cfg.clone()));
    same(&batch::BatchLines::new(cfg));
}
