//! The expression target: typed random expressions drawn from the grammar
//! (`grammar/expr.pest`), rewrites and byte mutations of them and of the
//! bundled rulebooks' expressions.
//!
//! Each text goes to `parse_expr` (twice, the two results must agree); a
//! text that parses, and a quarter of those that do not, is also placed as a
//! step of a small rulebook declaring one input of every type and one table
//! of every kind, which is loaded twice and evaluated on a few drawn cases.

mod draw;

use super::corpus::ALL_EXPRS;
use super::{Config, Finding, Rng, Target};
use draw::generate;
use rand::seq::IndexedRandom;
use rand::Rng as _;

/// The expression target.
pub struct ExprText {
    cfg: Config,
}

/// One input: an expression text, a draw that decides whether it is placed
/// in the template, and the cases the template is evaluated on.
pub struct Input {
    text: String,
    roll: f64,
    cases: Vec<serde_json::Value>,
}

impl ExprText {
    /// The target for a run.
    pub fn new(cfg: Config) -> ExprText {
        ExprText { cfg }
    }
}

impl Target for ExprText {
    type Input = Input;
    const NAME: &'static str = "expression_text";
    const SHORT_COUNT: u64 = 1_000;

    fn draw(&self, rng: &mut Rng, _i: u64) -> Input {
        let roll = rng.random_range(0..100);
        let text = if roll < 55 {
            let mut text = generate(rng);
            if rng.random_bool(0.3) {
                text = rewrite(rng, &text, TEMPLATE_NAMES);
            }
            text
        } else if roll < 75 {
            let mut text = ALL_EXPRS.choose(rng).cloned().unwrap_or_default();
            for _ in 0..rng.random_range(1..=3) {
                text = if rng.random_bool(0.6) {
                    rewrite(rng, &text, TEMPLATE_NAMES)
                } else {
                    byte_mutate(rng, &text)
                };
            }
            text
        } else if roll < 92 {
            let mut text = generate(rng);
            for _ in 0..rng.random_range(1..=3) {
                text = byte_mutate(rng, &text);
            }
            text
        } else {
            let len = rng.random_range(0..80);
            (0..len)
                .map(|_| *GRAMMAR_CHARS.choose(rng).unwrap_or(&'x'))
                .collect()
        };
        let roll = rng.random();
        let cases = (0..3).map(|_| template_case(rng)).collect();
        Input { text, roll, cases }
    }

    fn bytes(&self, input: &Input) -> Vec<u8> {
        input.text.as_bytes().to_vec()
    }

    fn extra_files(&self, input: &Input) -> Vec<(String, Vec<u8>)> {
        let cases = input
            .cases
            .iter()
            .map(|c| c.to_string() + "\n")
            .collect::<String>();
        vec![
            ("rulebook.toml".into(), template(&input.text).into_bytes()),
            ("cases.jsonl".into(), cases.into_bytes()),
        ]
    }

    fn check(&self, input: &Input) -> Result<(), Finding> {
        check_text(&input.text, input.roll, &input.cases, self.cfg.long())
    }

    fn reduce(&self, input: &Input, signature: &str) -> Option<Vec<u8>> {
        let chars: Vec<char> = input.text.chars().collect();
        let small = super::shrink(
            chars,
            |c| {
                let text: String = c.iter().collect();
                super::fails_with(signature, || {
                    check_text(&text, input.roll, &input.cases, self.cfg.long())
                })
            },
            2_000,
        );
        Some(small.into_iter().collect::<String>().into_bytes())
    }
}

