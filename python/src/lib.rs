//! `bareme._bareme`: the library's root API as a Python module (PyO3).
//!
//! Every call goes through bareme's root names (`load_rulebook`,
//! `evaluate_bytes`, `Scorer`, …) and, for the command's own lines, the
//! writers and runners the command uses (`bareme::unstable`: the outcome
//! and traced lines, `batch_lines`, `generate_lines`, the two phases of a
//! distributed draw; this module ships with the library, so it follows
//! them), so what Python gets is byte for byte what the `bareme` command prints:
//! an answer, a task or a score is the command's JSON text, read into
//! Python by `json.loads` (non-integer numbers as `decimal.Decimal`).
//!
//! Nothing here may panic on outside input: every error is mapped to a
//! Python exception (`RulebookError`, `CaseRejected`, `RulebookFault`, or
//! `ValueError`/`TypeError` for a wrong argument), and each call into the
//! engine runs inside `catch_unwind` as a last guard, with the GIL
//! released (`Python::detach`) while the engine works.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::str::FromStr;

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use bareme::unstable::embed::{generate_lines, generate_lines_excluding};
use bareme::unstable::generate::{first_draws, redraw_duplicates, FirstDraw, RunOptions};
use bareme::unstable::outcome::{write_outcome, write_traced};
use bareme::unstable::tasks::{ReplyLine, ReplyText};
use rust_decimal::Decimal;

mod answer;
mod batch;
mod case;
mod repair;
mod tools;

use case::json_bytes;

create_exception!(
    _bareme,
    BaremeError,
    PyException,
    "The base of bareme's errors."
);
create_exception!(
    _bareme,
    RulebookError,
    BaremeError,
    "A rulebook, generator or rubric file that cannot be read or has problems: `.diagnostics` lists them (dicts: code, message, file, line, column)."
);
create_exception!(
    _bareme,
    CaseRejected,
    BaremeError,
    "A case the rulebook refuses (the command's exit 2): `.path` names the field (`$` the case itself), `.message` says why."
);
create_exception!(
    _bareme,
    RulebookFault,
    BaremeError,
    "The rulebook failed on a valid case (the command's exit 4): a fault of the rulebook, not of the case, or a trace past its bounds (2,000,000 records, 48 MiB of JSON)."
);

/// Runs engine work without the GIL, a panic (which the engine must never
/// raise on outside input) turned into a `RulebookFault`.
fn engine<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    py.detach(|| catch_unwind(AssertUnwindSafe(f)))
        .map_err(|_| RulebookFault::new_err("internal error: the engine stopped on this input"))
}

/// The decoders, made once: a `json.JSONDecoder` per call costs more than
/// a small evaluation.
static EXACT: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
static PLAIN: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();

/// `json.loads(text)`, numbers with a fraction or exponent as `Decimal`
/// when `exact`.
fn loads<'py>(py: Python<'py>, text: &str, exact: bool) -> PyResult<Bound<'py, PyAny>> {
    let decoder = if exact {
        EXACT.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
            let kwargs = PyDict::new(py);
            kwargs.set_item("parse_float", py.import("decimal")?.getattr("Decimal")?)?;
            Ok(py
                .import("json")?
                .getattr("JSONDecoder")?
                .call((), Some(&kwargs))?
                .unbind())
        })?
    } else {
        PLAIN.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
            Ok(py.import("json")?.getattr("JSONDecoder")?.call0()?.unbind())
        })?
    };
    decoder.bind(py).call_method1("decode", (text,))
}

/// The rulebook failed on a valid case.
fn rulebook_fault(e: &bareme::EvalError) -> PyErr {
    RulebookFault::new_err(format!("the rulebook failed on this case: {e}"))
}

/// An error with attributes set on the instance.
fn error_with(py: Python<'_>, err: PyErr, attrs: &[(&str, Bound<'_, PyAny>)]) -> PyErr {
    let value = err.value(py);
    for (name, v) in attrs {
        if let Err(e) = value.setattr(*name, v) {
            return e;
        }
    }
    err
}

