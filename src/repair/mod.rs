//! Repair tasks: a faulty rulebook to fix, a candidate rulebook as the
//! answer, scored on hidden cases.
//!
//! `bake` writes a rulebook whose declared wrong readings are its main
//! formulas (the seeded candidate of a repair task).

mod bake;

pub use bake::{bake_path, bake_text, write_baked, BakeError, Baked};
