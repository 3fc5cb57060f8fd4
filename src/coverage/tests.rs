//! Unit tests of the coverage: combinations counted and listed.

use super::*;

#[test]
fn combinations_are_counted_and_listed_in_order() {
    assert_eq!(combination_count(8, 1), Some(8));
    assert_eq!(combination_count(8, 2), Some(8 + 28));
    assert_eq!(combination_count(8, 8), Some(255));
    assert_eq!(combination_count(8, 20), Some(255), "no more than all");
    assert_eq!(combination_count(12, 12), Some(4095));
    assert_eq!(combination_count(13, 13), None, "8191 is past the cap");
    assert_eq!(combination_count(90, 2), Some(90 + 4005));
    assert_eq!(combination_count(91, 2), None, "91 + 4095 is past the cap");
    let mut members = vec![0, 1];
    let mut all = vec![members.clone()];
    while next_combination(&mut members, 4) {
        all.push(members.clone());
    }
    assert_eq!(
        all,
        [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]].map(Vec::from)
    );
}

#[test]
fn a_rulebook_without_ablations_is_refused_with_its_code() {
    let text = r#"
[rulebook]
id = "bare"
version = 1
schema = 1

[inputs.pay]
type = "money"
required = true

[steps.levy]
expr = "pay"

[[checks]]
decision = "ok"

[decisions.ok.answer]
levy = { expr = "levy", format = "money" }
"#;
    let rb = crate::rulebook::parse_rulebook("bare.toml", text).expect("checks");
    let e = Coverage::new(&rb, None).err().expect("no ablations");
    assert_eq!(e.code(), "coverage::no_ablations");
    assert_eq!(
        e.to_string(),
        format!("rulebook {} declares no ablations", rb.reference())
    );
}
