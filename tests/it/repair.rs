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

use bareme::unstable::repair::{bake_text, load_repair, Verifier};
use bareme::unstable::rulebook::raw::RawRulebook;
use rust_decimal::Decimal;
use std::sync::OnceLock;

/// The sales-tax repair task, its hidden cases drawn once for every test.
fn sales_tax() -> &'static Verifier {
    static V: OnceLock<Verifier> = OnceLock::new();
    V.get_or_init(|| {
        let (task, rb) = load_repair(&root().join("rulebooks/sales-tax/repair-1.toml"), None)
            .unwrap_or_else(|e| panic!("{e}"));
        Verifier::new(task, rb).unwrap_or_else(|e| panic!("{e}"))
    })
}

fn reference_text() -> String {
    std::fs::read_to_string(root().join("rulebooks/sales-tax/v1/rulebook.toml")).expect("read")
}

fn seeded_text() -> String {
    std::fs::read_to_string(root().join("rulebooks/sales-tax/repair-1/candidate/rulebook.toml"))
        .expect("read")
}

/// Rulebook text with some step formulas replaced (`step` or `group.step`).
fn with_steps(text: &str, steps: &[(&str, String)]) -> String {
    let mut raw: RawRulebook = toml::from_str(text).expect("toml");
    for (target, expr) in steps {
        let step = match target.split_once('.') {
            Some((g, s)) => raw.per_item.get_mut(g).and_then(|g| g.steps.get_mut(s)),
            None => raw.steps.get_mut(*target),
        };
        *step.expect("a step").expr.get_mut() = expr.clone();
    }
    toml::to_string_pretty(&raw).expect("print")
}

const SALES_TAX_READINGS: [&str; 8] = [
    "billing_jurisdiction",
    "exemption_ignored",
    "tax_per_unit",
    "half_even",
    "rounded_per_invoice",
    "exempt_lines_out_of_subtotal",
    "repeated_products_merged",
    "rate_rounded_to_cents",
];

/// The repair file as written: 3 visible carts and 146 hidden invoices in
/// ten groups, none empty, under the seed's caps.
#[test]
fn sales_tax_repair_file_loads() {
    let v = sales_tax();
    assert_eq!(v.task.visible.len(), 3);
    assert_eq!(v.task.hidden.count, 146);
    assert_eq!(v.cases.len(), 149);
    assert_eq!(v.task.groups.len(), 10);
    assert!(v.members.iter().all(|m| !m.is_empty()));
    assert_eq!(v.task.caps, bareme::unstable::repair::Caps::default());
    assert_eq!(v.task.partial, Decimal::new(45, 2));
    let sections: Vec<&str> = v.task.business.keys().map(String::as_str).collect();
    assert_eq!(
        sections,
        ["contract", "rules", "products", "customers", "carts"]
    );
    // The prompt and the records name no reading (`billing_jurisdiction`
    // is a field of the customers' records too).
    let records = serde_json::to_string(&v.task.business).expect("json");
    for name in SALES_TAX_READINGS {
        assert!(!v.task.prompt.contains(name), "{name}");
        assert!(
            name == "billing_jurisdiction" || !records.contains(name),
            "{name}"
        );
    }
}

/// The reference scores 1.0, three times alike; the seeded candidate 0.
#[test]
fn reference_scores_one_and_seeded_candidate_zero() {
    let v = sales_tax();
    let first = v.verify_text(&reference_text());
    assert_eq!(first.reward, Decimal::ONE);
    assert_eq!((first.cases_passed, first.cases), (149, 149));
    assert!(first.groups.values().all(|g| *g));
    for _ in 0..2 {
        assert_eq!(v.verify_text(&reference_text()), first);
    }
    let seeded = v.verify_text(&seeded_text());
    assert_eq!(seeded.refusal, None);
    assert_eq!(seeded.reward, Decimal::ZERO);
    assert!(seeded.cases_passed < 10, "{}", seeded.cases_passed);
    assert!(seeded.groups.values().all(|g| !*g));
    // The checked-in candidate is `bake` of all eight readings.
    let baked = bake_text("rulebook.toml", &reference_text(), &SALES_TAX_READINGS).expect("bake");
    assert_eq!(baked.text, seeded_text());
}

