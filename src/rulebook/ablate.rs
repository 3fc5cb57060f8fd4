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

/// Why a rulebook cannot evaluate under the ablations named. Its `Display`
/// is the line `bareme --ablate` prints after `error: `.
///
/// ```
/// let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// // Luma declares no ablations.
/// let err: bareme::AblationError = rb.ablated("nope").unwrap_err();
/// assert_eq!(err.code(), "ablation::none_declared");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AblationError {
    /// An empty name in the list (`a,,b`).
    #[error("an empty ablation name: separate the names with commas, as in `a,b`")]
    EmptyName,
    /// The rulebook declares no ablation at all.
    #[error("rulebook {rulebook} declares no ablations")]
    NoneDeclared {
        /// The rulebook's id.
        rulebook: String,
    },
    /// No declared ablation has this name.
    #[error("unknown ablation `{name}`; {rulebook} declares: {}", .declared.join(", "))]
    Unknown {
        /// The name given.
        name: String,
        /// The rulebook's id.
        rulebook: String,
        /// The ablations it declares, in declaration order.
        declared: Vec<String>,
    },
    /// The same ablation named twice (or named again on a copy already under it).
    #[error("ablation `{0}` is named twice")]
    Twice(String),
    /// Two ablations replace the same step, so neither reading is the other's.
    #[error("ablations `{first}` and `{second}` both replace step `{step}`, so they cannot apply together")]
    SameStep {
        /// The ablation named first.
        first: String,
        /// The one named after it.
        second: String,
        /// The step both replace, as `step` or `group.step`.
        step: String,
    },
    /// The replacements together make steps read each other.
    #[error("ablations {ablations} together make steps depend on each other in a cycle: {}", .cycle.join(" → "))]
    Cycle {
        /// The ablations, as the rulebook labels them (`a,b`).
        ablations: String,
        /// The steps of the cycle, in reading order, the first repeated last.
        cycle: Vec<String>,
    },
}

impl AblationError {
    /// A stable code: `ablation::empty_name`, `ablation::none_declared`,
    /// `ablation::unknown`, `ablation::twice`, `ablation::same_step`,
    /// `ablation::cycle`.
    pub fn code(&self) -> &'static str {
        match self {
            AblationError::EmptyName => "ablation::empty_name",
            AblationError::NoneDeclared { .. } => "ablation::none_declared",
            AblationError::Unknown { .. } => "ablation::unknown",
            AblationError::Twice(_) => "ablation::twice",
            AblationError::SameStep { .. } => "ablation::same_step",
            AblationError::Cycle { .. } => "ablation::cycle",
        }
    }
}

impl Rulebook {
    /// A copy of the rulebook evaluating under the named ablation.
    ///
    /// ```
    /// let rb = bareme::load_rulebook("rulebooks/sales-tax/v1".as_ref())?;
    /// let wrong = rb.ablated("exemption_ignored")?;
    /// assert_eq!(wrong.ablation_label().as_deref(), Some("exemption_ignored"));
    /// assert_eq!(rb.ablated("nope").unwrap_err().code(), "ablation::unknown");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn ablated(&self, name: &str) -> Result<Rulebook, AblationError> {
        self.ablated_all(&[name])
    }

    /// A copy of the rulebook evaluating under all the named ablations, in
    /// the order given (after any this copy already evaluates under). Refused:
    /// an unknown or empty name, a name given twice, two ablations replacing
    /// the same step, and replacements that together read steps in a cycle.
    ///
    /// ```
    /// let rb = bareme::load_rulebook("rulebooks/sales-tax/v1".as_ref())?;
    /// let both = rb.ablated_all(&["billing_jurisdiction", "tax_per_unit"])?;
    /// assert_eq!(both.applied_ablations().count(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn ablated_all(&self, names: &[&str]) -> Result<Rulebook, AblationError> {
        let mut chosen: Vec<&Ablation> = Vec::new();
        for name in self
            .applied_ablations
            .iter()
            .map(|a| &**a)
            .chain(names.iter().copied())
        {
            let ablation = self.find_ablation(name)?;
            if chosen.iter().any(|c| c.name == ablation.name) {
                return Err(AblationError::Twice(name.to_string()));
            }
            for earlier in &chosen {
                let shared = ablation
                    .replacements
                    .iter()
                    .find(|(t, _)| earlier.replacements.iter().any(|(u, _)| u == t));
                if let Some((target, _)) = shared {
                    return Err(AblationError::SameStep {
                        first: earlier.name.to_string(),
                        second: ablation.name.to_string(),
                        step: self.step_label(*target),
                    });
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
                return Err(AblationError::Cycle {
                    ablations: copy.ablation_label().unwrap_or_default(),
                    cycle: cycle.iter().map(|s| s.to_string()).collect(),
                });
            }
        }
        if !new.is_empty() {
            super::prepare(&mut copy);
        }
        Ok(copy)
    }

    /// Every number step dropped in turn: a copy whose step (top-level or
    /// of a group, named `step` or `group.step`) is `0` wherever it applies,
    /// nothing else changed. What a reader who skips that step answers
    /// (sales-tax without its rate: the nets, no tax); `bareme baselines`
    /// scores each as a strategy.
    pub fn dropped_steps(&self) -> Vec<(String, Rulebook)> {
        let Ok((zero, _)) = self.free_formula("0", Vec::new()) else {
            return Vec::new();
        };
        let mut targets: Vec<StepRef> = Vec::new();
        for (i, step) in self.steps.iter().enumerate() {
            if step.ty == crate::model::Type::Number {
                targets.push(StepRef::Top(crate::model::StepId::new(i)));
            }
        }
        for (g, group) in self.groups.iter().enumerate() {
            for (j, step) in group.steps.iter().enumerate() {
                if step.ty == crate::model::Type::Number {
                    targets.push(StepRef::Item(g, j));
                }
            }
        }
        let mut out = Vec::new();
        for target in targets {
            let mut copy = self.clone();
            let step = match target {
                StepRef::Top(i) => copy.steps.get_mut(i.index()),
                StepRef::Item(g, j) => copy.groups.get_mut(g).and_then(|g| g.steps.get_mut(j)),
            };
            if let Some(step) = step {
                step.expr = zero.clone();
                if step.otherwise.is_some() {
                    step.otherwise = Some(zero.clone());
                }
            }
            super::prepare(&mut copy);
            out.push((self.step_label(target), copy));
        }
        out
    }

    /// The declared ablation `name`, or an error listing the declared ones.
    fn find_ablation(&self, name: &str) -> Result<&Ablation, AblationError> {
        if name.is_empty() {
            return Err(AblationError::EmptyName);
        }
        self.ablations
            .iter()
            .find(|a| &*a.name == name)
            .ok_or_else(|| {
                let declared: Vec<String> =
                    self.ablations.iter().map(|a| a.name.to_string()).collect();
                if declared.is_empty() {
                    AblationError::NoneDeclared {
                        rulebook: self.id.to_string(),
                    }
                } else {
                    AblationError::Unknown {
                        name: name.to_string(),
                        rulebook: self.id.to_string(),
                        declared,
                    }
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
