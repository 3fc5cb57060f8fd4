//! Repair tasks for Python (`bareme.Repair`, `bareme.RepairSession`): a
//! repair task loaded once, sessions holding a candidate, and the four
//! tools whose answers are the strings an agent reads (docs/repair.md).

use std::path::PathBuf;

use bareme::repair;
use pyo3::prelude::*;
use pyo3::types::PyString;

use super::{diagnostics_list, engine, loads, rulebook_error, unreadable};

/// A repair task: its hidden cases drawn once, shared by its sessions.
///
/// >>> repair = bareme.Repair.load(bareme.rulebook_path("sales-tax/repair-1.toml"))
/// >>> repair.session().verify()["reward"]
/// Decimal('0.0')
#[pyclass(module = "bareme", frozen)]
pub struct Repair {
    repair: repair::Repair,
}

#[pymethods]
impl Repair {
    /// Loads a repair file (`rulebooks/sales-tax/repair-1.toml`), its
    /// reference, hidden cases and seeded candidate. Raises `RulebookError`.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<Repair> {
        let name = path.display().to_string();
        match engine(py, || repair::Repair::load(&path))? {
            Ok(repair) => Ok(Repair { repair }),
            // The repair file's problems, or its generator's, each placed.
            Err(e) => Err(match e.diagnostics() {
                Some(diags) => match diagnostics_list(py, diags) {
                    Ok(list) => rulebook_error(py, format!("{e}:\n{diags}"), list),
                    Err(err) => err,
                },
                None => unreadable(py, e.code(), e.to_string(), &name),
            }),
        }
    }

    /// The incident prompt (symptoms, never the faults).
    #[getter]
    fn prompt(&self) -> String {
        self.repair.prompt().to_string()
    }

    /// A new session holding the seeded candidate; sessions share nothing.
    fn session(&self) -> RepairSession {
        RepairSession {
            session: self.repair.session(),
        }
    }

    /// The verdict of candidate text (evaluator-only): `{"reward",
    /// "cases_passed", "cases", "groups"}` (and `"refused"`).
    fn verify<'py>(&self, py: Python<'py>, text: String) -> PyResult<Bound<'py, PyAny>> {
        let json = engine(py, || self.repair.verify(&text).summary_json().to_string())?;
        loads(py, &json, true)
    }
}

/// One agent's session: the stored candidate and the tools, each
/// answering with the text an agent reads.
#[pyclass(module = "bareme")]
pub struct RepairSession {
    session: repair::RepairSession,
}

/// A tool's failure as the agent reads it.
fn said(e: &repair::ToolError) -> String {
    format!("error: {e}")
}

/// A tool argument's text; a Python `str` holding half a surrogate pair
/// (JSON arguments may escape one) is a refusal the agent reads, not a
/// `UnicodeEncodeError` that ends the rollout.
fn text_of<'a>(arg: &'a Bound<'_, PyString>) -> Result<std::borrow::Cow<'a, str>, String> {
    arg.to_cow().map_err(|_| {
        "the argument holds half a surrogate pair (U+D800 to U+DFFF), which no text holds"
            .to_string()
    })
}

#[pymethods]
impl RepairSession {
    /// A business section (`contract`, `rules`, `products`, …, or
    /// `visible`): its JSON or text, or `error: unknown section; …`.
    fn inspect_business(&self, section: &Bound<'_, PyString>) -> String {
        match text_of(section) {
            Ok(section) => (self.session.inspect_business(&section)).unwrap_or_else(|e| said(&e)),
            Err(why) => format!("error: {why}"),
        }
    }

    /// The stored candidate's text.
    fn read_rulebook(&self) -> String {
        self.session.read_rulebook().to_string()
    }

    /// Stores the text if it loads under the caps and keeps the contract:
    /// `{"updated":true}`; otherwise the stored text stays, and the answer
    /// is `{"updated":false,"error":"refused: CATEGORY …"}`.
    fn replace_rulebook(&mut self, py: Python<'_>, text: &Bound<'_, PyString>) -> PyResult<String> {
        let refused = |why: String| serde_json::json!({"updated": false, "error": why}).to_string();
        let text = match text_of(text) {
            Ok(text) => text.into_owned(),
            Err(why) => return Ok(refused(format!("refused: {why}"))),
        };
        let session = &mut self.session;
        let result = engine(py, || session.replace_rulebook(&text))?;
        Ok(match result {
            Ok(()) => r#"{"updated":true}"#.to_string(),
            Err(e) => refused(e.to_string()),
        })
    }

    /// The stored candidate's answer to a visible cart, as JSON, or
    /// `error: …` (an unknown id, a failed calculation).
    fn calculate_cart(&self, py: Python<'_>, cart_id: &Bound<'_, PyString>) -> PyResult<String> {
        let cart_id = match text_of(cart_id) {
            Ok(id) => id.into_owned(),
            Err(why) => return Ok(format!("error: {why}")),
        };
        let session = &self.session;
        let result = engine(py, || session.calculate_cart(&cart_id))?;
        Ok(result.unwrap_or_else(|e| said(&e)))
    }

    /// The stored candidate's verdict (evaluator-only, never a tool).
    fn verify<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let session = &self.session;
        let json = engine(py, || session.verify().summary_json().to_string())?;
        loads(py, &json, true)
    }
}