/// Loading the template costs ~10 ms in a debug build, so the short mode
/// places a share of the texts only; the long mode places every text that
/// parses and a quarter of the others.
fn check_text(
    text: &str,
    roll: f64,
    cases: &[serde_json::Value],
    thorough: bool,
) -> Result<(), Finding> {
    let first = format!("{:?}", bareme::unstable::expr::parse_expr(text));
    let second = format!("{:?}", bareme::unstable::expr::parse_expr(text));
    if first != second {
        return Err(Finding::new(
            "nondeterministic: parse_expr",
            format!("two parses differ:\n{first}\n{second}"),
        ));
    }
    let parses = first.starts_with("Ok");
    super::tally(if parses { "parsed" } else { "parse errors" });
    let share = match (thorough, parses) {
        (true, true) => 1.0,
        (true, false) => 0.25,
        (false, true) => 0.3,
        (false, false) => 0.03,
    };
    if roll >= share {
        return Ok(());
    }
    super::check_load(&template(text), cases, thorough)
}

// ---------------------------------------------------------------- the template

/// The names the template declares, for rewrites.
const TEMPLATE_NAMES: &[&str] = &[
    "x", "y", "n", "f", "b", "t", "e", "d", "d2", "m", "xs", "bs", "ds", "people", "prices", "rec",
    "p", "cap", "sched", "bykey", "bands", "ages", "pi",
];

const TEMPLATE: &str = r#"[rulebook]
id = "fuzz"
version = 1
schema = 1

[inputs.x]
type = "decimal"

[inputs.y]
type = "decimal"
nullable = true

[inputs.n]
type = "integer"

[inputs.f]
type = "fraction"

[inputs.b]
type = "bool"
nullable = true

[inputs.t]
type = "text"

[inputs.e]
type = "enum"
values = ["a", "b", "c"]

[inputs.d]
type = "date"

[inputs.d2]
type = "date"

[inputs.m]
type = "month"

[inputs.xs]
type = "list"
items = { type = "decimal" }

[inputs.bs]
type = "list"
items = { type = "bool" }

[inputs.ds]
type = "list"
items = { type = "date" }

[inputs.people]
type = "list"

[inputs.people.items]
type = "record"

[inputs.people.items.fields.name]
type = "text"

[inputs.people.items.fields.age]
type = "integer"

[inputs.people.items.fields.amount]
type = "money"

[inputs.prices]
type = "map"
items = { type = "money" }

[inputs.rec]
type = "record"

[inputs.rec.fields.a]
type = "decimal"

[inputs.rec.fields.when]
type = "date"

[parameters.p]
value = "0.05"

[parameters.cap]
value = "1000.00"

[tables.sched]
kind = "periods"
columns = { rate = { type = "decimal" } }
rows = [
  { name = "early", from = "2026-01", to = "2026-06", rate = "0.05" },
  { name = "late", from = "2026-07", rate = "0.04" },
]

[tables.bykey]
kind = "keyed"
keys = ["k"]
columns = { k = { type = "text" }, amount = { type = "money" } }
rows = [{ k = "a", amount = "150.00" }, { k = "b", amount = "0.01" }]

[tables.bands]
kind = "scale"
rows = [{ upto = 100, rate = "0" }, { upto = 1000, rate = "0.1" }, { rate = "0.45" }]

[tables.ages]
kind = "ranges"
columns = { share = { type = "decimal" } }
rows = [{ upto = 20, share = "0.90" }, { upto = 60, share = "0.5" }, { share = "0.10" }]

[per_item.pi]
over = "people"
item = "pp"

[per_item.pi.steps.double]
expr = "pp.amount * 2"

[steps.s]
expr = "EXPR"

[[checks]]
decision = "d"

[decisions.d.answer]
v = { expr = "s" }
"#;

/// The template with `text` as the expression of step `s`.
pub fn template(text: &str) -> String {
    TEMPLATE.replacen("EXPR", &toml_escape(text), 1)
}

/// `text` as the inside of a TOML basic string.
pub fn toml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\t' => out.push('\t'),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

