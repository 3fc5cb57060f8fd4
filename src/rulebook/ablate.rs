//! Ablations: a checked rulebook evaluated under declared alternative
//! readings, with the named step formulas replaced and nothing else changed.
//!
//! Several ablations apply together when no two replace the same step: each
//! then changes only the steps it names, and a step read by both sees both
//! readings. Together they must keep the step graph acyclic, which the
//! checker proved for each one alone.
//!
//! Invariant: an ablated copy differs from the rulebook in step formulas and
//! in the list of ablations it names, nothing else.

use std::sync::Arc;

use crate::model::{Ablation, Node, Rulebook, Step, StepRef};

impl Rulebook {
    /// A copy of the rulebook evaluating under the named ablation.
    pub fn ablated(&self, name: &str) -> Result<Rulebook, String> {
        self.ablated_all(&[name])
    }

    /// A copy of the rulebook evaluating under all the named ablations, in
    /// the order given (after any this copy already evaluates under). Refused:
    /// an unknown or empty name, a name given twice, two ablations replacing
    /// the same step, and replacements that together read steps in a cycle.
    pub fn ablated_all(&self, names: &[&str]) -> Result<Rulebook, String> {
        let mut chosen: Vec<&Ablation> = Vec::new();
        for name in self
            .applied_ablations
            .iter()
            .map(|a| &**a)
            .chain(names.iter().copied())
        {
            let ablation = self.find_ablation(name)?;
            if chosen.iter().any(|c| c.name == ablation.name) {
                return Err(format!("ablation `{name}` is named twice"));
            }
            for earlier in &chosen {
                let shared = ablation
                    .replacements
                    .iter()
                    .find(|(t, _)| earlier.replacements.iter().any(|(u, _)| u == t));
                if let Some((target, _)) = shared {
                    return Err(format!(
                        "ablations `{}` and `{}` both replace step `{}`, so they cannot apply together",
                        earlier.name,
                        ablation.name,
                        self.step_label(*target)
                    ));
                }
            }
            chosen.push(ablation);
        }
        let mut copy = self.clone();
        let new = &chosen[self.applied_ablations.len()..];
        for (target, formula) in new.iter().flat_map(|a| &a.replacements) {
            let step = match *target {
                StepRef::Top(i) => copy.steps.get_mut(i.index()),
                StepRef::Item(g, j) => copy.groups.get_mut(g).and_then(|g| g.steps.get_mut(j)),
            };
            if let Some(step) = step {
                step.expr = formula.clone();
            }
        }
        copy.applied_ablations = chosen.iter().map(|a| a.name.clone()).collect();
        if chosen.len() > 1 {
            if let Some(cycle) = step_cycle(&copy) {
                return Err(format!(
                    "ablations {} together make steps depend on each other in a cycle: {}",
                    copy.ablation_label().unwrap_or_default(),
                    cycle.join(" → ")
                ));
            }
        }
        if !new.is_empty() {
            super::prepare(&mut copy);
        }
        Ok(copy)
    }

    /// The declared ablation `name`, or an error listing the declared ones.
    fn find_ablation(&self, name: &str) -> Result<&Ablation, String> {
        if name.is_empty() {
            return Err(
                "an empty ablation name: separate the names with commas, as in `a,b`".into(),
            );
        }
        self.ablations
            .iter()
            .find(|a| &*a.name == name)
            .ok_or_else(|| {
                let known: Vec<&str> = self.ablations.iter().map(|a| &*a.name).collect();
                if known.is_empty() {
                    format!("rulebook {} declares no ablations", self.id)
                } else {
                    format!(
                        "unknown ablation `{name}`; {} declares: {}",
                        self.id,
                        known.join(", ")
                    )
                }
            })
    }

    /// A step as an ablation names it: `step` or `group.step`.
    fn step_label(&self, target: StepRef) -> String {
        match target {
            StepRef::Top(i) => self.steps.get(i.index()).map(|s| s.name.to_string()),
            StepRef::Item(g, j) => self.groups.get(g).and_then(|group| {
                let step = group.steps.get(j)?;
                Some(format!("{}.{}", group.name, step.name))
            }),
        }
        .unwrap_or_else(|| "?".into())
    }
}

/// A cycle among the steps of `rb` as they stand, by name, if any: top-level
/// steps, groups (a group reads what its `over` and its steps read at the
/// top level) and each group's steps among themselves.
fn step_cycle(rb: &Rulebook) -> Option<Vec<Arc<str>>> {
    let n = rb.steps.len();
    let mut names: Vec<Arc<str>> = rb.steps.iter().map(|s| s.name.clone()).collect();
    names.extend(rb.groups.iter().map(|g| g.name.clone()));
    let mut deps: Vec<Vec<usize>> = Vec::with_capacity(names.len());
    for step in &rb.steps {
        let mut top = Vec::new();
        for f in formulas(step) {
            f.step_reads(n, &mut top, &mut Vec::new());
        }
        deps.push(top);
    }
    let mut items: Vec<Vec<usize>> = Vec::new();
    for group in &rb.groups {
        let mut top = Vec::new();
        group.over.node.step_reads(n, &mut top, &mut Vec::new());
        // Item steps are numbered after every top-level step and group.
        let first = names.len() + items.len();
        for step in &group.steps {
            let mut local = Vec::new();
            for f in formulas(step) {
                f.step_reads(n, &mut top, &mut local);
            }
            items.push(local.into_iter().map(|j| first + j).collect());
        }
        deps.push(top);
    }
    for group in &rb.groups {
        names.extend(
            group
                .steps
                .iter()
                .map(|s| Arc::from(format!("{}.{}", group.name, s.name))),
        );
    }
    deps.extend(items);
    first_cycle(&deps).map(|cycle| cycle.into_iter().map(|i| names[i].clone()).collect())
}

/// The formulas of a step: its `expr`, `when`, `otherwise` and citations.
fn formulas(step: &Step) -> impl Iterator<Item = &Node> {
    step.formulas().map(|f| &f.node)
}

/// The first cycle of a graph found by depth-first search, as its nodes in
/// order with the first repeated at the end. Iterative: no recursion per node.
fn first_cycle(deps: &[Vec<usize>]) -> Option<Vec<usize>> {
    // 0 = new, 1 = on the path, 2 = done.
    let mut colour = vec![0u8; deps.len()];
    for root in 0..deps.len() {
        if colour[root] != 0 {
            continue;
        }
        colour[root] = 1;
        let mut path: Vec<(usize, usize)> = vec![(root, 0)];
        while let Some((node, next)) = path.last_mut() {
            let Some(&dep) = deps[*node].get(*next) else {
                colour[*node] = 2;
                path.pop();
                continue;
            };
            *next += 1;
            match colour.get(dep) {
                Some(0) => {
                    colour[dep] = 1;
                    path.push((dep, 0));
                }
                Some(1) => {
                    let start = path.iter().position(|(s, _)| *s == dep).unwrap_or(0);
                    let mut cycle: Vec<usize> = path[start..].iter().map(|(s, _)| *s).collect();
                    cycle.push(dep);
                    return Some(cycle);
                }
                _ => {}
            }
        }
    }
    None
}
