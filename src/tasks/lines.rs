//! Task and reply files read a line at a time: each line capped and
//! UTF-8-checked, blank lines skipped, every fault given with the line's
//! number. The reader is the caller's (a file, standard input, a buffer),
//! so this is no IO of its own and an embedder reads what the CLI reads.

use std::io::BufRead;

use super::reply::{ReplyError, ReplyLine};
use super::task::{Task, TaskError, MAX_TASK_BYTES};

/// Why reading a file of lines stopped.
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    /// The reader failed.
    #[error("{0}")]
    Read(std::io::Error),
    /// A line is no task or reply line.
    #[error("line {line}: {fault}")]
    Line {
        /// Its number, from 1, blank lines counted.
        line: usize,
        /// Why.
        fault: LineFault,
    },
}

/// What is wrong with one line.
#[derive(Debug, thiserror::Error)]
pub enum LineFault {
    /// Longer than the cap; its rest is not read.
    #[error("the line is longer than the limit of {limit} bytes")]
    TooLong {
        /// The cap, in bytes.
        limit: usize,
    },
    /// Not UTF-8.
    #[error("the line is not UTF-8 text: invalid byte at offset {offset}")]
    NotUtf8 {
        /// The first byte that is not.
        offset: usize,
    },
    /// Not a task.
    #[error(transparent)]
    Task(#[from] TaskError),
    /// Not a reply line.
    #[error(transparent)]
    Reply(#[from] ReplyError),
}

/// One line of a file, without its line ending.
pub enum Line<'a> {
    /// The line's bytes.
    Fits(&'a [u8]),
    /// The line was longer than the limit; its rest was skipped unread.
    TooLong,
}

/// Reads the next line into `buf`, holding at most `limit` + 1 of its bytes;
/// `None` at the end of the input.
pub fn next_line<'a, R: BufRead + ?Sized>(
    reader: &mut R,
    limit: usize,
    buf: &'a mut Vec<u8>,
) -> std::io::Result<Option<Line<'a>>> {
    read_line(reader, limit, buf, true)
}

/// [`next_line`] for a reader that stops at an over-long line: its rest is
/// left unread.
pub fn next_line_capped<'a, R: BufRead + ?Sized>(
    reader: &mut R,
    limit: usize,
    buf: &'a mut Vec<u8>,
) -> std::io::Result<Option<Line<'a>>> {
    read_line(reader, limit, buf, false)
}

/// [`next_line`]; an over-long line's rest is skipped only with `skip`.
/// A reader that stops at such a line does not skip it: on a stream with
/// no line end (`/dev/zero`), skipping never ends.
fn read_line<'a, R: BufRead + ?Sized>(
    reader: &mut R,
    limit: usize,
    buf: &'a mut Vec<u8>,
    skip: bool,
) -> std::io::Result<Option<Line<'a>>> {
    buf.clear();
    // Room for the line and its end, `\r\n` included: the limit is the
    // line's, so a CRLF file's line of exactly `limit` bytes fits, as the
    // same line ending in `\n` does.
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(2);
    let n = std::io::Read::take(&mut *reader, cap).read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() != Some(&b'\n') && n as u64 == cap {
        if skip {
            skip_line(reader)?;
        }
        return Ok(Some(Line::TooLong));
    }
    let line = buf.strip_suffix(b"\n").unwrap_or(buf);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.len() > limit {
        // Read to its end already: nothing is left to skip.
        return Ok(Some(Line::TooLong));
    }
    Ok(Some(Line::Fits(line)))
}

/// Skips to the next line without holding what it skips.
fn skip_line<R: BufRead + ?Sized>(reader: &mut R) -> std::io::Result<()> {
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(());
        }
        match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => {
                reader.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = chunk.len();
                reader.consume(n);
            }
        }
    }
}

/// A task or replies file, read a line at a time: each line at most
/// [`MAX_TASK_BYTES`] and UTF-8, blank lines skipped.
pub struct LineFile<R> {
    reader: R,
    buf: Vec<u8>,
    number: usize,
}

impl<R: BufRead> LineFile<R> {
    /// The lines of `reader`.
    pub fn new(reader: R) -> LineFile<R> {
        LineFile {
            reader,
            buf: Vec::new(),
            number: 0,
        }
    }

    /// The next non-blank line and its number, `None` at the end.
    pub fn next_line(&mut self) -> Result<Option<(usize, &str)>, LineError> {
        let len = loop {
            self.number += 1;
            let line = self.number;
            // An over-long line ends the file's reading: its rest is not read.
            let bytes = match read_line(&mut self.reader, MAX_TASK_BYTES, &mut self.buf, false) {
                Ok(None) => return Ok(None),
                Ok(Some(Line::TooLong)) => {
                    let fault = LineFault::TooLong {
                        limit: MAX_TASK_BYTES,
                    };
                    return Err(LineError::Line { line, fault });
                }
                Ok(Some(Line::Fits(bytes))) => bytes,
                Err(e) => return Err(LineError::Read(e)),
            };
            match std::str::from_utf8(bytes) {
                Ok(text) if text.trim().is_empty() => continue,
                Ok(text) => break text.len(),
                Err(e) => {
                    let fault = LineFault::NotUtf8 {
                        offset: e.valid_up_to(),
                    };
                    return Err(LineError::Line { line, fault });
                }
            }
        };
        // Checked in the loop; read again here so that the loop's borrow of
        // the buffer ends before the line is lent to the caller.
        let text = std::str::from_utf8(self.buf.get(..len).unwrap_or_default()).map_err(|e| {
            let fault = LineFault::NotUtf8 {
                offset: e.valid_up_to(),
            };
            LineError::Line {
                line: self.number,
                fault,
            }
        })?;
        Ok(Some((self.number, text)))
    }

    /// The lines read as `read` reads one, each with its number; the first
    /// that is not ends them (the caller stops there).
    fn read_each<T: 'static, F: Into<LineFault> + 'static>(
        &mut self,
        read: fn(&str) -> Result<T, F>,
    ) -> impl Iterator<Item = Result<(usize, T), LineError>> + '_ {
        std::iter::from_fn(move || match self.next_line() {
            Ok(None) => None,
            Err(e) => Some(Err(e)),
            Ok(Some((line, text))) => {
                Some(read(text).map(|t| (line, t)).map_err(|f| LineError::Line {
                    line,
                    fault: f.into(),
                }))
            }
        })
    }

    /// The tasks of a task file, each with its line's number.
    pub fn tasks(&mut self) -> impl Iterator<Item = Result<(usize, Task), LineError>> + '_ {
        self.read_each(Task::from_json)
    }

    /// The reply lines of a replies file, each with its line's number.
    pub fn replies(&mut self) -> impl Iterator<Item = Result<(usize, ReplyLine), LineError>> + '_ {
        self.read_each(ReplyLine::from_json)
    }
}
