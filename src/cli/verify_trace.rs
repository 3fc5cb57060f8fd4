//! `bareme verify-trace`: traced evaluations (`eval --trace json`, one per
//! line, as a traced batch writes them) checked against the rulebook by
//! the independent verifier (`bareme::unstable::audit`, `docs/audit.md`).
//!
//! Exit 0 and one summary line when every trace follows; 1 and every
//! finding, with what was recorded and what follows, when one does not;
//! 2 when a file cannot be read or a line is not a trace of this rulebook.

use std::io::{BufRead, Read as _};
use std::path::Path;
use std::process::ExitCode;

use bareme::unstable::audit::{verify_line, Finding};
use bareme::unstable::case::CaseText;
use bareme::unstable::tasks::{next_line_capped, Line};

use super::args::VerifyTraceArgs;
use super::input::open_lines;
use super::output::Stdout;

/// The most bytes of one trace line: a payslip's is about 130 KB, and a
/// line past this is refused, not read whole (the trace file was read
/// whole, so `/dev/zero` ran out of memory). A line is held as a JSON tree
/// of about thirty times its bytes: a 120 MB line under the 256 MiB this
/// was aborted on memory (2.4 GB asked at once, 8 GB at the cap). The
/// trace's own cap (`MAX_TRACE_BYTES`, 48 MiB) with room for the answer.
const MAX_TRACE_LINE: usize = 64 << 20;

/// The most bytes of a case file (`--case`) or of one line of `--cases`:
/// the largest case any rulebook accepts.
const MAX_CASE: usize = bareme::unstable::rulebook::load::MAX_CASE_BYTES;

/// A file (or `-`, standard input) read a line at a time, each line at
/// most `limit` bytes; blank lines skipped unless `blanks` (their numbers
/// counted either way).
struct Lines {
    reader: Box<dyn BufRead>,
    name: String,
    limit: usize,
    buf: Vec<u8>,
    number: usize,
    blanks: bool,
}

