//! What generated code reads, and so must compute first: the steps,
//! parameters and groups of a formula, and the order of an item's steps.
//!
//! Compiled code computes a step where it is first needed on the branch at
//! hand, so the generator asks, for each formula, what it reads whenever it
//! runs (computed before it) apart from what it reads only on some branch
//! (computed on that branch, `Gen::lazy`).
//!
//! Invariant: reads the plan only; nothing here writes code.

use super::{Gened, Unsupported};
use crate::model::plan::{Code, StepCode};
use crate::model::{Node, NodeKind};

/// Something computed once per case, before whatever reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Dep {
    Step(usize),
    Group(usize),
    Param(usize),
}

/// The order to compute an item's steps in: each after the item steps it reads.
pub(super) fn item_order(steps: &[StepCode]) -> Gened<Vec<usize>> {
    fn visit(j: usize, steps: &[StepCode], state: &mut [u8], order: &mut Vec<usize>) -> Gened<()> {
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

/// A step's codes in the order they run: condition, formula, otherwise.
fn step_codes(code: &StepCode) -> impl Iterator<Item = &Code> {
    code.when
        .iter()
        .chain(std::iter::once(&code.expr))
        .chain(code.otherwise.iter())
}

/// What `code` reads whenever it is evaluated; what it reads only on some
/// branch is computed on that branch (`Gen::lazy`).
pub(super) fn code_deps(code: &Code, out: &mut Vec<Dep>) {
    match code {
        Code::Step(i) => out.push(Dep::Step(*i)),
        Code::Param(i) => out.push(Dep::Param(*i)),
        Code::SumColumn(g, _) | Code::SumRows { group: g, .. } => out.push(Dep::Group(*g)),
        Code::Tree(node) => visit_node(node, &mut |n| match n.kind {
            NodeKind::Step(i) => out.push(Dep::Step(i)),
            NodeKind::Param(i) => out.push(Dep::Param(i)),
            NodeKind::Group(g) => out.push(Dep::Group(g)),
            _ => {}
        }),
        // What every branch reads is read whenever the choice is made.
        Code::If(parts) => {
            let both = shared_deps([&parts.1, &parts.2]);
            out.extend(both);
        }
        Code::Match(_, arms, otherwise) => {
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
    visit_code(code, &mut |c| match c {
        Code::ItemStep(j) => out.push(*j),
        Code::Tree(node) => visit_node(node, &mut |n| {
            if let NodeKind::ItemStep(j) = n.kind {
                out.push(j);
            }
        }),
        _ => {}
    });
}

/// Calls `f` on `code` and every code under it, parents first.
fn visit_code(code: &Code, f: &mut dyn FnMut(&Code)) {
    f(code);
    for c in children(code, false) {
        visit_code(c, f);
    }
}

/// The codes directly under `code`; with `strict`, only those evaluated
/// whenever `code` is (not the right of `and`/`or`, the branches of `if`
/// and `match`, the later arguments of `coalesce`).
fn children(code: &Code, strict: bool) -> Vec<&Code> {
    match code {
        Code::Field(a, _)
        | Code::Not(a)
        | Code::Neg(a)
        | Code::Round(a, ..)
        | Code::IsMissing(a) => vec![a],
        Code::And(a, b) | Code::Or(a, b) if strict => {
            let _ = b;
            vec![a]
        }
        Code::Arith(_, a, b) | Code::Compare(_, a, b) | Code::And(a, b) | Code::Or(a, b) => {
            vec![a, b]
        }
        Code::If(parts) if strict => vec![&parts.0],
        Code::If(parts) => vec![&parts.0, &parts.1, &parts.2],
        Code::Match(s, _, _) if strict => vec![s],
        Code::Match(s, arms, o) => std::iter::once(&**s)
            .chain(arms.iter().map(|(_, v)| v))
            .chain(std::iter::once(&**o))
            .collect(),
        Code::Coalesce(args) if strict => args.iter().take(1).collect(),
        Code::Extremum(_, args) | Code::Coalesce(args) => args.iter().collect(),
        Code::SumRows { filter, body, .. } => filter
            .iter()
            .map(|f| &**f)
            .chain(std::iter::once(&**body))
            .collect(),
        _ => Vec::new(),
    }
}

fn visit_node(node: &Node, f: &mut dyn FnMut(&Node)) {
    f(node);
    for c in node.children() {
        visit_node(c, f);
    }
}
