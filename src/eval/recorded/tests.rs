//! Tests of replayed parts: a trace, and a budget that runs out, as when every step runs as written.

use std::path::Path;
use std::sync::Arc;

use crate::model::code::CodeKind;
use crate::model::Rulebook;

/// The rulebook with nothing marked: its traced evaluations run every
/// step of a row as written.
fn unmarked(rb: &Rulebook) -> Rulebook {
    let mut rb = rb.clone();
    for g in &mut rb.groups {
        if let Some(s) = &mut g.specialized {
            for row in &mut Arc::make_mut(s).rows {
                row.traced.clear();
            }
        }
    }
    rb
}

/// Every paie-fr conformance case, warmed up by all of them, traces and
/// runs out of budget (at every 7th unit of the first case) as with
/// nothing marked: the same trace, and the same fault named alike.
#[test]
fn replayed_parts_trace_and_run_out_as_written() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("rulebooks/paie-fr/v2026");
    let mut marked = crate::load_rulebook(&dir).expect("paie-fr loads");
    let cases = crate::conformance::cases(&dir).expect("cases");
    for (_, case) in &cases {
        let _ = crate::evaluate_value(&marked, case, true);
    }
    // The lines' steps are marked, and most marks captured.
    let rows = (marked.groups.iter())
        .filter_map(|g| g.specialized.as_deref())
        .flat_map(|s| &s.rows);
    let parts: Vec<_> = rows
        .flat_map(|row| row.traced.iter().flatten())
        .flat_map(|s| s.formulas())
        .filter_map(|f| match &f.code.kind {
            CodeKind::Recorded(r) => Some(r.capture.get()),
            _ => None,
        })
        .collect();
    let captured = parts.iter().filter(|c| matches!(c, Some(Some(_)))).count();
    assert!(captured > 100, "{captured} of {} captured", parts.len());
    let mut plain = unmarked(&marked);
    for (name, case) in &cases {
        let a = format!("{:?}", crate::evaluate_value(&marked, case, true));
        assert_eq!(
            a,
            format!("{:?}", crate::evaluate_value(&plain, case, true)),
            "{name}"
        );
    }
    let (_, case) = cases.first().expect("a case");
    let mut ran_out = 0;
    for budget in (0..3000).step_by(7) {
        marked.limits.max_eval_steps = budget;
        plain.limits.max_eval_steps = budget;
        let a = format!("{:?}", crate::evaluate_value(&marked, case, true));
        assert_eq!(
            a,
            format!("{:?}", crate::evaluate_value(&plain, case, true)),
            "{budget}"
        );
        ran_out += usize::from(a.contains("exceeded its limit"));
    }
    assert!(ran_out > 150, "{ran_out} ran out");
}
