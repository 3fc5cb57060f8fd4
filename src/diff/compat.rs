//! The compatibility verdict: does a generator or rubric written against the
//! old version load against the new one? Each is loaded by its own loader
//! (`generate::parse_generator`, `score::parse_rubric`) against the new
//! rulebook; the one problem ignored is that it names the old version,
//! every other problem is a break. A break is located in the generator or
//! rubric file, and in the old rulebook at the thing it names, preferring a
//! thing the diff reports as changed or removed.

use serde::Serialize;

use super::changes::{ChangeKind, RulebookDiff};
use crate::diag::Diagnostics;
use crate::generate::parse_generator;
use crate::model::Rulebook;
use crate::score::parse_rubric;

/// What a file written against a rulebook is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DependentKind {
    /// `generator-<n>.toml`.
    Generator,
    /// `rubric-<n>.toml`.
    Rubric,
}

/// A generator or rubric file and its text.
#[derive(Clone, Copy, Debug)]
pub struct Dependent<'a> {
    /// Which loader reads it.
    pub kind: DependentKind,
    /// As named on the command line.
    pub file: &'a str,
    /// Its text.
    pub text: &'a str,
}

/// One reason a generator or rubric does not load against the new version.
#[derive(Clone, Debug, Serialize)]
pub struct Break {
    /// The loader's problem code (`score::unknown_field`).
    pub code: String,
    /// The loader's message, naming the new rulebook's side.
    pub message: String,
    /// 1-based line in the generator or rubric file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The thing of the old rulebook it names (`decisions.payslip.answer.net_a_payer`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_entity: Option<String>,
    /// Its 1-based line in the old rulebook file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_line: Option<usize>,
}

/// Whether one generator or rubric loads against the new version.
#[derive(Clone, Debug, Serialize)]
pub struct Verdict {
    /// The file.
    pub file: String,
    /// Generator or rubric.
    pub kind: DependentKind,
    /// Whether it loads (no break).
    pub loads: bool,
    /// Every break.
    pub breaks: Vec<Break>,
}

/// Loads `dep` against `new` and lists what breaks.
pub fn verdict(dep: &Dependent<'_>, new: &Rulebook, diff: &RulebookDiff) -> Verdict {
    let diags = match dep.kind {
        DependentKind::Generator => parse_generator(dep.file, dep.text, new).err(),
        DependentKind::Rubric => parse_rubric(dep.file, dep.text, new).err(),
    };
    let breaks = diags.map_or_else(Vec::new, |d| breaks(&d, dep.text, diff));
    Verdict {
        file: dep.file.to_string(),
        kind: dep.kind,
        loads: breaks.is_empty(),
        breaks,
    }
}

fn breaks(diags: &Diagnostics, text: &str, diff: &RulebookDiff) -> Vec<Break> {
    let mut out = Vec::new();
    for p in &diags.problems {
        if p.code.ends_with("::rulebook_version") {
            continue;
        }
        let under = p
            .span
            .and_then(|s| text.get(s.start as usize..s.end as usize))
            .unwrap_or("");
        let mut tokens = quoted(&p.message);
        tokens.extend(identifiers(under));
        let old_entity = locate(&tokens, diff);
        out.push(Break {
            code: p.code.to_string(),
            message: p.message.clone(),
            line: p.span.map(|s| diags.source.line_col(s.start as usize).0),
            old_line: old_entity
                .as_ref()
                .and_then(|e| diff.old_lines.get(e).copied()),
            old_entity,
        });
    }
    out
}

/// The names a message quotes in backticks, and their last dotted segment.
fn quoted(message: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, part) in message.split('`').enumerate() {
        if i % 2 == 1 {
            out.push(part.to_string());
            out.extend(part.rsplit('.').next().map(str::to_string));
        }
    }
    out
}

fn identifiers(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Rank of an old entity as the thing a break names: answer fields, inputs,
/// steps and ablations are what generators and rubrics rely on.
fn rank(entity: &str) -> u8 {
    if entity.starts_with("decisions.") && entity.contains(".answer.") {
        0
    } else if entity.starts_with("inputs.") {
        1
    } else if entity.starts_with("steps.") || entity.starts_with("per_item.") {
        2
    } else if entity.starts_with("ablations.") {
        3
    } else if entity.starts_with("decisions.") {
        4
    } else {
        5
    }
}

fn last_segment(entity: &str) -> &str {
    let bare = entity.split('[').next().unwrap_or(entity);
    bare.rsplit('.').next().unwrap_or(bare)
}

/// The old entity the tokens name: among those the diff removed or changed
/// first, then among all; by rank, then by the order of the tokens.
fn locate(tokens: &[String], diff: &RulebookDiff) -> Option<String> {
    let changed: Vec<&str> = diff
        .sections
        .values()
        .flatten()
        .filter(|c| c.kind != ChangeKind::Added)
        .map(|c| c.entity.as_str())
        .collect();
    let all: Vec<&str> = diff.old_lines.keys().map(String::as_str).collect();
    for pool in [changed, all] {
        let best = pool
            .iter()
            .filter_map(|e| {
                let i = tokens.iter().position(|t| t == last_segment(e) || t == e)?;
                Some((rank(e), i, *e))
            })
            .min();
        if let Some((_, _, e)) = best {
            return Some(e.to_string());
        }
    }
    None
}
