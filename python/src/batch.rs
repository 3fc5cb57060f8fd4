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
//! What a worker makes of a case is the [`Road`]'s: the line `eval
//! --batch` writes, or, for answers wanted as dicts, the typed answer
//! itself, which the calling thread turns into Python objects without a
//! JSON text between.
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
type Done = Result<Vec<Evaluated>, ()>;

/// What the workers give for each case: the line `eval --batch` writes,
/// or, for answers wanted as dicts, the typed answer itself.
#[derive(Clone, Copy)]
pub(crate) enum Road {
    Lines { trace: bool },
    Answers,
}

/// One case's result on either [`Road`].
pub(crate) enum Evaluated {
    Answer(bareme::Answer),
    /// A line as `eval --batch` writes it: an answer's with its trace, or
    /// `{"error": …}`.
    Line(Vec<u8>),
}

impl Evaluated {
    /// The line `eval --batch` writes for it.
    pub(crate) fn into_line(self) -> Vec<u8> {
        match self {
            Evaluated::Line(line) => line,
            Evaluated::Answer(answer) => {
                let mut line = Vec::new();
                write_outcome(&mut line, Ok(&bareme::Outcome::Answer(answer)));
                line
            }
        }
    }
}

/// Evaluates every case of `cases` (an iterable of dicts or JSON texts) on
/// `jobs` workers along `road` and hands each chunk's results to `sink`, in
/// order.
pub(crate) fn each_chunk(
    py: Python<'_>,
    rb: &bareme::Rulebook,
    cases: &Bound<'_, PyAny>,
    jobs: usize,
    road: Road,
    sink: impl FnMut(Vec<Evaluated>) -> PyResult<()>,
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
    let (to_caller, results) = mpsc::channel::<Done>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            for chunk in chunks {
                let evaluated = catch_unwind(AssertUnwindSafe(|| {
                    evaluate(rb, &chunk, pool.as_ref(), road)
                }));
                if to_caller.send(evaluated.map_err(|_| ())).is_err() {
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
fn feed(
    py: Python<'_>,
    mut items: Bound<'_, PyIterator>,
    to_evaluator: SyncSender<Vec<Input>>,
    mut results: Receiver<Done>,
    mut sink: impl FnMut(Vec<Evaluated>) -> PyResult<()>,
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
fn wait(py: Python<'_>, results: Receiver<Done>) -> (Receiver<Done>, Result<Done, RecvError>) {
    py.detach(move || {
        let lines = results.recv();
        (results, lines)
    })
}

fn stopped() -> PyErr {
    RulebookFault::new_err("internal error: the engine stopped on this input")
}

/// One chunk's results, in order, on the pool when there is one.
fn evaluate(
    rb: &bareme::Rulebook,
    chunk: &[Input],
    pool: Option<&ThreadPool>,
    road: Road,
) -> Vec<Evaluated> {
    let one = |input: &Input| match (input, road) {
        (Ok(bytes), Road::Lines { trace }) => Evaluated::Line(batch_line(rb, bytes, trace)),
        (Ok(bytes), Road::Answers) => match bareme::evaluate_bytes(rb, bytes, false) {
            Ok((bareme::Outcome::Answer(answer), _)) => Evaluated::Answer(answer),
            // What has no answer, written as `batch_line` writes it
            // (`evaluate_bytes` reads the bytes as it does).
            other => {
                let mut line = Vec::new();
                write_outcome(&mut line, other.as_ref().map(|(outcome, _)| outcome));
                Evaluated::Line(line)
            }
        },
        // serde_json escapes strings as the library's one writer does.
        (Err((path, message)), _) => Evaluated::Line(
            serde_json::json!({"error": {"path": path, "message": message}})
                .to_string()
                .into_bytes(),
        ),
    };
    match pool {
        Some(pool) if chunk.len() > 1 => pool.install(|| chunk.par_iter().map(one).collect()),
        _ => chunk.iter().map(one).collect(),
    }
}
