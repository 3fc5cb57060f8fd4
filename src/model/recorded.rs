//! Parts of a specialised row's formula that are the same for every case,
//! as a traced evaluation runs them (`rulebook::recorded` marks them,
//! `eval::recorded` runs them).
//!
//! A part that reads only constants, the row and the row's known steps
//! computes, reads and spends the same for every case; so does the
//! condition of an `if` or the scrutinee of a `match` of that kind, which
//! settles the arm taken. The first traced evaluation that runs such a part
//! keeps what it recorded ([`Capture`]); later ones replay it instead of
//! running it.
//!
//! Invariant: plain data, the capture filled once (a `OnceLock`), the same
//! whichever case fills it.

use std::sync::{Arc, OnceLock};

use super::code::Code;
use crate::value::Value;

/// A part of a formula that is the same for every case.
#[derive(Clone, Debug)]
pub(crate) struct Recorded {
    /// The code as written: what a traced evaluation runs until the part
    /// is captured, or when a replay cannot stand for it.
    pub(crate) whole: Code,
    /// For a choice settled the same for every case (`whole` an `if` or a
    /// `match`), its arms marked in turn (`if`: then, else; `match`: each
    /// arm, then `else`); empty for a part whose value is the same.
    pub(crate) arms: Vec<Code>,
    /// What the part recorded the first time it ran; `None` inside when it
    /// records what a replay cannot give (a lookup, a rounding).
    pub(crate) capture: OnceLock<Option<Capture>>,
}

/// What a part the same for every case recorded: for a value, the whole
/// part; for a settled choice, the choice up to its arm.
#[derive(Clone, Debug)]
pub(crate) struct Capture {
    /// The budget it spent.
    pub(crate) spent: u64,
    /// Every name it read, with its value, in the order first read.
    pub(crate) reads: Vec<(Arc<str>, Value)>,
    /// The row's steps among those reads: a replay is taken only once all
    /// are computed (the part as written would compute them first).
    pub(crate) deps: Vec<usize>,
    /// Its value, or the arm it settles on.
    pub(crate) then: Then,
}

/// What follows a captured part.
#[derive(Clone, Debug)]
pub(crate) enum Then {
    /// The part's value.
    Value(Value),
    /// The index in [`Recorded::arms`] of the arm taken.
    Arm(usize),
}