fn case_rejected(py: Python<'_>, path: &str, message: &str) -> PyErr {
    let err = CaseRejected::new_err(format!("{path}: {message}"));
    error_with(
        py,
        err,
        &[
            ("path", PyString::new(py, path).into_any()),
            ("message", PyString::new(py, message).into_any()),
        ],
    )
}

/// Each problem as a dict: code, message, file, line, column (`line`
/// and `column` None for a problem without a place).
fn diagnostics_list<'py>(
    py: Python<'py>,
    diags: &bareme::Diagnostics,
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for p in &diags.problems {
        let d = PyDict::new(py);
        d.set_item("code", p.code)?;
        d.set_item("message", &p.message)?;
        d.set_item("file", p.file().unwrap_or(&diags.source.name))?;
        let (line, column) = match p.line_column() {
            Some((l, c)) => (Some(l), Some(c)),
            None => (None, None),
        };
        d.set_item("line", line)?;
        d.set_item("column", column)?;
        list.append(d)?;
    }
    Ok(list)
}

/// A `RulebookError` with its diagnostics.
fn rulebook_error(py: Python<'_>, message: String, list: Bound<'_, PyList>) -> PyErr {
    error_with(
        py,
        RulebookError::new_err(message),
        &[("diagnostics", list.into_any())],
    )
}

/// A file that could not be read, as one diagnostic without a place.
fn unreadable(py: Python<'_>, code: &str, message: String, file: &str) -> PyErr {
    let one = || -> PyResult<Bound<'_, PyList>> {
        let d = PyDict::new(py);
        d.set_item("code", code)?;
        d.set_item("message", &message)?;
        d.set_item("file", file)?;
        d.set_item("line", py.None())?;
        d.set_item("column", py.None())?;
        PyList::new(py, [d])
    };
    match one() {
        Ok(list) => rulebook_error(py, message.clone(), list),
        Err(e) => e,
    }
}

fn load_error(py: Python<'_>, e: &bareme::LoadError, file: &str) -> PyErr {
    match e {
        bareme::LoadError::Invalid(diags) => match diagnostics_list(py, diags) {
            Ok(list) => rulebook_error(py, format!("{e}:\n{diags}"), list),
            Err(err) => err,
        },
        bareme::LoadError::Io { path, .. } | bareme::LoadError::TooLarge { path, .. } => {
            unreadable(py, e.code(), e.to_string(), path)
        }
        other => unreadable(py, other.code(), other.to_string(), file),
    }
}

/// A generator's or rubric's load failure.
fn companion_error(py: Python<'_>, e: &bareme::CompanionError, file: &str) -> PyErr {
    match e {
        bareme::CompanionError::Invalid(diags) => match diagnostics_list(py, diags) {
            Ok(list) => rulebook_error(py, format!("{e}:\n{diags}"), list),
            Err(err) => err,
        },
        bareme::CompanionError::Rulebook { source, .. } => load_error(py, source, file),
        other => unreadable(py, "load::io", other.to_string(), file),
    }
}

/// Worker threads: every core unless told; told, 1 to 256, as `--jobs`
/// takes them (0 or 1,000 were taken and quietly bounded).
fn jobs_of(jobs: Option<usize>) -> PyResult<usize> {
    let max = bareme::unstable::chunks::MAX_JOBS;
    match jobs {
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get().min(max))),
        Some(n) if (1..=max).contains(&n) => Ok(n),
        Some(n) => Err(PyValueError::new_err(format!(
            "jobs is 1 to {max}, not {n}"
        ))),
    }
}

/// A run of tasks `start..start + n` of `seed`, as the generator methods
/// take it from Python.
fn run_options(
    n: u64,
    seed: u64,
    start: u64,
    level: Option<i64>,
    jobs: Option<usize>,
) -> PyResult<RunOptions> {
    Ok(RunOptions {
        seed,
        start,
        count: n,
        level,
        jobs: jobs_of(jobs)?,
    })
}

