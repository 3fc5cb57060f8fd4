//! `bareme sweep`: one case's answers across a range of one field, as CSV,
//! and optionally as an SVG plot (`bareme::sweep`).

use std::process::ExitCode;

use super::args::SweepArgs;
use super::input::{case_limit, parse_case, read_case};
use super::output::{clobbers, clobbers_rulebook, write_file, Stdout};

/// Runs `bareme sweep`.
pub fn run(args: &SweepArgs) -> ExitCode {
    if let Some(plot) = &args.plot {
        if let Some(why) = clobbers(&[("--plot", plot)], &[&args.case, &args.rulebook]) {
            warn!("error: {why}");
            return ExitCode::from(2);
        }
    }
    let rb = match super::load(&args.rulebook) {
        Ok(rb) => rb,
        Err(code) => return code,
    };
    if let Some(why) = args
        .plot
        .as_deref()
        .and_then(|plot| clobbers_rulebook(&[("--plot", plot)], &rb))
    {
        warn!("error: {why}");
        return ExitCode::from(2);
    }
    let case = read_case(Some(&args.case), case_limit(&rb)).and_then(|bytes| parse_case(&bytes));
    let swept = case.and_then(|case| {
        bareme::unstable::sweep::sweep(&rb, &case, &args.vary).map_err(|e| e.to_string())
    });
    let swept = match swept {
        Ok(s) => s,
        Err(e) => {
            warn!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(file) = &args.plot {
        let title = format!("{} — {}", rb.reference(), args.case.display());
        let written = bareme::unstable::sweep::plot::svg(&swept, &title)
            .map_err(|e| e.to_string())
            .and_then(|svg| write_file(file, svg.as_bytes()).map_err(|e| e.to_string()));
        if let Err(e) = written {
            warn!("error: cannot write {}: {e}", file.display());
            return ExitCode::from(2);
        }
    }
    let mut out = Stdout::new();
    out.text(&swept.csv());
    // A fault is the rulebook's defect, as `eval` exits 4 on it: the
    // rows are written, and the run does not pass for a clean one.
    let faults = swept.faults();
    if faults > 0 {
        warn!(
            "error: the rulebook faulted on {faults} of {} values (each row's `error` says where)",
            swept.rows.len()
        );
        return out.finish(ExitCode::from(4));
    }
    out.finish(ExitCode::SUCCESS)
}