/// A case for the template: each input drawn from ordinary and edge values, or left out.
fn template_case(rng: &mut Rng) -> serde_json::Value {
    use serde_json::json;
    let mut case = serde_json::Map::new();
    let num = |rng: &mut Rng| -> serde_json::Value {
        let s = *[
            "0",
            "1",
            "-1",
            "2.5",
            "-7.25",
            "0.1",
            "1000",
            "0.0000000000000000000000000001",
            "79228162514264337593543950335",
            "-79228162514264337593543950335",
            "12345678901234567890.12345678",
            "4096",
            "-4096",
            "0.5",
            "3",
        ]
        .choose(rng)
        .unwrap_or(&"1");
        if rng.random_bool(0.2) {
            serde_json::from_str(s).unwrap_or(json!(0))
        } else {
            json!(s)
        }
    };
    let int = |rng: &mut Rng| {
        *[
            0i64,
            1,
            -1,
            2,
            12,
            4096,
            -4096,
            1_000_000,
            1_000_001,
            2_147_483_647,
        ]
        .choose(rng)
        .unwrap_or(&0)
    };
    let date = |rng: &mut Rng| -> String {
        // 0000 is outside the calendar (refused); 9999 is its last year.
        let years = ["2026", "2024", "1970", "2000", "0001", "0000", "9999"];
        let y = years.choose(rng).unwrap_or(&"2026");
        let mut md = *["01-01", "02-28", "02-29", "12-31", "03-14", "01-31"]
            .choose(rng)
            .unwrap_or(&"01-01");
        // A 29 February outside a leap year rejects the case: now and then only.
        if md == "02-29" && *y != "2024" && rng.random_bool(0.9) {
            md = "02-28";
        }
        format!("{y}-{md}")
    };
    let present = |rng: &mut Rng| rng.random_bool(0.8);
    if present(rng) {
        case.insert("x".into(), num(rng));
    }
    if present(rng) {
        case.insert("y".into(), num(rng));
    }
    if present(rng) {
        case.insert("n".into(), json!(int(rng)));
    }
    if present(rng) {
        let f = [
            "1/3",
            "3/8",
            "0.25",
            "1",
            "999999999999/1000000000000",
            "0/5",
        ]
        .choose(rng)
        .unwrap_or(&"1/3");
        case.insert("f".into(), json!(f));
    }
    if present(rng) {
        case.insert("b".into(), json!(rng.random_bool(0.5)));
    }
    if present(rng) {
        let t = ["a", "", "b", "ÿ\u{202e}x", "'quoted'"]
            .choose(rng)
            .unwrap_or(&"a");
        case.insert("t".into(), json!(t));
    }
    if present(rng) {
        case.insert("e".into(), json!(["a", "b", "c"].choose(rng)));
    }
    if present(rng) {
        case.insert("d".into(), json!(date(rng)));
    }
    if present(rng) {
        case.insert("d2".into(), json!(date(rng)));
    }
    if present(rng) {
        let d = date(rng);
        case.insert("m".into(), json!(d[..7]));
    }
    if present(rng) {
        let xs: Vec<serde_json::Value> = (0..rng.random_range(0..6)).map(|_| num(rng)).collect();
        case.insert("xs".into(), json!(xs));
    }
    if present(rng) {
        let bs: Vec<bool> = (0..rng.random_range(0..5))
            .map(|_| rng.random_bool(0.5))
            .collect();
        case.insert("bs".into(), json!(bs));
    }
    if present(rng) {
        let ds: Vec<String> = (0..rng.random_range(0..4)).map(|_| date(rng)).collect();
        case.insert("ds".into(), json!(ds));
    }
    if present(rng) {
        let people: Vec<serde_json::Value> = (0..rng.random_range(0..4))
            .map(|k| json!({"name": format!("P{k}"), "age": int(rng).rem_euclid(120), "amount": format!("{}.{:02}", rng.random_range(0..5000), rng.random_range(0..100))}))
            .collect();
        case.insert("people".into(), json!(people));
    }
    if present(rng) {
        case.insert("prices".into(), json!({"a": "1.00", "b": "2.50"}));
    }
    if present(rng) {
        case.insert("rec".into(), json!({"a": num(rng), "when": date(rng)}));
    }
    serde_json::Value::Object(case)
}

