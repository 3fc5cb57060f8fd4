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
//!
//! The same two phases split over machines (`bareme.dist`): `first_draws`
//! gives an index range's first draws with their identities, each shard
//! drawing its own indices only, and `redraw_duplicates` walks every
//! index's identity in order, drawing again (from the start of its stream)
//! only an index whose first draw is refused. Both go through the run's
//! `first_draw` and `Settler`, so the bytes are the run's.

use indexmap::IndexMap;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashSet};
use std::io::Write;

use super::exclude::{ExcludedFile, Exclusion};
use super::task::{identity, DrawnTask, Draws, GenerateError, Identity, TaskDrawer};
use crate::chunks::in_order;
use crate::tasks::Task;

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
    /// Evaluations of the rulebook the draws of every task made, refused
    /// draws included.
    pub evaluations: u64,
    /// The most the draws of one task made: what the generator's
    /// `max_evaluations` bounds, so a run says how near it came.
    pub most_evaluations: u64,
    /// SHA-256 of the task lines written.
    pub sha256: String,
}

/// Why a run stopped.
///
/// ```
/// let (generator, rb) = bareme::load_generator("rulebooks/sales-tax/generator-1.toml".as_ref(), None)?;
/// let drawer = bareme::TaskDrawer::new(&generator, &rb)?;
/// // Past the index bound, the run is refused before any task is drawn.
/// let run = bareme::unstable::generate::RunOptions { seed: 1, start: u64::MAX - 1, count: 1, level: None, jobs: 1 };
/// let err = bareme::unstable::embed::generate_lines(&drawer, run).unwrap_err();
/// assert!(matches!(err, bareme::unstable::generate::RunError::Range { .. }), "{err}");
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
    /// The identity given for an index is not its first draw's (phase 1
    /// was drawn with another seed, level or generator).
    #[error(
        "task {index}: the identity given is not its first draw's \
         (drawn with another seed, level or generator version)"
    )]
    Mismatch {
        /// The index.
        index: u64,
    },
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
/// `progress` hears of every task drawn, the unwritten ones before `start`
/// included: a shard far into a run spends most of its time there.
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
    let first = |i: u64| first_draw(engine, options.seed, options.level, i);
    let mut settler = Settler {
        engine,
        excluded,
        seen: HashSet::new(),
    };
    // The tasks before `start` are drawn only to settle duplicates among
    // the shard's own: a shard of none has none to settle (`--start
    // 100000000 -n 0` drew for hours to write nothing).
    let mut next = if options.count == 0 { options.start } else { 0 };
    in_order(&pool, indices(&mut next, options.start), first, |d| {
        settler.settle(d?)?;
        progress(1);
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
        let DrawnTask {
            task,
            redraws,
            evaluations,
            ..
        } = drawn;
        for (reason, n) in redraws {
            *manifest.redraws.entry(reason).or_default() += n;
        }
        manifest.evaluations += evaluations;
        manifest.most_evaluations = manifest.most_evaluations.max(evaluations);
        manifest.duplicates += duplicates;
        for file in excluded {
            if let Some(f) = manifest.exclude.get_mut(file) {
                f.redraws += 1;
            }
        }
        progress(1);
        line.clear();
        write_line(&mut line, &task)?;
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
    /// The identities of every index's task so far, each by its first 128
    /// bits: a shard far into a run holds every earlier task's (10^8 at
    /// the bound), and half the digest halves that set; two cases meet at
    /// 128 bits with odds near 10^-23 there.
    seen: HashSet<u128>,
}

/// The first 128 bits of an identity, as [`Settler::seen`] keeps it.
fn head(id: &Identity) -> u128 {
    let mut first = [0u8; 16];
    first.copy_from_slice(&id[..16]);
    u128::from_be_bytes(first)
}

/// Why the run refuses a task it was given.
#[derive(Clone, Copy)]
enum Refusal {
    /// An earlier index's task has its identity.
    Duplicate,
    /// The excluded file of this position holds it.
    Excluded(usize),
}

impl<'g> Settler<'_, 'g> {
    /// Whether a task of identity `id` may be the next index's: `None`,
    /// and it is now seen; else why not.
    fn admit(&mut self, id: Identity) -> Option<Refusal> {
        match self.excluded.owner(&id) {
            Some(file) => Some(Refusal::Excluded(file)),
            None if self.seen.insert(head(&id)) => None,
            None => Some(Refusal::Duplicate),
        }
    }

    /// The task of the next index, from its first passing draw.
    fn settle(&mut self, first: First<'g>) -> Result<Settled, RunError> {
        let verdict = self.admit(first.2);
        self.redraw(first, verdict)
    }

    /// The task of the next index, from a draw the run judged `verdict`:
    /// drawn again, where its stream stands, as long as an excluded file or
    /// an earlier index holds its identity.
    fn redraw(
        &mut self,
        (mut draws, mut drawn, _): First<'g>,
        mut verdict: Option<Refusal>,
    ) -> Result<Settled, RunError> {
        let mut redraws = BTreeMap::new();
        let mut duplicates = 0;
        let mut excluded = Vec::new();
        loop {
            let refused = match verdict {
                None => {
                    merge(&mut redraws, std::mem::take(&mut drawn.redraws));
                    drawn.redraws = redraws;
                    return Ok(Settled {
                        drawn,
                        duplicates,
                        excluded,
                    });
                }
                Some(Refusal::Excluded(file)) => {
                    excluded.push(file);
                    EXCLUDED
                }
                Some(Refusal::Duplicate) => {
                    duplicates += 1;
                    DUPLICATE
                }
            };
            merge(&mut redraws, std::mem::take(&mut drawn.redraws));
            let branch = drawn.task.branch.as_deref().unwrap_or_default();
            draws.refuse(branch, refused);
            drawn = self.engine.next(&mut draws)?;
            verdict = self.admit(identity(&drawn.signature, &drawn.task.case));
        }
    }
}

