//! The rulebook front end: from TOML text to a checked, lowered [`Rulebook`].
//!
//! `load` reads a file (the only IO here) and `raw` mirrors its shape;
//! `extends` merges a version with the versions it extends;
//! `check` validates it and `resolve` turns each formula's names into slots;
//! `fold` and `lower` ready the checked model for evaluation; `ablate` makes
//! the copy that evaluates under a declared alternative reading; `usage`
//! finds what `bareme check` warns of.

pub(crate) mod ablate;
pub(crate) mod check;
pub(crate) mod constant;
pub(crate) mod depth;
pub(crate) mod extends;
pub(crate) mod fold;
pub(crate) mod formula;
pub(crate) use formula::FreeNames;
pub mod load;
pub(crate) mod lower;
pub mod raw;
pub(crate) mod recorded;
pub(crate) mod resolve;
pub(crate) mod usage;

pub use crate::model::Rulebook;
pub use ablate::AblationError;
pub use check::is_rulebook_id;
pub use load::{
    effective_toml, effective_toml_with, load_rulebook, load_rulebook_with, parse_rulebook,
    LoadError, LoadOptions,
};

/// Readies a checked (or ablated) rulebook for evaluation: specialises the
/// groups over constant rows (`fold`), lowers every formula with what
/// the rulebook makes constant (`lower`), then marks in each specialised
/// row's steps what a traced evaluation may replay (`recorded`).
pub(crate) fn prepare(rb: &mut Rulebook) {
    fold::specialize(rb);
    lower::lower_all(rb);
    recorded::mark_all(rb);
}