// ---------------------------------------------------------------- rewrites

/// Characters the byte mutator and the random texts draw from.
const GRAMMAR_CHARS: &[char] = &[
    '+',
    '-',
    '*',
    '/',
    '(',
    ')',
    '<',
    '>',
    '=',
    '!',
    '[',
    ']',
    '{',
    '}',
    ',',
    '.',
    '\'',
    '"',
    ' ',
    '0',
    '1',
    '9',
    'a',
    'x',
    '_',
    'e',
    '\n',
    '\t',
    '\0',
    '\u{feff}',
    '\u{202e}',
    'é',
    '€',
    '\u{1F600}',
    '\u{7f}',
    '\\',
];

const OPERATORS: [&str; 12] = [
    "+", "-", "*", "/", "<", "<=", ">", ">=", "==", "!=", " and ", " or ",
];

const OPERATOR_KINDS: [&[&str]; 3] = [
    &["+", "-", "*", "/"],
    &["<", "<=", ">", ">=", "==", "!="],
    &[" and ", " or "],
];

/// Rewrites an expression: an operator swapped, deep nesting, a long `+`
/// chain, an unknown or another name, a huge literal.
pub fn rewrite(rng: &mut Rng, text: &str, names: &[&str]) -> String {
    let mut out = rewrite_once(rng, text, names);
    // Rewrites compound (a chain of chains of chains): keep a text a few
    // times over the 4096-byte limit at most.
    if out.len() > MAX_TEXT {
        let cut = floor_char(&out, MAX_TEXT);
        out.truncate(cut);
    }
    out
}

/// The longest text a rewrite gives.
const MAX_TEXT: usize = 16 << 10;

fn rewrite_once(rng: &mut Rng, text: &str, names: &[&str]) -> String {
    match rng.random_range(0..8) {
        0 => {
            // Swap one operator for another, mostly of its own kind.
            let spots: Vec<(usize, &str)> = OPERATORS
                .iter()
                .flat_map(|op| text.match_indices(op).collect::<Vec<_>>())
                .collect();
            match spots.choose(rng) {
                Some((at, op)) => {
                    let kind = OPERATOR_KINDS
                        .iter()
                        .find(|k| k.contains(op))
                        .filter(|_| rng.random_bool(0.7))
                        .copied()
                        .unwrap_or(&OPERATORS);
                    let new = kind.choose(rng).unwrap_or(&"+");
                    format!("{}{new}{}", &text[..*at], &text[at + op.len()..])
                }
                None => format!("{text} {} 1", OPERATORS.choose(rng).unwrap_or(&"+")),
            }
        }
        1 => {
            // Deep nesting, around the limits (64 brackets, 256 levels).
            let k = *[10usize, 63, 64, 65, 100, 255, 256, 257, 300]
                .choose(rng)
                .unwrap_or(&64);
            match rng.random_range(0..5) {
                0 => format!("{}{text}{}", "(".repeat(k), ")".repeat(k)),
                1 => format!("{}{text}", "-".repeat(k)),
                2 => format!("{}{text}", "not ".repeat(k)),
                3 => format!("{}{text}{}", "abs(".repeat(k), ")".repeat(k)),
                _ => {
                    let mut s = text.to_string();
                    for _ in 0..k.min(80) {
                        s = format!("if true then ({s}) else 0");
                    }
                    s
                }
            }
        }
        2 => {
            // A long `+` chain.
            let k = *[50usize, 255, 256, 257, 500, 1000]
                .choose(rng)
                .unwrap_or(&256);
            let term = if rng.random_bool(0.5) {
                format!("({text})")
            } else {
                names.choose(rng).unwrap_or(&"x").to_string()
            };
            vec![term; k].join(" + ")
        }
        3 | 4 => {
            // A name replaced by an unknown one or by another declared name.
            let idents = identifiers(text);
            let new = match rng.random_range(0..4) {
                0 => "zz_unknown".to_string(),
                1 => format!("{}_", names.choose(rng).unwrap_or(&"x")),
                2 => "a".repeat(rng.random_range(1..300)),
                _ => names.choose(rng).unwrap_or(&"x").to_string(),
            };
            match idents.choose(rng) {
                Some((at, len)) => format!("{}{new}{}", &text[..*at], &text[at + len..]),
                None => format!("{text} + {new}"),
            }
        }
        5 => {
            // A literal made huge, tiny or long.
            let lit = match rng.random_range(0..5) {
                0 => "9".repeat(rng.random_range(29..200)),
                1 => format!("0.{}1", "0".repeat(rng.random_range(26..100))),
                2 => format!("{}.{}", "1".repeat(15), "3".repeat(20)),
                3 => "79228162514264337593543950336".into(),
                _ => "1".repeat(rng.random_range(1000..4200)),
            };
            let digits: Vec<usize> = text
                .char_indices()
                .filter(|(_, c)| c.is_ascii_digit())
                .map(|(i, _)| i)
                .collect();
            match digits.choose(rng) {
                Some(&at) => {
                    let end = text[at..]
                        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                        .map_or(text.len(), |n| at + n);
                    format!("{}{lit}{}", &text[..at], &text[end..])
                }
                None => format!("{text} * {lit}"),
            }
        }
        6 => {
            // A function applied to it, known or not.
            let f = *[
                "round", "pow", "sum", "count", "nope", "date", "month", "abs", "min", "get",
            ]
            .choose(rng)
            .unwrap_or(&"abs");
            format!("{f}({text})")
        }
        _ => {
            // The text doubled around an operator, or cut.
            if rng.random_bool(0.5) {
                let op = OPERATORS.choose(rng).unwrap_or(&"+");
                format!("({text}){op}({text})")
            } else {
                let cut = floor_char(text, rng.random_range(0..=text.len()));
                text[..cut].to_string()
            }
        }
    }
}

