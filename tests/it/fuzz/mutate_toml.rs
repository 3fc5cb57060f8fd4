//! Structure-aware mutations of the bundled generator and rubric files, the
//! seeds of the `generator_toml` and `rubric_toml` targets, each with the
//! rulebook it is checked against.
//!
//! The mutations are those of the rulebook target, line by line: a line
//! deleted (a key dropped), duplicated (a key twice) or swapped; a value
//! perturbed (numbers, dates, strings, arrays); a quoted string (most are
//! expressions, bounds or names) rewritten as an expression, or swapped for
//! another drawn from the seeds or the rulebooks' expressions; a key renamed
//! to another key of the format or a name of the rulebook; a table dropped or
//! repeated; inline rows multiplied; bytes mutated or cut.

use rand::seq::IndexedRandom;
use rand::Rng as _;

use super::corpus::{ALL_EXPRS, BOOKS};
use super::expr_text::{byte_mutate, rewrite, toml_escape};
use super::rulebook_toml::{cut, multiply_rows, perturb_value, pick_line};
use super::Rng;

/// A bundled generator or rubric file.
pub struct Seed {
    /// Its path under the root, for messages.
    pub rel: String,
    /// Its text.
    pub text: String,
    /// The corpus rulebook it is checked against (`BOOKS[book]`).
    pub book: usize,
}

/// What the mutations draw from, over all the seeds of one kind.
pub struct Pool {
    /// Keys found in the seeds (`weight`, `accept`, `malformed`, …).
    pub keys: Vec<String>,
    /// Quoted strings found in the seeds.
    pub strings: Vec<String>,
}

/// The bundled files `rulebooks/*/<prefix>-*.toml`, in path order.
pub fn seeds(prefix: &str) -> Vec<(std::path::PathBuf, String)> {
    let root = super::super::root();
    let mut found = Vec::new();
    let sets = std::fs::read_dir(root.join("rulebooks"))
        .into_iter()
        .flatten();
    for set in sets.flatten() {
        for file in std::fs::read_dir(set.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = file.path();
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if name.starts_with(&format!("{prefix}-")) && name.ends_with(".toml") {
                let text = std::fs::read_to_string(&path).expect("a bundled file");
                found.push((path, text));
            }
        }
    }
    found.sort();
    assert!(!found.is_empty(), "no bundled {prefix} files");
    found
}

/// The corpus rulebook with this hash.
pub fn book_of(rb: &bareme::Rulebook) -> usize {
    BOOKS
        .iter()
        .position(|b| b.rb.hash() == rb.hash())
        .expect("the rulebook of a bundled file is a bundled rulebook")
}

/// The keys and quoted strings of `texts`.
pub fn pool<'a>(texts: impl Iterator<Item = &'a str>) -> Pool {
    let mut keys = Vec::new();
    let mut strings = Vec::new();
    for line in texts.flat_map(str::lines) {
        let t = line.trim_start();
        if t.starts_with('#') || t.starts_with('[') {
            continue;
        }
        if let Some((k, _)) = t.split_once('=') {
            let k = k.trim().to_string();
            if !k.is_empty() && !k.contains(' ') && !keys.contains(&k) {
                keys.push(k);
            }
        }
        strings.extend(
            quoted(line)
                .into_iter()
                .map(|(a, b)| line[a..b].to_string()),
        );
    }
    strings.sort();
    strings.dedup();
    Pool { keys, strings }
}

/// The spans of the plain quoted strings of a line (inside the quotes).
fn quoted(line: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut open = None;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match (c, open) {
            ('#', None) => break,
            ('"', None) => open = Some(i + 1),
            ('\\', Some(_)) if !escaped => {
                escaped = true;
                continue;
            }
            ('"', Some(a)) if !escaped => {
                spans.push((a, i));
                open = None;
            }
            _ => {}
        }
        escaped = false;
    }
    spans
}