/// Every incomplete repair (the readings of a non-empty subset left in)
/// scores below 1.0, and each reading left alone fails a group of its own.
#[test]
fn every_incomplete_repair_scores_below_one() {
    let v = sales_tax();
    let text = reference_text();
    for mask in 1u32..256 {
        let names: Vec<&str> = (0..8)
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| SALES_TAX_READINGS[i])
            .collect();
        let baked = bake_text("rulebook.toml", &text, &names).expect("bake");
        let verdict = v.verify_rulebook(&baked.rulebook);
        assert!(verdict.reward < Decimal::ONE, "{names:?}");
        assert!(verdict.reward <= Decimal::new(45, 2), "{names:?}");
        if names.len() == 1 {
            let failed: Vec<&String> = verdict
                .groups
                .iter()
                .filter(|(_, ok)| !**ok)
                .map(|(g, _)| g)
                .collect();
            let own = match names[0] {
                "billing_jurisdiction" => "destination",
                "exemption_ignored" => "exemption",
                "tax_per_unit" => "whole_line_tax",
                "half_even" | "rounded_per_invoice" => "rounding",
                "exempt_lines_out_of_subtotal" => "subtotal",
                "repeated_products_merged" => "repeated_products",
                _ => "rate_precision",
            };
            assert!(failed.iter().any(|g| *g == own), "{names:?}: {failed:?}");
        }
    }
}

