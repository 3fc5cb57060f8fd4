//! The batch target: chunks of JSON Lines fed to one `bareme eval --batch`
//! process each.
//!
//! A chunk mixes valid bundled cases, `{"case": …}` envelopes, mutated cases
//! (from the case target), invalid JSON, lines with bytes that are not UTF-8,
//! empty lines, raw lines of the bundled `.jsonl` examples, and lines at and
//! over the 1 MiB line limit. The chunk is fed twice in one process; the
//! process must exit with code 0 (not by a signal), print exactly one line
//! per input line, each a JSON value, and the same lines for both copies.

use super::case_json::mutated_case;
use super::corpus::BOOKS;
use super::{Config, Finding, Rng, Target};
use rand::seq::IndexedRandom;
use rand::Rng as _;
use std::io::Write;
use std::process::{Command, Stdio};

/// Lines in one chunk (one input of this target).
pub const LINES_PER_CHUNK: u64 = 200;

/// `[limits] max_case_bytes` of the bundled rulebooks (none sets its own).
const MAX_CASE_BYTES: usize = 1 << 20;

/// The batch target.
pub struct BatchLines {
    cfg: Config,
}

/// One input: a chunk of lines for one rulebook.
pub struct Input {
    book: usize,
    lines: Vec<Vec<u8>>,
}

impl BatchLines {
    /// The target for a run.
    pub fn new(cfg: Config) -> BatchLines {
        BatchLines { cfg }
    }
}

impl BatchLines {
    fn again(&self) -> usize {
        if self.cfg.long() {
            usize::MAX
        } else {
            SHORT_AGAIN
        }
    }
}

impl Target for BatchLines {
    type Input = Input;
    const NAME: &'static str = "batch_lines";
    const SHORT_COUNT: u64 = 1_000;
    const ITEMS_PER_INPUT: u64 = LINES_PER_CHUNK;

    fn draw(&self, rng: &mut Rng, _i: u64) -> Input {
        let book = rng.random_range(0..BOOKS.len());
        let mut big_left = 1;
        let lines = (0..LINES_PER_CHUNK)
            .map(|_| line(rng, book, &self.cfg, &mut big_left))
            .collect();
        Input { book, lines }
    }

    fn bytes(&self, input: &Input) -> Vec<u8> {
        feed(&input.lines, 0)
    }

    fn extra_files(&self, input: &Input) -> Vec<(String, Vec<u8>)> {
        let dir = BOOKS[input.book].dir.display().to_string() + "\n";
        vec![("rulebook.txt".into(), dir.into_bytes())]
    }

    fn check(&self, input: &Input) -> Result<(), Finding> {
        check_lines(input.book, &input.lines, self.again())
    }

    fn reduce(&self, input: &Input, signature: &str) -> Option<Vec<u8>> {
        let small = super::shrink(
            input.lines.clone(),
            |l| super::fails_with(signature, || check_lines(input.book, l, self.again())),
            200,
        );
        Some(feed(&small, 0))
    }

    fn items(&self, input: &Input) -> u64 {
        input.lines.len() as u64
    }
}

/// The lines, each ended by `\n`, then the first `again` of them once more.
fn feed(lines: &[Vec<u8>], again: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines.iter().chain(&lines[..again.min(lines.len())]) {
        out.extend_from_slice(l);
        out.push(b'\n');
    }
    out
}

/// Lines fed a second time in the short mode (the long mode feeds them all again).
const SHORT_AGAIN: usize = 20;

