//! Ablations: a checked rulebook evaluated under a declared alternative
//! reading, with the named step formulas replaced and nothing else changed.

use crate::model::{Rulebook, StepRef};

impl Rulebook {
    /// A copy of the rulebook evaluating under the named ablation.
    pub fn ablated(&self, name: &str) -> Result<Rulebook, String> {
        let Some(ablation) = self.ablations.iter().find(|a| &*a.name == name) else {
            let known: Vec<&str> = self.ablations.iter().map(|a| &*a.name).collect();
            return Err(if known.is_empty() {
                format!("rulebook {} declares no ablations", self.id)
            } else {
                format!(
                    "unknown ablation `{name}`; {} declares: {}",
                    self.id,
                    known.join(", ")
                )
            });
        };
        let mut copy = self.clone();
        for (target, formula) in &ablation.replacements {
            let step = match *target {
                StepRef::Top(i) => copy.steps.get_mut(i),
                StepRef::Item(g, j) => copy.groups.get_mut(g).and_then(|g| g.steps.get_mut(j)),
            };
            if let Some(step) = step {
                step.expr = formula.clone();
            }
        }
        copy.applied_ablation = Some(ablation.name.clone());
        super::prepare(&mut copy);
        Ok(copy)
    }
}
