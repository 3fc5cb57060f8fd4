//! The case target: the bundled cases, mutated as JSON values and written
//! out as text with the odd corners JSON allows (and some it does not).
//!
//! Value mutations: a type swapped; a number perturbed (exponents, over-long
//! integers, `-0`, huge scale, odd strings of digits); a key deleted, added
//! or renamed (BOM, bidi, confusables); deep nesting; long lists; unicode in
//! strings (BOM, lone surrogates in escapes, control characters, bidi); a
//! subtree from another case spliced in. Text mutations: a key duplicated,
//! escapes and raw control characters, a BOM before the text, truncation.
//! Text that `serde_json` reads is evaluated on the case's rulebook (now and
//! then on another one), untraced and traced, twice each.

use super::corpus::{Book, BOOKS};
use super::{check_evaluation, Config, Finding, Rng, Target};
use rand::seq::IndexedRandom;
use rand::Rng as _;
use serde_json::Value;

/// The case target.
pub struct CaseText {
    cfg: Config,
}

/// One input: a case as text and the rulebook it is evaluated on.
pub struct Input {
    text: String,
    book: usize,
}

impl CaseText {
    /// The target for a run.
    pub fn new(cfg: Config) -> CaseText {
        CaseText { cfg }
    }
}

impl Target for CaseText {
    type Input = Input;
    const NAME: &'static str = "case_json";
    const SHORT_COUNT: u64 = 1_500;

    fn draw(&self, rng: &mut Rng, _i: u64) -> Input {
        let home = rng.random_range(0..BOOKS.len());
        let text = mutated_case(rng, &BOOKS[home], &self.cfg);
        let book = if rng.random_bool(0.15) {
            rng.random_range(0..BOOKS.len())
        } else {
            home
        };
        Input { text, book }
    }

    fn bytes(&self, input: &Input) -> Vec<u8> {
        input.text.as_bytes().to_vec()
    }

    fn extra_files(&self, input: &Input) -> Vec<(String, Vec<u8>)> {
        let dir = BOOKS[input.book].dir.display().to_string() + "\n";
        vec![("rulebook.txt".into(), dir.into_bytes())]
    }

    fn check(&self, input: &Input) -> Result<(), Finding> {
        check_text(&input.text, &BOOKS[input.book].rb, self.cfg.long())
    }

    fn reduce(&self, input: &Input, signature: &str) -> Option<Vec<u8>> {
        let chars: Vec<char> = input.text.chars().collect();
        let rb = &BOOKS[input.book].rb;
        let small = super::shrink(
            chars,
            |c| {
                let text: String = c.iter().collect();
                super::fails_with(signature, || check_text(&text, rb, self.cfg.long()))
            },
            3_000,
        );
        Some(small.into_iter().collect::<String>().into_bytes())
    }
}

fn check_text(text: &str, rb: &bareme::Rulebook, thorough: bool) -> Result<(), Finding> {
    let Ok(case) = serde_json::from_str::<Value>(text) else {
        super::tally("not JSON");
        return Ok(());
    };
    check_evaluation(rb, rb, &case, thorough)
}

// ---------------------------------------------------------------- mutation

/// A bundled case of `book`, mutated, as JSON text (which may not be JSON).
pub fn mutated_case(rng: &mut Rng, book: &Book, cfg: &Config) -> String {
    let mut case = book
        .cases
        .choose(rng)
        .cloned()
        .unwrap_or(Value::Object(Default::default()));
    let n = *[0, 1, 1, 1, 2, 2, 3, 4].choose(rng).unwrap_or(&1);
    for _ in 0..n {
        mutate_value(rng, &mut case, book, cfg);
    }
    let tweak = rng.random_bool(0.15);
    let mut text = String::new();
    let mut dups = if tweak { 3 } else { 0 };
    emit(rng, &case, tweak, &mut dups, &mut text);
    match rng.random_range(0..80) {
        0 | 1 => format!("\u{feff}{text}"),
        2 => {
            let cut = super::expr_text::floor_char(&text, rng.random_range(0..=text.len()));
            text[..cut].to_string()
        }
        3 => format!("{text} x"),
        4 => format!(" \t{text}\r"),
        5 => format!("{text}{text}"),
        _ => text,
    }
}

/// `{key: v}`, without the copy `json!` makes.
fn object(key: &str, v: Value) -> Value {
    let mut o = serde_json::Map::new();
    o.insert(key.to_string(), v);
    Value::Object(o)
}

/// The most bytes a list grown by one mutation holds.
const MAX_GROWN_BYTES: usize = 256 << 10;

enum Seg {
    Key(String),
    Index(usize),
}

