//! bareme against the limit: every bundled rulebook on thousands of varied
//! cases drawn by its generator (never one case repeated), per phase and
//! end to end, untraced and traced, on one core and on all cores, each
//! figure with its ratio to the hand-written Luma program
//! (`tests/handwritten/luma.rs`) and, where the rulebook has one, to its
//! own hand-written program (`tests/handwritten/`), measured in the same
//! run; and the load and check time of each rulebook. BENCHMARKS.md
//! records a run.
//!
//! `cargo bench --bench limit`; `BAREME_BENCH_CASES` (default 20000) sets
//! the cases per rulebook, `BAREME_BENCH_ONLY` narrows to the sets whose
//! name holds it (`paie-fr` includes `paie-fr level 4`). Each figure is the
//! best of three passes.

#[path = "../tests/handwritten/cell.rs"]
mod cell;
#[path = "../tests/handwritten/luma.rs"]
mod luma;
#[path = "../tests/handwritten/paie_fr.rs"]
mod paie_fr;
#[path = "../tests/handwritten/sales_tax.rs"]
mod sales_tax;

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use bareme::unstable::case::{validate_case_text, CaseText};
use bareme::unstable::chunks::{all_cores, in_order, pool};
use bareme::unstable::evaluation::{evaluate_text, write_evaluation};
use bareme::unstable::generate::{load_generator, run, RunOptions, TaskDrawer};
use bareme::unstable::outcome::{write_outcome, write_traced, write_traced_compact};
use bareme::{evaluate, evaluate_value, load_rulebook, validate_case, Rulebook};

/// The allocator `bareme` runs with (src/main.rs), so the figures are the CLI's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A hand-written program: one case line in, its answer (or error) appended.
type Handwritten = fn(&str, &mut String);

/// One set of cases: its name, generator, level (all levels if none) and
/// hand-written program, if it has one.
struct Set {
    name: &'static str,
    generator: &'static str,
    level: Option<i64>,
    handwritten: Option<Handwritten>,
}

