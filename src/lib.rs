//! bareme: a declarative rules engine for payroll, tax and succession rules.
//!
//! Rules live in versioned TOML rulebooks with a small expression language;
//! the evaluator turns a rulebook and one case into an exact answer and a
//! trace that explains every step. Data flows one way:
//! TOML text → [`Rulebook`] (checked, lowered) → validated [`Facts`]
//! → [`Outcome`] (+ [`Trace`]).
//!
//! ```no_run
//! use bareme::{load_rulebook, evaluate_json, Outcome};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let rb = load_rulebook(std::path::Path::new("rulebooks/luma-payroll/v3"))?;
//! let case = serde_json::json!({"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"});
//! let (outcome, _trace) = evaluate_json(&rb, &case, false)?;
//! if let Outcome::Answer(answer) = outcome { println!("{answer}"); }
//! # Ok(())
//! # }
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

// The layers, bottom first, are listed in tests/it/layers.rs, which keeps
// every import pointing down; ARCHITECTURE.md draws them. Modules not `pub`
// are reached through the re-exports below.
mod case;
pub mod chunks;
pub mod codegen;
pub mod compiled;
pub mod conformance;
pub mod coverage;
pub mod diag;
pub mod diff;
mod eval;
pub mod expr;
mod facts;
pub mod generate;
mod json;
mod model;
pub mod num;
mod outcome;
mod pipeline;
pub mod reply;
pub mod rulebook;
pub mod score;
pub mod span;
pub mod sweep;
pub mod tasks;
pub mod trace;
pub mod value;

pub use case::{validate_case, validate_case_json, CaseJson};
pub use eval::{evaluate, evaluate_under};
pub use facts::{CaseError, Facts, Given};
pub use model::{Limits, Rulebook};
pub use outcome::{
    outcome_json, same_line, write_error, write_outcome, write_traced, Answer, AnswerValue,
    EvalError, Fields, Outcome,
};
pub use pipeline::{evaluate_case_json, evaluate_case_json_to, evaluate_json};
pub use rulebook::{load_rulebook, parse_rulebook, LoadError};
pub use trace::{render_text, Trace};
