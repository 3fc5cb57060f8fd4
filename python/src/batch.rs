//! `evaluate_batch`: many cases evaluated as `eval --batch` evaluates its
//! lines, with the Python side of the work overlapped with the engine's.
//!
//! Turning a dict case into JSON bytes and an answer's line into Python
//! objects both need the GIL, so they run on the calling thread; the
//! engine needs none of it. The cases are therefore taken a chunk at a
//! time: while a scoped evaluator thread (driving the `jobs` workers)
//! evaluates one chunk, the calling thread writes the next one and hands on
//! the lines of the chunks already evaluated, and it releases the GIL
//! whenever it waits for the evaluator. A batch then costs about the larger
//! of the two sides rather than their sum.
//!
//! What a worker makes of a case is the road's: the line `eval --batch`
//! writes ([`each_line`]), or, for answers given as dicts, the typed answer
//! itself ([`each_answer`]), which the calling thread turns into Python
//! objects without a JSON text between.
//!
//! Invariant: the lines, their order and every error are those of
//! `bareme::unstable::embed::batch_lines` over the same cases, whatever
//! the chunk size and the number of workers: a case that cannot be written
//! as JSON is its own error line, an exception while reading the cases
//! stops the batch, and a panic of the engine (which it must never raise)
//! is a `RulebookFault`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver, RecvError, SyncSender};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyIterator, PyString};
use rayon::prelude::*;
use rayon::ThreadPool;

use bareme::unstable::embed::{batch_line, PoolError};
use bareme::unstable::outcome::write_outcome;

use crate::case::{json_bytes, Refused};
use crate::RulebookFault;

/// Cases per chunk: small enough that the two sides overlap from the
/// start, large enough that handing a chunk over costs nothing per case.
const CHUNK: usize = 256;

/// A case as written for the engine, or why it could not be.
type Input = Result<Vec<u8>, Refused>;

/// A chunk's results, or `Err` when the engine panicked on it.
type Done<T> = Result<Vec<T>, ()>;

/// A case evaluated for [`Each::Answer`].
pub(crate) enum Evaluated {
    Answer(bareme::Answer),
    /// `{"error": …}`, as `eval --batch` writes it.
    Line(Vec<u8>),
}

/// Evaluates every case of `cases` (an iterable of dicts or JSON texts) on
/// `jobs` workers and hands each chunk's lines to `sink`, in order.
pub(crate) fn each_line(
    py: Python<'_>,
    rb: &bareme::Rulebook,
    cases: &Bound<'_, PyAny>,
    jobs: usize,
    trace: bool,
    sink: impl FnMut(Vec<Vec<u8>>) -> PyResult<()>,
) -> PyResult<()> {
    each_chunk(
        py,
        cases,
        jobs,
        |input| match input {
            Ok(bytes) => batch_line(rb, bytes, trace),
            Err((path, message)) => refused_line(path, message),
        },
        sink,
    )
}

/// Evaluates every case of `cases` on `jobs` workers and hands each
/// chunk's answers (or error lines) to `sink`, in order.
pub(crate) fn each_answer(
    py: Python<'_>,
    rb: &bareme::Rulebook,
    cases: &Bound<'_, PyAny>,
    jobs: usize,
    sink: impl FnMut(Vec<Evaluated>) -> PyResult<()>,
) -> PyResult<()> {
    each_chunk(
        py,
        cases,
        jobs,
        |input| match input {
            Ok(bytes) => evaluated(rb, bytes),
            Err((path, message)) => Evaluated::Line(refused_line(path, message)),
        },
        sink,
    )
}

/// One case's answer, or the line `batch_line` writes for it when it has
/// none (`evaluate_bytes` reads the bytes as `batch_line` does).
pub(crate) fn evaluated(rb: &bareme::Rulebook, bytes: &[u8]) -> Evaluated {
    match bareme::evaluate_bytes(rb, bytes, false) {
        Ok((bareme::Outcome::Answer(answer), _)) => Evaluated::Answer(answer),
        other => {
            let mut line = Vec::new();
            write_outcome(&mut line, other.as_ref().map(|(outcome, _)| outcome));
            Evaluated::Line(line)
        }
    }
}

