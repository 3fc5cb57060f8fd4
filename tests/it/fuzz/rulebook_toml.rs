//! The rulebook target: the bundled `rulebook.toml` files, mutated line by
//! line and value by value.
//!
//! Mutations: a line deleted, duplicated or swapped with another; a value
//! perturbed (numbers huge, negative, zero or over-long; strings emptied or
//! long; dates at year 0000 or 9999; arrays emptied or grown); an expression
//! rewritten (operator swapped, deep nesting, long `+` chain, unknown name,
//! huge literal); a key renamed; table rows or `[[…]]` blocks multiplied; a
//! chain of steps appended; bytes cut or inserted. The text is loaded twice;
//! diagnostics are rendered and must agree; an accepted rulebook is evaluated
//! on a few of its bundled cases.

use super::corpus::{Book, BOOKS};
use super::expr_text::{byte_mutate, floor_char, rewrite};
use super::{Config, Finding, Rng, Target};
use rand::seq::IndexedRandom;
use rand::Rng as _;

/// The rulebook target.
pub struct RulebookToml {
    cfg: Config,
}

/// One input: a rulebook text and the cases it is evaluated on if it loads.
pub struct Input {
    text: String,
    cases: Vec<serde_json::Value>,
}

impl RulebookToml {
    /// The target for a run.
    pub fn new(cfg: Config) -> RulebookToml {
        RulebookToml { cfg }
    }
}

impl Target for RulebookToml {
    type Input = Input;
    const NAME: &'static str = "rulebook_toml";
    const SHORT_COUNT: u64 = 100;

    fn draw(&self, rng: &mut Rng, _i: u64) -> Input {
        let book = BOOKS.choose(rng).expect("a bundled rulebook");
        let mut lines: Vec<String> = book.text.lines().map(str::to_string).collect();
        let n = *[1, 1, 1, 1, 2, 2, 3].choose(rng).unwrap_or(&1);
        for _ in 0..n {
            mutate(rng, &mut lines, book, &self.cfg);
        }
        let mut text = lines.join("\n");
        text.push('\n');
        let cases = (0..rng.random_range(1..=3))
            .filter_map(|_| book.cases.choose(rng).cloned())
            .collect();
        Input { text, cases }
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
        vec![("cases.jsonl".into(), cases.into_bytes())]
    }

    fn check(&self, input: &Input) -> Result<(), Finding> {
        super::check_load(&input.text, &input.cases, self.cfg.long())
    }

    fn reduce(&self, input: &Input, signature: &str) -> Option<Vec<u8>> {
        let lines: Vec<&str> = input.text.lines().collect();
        let small = super::shrink(
            lines,
            |l| {
                let text = l.join("\n");
                super::fails_with(signature, || {
                    super::check_load(&text, &input.cases, self.cfg.long())
                })
            },
            // A load costs ~80 ms in a debug build: shrink less in the short mode.
            if self.cfg.long() { 3_000 } else { 300 },
        );
        Some((small.join("\n") + "\n").into_bytes())
    }
}

/// Keys of the format, for renames.
const KEYS: &[&str] = &[
    "type",
    "expr",
    "when",
    "round",
    "format",
    "required",
    "nullable",
    "min",
    "max",
    "values",
    "items",
    "fields",
    "kind",
    "keys",
    "columns",
    "rows",
    "over",
    "item",
    "steps",
    "clauses",
    "default",
    "decision",
    "reject",
    "message",
    "value",
    "from",
    "to",
    "upto",
    "rate",
    "label",
    "places",
    "mode",
    "each",
    "reason",
    "numbers",
    "max_items",
    "table",
    "otherwise",
    "at",
];

fn mutate(rng: &mut Rng, lines: &mut Vec<String>, book: &Book, cfg: &Config) {
    if lines.is_empty() {
        lines.push("[rulebook]".into());
        return;
    }
    let i = rng.random_range(0..lines.len());
    // Weighted towards the mutations that leave a rulebook loadable, so that
    // many inputs reach evaluation.
    match rng.random_range(0..20) {
        0 | 1 => {
            lines.remove(i);
        }
        2 => {
            let copy = lines[i].clone();
            lines.insert(i, copy);
        }
        3 => {
            let j = rng.random_range(0..lines.len());
            lines.swap(i, j);
        }
        4..=9 => perturb_value(rng, lines),
        10..=14 => rewrite_expression(rng, lines, book),
        15 => rename_key(rng, lines, book),
        16 | 17 => multiply_rows(rng, lines),
        18 => chain_steps(rng, lines, cfg),
        _ => {
            if rng.random_bool(0.5) {
                let line = &lines[i];
                lines[i] = byte_mutate(rng, line);
            } else {
                let text = lines.join("\n");
                *lines = cut(rng, &text).lines().map(str::to_string).collect();
            }
        }
    }
}

/// Index of a random line satisfying `pred`.
pub(super) fn pick_line(
    rng: &mut Rng,
    lines: &[String],
    pred: impl Fn(&str) -> bool,
) -> Option<usize> {
    let found: Vec<usize> = (0..lines.len()).filter(|&i| pred(&lines[i])).collect();
    found.choose(rng).copied()
}