/// One to three mutations of a seed's text.
pub fn mutated(rng: &mut Rng, seed: &Seed, pool: &Pool) -> String {
    let mut lines: Vec<String> = seed.text.lines().map(str::to_string).collect();
    let n = *[1, 1, 1, 1, 2, 2, 3].choose(rng).unwrap_or(&1);
    for _ in 0..n {
        mutate(rng, &mut lines, seed, pool);
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

fn mutate(rng: &mut Rng, lines: &mut Vec<String>, seed: &Seed, pool: &Pool) {
    if lines.is_empty() {
        lines.push("[generator]".into());
        return;
    }
    let i = rng.random_range(0..lines.len());
    // Weighted towards mutations that often leave the file loadable, so that
    // many inputs reach drawing or grading.
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
        4..=8 => perturb_value(rng, lines),
        9..=13 => rewrite_string(rng, lines, seed, pool),
        14 => rename_key(rng, lines, seed, pool),
        15 => multiply_rows(rng, lines),
        16 | 17 => table(rng, lines),
        _ => {
            if rng.random_bool(0.5) {
                lines[i] = byte_mutate(rng, &lines[i]);
            } else {
                let text = lines.join("\n");
                *lines = cut(rng, &text).lines().map(str::to_string).collect();
            }
        }
    }
}

/// The rulebook's names, for rewrites and renames.
fn names(seed: &Seed) -> Vec<&'static str> {
    BOOKS
        .get(seed.book)
        .map(|b| b.names.iter().map(String::as_str).collect())
        .unwrap_or_default()
}

/// A quoted string rewritten as an expression, or swapped for a drawn one.
fn rewrite_string(rng: &mut Rng, lines: &mut [String], seed: &Seed, pool: &Pool) {
    let Some(i) = pick_line(rng, lines, |l| !quoted(l).is_empty()) else {
        return;
    };
    let line = lines[i].clone();
    let spans = quoted(&line);
    let Some(&(a, b)) = spans.choose(rng) else {
        return;
    };
    let old = &line[a..b];
    let new = match rng.random_range(0..4) {
        0 | 1 => rewrite(rng, old, &names(seed)),
        2 => ALL_EXPRS.choose(rng).cloned().unwrap_or_default(),
        _ => pool.strings.choose(rng).cloned().unwrap_or_default(),
    };
    let new = if rng.random_bool(0.1) {
        byte_mutate(rng, &new)
    } else {
        new
    };
    lines[i] = format!("{}{}{}", &line[..a], toml_escape(&new), &line[b..]);
}

/// A key renamed to another key of the seeds, a name of the rulebook, or nonsense.
fn rename_key(rng: &mut Rng, lines: &mut [String], seed: &Seed, pool: &Pool) {
    let Some(i) = pick_line(rng, lines, |l| {
        let t = l.trim_start();
        !t.starts_with('#') && !t.starts_with('[') && t.contains('=')
    }) else {
        return;
    };
    let new = match rng.random_range(0..4) {
        0 | 1 => pool.keys.choose(rng).cloned().unwrap_or_default(),
        2 => names(seed)
            .choose(rng)
            .map(|s| s.to_string())
            .unwrap_or_default(),
        _ => "zz_renamed".into(),
    };
    let line = lines[i].clone();
    let eq = line.find('=').unwrap_or(0);
    lines[i] = format!("{new} {}", &line[eq..]);
}

/// A `[…]` table (its header and lines up to the next header) dropped or repeated.
fn table(rng: &mut Rng, lines: &mut Vec<String>) {
    let Some(start) = pick_line(rng, lines, |l| l.trim_start().starts_with('[')) else {
        return;
    };
    let end = (start + 1..lines.len())
        .find(|&k| lines[k].trim_start().starts_with('['))
        .unwrap_or(lines.len());
    if rng.random_bool(0.5) {
        lines.drain(start..end);
    } else {
        let block: Vec<String> = lines[start..end].to_vec();
        lines.splice(start..start, block);
    }
}
