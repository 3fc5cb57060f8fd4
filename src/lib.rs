//! bareme: a declarative rules engine for payroll, tax and succession rules.
//!
//! Rules live in versioned TOML rulebooks with a small expression language;
//! the evaluator turns a rulebook and one case into an exact answer and a
//! trace that explains every step. Data flows one way:
//! TOML text → [`Rulebook`] (checked, lowered) → validated [`Facts`]
//! → [`Outcome`] (+ [`Trace`]). Beside it, the gym: a [`Generator`] drawn
//! by a [`TaskDrawer`] makes seeded [`Task`]s, a [`Scorer`] grades replies
//! under a [`Rubric`] (an outside [`judge`] grading explanations),
//! [`diff_versions`] compares two versions, and a [`repair`] task scores a
//! candidate rulebook an agent left in its session.
//!
//! ```
//! use bareme::{evaluate_value, load_rulebook, Outcome};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let rb = load_rulebook(std::path::Path::new("rulebooks/luma-payroll/v3"))?;
//! let case = serde_json::json!({"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"});
//! let (outcome, _trace) = evaluate_value(&rb, &case, false)?;
//! let Outcome::Answer(answer) = outcome else { panic!("rejected") };
//! assert_eq!(answer.to_json()["net_pay"], "2237.50");
//! # Ok(())
//! # }
//! ```
//!
//! The items at this root, [`judge`] and [`repair`] are the library's
//! surface. Everything else sits under `unstable` (hidden from the docs):
//! the command line, the Python module, the sandbox and the tests use it,
//! and it may change in any release.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

// The layers, bottom first, are listed in tests/it/layers.rs, which keeps
// every import pointing down; ARCHITECTURE.md draws them. Of the modules
// only `repair` is public (its surface four names, the rest hidden): an
// embedder uses the names re-exported here, the command line, the Python
// module and the tests also reach the rest through `unstable`.
mod audit;
mod case;
mod chunks;
mod codegen;
mod compiled;
mod conformance;
mod coverage;
mod diag;
mod diff;
mod embed;
mod eval;
mod evaluation;
mod expr;
mod facts;
mod generate;
mod json;
mod model;
mod num;
mod outcome;
pub mod repair;
mod reply;
mod rulebook;
mod score;
mod span;
mod sweep;
mod tasks;
mod trace;
mod value;

// The surface, by concern: a rulebook loaded and checked; a case validated
// and evaluated (from a `serde_json::Value`, from its bytes as `bareme eval`
// reads them, or from validated `Facts`), with or without a trace; an
// outcome and its answer; a trace rendered; the gym's files (a generator
// draws tasks, a rubric scores replies, with an outside judge), two
// versions diffed, repair tasks. The command line's own line writers,
// batch and sharding helpers and the rest stay under `unstable`.
pub use case::validate_case;
pub use diag::Diagnostics;
pub use embed::{diff_versions, evaluate_bytes, DiffError};
pub use eval::evaluate;
pub use evaluation::evaluate_value;
pub use facts::{CaseError, Facts};
pub use generate::{load_generator, DrawerError, DrawnTask, GenerateError, Generator, TaskDrawer};
pub use model::{Limits, Rulebook};
pub use outcome::{Answer, AnswerValue, EvalError, Fields, Outcome};
pub use rulebook::{
    load_rulebook, load_rulebook_with, parse_rulebook, AblationError, LoadError, LoadOptions,
};
pub use score::{load_rubric, Graded, Rubric, ScoreError, Scorer};
pub use tasks::{CompanionError, Task};
pub use trace::{render_text, Trace};

pub mod judge {
    //! An outside judge of a reply's explanation: what a rubric with an
    //! `[score.explanation]` asks ([`JudgeRequest`]), the judge a
    //! [`Scorer`](crate::Scorer) calls ([`Judge`], given with
    //! `Scorer::with_judge`), its [`Verdict`], and [`Recorded`] verdicts
    //! replayed without a call.
    pub use crate::score::{Judge, JudgeError, JudgeRequest, Recorded, Verdict};
}

pub mod tools {
    //! What a tool environment hands a model instead of the documents: the
    //! rows of a rulebook's table in force for a case ([`table_rows`]) and
    //! an exact calculator on bareme's expression grammar ([`calculate`]),
    //! both the engine's own tables and arithmetic, never floats.
    pub use crate::embed::{calculate, table_rows, CalcError, LookupError, TableRow};
}

/// The engine's internals, for the `bareme` command and the tests.
///
/// Nothing here is part of the library's surface: names move and change
/// in any release. An embedder who needs something from here is telling
/// us the surface above lacks it.
#[doc(hidden)]
pub mod unstable {
    #![allow(missing_docs)]
    pub mod audit {
        pub use crate::audit::*;
    }
    pub mod case {
        pub use crate::case::*;
    }
    pub mod chunks {
        pub use crate::chunks::*;
    }
    pub mod codegen {
        pub use crate::codegen::*;
    }
    pub mod compiled {
        pub use crate::compiled::*;
    }
    pub mod conformance {
        pub use crate::conformance::*;
    }
    pub mod coverage {
        pub use crate::coverage::*;
    }
    pub mod diag {
        pub use crate::diag::*;
    }
    pub mod diff {
        pub use crate::diff::*;
    }
    pub mod embed {
        pub use crate::embed::versions::*;
        pub use crate::embed::{
            batch_line, batch_lines, case_limit, generate_lines, generate_lines_excluding,
            too_large, PoolError, SplitError,
        };
    }
    pub mod eval {
        pub use crate::eval::evaluate_under;
    }
    pub mod evaluation {
        pub use crate::evaluation::*;
    }
    pub mod expr {
        pub use crate::expr::*;
    }
    pub mod facts {
        pub use crate::facts::*;
    }
    pub mod generate {
        pub use crate::generate::*;
    }
    pub mod num {
        pub use crate::num::*;
    }
    pub mod outcome {
        pub use crate::outcome::*;
    }
    pub mod repair {
        pub use crate::repair::*;
    }
    pub mod reply {
        pub use crate::reply::*;
    }
    pub mod rulebook {
        pub use crate::rulebook::*;
    }
    pub mod score {
        pub use crate::score::*;
    }
    pub mod span {
        pub use crate::span::*;
    }
    pub mod sweep {
        pub use crate::sweep::*;
    }
    pub mod tasks {
        pub use crate::tasks::*;
    }
    pub mod trace {
        pub use crate::trace::*;
    }
    pub mod value {
        pub use crate::value::*;
    }
}
