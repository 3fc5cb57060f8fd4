//! `bareme eval`: one case, or a JSON Lines batch.

use std::io::{BufRead, Read};
use std::path::Path;
use std::process::ExitCode;

use super::args::{EvalArgs, TraceFormat};
use super::output::Stdout;
use bareme::{evaluate_json, render_text, Outcome, Rulebook};

/// Runs `bareme eval`.
pub fn run(args: &EvalArgs) -> ExitCode {
    let rb = match super::load(&args.rulebook) {
        Ok(rb) => rb,
        Err(code) => return code,
    };
    let rb = match &args.ablate {
        None => rb,
        Some(name) => match rb.ablated(name) {
            Ok(rb) => rb,
            Err(e) => {
                warn!("error: {e}");
                return ExitCode::from(2);
            }
        },
    };
    if let Some(batch) = &args.batch {
        return run_batch(&rb, batch);
    }
    let text = match read_input(args.case.as_deref(), rb.limits.max_case_bytes) {
        Ok(t) => t,
        Err(e) => {
            warn!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let case: serde_json::Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            warn!("error: the case is not valid JSON: {e}");
            return ExitCode::from(2);
        }
    };
    let (outcome, trace) = match evaluate_json(&rb, &case, args.trace.is_some()) {
        Ok(r) => r,
        Err(e) => {
            warn!("error: the rulebook failed on this case: {e}");
            return ExitCode::from(4);
        }
    };
    let mut out = Stdout::new();
    match outcome {
        Outcome::Answer(answer) => {
            let text = match (args.trace, trace) {
                (Some(TraceFormat::Json), Some(trace)) => {
                    serde_json::json!({"answer": answer, "trace": trace}).to_string()
                }
                (Some(TraceFormat::Text), Some(trace)) => {
                    format!("{answer}\n\n{}", render_text(&trace))
                }
                _ => answer.to_string(),
            };
            out.line(text.trim_end());
            out.finish(ExitCode::SUCCESS)
        }
        Outcome::Rejected(err) => {
            match (args.trace, trace) {
                (Some(TraceFormat::Text), Some(trace)) => out.text(&render_text(&trace)),
                (Some(TraceFormat::Json), Some(trace)) => {
                    out.line(&serde_json::json!({"error": err, "trace": trace}).to_string());
                }
                _ => {}
            }
            warn!("rejected: {}: {}", err.path, err.message);
            out.finish(ExitCode::from(2))
        }
    }
}

fn read_input(path: Option<&Path>, limit: usize) -> Result<String, String> {
    let mut text = String::new();
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    match path {
        None => return Err("no case given: pass a JSON file, or - for standard input".into()),
        Some(p) if p.as_os_str() == "-" => std::io::stdin()
            .take(cap)
            .read_to_string(&mut text)
            .map_err(|e| format!("cannot read standard input: {e}"))?,
        Some(p) => std::fs::File::open(p)
            .and_then(|f| f.take(cap).read_to_string(&mut text))
            .map_err(|e| format!("cannot read {}: {e}", p.display()))?,
    };
    if text.len() > limit {
        return Err(format!(
            "the case is larger than the limit of {limit} bytes"
        ));
    }
    Ok(text)
}

fn error_line(path: &str, message: &str) -> String {
    serde_json::json!({"error": {"path": path, "message": message}}).to_string()
}

/// One output line for one input line; never fails.
pub fn batch_line(rb: &Rulebook, line: &str) -> String {
    if line.len() > rb.limits.max_case_bytes {
        return error_line(
            "$",
            &format!(
                "the case is larger than the limit of {} bytes",
                rb.limits.max_case_bytes
            ),
        );
    }
    let value: serde_json::Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return error_line("$", &format!("not valid JSON: {e}")),
    };
    let case = match value {
        serde_json::Value::Object(mut o) if o.len() == 1 && o.contains_key("case") => {
            o.remove("case").unwrap_or_default()
        }
        other => other,
    };
    match evaluate_json(rb, &case, false) {
        Ok((Outcome::Answer(answer), _)) => answer.to_string(),
        Ok((Outcome::Rejected(err), _)) => error_line(&err.path, &err.message),
        Err(e) => error_line("$", &format!("the rulebook failed on this case: {e}")),
    }
}

fn skip_line(reader: &mut dyn BufRead) -> std::io::Result<()> {
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(());
        }
        match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => {
                reader.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = chunk.len();
                reader.consume(n);
            }
        }
    }
}

fn run_batch(rb: &Rulebook, path: &Path) -> ExitCode {
    let reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        match std::fs::File::open(path) {
            Ok(f) => Box::new(std::io::BufReader::new(f)),
            Err(e) => {
                warn!("error: cannot read {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
    };
    let mut out = Stdout::new();
    let limit = u64::try_from(rb.limits.max_case_bytes).unwrap_or(u64::MAX);
    let mut reader = reader;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        // Read at most limit+1 bytes of a line, then skip the rest of an over-long line.
        let n = match (&mut reader).take(limit + 1).read_until(b'\n', &mut buf) {
            Ok(n) => n,
            Err(e) => {
                warn!("error: reading the batch: {e}");
                return out.finish(ExitCode::from(2));
            }
        };
        if n == 0 {
            break;
        }
        let result = if buf.last() != Some(&b'\n') && buf.len() as u64 > limit {
            // An over-long line: skip its rest without holding it in memory.
            if let Err(e) = skip_line(&mut reader) {
                warn!("error: reading the batch: {e}");
                return out.finish(ExitCode::from(2));
            }
            error_line(
                "$",
                &format!(
                    "the case is larger than the limit of {} bytes",
                    rb.limits.max_case_bytes
                ),
            )
        } else {
            let text = buf.strip_suffix(b"\n").unwrap_or(&buf);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            batch_line(rb, &String::from_utf8_lossy(text))
        };
        out.line(&result);
        if out.failed() {
            break;
        }
    }
    out.finish(ExitCode::SUCCESS)
}