/// The error line of a case that could not be written as JSON.
fn refused_line(path: &str, message: &str) -> Vec<u8> {
    // serde_json escapes strings as the library's one writer does.
    serde_json::json!({"error": {"path": path, "message": message}})
        .to_string()
        .into_bytes()
}

/// The chunked, overlapped run both roads share; `one` is what a worker
/// makes of a case.
fn each_chunk<T: Send>(
    py: Python<'_>,
    cases: &Bound<'_, PyAny>,
    jobs: usize,
    one: impl Fn(&Input) -> T + Sync,
    sink: impl FnMut(Vec<T>) -> PyResult<()>,
) -> PyResult<()> {
    let items = cases_of(cases)?;
    let pool = match jobs {
        0 | 1 => None,
        _ => Some(
            bareme::unstable::chunks::pool(jobs)
                .map_err(|_| PyValueError::new_err(PoolError { jobs }.to_string()))?,
        ),
    };
    let (to_evaluator, chunks) = mpsc::sync_channel::<Vec<Input>>(1);
    let (to_caller, results) = mpsc::channel::<Done<T>>();
    let one = &one;
    std::thread::scope(|scope| {
        scope.spawn(move || {
            for chunk in chunks {
                let lines = catch_unwind(AssertUnwindSafe(|| evaluate(&chunk, pool.as_ref(), one)));
                if to_caller.send(lines.map_err(|_| ())).is_err() {
                    break;
                }
            }
        });
        // Both ends are dropped when this returns, error or not, so the
        // evaluator stops before the scope waits for it.
        feed(py, items, to_evaluator, results, sink)
    })
}

/// The iterator over `cases`, refusing one text given for a list of them.
pub(crate) fn cases_of<'py>(cases: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyIterator>> {
    if cases.is_instance_of::<PyString>() || cases.is_instance_of::<PyBytes>() {
        return Err(PyTypeError::new_err(
            "cases is a list of cases (dicts or JSON texts), not one text",
        ));
    }
    cases.try_iter()
}

/// The calling thread's side: writes the cases a chunk at a time, sends
/// each chunk to the evaluator, and hands on every chunk evaluated.
fn feed<T: Send>(
    py: Python<'_>,
    mut items: Bound<'_, PyIterator>,
    to_evaluator: SyncSender<Vec<Input>>,
    mut results: Receiver<Done<T>>,
    mut sink: impl FnMut(Vec<T>) -> PyResult<()>,
) -> PyResult<()> {
    let mut in_flight = 0usize;
    let mut more = true;
    while more {
        let mut chunk = Vec::with_capacity(CHUNK);
        while chunk.len() < CHUNK {
            match items.next() {
                Some(case) => chunk.push(json_bytes(py, &case?)),
                None => {
                    more = false;
                    break;
                }
            }
        }
        // What the evaluator finished meanwhile.
        while let Ok(lines) = results.try_recv() {
            in_flight -= 1;
            sink(lines.map_err(|_| stopped())?)?;
        }
        if !chunk.is_empty() {
            py.detach(|| to_evaluator.send(chunk))
                .map_err(|_| stopped())?;
            in_flight += 1;
        }
    }
    drop(to_evaluator);
    while in_flight > 0 {
        let (back, lines) = wait(py, results);
        results = back;
        in_flight -= 1;
        sink(lines.map_err(|_| stopped())?.map_err(|_| stopped())?)?;
    }
    Ok(())
}

/// The next chunk's lines, waited for without the GIL (the receiver goes
/// to the waiting side and comes back, as it may not be shared).
fn wait<T: Send>(
    py: Python<'_>,
    results: Receiver<Done<T>>,
) -> (Receiver<Done<T>>, Result<Done<T>, RecvError>) {
    py.detach(move || {
        let lines = results.recv();
        (results, lines)
    })
}

fn stopped() -> PyErr {
    RulebookFault::new_err("internal error: the engine stopped on this input")
}

/// One chunk's results, in order, on the pool when there is one.
fn evaluate<T: Send>(
    chunk: &[Input],
    pool: Option<&ThreadPool>,
    one: &(impl Fn(&Input) -> T + Sync),
) -> Vec<T> {
    match pool {
        Some(pool) if chunk.len() > 1 => pool.install(|| chunk.par_iter().map(one).collect()),
        _ => chunk.iter().map(one).collect(),
    }
}
