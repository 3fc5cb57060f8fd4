//! Typed indices into the rulebook's lists.
//!
//! Each is an index into one list only, so an index into one list cannot be
//! used for another: a table index does not type-check where a step index
//! is wanted. `Debug` prints the bare number, as the `usize` it replaced did.

use std::fmt;

macro_rules! index_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(usize);

        impl $name {
            /// The index at position `i` of its list.
            pub const fn new(i: usize) -> Self {
                Self(i)
            }

            /// The position in its list.
            pub const fn index(self) -> usize {
                self.0
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.0, f)
            }
        }
    };
}

index_type!(
    /// Index of a table in `Rulebook::tables` (and of its rows in `Facts::tables`).
    TableId
);

index_type!(
    /// Index of a top-level step in `Rulebook::steps` (a group's own steps
    /// are indexed within their group, by a bare position).
    StepId
);

index_type!(
    /// Index of a top-level input in `Rulebook::inputs` (and of its value
    /// in `Facts::values`).
    InputId
);
