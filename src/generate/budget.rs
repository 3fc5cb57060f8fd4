//! What the draws of one task may cost, counted in evaluations of the
//! rulebook: each validation of a case, evaluation of it or of a free
//! formula over it, under the reference or an ablated copy, made while
//! drawing a case, checking it or perturbing it, over every draw of the
//! task's index. The rulebook's own limits bound each evaluation; this
//! count bounds how many a task makes, which its redraws, perturbations and
//! items would otherwise multiply without end (a generator of 120
//! perturbations and 3,000 redraws once took minutes a task).
//!
//! Counting touches no random stream: a task drawn within its budget is
//! the same task whatever the budget.

/// A task's budget is spent (the most it may make).
#[derive(Debug)]
pub(crate) struct Spent(u64);

impl std::fmt::Display for Spent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "its {} evaluations of the rulebook are spent", self.0)
    }
}

/// The evaluations a task has made, and the most it may.
#[derive(Debug)]
pub(crate) struct Evaluations {
    spent: u64,
    most: u64,
}

impl Evaluations {
    pub(crate) fn new(most: u64) -> Self {
        Evaluations { spent: 0, most }
    }

    /// Counts `n` evaluations about to be made: [`Spent`] (a redraw, to a
    /// draw) when they would pass the budget, after which
    /// [`Evaluations::exhausted`] holds and the task fails rather than draw
    /// again.
    pub(crate) fn spend(&mut self, n: usize) -> Result<(), Spent> {
        let n = u64::try_from(n).unwrap_or(u64::MAX);
        self.spent = self.spent.saturating_add(n);
        if self.exhausted() {
            return Err(Spent(self.most));
        }
        Ok(())
    }

    /// Whether the task has asked for more than it may.
    pub(crate) fn exhausted(&self) -> bool {
        self.spent > self.most
    }

    /// The evaluations made so far.
    pub(crate) fn spent(&self) -> u64 {
        self.spent.min(self.most)
    }

    /// The most the task may make.
    pub(crate) fn most(&self) -> u64 {
        self.most
    }
}

#[cfg(test)]
mod tests {
    use super::Evaluations;

    #[test]
    fn spending_past_the_budget_is_refused_and_exhausts_it() {
        let mut e = Evaluations::new(5);
        assert!(e.spend(3).is_ok());
        assert!(e.spend(2).is_ok());
        assert!(!e.exhausted());
        assert_eq!(e.spent(), 5);
        let refused = e.spend(1).err().map(|r| r.to_string());
        assert_eq!(
            refused.as_deref(),
            Some("its 5 evaluations of the rulebook are spent")
        );
        assert!(e.exhausted());
        assert_eq!(e.spent(), 5);
        // Still exhausted on a later, free request.
        assert!(e.spend(0).is_err());
    }
}