fn check_lines(book: usize, lines: &[Vec<u8>], again: usize) -> Result<(), Finding> {
    let input = feed(lines, again);
    let expected = input.iter().filter(|b| **b == b'\n').count();
    let first_copy = feed(lines, 0).iter().filter(|b| **b == b'\n').count();
    let mut child = Command::new(env!("CARGO_BIN_EXE_bareme"))
        .arg("eval")
        .arg(&BOOKS[book].dir)
        .args(["--batch", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Finding::new("bareme does not start", e.to_string()))?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child
        .wait_with_output()
        .map_err(|e| Finding::new("bareme cannot be waited for", e.to_string()))?;
    let _ = writer.join();
    if out.status.code() != Some(0) {
        use std::os::unix::process::ExitStatusExt;
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail: String = stderr
            .chars()
            .rev()
            .take(600)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        return Err(match out.status.signal() {
            Some(sig) => Finding::new(
                "batch killed by a signal",
                format!("bareme eval --batch was killed by signal {sig}: {tail}"),
            ),
            None => Finding::new(
                "batch exit code",
                format!(
                    "bareme eval --batch exited with {:?}: {tail}",
                    out.status.code()
                ),
            ),
        });
    }
    let got = out.stdout.iter().filter(|b| **b == b'\n').count();
    if got != expected || out.stdout.last().is_some_and(|b| *b != b'\n') {
        return Err(Finding::new(
            "batch line count",
            format!(
                "{expected} lines in, {got} lines out (and a last line unended: {})",
                out.stdout.last().is_some_and(|b| *b != b'\n')
            ),
        ));
    }
    let outputs: Vec<&[u8]> = out.stdout.split(|b| *b == b'\n').take(got).collect();
    if let Some((k, bad)) = outputs
        .iter()
        .enumerate()
        .find(|(_, l)| serde_json::from_slice::<serde_json::Value>(l).is_err())
    {
        return Err(Finding::new(
            "batch output line is not JSON",
            format!("output line {k}: {}", String::from_utf8_lossy(bad)),
        ));
    }
    for l in &outputs {
        super::tally(if l.starts_with(b"{\"error\"") {
            "error lines"
        } else {
            "answer lines"
        });
    }
    let (a, b) = outputs.split_at(first_copy);
    if let Some(k) = (0..b.len()).find(|&k| a[k] != b[k]) {
        return Err(Finding::new(
            "nondeterministic: batch",
            format!(
                "output line {k} differs between the two copies:\n{}\n{}",
                String::from_utf8_lossy(a[k]),
                String::from_utf8_lossy(b[k])
            ),
        ));
    }
    Ok(())
}

/// One line of a chunk (it may hold a `\n` of its own: a mutated case with a raw one).
fn line(rng: &mut Rng, book: usize, cfg: &Config, big_left: &mut u32) -> Vec<u8> {
    let b = &BOOKS[book];
    let valid = |rng: &mut Rng| {
        b.cases
            .choose(rng)
            .map(|c| c.to_string())
            .unwrap_or_default()
    };
    match rng.random_range(0..100) {
        0..=29 => valid(rng).into_bytes(),
        30..=39 => format!("{{\"case\": {}}}", valid(rng)).into_bytes(),
        40..=69 => mutated_case(rng, b, cfg).into_bytes(),
        70..=77 => {
            let v = valid(rng);
            match rng.random_range(0..6) {
                0 => {
                    let cut = rng.random_range(0..=v.len());
                    v.as_bytes()[..cut].to_vec()
                }
                1 => b"not json".to_vec(),
                2 => b"{".to_vec(),
                3 => b"[1,".to_vec(),
                4 => format!("{v}}}").into_bytes(),
                _ => (0..rng.random_range(1..60))
                    .map(|_| rng.random_range(0x20u8..0x7f))
                    .collect(),
            }
        }
        78..=84 => {
            // Bytes that are not UTF-8, in or around a valid case.
            let mut bytes = valid(rng).into_bytes();
            let bad: &[u8] = [
                &[0xff][..],
                &[0xfe],
                &[0xc3],
                &[0x80],
                &[0xc0, 0x80],
                &[0xed, 0xa0, 0x80],
                &[0xf4, 0x90, 0x80, 0x80],
                &[0xef, 0xbb, 0xbf],
            ]
            .choose(rng)
            .copied()
            .unwrap_or(&[0xff]);
            let at = rng.random_range(0..=bytes.len());
            bytes.splice(at..at, bad.iter().copied());
            bytes
        }
        85..=91 => [&b""[..], b"\r", b" ", b"\t", b"\r\r", b"\x00"]
            .choose(rng)
            .copied()
            .unwrap_or(b"")
            .to_vec(),
        92..=95 => b
            .raw_lines
            .choose(rng)
            .cloned()
            .unwrap_or_default()
            .into_bytes(),
        _ if *big_left > 0 => {
            // A line at, just under or just over the size limit, or far over it.
            *big_left -= 1;
            let size = *[
                MAX_CASE_BYTES - 1,
                MAX_CASE_BYTES,
                MAX_CASE_BYTES + 1,
                2 * MAX_CASE_BYTES,
            ]
            .choose(rng)
            .unwrap_or(&MAX_CASE_BYTES);
            let head = "{\"pad\": \"";
            let mut s = String::with_capacity(size);
            s.push_str(head);
            s.push_str(&"x".repeat(size.saturating_sub(head.len() + 2)));
            s.push_str("\"}");
            let mut bytes = s.into_bytes();
            if rng.random_bool(0.3) {
                bytes.push(b'\r');
            }
            bytes
        }
        _ => valid(rng).into_bytes(),
    }
}
