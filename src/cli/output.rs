//! Standard output of the commands, every write checked, and the files they
//! write, each whole or not at all ([`OutFile`]).
//!
//! A command writes through `Stdout` and ends with `finish`, which flushes
//! and turns a failed write into an error on stderr and exit code 2, so
//! `bareme eval … > /dev/full` cannot look like a success. A closed pipe
//! (`bareme eval … | head -1`) ends quietly with the command's own code: the
//! reader asked for no more.
//!
//! Invariant: after the first failed write nothing more is written; a batch
//! asks `failed` to stop reading input nobody will see answered.

use std::fs::{self, File};
use std::io::{self, BufWriter, ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Exit code of a command whose output could not be written.
pub const WRITE_FAILED: u8 = 2;

/// Buffered standard output that keeps the first write error.
pub struct Stdout {
    out: BufWriter<io::StdoutLock<'static>>,
    error: Option<io::Error>,
    /// Standard output was closed when the command started (`>&-`): the
    /// first write fails, though the descriptor takes it.
    closed: bool,
}

impl Stdout {
    /// Locks standard output for the command.
    pub fn new() -> Self {
        Stdout {
            closed: was_closed(Stream::Stdout),
            out: BufWriter::new(io::stdout().lock()),
            error: None,
        }
    }

    /// Writes text as it is: JSON, a rendered trace, a generated module.
    pub fn text(&mut self, text: &str) {
        if self.closed && self.error.is_none() && !text.is_empty() {
            self.error = Some(closed_error());
        }
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
        self.line(&bareme::unstable::trace::escape_text(line));
    }

    /// Writes out what is buffered, keeping the error: a command flushes
    /// before its closing summary, so that a summary never follows output
    /// that was lost.
    pub fn flush(&mut self) {
        if self.error.is_none() {
            if let Err(e) = self.out.flush() {
                self.error = Some(e);
            }
        }
    }

    /// Whether a write has failed, so that more work would be lost.
    pub fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// Whether output was lost to an error that [`Stdout::finish`] reports
    /// (a closed pipe is not one): a command undoes what it did before
    /// saying so, so that a failed exit leaves nothing behind.
    pub fn lost(&self) -> bool {
        (self.error.as_ref()).is_some_and(|e| e.kind() != ErrorKind::BrokenPipe)
    }

    /// Flushes, then gives `code`, or says why the output was lost and gives
    /// `WRITE_FAILED`; a closed pipe is no error.
    pub fn finish(mut self, code: ExitCode) -> ExitCode {
        self.flush();
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

/// The error of a write to a standard stream that was closed when the
/// command started.
pub fn closed_error() -> io::Error {
    io::Error::other("it was closed when the command started")
}

/// A standard stream a command writes to.
#[derive(Clone, Copy)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// Whether a standard stream was closed when the process started. Rust's runtime opens `/dev/null` read-write in place of a closed
/// standard stream, so every write to it would succeed and the output be
/// lost without a word; a shell's `> /dev/null` opens it write-only, and is
/// a reader's choice.
#[cfg(target_os = "linux")]
pub fn was_closed(stream: Stream) -> bool {
    use std::os::fd::AsFd as _;
    use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};
    let (owned, fd) = match stream {
        Stream::Stdout => (io::stdout().as_fd().try_clone_to_owned(), 1),
        Stream::Stderr => (io::stderr().as_fd().try_clone_to_owned(), 2),
    };
    let Ok(owned) = owned else {
        return false;
    };
    let (Ok(meta), Ok(null)) = (File::from(owned).metadata(), fs::metadata("/dev/null")) else {
        return false;
    };
    if !meta.file_type().is_char_device() || meta.rdev() != null.rdev() {
        return false;
    }
    const ACCESS_MODE: u32 = 0o3;
    const READ_WRITE: u32 = 0o2;
    fs::read_to_string(format!("/proc/self/fdinfo/{fd}"))
        .ok()
        .and_then(|info| {
            let flags = info.lines().find_map(|l| l.strip_prefix("flags:"))?;
            u32::from_str_radix(flags.trim(), 8).ok()
        })
        .is_some_and(|flags| flags & ACCESS_MODE == READ_WRITE)
}

/// Elsewhere a closed standard stream cannot be told from `/dev/null`.
#[cfg(not(target_os = "linux"))]
pub fn was_closed(_: Stream) -> bool {
    false
}

/// A file a command writes (`--out`, `--manifest`, `--plot`,
/// `--replies-out`, `--summary`, `compile -o`), written whole or not at all.
///
/// The bytes go to a temporary file in the same folder, renamed over the
/// path by [`OutFile::commit`] only; dropped uncommitted (a run that
/// failed), the temporary file is removed and the file it would have
/// replaced stays as it was. A path that exists and is not a regular file
/// (`/dev/full`, a named pipe) is written in place: it cannot be replaced,
/// and a reader may be waiting on it.
pub struct OutFile {
    out: BufWriter<File>,
    /// The temporary file and the path it replaces, until committed.
    rename: Option<(PathBuf, PathBuf)>,
}

impl OutFile {
    /// Opens the temporary file beside `path` (or `path` itself, when it is
    /// not a regular file).
    pub fn create(path: &Path) -> io::Result<OutFile> {
        // A link is followed: the file it names is replaced, not the link.
        let target = match fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => {
                fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
            }
            _ => path.to_path_buf(),
        };
        let existing = fs::metadata(&target).ok();
        if existing.as_ref().is_some_and(|m| !m.is_file()) {
            return Ok(OutFile {
                out: BufWriter::new(File::create(&target)?),
                rename: None,
            });
        }
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = target
            .file_name()
            .ok_or_else(|| io::Error::new(ErrorKind::InvalidInput, "not a file name"))?
            .to_string_lossy()
            .into_owned();
        let mut attempt = 0u32;
        let (file, temp) = loop {
            let temp = dir.join(format!(".{name}.{}.{attempt}.tmp", std::process::id()));
            match fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&temp)
            {
                Ok(f) => break (f, temp),
                Err(e) if e.kind() == ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
                Err(e) => return Err(e),
            }
        };
        if let Some(m) = existing {
            // The replacement keeps the permissions of the file it replaces.
            let _ = fs::set_permissions(&temp, m.permissions());
        }
        Ok(OutFile {
            out: BufWriter::new(file),
            rename: Some((temp, target)),
        })
    }

    /// Flushes and puts the file in place.
    pub fn commit(mut self) -> io::Result<()> {
        self.out.flush()?;
        if let Some((temp, target)) = self.rename.take() {
            if let Err(e) = fs::rename(&temp, &target) {
                let _ = fs::remove_file(&temp);
                return Err(e);
            }
        }
        Ok(())
    }
}