/// Byte-level damage on a text, kept as valid UTF-8 (the parser takes `&str`).
pub fn byte_mutate(rng: &mut Rng, text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let pos = |rng: &mut Rng, len: usize| rng.random_range(0..=len);
    match rng.random_range(0..6) {
        0 if !chars.is_empty() => {
            let i = rng.random_range(0..chars.len());
            chars.remove(i);
        }
        1 => {
            let i = pos(rng, chars.len());
            chars.insert(i, *GRAMMAR_CHARS.choose(rng).unwrap_or(&'x'));
        }
        2 if !chars.is_empty() => {
            let i = rng.random_range(0..chars.len());
            chars[i] = *GRAMMAR_CHARS.choose(rng).unwrap_or(&'x');
        }
        3 if !chars.is_empty() => {
            let a = rng.random_range(0..chars.len());
            let b = (a + rng.random_range(1..20)).min(chars.len());
            let span: Vec<char> = chars[a..b].to_vec();
            let i = pos(rng, chars.len());
            chars.splice(i..i, span);
        }
        4 => {
            let word = [
                " if ", " then ", " else ", " for ", " in ", " match ", " not ", "=>", " true ",
                "'", "\"", "..", "()",
            ]
            .choose(rng)
            .unwrap_or(&" ");
            let i = pos(rng, chars.len());
            chars.splice(i..i, word.chars());
        }
        _ => {
            let i = pos(rng, chars.len());
            chars.truncate(i);
        }
    }
    chars.into_iter().collect()
}

/// Byte offsets and lengths of the identifiers of a text (outside quotes, roughly).
fn identifiers(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut quote = None;
    while i < bytes.len() {
        let c = bytes[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == b'\'' || c == b'"' => quote = Some(c),
            None if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                out.push((start, i - start));
                continue;
            }
            None => {}
        }
        i += 1;
    }
    out
}

/// The largest char boundary at or before `at`.
pub fn floor_char(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}