/// The paths of the nodes of a value, root first, at most `limit` of them.
fn paths(v: &Value, limit: usize) -> Vec<Vec<Seg>> {
    fn walk(
        v: &Value,
        here: &mut Vec<(bool, String, usize)>,
        out: &mut Vec<Vec<Seg>>,
        limit: usize,
    ) {
        if out.len() >= limit {
            return;
        }
        out.push(
            here.iter()
                .map(|(is_key, k, i)| {
                    if *is_key {
                        Seg::Key(k.clone())
                    } else {
                        Seg::Index(*i)
                    }
                })
                .collect(),
        );
        match v {
            Value::Object(o) => {
                for (k, v) in o {
                    here.push((true, k.clone(), 0));
                    walk(v, here, out, limit);
                    here.pop();
                }
            }
            Value::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    here.push((false, String::new(), i));
                    walk(v, here, out, limit);
                    here.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut Vec::new(), &mut out, limit);
    out
}

fn node_mut<'v>(v: &'v mut Value, path: &[Seg]) -> Option<&'v mut Value> {
    let mut cur = v;
    for seg in path {
        cur = match (seg, cur) {
            (Seg::Key(k), Value::Object(o)) => o.get_mut(k)?,
            (Seg::Index(i), Value::Array(a)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// A JSON number from its text (kept as written: `arbitrary_precision`), or the text as a string.
fn number(text: &str) -> Value {
    serde_json::from_str::<serde_json::Number>(text)
        .map(Value::Number)
        .unwrap_or_else(|_| Value::String(text.to_string()))
}

/// Markers in strings that the emitter writes as escapes JSON allows but
/// UTF-8 cannot hold: lone surrogates, and a pair reversed.
const LONE_HIGH: char = '\u{e000}';
const LONE_LOW: char = '\u{e001}';
const PAIR: char = '\u{e002}';
const REVERSED_PAIR: char = '\u{e003}';

const ODD_CHARS: &[char] = &[
    '\u{feff}',
    '\u{202e}',
    '\u{202d}',
    '\u{2066}',
    '\u{200b}',
    '\u{0}',
    '\u{1}',
    '\u{1b}',
    '\u{7f}',
    '\u{85}',
    '\u{2028}',
    '\n',
    'é',
    'ｐ',
    '\u{1F600}',
    '\u{fffd}',
    LONE_HIGH,
    LONE_LOW,
    PAIR,
    REVERSED_PAIR,
];

fn odd_text(rng: &mut Rng, base: &str) -> String {
    let mut chars: Vec<char> = base.chars().collect();
    for _ in 0..rng.random_range(1..4) {
        let at = rng.random_range(0..=chars.len());
        chars.insert(at, *ODD_CHARS.choose(rng).unwrap_or(&'\u{feff}'));
    }
    chars.into_iter().collect()
}

fn odd_number(rng: &mut Rng) -> Value {
    let text = match rng.random_range(0..16) {
        0 => "1e3".to_string(),
        1 => "2.5E-7".to_string(),
        2 => "1e400".to_string(),
        3 => "-1e-400".to_string(),
        4 => "9".repeat(rng.random_range(29..400)),
        5 => "-0".to_string(),
        6 => "-0.00".to_string(),
        7 => format!("0.{}1", "0".repeat(rng.random_range(27..120))),
        8 => format!("1.{}1", "0".repeat(rng.random_range(27..60))),
        9 => "79228162514264337593543950336".to_string(),
        10 => "-79228162514264337593543950335".to_string(),
        11 => "1.5e+2".to_string(),
        12 => format!("{}", rng.random_range(-1_000_000i64..1_000_000)),
        13 => "0.5".to_string(),
        14 => "4096".to_string(),
        _ => "18446744073709551616".to_string(),
    };
    if rng.random_bool(0.4) {
        // The same digits as a string, or a string that looks like a number.
        let s = *[
            text.as_str(),
            "+5",
            " 5",
            "5 ",
            "0x10",
            ".5",
            "5.",
            "1_000",
            "NaN",
            "-Infinity",
            "١٢",
            "5\u{0}",
            "00012",
            "1,5",
            "3/8",
            "1/0",
            "-1/3",
            "99999999999999/1",
        ]
        .choose(rng)
        .unwrap_or(&"5");
        Value::String(s.to_string())
    } else {
        number(&text)
    }
}

fn mutate_value(rng: &mut Rng, case: &mut Value, book: &Book, cfg: &Config) {
    let all = paths(case, 4_000);
    let Some(path) = all.choose(rng) else {
        return;
    };
    let other = book.cases.choose(rng).cloned().unwrap_or(Value::Null);
    let splice = {
        let p = paths(&other, 4_000);
        let mut other = other;
        p.choose(rng)
            .and_then(|p| node_mut(&mut other, p).map(|v| v.take()))
            .unwrap_or(Value::Null)
    };
    let Some(node) = node_mut(case, path) else {
        return;
    };
    match rng.random_range(0..12) {
        0 => {
            // A type swap.
            *node = match (rng.random_range(0..8), &*node) {
                (0, Value::String(s)) => number(s),
                (1, Value::Number(n)) => Value::String(n.to_string()),
                (0 | 1, v) => Value::Array(vec![v.clone()]),
                (2, _) => Value::Null,
                (3, _) => Value::Bool(rng.random_bool(0.5)),
                (4, _) => Value::String(String::new()),
                (5, _) => Value::Array(Vec::new()),
                (6, _) => Value::Object(Default::default()),
                (_, v) => object("value", v.clone()),
            };
        }
        1 | 2 => *node = odd_number(rng),
        3 => {
            if let Value::Object(o) = node {
                let k = rng.random_range(0..o.len().max(1));
                if let Some(key) = o.keys().nth(k).cloned() {
                    o.shift_remove(&key);
                }
            }
        }
        4 => {
            if let Value::Object(o) = node {
                let key = match rng.random_range(0..3) {
                    0 => book.names.choose(rng).cloned().unwrap_or_default(),
                    1 => "case".into(),
                    _ => "zz_extra".into(),
                };
                o.insert(key, splice);
            }
        }
        5 => {
            if let Value::Object(o) = node {
                let k = rng.random_range(0..o.len().max(1));
                if let Some(key) = o.keys().nth(k).cloned() {
                    if let Some(v) = o.shift_remove(&key) {
                        let key = match rng.random_range(0..4) {
                            0 => key.to_uppercase(),
                            1 => format!("{key} "),
                            _ => odd_text(rng, &key),
                        };
                        o.insert(key, v);
                    }
                }
            }
        }
        6 => {
            // Deep nesting around serde_json's limit of 128.
            let k = *[8usize, 9, 64, 126, 127, 128, 129, 300]
                .choose(rng)
                .unwrap_or(&9);
            let as_object = rng.random_bool(0.5);
            let mut v = node.take();
            for _ in 0..k {
                v = if as_object {
                    object("a", v)
                } else {
                    Value::Array(vec![v])
                };
            }
            *node = v;
        }
        7 => {
            // A long list.
            let mut lengths = vec![0usize, 1, 25, 100, 1_000];
            if cfg.long() {
                lengths.extend([9_999, 10_000, 10_001]);
            }
            let items: Vec<Value> = match &*node {
                Value::Array(a) if !a.is_empty() => a.clone(),
                v => vec![v.clone()],
            };
            // A case stays under ~256 KiB, or lists of lists grow without end.
            let item_bytes = serde_json::to_string(&items).map_or(1, |s| s.len()) / items.len();
            let len =
                (*lengths.choose(rng).unwrap_or(&25)).min(MAX_GROWN_BYTES / item_bytes.max(1));
            *node = Value::Array(items.iter().cycle().take(len).cloned().collect());
        }
        8 | 9 => {
            *node = match node {
                Value::String(s) => Value::String(odd_text(rng, s)),
                _ => Value::String(odd_text(rng, "x")),
            };
        }
        10 => *node = splice,
        _ => {
            *node = Value::String("x".repeat(*[1_000usize, 70_000].choose(rng).unwrap_or(&1_000)));
        }
    }
}

// ---------------------------------------------------------------- emission

/// Writes a value as JSON text; with `tweak`, now and then a duplicated key
/// (at most `dups` of them, or nested objects double at every level), a raw
/// control character or an escaped character.
fn emit(rng: &mut Rng, v: &Value, tweak: bool, dups: &mut u32, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => emit_str(rng, s, tweak, out),
        Value::Array(a) => {
            out.push('[');
            for (i, it) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                emit(rng, it, tweak, dups, out);
            }
            out.push(']');
        }
        Value::Object(o) => {
            out.push('{');
            for (i, (k, it)) in o.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                emit_str(rng, k, tweak, out);
                out.push(':');
                emit(rng, it, tweak, dups, out);
                if *dups > 0 && rng.random_bool(0.05) {
                    *dups -= 1;
                    // The same key again, with this value or null.
                    out.push(',');
                    emit_str(rng, k, tweak, out);
                    out.push(':');
                    if rng.random_bool(0.5) {
                        out.push_str("null");
                    } else {
                        emit(rng, it, tweak, dups, out);
                    }
                }
            }
            out.push('}');
        }
    }
}

fn emit_str(rng: &mut Rng, s: &str, tweak: bool, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            LONE_HIGH => out.push_str("\\ud800"),
            LONE_LOW => out.push_str("\\udfff"),
            PAIR => out.push_str("\\ud83d\\ude00"),
            REVERSED_PAIR => out.push_str("\\ude00\\ud83d"),
            c if u32::from(c) < 0x20 => {
                if tweak && rng.random_bool(0.5) {
                    out.push(c);
                } else {
                    out.push_str(&format!("\\u{:04x}", u32::from(c)));
                }
            }
            c if tweak && u32::from(c) <= 0xffff && rng.random_bool(0.02) => {
                out.push_str(&format!("\\u{:04X}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}
