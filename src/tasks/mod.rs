//! Tasks: the task line, the reply line and the companion files of a
//! rulebook version, in one place below everything that makes or reads them.
//!
//! [`Task`] is the one type of a task-file line: `generate` draws and writes
//! it, `coverage`, `score` and `diff` read it, and a task drawn in process is
//! scored without its JSON text in between. [`ReplyLine`] is a line of a
//! replies file. Both are read strictly (`json`): a key twice at any depth,
//! an unknown key, a missing one, a value of the wrong type or a byte order
//! mark is refused, never skipped. [`LineFile`] reads either kind of file a
//! line at a time, capped, every fault with its line's number.
//!
//! A generator and a rubric are both files written against one rulebook
//! version; [`load_companion`] reads one beside its rulebook, [`parse_toml`]
//! turns its TOML into located diagnostics, [`check_pin`] checks the
//! `id@version` it names.

mod companion;
mod json;
mod lines;
mod reply;
mod task;

pub(crate) use companion::read_text;
pub use companion::{
    check_pin, load_companion, parse_toml, CompanionError, Pin, PinWords, ReadError,
};
pub use json::{lone_halves_marked, read_json, JsonFault, LoneHalves};
pub use lines::{next_line, next_line_capped, Line, LineError, LineFault, LineFile};
pub use reply::{ReplyError, ReplyLine, ReplyText};
pub use task::{version_number, Task, TaskError, KEYS, MAX_TASK_BYTES};

#[cfg(test)]
mod tests;
