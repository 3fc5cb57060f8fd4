//! The reply target: replies graded under every bundled rubric, drawn as
//! reference replies of fixed answers, then damaged: byte mutations, keys
//! duplicated or dropped, tags and fences added or doubled, values replaced
//! by NaN, huge exponents, long integers, French amounts, lists, null.
//!
//! The oracle: no panic; a score between the rubric's floor and its
//! maximum; the same reply graded twice gives the same score and parts.

use bareme::unstable::score::{grade, load_rubric, Rubric};
use rand::seq::IndexedRandom;
use rand::Rng as _;
use rust_decimal::Decimal;
use serde_json::{json, Value};
use std::sync::OnceLock;

use super::{Config, Finding, Rng, Target};

/// The reply target.
pub struct ReplyText;

/// One input: a rubric (by index), the reference answer and the reply text.
pub struct Input {
    book: usize,
    reply: String,
}

struct Book {
    rubric: Rubric,
    expected: Vec<Value>,
}

fn books() -> &'static [Book] {
    static BOOKS: OnceLock<Vec<Book>> = OnceLock::new();
    BOOKS.get_or_init(|| {
        let load = |rel: &str| {
            load_rubric(&super::super::root().join(rel), None)
                .unwrap_or_else(|e| panic!("{rel}: {e}"))
                .0
        };
        vec![
            Book {
                rubric: load("rulebooks/luma-payroll/rubric-8.toml"),
                expected: vec![
                    json!({"decision": "calculate", "currency": "LCR", "gross_pay": "3084.04", "employee_contribution": "123.36", "allowed_deduction": "131.70", "taxable_pay": "2828.98", "income_tax": "138.32", "net_pay": "2690.66", "clauses": ["R1", "R2", "R3", "R4", "R5", "R6"]}),
                    json!({"decision": "clarify", "reason_code": "MISSING_GROSS_PAY", "clauses": ["R1", "R7"]}),
                    json!({"decision": "retrieve", "field": "contribution_rate", "value": "0.040", "clauses": ["R1", "R3"]}),
                ],
            },
            Book {
                rubric: load("rulebooks/paie-fr/rubric-1.toml"),
                expected: vec![json!({"brut": "3834.91", "total_cotisations_salariales": "799.21", "net_imposable": "3144.97", "prelevement_source": "91.20", "net_a_payer": "2944.50", "cout_employeur": "5345.70"})],
            },
            Book {
                rubric: load("rulebooks/succession-fr/rubric-1.toml"),
                expected: vec![json!({"beneficiaires": {"B1": {"part_taxable": 0, "droits": 0}, "B2": {"part_taxable": 149270, "droits": 28048}}, "total_droits": 28048})],
            },
            Book {
                rubric: load("rulebooks/sales-tax/rubric-1.toml"),
                expected: vec![json!({"cart_id": "C1", "lines": [{"id": "L1", "jurisdiction": "STATE_B", "net": "59.97", "tax": "3.15", "total": "63.12"}], "subtotal": "59.97", "tax": "3.15", "total": "63.12"})],
            },
        ]
    })
}

const PIECES: &[&str] = &[
    "NaN",
    "Infinity",
    "-Infinity",
    "1e999999999",
    "1e-7",
    "12345678901234567890",
    "null",
    "true",
    "[]",
    "{}",
    "\"1 234,56 €\"",
    "\"1\u{a0}234,56\"",
    "\"1\u{202f}234\"",
    "\"41,169\"",
    "```json\n",
    "\n```",
    "<bulletin>",
    "</bulletin>",
    "<droits>",
    "</droits>",
    "<BULLETIN>",
    "\u{feff}",
    "\"\\ud800\"",
    "\"a\": 1, ",
    ",",
    ":",
    "\"",
    "\\",
    "0.000",
    "-0",
    "5e3",
    "358269e-2",
    "\"R1\"",
    "\"R9\"",
];

impl Target for ReplyText {
    type Input = Input;
    const NAME: &'static str = "reply_text";
    const SHORT_COUNT: u64 = 3_000;

    fn draw(&self, rng: &mut Rng, _i: u64) -> Input {
        let book = rng.random_range(0..books().len());
        let b = &books()[book];
        let expected = b.expected.choose(rng).cloned().unwrap_or(Value::Null);
        let mut reply = expected.to_string();
        if let Some(tag) = &b.rubric.envelope.tag {
            if rng.random_bool(0.8) {
                reply = format!("<{0}>{reply}</{0}>", tag.name);
            }
        }
        for _ in 0..rng.random_range(0..4) {
            let mut chars: Vec<char> = reply.chars().collect();
            let at = rng.random_range(0..=chars.len());
            match rng.random_range(0..5) {
                0 if !chars.is_empty() => {
                    let i = rng.random_range(0..chars.len());
                    chars.remove(i);
                }
                1 => {
                    let piece = PIECES.choose(rng).copied().unwrap_or("");
                    chars.splice(at..at, piece.chars());
                }
                2 if !chars.is_empty() => {
                    // Repeat a slice: duplicate keys, doubled tags.
                    let a = rng.random_range(0..chars.len());
                    let z = (a + rng.random_range(1..40)).min(chars.len());
                    let span: Vec<char> = chars[a..z].to_vec();
                    chars.splice(at..at, span);
                }
                3 => {
                    let n = rng.random_range(0..3000);
                    let c = ['[', '{', '9', ' ', '"']
                        .choose(rng)
                        .copied()
                        .unwrap_or(' ');
                    chars.splice(at..at, std::iter::repeat_n(c, n));
                }
                _ => {
                    let c = char::from_u32(rng.random_range(0..0x3000)).unwrap_or('x');
                    chars.insert(at, c);
                }
            }
            reply = chars.into_iter().collect();
        }
        Input { book, reply }
    }

    fn bytes(&self, input: &Input) -> Vec<u8> {
        input.reply.as_bytes().to_vec()
    }

    fn check(&self, input: &Input) -> Result<(), Finding> {
        let b = &books()[input.book];
        let floor = [
            b.rubric.score.malformed,
            b.rubric.score.wrong_decision,
            b.rubric.score.wrong,
        ]
        .into_iter()
        .min()
        .unwrap_or(Decimal::ZERO);
        for expected in &b.expected {
            let g = grade(&b.rubric, expected, &input.reply, None)
                .map_err(|e| Finding::new("expected", e.to_string()))?;
            super::tally(if g.malformed.is_some() {
                "malformed"
            } else {
                "graded"
            });
            if g.score < floor || g.score > b.rubric.max() {
                return Err(Finding::new(
                    "range",
                    format!(
                        "{} scored {}, outside [{floor}, {}]",
                        b.rubric.name,
                        g.score,
                        b.rubric.max()
                    ),
                ));
            }
            let again = grade(&b.rubric, expected, &input.reply, None)
                .map_err(|e| Finding::new("expected", e.to_string()))?;
            if again != g {
                return Err(Finding::new("determinism", "two gradings differ"));
            }
        }
        Ok(())
    }
}

impl ReplyText {
    /// The target for a run.
    pub fn new(_cfg: Config) -> ReplyText {
        ReplyText
    }
}