impl Write for OutFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

impl Drop for OutFile {
    fn drop(&mut self) {
        if let Some((temp, _)) = self.rename.take() {
            let _ = fs::remove_file(temp);
        }
    }
}

/// Writes `bytes` to `path` whole or not at all ([`OutFile`]).
pub fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = OutFile::create(path)?;
    file.write_all(bytes)?;
    file.commit()
}

/// Refuses an output path that names one of the run's inputs (a folder
/// input stands for its `rulebook.toml`), which writing would destroy, or
/// an output named twice: the message to print, or `None`.
pub fn clobbers(outputs: &[(&str, &Path)], inputs: &[&Path]) -> Option<String> {
    let files: Vec<PathBuf> = inputs
        .iter()
        .map(|p| {
            if p.is_dir() {
                p.join("rulebook.toml")
            } else {
                p.to_path_buf()
            }
        })
        .collect();
    for (i, (flag, out)) in outputs.iter().enumerate() {
        if let Some(input) = files.iter().find(|input| same_file(out, input)) {
            return Some(format!(
                "{flag} {} names {}, an input of this run: write elsewhere",
                out.display(),
                input.display()
            ));
        }
        if let Some((other, _)) = outputs[..i].iter().find(|(_, o)| same_path(out, o)) {
            return Some(format!(
                "{flag} and {other} both name {}: give each its own file",
                out.display()
            ));
        }
    }
    None
}

/// [`clobbers`] over every file a loaded rulebook was read from: the
/// versions it `extends` too, which no path of the command line names.
/// Checked once the rulebook is loaded, before anything is written.
pub fn clobbers_rulebook(outputs: &[(&str, &Path)], rb: &bareme::Rulebook) -> Option<String> {
    let files: Vec<&Path> = rb.files().iter().map(Path::new).collect();
    clobbers(outputs, &files).or_else(|| clobbers_cases(outputs, &files))
}

/// Refuses an output naming a conformance case of the rulebook's folders
/// (`cases/*.toml` beside each file it was read from): no evaluation reads
/// them, but `bareme test` does, and `compile -o rb/cases/01.toml`
/// replaced one with Rust.
fn clobbers_cases(outputs: &[(&str, &Path)], files: &[&Path]) -> Option<String> {
    let cases = files
        .iter()
        .filter_map(|f| fs::read_dir(f.parent()?.join("cases")).ok())
        .flatten()
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "toml"));
    for case in cases {
        if let Some((flag, out)) = outputs.iter().find(|(_, out)| same_file(out, &case)) {
            return Some(format!(
                "{flag} {} names {}, a conformance case of the rulebook: write elsewhere",
                out.display(),
                case.display()
            ));
        }
    }
    None
}

/// Whether two paths name the same existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// Whether two paths name the same file, existing or to be created: a
/// file not there yet by its folder, resolved, and its name (`-o T.jsonl
/// --manifest ./T.jsonl` wrote the manifest over the tasks).
fn same_path(a: &Path, b: &Path) -> bool {
    a == b || same_file(a, b) || resolved(a).is_some_and(|x| resolved(b) == Some(x))
}

/// Where a path that may not exist yet points: its folder resolved (links
/// and `..` followed), then its name.
fn resolved(p: &Path) -> Option<PathBuf> {
    if let Ok(whole) = fs::canonicalize(p) {
        return Some(whole);
    }
    let name = p.file_name()?;
    let folder = match p.parent() {
        Some(f) if !f.as_os_str().is_empty() => f,
        _ => Path::new("."),
    };
    Some(fs::canonicalize(folder).ok()?.join(name))
}
