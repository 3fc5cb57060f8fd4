//! Grading hostile replies: each shape at 20,000 and at 200,000 characters
//! (succession-fr rubric 1's limit), so that the printed ratio of the two
//! times shows whether grading is linear (about 10×) or worse.
//!
//! `cargo bench --bench replies`.

use criterion::{black_box, Criterion};
use std::path::Path;

use bareme::unstable::score::{grade, load_rubric};

/// A reply of at most `n` characters (about `n`) of each hostile shape.
fn shapes(n: usize) -> Vec<(&'static str, String)> {
    let n = n - 100;
    let keys: String = (0..n / 16).map(|i| format!("\"k{i:08}\": 1, ")).collect();
    vec![
        (
            "many_keys_then_a_duplicate",
            format!("<droits>{{{keys}\"k00000000\": 2}}</droits>"),
        ),
        (
            "one_long_integer",
            format!(
                "<droits>{{\"total_droits\": 1{}}}</droits>",
                "0".repeat(n - 40)
            ),
        ),
        (
            "long_exponent",
            format!(
                "<droits>{{\"total_droits\": 1e{}}}</droits>",
                "9".repeat(n - 40)
            ),
        ),
        ("opening_tags", "<droits><droit".repeat(n / 14)),
        (
            "closing_tags",
            format!("<droits>{}", "</droit".repeat(n / 8)),
        ),
        (
            "nested_lists",
            format!(
                "<droits>{}</droits>",
                "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],".repeat(n / 64)
            ),
        ),
        (
            "long_string_amount",
            format!(
                "<droits>{{\"beneficiaires\": {{}}, \"total_droits\": \"1{}\"}}</droits>",
                " 000".repeat(n / 4 - 20)
            ),
        ),
    ]
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (rubric, _) = load_rubric(&root.join("rulebooks/succession-fr/rubric-1.toml"), None)
        .expect("the bundled rubric loads");
    let expected = serde_json::json!({"beneficiaires": {"B1": {"part_taxable": 0, "droits": 0}}, "total_droits": 0});
    let mut c = Criterion::default().configure_from_args();
    let mut g = c.benchmark_group("replies");
    let mut names = Vec::new();
    for n in [20_000usize, 200_000] {
        for (name, reply) in shapes(n) {
            let id = format!("{name}_{n}");
            g.bench_function(&id, |b| {
                b.iter(|| grade(&rubric, &expected, black_box(&reply), None))
            });
            names.push((name, n));
        }
    }
    g.finish();
    c.final_summary();

    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let dir = target.join("criterion/replies");
    let mean = |id: &str| -> Option<f64> {
        let text = std::fs::read_to_string(dir.join(id).join("new/estimates.json")).ok()?;
        let v: serde_json::Value = serde_json::from_str(&text).ok()?;
        v["mean"]["point_estimate"].as_f64()
    };
    println!("\n200,000 against 20,000 characters (linear: about 10×):");
    for (name, _) in shapes(1_000).iter() {
        if let (Some(small), Some(large)) = (
            mean(&format!("{name}_20000")),
            mean(&format!("{name}_200000")),
        ) {
            println!(
                "  {name:<28} {:>10.0} ns  {:>12.0} ns  {:>6.1}×",
                small,
                large,
                large / small
            );
        }
    }
}
