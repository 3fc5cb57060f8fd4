//! What generated code reads, and so must compute first: the steps,
//! parameters and groups of a formula, and the order of an item's steps.
//!
//! Compiled code computes a step where it is first needed on the branch at
//! hand, so the generator asks, for each formula, what it reads whenever it
//! runs (computed before it) apart from what it reads only on some branch
//! (computed on that branch, `Gen::lazy`).
//!
//! Invariant: reads the lowered code only; nothing here writes code.

use super::state::{Dep, Gened, Unsupported};
use crate::model::code::{Code, CodeKind};
use crate::model::Step;

/// The order to compute an item's steps in: each after the item steps it reads.
pub(super) fn item_order(steps: &[Step]) -> Gened<Vec<usize>> {
    fn visit(j: usize, steps: &[Step], state: &mut [u8], order: &mut Vec<usize>) -> Gened<()> {
        match state[j] {
            2 => return Ok(()),
            1 => return Err(Unsupported("an item step depends on itself".into())),
            _ => {}
        }
        state[j] = 1;
        let mut reads = Vec::new();
        for c in step_codes(&steps[j]) {
            item_deps(c, &mut reads);
        }
        for k in reads {
            if k < steps.len() {
                visit(k, steps, state, order)?;
            }
        }
        state[j] = 2;
        order.push(j);
        Ok(())
    }
    let mut state = vec![0u8; steps.len()];
    let mut order = Vec::with_capacity(steps.len());
    for j in 0..steps.len() {
        visit(j, steps, &mut state, &mut order)?;
    }
    Ok(order)
}

/// A step's codes in the order they run: condition, formula, otherwise,
/// citations.
fn step_codes(step: &Step) -> impl Iterator<Item = &Code> {
    step.when
        .iter()
        .chain(std::iter::once(&step.expr))
        .chain(step.otherwise.iter())
        .chain(step.cite.iter().map(|(when, _)| when))
        .map(|f| &f.code)
}

/// What `code` reads whenever it is evaluated; what it reads only on some
/// branch is computed on that branch (`Gen::lazy`).
pub(super) fn code_deps(code: &Code, out: &mut Vec<Dep>) {
    if is_call_like(code) {
        // All it reads, on any branch (see `is_call_like`).
        visit_written(code, &mut |c| match c.kind {
            CodeKind::Step(i) => out.push(Dep::Step(i.index())),
            CodeKind::Param(i) | CodeKind::Fixed(i, _) => out.push(Dep::Param(i)),
            CodeKind::Group(g) => out.push(Dep::Group(g)),
            _ => {}
        });
        return;
    }
    match &code.kind {
        CodeKind::Step(i) => out.push(Dep::Step(i.index())),
        CodeKind::Param(i) => out.push(Dep::Param(*i)),
        CodeKind::SumColumn { group: g, .. } | CodeKind::SumRows { group: g, .. } => {
            out.push(Dep::Group(*g))
        }
        // What every branch reads is read whenever the choice is made.
        CodeKind::If(parts) => {
            let both = shared_deps([&parts.1, &parts.2]);
            out.extend(both);
        }
        CodeKind::Match(_, arms, otherwise) => {
            let all = shared_deps(
                arms.iter()
                    .map(|(_, v)| v)
                    .chain(std::iter::once(&**otherwise)),
            );
            out.extend(all);
        }
        _ => {}
    }
    for c in children(code, true) {
        code_deps(c, out);
    }
}

/// What every one of `codes` reads whenever it is evaluated.
fn shared_deps<'c>(codes: impl IntoIterator<Item = &'c Code>) -> Vec<Dep> {
    let mut shared: Option<Vec<Dep>> = None;
    for code in codes {
        let mut deps = Vec::new();
        code_deps(code, &mut deps);
        shared = Some(match shared {
            None => deps,
            Some(prev) => prev.into_iter().filter(|d| deps.contains(d)).collect(),
        });
    }
    shared.unwrap_or_default()
}

fn item_deps(code: &Code, out: &mut Vec<usize>) {
    if is_call_like(code) {
        visit_written(code, &mut |c| {
            if let CodeKind::ItemStep(j) = c.kind {
                out.push(j);
            }
        });
        return;
    }
    if let CodeKind::ItemStep(j) = code.kind {
        out.push(j);
    }
    for c in children(code, false) {
        item_deps(c, out);
    }
}

