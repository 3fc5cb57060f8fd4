//! `bareme score --judge CMD --verdicts FILE`: the judge seam reached
//! through a command. The command reads the request (`bareme::judge::JudgeRequest`
//! as one JSON line) on stdin and prints the verdict's three booleans; it
//! is killed past its timeout. Its verdicts are kept in the verdicts file
//! by `bareme::judge::Recorded`, so a second run replays them without a call.

use std::fs::{File, OpenOptions};
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use bareme::unstable::score::{Judge, JudgeError, JudgeRequest, Recorded, Scorer, Verdict};

/// `--judge`, `--verdicts` and `--judge-timeout`, as `bareme score` and
/// `bareme serve` take them.
#[derive(Debug, clap::Args)]
pub struct JudgeArgs {
    /// A judge command (run by `sh -c`) grading non-empty explanations: it reads one JSON
    /// object `{"blocker", "clauses", "explanation"}` on stdin and prints
    /// `{"identifies_blocker", "requests_resolution", "avoids_unsupported_answer"}` (booleans);
    /// a non-zero exit, a timeout or other output fails the run (`serve`: the submission,
    /// 502). With none, a non-empty explanation is reported ungraded.
    #[arg(long, value_name = "CMD")]
    pub judge: Option<String>,
    /// The judge's verdicts, keyed by a hash of each request: read first (a request seen is
    /// never asked again), each new verdict appended; alone, replays the record.
    #[arg(long, value_name = "FILE.jsonl")]
    pub verdicts: Option<PathBuf>,
    /// Seconds the judge command has for one verdict, 1 to 86,400.
    #[arg(long, value_name = "SECS", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub judge_timeout: u64,
}

impl JudgeArgs {
    /// The scorer with the judge these arguments configure, if any; a
    /// verdicts file that cannot be read or used is reported, exit 2.
    pub fn attach(&self, scorer: Scorer) -> Result<Scorer, ExitCode> {
        match configure(
            self.judge.as_deref(),
            self.verdicts.as_deref(),
            self.judge_timeout,
        ) {
            Ok(Some(judge)) => Ok(scorer.with_judge(judge)),
            Ok(None) => Ok(scorer),
            Err(why) => {
                warn!("error: {why}");
                Err(ExitCode::from(2))
            }
        }
    }
}

/// Most bytes of a judge's stdout or stderr read; a verdict is ~100 bytes.
const MAX_OUTPUT: u64 = 64 * 1024;

/// A judge run as `sh -c CMD` once per request.
#[derive(Debug)]
pub struct CommandJudge {
    command: String,
    timeout: Duration,
}

impl Judge for CommandJudge {
    fn judge(&self, request: &JudgeRequest) -> Result<Verdict, JudgeError> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(&self.command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| JudgeError::Unavailable(format!("`{}`: {e}", self.command)))?;
        let input = format!("{}\n", request.to_json());
        let stdin = child.stdin.take();
        let writer = thread::spawn(move || {
            // A judge that stops reading early is judged by its output.
            if let Some(mut s) = stdin {
                let _ = s.write_all(input.as_bytes());
            }
        });
        let read = |pipe: Option<Box<dyn Read + Send>>| {
            thread::spawn(move || {
                let mut text = Vec::new();
                if let Some(p) = pipe {
                    let _ = p.take(MAX_OUTPUT).read_to_end(&mut text);
                }
                text
            })
        };
        let out = read(
            child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        );
        let err = read(
            child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        );
        // A timeout past what an instant holds never comes (the options
        // keep it to a day).
        let deadline = Instant::now().checked_add(self.timeout);
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if deadline.is_some_and(|d| Instant::now() >= d) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(JudgeError::Timeout(self.timeout.as_secs()));
                }
                Ok(None) => thread::sleep(Duration::from_millis(5)),
                Err(e) => return Err(JudgeError::Unavailable(e.to_string())),
            }
        };
        let _ = writer.join();
        let stdout = out.join().unwrap_or_default();
        let stderr = err.join().unwrap_or_default();
        if !status.success() {
            let said = String::from_utf8_lossy(&stderr);
            let said = said.trim();
            return Err(JudgeError::Failed(match said.is_empty() {
                true => format!("`{}` ended with {status}", self.command),
                false => format!("`{}` ended with {status}: {said}", self.command),
            }));
        }
        let text = String::from_utf8(stdout)
            .map_err(|_| JudgeError::Malformed("the judge's output is not UTF-8".into()))?;
        Verdict::from_text(&text)
    }
}

/// The judge `--judge` and `--verdicts` configure, if any: the command
/// behind the record of its verdicts (the file read, then appended to).
fn configure(
    command: Option<&str>,
    verdicts: Option<&Path>,
    timeout_secs: u64,
) -> Result<Option<Arc<dyn Judge>>, String> {
    let command: Option<Arc<dyn Judge>> = command.map(|c| {
        Arc::new(CommandJudge {
            command: c.to_string(),
            timeout: Duration::from_secs(timeout_secs),
        }) as Arc<dyn Judge>
    });
    let Some(path) = verdicts else {
        return Ok(command);
    };
    let shown = path.display();
    let record: Box<dyn Read> = match File::open(path) {
        Ok(f) => Box::new(f),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Box::new(std::io::empty()),
        Err(e) => return Err(format!("cannot read {shown}: {e}")),
    };
    let sink = match &command {
        Some(_) => Some(
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map(|f| Box::new(f) as Box<dyn Write + Send>)
                .map_err(|e| format!("cannot write {shown}: {e}"))?,
        ),
        None => None,
    };
    let recorded = Recorded::new(command, BufReader::new(record), sink)
        .map_err(|e| format!("{shown}: {e}"))?;
    Ok(Some(Arc::new(recorded)))
}
