//! Compiled rulebooks (`bareme compile`, `tests/compiled/`) give the
//! interpreter's outcomes (on conformance cases, perturbed conformance
//! cases, generated payslips and the roads rulebook's cases), are refused
//! for any other rulebook or bareme, and answer every answer themselves
//! rather than handing cases back to the interpreter.

use bareme::unstable::compiled::{Bound, Compiled, Stale};
use bareme::{evaluate, validate_case, Outcome, Rulebook};

#[rustfmt::skip]
#[path = "../compiled/luma_payroll_v3.rs"]
mod luma_payroll_v3;
#[rustfmt::skip]
#[path = "../compiled/paie_fr_v2025.rs"]
mod paie_fr_v2025;
#[rustfmt::skip]
#[path = "../compiled/paie_fr_v2026.rs"]
mod paie_fr_v2026;
#[rustfmt::skip]
#[path = "../compiled/roads.rs"]
mod roads_compiled;
#[rustfmt::skip]
#[path = "../compiled/sales_tax_v1.rs"]
mod sales_tax_v1;
#[rustfmt::skip]
#[path = "../compiled/succession_fr_v2026.rs"]
mod succession_fr_v2026;

/// The module of every bundled rulebook, with its folder and file name.
#[rustfmt::skip]
const MODULES: [(&Compiled, &str, &str); 5] = [
    (&luma_payroll_v3::COMPILED, "rulebooks/luma-payroll/v3", "luma_payroll_v3"),
    (&paie_fr_v2025::COMPILED, "rulebooks/paie-fr/v2025", "paie_fr_v2025"),
    (&paie_fr_v2026::COMPILED, "rulebooks/paie-fr/v2026", "paie_fr_v2026"),
    (&sales_tax_v1::COMPILED, "rulebooks/sales-tax/v1", "sales_tax_v1"),
    (&succession_fr_v2026::COMPILED, "rulebooks/succession-fr/v2026", "succession_fr_v2026"),
];

pub(super) fn bind<'r>(compiled: &Compiled, rb: &'r Rulebook, file: &str) -> Bound<'r> {
    compiled.bind(rb).unwrap_or_else(|e| {
        panic!(
            "{e}: cargo run -- compile {} -o tests/compiled/{file}.rs",
            rb.reference()
        )
    })
}

/// The interpreter's outcome, untraced.
pub(super) fn interpreted(rb: &Rulebook, case: &serde_json::Value) -> Result<Outcome, String> {
    match validate_case(rb, case) {
        Ok(facts) => evaluate(rb, &facts, false)
            .map(|(o, _)| o)
            .map_err(|e| e.to_string()),
        Err(e) => Ok(Outcome::Rejected(e)),
    }
}

/// The compiled module's outcome, and whether its own code gave it.
pub(super) fn compiled(
    bound: &Bound,
    rb: &Rulebook,
    case: &serde_json::Value,
) -> (Result<Outcome, String>, bool) {
    match validate_case(rb, case) {
        Ok(facts) => (
            bound.evaluate(&facts).map_err(|e| e.to_string()),
            bound.compiled_only(&facts).is_some(),
        ),
        Err(e) => (Ok(Outcome::Rejected(e)), false),
    }
}

/// A test rulebook's checked-in module (`tests/compiled/<file>.rs`) is what
/// the generator writes now, with no fallback, and on every conformance
/// case of `dir` gives the interpreter's outcome, answering by its own code.
pub(super) fn agrees_on_its_cases(module: &Compiled, dir: &str, file: &str) {
    let rb = super::rulebook(dir);
    let bound = bind(module, &rb, file);
    let generated = bareme::unstable::codegen::generate(&rb);
    let path = format!("tests/compiled/{file}.rs");
    let text = std::fs::read_to_string(super::root().join(&path)).expect("the checked-in module");
    assert!(text == generated.source, "{path} was edited");
    assert!(generated.fallbacks.is_empty(), "{:?}", generated.fallbacks);
    let cases = bareme::unstable::conformance::cases(&super::root().join(dir)).expect("cases");
    for (name, case) in &cases {
        let expected = interpreted(&rb, case);
        let (got, by_code) = compiled(&bound, &rb, case);
        assert_eq!(got, expected, "{name}");
        if matches!(expected, Ok(Outcome::Answer(_))) {
            assert!(by_code, "{name} was handed back to the interpreter");
        }
    }
}

#[test]
fn checked_in_modules_are_what_the_generator_writes_now() {
    for (module, dir, file) in MODULES {
        let rb = super::rulebook(dir);
        bind(module, &rb, file);
        let generated = bareme::unstable::codegen::generate(&rb);
        assert_eq!(generated.fingerprint, module.fingerprint);
        let text = std::fs::read_to_string(super::root().join(format!("tests/compiled/{file}.rs")))
            .expect("the checked-in module");
        assert!(
            text == generated.source,
            "tests/compiled/{file}.rs was edited"
        );
        assert!(
            generated.fallbacks.is_empty(),
            "{dir}: {:?}",
            generated.fallbacks
        );
    }
}

