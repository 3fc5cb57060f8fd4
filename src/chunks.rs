//! Work over a stream in parallel, its results handed on in input order,
//! with memory bounded by one chunk whatever the length of the stream.
//!
//! `eval --batch`, `generate` and `score` all read a chunk of items, work
//! them in parallel, write the results in order, then read the next chunk:
//! this is that loop, once. The output never depends on the number of
//! threads, because each item's result depends on the item alone and
//! results are handed on in the items' order.

use rayon::prelude::*;
use rayon::ThreadPool;

/// Runs `work` over every item `fill` gives, a chunk at a time on `pool`,
/// and hands each result to `sink` in the items' order.
///
/// `fill` appends the next chunk's items to an empty vector (its size is the
/// caller's bound on memory); a chunk left empty ends the run. An error from
/// `fill` ends the run after the items it appended are worked and handed on,
/// so everything read before a failed read is still answered. An error from
/// `sink` ends the run at once. On a pool of one thread the items are worked
/// one by one on the calling thread, each result handed on before the next.
pub fn in_order<T, R, E>(
    pool: &ThreadPool,
    mut fill: impl FnMut(&mut Vec<T>) -> Result<(), E>,
    work: impl Fn(T) -> R + Sync,
    mut sink: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E>
where
    T: Send,
    R: Send,
{
    let sequential = pool.current_num_threads() <= 1;
    let mut chunk: Vec<T> = Vec::new();
    let mut results: Vec<R> = Vec::new();
    loop {
        chunk.clear();
        let filled = fill(&mut chunk);
        if chunk.is_empty() {
            return filled;
        }
        if sequential {
            for item in chunk.drain(..) {
                sink(work(item))?;
            }
        } else {
            pool.install(|| {
                chunk
                    .par_drain(..)
                    .map(&work)
                    .collect_into_vec(&mut results)
            });
            for result in results.drain(..) {
                sink(result)?;
            }
        }
        filled?;
    }
}

/// Most worker threads a pool starts: far above any core count this runs
/// on, and below the point where starting the threads costs more than the
/// work (a hundred thousand took a minute to start, and could abort).
/// `--jobs` above it is a usage error.
pub const MAX_JOBS: usize = 256;

/// A pool of `jobs` worker threads (at least one, at most [`MAX_JOBS`]).
pub fn pool(jobs: usize) -> Result<ThreadPool, rayon::ThreadPoolBuildError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.clamp(1, MAX_JOBS))
        .build()
}

/// The default number of workers: every core the machine offers.
pub fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Squares of 0..n through chunks of `size`, with `jobs` threads.
    fn squares(n: u64, size: usize, jobs: usize) -> Vec<u64> {
        let pool = pool(jobs).expect("a pool"); // ok: a test of its own pool
        let mut next = 0u64;
        let mut out = Vec::new();
        let done: Result<(), ()> = in_order(
            &pool,
            |chunk| {
                while chunk.len() < size && next < n {
                    chunk.push(next);
                    next += 1;
                }
                Ok(())
            },
            |i| i * i,
            |r| {
                out.push(r);
                Ok(())
            },
        );
        assert_eq!(done, Ok(()));
        out
    }

    #[test]
    fn results_come_in_input_order_whatever_the_threads() {
        let expected: Vec<u64> = (0..1000u64).map(|i| i * i).collect();
        assert_eq!(squares(1000, 7, 1), expected);
        assert_eq!(squares(1000, 7, 3), expected);
        assert_eq!(squares(1000, 512, 2), expected);
        assert_eq!(squares(0, 7, 2), Vec::<u64>::new());
    }

    #[test]
    fn a_failed_fill_still_hands_on_what_it_read() {
        for jobs in [1, 2] {
            let pool = pool(jobs).expect("a pool"); // ok: a test of its own pool
            let mut calls = 0;
            let mut out = Vec::new();
            let done = in_order(
                &pool,
                |chunk: &mut Vec<u32>| {
                    calls += 1;
                    chunk.extend([calls * 10, calls * 10 + 1]);
                    if calls == 2 {
                        Err("read failed")
                    } else {
                        Ok(())
                    }
                },
                |i| i + 1,
                |r| {
                    out.push(r);
                    Ok(())
                },
            );
            assert_eq!(done, Err("read failed"));
            assert_eq!(out, vec![11, 12, 21, 22]);
        }
    }

    #[test]
    fn a_failed_sink_stops_the_run() {
        for jobs in [1, 2] {
            let pool = pool(jobs).expect("a pool"); // ok: a test of its own pool
            let mut fills = 0;
            let mut out = Vec::new();
            let done = in_order(
                &pool,
                |chunk: &mut Vec<u32>| {
                    fills += 1;
                    chunk.extend([1, 2, 3]);
                    Ok(())
                },
                |i| i,
                |r| {
                    out.push(r);
                    if r == 2 {
                        Err("closed")
                    } else {
                        Ok(())
                    }
                },
            );
            assert_eq!(done, Err("closed"));
            assert_eq!(out, vec![1, 2]);
            assert_eq!(fills, 1);
        }
    }
}
