//! Cost of one Luma evaluation, with and without trace, against baselines
//! measured in the same run (parsing the case JSON; validating it).
//!
//! `cargo bench --bench eval` prints criterion's timings, then each
//! measurement as a ratio to the JSON-parse baseline. The paie-fr payslip is
//! measured interpreted and compiled (`tests/compiled/`, `bareme compile`),
//! and so is the Luma payslip.

use criterion::{black_box, Criterion};
use std::path::Path;

use bareme::{evaluate, evaluate_value, load_rulebook, validate_case};

#[rustfmt::skip]
#[path = "../tests/compiled/luma_payroll_v3.rs"]
mod luma_payroll_v3;
#[rustfmt::skip]
#[path = "../tests/compiled/paie_fr_v2026.rs"]
mod paie_fr_v2026;

const CASE: &str = r#"{"task": "payslip", "gross_pay": "3650.00", "payroll_month": "2026-09",
  "allowed_deduction": "120.00", "contract_gross_pay": "3500.00",
  "amendment": {"gross_pay": "3650.00", "effective_month": "2026-08", "approved": true}}"#;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rb =
        load_rulebook(&root.join("rulebooks/luma-payroll/v3")).expect("the bundled rulebook loads");
    let case: serde_json::Value = serde_json::from_str(CASE).expect("JSON");
    let facts = validate_case(&rb, &case).expect("valid case");

    let mut c = Criterion::default().configure_from_args();
    let mut g = c.benchmark_group("luma");
    g.bench_function("baseline_parse_json", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(CASE)))
    });
    g.bench_function("validate", |b| {
        b.iter(|| validate_case(&rb, black_box(&case)))
    });
    g.bench_function("evaluate_no_trace", |b| {
        b.iter(|| evaluate(&rb, black_box(&facts), false))
    });
    let luma_compiled = luma_payroll_v3::COMPILED
        .bind(&rb)
        .expect("the compiled module is fresh");
    g.bench_function("compiled_no_trace", |b| {
        b.iter(|| luma_compiled.evaluate(black_box(&facts)))
    });
    g.bench_function("evaluate_trace", |b| {
        b.iter(|| evaluate(&rb, black_box(&facts), true))
    });
    g.bench_function("validate_and_evaluate", |b| {
        b.iter(|| evaluate_value(&rb, black_box(&case), false))
    });
    g.finish();

    let paie =
        load_rulebook(&root.join("rulebooks/paie-fr/v2026")).expect("the bundled rulebook loads");
    let text = std::fs::read_to_string(root.join("examples/paie-fr/level4-entry.json"))
        .expect("example case");
    let payslip: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let payslip_facts = validate_case(&paie, &payslip).expect("valid case");
    let mut g = c.benchmark_group("paie");
    g.bench_function("level4_evaluate_no_trace", |b| {
        b.iter(|| evaluate(&paie, black_box(&payslip_facts), false))
    });
    let compiled = paie_fr_v2026::COMPILED
        .bind(&paie)
        .expect("the compiled module is fresh");
    g.bench_function("level4_compiled_no_trace", |b| {
        b.iter(|| compiled.evaluate(black_box(&payslip_facts)))
    });
    g.bench_function("level4_validate_and_evaluate", |b| {
        b.iter(|| evaluate_value(&paie, black_box(&payslip), false))
    });
    g.bench_function("level4_evaluate_trace", |b| {
        b.iter(|| evaluate(&paie, black_box(&payslip_facts), true))
    });
    g.finish();
    c.final_summary();

    let criterion_dir = root.join("target/criterion");
    let mean = |id: &str| -> Option<f64> {
        let text =
            std::fs::read_to_string(criterion_dir.join(id).join("new/estimates.json")).ok()?;
        let v: serde_json::Value = serde_json::from_str(&text).ok()?;
        v["mean"]["point_estimate"].as_f64()
    };
    let Some(base) = mean("luma/baseline_parse_json") else {
        return;
    };
    println!(
        "\nratios to the baseline (parsing the case JSON, {:.0} ns):",
        base
    );
    for id in [
        "luma/validate",
        "luma/evaluate_no_trace",
        "luma/compiled_no_trace",
        "luma/evaluate_trace",
        "luma/validate_and_evaluate",
        "paie/level4_evaluate_no_trace",
        "paie/level4_compiled_no_trace",
        "paie/level4_validate_and_evaluate",
        "paie/level4_evaluate_trace",
    ] {
        if let Some(m) = mean(id) {
            println!(
                "  {id:<36} {:>10.0} ns  {:>7.2}× baseline  ({:.0} cases/s on one core)",
                m,
                m / base,
                1e9 / m
            );
        }
    }
}
