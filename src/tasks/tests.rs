//! Unit tests of the task and reply lines: the keys read, what is refused
//! and how it is named, a line written and read back.

use std::path::PathBuf;

use serde_json::json;

use super::*;

#[test]
fn a_task_line_names_its_rulebook_as_id_at_version() {
    let task = Task::from_json(
        r#"{"id": "t1", "rulebook": "sales-tax@1", "rulebook_hash": "ab", "case": {}, "expected": {"x": 1}, "prompt": "…"}"#,
    )
    .expect("a task");
    assert_eq!((task.rulebook_id.as_str(), task.version), ("sales-tax", 1));
    assert_eq!(task.rulebook_dir(), PathBuf::from("rulebooks/sales-tax/v1"));
    for (line, error) in [
        ("[]", "a task must be a JSON object"),
        (r#"{"id": 1}"#, "the task's `id` must be a string"),
        (r#"{"id": "t"}"#, "the task has no `rulebook`"),
        (
            r#"{"id": "t", "rulebook": "../x@1", "rulebook_hash": ""}"#,
            "task t: `rulebook` must be ID@VERSION, as `sales-tax@1`, found \"../x@1\"",
        ),
        (
            r#"{"id": "t", "rulebook": "x@0", "rulebook_hash": ""}"#,
            "task t: `rulebook` must be ID@VERSION, as `sales-tax@1`, found \"x@0\"",
        ),
        // The version as written, as the rulebook writes it.
        (
            r#"{"id": "t", "rulebook": "x@+1", "rulebook_hash": ""}"#,
            "task t: `rulebook` must be ID@VERSION, as `sales-tax@1`, found \"x@+1\"",
        ),
        (
            r#"{"id": "t", "rulebook": "x@01", "rulebook_hash": ""}"#,
            "task t: `rulebook` must be ID@VERSION, as `sales-tax@1`, found \"x@01\"",
        ),
        (
            r#"{"id": "t", "rulebook": "x@1", "rulebook_hash": "", "case": {}}"#,
            "task t has no `expected`",
        ),
    ] {
        assert_eq!(Task::from_json(line).expect_err(line).to_string(), error);
    }
}

#[test]
fn a_task_line_options_are_an_object_of_booleans_in_order() {
    let task = Task::from_json(&line(r#", "options": {"b": false, "a": true}"#)).expect("a task");
    assert_eq!(
        task.options,
        Some(vec![("b".to_string(), false), ("a".to_string(), true)])
    );
    for bad in [r#", "options": {"a": "yes"}"#, r#", "options": ["a"]"#] {
        assert_eq!(
            Task::from_json(&line(bad)).expect_err(bad).to_string(),
            "task t: `options` must be an object of booleans"
        );
    }
    let twice = line(r#", "options": {"a": true, "a": false}"#);
    assert_eq!(
        Task::from_json(&twice).expect_err("a twice").to_string(),
        "the task holds the key `a` twice, in the object at $.options"
    );
}

/// A task line of the five keys every line holds, with `extra` keys after.
fn line(extra: &str) -> String {
    format!(
        r#"{{"id": "t", "rulebook": "x@1", "rulebook_hash": "h", "case": {{"a": 1}}, "expected": {{"b": "2.50"}}{extra}}}"#
    )
}

#[test]
fn a_key_twice_is_refused_at_any_depth_and_named_with_where_it_is() {
    let at_top = r#"{"id": "a", "id": "b", "rulebook": "x@1"}"#;
    assert_eq!(
        Task::from_json(at_top).expect_err("id twice").to_string(),
        "the task holds the key `id` twice, in the object at $"
    );
    let deep = line("").replace(r#"{"a": 1}"#, r#"{"lines": [{"q": 1}, {"q": 2, "q": 3}]}"#);
    let err = Task::from_json(&deep).expect_err("q twice");
    assert!(
        matches!(&err, TaskError::Json(JsonFault::DuplicateKey { key, at }) if key == "q" && at == "$.case.lines[1]"),
        "{err}"
    );
    let reply = r#"{"id": "t", "reply": "{}", "reply": "{\"x\": 1}"}"#;
    assert_eq!(
        ReplyLine::from_json(reply)
            .expect_err("reply twice")
            .to_string(),
        "the line holds the key `reply` twice, in the object at $"
    );
    // Equal keys in two objects are no repeat.
    assert!(Task::from_json(&line(r#", "tags": ["a"]"#).replace(r#""b""#, r#""a""#)).is_ok());
}

#[test]
fn a_byte_order_mark_is_named() {
    let bom = format!("\u{feff}{}", line(""));
    assert_eq!(
        Task::from_json(&bom).expect_err("bom").to_string(),
        "the task starts with a byte order mark (U+FEFF), which JSON text may not: save the file as UTF-8 without one"
    );
    let reply = "\u{feff}{\"id\": \"t\", \"reply\": \"{}\"}";
    assert!(matches!(
        ReplyLine::from_json(reply),
        Err(ReplyError::Json(JsonFault::Bom))
    ));
}

#[test]
fn unknown_keys_and_wrong_types_are_refused() {
    let err = Task::from_json(&line(r#", "promt": "…""#)).expect_err("typo");
    assert!(
        err.to_string()
            .starts_with("task t: unknown key `promt` (a task line holds `id`, `index`,"),
        "{err}"
    );
    for (extra, key, what) in [
        (r#", "level": "1""#, "level", "a whole number"),
        (r#", "index": -1"#, "index", "a whole number from 0"),
        (r#", "tier": null"#, "tier", "a string"),
        (r#", "tags": ["a", 1]"#, "tags", "a list of strings"),
    ] {
        let err = Task::from_json(&line(extra)).expect_err(extra);
        assert_eq!(err.to_string(), format!("task t: `{key}` must be {what}"));
    }
    let reply = |text: &str| ReplyLine::from_json(text).map_err(|e| e.to_string());
    assert_eq!(
        reply(r#"{"id": "t", "reply": "{}", "model": "m"}"#),
        Err("reply t: unknown key `model` (a reply line holds `id`, `reply`, `explanation_grade` and `strategy`)".into())
    );
    assert_eq!(
        reply(r#"{"id": "t", "strategy": 3}"#),
        Err("reply t: `strategy` must be a string".into())
    );
    assert_eq!(
        reply(r#"{"reply": "{}"}"#),
        Err("the line has no string `id`".into())
    );
    // A reply that is no text is the model's failure, graded, not the file's.
    assert_eq!(
        ReplyLine::from_json(r#"{"id": "t", "reply": null, "explanation_grade": 0.5}"#)
            .map(|r| (r.reply, r.grade.map(|g| g.to_string())))
            .map_err(|e| e.to_string()),
        Ok((ReplyText::NotText, Some("0.5".into())))
    );
}

#[test]
fn a_task_is_written_in_key_order_and_read_back_equal() {
    let task = Task {
        id: "t-1".into(),
        index: Some(1),
        level: Some(2),
        tier: Some("trap".into()),
        branch: Some("gross_missing".into()),
        rulebook_id: "luma-payroll".into(),
        version: 3,
        hash: "ab".into(),
        generator: Some("luma-payroll/generator-4".into()),
        generator_hash: Some("cd".into()),
        options: Some(vec![
            ("demonstrations".into(), true),
            ("brief".into(), false),
        ]),
        rubric: Some(8),
        case: json!({"gross_pay": "1205.10", "n": 2}),
        prompt: Some("Compute \"it\".".into()),
        expected: json!({"error": {"path": "gross_pay", "message": "m"}}),
        tags: Some(vec!["decision:rejected".into()]),
    };
    let text = serde_json::to_string(&task).expect("a line");
    assert_eq!(
        text,
        r#"{"id":"t-1","index":1,"level":2,"tier":"trap","branch":"gross_missing","rulebook":"luma-payroll@3","rulebook_hash":"ab","generator":"luma-payroll/generator-4","generator_hash":"cd","options":{"demonstrations":true,"brief":false},"rubric":8,"case":{"gross_pay":"1205.10","n":2},"prompt":"Compute \"it\".","expected":{"error":{"path":"gross_pay","message":"m"}},"tags":["decision:rejected"]}"#
    );
    assert_eq!(Task::from_json(&text).expect("read back"), task);
    // A task made by hand leaves out what it does not have; its numbers
    // are kept as written.
    let hand = Task::from_json(&line("").replace(r#"{"a": 1}"#, r#"{"a": 1.50}"#)).expect("a task");
    assert_eq!(
        serde_json::to_string(&hand).expect("a line"),
        r#"{"id":"t","rulebook":"x@1","rulebook_hash":"h","case":{"a":1.50},"expected":{"b":"2.50"}}"#
    );
}

#[test]
fn a_file_of_lines_names_each_fault_with_its_line() {
    let text = format!("{}\n\n  \n{{\"id\": \"u\"\n", line(""));
    let mut file = LineFile::new(text.as_bytes());
    let read: Vec<String> = file
        .tasks()
        .map(|r| match r {
            Ok((n, t)) => format!("{n}: {}", t.id),
            Err(e) => e.to_string(),
        })
        .collect();
    assert_eq!(read.len(), 2, "{read:?}");
    assert_eq!(read[0], "1: t");
    assert!(
        read[1].starts_with("line 4: the task is not JSON: "),
        "{}",
        read[1]
    );
    let mut bad = LineFile::new(&b"{\"id\": \"\xff\"}\n"[..]);
    assert_eq!(
        bad.replies()
            .next()
            .map(|r| r.map(|_| ()).map_err(|e| e.to_string())),
        Some(Err(
            "line 1: the line is not UTF-8 text: invalid byte at offset 8".into()
        ))
    );
}

/// A line with no end stops a task or reply file at the cap: the reader
/// does not go on skipping it (`cat /dev/zero | bareme score … --tasks -`
/// read forever). A batch, which answers the line and goes on, still
/// skips to the next line.
#[test]
fn a_line_without_end_stops_the_file_at_the_cap() {
    let endless = std::io::BufReader::new(std::io::Read::take(std::io::repeat(b'x'), u64::MAX));
    let mut file = LineFile::new(endless);
    match file.next_line() {
        Err(LineError::Line {
            line: 1,
            fault: LineFault::TooLong { limit },
        }) => assert_eq!(limit, MAX_TASK_BYTES),
        other => panic!("{:?}", other.map(|l| l.map(|(n, _)| n))),
    }
    let text = format!("{}\n{{}}\n", "x".repeat(30));
    let mut reader = text.as_bytes();
    let mut buf = Vec::new();
    assert!(matches!(
        next_line(&mut reader, 20, &mut buf),
        Ok(Some(Line::TooLong))
    ));
    assert!(matches!(
        next_line(&mut reader, 20, &mut buf),
        Ok(Some(Line::Fits(b"{}")))
    ));
}

/// The limit is a line's, whatever its end: a CRLF line of exactly the
/// limit fits (its `\r` made it one byte over), and one byte more does
/// not, at the end of the input too.
#[test]
fn a_line_s_limit_leaves_out_its_end() {
    let read = |text: &str| {
        let mut reader = text.as_bytes();
        let mut buf = Vec::new();
        let mut out = Vec::new();
        while let Some(line) = next_line(&mut reader, 4, &mut buf).expect("in memory") {
            out.push(match line {
                Line::Fits(l) => String::from_utf8_lossy(l).into_owned(),
                Line::TooLong => "too long".into(),
            });
        }
        out
    };
    assert_eq!(read("abcd\r\nabcd\nabcd\r\n"), ["abcd", "abcd", "abcd"]);
    assert_eq!(read("abcd\r"), ["abcd"]);
    assert_eq!(read("abcd"), ["abcd"]);
    assert_eq!(read("abcde\r\nab\n"), ["too long", "ab"]);
    assert_eq!(read("abcde\nab"), ["too long", "ab"]);
    assert_eq!(read("abcd\rx\nab"), ["too long", "ab"]);
    assert_eq!(read("abcde"), ["too long"]);
}

/// A reply holding half a surrogate pair, as Python's `json.dumps` writes
/// one, is JSON by grammar but no text: the reply is graded at the floor
/// (`ReplyText::LoneSurrogate`) and the run goes on. Anywhere else in the
/// line it is the file's fault.
#[test]
fn half_a_surrogate_pair_in_a_reply_is_the_reply_s_fault() {
    let read = |text: &str| {
        ReplyLine::from_json(text)
            .map(|r| r.reply)
            .map_err(|e| e.to_string())
    };
    assert_eq!(
        read(r#"{"id": "t", "reply": "{\"cart_id\": \"C\ud800\"}"}"#),
        Ok(ReplyText::LoneSurrogate)
    );
    assert_eq!(
        read(r#"{"id": "t", "reply": "\udfff and \ud83d"}"#),
        Ok(ReplyText::LoneSurrogate)
    );
    // A whole pair, an escaped backslash before a `u`, a real U+FFFD: text.
    assert_eq!(
        read(r#"{"id": "t", "reply": "\ud83d\ude00"}"#),
        Ok(ReplyText::Text("\u{1f600}".into()))
    );
    assert_eq!(
        read(r#"{"id": "t", "reply": "\\ud800"}"#),
        Ok(ReplyText::Text("\\ud800".into()))
    );
    assert_eq!(
        read(r#"{"id": "t", "reply": "\ufffd"}"#),
        Ok(ReplyText::Text("\u{fffd}".into()))
    );
    for elsewhere in [
        r#"{"id": "t\ud800", "reply": "x"}"#,
        r#"{"id": "t", "reply": "x", "strategy": "\ud800"}"#,
        r#"{"id": "t", "reply": "\ud800", "strategy": "\ud800"}"#,
        r#"{"id": "t", "reply": "\ud800", "x\udc00": 1}"#,
    ] {
        let err = read(elsewhere).expect_err(elsewhere);
        assert!(
            err.starts_with("the line is not JSON: "),
            "{elsewhere}: {err}"
        );
    }
    // A real U+FFFD elsewhere in the line is no half.
    assert_eq!(
        read(r#"{"id": "t\ufffd", "reply": "\ud800", "strategy": "\ufffd"}"#),
        Ok(ReplyText::LoneSurrogate)
    );
    let marked = |text: &str| super::json::lone_halves_marked(text);
    let m = marked(r#""a\ud800b\udc00""#).expect("two halves");
    assert_eq!(
        (m.text.as_str(), m.marker, m.count),
        (r#""a\ufdd0b\ufdd0""#, '\u{fdd0}', 2)
    );
    // The marker is one the text holds nowhere, as itself or escaped.
    let m = marked("\"\u{fdd0}\\uFDD1\\ud800\"").expect("a half");
    assert_eq!(m.marker, '\u{fdd2}');
    assert_eq!(marked(r#""a\u0041b\ud83d\ude00""#), None);
}
