//! How deep an evaluation can nest: formulas inside formulas, through every
//! chain of step reads, measured once at load.
//!
//! The evaluator computes a step where it is first read, inside the formula
//! that reads it, so a chain of 8,000 steps each reading the one before, or
//! a few steps of long `+` chains, nest thousands of levels deep. A rulebook
//! is untrusted input: the checker refuses one whose deepest chain passes
//! [`MAX_EVAL_DEPTH`], located at the first step that does, so no case can
//! make evaluation, tracing or code generation exhaust the stack.
//!
//! Invariant: the measure is iterative over the step graph (no recursion
//! per step), and recursive only within one formula, whose nesting the
//! parser bounds.

use crate::diag::Problem;
use std::collections::HashSet;

use crate::model::{Node, NodeKind, Rulebook, Step};
use crate::span::Span;

/// Deepest nesting accepted, counted in formula nodes along any chain of
/// step reads. The bundled rulebooks stay under a tenth of it.
pub const MAX_EVAL_DEPTH: usize = 1_500;

/// A top-level step, a group, or a group's step: one node of the step graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Unit {
    Step(usize),
    Group(usize),
    Item(usize, usize),
}

/// The measured depth of every unit, `None` until measured.
struct Depths<'r> {
    rb: &'r Rulebook,
    steps: Vec<Option<usize>>,
    groups: Vec<Option<usize>>,
    items: Vec<Vec<Option<usize>>>,
}

impl<'r> Depths<'r> {
    fn new(rb: &'r Rulebook) -> Self {
        Depths {
            rb,
            steps: vec![None; rb.steps.len()],
            groups: vec![None; rb.groups.len()],
            items: rb
                .groups
                .iter()
                .map(|g| vec![None; g.steps.len()])
                .collect(),
        }
    }

    fn get(&self, unit: Unit) -> Option<usize> {
        match unit {
            Unit::Step(i) => self.steps.get(i).copied().flatten(),
            Unit::Group(g) => self.groups.get(g).copied().flatten(),
            Unit::Item(g, j) => self.items.get(g)?.get(j).copied().flatten(),
        }
    }

    fn set(&mut self, unit: Unit, depth: usize) {
        let slot = match unit {
            Unit::Step(i) => self.steps.get_mut(i),
            Unit::Group(g) => self.groups.get_mut(g),
            Unit::Item(g, j) => self.items.get_mut(g).and_then(|s| s.get_mut(j)),
        };
        if let Some(slot) = slot {
            *slot = Some(depth);
        }
    }

    /// The depth of `node` inside group `group` (if any), each read adding
    /// the depth of what it reads; reads not measured yet count zero and are
    /// listed in `pending`.
    fn node(&self, node: &Node, group: Option<usize>, pending: &mut Vec<Unit>) -> usize {
        let read = match node.kind {
            NodeKind::Step(i) => Some(Unit::Step(i.index())),
            NodeKind::Group(g) => Some(Unit::Group(g)),
            NodeKind::ItemStep(j) => group.map(|g| Unit::Item(g, j)),
            _ => None,
        };
        let below = read.map_or(0, |unit| {
            self.get(unit).unwrap_or_else(|| {
                pending.push(unit);
                0
            })
        });
        let children = node
            .children()
            .into_iter()
            .map(|c| self.node(c, group, pending))
            .max()
            .unwrap_or(0);
        1 + below.max(children)
    }

    fn step(&self, step: &Step, group: Option<usize>, pending: &mut Vec<Unit>) -> usize {
        step.formulas()
            .map(|f| self.node(&f.node, group, pending))
            .max()
            .unwrap_or(0)
    }

    /// The unit's depth from what is measured so far, and what it still waits for.
    fn measure(&self, unit: Unit) -> (usize, Vec<Unit>) {
        let mut pending = Vec::new();
        let depth = match unit {
            Unit::Step(i) => self
                .rb
                .steps
                .get(i)
                .map_or(0, |s| self.step(s, None, &mut pending)),
            Unit::Group(g) => self.rb.groups.get(g).map_or(0, |group| {
                let over = self.node(&group.over.node, None, &mut pending);
                let items = (0..group.steps.len())
                    .map(|j| {
                        self.get(Unit::Item(g, j)).unwrap_or_else(|| {
                            pending.push(Unit::Item(g, j));
                            0
                        })
                    })
                    .max()
                    .unwrap_or(0);
                over.max(items)
            }),
            Unit::Item(g, j) => self
                .rb
                .groups
                .get(g)
                .and_then(|group| group.steps.get(j))
                .map_or(0, |s| self.step(s, Some(g), &mut pending)),
        };
        (depth, pending)
    }

    /// Measures `root` and everything it reads, depth first on an explicit
    /// stack. A unit read while it waits for its own reads (a cycle, which
    /// the checker refuses before) counts what is known.
    fn resolve(&mut self, root: Unit) {
        let mut waiting = HashSet::new();
        let mut stack = vec![(root, false)];
        while let Some((unit, waited)) = stack.pop() {
            if self.get(unit).is_some() {
                continue;
            }
            let (depth, pending) = self.measure(unit);
            if waited || pending.is_empty() {
                self.set(unit, depth);
                waiting.remove(&unit);
                continue;
            }
            waiting.insert(unit);
            stack.push((unit, true));
            stack.extend(
                pending
                    .into_iter()
                    .filter(|p| !waiting.contains(p))
                    .map(|p| (p, false)),
            );
        }
    }
}

/// The problem of a rulebook whose evaluation could nest deeper than
/// [`MAX_EVAL_DEPTH`], at the first step (in declaration order) that does.
pub(crate) fn too_deep(rb: &Rulebook) -> Option<Problem> {
    let mut depths = Depths::new(rb);
    let mut units: Vec<(Unit, &Step)> = rb
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| (Unit::Step(i), s))
        .collect();
    for (g, group) in rb.groups.iter().enumerate() {
        units.extend(
            group
                .steps
                .iter()
                .enumerate()
                .map(|(j, s)| (Unit::Item(g, j), s)),
        );
    }
    for (unit, step) in units {
        depths.resolve(unit);
        let depth = depths.get(unit).unwrap_or(0);
        if depth > MAX_EVAL_DEPTH {
            let span = step
                .expr
                .offset
                .map_or(Span::new(0, 0), |o| Span::new(o, o + step.expr.text.len()));
            return Some(
                Problem::new(
                    "check::too_deep",
                    format!(
                        "step `{}` evaluates {depth} formula levels deep through the steps it reads, more than the limit of {MAX_EVAL_DEPTH}",
                        step.name
                    ),
                )
                .at(span, "this chain of steps is too deep")
                .help("compute the chain in fewer steps, or with a per-item group over a list"),
            );
        }
    }
    None
}