impl Lines {
    fn open(path: &Path, limit: usize, blanks: bool) -> Result<Lines, String> {
        let reader =
            open_lines(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let name = if path.as_os_str() == "-" {
            "standard input".into()
        } else {
            path.display().to_string()
        };
        Ok(Lines {
            reader,
            name,
            limit,
            buf: Vec::new(),
            number: 0,
            blanks,
        })
    }

    /// The next line (non-blank, unless `blanks`) and its number, `None`
    /// at the end.
    fn next(&mut self) -> Result<Option<(usize, String)>, String> {
        loop {
            self.number += 1;
            let n = self.number;
            let read = next_line_capped(&mut self.reader, self.limit, &mut self.buf)
                .map_err(|e| format!("cannot read {}: {e}", self.name))?;
            let bytes = match read {
                None => return Ok(None),
                Some(Line::TooLong) => {
                    return Err(format!(
                        "{}, line {n}: longer than the limit of {} bytes",
                        self.name, self.limit
                    ))
                }
                Some(Line::Fits(bytes)) => bytes,
            };
            let text = std::str::from_utf8(bytes)
                .map_err(|_| format!("{}, line {n}: not UTF-8 text", self.name))?;
            if self.blanks || !text.trim().is_empty() {
                return Ok(Some((n, text.to_string())));
            }
        }
    }

    /// The whole file, one JSON value however it is laid out (`--case`).
    fn whole(path: &Path) -> Result<String, String> {
        let mut lines = Lines::open(path, MAX_CASE, false)?;
        let mut text = String::new();
        let cap = u64::try_from(MAX_CASE).unwrap_or(u64::MAX) + 1;
        std::io::Read::take(&mut lines.reader, cap)
            .read_to_string(&mut text)
            .map_err(|e| format!("cannot read {}: {e}", lines.name))?;
        if text.len() > MAX_CASE {
            return Err(format!(
                "{}: larger than a case may be, {MAX_CASE} bytes",
                lines.name
            ));
        }
        Ok(text)
    }
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
    let mut traces = match Lines::open(&args.trace, MAX_TRACE_LINE, false) {
        Ok(t) => t,
        Err(e) => {
            warn!("error: {e}");
            return ExitCode::from(2);
        }
    };
    // `--case`: one JSON value, for the one trace; `--cases`: a line per
    // trace, read beside it.
    let mut single = None;
    if let Some(path) = &args.case {
        let parsed = Lines::whole(path)
            .and_then(|text| case_of(&text).map_err(|e| format!("case line 1: not JSON: {e}")));
        match parsed {
            Ok(case) => single = Some(case),
            Err(e) => {
                warn!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    // Blank case lines kept: `eval --batch` answers each with an error
    // line, so the two files pair line for line.
    let mut case_lines = match args
        .cases
        .as_deref()
        .map(|p| Lines::open(p, MAX_CASE, true))
    {
        Some(Ok(lines)) => Some(lines),
        Some(Err(e)) => {
            warn!("error: {e}");
            return ExitCode::from(2);
        }
        None => None,
    };
    let mut out = Stdout::new();
    let (mut followed, mut failed, mut untraced) = (0usize, 0usize, 0usize);
    let mut unvalidated = 0usize;
    let (mut ablated, mut ablations) = (0usize, std::collections::BTreeSet::new());
    let mut totals = [0usize; 6];
    let mut k = 0usize;
    loop {
        let (n, line) = match traces.next() {
            Ok(Some(next)) => next,
            Ok(None) => break,
            Err(e) => {
                warn!("error: {e}");
                return ExitCode::from(2);
            }
        };
        // A case line that is not JSON is let by only when its trace line
        // is the batch's error line for it (which carries no trace).
        let case: Option<Result<serde_json::Value, String>> = match (&mut case_lines, &single) {
            (Some(lines), _) => match lines.next() {
                // A line the engine does not read as a case (not JSON, a
                // key written twice) is what a batch answers untraced.
                Ok(Some((c, text))) => Some(
                    case_of(&text)
                        .map_err(|e| format!("case line {c}: not JSON: {e}"))
                        .and_then(|case| match CaseText::from_bytes(text.as_bytes()) {
                            Ok(_) => Ok(case),
                            Err(e) => Err(format!("case line {c}: not a case: {}", e.message)),
                        }),
                ),
                Ok(None) => {
                    warn!("error: trace line {n} has no case (the cases file is shorter)");
                    return ExitCode::from(2);
                }
                Err(e) => {
                    warn!("error: {e}");
                    return ExitCode::from(2);
                }
            },
            (None, Some(_)) if k > 0 => {
                // After what the lines before it found, not ahead of it.
                out.flush();
                warn!("error: trace line {n} is a second trace, and `--case` gives the case of one: give a file of cases, a line for each trace, with `--cases`");
                return ExitCode::from(2);
            }
            (None, one) => one.clone().map(Ok),
        };
        k += 1;
        let line = line.as_str();
        if untraced_error(line) {
            // A batch's line for a case it could not read: nothing was
            // evaluated. Beside a case that is JSON it stands where a
            // traced evaluation was (a traced batch traces every case it
            // reads): the receipt was taken out, not verified.
            if let Some(Ok(_)) = &case {
                failed += 1;
                let f = Finding {
                    at: "case".into(),
                    what: "trace".into(),
                    recorded: format!("an error line without a trace, {}", line.trim()),
                    follows: "a traced evaluation: the case line is JSON, and a traced batch traces every case it reads (a fault of the rulebook, the one untraced outcome of such a case, cannot be verified)".into(),
                };
                out.say(&format!("line {n}: {f}"));
                if out.failed() {
                    break;
                }
            } else {
                untraced += 1;
            }
            continue;
        }
        let case = match case.transpose() {
            Ok(case) => case,
            Err(e) => {
                warn!("error: {e}, and trace line {n} is a traced evaluation of a case");
                return ExitCode::from(2);
            }
        };
        let case = case.as_ref();
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
        if let Some(a) = &verdict.ablation {
            ablated += 1;
            ablations.extend(a.split(',').map(str::to_string));
        }
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
    // A receipt lost at the end of the file is missing, not verified.
    if let Some(lines) = &mut case_lines {
        if !out.failed() {
            match lines.next() {
                Ok(None) => {}
                Ok(Some((c, _))) => {
                    warn!("error: case line {c} has no trace (the trace file is shorter)");
                    return ExitCode::from(2);
                }
                Err(e) => {
                    warn!("error: {e}");
                    return ExitCode::from(2);
                }
            }
        }
    }
    if k == 0 {
        warn!("error: no trace to verify: the trace file is empty");
        return ExitCode::from(2);
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
    // A receipt of an alternative reading follows that reading, not the
    // rules: the summary says so, not only the JSON.
    if ablated > 0 {
        let names: Vec<String> = ablations.into_iter().collect();
        summary.push_str(&format!(
            " ({ablated} under an ablation, an alternative reading and not the rules: {})",
            names.join(", ")
        ));
    }
    out.say(&summary);
    out.finish(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
