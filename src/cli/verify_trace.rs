//! `bareme verify-trace`: traced evaluations (`eval --trace json`, one per
//! line, as a traced batch writes them) checked against the rulebook by
//! the independent verifier (`bareme::unstable::audit`, `docs/audit.md`).
//!
//! Exit 0 and one summary line when every trace follows; 1 and every
//! finding, with what was recorded and what follows, when one does not;
//! 2 when a file cannot be read or a line is not a trace of this rulebook.

use std::io::Read as _;
use std::path::Path;
use std::process::ExitCode;

use bareme::unstable::audit::verify_line;

use super::args::VerifyTraceArgs;
use super::output::Stdout;

fn read(path: &Path) -> Result<String, String> {
    let mut text = String::new();
    if path == Path::new("-") {
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        return Ok(text);
    }
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, l))
}

/// A case line: the case itself, or `{"case": …}` as a batch may wrap it.
fn case_of(line: &str) -> Result<serde_json::Value, serde_json::Error> {
    let v: serde_json::Value = serde_json::from_str(line)?;
    Ok(match v {
        serde_json::Value::Object(mut o) if o.len() == 1 && o.contains_key("case") => {
            o.remove("case").unwrap_or_default()
        }
        v => v,
    })
}

/// Whether a line is a batch's `{"error": …}` for a case it could not read
/// (no `trace`: nothing was evaluated, so nothing is to verify).
fn untraced_error(line: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(line).is_ok_and(|v| {
        v.as_object()
            .is_some_and(|o| o.len() == 1 && o.contains_key("error"))
    })
}

/// Runs `bareme verify-trace`.
pub fn run(args: &VerifyTraceArgs) -> ExitCode {
    let rb = match super::load(&args.rulebook) {
        Ok(rb) => rb,
        Err(code) => return code,
    };
    let traces = match read(&args.trace) {
        Ok(t) => t,
        Err(e) => {
            warn!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let cases_text = match args.case.as_deref().or(args.cases.as_deref()).map(read) {
        Some(Ok(t)) => Some(t),
        Some(Err(e)) => {
            warn!("error: {e}");
            return ExitCode::from(2);
        }
        None => None,
    };
    let mut cases = Vec::new();
    if let Some(text) = &cases_text {
        // One case file is one JSON value, however it is laid out.
        let parsed: Vec<_> = if args.case.is_some() {
            vec![(1, case_of(text))]
        } else {
            lines(text).map(|(n, l)| (n, case_of(l))).collect()
        };
        for (n, c) in parsed {
            match c {
                Ok(c) => cases.push(Some(c)),
                // The batch wrote an error line for it, which carries no trace.
                Err(_) if args.cases.is_some() => cases.push(None),
                Err(e) => {
                    warn!("error: case line {n}: not JSON: {e}");
                    return ExitCode::from(2);
                }
            }
        }
    }
    let mut out = Stdout::new();
    let (mut followed, mut failed, mut untraced) = (0usize, 0usize, 0usize);
    let mut unvalidated = 0usize;
    let mut totals = [0usize; 6];
    for (k, (n, line)) in lines(&traces).enumerate() {
        let case = cases.get(k);
        if cases_text.is_some() && case.is_none() {
            warn!("error: trace line {n} has no case (the cases file is shorter)");
            return ExitCode::from(2);
        }
        let case = case.and_then(Option::as_ref);
        if untraced_error(line) {
            // A batch's line for a case it could not read: nothing was evaluated.
            untraced += 1;
            continue;
        }
        let verdict = match verify_line(&rb, line, case) {
            Ok(v) => v,
            Err(e) => {
                warn!("error: trace line {n}: {e} [{}]", e.code());
                return ExitCode::from(2);
            }
        };
        for (t, c) in totals.iter_mut().zip([
            verdict.steps,
            verdict.checks,
            verdict.reads,
            verdict.lookups,
            verdict.roundings,
            verdict.answer_fields,
        ]) {
            *t += c;
        }
        unvalidated += usize::from(verdict.rejected_while_validated);
        if verdict.follows() {
            followed += 1;
            continue;
        }
        failed += 1;
        for f in &verdict.findings {
            out.say(&format!("line {n}: {f}"));
        }
        if out.failed() {
            break;
        }
    }
    let [steps, checks, reads, lookups, roundings, fields] = totals;
    let mut summary = format!(
        "{} of {} traces follow {}: {steps} steps, {checks} checks, {reads} reads, {lookups} lookups, {roundings} roundings, {fields} answer fields recomputed",
        followed,
        followed + failed,
        rb.reference()
    );
    if untraced > 0 {
        summary.push_str(&format!(" ({untraced} unread case lines without a trace)"));
    }
    if unvalidated > 0 {
        summary.push_str(&format!(
            " ({unvalidated} rejected while validated, taken as recorded: the verifier shares no validator)"
        ));
    }
    out.say(&summary);
    out.finish(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
