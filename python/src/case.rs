//! A case (or task) given from Python as the JSON bytes the engine reads:
//! a str or bytes is the text itself, a dict (or list, …) is written as
//! JSON here, under the GIL, refusing what JSON cannot hold exactly (a
//! float, a non-finite decimal, a key that is not a string) with the path
//! of the value refused.
//!
//! Writing a batch's dict cases is the part of `evaluate_batch` that holds
//! the GIL, so the values cases are made of (exact `str`, `dict`, `int`,
//! `bool`, `None`) are recognised by their exact type first, one pointer
//! comparison each, before the general checks a subclass or a
//! `decimal.Decimal` needs; and an `int` that fits 64 bits is written
//! without asking Python for its text.
//!
//! Invariant: the bytes written for a value are the same whichever path
//! recognises it (an exact `int` is written as `str(int)` writes it).

use std::fmt::Write as _;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// Deepest nesting of a Python value turned into JSON: a self-containing
/// list stops here rather than exhausting the stack.
const MAX_DEPTH: usize = 128;

/// A value that cannot be written: its path (`a.b[2]`, `$` the value
/// itself) and why.
pub(crate) type Refused = (String, String);

/// A case (or task) argument as JSON bytes: a str or bytes is the JSON
/// text itself (numbers kept as written); anything else is written as JSON.
pub(crate) fn json_bytes(py: Python<'_>, value: &Bound<'_, PyAny>) -> Result<Vec<u8>, Refused> {
    if let Ok(s) = value.cast::<PyString>() {
        return match s.to_str() {
            Ok(t) => Ok(t.as_bytes().to_vec()),
            Err(_) => Err((
                "$".into(),
                "the text is not valid Unicode (a lone surrogate)".into(),
            )),
        };
    }
    if let Ok(b) = value.cast::<pyo3::types::PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    let mut out = String::with_capacity(512);
    write_json(py, value, &Place::Root, 0, &mut out)?;
    Ok(out.into_bytes())
}

/// A Python value as JSON text, written into `out`: dict (string keys,
/// in order), list or tuple, str, int, bool, None and a finite
/// `decimal.Decimal` (written as a JSON number, as `str` writes it). A
/// float is refused: money is never a float.
fn write_json(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    path: &Place<'_>,
    depth: usize,
    out: &mut String,
) -> Result<(), Refused> {
    if depth > MAX_DEPTH {
        return Err((
            path.render(),
            format!("the value nests deeper than {MAX_DEPTH} levels (or contains itself)"),
        ));
    }
    // The exact types a case is made of, cheapest first.
    if let Ok(s) = value.cast_exact::<PyString>() {
        return write_str(s, path, out);
    }
    if let Ok(d) = value.cast_exact::<PyDict>() {
        return write_dict(py, d, path, depth, out);
    }
    if value.is_none() {
        out.push_str("null");
        return Ok(());
    }
    if let Ok(b) = value.cast::<PyBool>() {
        out.push_str(if b.is_true() { "true" } else { "false" });
        return Ok(());
    }
    if value.is_exact_instance_of::<PyInt>() {
        if let Ok(n) = value.extract::<i64>() {
            // INVARIANT: writing into a String cannot fail.
            let _ = write!(out, "{n}");
            return Ok(());
        }
    }
    // The general checks, in the order that decides a subclass's reading:
    // an `int` (or a subclass, or one past 64 bits) as `str` writes it, a
    // float refused, a `str` or `dict` subclass, a list or tuple, a finite
    // `decimal.Decimal`; anything else refused by its type's name.
    let refuse = |message: String| Err((path.render(), message));
    if value.is_instance_of::<PyInt>() {
        match value.str() {
            Ok(s) => out.push_str(&s.to_string_lossy()),
            Err(_) => return refuse("an int that cannot be written".into()),
        }
    } else if value.is_instance_of::<PyFloat>() {
        return refuse(format!(
            "a Python float ({}) is refused: money is never a float; pass the amount as a string such as \"2500.00\", a decimal.Decimal, or the case as JSON text",
            value.repr().map(|r| r.to_string_lossy().into_owned()).unwrap_or_default()
        ));
    } else if let Ok(s) = value.cast::<PyString>() {
        return write_str(s, path, out);
    } else if let Ok(d) = value.cast::<PyDict>() {
        return write_dict(py, d, path, depth, out);
    } else if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        out.push('[');
        let items = match value.try_iter() {
            Ok(items) => items,
            Err(_) => return refuse("a list that cannot be read".into()),
        };
        for (i, item) in items.enumerate() {
            let Ok(item) = item else {
                return refuse("a list that cannot be read".into());
            };
            if i > 0 {
                out.push(',');
            }
            write_json(py, &item, &Place::Index(path, i), depth + 1, out)?;
        }
        out.push(']');
    } else if is_decimal(py, value) {
        let text = value
            .str()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        // Only a finite decimal is a JSON number: `NaN`, `sNaN` and
        // `Infinity` hold letters besides the exponent's `E`.
        let finite = !text.is_empty()
            && text
                .chars()
                .all(|c| c.is_ascii_digit() || "+-.eE".contains(c));
        if !finite {
            return refuse(format!("the decimal {text} is not a finite number"));
        }
        out.push_str(&text);
    } else {
        let kind = value
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_else(|_| "value".into());
        return refuse(format!(
            "a Python {kind} is no JSON value (use dict, list, str, int, bool, None or decimal.Decimal)"
        ));
    }
    Ok(())
}