/// Adds the counts of `more` to `into`.
fn merge(into: &mut BTreeMap<String, u64>, more: BTreeMap<String, u64>) {
    for (reason, n) in more {
        *into.entry(reason).or_default() += n;
    }
}

/// Index `i`'s first passing draw, where every road of a run starts: its
/// stream where it stands after it, the task and its identity.
fn first_draw<'g>(
    engine: &TaskDrawer<'g>,
    seed: u64,
    level: Option<i64>,
    i: u64,
) -> Result<First<'g>, GenerateError> {
    let mut draws = engine.draws(seed, i, level)?;
    let drawn = engine.next(&mut draws)?;
    let id = identity(&drawn.signature, &drawn.task.case);
    Ok((draws, drawn, id))
}

/// A task's line as a task file holds it, without its newline.
fn write_line(line: &mut Vec<u8>, task: &Task) -> Result<(), RunError> {
    serde_json::to_writer(line, task).map_err(std::io::Error::from)?;
    Ok(())
}

/// An index's first passing draw, phase 1 of a run split over machines
/// ([`first_draws`], then [`redraw_duplicates`]).
///
/// ```
/// # use bareme::unstable::generate::RunOptions;
/// let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
/// let drawer = bareme::TaskDrawer::new(&generator, &rb)?;
/// let run = |count| RunOptions { seed: 2026, start: 0, count, level: None, jobs: 1 };
/// let first: Vec<bareme::unstable::generate::FirstDraw> = bareme::unstable::generate::first_draws(&drawer, run(2))?;
/// // No index before task 0: its first draw is its line.
/// let lines = bareme::unstable::embed::generate_lines(&drawer, run(1))?;
/// assert_eq!([&first[0].line[..], b"\n"].concat(), lines);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct FirstDraw {
    /// The task's line (no newline): the line `bareme generate` writes for
    /// the index unless an earlier index's task has its identity.
    pub line: Vec<u8>,
    /// Its identity: SHA-256 of its signature (of its case's JSON when the
    /// generator declares none); two tasks of one identity are one case.
    pub identity: [u8; 32],
}

