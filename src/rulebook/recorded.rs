//! A specialised row's steps as a traced evaluation runs them: the parts
//! of each formula that are the same for every case marked for replay.
//!
//! The folded steps of a row (`rulebook::fold`) drop what their row makes
//! constant, so a trace, which shows every read, cannot run them. Here the
//! lowered steps as written are kept whole, and each largest part that
//! reads only constants, the row and the row's known steps is wrapped in a
//! [`CodeKind::Recorded`] node (as is each `if` or `match` whose condition
//! or scrutinee is such a part, with its arms marked in turn): the traced
//! evaluation records what the part records the first time, and replays
//! it after (`eval/recorded.rs`).
//!
//! Invariant: marking changes no formula's text, spans, or what it
//! computes, records and spends: a marked node holds the code it stands
//! for, which the evaluator runs whenever a replay cannot stand for it.

use std::sync::{Arc, OnceLock};

use crate::model::code::Recorded;
use crate::model::code::{Code, CodeKind};
use crate::model::{Formula, Rulebook, Step};
use crate::value::Value;

/// Fills `SpecializedRow::traced` for every specialised row.
pub(crate) fn mark_all(rb: &mut Rulebook) {
    for group in &mut rb.groups {
        let Some(specialized) = &mut group.specialized else {
            continue;
        };
        let steps = &group.steps;
        for row in &mut Arc::make_mut(specialized).rows {
            row.traced = (steps.iter().zip(&row.known))
                .map(|(s, k)| match k {
                    // A known step is replayed whole (`eval/known.rs`).
                    Some(_) => None,
                    None => step(s, &row.known),
                })
                .collect();
        }
    }
}

/// The step with its formulas marked; `None` when nothing is.
fn step(s: &Step, known: &[Option<Value>]) -> Option<Step> {
    let expr = root(&s.expr.code, known);
    let when = s.when.as_ref().map(|w| root(&w.code, known));
    let otherwise = s.otherwise.as_ref().map(|o| root(&o.code, known));
    let cite: Vec<Option<Code>> = s.cite.iter().map(|(w, _)| root(&w.code, known)).collect();
    let changed = expr.is_some()
        || when.as_ref().is_some_and(Option::is_some)
        || otherwise.as_ref().is_some_and(Option::is_some)
        || cite.iter().any(Option::is_some);
    if !changed {
        return None;
    }
    // Each formula as written, with its code marked where it is.
    let with = |f: &Formula, code: Option<Code>| Formula {
        text: f.text.clone(),
        node: f.node.clone(),
        offset: f.offset,
        code: code.unwrap_or_else(|| f.code.clone()),
    };
    Some(Step {
        name: s.name.clone(),
        label: s.label.clone(),
        clauses: s.clauses.clone(),
        cite: (s.cite.iter().zip(cite))
            .map(|((w, c), code)| (with(w, code), c.clone()))
            .collect(),
        expr: with(&s.expr, expr),
        when: s.when.as_ref().zip(when).map(|(w, c)| with(w, c)),
        otherwise: s.otherwise.as_ref().zip(otherwise).map(|(o, c)| with(o, c)),
        round: s.round,
        ty: s.ty.clone(),
        detail: s.detail,
    })
}

/// A formula's code marked; `None` when nothing in it is.
fn root(code: &Code, known: &[Option<Value>]) -> Option<Code> {
    match mark(code, known) {
        Marked::Same => wrapped(code),
        Marked::Varies(c) => c,
    }
}

/// What marking found in a node.
enum Marked {
    /// The node is the same for every case.
    Same,
    /// It is not; its code with its parts marked (`None`: none is).
    Varies(Option<Code>),
}

/// The node wrapped for replay, where that saves work: a leaf (a constant,
/// the row, a known step) costs a replay what it costs to run.
fn wrapped(code: &Code) -> Option<Code> {
    match code.kind {
        CodeKind::Const(_)
        | CodeKind::Fixed(..)
        | CodeKind::Item
        | CodeKind::ItemStep(_)
        | CodeKind::Folded { .. } => None,
        _ => Some(recorded(code, Vec::new())),
    }
}

fn recorded(whole: &Code, arms: Vec<Code>) -> Code {
    Code {
        span: whole.span,
        kind: CodeKind::Recorded(Box::new(Recorded {
            whole: whole.clone(),
            arms,
            capture: OnceLock::new(),
        })),
    }
}

/// Marks `code`: whether it is the same for every case, or else its parts
/// that are. Only the nodes whose evaluation reads nothing but their
/// operands are looked into; any other is left as written. Each node is
/// marked once.
fn mark(code: &Code, known: &[Option<Value>]) -> Marked {
    stacker::maybe_grow(256 * 1024, 8 * 1024 * 1024, || mark_now(code, known))
}

