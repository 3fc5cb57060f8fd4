//! `bareme bake RULEBOOK --ablate a,b -o DIR`: a rulebook folder whose
//! declared readings are its main formulas, with no ablation left (the
//! seeded candidate of a repair task; `bareme::unstable::repair::bake_path`).
//!
//! Exit codes: 0 written; 2 a reading that does not apply (unknown, twice,
//! two on one step), a folder that cannot be written, one that holds the
//! rulebook or a version it extends, or a rulebook that cannot be read;
//! 3 an invalid rulebook.

use std::path::PathBuf;
use std::process::ExitCode;

use bareme::unstable::repair::{bake_path, write_baked, BakeError};
use bareme::LoadError;

/// Arguments of `bareme bake`.
#[derive(Debug, clap::Args)]
pub struct BakeArgs {
    /// A rulebook folder or its TOML file.
    #[arg(value_parser = super::locate::rulebook)]
    pub rulebook: PathBuf,
    /// The declared readings to bake in, applied together (`a,b`).
    #[arg(long, value_name = "NAME[,NAME…]")]
    pub ablate: String,
    /// The folder to write (`DIR/rulebook.toml`): new, or empty.
    #[arg(short, long, value_name = "DIR")]
    pub out: PathBuf,
}

/// Runs `bareme bake`.
pub fn run(args: &BakeArgs) -> ExitCode {
    // The folder written must not hold the rulebook baked, or a version it
    // extends: writing would replace the source, silently changing every
    // answer of the versions read from it.
    let rb = match super::load(&args.rulebook) {
        Ok(rb) => rb,
        Err(code) => return code,
    };
    let out = args.out.join("rulebook.toml");
    if let Some(why) = super::output::clobbers_rulebook(&[("--out", &out)], &rb) {
        warn!("error: {why}");
        return ExitCode::from(2);
    }
    let names: Vec<&str> = args.ablate.split(',').map(str::trim).collect();
    let baked = bake_path(&args.rulebook, &names, super::load_options())
        .and_then(|baked| write_baked(&args.out, &baked).map(|()| baked));
    match baked {
        Ok(baked) => {
            let line = format!(
                "baked: {} ({} reading(s)) into {}",
                baked.rulebook.reference(),
                names.len(),
                args.out.display()
            );
            super::closing(&line, ExitCode::SUCCESS)
        }
        Err(BakeError::Load(LoadError::Invalid(diags))) => super::invalid(&diags, None),
        Err(BakeError::Baked(diags)) => super::invalid(&diags, None),
        Err(e) => {
            warn!("error: {e}");
            ExitCode::from(2)
        }
    }
}
