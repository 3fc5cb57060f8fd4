//! A run of a generator: tasks `start..start + count`, drawn in parallel and
//! written in index order as JSON Lines (each a `tasks::Task` serialised),
//! with the manifest that counts them.
//!
//! Every index gives exactly one task. A draw whose identity (its
//! signature, or its case without one) an earlier index's task has, or an
//! excluded task file holds (`exclude`), is refused, and the index draws
//! again where its own stream stands, within its `max_redraws`. So task i
//! depends only on (seed, generator, i), the tasks of indices 0..i and the
//! excluded files; a run starting at `start` first draws those earlier
//! tasks (unwritten), so a shard writes exactly the lines a full run
//! writes for its indices. Draws are made in parallel, a chunk at a time;
//! each index's first passing draw is made there, and the rare redraws of
//! a refused one in index order, where the earlier tasks are known.

use indexmap::IndexMap;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashSet};
use std::io::Write;

use super::exclude::{ExcludedFile, Exclusion};
use super::task::{identity, DrawnTask, Draws, GenerateError, Identity, TaskDrawer};
use crate::chunks::in_order;

/// Tasks drawn at once between two writes: bounds memory, keeps order.
const CHUNK: u64 = 512;

/// The end of the indices a run may reach: `start + count` is at most this.
/// Each task depends on the tasks of every index before it (a duplicate of
/// one is drawn again), so a shard starting at `start` draws `start` tasks
/// first; past this bound that alone would take days, so it is refused
/// (exit 2) rather than seeming to hang.
pub const MAX_INDEX_END: u64 = 100_000_000;

/// Why a draw is refused after passing its self-checks, as the manifest's
/// `redraws` name it after the profile.
const DUPLICATE: &str = "duplicate of an earlier task";
/// Same, for a task an excluded file holds.
const EXCLUDED: &str = "in an excluded task file";

/// What a run asks for.
#[derive(Clone, Copy, Debug)]
pub struct RunOptions {
    /// The seed.
    pub seed: u64,
    /// First index.
    pub start: u64,
    /// How many indices.
    pub count: u64,
    /// Every task at this level instead of the mix.
    pub level: Option<i64>,
    /// Worker threads.
    pub jobs: usize,
}

impl RunOptions {
    /// The index after the last one asked for, `start + count`, checked
    /// against [`MAX_INDEX_END`].
    pub fn end(&self) -> Result<u64, RunError> {
        self.start
            .checked_add(self.count)
            .filter(|end| *end <= MAX_INDEX_END)
            .ok_or(RunError::Range {
                start: self.start,
                count: self.count,
            })
    }
}

/// Counts of a run, written with `--manifest`.
#[derive(Debug, Default, Serialize)]
pub struct Manifest {
    /// `luma-payroll/generator-4`.
    pub generator: String,
    /// SHA-256 of the generator file.
    pub generator_hash: String,
    /// `luma-payroll@3`.
    pub rulebook: String,
    /// SHA-256 of the rulebook file.
    pub rulebook_hash: String,
    /// The rubric the prompts state.
    pub rubric: i64,
    /// The seed.
    pub seed: u64,
    /// First index.
    pub start: u64,
    /// Indices drawn.
    pub count: u64,
    /// The level every task was drawn at, if fixed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<i64>,
    /// The generator's prompt switches as the run set them, every declared
    /// one in declaration order (left out for a generator that declares
    /// none): a task line records them only when one differs from its
    /// declared value, the manifest always.
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub options: IndexMap<String, bool>,
    /// Tasks written.
    pub tasks: u64,
    /// Draws refused (and drawn again) as duplicates of an earlier
    /// index's task.
    pub duplicates: u64,
    /// The excluded task files (`--exclude`), each with the draws refused
    /// because it holds their signature.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<ExcludedFile>,
    /// Tasks per level.
    pub levels: BTreeMap<i64, u64>,
    /// Tasks per tier.
    pub tiers: BTreeMap<String, u64>,
    /// Tasks per branch (profile).
    pub branches: BTreeMap<String, u64>,
    /// Tasks per tag.
    pub tags: BTreeMap<String, u64>,
    /// Draws abandoned, by profile and reason.
    pub redraws: BTreeMap<String, u64>,
    /// SHA-256 of the task lines written.
    pub sha256: String,
}

/// Why a run stopped.
///
/// ```
/// let (generator, rb) = bareme::load_generator("rulebooks/sales-tax/generator-1.toml".as_ref(), None)?;
/// let drawer = bareme::TaskDrawer::new(&generator, &rb)?;
/// // Past the index bound, the run is refused before any task is drawn.
/// let err = bareme::generate_lines(&drawer, 1, u64::MAX - 1, 1, None, 1).unwrap_err();
/// assert!(matches!(err, bareme::RunError::Range { .. }), "{err}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A task could not be drawn.
    #[error(transparent)]
    Task(#[from] GenerateError),
    /// The output could not be written.
    #[error("cannot write the tasks: {0}")]
    Write(#[from] std::io::Error),
    /// The worker pool could not start.
    #[error("cannot start {0} worker threads")]
    Pool(usize),
    /// `start + count` passes [`MAX_INDEX_END`].
    #[error(
        "--start {start} and -n {count} go past the last index a run may draw, {}: \
         start + n is at most {MAX_INDEX_END} (a shard draws every task before its start first)",
        MAX_INDEX_END - 1
    )]
    Range {
        /// The first index asked for.
        start: u64,
        /// How many indices were asked for.
        count: u64,
    },
}

/// Fills a chunk with the indices that follow `*next`, up to `end`.
fn indices(next: &mut u64, end: u64) -> impl FnMut(&mut Vec<u64>) -> Result<(), RunError> + '_ {
    move |chunk| {
        let last = next.saturating_add(CHUNK).min(end);
        chunk.extend(*next..last);
        *next = last;
        Ok(())
    }
}

