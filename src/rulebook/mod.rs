//! Rulebooks: the TOML format, loading, and the static checks that compile it.
//!
//! `load` reads a file (the only IO here), `schema` mirrors its shape,
//! `check` validates and compiles it through `compile`, and `model` is the
//! checked result the evaluator runs.

pub mod check;
pub mod compile;
pub mod load;
pub mod model;
pub mod schema;

pub use load::{load_rulebook, parse_rulebook, LoadError};
pub use model::Rulebook;
