//! Output that cannot be written is an error, never a silent exit 0: a
//! full disk, a closed standard stream, a closed pipe.

use super::*;

#[cfg(target_os = "linux")]
#[test]
fn every_command_fails_with_exit_2_when_its_output_cannot_be_written() {
    let payslip = "examples/luma-payroll/payslip.json";
    let batch = "examples/luma-payroll/batch.jsonl";
    for args in [
        vec!["check", LUMA],
        vec!["eval", LUMA, payslip],
        vec!["eval", LUMA, payslip, "--trace", "text"],
        vec!["eval", LUMA, payslip, "--trace", "json"],
        vec!["eval", LUMA, "--batch", batch],
        vec!["test", LUMA],
        vec!["compile", LUMA],
        vec!["compile", LUMA, "-o", "/dev/full"],
        vec!["check", "--effective", "rulebooks/paie-fr/v2025"],
        vec!["schema"],
        vec!["sweep", LUMA, payslip, "--vary", "gross_pay=1..3:1"],
        vec![
            "sweep",
            LUMA,
            payslip,
            "--vary",
            "gross_pay=1..3:1",
            "--plot",
            "/dev/full",
        ],
        // Help and the version too (clap's own printing exited 0).
        vec!["--help"],
        vec!["--version"],
        vec!["eval", "--help"],
    ] {
        let o = bareme_into_a_full_disk(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("No space left on device"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

/// A command whose result is a summary on standard error (the written
/// file's digest, a batch's counts, a score's mean) fails when the summary
/// is lost; and a score whose grades were lost says so without a summary
/// that reads as a success.
#[cfg(target_os = "linux")]
#[test]
fn a_closing_summary_that_cannot_be_written_fails_the_command() {
    let dir = tempdir("summary");
    let file = |name: &str| dir.join(name).to_str().expect("utf-8").to_string();
    let (tasks, replies, module) = (file("t.jsonl"), file("r.jsonl"), file("m.rs"));
    let generator = "rulebooks/luma-payroll/generator-4.toml";
    let rubric = "rulebooks/luma-payroll/rubric-8.toml";
    let o = bareme(&["generate", generator, "-n", "3", "-o", &tasks], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = bareme(
        &[
            "baselines",
            rubric,
            "--tasks",
            &tasks,
            "--replies-out",
            &replies,
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let batch = "examples/luma-payroll/batch.jsonl";
    for args in [
        vec!["generate", generator, "-n", "3", "-o", &tasks],
        vec!["eval", LUMA, "--batch", batch],
        vec!["compile", LUMA, "-o", &module],
        vec!["score", rubric, "--tasks", &tasks, "--replies", &replies],
    ] {
        // Only a summary on standard error can fail.
        let o = bareme_onto_full(&args, false);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
    let o = bareme_into_a_full_disk(&["score", rubric, "--tasks", &tasks, "--replies", &replies]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("No space left on device"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("mean"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs bareme through `sh` with standard output (`>&-`) or standard error
/// (`2>&-`) closed, as a shell leaves them.
#[cfg(target_os = "linux")]
fn bareme_with_closed(args: &[&str], close: &str) -> Output {
    let script = format!("exec \"$0\" \"$@\" {close}");
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_bareme"))
        .args(args)
        .current_dir(crate::root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("sh runs bareme")
}

/// A standard stream closed by the shell is reopened on `/dev/null` by the
/// runtime, so the writes succeeded and the answer was lost with exit 0;
/// `> /dev/null` is the reader's choice and stays a success.
#[cfg(target_os = "linux")]
#[test]
fn output_to_a_closed_standard_stream_fails_the_command() {
    let payslip = "examples/luma-payroll/payslip.json";
    for args in [
        vec!["eval", LUMA, payslip],
        vec!["check", LUMA],
        vec!["--version"],
    ] {
        let o = bareme_with_closed(&args, ">&-");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("cannot write to standard output: it was closed"),
            "{args:?}: {}",
            stderr(&o)
        );
        let o = bareme_with_closed(&args, ">/dev/null");
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    }
    // A command whose result is its closing summary on standard error.
    let dir = tempdir("closed-stderr");
    let tasks = dir.join("t.jsonl");
    let tasks = tasks.to_str().expect("utf-8");
    let args = [
        "generate",
        "rulebooks/luma-payroll/generator-4.toml",
        "-n",
        "2",
        "-o",
        tasks,
    ];
    assert_eq!(bareme_with_closed(&args, "2>&-").status.code(), Some(2));
    assert_eq!(
        bareme_with_closed(&args, "2>/dev/null").status.code(),
        Some(0)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bareme"))
        .args(["eval", LUMA, "--batch"])
        .current_dir(crate::root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bareme runs");
    // The reader goes away before bareme writes anything.
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().expect("stdin");
    let line = "{\"task\": \"retrieval\", \"payroll_month\": \"2026-03\", \"field\": \"contribution_rate\"}\n";
    let writer = std::thread::spawn(move || {
        for _ in 0..1000 {
            if stdin.write_all(line.as_bytes()).is_err() {
                break;
            }
        }
    });
    let o = child.wait_with_output().expect("bareme finishes");
    writer.join().expect("writer");
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stderr(&o), "");
}
