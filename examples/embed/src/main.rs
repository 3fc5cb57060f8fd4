//! bareme embedded as a library (`default-features = false`): load the Luma
//! payroll rulebook, evaluate a payslip with its trace, draw ten tasks from
//! generator 4 and score a reply to each under rubric 8, all in process:
//! the tasks go from the generator to the scorer as values, never as JSON
//! text. Run by `.ci/run` as `cargo run -p bareme-embed`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bareme::{
    evaluate_value, load_generator, load_rubric, render_text, Outcome, Scorer, TaskDrawer,
};

fn bundled(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../rulebooks")
        .join(rel)
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    // One case, evaluated with its trace. Worked by hand from the first-half
    // 2026 row (March): contribution 5% of 2500.00 = 125.00; taxable
    // 2500.00 − 125.00 = 2375.00; tax 10% of (2375.00 − 1000.00) = 137.50;
    // net 2500.00 − 125.00 − 137.50 = 2237.50.
    let rb = bareme::load_rulebook(&bundled("luma-payroll/v3"))?;
    let case = serde_json::json!({
        "task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"
    });
    let (outcome, trace) = evaluate_value(&rb, &case, true)?;
    let Outcome::Answer(answer) = outcome else {
        return Err("the payslip was rejected".into());
    };
    println!("answer: {answer}");
    if answer.to_json()["net_pay"] != "2237.50" {
        return Err(format!("net pay: expected 2237.50, the rulebook gives {answer}").into());
    }
    if let Some(trace) = trace {
        let text = render_text(&trace);
        println!(
            "trace: {} lines, first: {}",
            text.lines().count(),
            text.lines().next().unwrap_or("")
        );
    }

    // Ten tasks drawn in process, each scored in process.
    let (generator, grb) = load_generator(&bundled("luma-payroll/generator-4.toml"), None)?;
    let engine = TaskDrawer::new(&generator, &grb)?;
    let (rubric, _) = load_rubric(&bundled("luma-payroll/rubric-8.toml"), None)?;
    let scorer = Scorer::new(rubric, false);
    let mut total = 0;
    for index in 0..10 {
        let drawn = engine.task(2026, index, None)?;
        let task = drawn.task;
        let reply = scorer.reference_reply(&task.expected);
        let graded = scorer.score(&task, &reply, None)?;
        println!(
            "{} ({}): {} of {}",
            task.id,
            task.tier.as_deref().unwrap_or("-"),
            graded.score,
            graded.max
        );
        if graded.score != graded.max {
            return Err(format!(
                "task {}: the reference reply scored {}",
                task.id, graded.score
            )
            .into());
        }
        total += 1;
    }
    println!("{total} tasks generated and scored in process");
    Ok(())
}
