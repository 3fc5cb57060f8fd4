//! The code generator's state for one rulebook, and the types every part of
//! it shares: what names mean where an expression is generated (`Scope`),
//! what has been computed (`Dep`), how a group's items are held
//! (`GroupForm`), and what the interpreter would spend. It lives apart from
//! `mod.rs` so the files that generate each construct read it without
//! reading the module that calls them.

use std::collections::HashMap;

use super::ty::Ty;
use crate::model::code::node_count;
use crate::model::{Formula, Rulebook, Step};

/// Something computed once per case, before whatever reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Dep {
    Step(usize),
    Group(usize),
    Param(usize),
}

/// How the items of a generated group are held.
#[derive(Clone, Debug)]
pub(super) enum GroupForm {
    /// Unrolled: the local of step `j` of row `r`, with its type.
    Rows(Vec<Vec<(String, Ty)>>),
    /// `Vec` of struct `G{g}`; the type of each field `s{j}`.
    List(Vec<Ty>),
}

/// What names mean where an expression is generated.
#[derive(Clone, Copy, Default)]
pub(super) struct Scope<'s> {
    /// The current item (a `Value` place) and its steps' locals.
    pub(super) item: Option<ItemLocals<'s>>,
    /// The item a `SumRows` body is at: its steps' locals.
    pub(super) row: Option<&'s [(String, Ty)]>,
    /// Comprehension variables bound (`l0`, `l1`, …, innermost last).
    pub(super) depth: usize,
    /// The group whose item is current.
    pub(super) group: Option<usize>,
    /// In an answer: the deciding check and its decision, which `decision`
    /// and `reason` read.
    pub(super) decided: Option<(usize, usize)>,
}

/// An item (a `Value` place) and the locals of its steps computed so far.
pub(super) type ItemLocals<'s> = (&'s str, &'s [Option<(String, Ty)>]);

/// A formula the generator does not compile.
pub(super) struct Unsupported(pub(super) String);

pub(super) type Gened<T> = Result<T, Unsupported>;

/// The generator's state for one rulebook: what the code written so far
/// declares and computes.
pub(super) struct Gen<'r> {
    pub(super) rb: &'r Rulebook,
    pub(super) consts: Vec<String>,
    pub(super) const_names: HashMap<String, String>,
    pub(super) structs: Vec<String>,
    pub(super) fallbacks: Vec<String>,
    /// What the code generated so far has computed, innermost branch last.
    pub(super) done: Vec<Dep>,
    /// What is being generated (a cycle gives up).
    pub(super) busy: Vec<Dep>,
    /// The type of each step's local, once generated.
    pub(super) step_ty: Vec<Option<Ty>>,
    /// Whether each parameter has a local.
    pub(super) param_used: Vec<bool>,
    pub(super) groups: Vec<Option<GroupForm>>,
}

/// What the interpreter may spend on a formula, comprehension bodies once (the
/// generated loops count their items): a unit per node, and one more for
/// the base of a field read in place.
pub(super) fn spend(formula: Option<&Formula>) -> u64 {
    formula.map_or(0, |f| 2 * node_count(&f.node))
}

pub(super) fn step_spend(step: &Step) -> u64 {
    spend(step.when.as_ref())
        + spend(Some(&step.expr))
        + spend(step.otherwise.as_ref())
        + step
            .cite
            .iter()
            .map(|(when, _)| spend(Some(when)))
            .sum::<u64>()
}