fn write_str(s: &Bound<'_, PyString>, path: &Place<'_>, out: &mut String) -> Result<(), Refused> {
    match s.to_str() {
        Ok(text) => {
            write_string(out, text);
            Ok(())
        }
        Err(_) => Err((
            path.render(),
            "a string that is not valid Unicode text (a lone surrogate)".into(),
        )),
    }
}

fn write_dict(
    py: Python<'_>,
    d: &Bound<'_, PyDict>,
    path: &Place<'_>,
    depth: usize,
    out: &mut String,
) -> Result<(), Refused> {
    out.push('{');
    for (i, (k, v)) in d.iter().enumerate() {
        let Ok(key) = k.cast::<PyString>() else {
            return Err((path.render(), "an object's keys are strings".into()));
        };
        let Ok(key) = key.to_str() else {
            return Err((path.render(), "a key that is not valid Unicode text".into()));
        };
        if i > 0 {
            out.push(',');
        }
        write_string(out, key);
        out.push(':');
        write_json(py, &v, &Place::Key(path, key), depth + 1, out)?;
    }
    out.push('}');
    Ok(())
}

/// Where a value sits in the Python value being written: rendered as a
/// path (`a.b[2]`, `$` the value itself) only when a value is refused, so
/// that writing a valid case allocates no path.
enum Place<'a> {
    Root,
    Key(&'a Place<'a>, &'a str),
    Index(&'a Place<'a>, usize),
}

impl Place<'_> {
    fn render(&self) -> String {
        fn walk(place: &Place<'_>, out: &mut String) {
            match place {
                Place::Root => {}
                Place::Key(parent, key) => {
                    walk(parent, out);
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(key);
                }
                Place::Index(parent, i) => {
                    walk(parent, out);
                    let _ = write!(out, "[{i}]");
                }
            }
        }
        let mut out = String::new();
        walk(self, &mut out);
        if out.is_empty() {
            "$".into()
        } else {
            out
        }
    }
}

/// A string as serde_json writes it: most case texts (amounts, months,
/// names) need no escape and are copied between quotes.
fn write_string(out: &mut String, text: &str) {
    if !text.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        out.push('"');
        out.push_str(text);
        out.push('"');
        return;
    }
    match serde_json::to_string(text) {
        Ok(s) => out.push_str(&s),
        // INVARIANT: serialising a str to a String cannot fail; written
        // as an empty string rather than a panic all the same.
        Err(_) => out.push_str("\"\""),
    }
}

/// `decimal.Decimal`, looked up once rather than once per value.
static DECIMAL: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();

fn is_decimal(py: Python<'_>, value: &Bound<'_, PyAny>) -> bool {
    DECIMAL
        .get_or_try_init(py, || -> PyResult<Py<PyAny>> {
            Ok(py.import("decimal")?.getattr("Decimal")?.unbind())
        })
        .and_then(|t| value.is_instance(t.bind(py)))
        .unwrap_or(false)
}