const SETS: [Set; 5] = [
    Set {
        name: "luma-payroll",
        generator: "rulebooks/luma-payroll/generator-4.toml",
        level: None,
        handwritten: Some(luma::evaluate_line),
    },
    Set {
        name: "sales-tax",
        generator: "rulebooks/sales-tax/generator-1.toml",
        level: None,
        handwritten: Some(sales_tax::evaluate_line),
    },
    Set {
        name: "paie-fr",
        generator: "rulebooks/paie-fr/generator-1.toml",
        level: None,
        handwritten: Some(paie_fr::evaluate_line),
    },
    Set {
        name: "paie-fr level 4",
        generator: "rulebooks/paie-fr/generator-1.toml",
        level: Some(4),
        handwritten: Some(paie_fr::evaluate_line),
    },
    Set {
        name: "succession-fr",
        generator: "rulebooks/succession-fr/generator-1.toml",
        level: None,
        handwritten: None,
    },
];

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// Microseconds per case of `f` over `n` cases, best of three passes.
fn per_case(n: usize, mut f: impl FnMut()) -> f64 {
    (0..3)
        .map(|_| {
            let started = Instant::now();
            f();
            started.elapsed().as_secs_f64() * 1e6 / n.max(1) as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// The case lines a generator draws (its tasks' cases, as one JSON line
/// each), at one level if given.
fn cases(path: &Path, n: u64, level: Option<i64>) -> (Rulebook, Vec<String>) {
    let (generator, rb) = load_generator(path, None).expect("a bundled generator loads");
    let engine = TaskDrawer::new(&generator, &rb).expect("engine");
    let options = RunOptions {
        seed: 1,
        start: 0,
        count: n,
        level,
        jobs: all_cores(),
    };
    let mut out = Vec::new();
    run(&engine, options, &mut out, &|_| {}).expect("tasks");
    let lines = String::from_utf8(out)
        .expect("UTF-8")
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON")["case"].to_string())
        .collect();
    (rb, lines)
}

/// The whole batch road on `jobs` workers, as `eval --batch` runs it.
fn batch(rb: &Rulebook, lines: &[String], jobs: usize, trace: bool, compact: bool) -> usize {
    let pool = pool(jobs).expect("pool");
    let mut next = lines.iter();
    let mut bytes = 0;
    let done: Result<(), ()> = in_order(
        &pool,
        |chunk| {
            chunk.extend(next.by_ref().take(512));
            Ok(())
        },
        |line: &String| {
            // As `eval --batch` reads and writes a line: in one pass, else
            // by serde_json; untraced, the answer written as it is
            // evaluated; traced, `{"answer", "trace"}` straight to text.
            let mut out = Vec::new();
            let case = CaseText::parse(line).map(CaseText::without_envelope);
            if let (Some(case), false) = (&case, trace) {
                write_evaluation(&mut out, rb, case);
                return out;
            }
            let result = match &case {
                Some(case) => evaluate_text(rb, case, trace),
                None => {
                    let case: serde_json::Value = serde_json::from_str(line).expect("JSON");
                    evaluate_value(rb, &case, trace)
                }
            };
            match &result {
                // `--trace json-compact`: the trace in format 2.
                Ok((outcome, Some(t))) if compact => {
                    write_traced_compact(&mut out, outcome, t).expect("a trace within its bound")
                }
                Ok((outcome, Some(t))) => {
                    write_traced(&mut out, outcome, t).expect("a trace within its bound")
                }
                _ => write_outcome(&mut out, result.as_ref().map(|(o, _)| o)),
            }
            out
        },
        |out| {
            bytes += out.len() + 1;
            Ok(())
        },
    );
    done.expect("batch");
    bytes
}

/// Microseconds per case of a hand-written program over `lines`.
fn handwritten(program: Handwritten, lines: &[String]) -> f64 {
    let mut out = String::new();
    per_case(lines.len(), || {
        for line in lines {
            out.clear();
            program(line, &mut out);
            black_box(&out);
        }
    })
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let n = env_or("BAREME_BENCH_CASES", 20000);
    let only = std::env::var("BAREME_BENCH_ONLY").unwrap_or_default();
    let cores = all_cores();
    println!(
        "{cores} cores; µs per case, best of 3; ratios to the hand-written Luma program end to end \
         and to the rulebook's own hand-written program end to end"
    );

    // The Luma limit, on Luma's cases.
    let (_, luma_lines) = cases(&root.join(SETS[0].generator), n, None);
    let limit = handwritten(luma::evaluate_line, &luma_lines);
    let limit_parse = per_case(luma_lines.len(), || {
        for line in &luma_lines {
            black_box(serde_json::from_str::<luma::RawCase>(line).ok());
        }
    });
    println!(
        "hand-written Luma: end to end {limit:.2}, parse {limit_parse:.2} ({} cases)",
        luma_lines.len()
    );
    println!(
        "{:<16} {:<26} {:>9} {:>8} {:>8}",
        "rulebook", "phase", "µs/case", "×Luma", "×own"
    );

    for set in &SETS {
        if !set.name.contains(only.as_str()) {
            continue;
        }
        let name = set.name;
        let (rb, lines) = cases(&root.join(set.generator), n, set.level);
        let k = lines.len();
        let own = set.handwritten.map(|program| handwritten(program, &lines));
        let show = |phase: &str, us: f64| match own {
            Some(own) => println!(
                "{name:<16} {phase:<26} {us:>9.2} {:>7.2}× {:>7.2}×",
                us / limit,
                us / own
            ),
            None => println!("{name:<16} {phase:<26} {us:>9.2} {:>7.2}×", us / limit),
        };
        if let Some(own) = own {
            println!("{name:<16} {:<26} {own:>9.2}", "hand-written, end to end");
        }
        let set_dir = set.generator.split('/').nth(1).unwrap_or("");
        let dir = root.join("rulebooks").join(set_dir).join(format!(
            "v{}",
            rb.reference().split(['@', '#']).nth(1).unwrap_or("")
        ));
        let load = (0..3)
            .map(|_| {
                let started = Instant::now();
                black_box(load_rulebook(&dir).expect("loads"));
                started.elapsed().as_secs_f64() * 1e3
            })
            .fold(f64::INFINITY, f64::min);
        println!(
            "{name:<16} {:<26} {load:>9.2} ms ({k} cases)",
            "load + check"
        );

        let parsed: Vec<serde_json::Value> = lines
            .iter()
            .map(|l| serde_json::from_str(l).expect("JSON"))
            .collect();
        show(
            "parse (serde_json Value)",
            per_case(k, || {
                for line in &lines {
                    black_box(serde_json::from_str::<serde_json::Value>(line).ok());
                }
            }),
        );
        show(
            "parse (one pass, CaseText)",
            per_case(k, || {
                for line in &lines {
                    black_box(CaseText::parse(line));
                }
            }),
        );
        let flat: Vec<CaseText> = lines.iter().filter_map(|l| CaseText::parse(l)).collect();
        show(
            "validate (CaseText)",
            per_case(flat.len(), || {
                for case in &flat {
                    black_box(validate_case_text(&rb, case).ok());
                }
            }),
        );
        let facts: Vec<_> = parsed.iter().map(|c| validate_case(&rb, c)).collect();
        show(
            "validate (serde_json Value)",
            per_case(k, || {
                for case in &parsed {
                    black_box(validate_case(&rb, case).ok());
                }
            }),
        );
        let outcomes: Vec<_> = facts
            .iter()
            .flatten()
            .map(|f| evaluate(&rb, f, false))
            .collect();
        let valid = outcomes.len();
        show(
            "evaluate (valid cases)",
            per_case(k, || {
                for f in facts.iter().flatten() {
                    black_box(evaluate(&rb, f, false).ok());
                }
            }) * k as f64
                / valid.max(1) as f64,
        );
        show(
            "evaluate traced",
            per_case(k, || {
                for f in facts.iter().flatten() {
                    black_box(evaluate(&rb, f, true).ok());
                }
            }) * k as f64
                / valid.max(1) as f64,
        );
        show(
            "validate, evaluate, write",
            per_case(flat.len(), || {
                let mut out = Vec::new();
                for case in &flat {
                    out.clear();
                    write_evaluation(&mut out, &rb, case);
                    black_box(&out);
                }
            }),
        );
        show(
            "write answer (built)",
            per_case(valid, || {
                let mut out = Vec::new();
                for o in &outcomes {
                    out.clear();
                    write_outcome(&mut out, o.as_ref().map(|(o, _)| o));
                    black_box(&out);
                }
            }),
        );
        let one = per_case(k, || {
            black_box(batch(&rb, &lines, 1, false, false));
        });
        show("end to end, 1 core", one);
        let all = per_case(k, || {
            black_box(batch(&rb, &lines, cores, false, false));
        });
        show(&format!("end to end, {cores} cores"), all);
        println!(
            "{name:<16} {:<26} {:>9.2}×",
            "  all cores / 1 core",
            one / all
        );
        let traced = per_case(k, || {
            black_box(batch(&rb, &lines, 1, true, false));
        });
        show("end to end traced, 1 core", traced);
        println!(
            "{name:<16} {:<26} {:>9.2}×",
            "  traced / untraced",
            traced / one
        );
        show(
            &format!("end to end traced, {cores} cores"),
            per_case(k, || {
                black_box(batch(&rb, &lines, cores, true, false));
            }),
        );
        let compact = per_case(k, || {
            black_box(batch(&rb, &lines, 1, true, true));
        });
        show("end to end compact, 1 core", compact);
        println!(
            "{name:<16} {:<26} {:>9.2}×",
            "  compact / untraced",
            compact / one
        );
        let n = lines.len().max(1);
        println!(
            "{name:<16} {:<26} {:>9} B  {:>9} B",
            "  trace line, full/compact",
            batch(&rb, &lines, 1, true, false) / n,
            batch(&rb, &lines, 1, true, true) / n
        );
    }
}
