//! What a traced evaluation records for a per-item step known at load
//! (`SpecializedRow::known`), kept from the first traced evaluation that
//! ran it in full, so that later ones replay it instead of running it.
//!
//! A known step reads only its row's fields and the row's other known
//! steps (`rulebook::fold` folds nothing else), so what it records, and
//! what it spends, is the same for every case: a replay records the very
//! event the full step would have.
//!
//! Invariant: plain data, filled once per row and step (a `OnceLock`), the
//! same whichever case fills it.

use std::sync::Arc;

use crate::trace::event::SharedStep;

/// A known step's trace, as the full step records it.
#[derive(Clone, Debug)]
pub struct KnownTrace {
    /// The event the full step recorded, shared by every replay: the
    /// same for every case (its item is the row's), so a replay records it
    /// without copying a read, a text or a value.
    pub event: Arc<SharedStep>,
    /// The row's steps it reads (all known), in the order first read: a
    /// replay replays those not yet computed first, as the full step
    /// computes them when it first reads them.
    pub deps: Vec<usize>,
    /// The budget its own nodes spend, its dependencies' apart.
    pub own: u64,
    /// The most a replay spends: `own` and the bound of every dependency
    /// (the replay is taken only with that much budget left, so a budget
    /// that runs out is always named inside a step run in full).
    pub bound: u64,
}
