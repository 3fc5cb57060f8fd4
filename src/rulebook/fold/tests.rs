//! Tests of folding a row's steps: one pass in the worked-out order folds what rounds until nothing changes fold.

use std::path::Path;

use super::*;

/// paie-fr's rulebook text with `extra` inserted before its first
/// per-item step.
fn paie_fr_with(extra: &str) -> Rulebook {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("rulebooks/paie-fr/v2026");
    let text = std::fs::read_to_string(dir.join("rulebook.toml")).expect("paie-fr reads");
    let at = text
        .find("[per_item.lines.steps.applies]")
        .expect("the lines group");
    let text = format!("{}{extra}{}", &text[..at], &text[at..]);
    crate::parse_rulebook("rulebook.toml", &text).expect("the rulebook loads")
}

/// Each row's steps folded in rounds until nothing changes (how it was
/// done before the order was worked out): the reference the one pass is
/// held to.
fn in_rounds(rb: &Rulebook) -> Vec<String> {
    let group = &rb.groups[0];
    let rows = &rb.tables[0].rows;
    let all = (Vec::new(), false);
    rows.iter()
        .map(|r| {
            format!(
                "{:?}",
                specialize_row(&group.steps, &all, &Value::Record(r.record.clone()))
            )
        })
        .collect()
}

/// A chain of per-item steps, each reading the one before, declared in
/// reverse so that declaration order is the worst order: one pass in
/// the worked-out order folds every row exactly as the rounds do, and
/// the chain's end is known to be each row's label.
#[test]
fn one_pass_in_order_folds_as_rounds_do() {
    let chain: String = (0..60)
        .rev()
        .map(|k| {
            let expr = if k == 0 {
                "line.label".to_string()
            } else {
                format!("k{}", k - 1)
            };
            format!("[per_item.lines.steps.k{k}]\nexpr = \"{expr}\"\n\n")
        })
        .collect();
    let rb = paie_fr_with(&chain);
    let group = &rb.groups[0];
    let order = fold_order(&group.steps);
    assert!(order.1, "every step is ordered");
    assert_eq!(order.0.len(), group.steps.len());
    let last = group
        .steps
        .iter()
        .position(|s| &*s.name == "k59")
        .expect("k59");
    let first = group
        .steps
        .iter()
        .position(|s| &*s.name == "k0")
        .expect("k0");
    let place = |j: usize| order.0.iter().position(|&o| o == j);
    assert!(place(first) < place(last));
    let rows = &rb.tables[0].rows;
    let one_pass: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{:?}",
                specialize_row(&group.steps, &order, &Value::Record(r.record.clone()))
            )
        })
        .collect();
    assert_eq!(one_pass, in_rounds(&rb));
    let specialized = group.specialized.as_deref().expect("the group is folded");
    for (row, folded) in rows.iter().zip(&specialized.rows) {
        let label = row.record.fields.get(1).cloned();
        assert_eq!(folded.known[last], label, "{:?}", row.name);
    }
}

/// A group whose formulas, copied once per row, pass the budget runs as
/// written: 5,000 copies of one `cite` condition (440 KB of rulebook)
/// over the schedule's 27 rows are not folded, and evaluation gives the
/// answer it gives folded.
#[test]
fn a_group_past_the_budget_is_not_folded() {
    let cite =
        "  { when = \"line.base in ['t1', 't2', 'capped4', 'cet']\", clauses = [\"ceiling\"] },\n";
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("rulebooks/paie-fr/v2026");
    let text = std::fs::read_to_string(dir.join("rulebook.toml")).expect("paie-fr reads");
    let at = text.find("cite = [\n").expect("a cite list") + "cite = [\n".len();
    let grown = format!("{}{}{}", &text[..at], cite.repeat(5_000), &text[at..]);
    let big = crate::parse_rulebook("rulebook.toml", &grown).expect("the rulebook loads");
    assert!(big.groups[0].specialized.is_none());
    let small = crate::parse_rulebook("rulebook.toml", &text).expect("paie-fr loads");
    assert!(small.groups[0].specialized.is_some());
    let cases = crate::conformance::cases(&dir).expect("cases");
    assert!(cases.len() > 5);
    for (name, case) in &cases {
        let a = crate::evaluate_value(&big, case, false).map(|(o, _)| format!("{o:?}"));
        let b = crate::evaluate_value(&small, case, false).map(|(o, _)| format!("{o:?}"));
        assert_eq!(
            a.map_err(|e| e.to_string()),
            b.map_err(|e| e.to_string()),
            "{name}"
        );
    }
}

/// A rulebook of four groups over one table of 100 rows, each group one
/// step of 999 nodes (`(r.x+a+…)` sums, 200 `r.x + a` pairs in all),
/// and an answer field per group summing its step.
fn four_groups() -> String {
    let part = format!("({})", vec!["r.x+a"; 40].join("+"));
    let sum = vec![part; 5].join("+");
    let rows: Vec<String> = (0..100)
        .map(|i| format!("{{ code = {i}, x = \"{i}\" }}"))
        .collect();
    let mut text = format!(
        "[rulebook]\nid = \"groups\"\nversion = 1\nschema = 1\ntitle = \"groups\"\n\n\
         [clauses]\nR1 = \"One rule.\"\n\n\
         [inputs.a]\ntype = \"decimal\"\nrequired = true\nclause = \"R1\"\n\n\
         [tables.t]\nkind = \"keyed\"\nkeys = [\"code\"]\nclause = \"R1\"\n\
         columns = {{ code = {{ type = \"integer\" }}, x = {{ type = \"decimal\" }} }}\n\
         rows = [{}]\n\n",
        rows.join(", ")
    );
    for g in 0..4 {
        text += &format!(
            "[per_item.g{g}]\nover = \"rows(t)\"\nitem = \"r\"\n\n\
             [per_item.g{g}.steps.s]\nexpr = \"{sum}\"\n\n"
        );
    }
    text += "[[checks]]\ndecision = \"paid\"\n\n[decisions.paid]\nclauses = [\"R1\"]\n\n\
             [decisions.paid.answer]\n";
    for g in 0..4 {
        text += &format!("g{g} = {{ expr = \"sum(g{g}.s)\" }}\n");
    }
    text
}

/// The budget is the rulebook's, not each group's: four groups that each
/// fit (99,900 copies) but together pass it are folded in order until it
/// is spent, the others run as written, and every group gives the sum the
/// rules say: Σ over rows i of 200 (i + a), with a = 1, is 200 × 5,050.
#[test]
fn groups_share_one_budget_of_copies() {
    let rb = crate::parse_rulebook("rulebook.toml", &four_groups()).expect("the rulebook loads");
    let nodes: Vec<u64> = (rb.groups.iter())
        .map(|g| {
            g.steps
                .iter()
                .flat_map(Step::formulas)
                .map(|f| node_count(&f.node))
                .sum()
        })
        .collect();
    assert_eq!(nodes, vec![999; 4]);
    let folded: Vec<bool> = rb.groups.iter().map(|g| g.specialized.is_some()).collect();
    assert_eq!(folded, vec![true, true, false, false]);
    let case = serde_json::json!({ "a": "1" });
    for trace in [false, true] {
        let (outcome, _) = crate::evaluate_value(&rb, &case, trace).expect("evaluates");
        let text = format!("{outcome:?}");
        assert_eq!(text.matches("1010000").count(), 4, "trace {trace}: {text}");
    }
}