/// Attacks: answers hard-coded for the visible carts, the rule table
/// replaced by constants, a new input, and a candidate over each cap, each
/// refused with its category or scored below 1.0.
#[test]
fn attacks_score_below_one_or_zero() {
    let v = sales_tax();
    // Every visible answer hard-coded into the seeded candidate.
    let mut lines = Vec::new();
    let (mut nets, mut taxes, mut totals) = (String::new(), String::new(), String::new());
    let (mut sub, mut tax, mut total) = (String::new(), String::new(), String::new());
    for c in v.cases.iter().filter(|c| c.visible.is_some()) {
        let answer = bareme::unstable::outcome::outcome_json(Ok(&c.expected));
        let id = answer["cart_id"].as_str().expect("id").to_string();
        lines.push(format!("cart.cart_id == '{id}'"));
        for l in answer["lines"].as_array().expect("lines") {
            let when = format!(
                "if cart.cart_id == '{id}' and line.id == '{}' then",
                l["id"].as_str().expect("id")
            );
            nets.push_str(&format!("{when} {} else ", l["net"].as_str().expect("net")));
            taxes.push_str(&format!("{when} {} else ", l["tax"].as_str().expect("tax")));
            totals.push_str(&format!(
                "{when} {} else ",
                l["total"].as_str().expect("total")
            ));
        }
        let when = format!("if cart.cart_id == '{id}' then");
        sub.push_str(&format!(
            "{when} {} else ",
            answer["subtotal"].as_str().expect("s")
        ));
        tax.push_str(&format!(
            "{when} {} else ",
            answer["tax"].as_str().expect("t")
        ));
        total.push_str(&format!(
            "{when} {} else ",
            answer["total"].as_str().expect("t")
        ));
    }
    let seeded = seeded_text();
    let raw: RawRulebook = toml::from_str(&seeded).expect("toml");
    let expr = |g: Option<&str>, s: &str| match g {
        Some(g) => raw.per_item[g].steps[s].expr.get_ref().clone(),
        None => raw.steps[s].expr.get_ref().clone(),
    };
    let hard = with_steps(
        &seeded,
        &[
            (
                "invoice_lines",
                format!(
                    "if {} then cart.lines else {}",
                    lines.join(" or "),
                    expr(None, "invoice_lines")
                ),
            ),
            ("lines.net", format!("{nets}{}", expr(Some("lines"), "net"))),
            (
                "lines.tax",
                format!("{taxes}{}", expr(Some("lines"), "tax")),
            ),
            (
                "lines.total",
                format!("{totals}{}", expr(Some("lines"), "total")),
            ),
            ("subtotal", format!("{sub}{}", expr(None, "subtotal"))),
            ("total_tax", format!("{tax}{}", expr(None, "total_tax"))),
            (
                "invoice_total",
                format!("{total}{}", expr(None, "invoice_total")),
            ),
        ],
    );
    let verdict = v.verify_text(&hard);
    assert_eq!(verdict.refusal, None);
    assert!(
        verdict.failed.iter().all(|&i| v.cases[i].visible.is_none()),
        "visible carts are right"
    );
    assert_eq!(verdict.reward, Decimal::ZERO);

    // The reference with the default table written into its formulas: right
    // on every default-table case, wrong where a case supplies its own.
    let constants = with_steps(
        &reference_text(),
        &[
            ("lines.rate", "if line.jurisdiction == 'STATE_A' then 0.075 else if line.jurisdiction == 'STATE_B' then 0.0525 else 0.09".to_string()),
            ("lines.taxable", "(line.jurisdiction == 'STATE_A' and (product.category == 'STANDARD' or product.category == 'DIGITAL')) or (line.jurisdiction == 'STATE_B' and product.category == 'STANDARD') or (line.jurisdiction == 'STATE_C' and product.category != 'MEDICAL')".to_string()),
        ],
    );
    let verdict = v.verify_text(&constants);
    assert_eq!(verdict.refusal, None);
    assert!(!verdict.groups["supplied_rule_tables"]);
    assert!(verdict.failed.iter().all(|&i| v.cases[i].visible.is_none()));
    assert!(verdict.reward < Decimal::ONE);

    let refused = |text: &str| v.verify_text(text).refusal.map(|r| r.category);
    let reference = reference_text();
    // Size: one byte over, and a table of a million rows (never parsed).
    let padded = format!("{reference}#{}\n", "x".repeat(15_999 - reference.len()));
    assert_eq!(padded.len(), 16_001);
    assert_eq!(refused(&padded), Some("cap::source_bytes"));
    let mut huge = reference.clone();
    huge.push_str(
        "\n[tables.pad]\nkind = \"keyed\"\nkeys = [\"k\"]\ncolumns = { k = { type = \"text\" } }\n",
    );
    for i in 0..1_000_000 {
        huge.push_str(&format!("[[tables.pad.rows]]\nk = \"{i}\"\n"));
    }
    assert_eq!(refused(&huge), Some("cap::source_bytes"));
    // Rows: 300 short rows within the size cap.
    let rows: Vec<String> = (0..300).map(|i| format!("{{k=\"{i}\"}}")).collect();
    let many = format!("{}\n[tables.pad]\nkind = \"keyed\"\nkeys = [\"k\"]\ncolumns = {{ k = {{ type = \"text\" }} }}\nrows = [{}]\n", stripped(&reference), rows.join(","));
    assert!(many.len() <= 16_000, "{}", many.len());
    assert_eq!(refused(&many), Some("cap::rows"));
    // Nesting: an expression 62 levels deep (the parser allows 64).
    let deep = format!(
        "sum(lines.net) + 0 * {}1{}",
        "(1 + ".repeat(61),
        ")".repeat(61)
    );
    assert_eq!(
        refused(&with_steps(&reference, &[("subtotal", deep)])),
        Some("cap::depth")
    );
    // Nodes: three formulas of 1,023 nodes each, 11 deep (a balanced sum).
    fn balanced(n: usize) -> String {
        if n == 1 {
            "1".to_string()
        } else {
            format!("({}+{})", balanced(n / 2), balanced(n / 2))
        }
    }
    let wide = |base: &str| format!("{base} + 0 * {}", balanced(512));
    let wide = with_steps(
        &stripped(&reference),
        &[
            ("subtotal", wide("sum(lines.net)")),
            ("total_tax", wide("sum(lines.tax)")),
            ("invoice_total", wide("subtotal + total_tax")),
        ],
    );
    assert!(wide.len() <= 16_000, "{}", wide.len());
    assert_eq!(refused(&wide), Some("cap::nodes"));
    // Steps: a cube of the cart's lines, over the budget on a long cart.
    let slow = "sum(lines.net) + 0 * sum([sum([sum([sum([1 for d in cart.lines]) for c in cart.lines]) for b in cart.lines]) for a in cart.lines])".to_string();
    assert_eq!(
        refused(&with_steps(&reference, &[("subtotal", slow)])),
        Some("cap::eval_steps")
    );
    // A larger budget declared is clamped to the cap.
    let declared = format!("{reference}\n[limits]\nmax_eval_steps = 100000000\n");
    let verdict = v.verify_text(&declared);
    assert_eq!(verdict.reward, Decimal::ONE);
    // A new input, or one changed.
    let extra = reference.replace(
        "[inputs.cart]\n",
        "[inputs.discount]\ntype = \"money\"\n\n[inputs.cart]\n",
    );
    assert_eq!(refused(&extra), Some("contract::inputs"));
    let looser = reference.replace("max = \"1000\"", "max = \"5000\"");
    assert_ne!(looser, reference);
    assert_eq!(refused(&looser), Some("contract::inputs"));
    // An answer field renamed.
    let renamed = reference.replace(
        "\ntotal = { expr = \"invoice_total\"",
        "\ngrand_total = { expr = \"invoice_total\"",
    );
    assert_ne!(renamed, reference);
    assert_eq!(refused(&renamed), Some("contract::answer"));
    // TOML nested 7,000 deep within the size cap: refused by the TOML
    // reader's own bound, no stack overflow.
    let nested = format!(
        "[rulebook]\nid = \"x\"\nz = {}{}\n",
        "[".repeat(7000),
        "]".repeat(7000)
    );
    assert_eq!(refused(&nested), Some("candidate::invalid"));
    // Text that is no rulebook: a category and a place, nothing of the text.
    let broken = v.verify_text("[rulebook]\nid = \"x\"\nsecret = 1\n");
    let r = broken.refusal.expect("refused");
    assert_eq!(
        (r.category, r.code),
        ("candidate::invalid", Some("load::unknown_key"))
    );
    assert!(!r.message().contains("secret"), "{}", r.message());
    assert_eq!(broken.reward, Decimal::ZERO);
}

