//! A run of a generator: tasks `start..start + count`, drawn in parallel and
//! written in index order as JSON Lines (each a `tasks::Task` serialised),
//! with the manifest that counts them.
//!
//! A task whose signature an earlier index already has is a duplicate and
//! is dropped. Since every task depends only on (seed, generator, index),
//! whether task i is kept depends only on the signatures of tasks 0..i;
//! a run starting at `start` first computes those, so a shard writes
//! exactly the lines a full run writes for its indices.

use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashSet};
use std::io::Write;

use super::task::{DrawnTask, GenerateError, TaskDrawer};
use crate::chunks::in_order;

/// Tasks drawn at once between two writes: bounds memory, keeps order.
const CHUNK: u64 = 512;

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
    /// Tasks written.
    pub tasks: u64,
    /// Tasks dropped as duplicates of an earlier index.
    pub duplicates: u64,
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
    /// `start + count` passes the last index a task can have.
    #[error(
        "--start {start} and -n {count} pass the last index, {}: ask for fewer",
        u64::MAX
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
    // Checked before any work: a range past the last index would otherwise
    // end early and quietly write fewer tasks than asked for.
    let end = options
        .start
        .checked_add(options.count)
        .ok_or(RunError::Range {
            start: options.start,
            count: options.count,
        })?;
    let pool = crate::chunks::pool(options.jobs).map_err(|_| RunError::Pool(options.jobs))?;
    let g = engine.generator;
    let draw = |i: u64| engine.task(options.seed, i, options.level);
    let mut seen: HashSet<String> = HashSet::new();
    if !g.checks.signature.is_empty() {
        let mut next = 0;
        in_order(&pool, indices(&mut next, options.start), draw, |d| {
            seen.insert(d?.signature);
            Ok(())
        })?;
    }
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
        ..Manifest::default()
    };
    let mut hash = Sha256::new();
    let mut line = Vec::new();
    let mut next = options.start;
    in_order(&pool, indices(&mut next, end), draw, |d| {
        let DrawnTask {
            task,
            signature,
            redraws,
        } = d?;
        for (reason, n) in redraws {
            *manifest.redraws.entry(reason).or_default() += n;
        }
        progress(1);
        if !signature.is_empty() && !seen.insert(signature) {
            manifest.duplicates += 1;
            return Ok(());
        }
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
