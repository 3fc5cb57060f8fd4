//! Reads from outside are capped: a rulebook file, a conformance case file, a
//! case and a batch line are refused past their cap with a clear message,
//! never read whole into memory.

use std::process::{Command, Output, Stdio};

fn bareme(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bareme"))
        .args(args)
        .current_dir(super::root())
        .stdin(Stdio::null())
        .output()
        .expect("bareme runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn tempdir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("bareme-caps-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// A file of `len` zero bytes that takes no room on disk.
fn sparse_file(path: &std::path::Path, len: u64) {
    std::fs::File::create(path)
        .and_then(|f| f.set_len(len))
        .expect("sparse file");
}

const MIB: u64 = 1 << 20;

#[test]
fn a_rulebook_file_over_16_mib_is_refused_naming_the_file_and_the_cap() {
    let dir = tempdir("rulebook");
    let file = dir.join("rulebook.toml");
    sparse_file(&file, 16 * MIB + 1);
    let name = file.to_string_lossy().to_string();
    let o = bareme(&["check", &name]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!("error: cannot read {name}: a rulebook file is at most 16777216 bytes, and this one is larger\n")
    );
    // A stream without end, the hostile user's own example.
    if cfg!(target_os = "linux") {
        let o = bareme(&["check", "/dev/zero"]);
        assert_eq!(o.status.code(), Some(2));
        assert!(
            stderr(&o).contains("/dev/zero: a rulebook file is at most 16777216 bytes"),
            "{}",
            stderr(&o)
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// Formulas past 500,000 nodes in all are refused where they pass the
/// bound, and the formulas after it are not read (a 16 MiB rulebook of
/// long sums took 3.9 GB to load). Each step here is nine bracketed sums
/// of 200 `a`s: 9 × 399 + 8 = 3,599 nodes, so the 139th step passes it
/// (138 × 3,599 = 496,662) and the 140th is not read.
#[test]
fn formulas_past_the_bound_on_nodes_are_refused_where_they_pass_it() {
    let dir = tempdir("nodes").join("v1");
    std::fs::create_dir_all(&dir).expect("dir");
    let part = format!("({})", vec!["a"; 200].join("+"));
    let sum = vec![part; 9].join("+");
    let mut text = String::from(
        "[rulebook]\nid = \"nodes\"\nversion = 1\nschema = 1\ntitle = \"nodes\"\n\n\
         [clauses]\nR1 = \"One rule.\"\n\n\
         [inputs.a]\ntype = \"decimal\"\nrequired = true\nclause = \"R1\"\n\n",
    );
    for i in 0..140 {
        text += &format!("[steps.s{i}]\nexpr = \"{sum}\"\nclauses = [\"R1\"]\n\n");
    }
    text += "[[checks]]\ndecision = \"paid\"\n\n[decisions.paid]\nclauses = [\"R1\"]\n\n\
             [decisions.paid.answer]\nx = { expr = \"s0\" }\n";
    std::fs::write(dir.join("rulebook.toml"), &text).expect("write");
    let o = bareme(&["check", &dir.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(3));
    let err = stderr(&o);
    assert!(err.contains("check::too_large"), "{err}");
    assert!(err.contains("more than 500000 nodes in all"), "{err}");
    // Located at the 139th step's formula, and only one problem: the
    // steps after it, and the answer, were not read.
    let line = text
        .lines()
        .position(|l| l == "[steps.s138]")
        .expect("s138")
        + 2;
    assert!(err.contains(&format!("rulebook.toml:{line}:9]")), "{err}");
    assert!(err.contains("error: 1 problem(s)"), "{err}");
    let _ = std::fs::remove_dir_all(dir.parent().expect("parent"));
}

#[test]
fn a_case_file_over_16_mib_is_one_failed_case() {
    let dir = tempdir("case-file");
    std::fs::copy(
        super::root().join("rulebooks/luma-payroll/v3/rulebook.toml"),
        dir.join("rulebook.toml"),
    )
    .expect("copy");
    std::fs::create_dir_all(dir.join("cases")).expect("mkdir");
    sparse_file(&dir.join("cases/01-huge.toml"), 16 * MIB + 1);
    let o = bareme(&["test", &dir.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.starts_with("FAIL 01-huge\n  the case file is larger than the cap of 16777216 bytes\n"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_case_over_64_mib_is_refused_whatever_the_rulebook_allows() {
    let dir = tempdir("case");
    let rulebook = dir.join("rulebook.toml");
    std::fs::write(
        &rulebook,
        "[rulebook]\nid = \"big\"\nversion = 1\nschema = 1\n\n[limits]\nmax_case_bytes = 67108864\n\n[inputs.x]\ntype = \"integer\"\n\n[[checks]]\ndecision = \"d\"\n\n[decisions.d.answer]\nx = { expr = \"x\", format = \"integer\" }\n",
    )
    .expect("write");
    let case = dir.join("case.json");
    sparse_file(&case, 64 * MIB + 1);
    let (rulebook, case) = (rulebook.to_string_lossy(), case.to_string_lossy());
    let o = bareme(&["eval", &rulebook, &case]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: the case is larger than the limit of 67108864 bytes\n"
    );
    // As one batch line, followed by a line that still gets its answer.
    let batch = dir.join("batch.jsonl");
    sparse_file(&batch, 64 * MIB + 1);
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&batch)
        .expect("open");
    std::io::Write::write_all(&mut file, b"\n{\"x\": 7}\n").expect("append");
    let o = bareme(&["eval", &rulebook, "--batch", &batch.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "{\"error\":{\"path\":\"$\",\"message\":\"the case is larger than the limit of 67108864 bytes\"}}\n{\"x\":7}\n"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// `verify-trace` reads its trace file a line at a time, each at most 256
/// MiB: a line past it is refused without being read whole (the file was
/// read whole, and `/dev/zero` ran the process out of memory).
#[test]
fn a_trace_line_over_256_mib_is_refused_unread() {
    let dir = tempdir("trace-line");
    let file = dir.join("trace.jsonl");
    sparse_file(&file, 300 * MIB);
    let name = file.to_string_lossy().to_string();
    let o = bareme(&[
        "verify-trace",
        &name,
        "--rulebook",
        "rulebooks/luma-payroll/v3",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!("error: {name}, line 1: longer than the limit of 268435456 bytes\n")
    );
    let _ = std::fs::remove_dir_all(dir);
}