fn utf8(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// A checked rulebook version, loaded from its folder or file.
///
/// >>> rb = bareme.Rulebook.load("rulebooks/luma-payroll/v3")
/// >>> rb.evaluate({"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"})["net_pay"]
/// '2237.50'
#[pyclass(module = "bareme", frozen)]
struct Rulebook {
    rb: bareme::Rulebook,
}

impl Rulebook {
    /// The rulebook under `ablate`, or a `ValueError` saying why not.
    fn under(&self, ablate: Option<Vec<String>>) -> PyResult<Option<bareme::Rulebook>> {
        let Some(names) = ablate.filter(|n| !n.is_empty()) else {
            return Ok(None);
        };
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        self.rb
            .ablated_all(&names)
            .map(Some)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }
}

#[pymethods]
impl Rulebook {
    /// Loads and checks a rulebook (a version folder or its
    /// `rulebook.toml`); raises `RulebookError` with its diagnostics.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<Rulebook> {
        let name = path.display().to_string();
        match engine(py, || bareme::load_rulebook(&path))? {
            Ok(rb) => Ok(Rulebook { rb }),
            Err(e) => Err(load_error(py, &e, &name)),
        }
    }

    /// The rulebook's id, e.g. `"luma-payroll"`.
    #[getter]
    fn id(&self) -> &str {
        self.rb.id()
    }

    /// The version, as text: `"3"`.
    #[getter]
    fn version(&self) -> String {
        self.rb.version().to_string()
    }

    /// The SHA-256 (hex) of the rulebook's text, as tasks record it.
    #[getter]
    fn hash(&self) -> &str {
        self.rb.hash()
    }

    /// The warnings of `bareme check` (dicts: code, message, file, line, column).
    fn check<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        diagnostics_list(py, &self.rb.warnings())
    }

    /// The JSON Schema (draft 2020-12) of a case, as `bareme schema --case`.
    fn case_schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = self.rb.case_schema().to_string();
        loads(py, &text, true)
    }

    /// Evaluates one case as `bareme eval` does and gives the answer as a
    /// dict (with `trace=True`: `{"answer": …, "trace": …}` as `--trace
    /// json`), under the named ablations if any. Raises `CaseRejected`
    /// (`.path`, `.message`) and `RulebookFault`.
    #[pyo3(signature = (case, trace = false, ablate = None))]
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        case: &Bound<'py, PyAny>,
        trace: bool,
        ablate: Option<Vec<String>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if trace {
            let line = self.evaluate_json(py, case, trace, ablate)?;
            return loads(py, &line, true);
        }
        let bytes = json_bytes(py, case).map_err(|(p, m)| case_rejected(py, &p, &m))?;
        let ablated = self.under(ablate)?;
        let rb = ablated.as_ref().unwrap_or(&self.rb);
        match engine(py, || bareme::evaluate_bytes(rb, &bytes, false))? {
            Ok((bareme::Outcome::Answer(a), _)) => {
                Ok(answer::Builder::default().answer(py, &a)?.into_any())
            }
            Ok((bareme::Outcome::Rejected(e), _)) => Err(case_rejected(py, &e.path, &e.message)),
            Err(e) => Err(rulebook_fault(&e)),
            Ok(_) => Err(RulebookFault::new_err(
                "internal error: an outcome of an unknown kind",
            )),
        }
    }

    /// As `evaluate`, the answer's JSON text exactly as `bareme eval`
    /// prints it (without the newline).
    #[pyo3(signature = (case, trace = false, ablate = None))]
    fn evaluate_json(
        &self,
        py: Python<'_>,
        case: &Bound<'_, PyAny>,
        trace: bool,
        ablate: Option<Vec<String>>,
    ) -> PyResult<String> {
        let bytes = json_bytes(py, case).map_err(|(p, m)| case_rejected(py, &p, &m))?;
        let ablated = self.under(ablate)?;
        let rb = ablated.as_ref().unwrap_or(&self.rb);
        let result = engine(py, || {
            let result = bareme::evaluate_bytes(rb, &bytes, trace);
            let mut out = Vec::new();
            let written = match &result {
                Ok((outcome @ bareme::Outcome::Answer(_), Some(trace))) => {
                    write_traced(&mut out, outcome, trace)
                }
                Ok((outcome @ bareme::Outcome::Answer(_), None)) => {
                    write_outcome(&mut out, Ok(outcome));
                    Ok(())
                }
                _ => Ok(()),
            };
            (result.map(|(o, _)| o), written.map(|()| out))
        })?;
        match result {
            (Ok(bareme::Outcome::Rejected(e)), _) => Err(case_rejected(py, &e.path, &e.message)),
            (Err(e), _) => Err(rulebook_fault(&e)),
            // A trace past its bound, as the command's exit 4.
            (Ok(_), Err(e)) => Err(RulebookFault::new_err(e.to_string())),
            (Ok(_), Ok(out)) => Ok(utf8(out)),
        }
    }

    /// Evaluates many cases on `jobs` threads (None: every core), as `eval
    /// --batch`: a list, one item per case, the answer or `{"error":
    /// {"path", "message"}}` (with `trace=True` each with its trace).
    /// Python's cyclic garbage collector is paused during the call (the
    /// answers hold no cycles) and left as it was found.
    #[pyo3(signature = (cases, jobs = None, trace = false, ablate = None))]
    fn evaluate_batch<'py>(
        &self,
        py: Python<'py>,
        cases: &Bound<'py, PyAny>,
        jobs: Option<usize>,
        trace: bool,
        ablate: Option<Vec<String>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let list = PyList::empty(py);
        let jobs = jobs_of(jobs)?;
        let _paused = answer::CollectorPaused::new(py)?;
        let road = if trace {
            batch::Road::Lines { trace }
        } else {
            batch::Road::Answers
        };
        // Answers are built as dicts straight from the typed answers (the
        // rulebook's names made Python strings once per batch); a line (an
        // error, or an answer with its trace) is read by `json.loads`.
        let mut builder = answer::Builder::default();
        self.batch(cases, ablate, |rb| {
            batch::each_chunk(py, rb, cases, jobs, road, |items| {
                for item in items {
                    match item {
                        batch::Evaluated::Answer(a) => list.append(builder.answer(py, &a)?)?,
                        batch::Evaluated::Line(line) => {
                            list.append(loads(py, &utf8(line), true)?)?
                        }
                    }
                }
                Ok(())
            })
        })?;
        Ok(list.into_any())
    }

    /// As `evaluate_batch`, each item's JSON line exactly as `eval --batch` writes it.
    #[pyo3(signature = (cases, jobs = None, trace = false, ablate = None))]
    fn evaluate_batch_json(
        &self,
        py: Python<'_>,
        cases: &Bound<'_, PyAny>,
        jobs: Option<usize>,
        trace: bool,
        ablate: Option<Vec<String>>,
    ) -> PyResult<Vec<String>> {
        let mut out = Vec::new();
        let jobs = jobs_of(jobs)?;
        self.batch(cases, ablate, |rb| {
            let road = batch::Road::Lines { trace };
            batch::each_chunk(py, rb, cases, jobs, road, |items| {
                out.extend(items.into_iter().map(|item| utf8(item.into_line())));
                Ok(())
            })
        })?;
        Ok(out)
    }

    fn __repr__(&self) -> String {
        format!("<bareme.Rulebook {}@{}>", self.rb.id(), self.rb.version())
    }
}

