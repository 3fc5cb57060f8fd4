//! Standard output of the commands, every write checked.
//!
//! A command writes through `Stdout` and ends with `finish`, which flushes
//! and turns a failed write into an error on stderr and exit code 2, so
//! `bareme eval … > /dev/full` cannot look like a success. A closed pipe
//! (`bareme eval … | head -1`) ends quietly with the command's own code: the
//! reader asked for no more.
//!
//! Invariant: after the first failed write nothing more is written; a batch
//! asks `failed` to stop reading input nobody will see answered.

use std::io::{self, BufWriter, ErrorKind, Write};
use std::process::ExitCode;

/// Exit code of a command whose output could not be written.
pub const WRITE_FAILED: u8 = 2;

/// Buffered standard output that keeps the first write error.
pub struct Stdout {
    out: BufWriter<io::StdoutLock<'static>>,
    error: Option<io::Error>,
}

impl Stdout {
    /// Locks standard output for the command.
    pub fn new() -> Self {
        Stdout {
            out: BufWriter::new(io::stdout().lock()),
            error: None,
        }
    }

    /// Writes text as it is: JSON, a rendered trace, a generated module.
    pub fn text(&mut self, text: &str) {
        if self.error.is_none() {
            if let Err(e) = self.out.write_all(text.as_bytes()) {
                self.error = Some(e);
            }
        }
    }

    /// Writes text and a line break.
    pub fn line(&mut self, text: &str) {
        self.text(text);
        self.text("\n");
    }

    /// Writes a line a person reads, escaped (`escape_text`): it may quote a case.
    pub fn say(&mut self, line: &str) {
        self.line(&bareme::trace::escape_text(line));
    }

    /// Whether a write has failed, so that more work would be lost.
    pub fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// Flushes, then gives `code`, or says why the output was lost and gives
    /// `WRITE_FAILED`; a closed pipe is no error.
    pub fn finish(mut self, code: ExitCode) -> ExitCode {
        if self.error.is_none() {
            if let Err(e) = self.out.flush() {
                self.error = Some(e);
            }
        }
        match self.error {
            None => code,
            Some(e) if e.kind() == ErrorKind::BrokenPipe => code,
            Some(e) => {
                warn!("error: cannot write to standard output: {e}");
                ExitCode::from(WRITE_FAILED)
            }
        }
    }
}
