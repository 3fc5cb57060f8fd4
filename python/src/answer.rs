//! An answer given to Python as the dict `json.loads` (numbers with a
//! fraction as `Decimal`) reads from its JSON line, built from the typed
//! [`bareme::Answer`] without writing or parsing the line.
//!
//! Turning answers into Python objects needs the GIL, so in a batch it is
//! the calling thread's share of the work (`batch.rs`); reading the line
//! back with `json.loads` cost more than the engine's own part on a small
//! payslip. Names come from the rulebook as shared `Arc<str>`s, so each
//! is made a Python string once per [`Builder`] and reused.
//!
//! Invariant: the object built equals, value and type (`str`, `int`,
//! `Decimal`, `bool`, `list`, `dict`, key order), what `json.loads` reads
//! from `write_outcome`'s line for the same answer
//! (`python/tests/test_answers.py` compares them on every bundled
//! rulebook's cases).

use std::collections::HashMap;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyList, PyModule, PyString};

use bareme::unstable::value::write_decimal;
use bareme::{Answer, AnswerValue, Fields};
use rust_decimal::Decimal;

/// Strings kept per builder: the rulebook's names and texts repeat from
/// answer to answer; past this many, a text is made anew each time.
const KEPT: usize = 4096;

static DECIMAL: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// Builds answers as Python objects, keeping the strings made for shared
/// names.
#[derive(Default)]
pub(crate) struct Builder {
    /// By the address of a shared text; the `Arc` is held so that the
    /// address cannot be reused by another text while it is a key.
    strings: HashMap<usize, (Arc<str>, Py<PyString>)>,
    /// A decimal's text, reused between values.
    text: Vec<u8>,
}

impl Builder {
    /// The answer as a dict, fields in declared order.
    pub(crate) fn answer<'py>(
        &mut self,
        py: Python<'py>,
        answer: &Answer,
    ) -> PyResult<Bound<'py, PyDict>> {
        self.fields(py, &answer.fields)
    }

    fn fields<'py>(&mut self, py: Python<'py>, fields: &Fields) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (name, value) in &fields.0 {
            let key = self.shared(py, name);
            dict.set_item(key, self.value(py, value)?)?;
        }
        Ok(dict)
    }

    fn value<'py>(&mut self, py: Python<'py>, value: &AnswerValue) -> PyResult<Bound<'py, PyAny>> {
        Ok(match value {
            AnswerValue::Amount(d) => PyString::new(py, self.decimal_text(d)).into_any(),
            AnswerValue::Number(d) => self.number(py, d)?,
            AnswerValue::Text(t) => self.shared(py, t).into_any(),
            AnswerValue::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
            AnswerValue::Clauses(clauses) => {
                let list = PyList::empty(py);
                for clause in clauses {
                    list.append(self.shared(py, clause))?;
                }
                list.into_any()
            }
            AnswerValue::List(items) => {
                let list = PyList::empty(py);
                for item in items {
                    list.append(self.fields(py, item)?)?;
                }
                list.into_any()
            }
            AnswerValue::Keyed(items) => {
                let dict = PyDict::new(py);
                for (key, item) in items {
                    let key = self.shared(py, key);
                    dict.set_item(key, self.fields(py, item)?)?;
                }
                dict.into_any()
            }
            // A date or a month (and any form added later) as its text.
            other => PyString::new(py, &other.as_text().unwrap_or_default()).into_any(),
        })
    }

    /// A JSON number as `json.loads(parse_float=Decimal)` reads it: an
    /// `int` without a point, a `Decimal` of the same text with one.
    fn number<'py>(&mut self, py: Python<'py>, d: &Decimal) -> PyResult<Bound<'py, PyAny>> {
        let text = self.decimal_text(d);
        if text.contains('.') {
            let decimal = DECIMAL.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
                Ok(py.import("decimal")?.getattr("Decimal")?.unbind())
            })?;
            return decimal.bind(py).call1((text,));
        }
        // At most 29 digits and a sign: an `i128` holds every one.
        match text.parse::<i128>() {
            Ok(n) => Ok(n.into_pyobject(py)?.into_any()),
            Err(_) => py.get_type::<pyo3::types::PyInt>().call1((text,)),
        }
    }

    /// The text `write_decimal` gives (only ASCII digits, a sign, a point).
    fn decimal_text(&mut self, d: &Decimal) -> &str {
        self.text.clear();
        write_decimal(&mut self.text, d);
        std::str::from_utf8(&self.text).unwrap_or_default()
    }

    /// A shared text's Python string, made once while there is room.
    fn shared<'py>(&mut self, py: Python<'py>, text: &Arc<str>) -> Bound<'py, PyString> {
        let at = Arc::as_ptr(text) as *const u8 as usize;
        if let Some((_, s)) = self.strings.get(&at) {
            return s.bind(py).clone();
        }
        let s = PyString::new(py, text);
        if self.strings.len() < KEPT {
            self.strings
                .insert(at, (Arc::clone(text), s.clone().unbind()));
        }
        s
    }
}

/// Python's cyclic garbage collector, paused while a batch's answers are
/// built and resumed when this is dropped (error or not), if it ran before.
///
/// Every few hundred containers made, the collector runs, and its older
/// generations walk every object alive, the whole list of answers built so
/// far and the caller's cases included: a tenth of a Luma batch's time.
/// Answers hold no cycles, so pausing it frees nothing later than it would
/// have been freed.
pub(crate) struct CollectorPaused<'py> {
    gc: Option<Bound<'py, PyModule>>,
}

impl<'py> CollectorPaused<'py> {
    pub(crate) fn new(py: Python<'py>) -> PyResult<Self> {
        let gc = py.import("gc")?;
        if !gc.call_method0("isenabled")?.is_truthy()? {
            return Ok(CollectorPaused { gc: None });
        }
        gc.call_method0("disable")?;
        Ok(CollectorPaused { gc: Some(gc) })
    }
}

impl Drop for CollectorPaused<'_> {
    fn drop(&mut self) {
        if let Some(gc) = &self.gc {
            // `gc.enable()` cannot fail; were it to, the collector stays
            // paused, which changes no result.
            let _ = gc.call_method0("enable");
        }
    }
}