impl Rulebook {
    /// Runs a batch (`run`, on `batch`'s roads) under the named ablations.
    /// An unknown ablation is refused after the cases are read, as a batch
    /// read them all first.
    fn batch(
        &self,
        cases: &Bound<'_, PyAny>,
        ablate: Option<Vec<String>>,
        run: impl FnOnce(&bareme::Rulebook) -> PyResult<()>,
    ) -> PyResult<()> {
        let ablated = match self.under(ablate) {
            Ok(ablated) => ablated,
            Err(e) => {
                for case in batch::cases_of(cases)? {
                    case?;
                }
                return Err(e);
            }
        };
        run(ablated.as_ref().unwrap_or(&self.rb))
    }
}

/// A task generator, checked against the rulebook version it names.
///
/// >>> gen = bareme.Generator.load("rulebooks/luma-payroll/generator-4.toml")
/// >>> tasks = gen.generate(10, 2026)
#[pyclass(module = "bareme", frozen)]
struct Generator {
    generator: bareme::Generator,
    rb: bareme::Rulebook,
}

#[pymethods]
impl Generator {
    /// Loads a generator file and the rulebook it names (or `rulebook`,
    /// a path, instead); raises `RulebookError`. `options` sets prompt
    /// switches the generator declares (`[prompt.options]`), as `bareme
    /// generate --option NAME=true|false` does: `{"documents": True}`; an
    /// undeclared name is a `ValueError` naming the declared ones.
    #[staticmethod]
    #[pyo3(signature = (path, rulebook = None, options = None))]
    fn load(
        py: Python<'_>,
        path: PathBuf,
        rulebook: Option<PathBuf>,
        options: Option<std::collections::BTreeMap<String, bool>>,
    ) -> PyResult<Generator> {
        let name = path.display().to_string();
        let loaded = engine(py, || bareme::load_generator(&path, rulebook.as_deref()))?;
        let (mut generator, rb) = loaded.map_err(|e| companion_error(py, &e, &name))?;
        for (option, on) in options.unwrap_or_default() {
            generator
                .set_option(&option, on)
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
        }
        // Checked once here, so that `generate` meets no surprise.
        let ready = engine(py, || bareme::TaskDrawer::new(&generator, &rb).map(|_| ()))?;
        ready.map_err(|e| unreadable(py, "generate::prompt", e.to_string(), &name))?;
        Ok(Generator { generator, rb })
    }