/// The rulebook of `roads.rs`, written to take every shortcut of the lowered code.
fn roads_rulebook() -> Rulebook {
    bareme::parse_rulebook("roads.toml", super::roads::RULEBOOK).expect("valid")
}

#[test]
fn the_roads_module_is_what_the_generator_writes_now() {
    let rb = roads_rulebook();
    bind(&roads_compiled::COMPILED, &rb, "roads");
    let text = std::fs::read_to_string(super::root().join("tests/compiled/roads.rs"))
        .expect("the checked-in module");
    assert!(
        text == bareme::unstable::codegen::generate(&rb).source,
        "tests/compiled/roads.rs was edited"
    );
}

#[test]
fn a_module_is_refused_for_another_rulebook_or_reading() {
    let rb2025 = super::rulebook("rulebooks/paie-fr/v2025");
    let err = paie_fr_v2026::COMPILED.bind(&rb2025).err();
    assert_eq!(
        err,
        Some(Stale {
            compiled: paie_fr_v2026::COMPILED.reference.to_string(),
            rulebook: rb2025.reference(),
        })
    );
    let rb2026 = super::rulebook("rulebooks/paie-fr/v2026");
    let ablated = rb2026
        .ablated("unprorated_ceiling")
        .expect("a declared ablation");
    assert!(paie_fr_v2026::COMPILED.bind(&ablated).is_err());
}

#[test]
fn conformance_cases_come_out_as_interpreted_and_are_answered_compiled() {
    for (module, dir, file) in MODULES {
        let rb = super::rulebook(dir);
        let bound = bind(module, &rb, file);
        let cases = bareme::unstable::conformance::cases(&super::root().join(dir)).expect("cases");
        assert!(cases.len() >= 20, "{dir}");
        let mut answered = 0;
        for (name, case) in &cases {
            let expected = interpreted(&rb, case);
            let (got, by_code) = compiled(&bound, &rb, case);
            assert_eq!(got, expected, "{dir} {name}");
            if by_code {
                assert!(matches!(got, Ok(Outcome::Answer(_))), "{dir} {name}");
                answered += 1;
            }
            // Every answer of these rulebooks is within the compiled code's reach.
            if matches!(expected, Ok(Outcome::Answer(_))) {
                assert!(by_code, "{dir} {name} was handed back to the interpreter");
            }
        }
        assert!(answered > 0, "{dir}");
    }
}

#[test]
fn a_case_of_another_shape_is_handed_back_not_misread() {
    let rb = super::rulebook("rulebooks/paie-fr/v2026");
    let bound = bind(&paie_fr_v2026::COMPILED, &rb, "paie_fr_v2026");
    let luma = super::rulebook("rulebooks/luma-payroll/v3");
    let case = serde_json::json!({"task": "payslip", "gross_pay": "3650.00", "payroll_month": "2026-09",
        "allowed_deduction": "120.00", "contract_gross_pay": "3500.00"});
    let foreign = validate_case(&luma, &case).expect("a valid Luma case");
    assert_eq!(bound.compiled_only(&foreign), None);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 64, ..Default::default() })]

    /// Generated payslips, both years: the compiled module gives the
    /// interpreter's outcome, answers, rejections and faults alike.
    #[test]
    fn payslips_come_out_as_interpreted(case in super::roads::payslip()) {
        for (rb, bound) in BOUND.iter().filter(|(rb, _)| rb.id() == "paie-fr") {
            let text = case.to_string().replace("\"2026-", &format!("\"{}-", rb.version()));
            let case: serde_json::Value = serde_json::from_str(&text).expect("JSON");
            let expected = interpreted(rb, &case);
            let (got, by_code) = compiled(bound, rb, &case);
            proptest::prop_assert_eq!(&got, &expected, "{} on {}", rb.reference(), case);
            if matches!(expected, Ok(Outcome::Answer(_))) {
                proptest::prop_assert!(by_code, "{} on {} was handed back", rb.reference(), case);
            }
        }
    }
}

/// The rulebooks of `MODULES`, loaded once, each with its module bound.
static BOUND: std::sync::LazyLock<Vec<(&'static Rulebook, Bound<'static>)>> =
    std::sync::LazyLock::new(|| {
        MODULES
            .iter()
            .map(|(module, dir, file)| {
                let rb: &'static Rulebook = Box::leak(Box::new(super::rulebook(dir)));
                (rb, bind(module, rb, file))
            })
            .collect()
    });

