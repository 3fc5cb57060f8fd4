//! Repair tasks: a faulty rulebook to fix, a candidate rulebook as the
//! answer, scored on hidden cases.
//!
//! `bake` writes a rulebook whose declared wrong readings are its main
//! formulas (the seeded candidate of a repair task); `task` reads the
//! repair task file; `verify` loads a candidate under the task's caps,
//! holds it to the reference's contract and rewards it; `session` is the
//! agent's side, the stored candidate and the four tools.

mod bake;
mod session;
mod task;
mod verify;

// The surface: a repair task loaded, an agent's session on it and its
// tools, the verdict on the candidate it leaves.
pub use session::{Repair, RepairSession, ToolError};
pub use verify::RepairVerdict;

// The command line's (`bake`, `verify`) and the tests', reached through
// `bareme::unstable::repair`.
#[doc(hidden)]
pub use bake::{bake_path, bake_text, write_baked, BakeError, Baked};
#[doc(hidden)]
pub use task::{load_repair, parse_repair, Caps, Group, Hidden, RepairTask, Visible, MAX_HIDDEN};
#[doc(hidden)]
pub use verify::{Refusal, RepairError, ScoredCase, Verifier};
