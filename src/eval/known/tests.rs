//! Tests of known per-item steps replayed: a budget that runs out anywhere is named as without replays.

use std::path::Path;

use crate::model::Rulebook;

/// A budget that runs out anywhere in a payslip is named as without
/// replays: budgets from nothing to more than the case spends, on a
/// rulebook that replays every known step (every case ran through it
/// first) and on one fresh from loading, which runs them in full.
#[test]
fn a_budget_that_runs_out_is_named_as_in_full() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("rulebooks/paie-fr/v2026");
    let load = || crate::load_rulebook(&dir).expect("paie-fr loads");
    let cases = crate::conformance::cases(&dir).expect("cases");
    let mut warm = load();
    for (_, case) in &cases {
        let _ = crate::evaluate_value(&warm, case, true);
    }
    // Most of a payslip line's known steps are recorded for replay.
    let recorded = (warm.groups.iter())
        .filter_map(|g| g.specialized.as_deref())
        .flat_map(|s| &s.rows)
        .flat_map(|row| &row.traces)
        .filter(|t| matches!(t.get(), Some(Some(_))))
        .count();
    assert!(recorded > 50, "{recorded} known steps recorded");
    let (_, case) = cases.first().expect("a case");
    let outcome = |rb: &Rulebook| format!("{:?}", crate::evaluate_value(rb, case, true));
    let whole = outcome(&warm);
    let (mut ran_out, mut answered) = (0, 0);
    for budget in (0..4000).step_by(13) {
        warm.limits.max_eval_steps = budget;
        let mut fresh = load();
        fresh.limits.max_eval_steps = budget;
        let (full, replayed) = (outcome(&fresh), outcome(&warm));
        assert_eq!(full, replayed, "budget {budget}");
        ran_out += usize::from(full.contains("exceeded its limit"));
        answered += usize::from(full == whole);
    }
    assert!(
        ran_out > 100 && answered > 0,
        "{ran_out} ran out, {answered} answered"
    );
}