/// A value on a `key = value` line made huge, negative, zero, over-long,
/// empty, long, a date at the edge of the calendar, or an array emptied or grown.
pub(super) fn perturb_value(rng: &mut Rng, lines: &mut [String]) {
    let Some(i) = pick_line(rng, lines, |l| {
        !l.trim_start().starts_with('#') && l.contains('=') && !l.trim_start().starts_with('[')
    }) else {
        return;
    };
    let line = lines[i].clone();
    let eq = line.find('=').unwrap_or(0) + 1;
    let (key, value) = line.split_at(eq);
    let new = match rng.random_range(0..5) {
        0 => perturb_number(rng, value),
        1 => perturb_date(rng, value),
        2 => perturb_string(rng, value),
        3 => perturb_array(rng, value),
        _ => {
            let v = *[
                " \"\"",
                " 0",
                " -1",
                " true",
                " []",
                " {}",
                " \"9999999999999999999999999999999\"",
                " 1.5",
                " 1e400",
                " \"-0.00\"",
                " 99999999999999999999",
                " 1979-05-27",
            ]
            .choose(rng)
            .unwrap_or(&" 0");
            v.to_string()
        }
    };
    lines[i] = format!("{key}{new}");
}

fn perturb_number(rng: &mut Rng, value: &str) -> String {
    let digits: Vec<usize> = value
        .char_indices()
        .filter(|(_, c)| c.is_ascii_digit())
        .map(|(i, _)| i)
        .collect();
    let Some(&at) = digits.choose(rng) else {
        return value.to_string();
    };
    let mut start = at;
    while start > 0 && value.as_bytes()[start - 1].is_ascii_digit() {
        start -= 1;
    }
    let end = value[at..]
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map_or(value.len(), |n| at + n);
    let old = &value[start..end];
    let new = match rng.random_range(0..8) {
        0 => "9".repeat(rng.random_range(20..60)),
        1 => format!("-{old}"),
        2 => "0".to_string(),
        3 => format!("{old}.{}", "3".repeat(rng.random_range(20..60))),
        4 => format!("0.{}1", "0".repeat(rng.random_range(25..40))),
        5 => "79228162514264337593543950336".into(),
        6 => format!("{old}e9"),
        _ => format!("{old}{old}"),
    };
    format!("{}{new}{}", &value[..start], &value[end..])
}

fn perturb_date(rng: &mut Rng, value: &str) -> String {
    // A YYYY-MM (or YYYY-MM-DD) in the value, if there is one.
    let b = value.as_bytes();
    let spot = (0..b.len().saturating_sub(6)).find(|&k| {
        b[k..k + 4].iter().all(u8::is_ascii_digit)
            && b[k + 4] == b'-'
            && b[k + 5..k + 7].iter().all(u8::is_ascii_digit)
    });
    let years = ["0001", "1900", "2100", "1000", "0000", "9999"];
    let year = *years.choose(rng).unwrap_or(&"0001");
    match spot {
        Some(k) => {
            let mut s = value.to_string();
            if rng.random_bool(0.8) {
                s.replace_range(k..k + 4, year);
            } else {
                let mm = *["00", "13", "02", "12"].choose(rng).unwrap_or(&"13");
                s.replace_range(k + 5..k + 7, mm);
            }
            s
        }
        None => format!(" \"{year}-12-31\""),
    }
}

fn perturb_string(rng: &mut Rng, value: &str) -> String {
    let Some(open) = value.find('"') else {
        return format!(" \"{}\"", "x".repeat(rng.random_range(0..5000)));
    };
    let close = value[open + 1..]
        .find('"')
        .map_or(value.len(), |n| open + 1 + n);
    let inner = if rng.random_bool(0.5) {
        String::new()
    } else {
        let unit = *["x", "é", "\\u202e", "ab ", "\\\""]
            .choose(rng)
            .unwrap_or(&"x");
        unit.repeat(rng.random_range(100..5000))
    };
    let rest = if close < value.len() {
        &value[close..]
    } else {
        "\""
    };
    format!("{}\"{inner}{rest}", &value[..open])
}

fn perturb_array(rng: &mut Rng, value: &str) -> String {
    let (Some(open), Some(close)) = (value.find('['), value.rfind(']')) else {
        return " []".into();
    };
    if close <= open {
        return " []".into();
    }
    let inner = &value[open + 1..close];
    let new = if rng.random_bool(0.4) || inner.trim().is_empty() {
        String::new()
    } else {
        let k = rng.random_range(2..50);
        vec![inner.trim(); k].join(", ")
    };
    format!("{}[{new}]{}", &value[..open], &value[close + 1..])
}

