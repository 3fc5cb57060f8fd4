//! Repair tasks: `bake` (declared readings made main formulas), the repair
//! task file, `verify`'s reward, caps and contract, and the attacks a
//! candidate rulebook may try.

use bareme::unstable::conformance::cases;
use bareme::unstable::repair::{bake_path, BakeError};
use bareme::LoadOptions;

use super::{root, rulebook};

/// Every bundled rulebook with declared readings, and its conformance folder.
const READING_SETS: [&str; 3] = [
    "rulebooks/sales-tax/v1",
    "rulebooks/paie-fr/v2026",
    "rulebooks/succession-fr/v2026",
];

/// A baked rulebook answers every conformance case exactly as the original
/// does under `--ablate` of the same readings: each reading alone, and all
/// of them together where they apply together. The baked text declares no
/// ablation, and the sales-tax ones warn of nothing.
#[test]
fn baked_rulebooks_evaluate_as_their_ablations() {
    for set in READING_SETS {
        let rb = rulebook(set);
        let names: Vec<String> = rb.ablation_names().map(str::to_string).collect();
        assert!(names.len() >= 5, "{set}");
        let all: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut runs: Vec<Vec<&str>> = all.iter().map(|n| vec![*n]).collect();
        if rb.ablated_all(&all).is_ok() {
            runs.push(all.clone());
        }
        let cases = cases(&root().join(set)).expect("cases");
        assert!(cases.len() >= 10, "{set}");
        for run in runs {
            let baked = bake_path(&root().join(set), &run, LoadOptions::default())
                .unwrap_or_else(|e| panic!("{set} {run:?}: {e}"));
            assert_eq!(baked.rulebook.ablation_names().count(), 0);
            assert!(!baked.text.contains("[ablations"), "{set} {run:?}");
            // A reading that drops a rule leaves what only that rule read
            // unused (paie-fr's overtime cap): a warning, not a problem.
            // The sales-tax readings all keep every name read.
            assert!(
                !set.contains("sales-tax") || baked.rulebook.warnings().problems.is_empty(),
                "{set} {run:?}: {}",
                baked.rulebook.warnings().render(100, false)
            );
            assert_eq!(baked.rulebook.id(), rb.id());
            let ablated = rb.ablated_all(&run).expect("ablations");
            let mut differs = 0;
            for (name, case) in &cases {
                let want = bareme::evaluate_value(&ablated, case, false).map(|(o, _)| o);
                let got = bareme::evaluate_value(&baked.rulebook, case, false).map(|(o, _)| o);
                assert_eq!(got, want, "{set} {run:?} {name}");
                let plain = bareme::evaluate_value(&rb, case, false).map(|(o, _)| o);
                differs += usize::from(plain != got);
            }
            assert!(
                differs > 0,
                "{set} {run:?}: the baked readings change no case"
            );
        }
    }
}

/// Readings that do not apply are refused as `--ablate` refuses them.
#[test]
fn bake_refuses_what_ablate_refuses() {
    let path = root().join("rulebooks/sales-tax/v1");
    let err = bake_path(&path, &["nope"], LoadOptions::default()).unwrap_err();
    assert_eq!(err.code(), "ablation::unknown");
    let err = bake_path(&path, &["half_even", "half_even"], LoadOptions::default()).unwrap_err();
    assert_eq!(err.code(), "ablation::twice");
    let err = bake_path(
        &root().join("rulebooks/nope"),
        &["a"],
        LoadOptions::default(),
    );
    assert!(matches!(err, Err(BakeError::Load(_))));
}