    /// The generator's name, `luma-payroll/generator-4`.
    #[getter]
    fn name(&self) -> &str {
        self.generator.name()
    }

    /// Every prompt switch the generator declares, with its value for
    /// this generator's tasks: `{"demonstrations": False, "documents": False}`.
    #[getter]
    fn options<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (name, on) in self.generator.options() {
            d.set_item(name, on)?;
        }
        Ok(d)
    }

    /// The rulebook it draws from.
    #[getter]
    fn rulebook(&self) -> Rulebook {
        Rulebook {
            rb: self.rb.clone(),
        }
    }

    /// Tasks `start..start + n` of `seed` as dicts, as `bareme generate`
    /// writes them (a duplicate of an earlier index drawn again), all at
    /// `level` if given, drawn on `jobs` threads (None: every core).
    /// `exclude`: other sets' task lines (a list of lists of lines, as
    /// `generate_json` gives them), whose cases are drawn again, as
    /// `generate --exclude FILE…` does: still exactly `n` tasks.
    #[pyo3(signature = (n, seed, start = 0, level = None, jobs = None, exclude = None))]
    #[allow(clippy::too_many_arguments)]
    fn generate<'py>(
        &self,
        py: Python<'py>,
        n: u64,
        seed: u64,
        start: u64,
        level: Option<i64>,
        jobs: Option<usize>,
        exclude: Option<Vec<Vec<String>>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let lines = self.generate_json(py, n, seed, start, level, jobs, exclude)?;
        let list = PyList::empty(py);
        for line in &lines {
            list.append(loads(py, line, true)?)?;
        }
        Ok(list)
    }

    /// As `generate`, each task's JSON line exactly as `bareme generate`
    /// writes it (without the newline).
    #[pyo3(signature = (n, seed, start = 0, level = None, jobs = None, exclude = None))]
    #[allow(clippy::too_many_arguments)]
    fn generate_json(
        &self,
        py: Python<'_>,
        n: u64,
        seed: u64,
        start: u64,
        level: Option<i64>,
        jobs: Option<usize>,
        exclude: Option<Vec<Vec<String>>>,
    ) -> PyResult<Vec<String>> {
        let run = run_options(n, seed, start, level, jobs)?;
        // Each excluded set as the task file `generate --exclude` reads.
        let files: Vec<(String, Vec<u8>)> = exclude
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .filter(|(_, lines)| !lines.is_empty())
            .map(|(i, lines)| {
                (
                    format!("exclude[{i}]"),
                    (lines.join("\n") + "\n").into_bytes(),
                )
            })
            .collect();
        let text = engine(py, || -> Result<Vec<u8>, String> {
            let drawer =
                bareme::TaskDrawer::new(&self.generator, &self.rb).map_err(|e| e.to_string())?;
            if files.is_empty() {
                return generate_lines(&drawer, run).map_err(|e| e.to_string());
            }
            let excluded: Vec<(&str, &[u8])> = files
                .iter()
                .map(|(name, bytes)| (name.as_str(), bytes.as_slice()))
                .collect();
            generate_lines_excluding(&drawer, run, &excluded).map_err(|e| e.to_string())
        })?
        .map_err(PyValueError::new_err)?;
        Ok(utf8(text).lines().map(str::to_string).collect())
    }

    /// Phase 1 of a draw split over machines (`bareme.dist`): for tasks
    /// `start..start + n` of `seed`, each index's first passing draw,
    /// drawing no index below `start`: its line (`bareme generate`'s
    /// unless an earlier index holds its case) and its identity, as one
    /// `bytes` of 32 bytes per index. `redraw_duplicates` settles them.
    #[pyo3(signature = (n, seed, start = 0, level = None, jobs = None))]
    fn first_draws<'py>(
        &self,
        py: Python<'py>,
        n: u64,
        seed: u64,
        start: u64,
        level: Option<i64>,
        jobs: Option<usize>,
    ) -> PyResult<(Vec<String>, Bound<'py, pyo3::types::PyBytes>)> {
        let run = run_options(n, seed, start, level, jobs)?;
        let first = engine(py, || -> Result<Vec<FirstDraw>, String> {
            let drawer =
                bareme::TaskDrawer::new(&self.generator, &self.rb).map_err(|e| e.to_string())?;
            first_draws(&drawer, run).map_err(|e| e.to_string())
        })?
        .map_err(PyValueError::new_err)?;
        let ids: Vec<u8> = first.iter().flat_map(|f| f.identity).collect();
        let lines = first.into_iter().map(|f| utf8(f.line)).collect();
        Ok((lines, pyo3::types::PyBytes::new(py, &ids)))
    }

    /// Phase 2: from the identities of tasks `0..len(identities) / 32`'s
    /// first draws (`first_draws`, in index order), the `(index, line)`
    /// of each index whose first draw repeats an earlier index's task,
    /// drawn again as `bareme generate` draws it.
    #[pyo3(signature = (identities, seed, level = None))]
    fn redraw_duplicates(
        &self,
        py: Python<'_>,
        identities: &[u8],
        seed: u64,
        level: Option<i64>,
    ) -> PyResult<Vec<(u64, String)>> {
        let (ids, rest) = identities.as_chunks::<32>();
        if !rest.is_empty() {
            return Err(PyValueError::new_err(
                "identities are 32 bytes each: the length is not a multiple of 32",
            ));
        }
        let redrawn = engine(py, || -> Result<Vec<(u64, Vec<u8>)>, String> {
            let drawer =
                bareme::TaskDrawer::new(&self.generator, &self.rb).map_err(|e| e.to_string())?;
            redraw_duplicates(&drawer, seed, level, ids).map_err(|e| e.to_string())
        })?
        .map_err(PyValueError::new_err)?;
        Ok(redrawn.into_iter().map(|(i, l)| (i, utf8(l))).collect())
    }

    fn __repr__(&self) -> String {
        format!("<bareme.Generator {}>", self.generator.name())
    }
}