/// An expression string (`expr`, `when`, `over`, …) rewritten.
fn rewrite_expression(rng: &mut Rng, lines: &mut [String], book: &Book) {
    let Some(i) = pick_line(rng, lines, |l| {
        let t = l.trim_start();
        ["expr", "when", "over", "otherwise", "at"]
            .iter()
            .any(|k| t.starts_with(k) && t[k.len()..].trim_start().starts_with('='))
            || l.contains("expr = \"")
    }) else {
        return;
    };
    let line = lines[i].clone();
    let Some(open) = line.find('"') else {
        return;
    };
    let close = line[open + 1..]
        .find('"')
        .map_or(line.len(), |n| open + 1 + n);
    let old = &line[open + 1..close];
    let names: Vec<&str> = book.names.iter().map(String::as_str).collect();
    let mut new = rewrite(rng, old, &names);
    if rng.random_bool(0.2) {
        new = byte_mutate(rng, &new);
    }
    let new = super::expr_text::toml_escape(&new);
    lines[i] = format!("{}\"{new}{}", &line[..open], &line[close.min(line.len())..]);
    if close >= line.len() {
        lines[i].push('"');
    }
}

/// A key or a table header segment renamed.
fn rename_key(rng: &mut Rng, lines: &mut [String], book: &Book) {
    let Some(i) = pick_line(rng, lines, |l| {
        let t = l.trim_start();
        t.starts_with('[') || (t.contains('=') && !t.starts_with('#'))
    }) else {
        return;
    };
    let line = lines[i].clone();
    let new = match rng.random_range(0..5) {
        0 => KEYS.choose(rng).unwrap_or(&"type").to_string(),
        1 => book.names.choose(rng).cloned().unwrap_or_default(),
        2 => "zz_renamed".into(),
        3 => "\"\"".into(),
        _ => format!("{}_", book.names.choose(rng).cloned().unwrap_or_default()),
    };
    let t = line.trim_start();
    lines[i] = if t.starts_with('[') {
        // One dotted segment of the header.
        let inner = t.trim_start_matches('[').trim_end_matches(']');
        let mut parts: Vec<String> = inner.split('.').map(str::to_string).collect();
        let k = rng.random_range(0..parts.len());
        parts[k] = new;
        let brackets = if t.starts_with("[[") { 2 } else { 1 };
        format!(
            "{}{}{}",
            "[".repeat(brackets),
            parts.join("."),
            "]".repeat(brackets)
        )
    } else {
        let eq = line.find('=').unwrap_or(0);
        format!("{new} {}", &line[eq..])
    };
}

/// A `[[…]]` block or an inline `{ … },` row line repeated.
pub(super) fn multiply_rows(rng: &mut Rng, lines: &mut Vec<String>) {
    let copies = *[1usize, 10, 100, 1_000, 5_000].choose(rng).unwrap_or(&10);
    if rng.random_bool(0.5) {
        if let Some(i) = pick_line(rng, lines, |l| {
            let t = l.trim();
            t.starts_with('{') && (t.ends_with("},") || t.ends_with('}'))
        }) {
            let row = lines[i].trim_end().trim_end_matches(',').to_string() + ",";
            let mut block = vec![row; copies];
            // The original line stays last, so a closing row keeps its place.
            block.push(lines[i].clone());
            lines.splice(i..=i, block);
            return;
        }
    }
    let Some(start) = pick_line(rng, lines, |l| l.trim_start().starts_with("[[")) else {
        return;
    };
    let end = (start + 1..lines.len())
        .find(|&k| lines[k].trim_start().starts_with('['))
        .unwrap_or(lines.len());
    let block: Vec<String> = lines[start..end].to_vec();
    let mut grown = Vec::with_capacity(block.len() * (copies + 1));
    for _ in 0..=copies {
        grown.extend(block.iter().cloned());
    }
    lines.splice(start..end, grown);
}

/// A chain of steps appended, each reading the one before; an answer field
/// of the first decision reads the last.
fn chain_steps(rng: &mut Rng, lines: &mut Vec<String>, cfg: &Config) {
    // Past about 750 steps a chain is refused at load (`check::too_deep`);
    // the long ones check that refusal, never an abort.
    let mut sizes = vec![2usize, 10, 50, 100, 500, 800];
    if cfg.long() {
        sizes.extend([2_000, 8_000, 20_000]);
    }
    let n = *sizes.choose(rng).unwrap_or(&10);
    let op = *["+", "*", "-", "/"].choose(rng).unwrap_or(&"+");
    lines.push(String::new());
    lines.push("[steps.fz0]".into());
    lines.push("expr = \"1\"".into());
    for k in 1..n {
        lines.push(format!("[steps.fz{k}]"));
        lines.push(format!("expr = \"fz{} {op} 1\"", k - 1));
    }
    if let Some(h) = pick_line(rng, lines, |l| {
        let t = l.trim();
        t.starts_with("[decisions.") && t.ends_with(".answer]")
    }) {
        lines.insert(h + 1, format!("fz_out = {{ expr = \"fz{}\" }}", n - 1));
    }
}

/// A span of up to 40 bytes cut out of the text.
pub(super) fn cut(rng: &mut Rng, text: &str) -> String {
    let a = floor_char(text, rng.random_range(0..=text.len()));
    let b = floor_char(text, (a + rng.random_range(0..40)).min(text.len()));
    format!("{}{}", &text[..a], &text[b..])
}
