//! Ablations: named alternative readings, each replacing some step formulas.
//!
//! A replacement formula is resolved in the scope of the step it replaces
//! and must give that step's type. It may read steps the original did not,
//! so the step graph is checked again under each ablation: it must stay
//! acyclic, or evaluating the ablated rulebook could loop.
//!
//! Invariant: an ablation changes formulas only; everything else, validation
//! included, is the checked rulebook's.

use indexmap::IndexMap;
use std::sync::Arc;

use super::{Checker, Declared};
use crate::model::*;
use crate::rulebook::raw::*;
use crate::span::Span;

impl Checker<'_> {
    /// Compiles each ablation's replacement formulas in the scope of the step they replace.
    pub(super) fn ablations(
        &mut self,
        raw: &IndexMap<String, RawAblation>,
        declared: &Declared<'_>,
        steps: &[Step],
        groups: &[Group],
    ) -> Vec<Ablation> {
        // Formulas number steps and groups (and a group's steps) as declared,
        // but one that failed to resolve is missing from the built lists: the
        // graph of the ablated steps would not hold then. Its problem is
        // already reported, so the rulebook is refused without that check.
        let complete = steps.len() == declared.step_types.len()
            && groups.len() == declared.group_types.len()
            && groups.iter().all(|g| g.steps.len() == g.names.len());
        let mut out = Vec::new();
        for (name, a) in raw {
            // The ablation's first formula, or its header when it has none.
            let at = match a.steps.values().next() {
                Some(first) => first.anchor(),
                None => self.header("ablations", name),
            };
            self.check_ident(name, at);
            let mut replacements = Vec::new();
            for (target, expr) in &a.steps {
                let found = match target.split_once('.') {
                    None => steps
                        .iter()
                        .position(|s| &*s.name == target)
                        .map(|i| (StepRef::Top(StepId::new(i)), &steps[i], None)),
                    Some((g, st)) => groups.iter().position(|x| &*x.name == g).and_then(|gi| {
                        let j = groups[gi].steps.iter().position(|s| &*s.name == st)?;
                        Some((
                            StepRef::Item(gi, j),
                            &groups[gi].steps[j],
                            declared.group_scopes.get(gi),
                        ))
                    }),
                };
                let Some((step_ref, step, gs)) = found else {
                    let message = format!("ablation `{name}` replaces `{target}`, which is not a step (write `group.step` for a per-item step)");
                    self.problem("check::unknown_name", expr.anchor(), message, "here");
                    continue;
                };
                let scope = declared.in_group(gs);
                let p = self.parse(expr);
                if let Some((f, ty)) = self.resolve(&p, &scope) {
                    self.expect_type(&p, &ty, &step.ty, "an ablation's formula");
                    replacements.push((step_ref, f));
                }
            }
            if complete {
                self.ablation_cycles(name, at, &replacements, steps, groups);
            }
            out.push(Ablation {
                name: Arc::from(name.as_str()),
                label: a.label.clone(),
                description: a.description.clone(),
                replacements,
            });
        }
        out
    }

    /// An ablation's formulas may read steps the original ones did not: the
    /// step graph must stay acyclic under it too. A cycle is reported at the
    /// ablation's first formula (`at` when its text cannot be located inside).
    fn ablation_cycles(
        &mut self,
        name: &str,
        at: Span,
        replacements: &[(StepRef, Formula)],
        steps: &[Step],
        groups: &[Group],
    ) {
        let formula_of = |target: StepRef, original: &Formula| -> Formula {
            replacements
                .iter()
                .find(|(t, _)| *t == target)
                .map_or_else(|| original.clone(), |(_, f)| f.clone())
        };
        let step_formulas = |step: &Step, target: StepRef| -> Vec<Formula> {
            let mut fs = vec![formula_of(target, &step.expr)];
            fs.extend(step.formulas().skip(1).cloned());
            fs
        };
        let span = replacements
            .first()
            .and_then(|(_, f)| f.offset.map(|o| Span::new(o, o + f.text.len())))
            .unwrap_or(at);
        let n = steps.len();
        let mut deps: Vec<Vec<usize>> = Vec::with_capacity(n + groups.len());
        for (i, step) in steps.iter().enumerate() {
            let mut d = Vec::new();
            for f in step_formulas(step, StepRef::Top(StepId::new(i))) {
                f.node.step_reads(n, &mut d, &mut Vec::new());
            }
            deps.push(d);
        }
        for (g, group) in groups.iter().enumerate() {
            let mut d = Vec::new();
            group.over.node.step_reads(n, &mut d, &mut Vec::new());
            let mut local: Vec<Vec<usize>> = Vec::new();
            for (j, step) in group.steps.iter().enumerate() {
                let mut l = Vec::new();
                for f in step_formulas(step, StepRef::Item(g, j)) {
                    f.node.step_reads(n, &mut d, &mut l);
                }
                local.push(l);
            }
            let names: Vec<String> = group
                .steps
                .iter()
                .map(|s| format!("{}.{} (ablation {name})", group.name, s.name))
                .collect();
            self.topo_order(
                &local,
                &names,
                &vec![span; names.len()],
                &|_, _| None,
                "per-item steps",
            );
            deps.push(d);
        }
        let mut names: Vec<String> = steps
            .iter()
            .map(|s| format!("{} (ablation {name})", s.name))
            .collect();
        names.extend(
            groups
                .iter()
                .map(|g| format!("{} (ablation {name})", g.name)),
        );
        self.topo_order(
            &deps,
            &names,
            &vec![span; names.len()],
            &|_, _| None,
            "steps",
        );
    }
}