fn mark_now(code: &Code, known: &[Option<Value>]) -> Marked {
    let kids: Vec<&Code> = match &code.kind {
        CodeKind::Const(_) | CodeKind::Fixed(..) | CodeKind::Item => return Marked::Same,
        CodeKind::ItemStep(j) => {
            return match known.get(*j) {
                Some(Some(_)) => Marked::Same,
                _ => Marked::Varies(None),
            }
        }
        CodeKind::Folded { whole, .. } => {
            return match mark(whole, known) {
                Marked::Same => Marked::Same,
                Marked::Varies(_) => Marked::Varies(None),
            }
        }
        CodeKind::Field(a, ..)
        | CodeKind::Neg(a)
        | CodeKind::Not(a)
        | CodeKind::IsMissing(a)
        | CodeKind::Round(a, ..) => vec![a],
        CodeKind::Arith(_, a, b)
        | CodeKind::Compare(_, a, b)
        | CodeKind::And(a, b)
        | CodeKind::Or(a, b) => vec![a, b],
        CodeKind::Coalesce(args) | CodeKind::Extremum(_, args) => args.iter().collect(),
        CodeKind::If(parts) => vec![&parts.0, &parts.1, &parts.2],
        CodeKind::Match(scrutinee, arms, otherwise) => {
            let mut kids: Vec<&Code> = vec![scrutinee];
            kids.extend(arms.iter().map(|(_, v)| v));
            kids.push(otherwise);
            kids
        }
        _ => return Marked::Varies(None),
    };
    let marks: Vec<Marked> = kids.iter().map(|c| mark(c, known)).collect();
    let same = |m: &Marked| matches!(m, Marked::Same);
    // A rounding point records its rounding: never replayed.
    let rounds = matches!(code.kind, CodeKind::Round(..));
    if !rounds && marks.iter().all(same) {
        return Marked::Same;
    }
    let choice = matches!(code.kind, CodeKind::If(_) | CodeKind::Match(..));
    if choice && marks.first().is_some_and(same) {
        // Settled the same for every case: each arm marked in turn.
        let arms = (kids.iter().zip(marks).skip(1))
            .map(|(c, m)| child(c, m).unwrap_or_else(|| (*c).clone()))
            .collect();
        return Marked::Varies(Some(recorded(code, arms)));
    }
    let marked: Vec<Option<Code>> = (kids.iter().zip(marks)).map(|(c, m)| child(c, m)).collect();
    if marked.iter().all(Option::is_none) {
        return Marked::Varies(None);
    }
    let mut new = (kids.iter().zip(marked)).map(|(c, m)| m.unwrap_or_else(|| (*c).clone()));
    let mut next = || Box::new(new.next().unwrap_or_else(|| code.clone()));
    let kind = match &code.kind {
        CodeKind::Field(_, index, path) => CodeKind::Field(next(), *index, path.clone()),
        CodeKind::Neg(_) => CodeKind::Neg(next()),
        CodeKind::Not(_) => CodeKind::Not(next()),
        CodeKind::IsMissing(_) => CodeKind::IsMissing(next()),
        CodeKind::Round(_, places, mode) => CodeKind::Round(next(), *places, *mode),
        CodeKind::Arith(op, ..) => CodeKind::Arith(*op, next(), next()),
        CodeKind::Compare(op, ..) => CodeKind::Compare(*op, next(), next()),
        CodeKind::And(..) => CodeKind::And(next(), next()),
        CodeKind::Or(..) => CodeKind::Or(next(), next()),
        CodeKind::Coalesce(args) => CodeKind::Coalesce(args.iter().map(|_| *next()).collect()),
        CodeKind::Extremum(func, args) => {
            CodeKind::Extremum(*func, args.iter().map(|_| *next()).collect())
        }
        CodeKind::If(_) => CodeKind::If(Box::new((*next(), *next(), *next()))),
        CodeKind::Match(_, arms, _) => {
            let scrutinee = next();
            let arms = arms
                .iter()
                .map(|(lits, _)| (lits.clone(), *next()))
                .collect();
            CodeKind::Match(scrutinee, arms, next())
        }
        _ => return Marked::Varies(None),
    };
    Marked::Varies(Some(Code {
        span: code.span,
        kind,
    }))
}

/// A child of a node that varies: wrapped if it is the same for every case.
fn child(code: &Code, m: Marked) -> Option<Code> {
    match m {
        Marked::Same => wrapped(code),
        Marked::Varies(c) => c,
    }
}