/// Phase 1 of a run split over machines: each index's first passing draw,
/// for indices `start..start + count` of `seed`, drawn on `jobs` threads.
/// Unlike a run from `start`, no index below `start` is drawn: a shard
/// costs its own indices only. The lines are the run's except where an
/// index repeats an earlier one's identity, which [`redraw_duplicates`]
/// settles from every index's identity, in order.
///
/// ```
/// # use bareme::unstable::generate::RunOptions;
/// let (generator, rb) = bareme::load_generator("rulebooks/sales-tax/generator-1.toml".as_ref(), None)?;
/// let drawer = bareme::TaskDrawer::new(&generator, &rb)?;
/// let run = |start, count| RunOptions { seed: 7, start, count, level: None, jobs: 1 };
/// // Two shards, each drawing its own indices only.
/// let mut first = bareme::unstable::generate::first_draws(&drawer, run(0, 3))?;
/// first.extend(bareme::unstable::generate::first_draws(&drawer, run(3, 3))?);
/// let ids: Vec<[u8; 32]> = first.iter().map(|f| f.identity).collect();
/// let mut text = Vec::new();
/// let redrawn = bareme::unstable::generate::redraw_duplicates(&drawer, 7, None, &ids)?;
/// for (i, f) in first.into_iter().enumerate() {
///     let line = redrawn.iter().find(|(at, _)| *at == i as u64).map_or(f.line, |(_, l)| l.clone());
///     text.extend(line);
///     text.push(b'\n');
/// }
/// assert_eq!(text, bareme::unstable::embed::generate_lines(&drawer, run(0, 6))?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn first_draws(
    engine: &TaskDrawer<'_>,
    options: RunOptions,
) -> Result<Vec<FirstDraw>, RunError> {
    let RunOptions {
        seed,
        start,
        level,
        jobs,
        ..
    } = options;
    let end = options.end()?;
    let pool = crate::chunks::pool(jobs).map_err(|_| RunError::Pool(jobs))?;
    let mut out = Vec::new();
    let mut next = start;
    let first = |i: u64| first_draw(engine, seed, level, i);
    in_order(&pool, indices(&mut next, end), first, |d| {
        let (_, drawn, identity) = d?;
        let mut line = Vec::new();
        write_line(&mut line, &drawn.task)?;
        out.push(FirstDraw { line, identity });
        Ok(())
    })?;
    Ok(out)
}

/// Phase 2 of a run split over machines: from the identity of every
/// index's first draw (`firsts[i]`, index `i` of `seed` from 0, as
/// [`first_draws`] gives them), the indices whose first draw repeats an
/// earlier index's task, each with the line the run writes there: drawn
/// again in its own stream, as [`run`] draws it (the same code, the same
/// `max_redraws` and error). Cheap when duplicates are rare: only they
/// are drawn.
///
/// ```
/// let (generator, rb) = bareme::load_generator("rulebooks/sales-tax/generator-1.toml".as_ref(), None)?;
/// let drawer = bareme::TaskDrawer::new(&generator, &rb)?;
/// let run = bareme::unstable::generate::RunOptions { seed: 7, start: 0, count: 2, level: None, jobs: 1 };
/// let first = bareme::unstable::generate::first_draws(&drawer, run)?;
/// // Index 1 given index 0's identity: another seed's draws, refused.
/// let ids = [first[0].identity, first[0].identity];
/// let err = bareme::unstable::generate::redraw_duplicates(&drawer, 7, None, &ids).unwrap_err();
/// assert!(matches!(err, bareme::unstable::generate::RunError::Mismatch { index: 1 }), "{err}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn redraw_duplicates(
    engine: &TaskDrawer<'_>,
    seed: u64,
    level: Option<i64>,
    firsts: &[[u8; 32]],
) -> Result<Vec<(u64, Vec<u8>)>, RunError> {
    let count = firsts.len() as u64;
    RunOptions {
        seed,
        start: 0,
        count,
        level,
        jobs: 1,
    }
    .end()?;
    let none = Exclusion::new();
    let mut settler = Settler {
        engine,
        excluded: &none,
        seen: HashSet::with_capacity(firsts.len()),
    };
    let mut redrawn = Vec::new();
    for (index, id) in (0..).zip(firsts) {
        let Some(verdict) = settler.admit(*id) else {
            continue;
        };
        // Drawn again from the start of its stream, as the run drew it.
        let first = first_draw(engine, seed, level, index)?;
        if first.2 != *id {
            return Err(RunError::Mismatch { index });
        }
        let Settled { drawn, .. } = settler.redraw(first, Some(verdict))?;
        let mut line = Vec::new();
        write_line(&mut line, &drawn.task)?;
        redrawn.push((index, line));
    }
    Ok(redrawn)
}