/// A rubric, checked against the rulebook version it names.
///
/// >>> rub = bareme.Rubric.load("rulebooks/luma-payroll/rubric-8.toml")
/// >>> rub.score(task, rub.reference_reply(task))["score"]
/// 1.0
#[pyclass(module = "bareme", frozen)]
struct Rubric {
    scorer: bareme::Scorer,
    /// The rulebook it was checked against: a task's `expected` is checked
    /// against it before a reply is graded, as `bareme score` checks it.
    rulebook: bareme::Rulebook,
    /// The hash of the rulebook it was checked against (`bareme.dist`'s
    /// workers compare it with the driver's).
    rulebook_hash: String,
}

impl Rubric {
    /// `task` read, checked against the rubric's rulebook, and its
    /// `expected` against what the rulebook gives for its case.
    fn checked_task(&self, py: Python<'_>, task: &Bound<'_, PyAny>) -> PyResult<bareme::Task> {
        let task = task_of(py, task)?;
        self.scorer
            .check_task(&task)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let follows = engine(py, || {
            bareme::unstable::score::expected_follows(&self.rulebook, &task)
        })?;
        match follows {
            true => Ok(task),
            false => Err(PyValueError::new_err(format!(
                "task {}: `expected` is not what {} gives for its case",
                task.id,
                self.rulebook.reference()
            ))),
        }
    }
}