/// A case of the roads rulebook: fractions, missing values, ties of scale,
/// overflow, rejections and per-item faults all come up.
fn roads_case() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
    use proptest::prelude::*;
    let number = prop_oneof![
        (-2000i64..2000, 0u32..4).prop_map(|(m, s)| rust_decimal::Decimal::new(m, s).to_string()),
        Just("99".to_string()),
        Just("0".to_string()),
        Just("1".to_string()),
        Just("79228162514264".to_string()),
    ];
    (
        number.clone(),
        proptest::option::of(number.clone()),
        any::<bool>(),
        proptest::option::of(proptest::collection::vec(number, 0..5)),
    )
        .prop_map(|(x, y, a, lines)| {
            let mut case = serde_json::json!({"x": x, "kind": if a { "a" } else { "b" }});
            if let Some(o) = case.as_object_mut() {
                if let Some(y) = y {
                    o.insert("y".into(), y.into());
                }
                if let Some(lines) = lines {
                    o.insert("lines".into(), lines.into());
                }
            }
            case
        })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 256, ..Default::default() })]

    /// The roads rulebook compiled gives the interpreter's outcome on any
    /// case, and answers what the interpreter answers without a fraction.
    #[test]
    fn roads_come_out_as_interpreted(case in roads_case()) {
        let rb = &*ROADS;
        let bound = bind(&roads_compiled::COMPILED, rb, "roads");
        let expected = interpreted(rb, &case);
        let (got, _) = compiled(&bound, rb, &case);
        proptest::prop_assert_eq!(&got, &expected, "on {}", case);
    }
}

static ROADS: std::sync::LazyLock<Rulebook> = std::sync::LazyLock::new(roads_rulebook);

/// Choices drawn by proptest, read in turn (and again from the start).
struct Choices {
    values: Vec<u32>,
    at: usize,
}

impl Choices {
    fn next(&mut self) -> u32 {
        let v = self
            .values
            .get(self.at % self.values.len().max(1))
            .copied()
            .unwrap_or(0);
        self.at += 1;
        v
    }
}

/// A case perturbed by `choices`: numbers doubled, zeroed, divided or
/// nudged (keeping their decimals and their JSON form), booleans flipped,
/// object keys dropped, list items dropped or repeated. Most stay valid and
/// take other branches than the case they come from.
fn perturb(v: &serde_json::Value, choices: &mut Choices) -> serde_json::Value {
    use rust_decimal::Decimal;
    use serde_json::Value as J;
    let number = |d: Decimal, c: u32| -> Decimal {
        let scale = d.scale();
        let mut out = match c % 20 {
            0 => d * Decimal::TWO,
            1 => Decimal::ZERO,
            2 => d / Decimal::from(3),
            3 => d + Decimal::new(1, scale),
            4 => d * Decimal::TEN,
            5 => d / Decimal::TEN,
            _ => d,
        };
        out = out.round_dp(scale);
        out.rescale(scale);
        out
    };
    match v {
        J::Number(n) => match n.to_string().parse::<Decimal>() {
            Ok(d) => serde_json::from_str(&number(d, choices.next()).to_string())
                .unwrap_or_else(|_| v.clone()),
            Err(_) => v.clone(),
        },
        J::String(s) => match s.parse::<Decimal>() {
            Ok(d) => J::String(number(d, choices.next()).to_string()),
            Err(_) => v.clone(),
        },
        J::Bool(b) => J::Bool(if choices.next() % 4 == 0 { !b } else { *b }),
        J::Array(items) => {
            let mut out = Vec::with_capacity(items.len() + 1);
            for item in items {
                match choices.next() % 16 {
                    0 => {}
                    1 => {
                        out.push(perturb(item, choices));
                        out.push(item.clone());
                    }
                    _ => out.push(perturb(item, choices)),
                }
            }
            J::Array(out)
        }
        J::Object(fields) => {
            let mut out = serde_json::Map::with_capacity(fields.len());
            for (k, v) in fields {
                if choices.next() % 40 != 0 {
                    out.insert(k.clone(), perturb(v, choices));
                }
            }
            J::Object(out)
        }
        J::Null => J::Null,
    }
}

/// Every conformance case of every bundled rulebook, with its rulebook.
static CASES: std::sync::LazyLock<Vec<(usize, serde_json::Value)>> =
    std::sync::LazyLock::new(|| {
        let mut all = Vec::new();
        for (r, (_, dir, _)) in MODULES.iter().enumerate() {
            for (_, case) in
                bareme::unstable::conformance::cases(&super::root().join(dir)).expect("cases")
            {
                all.push((r, case));
            }
        }
        all
    });

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 512, ..Default::default() })]

    /// Conformance cases of every bundled rulebook, perturbed (about a third
    /// stay answerable): the compiled module gives the interpreter's
    /// outcome, answers, rejections and faults alike, and answers every
    /// answer itself.
    #[test]
    fn perturbed_cases_come_out_as_interpreted(
        which in 0usize..10_000,
        values in proptest::collection::vec(proptest::prelude::any::<u32>(), 1..64),
    ) {
        let (r, case) = &CASES[which % CASES.len()];
        let case = perturb(case, &mut Choices { values, at: 0 });
        let (rb, bound) = &BOUND[*r];
        let expected = interpreted(rb, &case);
        let (got, by_code) = compiled(bound, rb, &case);
        proptest::prop_assert_eq!(&got, &expected, "{} on {}", rb.reference(), case);
        if matches!(expected, Ok(Outcome::Answer(_))) {
            proptest::prop_assert!(by_code, "{} on {} was handed back", rb.reference(), case);
        }
    }
}
