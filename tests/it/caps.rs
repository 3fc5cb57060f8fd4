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
    // A stream without end, the hostile user's own example: a device is
    // not even opened.
    if cfg!(target_os = "linux") {
        let o = bareme(&["check", "/dev/zero"]);
        assert_eq!(o.status.code(), Some(2));
        assert!(
            stderr(&o).contains(
                "/dev/zero: not a regular file (a FIFO, a device or a folder is never read)"
            ),
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
        format!("error: {name}, line 1: longer than the limit of 67108864 bytes\n")
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A rulebook over a list of `items` numbers and a text of 100 KB, whose
/// group's step `z` is `step` and whose report's one column is `column`:
/// each can read the whole list or the text for every item, so that the
/// trace grows with the square of the case while the budget spends one
/// unit per read.
fn squared(items: usize, step: &str, column: &str) -> (bareme::Rulebook, serde_json::Value) {
    let (case, text) = squared_text(items, step, column);
    let rb = bareme::parse_rulebook("squared.toml", &text).expect("a valid rulebook");
    (rb, case)
}

/// The case and the text of [`squared`]'s rulebook.
fn squared_text(items: usize, step: &str, column: &str) -> (serde_json::Value, String) {
    let text = format!(
        r#"[rulebook]
id = "squared"
version = 1
schema = 1

[limits]
max_list_items = 100000

[inputs.xs]
type = "list"
required = true
items = {{ type = "decimal", numbers = "plain" }}

[inputs.t]
type = "text"
required = true
max_length = 100000

[steps.items]
expr = "xs"

[per_item.g]
over = "items"
item = "x"

[per_item.g.steps.z]
expr = "{step}"

[steps.total]
expr = "count(g.z)"

[reports.r]
each = "g"
columns = {{ "c" = {{ expr = "{column}" }} }}

[[checks]]
decision = "d"

[decisions.d.answer]
total = {{ expr = "total" }}
"#
    );
    let case = serde_json::json!({ "xs": vec![1; items], "t": "t".repeat(100_000) });
    (case, text)
}

/// A traced evaluation notes at most 2,000,000 records (events, reads,
/// lookups, roundings; a report cell one per 64 bytes): past it, it faults
/// naming the item where it stopped, where 20,000 cells of a 100 KB text
/// built 2 GB of cells; the same case untraced is answered.
#[test]
fn a_traced_evaluation_stops_past_its_records_and_the_case_is_answered_untraced() {
    let (rb, case) = squared(20_000, "x", "t");
    let untraced = bareme::evaluate_value(&rb, &case, false).expect("answered");
    match untraced.0 {
        bareme::Outcome::Answer(a) => assert_eq!(a.to_json()["total"], "20000"),
        other => panic!("{other:?}"),
    }
    let fault = bareme::evaluate_value(&rb, &case, true).expect_err("cut off");
    assert_eq!(
        fault.message,
        "the trace exceeded its limit of 2000000 records; the case can be evaluated untraced"
    );
    // Some 1,280 cells in (a cell of 100,000 bytes is 1,563 records).
    assert!(fault.context.contains("item 12"), "{fault}");
}

/// A trace's JSON takes at most 48 MiB (`MAX_TRACE_BYTES`) in either
/// format: a 100 KB text that each of 2,500 items' steps reads and gives
/// is 500 MB written in format 1 and 250 MB in format 2 (a 20,000-item list
/// read so was 2.6 GB, and the writer aborted on memory). The writers stop and write nothing; the command says so
/// and exits 4; a batch's line is an error at `$`.
#[test]
fn a_trace_past_its_bytes_is_not_written() {
    use bareme::unstable::trace::{write_trace_json, write_trace_json_compact, TraceTooLarge};
    let (rb, case) = squared(2_500, "t", "x");
    let (outcome, trace) = bareme::evaluate_value(&rb, &case, true).expect("evaluated");
    let trace = trace.expect("asked for");
    let mut out = b"kept".to_vec();
    assert_eq!(write_trace_json(&mut out, &trace), Err(TraceTooLarge));
    assert_eq!(
        write_trace_json_compact(&mut out, &trace),
        Err(TraceTooLarge)
    );
    let line = bareme::unstable::outcome::write_traced(&mut out, &outcome, &trace);
    assert_eq!(line, Err(TraceTooLarge));
    assert_eq!(out, b"kept");

    // A hundred items are 20 MB: written whole, one event per item's step.
    let (rb, case) = squared(100, "t", "x");
    let (_, trace) = bareme::evaluate_value(&rb, &case, true).expect("evaluated");
    let trace = trace.expect("asked for");
    let mut out = Vec::new();
    write_trace_json(&mut out, &trace).expect("within the bound");
    assert!(out.len() > 20_000_000, "{}", out.len());
    assert_eq!(trace.events.len(), 1 + 1 + 100 + 1);
}

#[test]
fn the_commands_refuse_a_trace_past_its_bytes() {
    let dir = tempdir("trace-bytes");
    let (rulebook, case) = (dir.join("rulebook.toml"), dir.join("case.json"));
    let (one, text) = squared_text(2_500, "t", "x");
    std::fs::write(&rulebook, text).expect("rulebook");
    std::fs::write(&case, format!("{one}\n{one}\n")).expect("case");
    let path = |p: &std::path::Path| p.to_str().expect("utf-8").to_string();
    for format in ["json", "json-compact"] {
        let o = bareme(&[
            "eval",
            &path(&rulebook),
            "--batch",
            &path(&case),
            "--trace",
            format,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect();
        assert_eq!(lines.len(), 2);
        for line in &lines {
            assert_eq!(line["error"]["path"], "$");
            let message = line["error"]["message"].as_str().expect("a message");
            assert!(
                message.starts_with("the trace's JSON is over 48 MiB"),
                "{message}"
            );
        }
        assert!(
            stderr(&o).contains("2 cases: 0 answered, 0 rejected, 2 faults"),
            "{}",
            stderr(&o)
        );
    }
    std::fs::write(&case, format!("{one}")).expect("case");
    for format in ["json", "json-compact"] {
        let o = bareme(&["eval", &path(&rulebook), &path(&case), "--trace", format]);
        assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
        assert!(o.stdout.is_empty());
        assert!(
            stderr(&o).contains("error: the trace's JSON is over 48 MiB"),
            "{}",
            stderr(&o)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A generator, rubric or repair file is read with its spans at about fifty
/// times its size: at the rulebook's 16 MiB one held 800 MB. They are
/// capped at 4 MiB, from a file or given as text.
#[test]
fn a_companion_file_over_4_mib_is_refused_read_or_given() {
    let dir = tempdir("companion");
    let generator =
        std::fs::read_to_string(super::root().join("rulebooks/sales-tax/generator-1.toml"))
            .expect("bundled generator");
    // Valid TOML, a comment long enough to pass the cap.
    let padded = format!("{generator}\n# {}\n", "x".repeat(4 * MIB as usize));
    let file = dir.join("generator-9.toml");
    std::fs::write(&file, &padded).expect("write");
    let rulebook = super::root().join("rulebooks/sales-tax/v1");
    let o = bareme(&[
        "generate",
        &file.to_string_lossy(),
        "--rulebook",
        &rulebook.to_string_lossy(),
        "-n",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the file is over 4194304 bytes"),
        "{}",
        stderr(&o)
    );
    // The same text given in memory, as the Python module gives it.
    let rb = super::rulebook("rulebooks/sales-tax/v1");
    let problems = match bareme::unstable::generate::parse_generator("g.toml", &padded, &rb) {
        Ok(_) => panic!("a text over the cap loads"),
        Err(d) => d.problems,
    };
    assert!(
        problems[0].message.contains(&format!(
            "the text is {} bytes, over the 4194304",
            padded.len()
        )),
        "{}",
        problems[0].message
    );
    // Under the cap, the same file loads (beside the rubric it names).
    std::fs::write(&file, &generator).expect("write");
    std::fs::copy(
        super::root().join("rulebooks/sales-tax/rubric-1.toml"),
        dir.join("rubric-1.toml"),
    )
    .expect("the rubric copied");
    let o = bareme(&[
        "generate",
        &file.to_string_lossy(),
        "--rulebook",
        &rulebook.to_string_lossy(),
        "-n",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(dir);
}

/// A rulebook file that is a FIFO is refused before it is opened: opening
/// it for reading waited for a writer, and `verify` of a candidate folder
/// holding one hung for good (hostile probe).
#[test]
fn a_rulebook_file_that_is_a_fifo_is_refused_not_waited_on() {
    let dir = tempdir("fifo").join("cand");
    std::fs::create_dir_all(&dir).expect("candidate folder");
    let fifo = dir.join("rulebook.toml");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let cand = dir.display().to_string();
    let runs = [
        bareme(&["check", &cand]),
        bareme(&[
            "verify",
            &cand,
            "--repair",
            "rulebooks/sales-tax/repair-1.toml",
        ]),
    ];
    for o in &runs {
        assert_eq!(o.status.code(), Some(2), "{}", stderr(o));
        assert!(
            stderr(o).contains("not a regular file (a FIFO, a device or a folder is never read)"),
            "{}",
            stderr(o)
        );
    }
    let _ = std::fs::remove_dir_all(dir.parent().expect("temp dir"));
}

/// A file named from inside another (a generator's rubric, a repair task's
/// generator) that is a FIFO is refused as a rulebook file is: `generate`
/// waited for a writer on the rubric beside the generator (hostile probe).
#[test]
fn a_companion_file_that_is_a_fifo_is_refused_not_waited_on() {
    let dir = tempdir("companion-fifo");
    let generator = dir.join("generator-4.toml");
    std::fs::copy("rulebooks/luma-payroll/generator-4.toml", &generator).expect("copied");
    let made = Command::new("mkfifo")
        .arg(dir.join("rubric-8.toml"))
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let o = bareme(&[
        "generate",
        &generator.to_string_lossy(),
        "--rulebook",
        "rulebooks/luma-payroll/v3",
        "-n",
        "1",
    ]);
    assert_ne!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "rubric-8.toml: not a regular file (a FIFO, a device or a folder is never read)"
        ),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(dir);
}