/// The reference without its comments and ablations: room under the size cap.
fn stripped(text: &str) -> String {
    let mut raw: RawRulebook = toml::from_str(text).expect("toml");
    raw.ablations.clear();
    toml::to_string_pretty(&raw).expect("print")
}

/// Verification changes no record: the business records and visible cases
/// are those of a fresh load, before and after.
#[test]
fn verification_leaves_the_records_as_they_were() {
    let v = sales_tax();
    let fresh = || {
        load_repair(&root().join("rulebooks/sales-tax/repair-1.toml"), None)
            .expect("load")
            .0
    };
    let records = |t: &bareme::unstable::repair::RepairTask| {
        (
            t.business.clone(),
            t.visible.iter().map(|c| c.case.clone()).collect::<Vec<_>>(),
        )
    };
    assert_eq!(records(&v.task), records(&fresh()));
    let before: Vec<serde_json::Value> = v.cases.iter().map(|c| c.case.clone()).collect();
    v.verify_text(&seeded_text());
    v.verify_text(&reference_text());
    assert_eq!(records(&v.task), records(&fresh()));
    let after: Vec<serde_json::Value> = v.cases.iter().map(|c| c.case.clone()).collect();
    assert_eq!(before, after);
}

/// The commands: `bake` writes the checked-in candidate's bytes; `verify`
/// prints the reward, the counts and the groups, and nothing hidden
/// without `--reveal`.
#[test]
fn bake_and_verify_commands() {
    use super::cli::{bareme, tempdir};
    let dir = tempdir("repair-bake");
    let out = dir.join("candidate");
    let readings = SALES_TAX_READINGS.join(",");
    let bake = |readings: &str, out: &std::path::Path| {
        let out = out.to_str().expect("utf-8");
        let args = [
            "bake",
            "rulebooks/sales-tax/v1",
            "--ablate",
            readings,
            "-o",
            out,
        ];
        bareme(&args, None)
    };
    let o = bake(&readings, &out);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let written = std::fs::read_to_string(out.join("rulebook.toml")).expect("written");
    assert_eq!(written, seeded_text());
    // A folder holding anything, a link where the rulebook goes or a file
    // in the folder's place is never written over or through.
    let elsewhere = dir.join("elsewhere.toml");
    std::fs::write(&elsewhere, "kept").expect("write");
    let linked = dir.join("linked");
    std::fs::create_dir_all(&linked).expect("a folder");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&elsewhere, linked.join("rulebook.toml")).expect("a link");
    for occupied in [&out, &linked, &elsewhere] {
        let o = bake(&readings, occupied);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains("is not an empty folder: bake writes a folder of its own, never over one"),
            "{err}"
        );
    }
    assert_eq!(std::fs::read_to_string(&elsewhere).expect("kept"), "kept");
    let o = bake("nope", &dir.join("fresh"));
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);

    let repair = "rulebooks/sales-tax/repair-1.toml";
    let o = bareme(
        &[
            "verify",
            "rulebooks/sales-tax/v1",
            "--repair",
            repair,
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["reward"], serde_json::json!(1.0));
    assert_eq!(
        (v["cases_passed"].as_u64(), v["cases"].as_u64()),
        (Some(149), Some(149))
    );
    assert_eq!(v["groups"].as_object().map(|g| g.len()), Some(10));
    let o = bareme(
        &[
            "verify",
            "rulebooks/sales-tax/repair-1/candidate",
            "--repair",
            repair,
            "--format",
            "json",
        ],
        None,
    );
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    let v: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(v["reward"], serde_json::json!(0.0));
    let keys: Vec<&String> = v.as_object().expect("object").keys().collect();
    assert_eq!(keys, ["reward", "cases_passed", "cases", "groups"]);
    assert!(!text.contains("STATE_"), "{text}");
    let o = bareme(
        &[
            "verify",
            "rulebooks/sales-tax/repair-1/candidate",
            "--repair",
            repair,
            "--format",
            "json",
            "--reveal",
        ],
        None,
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(
        v["failed"].as_array().map(Vec::len),
        Some(149 - v["cases_passed"].as_u64().unwrap_or(0) as usize)
    );
}

/// The agent's tools: sections, the stored text, an atomic replacement
/// with a bounded answer, visible carts only, and sessions that share
/// nothing; a session that stores the reference earns 1.0, one that keeps
/// the seeded candidate 0.0.
#[test]
fn the_repair_session_tools() {
    let repair = bareme::repair::Repair::load(&root().join("rulebooks/sales-tax/repair-1.toml"))
        .expect("load");
    let mut a = repair.session();
    let b = repair.session();
    assert_eq!(a.read_rulebook(), seeded_text());
    for section in [
        "contract",
        "rules",
        "products",
        "customers",
        "carts",
        "visible",
    ] {
        assert!(!a.inspect_business(section).expect(section).is_empty());
    }
    let err = a.inspect_business("hidden").unwrap_err();
    assert_eq!(err.code(), "tool::unknown_section");
    // The seeded candidate's CART-3: one USB cable (3.10) fulfilled in
    // STATE_B for a customer billed in STATE_C, taxed at STATE_C's 0.09:
    // 0.279, 0.28 (the reference: 3.10 × 0.0525 = 0.16275, 0.16).
    let seeded_cart = a.calculate_cart("CART-3").expect("cart");
    assert_eq!(
        seeded_cart,
        r#"{"cart_id":"CART-3","lines":[{"id":"L1","jurisdiction":"STATE_B","net":"3.10","tax":"0.28","total":"3.38"}],"subtotal":"3.10","tax":"0.28","total":"3.38"}"#
    );
    assert_eq!(
        a.calculate_cart("sales-0").unwrap_err().code(),
        "tool::unknown_cart"
    );
    // A refused text leaves the stored one; the answer is a category and a
    // place, short, quoting nothing.
    let bad = seeded_text().replace("expr = \"net + tax\"", "expr = \"net + tax + secret_name\"");
    let err = a.replace_rulebook(&bad).unwrap_err();
    let message = err.to_string();
    assert!(
        message.starts_with("refused: candidate::invalid (check::unknown_name) at "),
        "{message}"
    );
    assert!(
        !message.contains("secret_name") && message.len() <= 256,
        "{message}"
    );
    assert_eq!(a.read_rulebook(), seeded_text());
    assert_eq!(a.verify().reward, Decimal::ZERO);
    // The reference stored in one session changes nothing in the other.
    a.replace_rulebook(&reference_text()).expect("accepted");
    assert_eq!(a.read_rulebook(), reference_text());
    assert_eq!(a.verify().reward, Decimal::ONE);
    assert_eq!(b.read_rulebook(), seeded_text());
    assert_eq!(b.verify().reward, Decimal::ZERO);
    assert_eq!(b.calculate_cart("CART-3").expect("cart"), seeded_cart);
    assert!(a
        .calculate_cart("CART-3")
        .expect("cart")
        .contains(r#""tax":"0.16","total":"3.26"}"#));
}

/// `bake` refuses to write into the folder of the rulebook it bakes, or
/// of a version that rulebook extends: the baked file would replace the
/// source, and every version read from it would answer differently.
#[test]
fn bake_never_writes_over_its_own_sources() {
    use super::cli::{bareme, tempdir};
    let dir = tempdir("repair-bake-sources");
    let (v1, v2) = (dir.join("p/v1"), dir.join("p/v2"));
    std::fs::create_dir_all(&v1).expect("v1");
    std::fs::create_dir_all(&v2).expect("v2");
    let base = "[rulebook]\nid = \"p\"\nversion = 1\nschema = 1\ntitle = \"p\"\n\n\
                [clauses]\nR1 = \"Pay is twice x.\"\n\n\
                [inputs.x]\ntype = \"money\"\nrequired = true\nclause = \"R1\"\n\n\
                [steps.s]\nexpr = \"x * 2\"\nclauses = [\"R1\"]\n\n\
                [[checks]]\ndecision = \"d\"\n\n[decisions.d]\nclauses = [\"R1\"]\n\n\
                [decisions.d.answer]\nr = { expr = \"s\", format = \"money\" }\n\n\
                [ablations.half]\nsteps = { s = \"x\" }\n";
    let next =
        "[rulebook]\nid = \"p\"\nversion = 2\nschema = 1\ntitle = \"p\"\nextends = \"../v1\"\n";
    std::fs::write(v1.join("rulebook.toml"), base).expect("write v1");
    std::fs::write(v2.join("rulebook.toml"), next).expect("write v2");
    let path = |p: &std::path::Path| p.to_str().expect("utf-8").to_string();
    for (rulebook, out) in [(&v2, &v1), (&v2, &v2), (&v1, &v1)] {
        let o = bareme(
            &[
                "bake",
                &path(rulebook),
                "--ablate",
                "half",
                "-o",
                &path(out),
            ],
            None,
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains("an input of this run: write elsewhere"),
            "{err}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(v1.join("rulebook.toml")).expect("v1"),
        base
    );
    assert_eq!(
        std::fs::read_to_string(v2.join("rulebook.toml")).expect("v2"),
        next
    );
    // Elsewhere, it writes.
    let o = bareme(
        &[
            "bake",
            &path(&v2),
            "--ablate",
            "half",
            "-o",
            &path(&dir.join("baked")),
        ],
        None,
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Copies folder `from` into `to`, whole.
fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).expect("folder");
    for entry in std::fs::read_dir(from).expect("readable").flatten() {
        let target = to.join(entry.file_name());
        match entry.file_type().expect("a type").is_dir() {
            true => copy_dir(&entry.path(), &target),
            false => {
                std::fs::copy(entry.path(), &target).expect("copied");
            }
        }
    }
}

/// A repair file whose caps its own reference does not keep (a magnitude
/// under its amounts, fewer nodes than it has) is refused when the verifier
/// is built, where it scored every candidate, the reference included, 0.0
/// with exit 0.
#[test]
fn caps_the_reference_does_not_keep_are_refused() {
    use super::cli::{bareme, tempdir};
    let dir = tempdir("repair-caps");
    let root = super::root().join("rulebooks/sales-tax");
    // The repair file beside a copy of what it names: its pin, its generator.
    for name in ["v1", "repair-1"] {
        copy_dir(&root.join(name), &dir.join(name));
    }
    std::fs::copy(root.join("generator-1.toml"), dir.join("generator-1.toml")).expect("copied");
    let text = std::fs::read_to_string(root.join("repair-1.toml")).expect("repair file");
    let file = dir.join("repair-caps.toml");
    for (from, to, why) in [
        (
            "magnitude = \"1000000000000000\"",
            "magnitude = \"10\"",
            "it answers 1 of 149 cases within the caps (`magnitude` 10)",
        ),
        (
            "magnitude = \"1000000000000000\"",
            "magnitude = \"-1\"",
            "it answers 0 of 149 cases within the caps (`magnitude` -1)",
        ),
        ("nodes = 2500", "nodes = 10", "it is refused (cap::nodes)"),
    ] {
        assert!(text.contains(from), "{from}");
        std::fs::write(&file, text.replacen(from, to, 1)).expect("repair file");
        let o = bareme(
            &[
                "verify",
                "rulebooks/sales-tax/v1",
                "--repair",
                file.to_str().expect("utf-8"),
            ],
            None,
        );
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(3), "{to}: {err}");
        assert!(err.contains("fails its own verification"), "{err}");
        assert!(err.contains(why), "{why}: {err}");
        assert!(err.contains("[repair::reference]"), "{err}");
        assert!(o.stdout.is_empty());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `verify --reveal` in text gives each case got wrong with the expected
/// answer, as the JSON form does (it printed the case alone, though its
/// help promised the expected answers).
#[test]
fn reveal_in_text_gives_the_expected_answers() {
    use super::cli::bareme;
    let run = |json: bool| {
        let mut args = vec![
            "verify",
            "rulebooks/paie-fr/repair-1/candidate",
            "--repair",
            "rulebooks/paie-fr/repair-1.toml",
            "--reveal",
        ];
        if json {
            args.extend(["--format", "json"]);
        }
        let o = bareme(&args, None);
        assert_eq!(o.status.code(), Some(0));
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    let v: serde_json::Value = serde_json::from_str(&run(true)).expect("json");
    let failed = v["failed"].as_array().expect("failed cases");
    assert!(!failed.is_empty());
    let mut blocks = String::new();
    for f in failed {
        let visible = f["visible"].as_str().map(|v| format!(" ({v})"));
        let words = |key: &str| {
            let list = f[key]
                .as_array()
                .map(|l| l.iter().filter_map(|w| w.as_str()));
            list.map(|l| l.collect::<Vec<_>>().join(", "))
                .filter(|l| !l.is_empty())
                .map(|l| format!("    {key}: {l}\n"))
                .unwrap_or_default()
        };
        blocks.push_str(&format!(
            "  wrong case {}{}: {}\n    expected: {}\n{}{}",
            f["index"],
            visible.unwrap_or_default(),
            f["case"],
            f["expected"],
            words("tags"),
            words("readings")
        ));
    }
    let text = run(false);
    assert!(text.ends_with(&blocks), "{text}");
    assert!(blocks.contains("    readings: "), "{blocks}");
}
