//! Generator throughput, one core: tasks per second (prompt included) for
//! each bundled generator, against a baseline measured in the same run —
//! evaluating the same tasks' cases from their JSON (`evaluate_value`).
//!
//! `cargo bench --bench generate` prints, per generator, tasks/s and the
//! ratio of the time per task to the time per evaluation of its case. The
//! goal of issue 12 is Luma at ≥ 10,000 tasks/s per core.

use std::path::Path;
use std::time::Instant;

use bareme::evaluate_value;
use bareme::unstable::generate::{load_generator, run, RunOptions, TaskDrawer};

/// The allocator `bareme` runs with (src/main.rs), so the figures are the CLI's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Tasks per generator (`BAREME_BENCH_tasks` overrides, e.g. under a profiler).
fn tasks() -> u64 {
    std::env::var("BAREME_BENCH_tasks")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000)
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    println!(
        "{:<28} {:>10} {:>12} {:>8}",
        "generator", "tasks/s", "evals/s", "ratio"
    );
    let tasks = tasks();
    let only = std::env::var("BAREME_BENCH_ONLY").unwrap_or_default();
    for file in [
        "rulebooks/luma-payroll/generator-4.toml",
        "rulebooks/sales-tax/generator-1.toml",
        "rulebooks/paie-fr/generator-1.toml",
        "rulebooks/succession-fr/generator-1.toml",
    ] {
        let path = root.join(file);
        if !path.exists() || !file.contains(only.as_str()) {
            continue;
        }
        let (generator, rb) = load_generator(&path, None).expect("a bundled generator loads");
        let engine = TaskDrawer::new(&generator, &rb).expect("engine");
        let options = RunOptions {
            seed: 1,
            start: 0,
            count: tasks,
            level: None,
            jobs: 1,
        };
        let mut out = Vec::new();
        let started = Instant::now();
        let manifest = run(&engine, options, &mut out, &|_| {}).expect("run");
        let generate = started.elapsed().as_secs_f64() / tasks as f64;

        let cases: Vec<serde_json::Value> = String::from_utf8(out)
            .expect("UTF-8")
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON")["case"].clone())
            .collect();
        let texts: Vec<String> = cases.iter().map(|c| c.to_string()).collect();
        let started = Instant::now();
        for _ in 0..5 {
            for text in &texts {
                let case: serde_json::Value = serde_json::from_str(text).expect("JSON");
                std::hint::black_box(evaluate_value(&rb, &case, false).ok());
            }
        }
        let eval = started.elapsed().as_secs_f64() / (5 * texts.len().max(1)) as f64;
        println!(
            "{:<28} {:>10.0} {:>12.0} {:>7.1}×   ({} tasks, {} duplicates)",
            generator.name(),
            1.0 / generate,
            1.0 / eval,
            generate / eval,
            manifest.tasks,
            manifest.duplicates
        );
    }
}
