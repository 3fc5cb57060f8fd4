//! The `bareme` command: a thin shell over the library (see `cli`).

use std::process::ExitCode;

mod cli;

fn main() -> ExitCode {
    cli::run()
}
