//! `eval --batch` on several workers and with a trace: the same bytes for
//! any `--jobs`, in input order across chunks, and a traced line is what
//! `eval --trace json` writes for its case.

use super::cli::{bareme, stderr, stdout};

/// Lines that are no case, each answered by an error line in its place.
const BAD_LINES: [&str; 3] = ["not json", "{\"case\": 1}", ""];

/// A batch of every conformance case of `dir`, cycled past one chunk (512
/// lines) so that order across chunks is tested, with bad lines mixed in.
fn batch_of(dir: &std::path::Path) -> (Vec<serde_json::Value>, String) {
    let cases: Vec<serde_json::Value> = bareme::unstable::conformance::cases(dir)
        .expect("conformance cases")
        .into_iter()
        .map(|(_, case)| case)
        .collect();
    assert!(!cases.is_empty(), "{}", dir.display());
    let mut text = String::new();
    let mut i = 0;
    while i < 1100 {
        let case = &cases[i % cases.len()];
        text.push_str(&case.to_string());
        text.push('\n');
        if i % 97 == 0 {
            text.push_str(BAD_LINES[i % 3]);
            text.push('\n');
        }
        i += 1;
    }
    (cases, text)
}

fn run(dir: &str, jobs: &str, trace: bool, input: &str) -> String {
    let mut args = vec!["eval", dir, "--batch", "-", "--jobs", jobs];
    if trace {
        args.extend(["--trace", "json"]);
    }
    let o = bareme(&args, Some(input));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    stdout(&o)
}

#[test]
fn a_batch_is_the_same_bytes_on_any_number_of_workers_traced_or_not() {
    for dir in super::rulebook_dirs() {
        let (_, input) = batch_of(&dir);
        let rel = dir.to_string_lossy().to_string();
        let lines = input.lines().count();
        for trace in [false, true] {
            let one = run(&rel, "1", trace, &input);
            assert_eq!(one.lines().count(), lines, "{rel}");
            for jobs in ["2", "3"] {
                assert!(
                    one == run(&rel, jobs, trace, &input),
                    "{rel} --jobs {jobs} trace {trace}"
                );
            }
        }
    }
}

#[test]
fn each_batch_line_answers_its_input_line() {
    let dir = super::root().join("rulebooks/luma-payroll/v3");
    let rb = super::rulebook("rulebooks/luma-payroll/v3");
    let (_, input) = batch_of(&dir);
    let out = run(&dir.to_string_lossy(), "2", false, &input);
    for (line, answer) in input.lines().zip(out.lines()) {
        let expected = match serde_json::from_str::<serde_json::Value>(line) {
            Err(_) => None,
            // The envelope `{"case": 1}` holds a case that is no object.
            Ok(case) if case.get("case").is_some() => None,
            Ok(case) => Some(bareme::unstable::outcome::outcome_json(
                bareme::evaluate_value(&rb, &case, false)
                    .as_ref()
                    .map(|(outcome, _)| outcome),
            )),
        };
        let answer: serde_json::Value = serde_json::from_str(answer).expect("a JSON line");
        match expected {
            Some(expected) => assert_eq!(answer, expected, "{line}"),
            None => assert_eq!(answer["error"]["path"], "$", "{line}"),
        }
    }
}

#[test]
fn a_traced_batch_line_is_what_eval_trace_json_writes() {
    let dir = "rulebooks/luma-payroll/v3";
    let (cases, _) = batch_of(&super::root().join(dir));
    let input: String = cases.iter().map(|c| format!("{c}\n")).collect();
    let traced = run(dir, "2", true, &input);
    let untraced = run(dir, "2", false, &input);
    let mut rejected = 0;
    for ((case, line), plain) in cases.iter().zip(traced.lines()).zip(untraced.lines()) {
        let single = bareme(
            &["eval", dir, "-", "--trace", "json"],
            Some(&case.to_string()),
        );
        assert_eq!(stdout(&single).trim_end(), line, "{case}");
        let value: serde_json::Value = serde_json::from_str(line).expect("JSON");
        let plain: serde_json::Value = serde_json::from_str(plain).expect("JSON");
        assert!(value["trace"].is_object(), "{line}");
        if value.get("error").is_some() {
            rejected += 1;
            assert_eq!(value["error"], plain["error"], "{line}");
        } else {
            assert_eq!(value["answer"], plain, "{line}");
        }
    }
    assert!(rejected > 0, "the conformance cases include rejections");
}

#[test]
fn a_batch_refuses_a_text_trace_and_jobs_need_a_batch() {
    let o = bareme(
        &[
            "eval",
            "rulebooks/luma-payroll/v3",
            "--batch",
            "-",
            "--trace",
            "text",
        ],
        Some("{}\n"),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).is_empty());
    assert!(
        stderr(&o).contains("--trace text cannot be combined with --batch"),
        "{}",
        stderr(&o)
    );
    let o = bareme(
        &[
            "eval",
            "rulebooks/luma-payroll/v3",
            "examples/luma-payroll/payslip.json",
            "--jobs",
            "2",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--jobs applies to a batch"),
        "{}",
        stderr(&o)
    );
}
