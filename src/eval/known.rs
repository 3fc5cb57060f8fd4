//! Per-item steps known at load, with a trace: replayed, not run.
//!
//! A step of a specialised row that folded to a constant
//! (`SpecializedRow::known`) records the same trace for every case. The
//! first traced evaluation that runs it in full keeps what it recorded
//! (`model::KnownTrace`, once per row and step); later ones replay it: the
//! row's known steps it reads, those not computed yet, in the order it
//! reads them (as the full step computes them on first read), then its
//! event, spending the budget its own nodes spend.
//!
//! INVARIANT: a replay records and spends exactly what the full step
//! would. It is taken only with the budget for it and every step it reads
//! left, so a budget that runs out is named inside a step run in full, at
//! the node the full evaluation names.

use std::sync::OnceLock;

use crate::model::{KnownTrace, SpecializedRow};
use crate::trace::{Event, StepEvent};
use crate::value::Value;

use super::machine::{Machine, Res, Site, Slot};
use super::tracer::Tracer;

impl<'a, T: Tracer> Machine<'a, T> {
    /// Step `j` of the current item (item `index` of group `g`) when a
    /// trace is kept and its row knows it: replayed, or run in full and
    /// recorded for the next evaluations. `None` when the step is not known
    /// (or replays are off): the caller runs it.
    #[inline]
    pub(super) fn known_item_step(
        &mut self,
        g: usize,
        index: usize,
        j: usize,
    ) -> Option<Res<Value>> {
        // A group over rows a case supplies has nothing known: one test.
        if !(T::ON && self.replay) || self.rb.groups.get(g)?.specialized.is_none() {
            return None;
        }
        self.known_row_step(g, index, j)
    }

    #[inline(never)]
    fn known_row_step(&mut self, g: usize, index: usize, j: usize) -> Option<Res<Value>> {
        let rb = self.rb;
        let row = rb.groups.get(g)?.specialized.as_deref()?.rows.get(index)?;
        row.known.get(j)?.as_ref()?;
        let cell = row.traces.get(j)?;
        let (budget, spent) = (self.budget, self.known_spent);
        let res = match cell.get() {
            Some(Some(known)) if self.budget >= known.bound => self.replay_known(g, j, known),
            Some(Some(_)) => {
                // Too little budget left to replay: in full, and the steps
                // it reads too, so that the fault is named where it happens.
                self.replay = false;
                let res = self.run_item_step_full(g, index, j);
                self.replay = true;
                res
            }
            Some(None) => self.run_item_step_full(g, index, j),
            None => {
                let res = self.run_item_step_full(g, index, j);
                if res.is_ok() {
                    let nested = self.known_spent.saturating_sub(spent);
                    let own = budget.saturating_sub(self.budget).saturating_sub(nested);
                    if let Some(known) = self.recorded(g, j, row) {
                        let known = known.and_then(|(deps, bound)| {
                            Some(KnownTrace {
                                event: self.tracer.share_last_step()?,
                                deps,
                                own,
                                bound: bound.saturating_add(own),
                            })
                        });
                        // Another thread may have set the same first.
                        let _ = cell.set(known);
                    }
                }
                res
            }
        };
        self.known_spent = spent.saturating_add(budget.saturating_sub(self.budget));
        Some(res)
    }

    fn run_item_step_full(&mut self, g: usize, index: usize, j: usize) -> Res<Value> {
        let rb = self.rb;
        let label = self.current.as_ref().and_then(|c| c.label.clone());
        self.run_step(&rb.groups[g].steps[j], Site::ItemStep(g, j, index), label)
    }

    /// Whether the step just run in full (step `j` of group `g`, in
    /// `row`) can be replayed from its event: the row's steps it reads, and
    /// the most their replays spend; `Some(None)` when a replay cannot (a
    /// lookup or a rounding, or a read of a step its row does not know),
    /// `None` when a step it reads is not recorded yet (a later evaluation
    /// will record it).
    fn recorded(
        &self,
        g: usize,
        j: usize,
        row: &SpecializedRow,
    ) -> Option<Option<(Vec<usize>, u64)>> {
        let steps = &self.rb.groups.get(g)?.steps;
        let t = self.tracer.last_step()?;
        if t.step != steps.get(j)?.name {
            return None;
        }
        if !t.lookups.is_empty() || !t.roundings.is_empty() {
            return Some(None);
        }
        let (mut deps, mut bound) = (Vec::new(), 0u64);
        // A name of the group's steps read inside the group is that step
        // (a per-item step shadows any other name), never a field's path.
        for read in &t.reads {
            let Some(k) = steps.iter().position(|s| s.name == read.name) else {
                continue;
            };
            if !matches!(row.known.get(k), Some(Some(_))) {
                return Some(None);
            }
            match row.traces.get(k).map(OnceLock::get) {
                Some(Some(Some(dep))) => {
                    deps.push(k);
                    bound = bound.saturating_add(dep.bound);
                }
                Some(Some(None)) => return Some(None),
                _ => return None,
            }
        }
        Some(Some((deps, bound)))
    }

    /// Replays step `j` of group `g` from what its first full run recorded.
    fn replay_known(&mut self, g: usize, j: usize, known: &'a KnownTrace) -> Res<Value> {
        let rb = self.rb;
        let step = &rb.groups[g].steps[j];
        let span = step.expr.code.span;
        for &d in &known.deps {
            let todo = matches!(
                self.current.as_ref().and_then(|c| c.slots.get(d)),
                Some(Slot::Todo)
            );
            if todo {
                self.item_step(d, span)?;
            }
        }
        self.spend_many(known.own, span)?;
        self.tracer
            .event(Event::Step(StepEvent::Shared(known.event.clone())));
        Ok(known.event.step().value.clone())
    }
}

#[cfg(test)]
mod tests;
