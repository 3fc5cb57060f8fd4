//! The `bareme` command: a thin shell over the library (see `cli`).

use std::process::ExitCode;

mod cli;

/// mimalloc rather than the system allocator: a batch allocates and frees
/// many small values per case (texts, records, trace events), and on
/// several workers frees what another thread allocated; BENCHMARKS.md
/// ("Allocator") has the measurements.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    cli::run()
}