/// A task argument (dict or its JSON line) read as a task line is read.
fn task_of(py: Python<'_>, task: &Bound<'_, PyAny>) -> PyResult<bareme::Task> {
    let bytes =
        json_bytes(py, task).map_err(|(p, m)| PyValueError::new_err(format!("task: {p}: {m}")))?;
    let text =
        std::str::from_utf8(&bytes).map_err(|_| PyValueError::new_err("task: not UTF-8 text"))?;
    bareme::Task::from_json(text).map_err(|e| PyValueError::new_err(format!("task: {e}")))
}

/// An explanation grade: None, an int, a str, a Decimal or a float in [0, 1].
fn grade_of(grade: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Decimal>> {
    let Some(g) = grade.filter(|g| !g.is_none()) else {
        return Ok(None);
    };
    let text = g.str()?.to_string_lossy().into_owned();
    Decimal::from_str(&text)
        .or_else(|_| Decimal::from_scientific(&text))
        .map(Some)
        .map_err(|_| {
            PyValueError::new_err(format!(
                "an explanation grade is a number in [0, 1], not {text}"
            ))
        })
}

#[pymethods]
impl Rubric {
    /// Loads a rubric file and the rulebook it names (or `rulebook`, a
    /// path, instead); `all_or_nothing` forces that option on. Raises
    /// `RulebookError`.
    #[staticmethod]
    #[pyo3(signature = (path, rulebook = None, all_or_nothing = false))]
    fn load(
        py: Python<'_>,
        path: PathBuf,
        rulebook: Option<PathBuf>,
        all_or_nothing: bool,
    ) -> PyResult<Rubric> {
        let name = path.display().to_string();
        let loaded = engine(py, || bareme::load_rubric(&path, rulebook.as_deref()))?;
        let (rubric, rb) = loaded.map_err(|e| companion_error(py, &e, &name))?;
        Ok(Rubric {
            scorer: bareme::Scorer::new(rubric, all_or_nothing),
            rulebook_hash: rb.hash().to_string(),
            rulebook: rb,
        })
    }

    /// The rubric's name, `luma-payroll/rubric-8`.
    #[getter]
    fn name(&self) -> String {
        self.scorer.rubric().name.to_string()
    }

    /// The SHA-256 (hex) of the rulebook the rubric was checked against,
    /// as its tasks record it.
    #[getter]
    fn rulebook_hash(&self) -> &str {
        &self.rulebook_hash
    }

    /// Scores a reply to a task (a dict as `generate` gives it, or its
    /// JSON line) as `bareme score` writes its line: `{"id", "score",
    /// "max", …, "components": […]}`, `score` and `max` as floats.
    /// `explanation_grade` in [0, 1] is the outside grade of the
    /// explanation, for a rubric that weighs one.
    #[pyo3(signature = (task, reply, explanation_grade = None))]
    fn score<'py>(
        &self,
        py: Python<'py>,
        task: &Bound<'py, PyAny>,
        reply: &Bound<'py, PyString>,
        explanation_grade: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let line = self.score_json(py, task, reply, explanation_grade)?;
        let d = loads(py, &line, false)?;
        for key in ["score", "max"] {
            let v = d.get_item(key)?;
            d.set_item(key, v.call_method0("__float__")?)?;
        }
        Ok(d)
    }

    /// As `score`, the line exactly as `bareme score` writes it. A reply
    /// holding half a surrogate pair (which a Python `str` may) is no text:
    /// it scores the floor, `reply::lone_surrogate`, as in a replies file.
    #[pyo3(signature = (task, reply, explanation_grade = None))]
    fn score_json(
        &self,
        py: Python<'_>,
        task: &Bound<'_, PyAny>,
        reply: &Bound<'_, PyString>,
        explanation_grade: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<String> {
        let task = self.checked_task(py, task)?;
        let grade = grade_of(explanation_grade)?;
        let line = ReplyLine {
            id: task.id.clone(),
            reply: match reply.to_str() {
                Ok(text) => ReplyText::Text(text.to_string()),
                Err(_) => ReplyText::LoneSurrogate,
            },
            grade,
            strategy: None,
        };
        let graded = engine(py, || {
            self.scorer.grade_line(&task, &line).map(|g| {
                let mut m = serde_json::Map::new();
                m.insert("id".into(), serde_json::Value::from(task.id.clone()));
                if let serde_json::Value::Object(rest) = g.to_json() {
                    m.extend(rest);
                }
                serde_json::Value::Object(m).to_string()
            })
        })?;
        graded.map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// The reply a perfect answerer writes to a task: its reference answer
    /// in the rubric's envelope. It earns the rubric's top score.
    fn reference_reply(&self, py: Python<'_>, task: &Bound<'_, PyAny>) -> PyResult<String> {
        let task = self.checked_task(py, task)?;
        Ok(self.scorer.reference_reply(&task.expected))
    }

    fn __repr__(&self) -> String {
        format!("<bareme.Rubric {}>", self.scorer.rubric().name)
    }
}

/// `bareme diff OLD NEW --format json`: the report's JSON text.
#[pyfunction]
fn _diff_json(py: Python<'_>, old: PathBuf, new: PathBuf) -> PyResult<String> {
    let name = old.display().to_string();
    match engine(py, || bareme::diff_versions(&old, &new))? {
        Ok(json) => Ok(json),
        Err(bareme::DiffError::Load(e)) => Err(load_error(py, &e, &name)),
        Err(e) => Err(unreadable(py, e.code(), e.to_string(), &name)),
    }
}

/// The repository's `rulebooks/` folder this module was built from: `pip
/// install ./python` builds from a checkout, whose bundled rulebook sets
/// the package then reads (`bareme.rulebooks_dir()`).
#[pyfunction]
fn _source_rulebooks() -> &'static str {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../rulebooks")
}

/// The module: the classes, the exceptions.
#[pymodule]
fn _bareme(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<Rulebook>()?;
    m.add_class::<Generator>()?;
    m.add_class::<Rubric>()?;
    m.add_class::<repair::Repair>()?;
    m.add_class::<repair::RepairSession>()?;
    m.add_function(wrap_pyfunction!(_diff_json, m)?)?;
    m.add_function(wrap_pyfunction!(_source_rulebooks, m)?)?;
    m.add_function(wrap_pyfunction!(tools::calculate, m)?)?;
    m.add_function(wrap_pyfunction!(tools::table_rows, m)?)?;
    m.add_function(wrap_pyfunction!(tools::case_part, m)?)?;
    m.add("BaremeError", py.get_type::<BaremeError>())?;
    m.add("RulebookError", py.get_type::<RulebookError>())?;
    m.add("CaseRejected", py.get_type::<CaseRejected>())?;
    m.add("RulebookFault", py.get_type::<RulebookFault>())?;
    Ok(())
}