/// Draws the tasks of `options` and writes them to `out`, one JSON line each.
pub fn run(
    engine: &TaskDrawer<'_>,
    options: RunOptions,
    out: &mut dyn Write,
    progress: &dyn Fn(u64),
) -> Result<Manifest, RunError> {
    run_excluding(engine, options, &Exclusion::new(), out, progress)
}

/// [`run`], drawing again every task whose identity a file of `excluded`
/// holds (they must have been read for this `engine`).
pub fn run_excluding(
    engine: &TaskDrawer<'_>,
    options: RunOptions,
    excluded: &Exclusion,
    out: &mut dyn Write,
    progress: &dyn Fn(u64),
) -> Result<Manifest, RunError> {
    // Checked before any work: a range past the bound would otherwise
    // draw for days before its first line.
    let end = options.end()?;
    let pool = crate::chunks::pool(options.jobs).map_err(|_| RunError::Pool(options.jobs))?;
    let g = engine.generator;
    let first = |i: u64| -> Result<First<'_>, GenerateError> {
        let mut draws = engine.draws(options.seed, i, options.level)?;
        let drawn = engine.next(&mut draws)?;
        let id = identity(&drawn.signature, &drawn.task.case);
        Ok((draws, drawn, id))
    };
    let mut settler = Settler {
        engine,
        excluded,
        seen: HashSet::new(),
    };
    let mut next = 0;
    in_order(&pool, indices(&mut next, options.start), first, |d| {
        settler.settle(d?)?;
        Ok(())
    })?;
    let mut manifest = Manifest {
        generator: g.name.clone(),
        generator_hash: g.hash.clone(),
        rulebook: g.rulebook.clone(),
        rulebook_hash: g.rulebook_hash.clone(),
        rubric: g.rubric,
        seed: options.seed,
        start: options.start,
        count: options.count,
        level: options.level,
        options: g.options().iter().cloned().collect(),
        exclude: excluded.files().to_vec(),
        ..Manifest::default()
    };
    let mut hash = Sha256::new();
    let mut line = Vec::new();
    let mut next = options.start;
    in_order(&pool, indices(&mut next, end), first, |d| {
        let Settled {
            drawn,
            duplicates,
            excluded,
        } = settler.settle(d?)?;
        let DrawnTask { task, redraws, .. } = drawn;
        for (reason, n) in redraws {
            *manifest.redraws.entry(reason).or_default() += n;
        }
        manifest.duplicates += duplicates;
        for file in excluded {
            if let Some(f) = manifest.exclude.get_mut(file) {
                f.redraws += 1;
            }
        }
        progress(1);
        line.clear();
        serde_json::to_writer(&mut line, &task).map_err(std::io::Error::from)?;
        line.push(b'\n');
        out.write_all(&line)?;
        hash.update(&line);
        manifest.tasks += 1;
        // A drawn task has every key of its line.
        if let Some(level) = task.level {
            *manifest.levels.entry(level).or_default() += 1;
        }
        if let Some(tier) = task.tier {
            *manifest.tiers.entry(tier).or_default() += 1;
        }
        if let Some(branch) = task.branch {
            *manifest.branches.entry(branch).or_default() += 1;
        }
        for tag in task.tags.into_iter().flatten() {
            *manifest.tags.entry(tag).or_default() += 1;
        }
        Ok(())
    })?;
    out.flush()?;
    manifest.sha256 = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    Ok(manifest)
}

/// An index's first passing draw, made in parallel: its stream where it
/// stands after it, the task, and the task's identity.
type First<'g> = (Draws<'g>, DrawnTask, Identity);

/// An index's task once it is new, with what it cost.
struct Settled {
    /// The task; its `redraws` those of every draw of its index.
    drawn: DrawnTask,
    /// Draws refused as duplicates of an earlier index's task.
    duplicates: u64,
    /// For each draw refused as excluded, the file that holds it.
    excluded: Vec<usize>,
}

/// The tasks of the indices settled so far, in index order.
struct Settler<'a, 'g> {
    engine: &'a TaskDrawer<'g>,
    excluded: &'a Exclusion,
    /// The identities of every index's task so far.
    seen: HashSet<Identity>,
}

impl<'g> Settler<'_, 'g> {
    /// The task of the next index, from its first passing draw: drawn
    /// again, where its stream stands, as long as an excluded file or an
    /// earlier index holds its identity.
    fn settle(&mut self, (mut draws, mut drawn, mut id): First<'g>) -> Result<Settled, RunError> {
        let mut redraws = BTreeMap::new();
        let mut duplicates = 0;
        let mut excluded = Vec::new();
        loop {
            let refused = match self.excluded.owner(&id) {
                Some(file) => {
                    excluded.push(file);
                    EXCLUDED
                }
                None if self.seen.insert(id) => {
                    merge(&mut redraws, std::mem::take(&mut drawn.redraws));
                    drawn.redraws = redraws;
                    return Ok(Settled {
                        drawn,
                        duplicates,
                        excluded,
                    });
                }
                None => {
                    duplicates += 1;
                    DUPLICATE
                }
            };
            merge(&mut redraws, std::mem::take(&mut drawn.redraws));
            let branch = drawn.task.branch.as_deref().unwrap_or_default();
            draws.refuse(branch, refused);
            drawn = self.engine.next(&mut draws)?;
            id = identity(&drawn.signature, &drawn.task.case);
        }
    }
}

/// Adds the counts of `more` to `into`.
fn merge(into: &mut BTreeMap<String, u64>, more: BTreeMap<String, u64>) {
    for (reason, n) in more {
        *into.entry(reason).or_default() += n;
    }
}
