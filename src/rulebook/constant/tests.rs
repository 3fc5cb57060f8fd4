//! Parts of formulas that read nothing of the case: warned of when they
//! fail, located at the part that fails, and not when they compute or read
//! the case.

use crate::parse_rulebook;

/// The `warn::always_fails` warnings of a rulebook whose one step is
/// `expr`, each as its code, message and the text under its span.
fn warnings_of(expr: &str) -> Vec<(String, String, String)> {
    warnings_within(expr, "")
}

/// The same, with a `[limits]` section's lines.
fn warnings_within(expr: &str, limits: &str) -> Vec<(String, String, String)> {
    let text = format!(
        r#"[rulebook]
id = "c"
version = 1
schema = 1

[inputs.x]
type = "decimal"
required = true

[parameters.rate]
value = "0.5"

[tables.rates]
kind = "keyed"
keys = ["code"]
columns = {{ code = {{ type = "text" }}, rate = {{ type = "decimal" }} }}
rows = [{{ code = "a", rate = "0.1" }}]

[steps.s]
expr = "{expr}"

[[checks]]
decision = "ok"

[decisions.ok.answer]
s = {{ expr = "s" }}

[limits]
{limits}
"#
    );
    always_fails(&text)
}

/// The `warn::always_fails` warnings of a rulebook's text, each as its
/// code, message and the text under its span.
fn always_fails(text: &str) -> Vec<(String, String, String)> {
    let rb = match parse_rulebook("c.toml", text) {
        Ok(rb) => rb,
        Err(d) => panic!("{}", d.render(10_000, false)),
    };
    let w = rb.warnings();
    w.problems
        .iter()
        .filter(|p| p.code == "warn::always_fails")
        .map(|p| {
            let under = p
                .span
                .and_then(|s| text.get(s.start as usize..s.end as usize))
                .unwrap_or("")
                .to_string();
            (p.code.to_string(), p.message.clone(), under)
        })
        .collect()
}

#[test]
fn a_part_that_reads_nothing_and_fails_is_located_where_it_fails() {
    let w = warnings_of("x + 1 / (rate - 0.5)");
    assert_eq!(w.len(), 1, "{w:?}");
    let (code, message, under) = &w[0];
    assert_eq!(code, "warn::always_fails");
    assert!(
        message.starts_with("`1 / (rate - 0.5)` reads nothing of the case and fails"),
        "{message}"
    );
    assert!(message.contains("division by zero"), "{message}");
    assert_eq!(under, "1 / (rate - 0.5)");
}

#[test]
fn a_product_past_exact_range_is_warned_of() {
    let w = warnings_of("x + pow(1.05, 0.5) * pow(1.05, 0.5) - 1.05");
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].2, "pow(1.05, 0.5) * pow(1.05, 0.5)");
    assert!(w[0].1.contains("exceeds the range"), "{}", w[0].1);
}

#[test]
fn a_lookup_in_the_rulebooks_own_table_is_computed_once() {
    // A missing key gives missing, not a fault; a present one its row.
    assert!(warnings_of("x * coalesce(lookup(rates, 'b').rate, 0)").is_empty());
    let w = warnings_of("x + 1 / (lookup(rates, 'a').rate - 0.1)");
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].2, "1 / (lookup(rates, 'a').rate - 0.1)");
}

#[test]
fn parts_that_read_the_case_or_compute_fine_are_not_warned_of() {
    // Reads the case: the division fails only on some cases.
    assert!(warnings_of("1 / x").is_empty());
    // Reads nothing and computes: a fraction is a value, not a fault.
    assert!(warnings_of("x + 1 / 3 + rate * 2").is_empty());
    // A failing branch a constant condition never takes: the whole reads
    // nothing and gives its value.
    assert!(warnings_of("x + (if 1 > 2 then 1 / 0 else 0)").is_empty());
}

#[test]
fn a_failing_part_in_a_branch_the_case_chooses_is_warned_of() {
    let w = warnings_of("if x > 0 then 1 / 0 else x");
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].2, "1 / 0");
}

#[test]
fn parts_past_the_one_budget_are_left_unwarned() {
    let expr = "x + (1 + 1 + 1 + 1 + 1 + 1) / (rate - 0.5)";
    assert_eq!(warnings_within(expr, "max_eval_steps = 100").len(), 1);
    // Spent before the division: what is left unchecked is not warned of
    // (the budget is the case's, spent once for every part).
    assert!(warnings_within(expr, "max_eval_steps = 5").is_empty());
}

#[test]
fn parts_past_the_nodes_copied_are_left_unwarned() {
    // 200 steps of a 399-node part that reads nothing and computes, then
    // one that fails: past `MAX_NODES`, the last is not copied nor warned of.
    let sum = vec!["1"; 200].join(" + ");
    let mut text = String::from(
        "[rulebook]\nid = \"n\"\nversion = 1\nschema = 1\n\n[inputs.x]\ntype = \"decimal\"\nrequired = true\n\n",
    );
    for i in 0..200 {
        text.push_str(&format!("[steps.s{i}]\nexpr = \"x + ({sum})\"\n\n"));
    }
    text.push_str("[steps.last]\nexpr = \"x + 1 / 0\"\n\n");
    let reads: Vec<String> = (0..200).map(|i| format!("s{i}")).collect();
    text.push_str(&format!(
        "[[checks]]\ndecision = \"ok\"\n\n[decisions.ok.answer]\ns = {{ expr = \"{} + last\" }}\n",
        reads.join(" + ")
    ));
    assert_eq!(always_fails(&text).len(), 0);
    // The same failing step first is warned of.
    let first = text.replacen(
        "[steps.s0]",
        "[steps.early]\nexpr = \"x + 1 / 0\"\n\n[steps.s0]",
        1,
    );
    let first = first.replace("+ last\"", "+ last + early\"");
    assert_eq!(always_fails(&first).len(), 1);
}
