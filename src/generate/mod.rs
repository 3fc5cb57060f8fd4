//! Generators: seeded, graded tasks written against one rulebook version.
//!
//! A generator file (`rulebooks/<id>/generator-<n>.toml`) names the rulebook
//! `id@version` it is written against and is checked against it at load
//! (`load`), so schema drift fails there, naming both sides. A task is a
//! case drawn from a profile (`draw`), the reference answer, and a prompt
//! rendered from the rulebook's own texts (`prompt`); it is kept only when
//! it passes its self-checks (`task`; the prompt's leak scan in `leak`), as a `tasks::Task`, the line a task
//! file holds. `run` draws many in parallel and writes them in order, with
//! a manifest. A generator file is loaded as every companion file of a
//! rulebook version is (`tasks::load_companion`).
//!
//! INVARIANT: task `i` depends only on (seed, generator, i), the tasks of
//! indices below it and the excluded files (`exclude`): its random stream
//! is its own, drawn from again when its task repeats one of those, so any
//! shard of a run, which draws the indices below it first, reproduces the
//! full run's lines. A run split over machines (`run::first_draws` on each
//! shard, then `run::redraw_duplicates` over every index's identity)
//! draws each index's first draw once, wherever, and only the duplicates
//! again, through the run's own code.

mod budget;
mod draw;
mod exclude;
mod fields;
mod leak;
mod load;
mod model;
mod profiles;
mod prompt;
mod raw;
mod run;
mod spans;
mod task;

pub use exclude::{ExcludeError, ExcludeFault, ExcludedFile, Exclusion};
pub use load::{load_generator, parse_generator, GeneratorError};
pub use model::{Generator, Language, OptionError};
pub use run::{
    first_draws, redraw_duplicates, run, run_excluding, FirstDraw, Manifest, RunError, RunOptions,
    MAX_INDEX_END,
};
pub use task::{DrawerError, DrawnTask, GenerateError, TaskDrawer};
