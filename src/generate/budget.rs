//! What the draws of one task may cost, counted two ways: in evaluations
//! of the rulebook (each validation of a case, evaluation of it or of a
//! free formula over it, under the reference or an ablated copy, made while
//! drawing a case, checking it or perturbing it, over every draw of the
//! task's index) and in the units of evaluation budget those spend all
//! together, with the work of rendering each draw's prompt (an instruction,
//! or 64 bytes built or walked, a unit). The rulebook's own limits bound each evaluation; these counts
//! bound how many a task makes and what they cost, which its redraws,
//! perturbations and items would otherwise multiply without end (a
//! generator of 120 perturbations and 3,000 redraws once took minutes a
//! task; an `accept` formula of a million steps that never held, with
//! 50,000 evaluations a task, hours).
//!
//! Counting touches no random stream: a task drawn within its budget is
//! the same task whatever the budget. Units are counted by the evaluator on
//! the thread that runs an attempt ([`steps_on_this_thread`]), between
//! [`Evaluations::begin`] and [`Evaluations::end`]: an attempt runs on one
//! thread, though one task's attempts may run on several.

use crate::eval::steps_on_this_thread;

/// A task's budget is spent (the most it may make).
#[derive(Debug)]
pub(crate) enum Spent {
    /// Its evaluations, of this many.
    Evaluations(u64),
    /// Its units of evaluation budget, of this many.
    Steps(u64),
}

impl std::fmt::Display for Spent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Spent::Evaluations(n) => write!(f, "its {n} evaluations of the rulebook are spent"),
            Spent::Steps(n) => write!(f, "its {n} steps of evaluation and rendering are spent"),
        }
    }
}

/// The evaluations a task has made and the units they spent, and the most
/// it may.
#[derive(Debug)]
pub(crate) struct Evaluations {
    spent: u64,
    most: u64,
    /// Units spent by the attempts ended so far.
    steps: u64,
    most_steps: u64,
    /// This thread's tally when the current attempt began.
    from: u64,
}

impl Evaluations {
    pub(crate) fn new(most: u64, most_steps: u64) -> Self {
        Evaluations {
            spent: 0,
            most,
            steps: 0,
            most_steps,
            from: steps_on_this_thread(),
        }
    }

    /// An attempt begins on this thread: its units are counted from here.
    pub(crate) fn begin(&mut self) {
        self.from = steps_on_this_thread();
    }

    /// The attempt begun on this thread ends: its units are added.
    pub(crate) fn end(&mut self) {
        self.steps = self.steps_now();
        self.from = steps_on_this_thread();
    }

    fn steps_now(&self) -> u64 {
        let attempt = steps_on_this_thread().saturating_sub(self.from);
        self.steps.saturating_add(attempt)
    }

    /// Counts `n` units of other work the attempt did (a prompt's
    /// rendering, `prompt::run`); [`Evaluations::exhausted`] then holds
    /// past the budget.
    pub(crate) fn add_units(&mut self, n: u64) {
        self.steps = self.steps.saturating_add(n);
    }

    /// Counts `n` evaluations about to be made: [`Spent`] (a redraw, to a
    /// draw) when they would pass the budget, or when the units spent so
    /// far have, after which [`Evaluations::exhausted`] holds and the task
    /// fails rather than draw again.
    pub(crate) fn spend(&mut self, n: usize) -> Result<(), Spent> {
        let n = u64::try_from(n).unwrap_or(u64::MAX);
        self.spent = self.spent.saturating_add(n);
        if self.spent > self.most {
            return Err(Spent::Evaluations(self.most));
        }
        if self.steps_now() > self.most_steps {
            return Err(Spent::Steps(self.most_steps));
        }
        Ok(())
    }

    /// Whether the task has asked for more than it may: which budget, if so.
    pub(crate) fn exhausted(&self) -> Option<Spent> {
        if self.spent > self.most {
            Some(Spent::Evaluations(self.most))
        } else if self.steps_now() > self.most_steps {
            Some(Spent::Steps(self.most_steps))
        } else {
            None
        }
    }

    /// The evaluations made so far.
    pub(crate) fn spent(&self) -> u64 {
        self.spent.min(self.most)
    }
}

#[cfg(test)]
mod tests {
    use super::Evaluations;

    #[test]
    fn spending_past_the_budget_is_refused_and_exhausts_it() {
        let mut e = Evaluations::new(5, u64::MAX);
        assert!(e.spend(3).is_ok());
        assert!(e.spend(2).is_ok());
        assert!(e.exhausted().is_none());
        assert_eq!(e.spent(), 5);
        let refused = e.spend(1).err().map(|r| r.to_string());
        assert_eq!(
            refused.as_deref(),
            Some("its 5 evaluations of the rulebook are spent")
        );
        assert!(e.exhausted().is_some());
        assert_eq!(e.spent(), 5);
        // Still exhausted on a later, free request.
        assert!(e.spend(0).is_err());
    }
}
