//! Task files a run must not repeat (`bareme generate --exclude FILE`), so
//! that a dev or test set drawn after a training set shares no case with it.
//!
//! Each excluded file is read strictly, a line at a time (`tasks::LineFile`),
//! and must be a task file of the same generator against the same rulebook
//! version and hash: its cases are then read as this generator reads its own
//! draws, and each task's identity (its signature, or its case without one;
//! `task::identity`) recomputed from its case. A task of the run whose
//! identity an excluded file holds is drawn again, as a duplicate is.

use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::{BufReader, Read};

use super::task::{identity, Identity, TaskDrawer};
use crate::chunks::in_order;
use crate::outcome::EvalError;
use crate::tasks::{LineError, LineFile, Task};

/// Tasks read at once before their signatures are computed in parallel.
const CHUNK: usize = 512;

/// One excluded file, as the manifest reports it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ExcludedFile {
    /// Its path, as given.
    pub path: String,
    /// SHA-256 of its bytes.
    pub sha256: String,
    /// Its task lines.
    pub tasks: u64,
    /// The distinct signatures (identities) among them.
    pub signatures: u64,
    /// Draws of the run redrawn because their signature is in this file
    /// (and in no file given before it); 0 until a run counts them.
    pub redraws: u64,
}

/// The identities a run must not draw, and the files they come from.
#[derive(Debug, Default)]
pub struct Exclusion {
    files: Vec<ExcludedFile>,
    /// Each identity, with the first file that holds it.
    owners: HashMap<Identity, usize>,
}

/// Why an excluded file cannot be used: the file, as given, and the fault.
#[derive(Debug, thiserror::Error)]
#[error("--exclude {path}: {fault}")]
pub struct ExcludeError {
    /// The path, as given.
    pub path: String,
    /// What is wrong with it (boxed: an error is rare, a `Result` common).
    pub fault: Box<ExcludeFault>,
}

/// What is wrong with an excluded file.
#[derive(Debug, thiserror::Error)]
pub enum ExcludeFault {
    /// The file could not be read, or one of its lines is no task.
    #[error(transparent)]
    Line(LineError),
    /// A task of another generator, rulebook version or rulebook hash.
    #[error(
        "line {line}: task {id} {why}; only a task file of {generator} against {rulebook} \
         can be excluded"
    )]
    Foreign {
        /// The line's number.
        line: usize,
        /// The task's id.
        id: String,
        /// What differs.
        why: String,
        /// The generator of the run.
        generator: String,
        /// `id@version#hash` of the run's rulebook.
        rulebook: String,
    },
    /// The reference fails on the task's case: no run of this generator
    /// drew it.
    #[error("line {line}: task {id}: the rulebook fails on its case ({source}); no run of {generator} drew it")]
    Reference {
        /// The line's number.
        line: usize,
        /// The task's id.
        id: String,
        /// The generator of the run.
        generator: String,
        /// The failure.
        source: EvalError,
    },
    /// The worker pool could not start.
    #[error("cannot start {0} worker threads")]
    Pool(usize),
}

impl Exclusion {
    /// No file excluded.
    pub fn new() -> Exclusion {
        Exclusion::default()
    }

    /// The files excluded, in the order given, each with its counts.
    pub fn files(&self) -> &[ExcludedFile] {
        &self.files
    }

    /// The distinct signatures (identities) of every file together: the
    /// sum of the files' `signatures` exactly when no two files share a case.
    pub fn signatures(&self) -> usize {
        self.owners.len()
    }

    /// Whether no file is excluded.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The file (its position in [`Exclusion::files`]) that holds `id`.
    pub(crate) fn owner(&self, id: &Identity) -> Option<usize> {
        self.owners.get(id).copied()
    }

    /// Adds the task file `path` (named in messages and the manifest as
    /// given) read from `reader`: every line must be a task of `engine`'s
    /// generator and rulebook version; their signatures are computed on
    /// `jobs` threads.
    pub fn add(
        &mut self,
        engine: &TaskDrawer<'_>,
        path: &str,
        reader: impl Read,
        jobs: usize,
    ) -> Result<(), ExcludeError> {
        let error = |fault: ExcludeFault| ExcludeError {
            path: path.to_string(),
            fault: Box::new(fault),
        };
        let pool = crate::chunks::pool(jobs).map_err(|_| error(ExcludeFault::Pool(jobs)))?;
        let g = engine.generator;
        let rulebook = format!("{}#{}", g.rulebook, g.rulebook_hash);
        let mut hashed = BufReader::new(Hashed {
            inner: reader,
            hash: Sha256::new(),
        });
        let mut lines = LineFile::new(&mut hashed);
        let mut tasks = lines.tasks();
        let at = self.files.len();
        let mut file = ExcludedFile {
            path: path.to_string(),
            ..ExcludedFile::default()
        };
        let mut distinct = std::collections::HashSet::new();
        let fill = |chunk: &mut Vec<(usize, Task)>| {
            while chunk.len() < CHUNK {
                let Some(read) = tasks.next() else {
                    break;
                };
                let (line, mut task) = read.map_err(|e| error(ExcludeFault::Line(e)))?;
                // A chunk holds only what a signature reads: a prompt and
                // tags (most of a line's bytes) held 512 at once took
                // gigabytes.
                task.prompt = None;
                task.tags = None;
                let foreign = |why: String| {
                    error(ExcludeFault::Foreign {
                        line,
                        id: task.id.clone(),
                        why,
                        generator: g.name.clone(),
                        rulebook: rulebook.clone(),
                    })
                };
                if task.written_for() != rulebook {
                    return Err(foreign(format!("is written for {}", task.written_for())));
                }
                if task.generator.as_deref() != Some(g.name.as_str()) {
                    let by = task.generator.as_deref().unwrap_or("no generator");
                    return Err(foreign(format!("was drawn by {by}")));
                }
                chunk.push((line, task));
            }
            Ok(())
        };
        let work = |(line, task): (usize, Task)| {
            engine
                .signature_of(&task.case)
                .map(|signature| identity(&signature, &task.case))
                .map_err(|source| {
                    error(ExcludeFault::Reference {
                        line,
                        id: task.id,
                        generator: g.name.clone(),
                        source,
                    })
                })
        };
        in_order(&pool, fill, work, |id| {
            file.tasks += 1;
            distinct.insert(id?);
            Ok(())
        })?;
        drop(tasks);
        drop(lines);
        file.signatures = distinct.len() as u64;
        // Only once the whole file is read: a file refused adds nothing.
        for id in distinct {
            self.owners.entry(id).or_insert(at);
        }
        let hash = hashed.into_inner().hash.finalize();
        file.sha256 = hash.iter().map(|b| format!("{b:02x}")).collect();
        self.files.push(file);
        Ok(())
    }
}

/// A reader that hashes every byte read through it, so that a file is
/// read once for its lines and its SHA-256.
struct Hashed<R> {
    inner: R,
    hash: Sha256,
}

impl<R: Read> Read for Hashed<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hash.update(buf.get(..n).unwrap_or_default());
        Ok(n)
    }
}
