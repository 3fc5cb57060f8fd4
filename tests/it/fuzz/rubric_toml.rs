//! The rubric target: the bundled `rulebooks/*/rubric-*.toml`, mutated
//! (`mutate_toml.rs`) and loaded against their rulebook; a rubric that loads
//! grades a few replies to a task generated from the bundled generator of
//! that rulebook: the reference reply under the mutated rubric, and the
//! reference reply under the bundled one, damaged. A fifth of the rubrics
//! are the bundled ones with some of their numbers set to extremes (a
//! decimal's range, the rubric's bound) instead.
//!
//! The oracle: no panic, no abort, within the time limit, and the same text
//! loaded and graded twice gives the same diagnostics or the same grades.

use bareme::unstable::score::Rubric;
use rand::seq::IndexedRandom;
use rand::Rng as _;
use rust_decimal::Decimal;
use serde_json::Value;
use std::sync::OnceLock;

use super::expr_text::byte_mutate;
use super::mutate_toml::{book_of, mutated, pool, seeds, Pool, Seed};
use super::{tally, Config, Finding, Rng, Target};

/// The rubric target.
pub struct RubricToml;

/// One input: a mutated rubric (of seed `seed`), an expected answer and replies.
pub struct Input {
    seed: usize,
    text: String,
    expected: Value,
    replies: Vec<String>,
    explanation: Option<Decimal>,
}

struct Loaded {
    seed: Seed,
    rb: bareme::Rulebook,
    rubric: Rubric,
    /// The `expected` of tasks drawn from the bundled generator of the rulebook.
    expected: Vec<Value>,
}

/// Tasks per rulebook, drawn once.
const TASKS: u64 = 4;

fn corpus() -> &'static (Vec<Loaded>, Pool) {
    static CORPUS: OnceLock<(Vec<Loaded>, Pool)> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let generators: Vec<(String, Vec<Value>)> = seeds("generator")
            .into_iter()
            .map(|(path, _)| {
                let (g, rb) = bareme::unstable::generate::load_generator(&path, None)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let engine = bareme::unstable::generate::TaskDrawer::new(&g, &rb)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let expected = (0..TASKS)
                    .map(|i| match engine.task(1, i, None) {
                        Ok(d) => d.task.expected,
                        Err(e) => panic!("{}: {e}", path.display()),
                    })
                    .collect();
                (rb.hash().to_string(), expected)
            })
            .collect();
        let loaded: Vec<Loaded> = seeds("rubric")
            .into_iter()
            .map(|(path, text)| {
                let (rubric, rb) = bareme::unstable::score::load_rubric(&path, None)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let rel = path
                    .strip_prefix(super::super::root())
                    .unwrap_or(&path)
                    .display()
                    .to_string();
                let expected = generators
                    .iter()
                    .find(|(hash, _)| hash == rb.hash())
                    .map(|(_, e)| e.clone())
                    .unwrap_or_else(|| panic!("{rel}: no bundled generator for its rulebook"));
                let book = book_of(&rb);
                Loaded {
                    seed: Seed { rel, text, book },
                    rb,
                    rubric,
                    expected,
                }
            })
            .collect();
        let pool = pool(loaded.iter().map(|l| l.seed.text.as_str()));
        (loaded, pool)
    })
}

/// What a rubric text comes to: its diagnostics, or its grades of the
/// replies. The one place this target calls the rubric's API.
fn outcome(input: &Input, rb: &bareme::Rulebook, count: bool) -> String {
    let rubric = match bareme::unstable::score::parse_rubric("fuzz-rubric.toml", &input.text, rb) {
        Ok(r) => r,
        Err(d) => {
            if count {
                tally("refused");
            }
            return format!("refused\n{}", d.render(100, false));
        }
    };
    let reference = bareme::unstable::score::Scorer::new(rubric.clone(), false)
        .reference_reply(&input.expected);
    let mut out = String::new();
    for reply in std::iter::once(&reference).chain(&input.replies) {
        let graded =
            bareme::unstable::score::grade(&rubric, &input.expected, reply, input.explanation);
        if count {
            tally(match &graded {
                Ok(g) if g.malformed.is_some() => "malformed",
                Ok(_) => "graded",
                Err(_) => "expected refused",
            });
        }
        out.push_str(&format!("{graded:?}\n"));
    }
    out
}

/// Pieces inserted into replies.
const PIECES: &[&str] = &[
    "NaN",
    "1e999",
    "-0",
    "null",
    "[]",
    "{}",
    "\"\"",
    ",",
    "\"x\": 1, ",
    "```json\n",
    "</",
    "\u{feff}",
    "12345678901234567890",
    "0.005",
    "\"R1\"",
];

