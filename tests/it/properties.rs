//! Properties: rounding and margins, printing and parsing, payslip identities.

use bareme::unstable::expr::{parse_expr, print::print};
use bareme::unstable::num::{round, RoundingMode};
use bareme::{evaluate_value, Outcome};
use proptest::prelude::*;
use rust_decimal::Decimal;

fn decimal() -> impl Strategy<Value = Decimal> {
    (-10_000_000i64..10_000_000, 0u32..6).prop_map(|(m, s)| Decimal::new(m, s))
}

fn mode() -> impl Strategy<Value = RoundingMode> {
    prop_oneof![
        Just(RoundingMode::HalfUp),
        Just(RoundingMode::HalfDown),
        Just(RoundingMode::HalfEven),
        Just(RoundingMode::HalfCeiling),
        Just(RoundingMode::HalfFloor),
        Just(RoundingMode::Down),
        Just(RoundingMode::Up),
        Just(RoundingMode::Floor),
        Just(RoundingMode::Ceiling),
    ]
}

proptest! {
    #[test]
    fn rounding_stays_within_one_unit_and_margins_are_bounded(x in decimal(), places in 0u32..4, mode in mode()) {
        let r = round(x, places, mode);
        let unit = Decimal::new(1, places);
        prop_assert!((r.after - x).abs() < unit);
        prop_assert_eq!(r.after.scale(), places);
        prop_assert!(r.margin >= Decimal::ZERO && r.margin <= unit / Decimal::TWO);
        // Moving the exact value by less than the margin never changes the result.
        if r.margin > Decimal::ZERO {
            let nudge = r.margin / Decimal::TWO;
            prop_assert_eq!(round(x + nudge, places, mode).after, r.after);
            prop_assert_eq!(round(x - nudge, places, mode).after, r.after);
        }
    }

    #[test]
    fn printing_then_parsing_is_stable(a in "[a-c]", b in 0u32..100, op in prop_oneof![Just("+"), Just("-"), Just("*"), Just("/"), Just("<"), Just("==")], wrap in any::<bool>()) {
        let text = if wrap { format!("({a} {op} {b}) * {a}") } else { format!("{a} {op} {b} - min({a}, {b})") };
        let first = print(&parse_expr(&text).expect("parses"));
        let second = print(&parse_expr(&first).expect("printed form parses"));
        prop_assert_eq!(first, second);
    }

    #[test]
    fn a_payslip_adds_up(gross in 0i64..1_000_000, month in 1u32..=12, deduction in 0i64..30_000) {
        let rb = super::rulebook("rulebooks/luma-payroll/v3");
        let case = serde_json::json!({
            "task": "payslip",
            "gross_pay": Decimal::new(gross, 2).to_string(),
            "payroll_month": format!("2026-{month:02}"),
            "allowed_deduction": Decimal::new(deduction, 2).to_string(),
        });
        let (outcome, _) = evaluate_value(&rb, &case, false).expect("no fault");
        if let Outcome::Answer(a) = outcome {
            let a = a.to_json();
            let get = |k: &str| a[k].as_str().and_then(|s| s.parse::<Decimal>().ok()).expect("money field");
            prop_assert_eq!(get("net_pay"), get("gross_pay") - get("employee_contribution") - get("allowed_deduction") - get("income_tax"));
            prop_assert_eq!(get("taxable_pay"), get("gross_pay") - get("employee_contribution") - get("allowed_deduction"));
            prop_assert!(get("income_tax") >= Decimal::ZERO);
            prop_assert!(get("income_tax") <= get("taxable_pay").max(Decimal::ZERO));
        }
    }
}

/// Arbitrary JSON, a few levels deep, with the odd shapes hostile cases use.
fn json() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::Bool),
        (-1_000_000i64..1_000_000).prop_map(|n| serde_json::json!(n)),
        "[-0-9.eE/a-z ]{0,12}".prop_map(serde_json::Value::String),
        prop_oneof![
            Just("2026-07"),
            Just("2026-02-29"),
            Just("3/8"),
            Just("1e1000000"),
            Just("-0.00"),
            Just("12.345")
        ]
        .prop_map(|s| serde_json::Value::String(s.to_string())),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
            prop::collection::vec(("[a-z_]{1,12}", inner), 0..8)
                .prop_map(|kv| serde_json::Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// Every bundled rulebook, loaded once for the property tests.
static BUNDLED: std::sync::LazyLock<Vec<bareme::Rulebook>> = std::sync::LazyLock::new(|| {
    super::rulebook_dirs()
        .iter()
        .map(|d| bareme::load_rulebook(d).expect("bundled rulebooks load"))
        .collect()
});

/// Field names each bundled rulebook reads, so random cases reach past the first check.
const FIELDS: [&str; 24] = [
    "task",
    "gross_pay",
    "payroll_month",
    "allowed_deduction",
    "amendment",
    "reference_tables",
    "field",
    "cart",
    "products",
    "customers",
    "rules",
    "kind",
    "act_date",
    "person",
    "beneficiaries",
    "gifts",
    "residue_shares",
    "level",
    "month",
    "status",
    "headcount",
    "base_salary",
    "contract_hours",
    "entry_date",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn no_case_makes_a_rulebook_panic(fields in prop::collection::vec((0..FIELDS.len(), json()), 0..12)) {
        let case: serde_json::Map<String, serde_json::Value> =
            fields.into_iter().map(|(i, v)| (FIELDS[i].to_string(), v)).collect();
        let case = serde_json::Value::Object(case);
        for rb in BUNDLED.iter() {
            // Either an answer, a rejection naming a path, or a rulebook fault: never a panic.
            if let Ok((Outcome::Rejected(e), _)) = evaluate_value(rb, &case, true) {
                prop_assert!(!e.path.is_empty());
            }
        }
    }

    #[test]
    fn no_expression_text_makes_the_parser_panic(text in "[-+*/()<>=!a-z0-9_.,'\" \\[\\]{}]{0,80}") {
        let _ = parse_expr(&text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Damaged rulebooks (a line dropped, a line repeated, a span of bytes cut) give
    /// diagnostics or a rulebook, never a panic.
    #[test]
    fn no_damaged_rulebook_makes_the_checker_panic(which in 0usize..5, line in 0usize..1000, cut in 0usize..4000, len in 0usize..40, kind in 0u8..3) {
        let dirs = super::rulebook_dirs();
        let dir = &dirs[which % dirs.len()];
        let text = std::fs::read_to_string(dir.join("rulebook.toml")).expect("rulebook text");
        let lines: Vec<&str> = text.lines().collect();
        let damaged = match kind {
            0 => {
                let i = line % lines.len();
                lines.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, l)| *l).collect::<Vec<_>>().join("\n")
            }
            1 => {
                let i = line % lines.len();
                let mut v = lines.clone();
                v.insert(i, lines[i]);
                v.join("\n")
            }
            _ => {
                let start = cut % text.len();
                let end = (start + len).min(text.len());
                let (mut a, mut b) = (start, end);
                while !text.is_char_boundary(a) { a -= 1; }
                while !text.is_char_boundary(b) { b += 1; }
                format!("{}{}", &text[..a], &text[b..])
            }
        };
        let _ = bareme::parse_rulebook("damaged.toml", &damaged).map_err(|d| d.render(80, false));
    }
}
