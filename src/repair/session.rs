//! The agent's side of a repair task: a session holding the stored
//! candidate and the four tools an agent calls on it.
//!
//! `inspect_business(section)` shows a visible record section (or
//! `visible`, the visible cases by id); `read_rulebook()` the stored
//! candidate's text; `replace_rulebook(text)` stores new text only when it
//! loads under the task's caps and keeps the contract (atomic: a refused
//! text leaves the stored one), answering with a fixed category and at
//! most a line and a column; `calculate_cart(id)` evaluates the stored
//! candidate on a visible case only. No tool reaches a hidden case, an
//! expected answer, the reference or a group: the session's only view of
//! the verifier is through these, and the reward (`verify`) is the
//! evaluator's call, never a tool. Sessions share the verifier (read only)
//! and nothing else.

use std::path::Path;
use std::sync::Arc;

use super::task::load_repair;
use super::verify::{Refusal, RepairError, RepairVerdict, Verifier};
use crate::evaluation::evaluate_value;
use crate::model::Rulebook;
use crate::outcome::Outcome;
use crate::rulebook::load::{read_capped, rulebook_file};

/// A loaded repair task, shared by the sessions opened on it: its hidden
/// cases are drawn and answered once.
///
/// ```
/// let repair = bareme::repair::Repair::load("rulebooks/sales-tax/repair-1.toml".as_ref())?;
/// let mut session = repair.session();
/// assert!(session.read_rulebook().contains("[rulebook]"));
/// assert_eq!(repair.verify(session.read_rulebook()).reward, 0.into());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Repair {
    verifier: Arc<Verifier>,
    seeded: Arc<str>,
}

/// Why a tool call failed: a fixed category, never a piece of a case or of
/// the candidate.
///
/// ```
/// # let repair = bareme::repair::Repair::load("rulebooks/sales-tax/repair-1.toml".as_ref())?;
/// let err = repair.session().calculate_cart("NOPE").unwrap_err();
/// assert_eq!(err.code(), "tool::unknown_cart");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// No such business section.
    #[error("unknown section; one of: {0}")]
    UnknownSection(String),
    /// No such visible cart.
    #[error("unknown cart; one of: {0}")]
    UnknownCart(String),
    /// The stored candidate failed on the cart (a fault, a rejection, a cap).
    #[error("the calculation failed")]
    Failed,
    /// The text was refused: its category, and at most a line and column.
    #[error("refused: {}", .0.message())]
    Refused(Refusal),
}

impl ToolError {
    /// A stable code: `tool::unknown_section`, `tool::unknown_cart`,
    /// `tool::failed` or `tool::refused`.
    pub fn code(&self) -> &'static str {
        match self {
            ToolError::UnknownSection(_) => "tool::unknown_section",
            ToolError::UnknownCart(_) => "tool::unknown_cart",
            ToolError::Failed => "tool::failed",
            ToolError::Refused(_) => "tool::refused",
        }
    }
}

impl Repair {
    /// Loads a repair file, its reference and hidden cases, and its seeded
    /// candidate (read under the task's byte cap).
    pub fn load(path: &Path) -> Result<Repair, RepairError> {
        let (task, rb) = load_repair(path, None).map_err(|e| RepairError::Load(Box::new(e)))?;
        let cap = task.caps.source_bytes as u64;
        let seeded = match &task.candidate {
            Some(dir) => {
                let file = rulebook_file(dir);
                let bytes = crate::rulebook::load::open_regular(&file)
                    .and_then(|f| read_capped(f, cap))
                    .ok()
                    .flatten();
                match bytes.map(String::from_utf8) {
                    Some(Ok(text)) => text,
                    _ => {
                        return Err(RepairError::Candidate {
                            file: task.name.clone(),
                        })
                    }
                }
            }
            None => String::new(),
        };
        Ok(Repair {
            verifier: Arc::new(Verifier::new(task, rb)?),
            seeded: Arc::from(seeded),
        })
    }

    /// The verifier (evaluator-only: it holds the hidden cases).
    pub fn verifier(&self) -> &Verifier {
        &self.verifier
    }

    /// The incident prompt.
    pub fn prompt(&self) -> &str {
        &self.verifier.task.prompt
    }

    /// A new session holding the seeded candidate.
    pub fn session(&self) -> RepairSession {
        let loaded = self.verifier.load_candidate(&self.seeded).ok();
        RepairSession {
            repair: self.clone(),
            text: self.seeded.to_string(),
            loaded,
        }
    }

    /// The verdict of candidate text (evaluator-only).
    pub fn verify(&self, text: &str) -> RepairVerdict {
        self.verifier.verify_text(text)
    }
}

/// One agent's session: the stored candidate and the tools on it.
///
/// ```
/// # let repair = bareme::repair::Repair::load("rulebooks/sales-tax/repair-1.toml".as_ref())?;
/// let mut session = repair.session();
/// assert!(session.inspect_business("products")?.contains("P-100"));
/// let refused = session.replace_rulebook("not a rulebook").unwrap_err();
/// assert_eq!(refused.code(), "tool::refused");
/// assert!(session.calculate_cart("CART-3")?.contains("\"cart_id\":\"CART-3\""));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct RepairSession {
    repair: Repair,
    text: String,
    loaded: Option<Rulebook>,
}

impl RepairSession {
    /// A business section as JSON text (`visible`: the visible cases by id).
    pub fn inspect_business(&self, section: &str) -> Result<String, ToolError> {
        let task = &self.repair.verifier.task;
        if section == "visible" {
            let cases: serde_json::Map<String, serde_json::Value> = task
                .visible
                .iter()
                .map(|v| (v.id.clone(), v.case.clone()))
                .collect();
            return Ok(serde_json::Value::Object(cases).to_string());
        }
        match task.business.get(section) {
            Some(serde_json::Value::String(text)) => Ok(text.clone()),
            Some(value) => Ok(value.to_string()),
            None => {
                let mut names: Vec<&str> = task.business.keys().map(String::as_str).collect();
                names.push("visible");
                Err(ToolError::UnknownSection(names.join(", ")))
            }
        }
    }

    /// The stored candidate's text.
    pub fn read_rulebook(&self) -> &str {
        &self.text
    }

    /// Stores `text` if it loads under the caps and keeps the contract;
    /// otherwise the stored text stays and the refusal says why.
    pub fn replace_rulebook(&mut self, text: &str) -> Result<(), ToolError> {
        let rb = self
            .repair
            .verifier
            .load_candidate(text)
            .map_err(ToolError::Refused)?;
        self.text = text.to_string();
        self.loaded = Some(rb);
        Ok(())
    }

    /// The stored candidate's answer to a visible case, as JSON text.
    pub fn calculate_cart(&self, id: &str) -> Result<String, ToolError> {
        let task = &self.repair.verifier.task;
        let Some(visible) = task.visible.iter().find(|v| v.id == id) else {
            let names: Vec<&str> = task.visible.iter().map(|v| v.id.as_str()).collect();
            return Err(ToolError::UnknownCart(names.join(", ")));
        };
        let rb = self.loaded.as_ref().ok_or(ToolError::Failed)?;
        match evaluate_value(rb, &visible.case, false) {
            Ok((Outcome::Answer(answer), _)) => Ok(answer.to_string()),
            _ => Err(ToolError::Failed),
        }
    }

    /// The stored candidate's verdict (evaluator-only: call it when the
    /// rollout ends, never as a tool).
    pub fn verify(&self) -> RepairVerdict {
        self.repair.verify(&self.text)
    }
}