/// Numbers at and past a rubric's bounds and a decimal's range, for its
/// scores, weights and scales: grading adds and multiplies them.
const EXTREMES: &[&str] = &[
    "79228162514264337593543950335",
    "-79228162514264337593543950335",
    "1000000",
    "-1000000",
    "1000000.0000000000000000000001",
    "0.0000000000000000000000000001",
    "999999.9999999999999999999999",
];

/// The text with one to three of its quoted decimals replaced by extremes,
/// or every decimal of one line (a partial's weights, added up) by one.
fn with_extremes(rng: &mut Rng, text: &str) -> String {
    let decimals = |text: &str| -> Vec<(usize, usize)> {
        let quotes: Vec<usize> = text.match_indices('"').map(|(i, _)| i).collect();
        quotes
            .chunks_exact(2)
            .map(|q| (q[0] + 1, q[1]))
            .filter(|&(a, b)| {
                let s = &text[a..b];
                !s.is_empty()
                    && s.chars()
                        .all(|c| c.is_ascii_digit() || c == '.' || c == '-')
            })
            .collect()
    };
    let mut text = text.to_string();
    if rng.random_bool(0.5) {
        let lines: Vec<&str> = text.lines().filter(|l| decimals(l).len() > 1).collect();
        let (Some(line), Some(x)) = (lines.choose(rng), EXTREMES.choose(rng)) else {
            return text;
        };
        let mut new = line.to_string();
        for (a, b) in decimals(line).into_iter().rev() {
            new.replace_range(a..b, x);
        }
        return text.replacen(line, &new, 1);
    }
    for _ in 0..rng.random_range(1..=3) {
        let (Some(&(a, b)), Some(x)) = (decimals(&text).choose(rng), EXTREMES.choose(rng)) else {
            break;
        };
        text.replace_range(a..b, x);
    }
    text
}

fn damaged(rng: &mut Rng, reply: &str) -> String {
    let mut reply = reply.to_string();
    for _ in 0..rng.random_range(1..=3) {
        reply = match rng.random_range(0..3) {
            0 => byte_mutate(rng, &reply),
            1 => {
                let at = super::expr_text::floor_char(&reply, rng.random_range(0..=reply.len()));
                let piece = PIECES.choose(rng).copied().unwrap_or("");
                format!("{}{piece}{}", &reply[..at], &reply[at..])
            }
            _ => super::rulebook_toml::cut(rng, &reply),
        };
    }
    reply
}

impl Target for RubricToml {
    type Input = Input;
    const NAME: &'static str = "rubric_toml";
    const SHORT_COUNT: u64 = 120;

    fn draw(&self, rng: &mut Rng, _i: u64) -> Input {
        let (loaded, pool) = corpus();
        let seed = rng.random_range(0..loaded.len());
        let l = &loaded[seed];
        // Mutations mostly make a rubric that is refused: extremes are set
        // in the bundled text, so that they reach grading.
        let text = if rng.random_bool(0.2) {
            with_extremes(rng, &l.seed.text)
        } else {
            mutated(rng, &l.seed, pool)
        };
        let expected = l.expected.choose(rng).cloned().unwrap_or(Value::Null);
        let reference = bareme::unstable::score::Scorer::new(l.rubric.clone(), false)
            .reference_reply(&expected);
        let replies = (0..rng.random_range(1..=3))
            .map(|_| damaged(rng, &reference))
            .collect();
        let explanation = match rng.random_range(0..4) {
            0 => Some(Decimal::new(5, 1)),
            1 => Some(Decimal::ONE),
            _ => None,
        };
        Input {
            seed,
            text,
            expected,
            replies,
            explanation,
        }
    }

    fn bytes(&self, input: &Input) -> Vec<u8> {
        input.text.as_bytes().to_vec()
    }

    fn extra_files(&self, input: &Input) -> Vec<(String, Vec<u8>)> {
        let replies: String = input
            .replies
            .iter()
            .map(|r| Value::String(r.clone()).to_string() + "\n")
            .collect();
        let about = format!(
            "mutated from {}; explanation grade {:?}\n",
            corpus().0[input.seed].seed.rel,
            input.explanation
        );
        vec![
            (
                "expected.json".into(),
                (input.expected.to_string() + "\n").into_bytes(),
            ),
            ("replies.jsonl".into(), replies.into_bytes()),
            ("about.txt".into(), about.into_bytes()),
        ]
    }

    fn check(&self, input: &Input) -> Result<(), Finding> {
        let rb = &corpus().0[input.seed].rb;
        let first = outcome(input, rb, true);
        let second = outcome(input, rb, false);
        if first != second {
            return Err(Finding::new(
                "nondeterministic: rubric",
                format!("the same rubric twice gives:\n{first}\n---\n{second}"),
            ));
        }
        Ok(())
    }
}

impl RubricToml {
    /// The target for a run.
    pub fn new(_cfg: Config) -> RubricToml {
        RubricToml
    }
}