/// Code the generator writes by the runtime function that does what the
/// interpreter does (calls, comprehensions, a group read whole, names of
/// the decision): what it reads is taken whole, as written, not by branch.
fn is_call_like(code: &Code) -> bool {
    matches!(
        code.kind,
        CodeKind::Call(..)
            | CodeKind::Comprehension { .. }
            | CodeKind::Local(_)
            | CodeKind::InItem(_)
            | CodeKind::Group(_)
            | CodeKind::Table(_)
            | CodeKind::Mode(_)
            | CodeKind::Decision
            | CodeKind::Reason
            | CodeKind::Clauses
    )
}

/// Calls `f` on `code` and every code under it, parents first, in the
/// order of the formula as written (a shortcut is visited as the code it
/// stands for).
fn visit_written(code: &Code, f: &mut dyn FnMut(&Code)) {
    f(code);
    let children: Vec<&Code> = match &code.kind {
        CodeKind::Field(a, ..)
        | CodeKind::Neg(a)
        | CodeKind::Not(a)
        | CodeKind::Round(a, ..)
        | CodeKind::IsMissing(a) => vec![a],
        CodeKind::Folded { whole, .. }
        | CodeKind::SumColumn { whole, .. }
        | CodeKind::SumRows { whole, .. } => vec![whole],
        CodeKind::Recorded(r) => vec![&r.whole],
        CodeKind::Arith(_, a, b)
        | CodeKind::Compare(_, a, b)
        | CodeKind::And(a, b)
        | CodeKind::Or(a, b)
        | CodeKind::Let(a, b) => vec![a, b],
        CodeKind::If(parts) => vec![&parts.0, &parts.1, &parts.2],
        CodeKind::Match(s, arms, o) => std::iter::once(&**s)
            .chain(std::iter::once(&**o))
            .chain(arms.iter().map(|(_, v)| v))
            .collect(),
        CodeKind::Extremum(_, args) | CodeKind::Coalesce(args) | CodeKind::Call(_, args) => {
            args.iter().collect()
        }
        CodeKind::Comprehension {
            body, list, filter, ..
        } => std::iter::once(&**body)
            .chain(std::iter::once(&**list))
            .chain(filter.as_deref())
            .collect(),
        _ => Vec::new(),
    };
    for c in children {
        visit_written(c, f);
    }
}

/// The codes directly under `code`; with `strict`, only those evaluated
/// whenever `code` is (not the right of `and`/`or`, the branches of `if`
/// and `match`, the later arguments of `coalesce`).
fn children(code: &Code, strict: bool) -> Vec<&Code> {
    match &code.kind {
        CodeKind::Field(a, ..)
        | CodeKind::Not(a)
        | CodeKind::Neg(a)
        | CodeKind::Round(a, ..)
        | CodeKind::IsMissing(a) => vec![a],
        CodeKind::And(a, _) | CodeKind::Or(a, _) if strict => vec![a],
        CodeKind::Arith(_, a, b)
        | CodeKind::Compare(_, a, b)
        | CodeKind::And(a, b)
        | CodeKind::Or(a, b)
        | CodeKind::Let(a, b) => vec![a, b],
        CodeKind::If(parts) if strict => vec![&parts.0],
        CodeKind::If(parts) => vec![&parts.0, &parts.1, &parts.2],
        CodeKind::Match(s, _, _) if strict => vec![s],
        CodeKind::Match(s, arms, o) => std::iter::once(&**s)
            .chain(arms.iter().map(|(_, v)| v))
            .chain(std::iter::once(&**o))
            .collect(),
        CodeKind::Coalesce(args) if strict => args.iter().take(1).collect(),
        CodeKind::Extremum(_, args) | CodeKind::Coalesce(args) => args.iter().collect(),
        CodeKind::Recorded(r) => vec![&r.whole],
        CodeKind::SumRows { filter, body, .. } => filter
            .iter()
            .map(|f| &**f)
            .chain(std::iter::once(&**body))
            .collect(),
        _ => Vec::new(),
    }
}
