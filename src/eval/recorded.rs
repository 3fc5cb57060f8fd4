//! A traced evaluation of a specialised row's step: the step as written,
//! its parts the same for every case (`model::code::Recorded`, marked by
//! `rulebook::recorded`) replayed from what they recorded the first time.
//!
//! INVARIANT: a replay records and spends exactly what the part as written
//! would, in the same order. It is taken only with the budget for it left
//! and every step of the row it reads computed, so a budget that runs out
//! inside the part, or a step it would compute first, is met by running
//! the part as written, which names it where the full evaluation does.

use crate::model::code::{Capture, Recorded, Then};
use crate::model::code::{Code, CodeKind};
use crate::model::Step;
use crate::value::{compare, Value};

use super::machine::{Fault, Machine, Res, Slot};
use super::tracer::Tracer;

impl<'a, T: Tracer> Machine<'a, T> {
    /// Step `j` of item `index` of group `g` as a traced evaluation runs
    /// it, when its row marks parts of it for replay.
    #[inline]
    pub(super) fn traced_row_step(&self, g: usize, index: usize, j: usize) -> Option<&'a Step> {
        if !(T::ON && self.replay) {
            return None;
        }
        let rb = self.rb;
        let row = rb.groups.get(g)?.specialized.as_deref()?.rows.get(index)?;
        row.traced.get(j)?.as_ref()
    }

    /// A marked part's value: replayed, or run as written (and captured,
    /// the first time). `record` as for `eval`.
    pub(super) fn replayed(&mut self, r: &'a Recorded, record: bool) -> Res<Value> {
        if !record {
            return self.eval(&r.whole, false);
        }
        match r.capture.get() {
            Some(Some(capture)) if self.replayable(capture) => {
                self.budget -= capture.spent;
                for (name, value) in &capture.reads {
                    self.tracer.read(name, value);
                }
                self.then(r, &capture.then)
            }
            Some(_) => self.eval(&r.whole, true),
            None => self.capture(r),
        }
    }

    fn replayable(&self, capture: &Capture) -> bool {
        let Some(current) = &self.current else {
            return false;
        };
        self.budget >= capture.spent
            && (capture.deps.iter()).all(|&d| matches!(current.slots.get(d), Some(Slot::Done(_))))
    }

    fn then(&mut self, r: &'a Recorded, then: &Then) -> Res<Value> {
        match then {
            Then::Value(v) => Ok(v.clone()),
            Then::Arm(i) => match r.arms.get(*i) {
                Some(arm) => self.value(arm),
                None => self.eval(&r.whole, true),
            },
        }
    }

    /// Runs the part as written, in a frame of its own whose reads go on
    /// to the formula's, and keeps what it recorded when a replay can give
    /// it: nothing else was computed on the way (a step of the row it
    /// reads first), and it recorded no lookup or rounding.
    #[inline(never)]
    fn capture(&mut self, r: &'a Recorded) -> Res<Value> {
        let (budget, events) = (self.budget, self.tracer.events());
        self.tracer.push_frame();
        let res = if r.arms.is_empty() {
            self.eval(&r.whole, true).map(Then::Value)
        } else {
            self.settled_arm(&r.whole).map(Then::Arm)
        };
        let frame = self.tracer.pop_frame();
        for read in &frame.reads {
            self.tracer.read(&read.name, &read.value);
        }
        let plain = frame.lookups.is_empty() && frame.roundings.is_empty();
        for lookup in frame.lookups {
            self.tracer.lookup(lookup);
        }
        for rounding in frame.roundings {
            self.tracer.rounding(rounding);
        }
        let then = res?;
        if !plain {
            let _ = r.capture.set(None);
        } else if self.tracer.events() == events {
            let steps = match &self.current {
                Some(c) => &self.rb.groups[c.group].steps,
                None => &[][..],
            };
            // A name of the group's steps read inside the group is that
            // step (a per-item step shadows any other name).
            let deps = (frame.reads.iter())
                .filter_map(|read| steps.iter().position(|s| s.name == read.name))
                .collect();
            // Another thread may have set the same first.
            let _ = r.capture.set(Some(Capture {
                spent: budget.saturating_sub(self.budget),
                reads: (frame.reads.into_iter())
                    .map(|read| (read.name, read.value))
                    .collect(),
                deps,
                then: then.clone(),
            }));
        }
        self.then(r, &then)
    }

    /// The arm a choice takes, as `eval` chooses it: the choice's unit,
    /// then its condition or scrutinee.
    fn settled_arm(&mut self, whole: &'a Code) -> Res<usize> {
        match &whole.kind {
            CodeKind::If(parts) => {
                self.spend(whole.span)?;
                Ok(if self.truth(&parts.0)? { 0 } else { 1 })
            }
            CodeKind::Match(scrutinee, arms, _) => {
                self.spend(whole.span)?;
                let v = self.present(scrutinee)?;
                let arm = arms.iter().position(|(literals, _)| {
                    (literals.iter()).any(|literal| compare(&v, literal).is_some_and(|o| o.is_eq()))
                });
                Ok(arm.unwrap_or(arms.len()))
            }
            _ => Err(Fault::at(whole.span, "misplaced code".into())),
        }
    }
}

#[cfg(test)]
mod tests;
