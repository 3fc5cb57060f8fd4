//! The one reader and the one writer: what each reads or writes, each
//! refusal with its place.

use std::borrow::Cow;

use rust_decimal::Decimal;

use super::*;

fn nodes(text: &str, max_depth: usize) -> Result<Vec<Node<'_>>, Box<Error>> {
    let mut nodes = Vec::new();
    read(text, max_depth, &mut nodes).map(|()| nodes)
}

fn refusal(text: &str, max_depth: usize) -> Error {
    match nodes(text, max_depth) {
        Ok(read) => panic!("read {text:?} as {read:?}"),
        Err(e) => *e,
    }
}

/// A short picture of what was read: each node's item and end.
fn picture(nodes: &[Node<'_>]) -> String {
    nodes
        .iter()
        .map(|n| match &n.item {
            Item::Null => format!("null/{}", n.end),
            Item::Bool(b) => format!("{b}/{}", n.end),
            Item::Number(t) => format!("#{t}/{}", n.end),
            Item::String(Cow::Borrowed(s)) => format!("'{s}'/{}", n.end),
            Item::String(Cow::Owned(s)) => format!("'{s}'!/{}", n.end),
            Item::Array(k) => format!("[{k}]/{}", n.end),
            Item::Object(k) => format!("{{{k}}}/{}", n.end),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Containers first, then their parts; numbers as written; a string copied
/// only when it holds an escape (`!`).
#[test]
fn reads_into_flat_nodes() {
    let read = nodes(
        r#" {"a": [1.50, -0, 2E3, true, null], "b\n": {"c": "x\u00e9y"}, "d": "plain"} "#,
        8,
    )
    .expect("JSON");
    assert_eq!(
        picture(&read),
        "{3}/14 'a'/2 [5]/8 #1.50/4 #-0/5 #2E3/6 true/7 null/8 'b\n'!/9 {1}/12 'c'/11 'xéy'!/12 'd'/13 'plain'/14"
    );
}

/// The refusals, each with the byte it is found at.
#[test]
fn refusals_are_named_where_found() {
    let syntax = |text: &str| {
        let e = refusal(text, 8);
        match e.kind {
            ErrorKind::Syntax(what) => (what, e.at),
            other => panic!("{text:?}: {other:?}"),
        }
    };
    assert_eq!(syntax("[1,]"), ("expected a value", 3));
    assert_eq!(syntax("{\"a\":1,}"), ("expected a key in double quotes", 7));
    assert_eq!(syntax("{\"a\" 1}"), ("expected `:` after a key", 5));
    assert_eq!(syntax("[1 2]"), ("expected `,` or `]`", 3));
    assert_eq!(syntax("01"), ("a number may not start with 0", 1));
    assert_eq!(syntax("1."), ("expected digits after `.`", 2));
    assert_eq!(syntax("1e+"), ("expected digits in the exponent", 3));
    assert_eq!(syntax("-x"), ("expected digits", 1));
    assert_eq!(
        syntax("\"a\u{1}\""),
        ("a control character inside a string", 2)
    );
    assert_eq!(syntax("\"\\x\""), ("unknown escape in a string", 3));
    assert_eq!(
        syntax("\"\\u12\""),
        ("a \\u escape needs four hex digits", 3)
    );
    assert_eq!(syntax("\"abc"), ("the text ends inside a string", 4));
    assert_eq!(syntax("[1,"), ("the text ends where a value should be", 3));
    assert_eq!(syntax("nul"), ("expected a value", 0));
    assert_eq!(syntax("{} x"), ("text after the JSON value", 3));
    assert_eq!(refusal(" \n", 8).kind, ErrorKind::Empty);
    assert_eq!(refusal("\"\\ud800x\"", 8).kind, ErrorKind::LoneSurrogate);
    assert_eq!(refusal("\"\\udc00\"", 8).kind, ErrorKind::LoneSurrogate);
    assert_eq!(refusal("\"\\ud800\\u0041\"", 8).at, 13);
}

/// A constant and a duplicate key are placed by path: the value's for a
/// constant, the object's for a key given twice, found at any depth and
/// past the few keys compared pairwise.
#[test]
fn constants_and_duplicates_have_a_path() {
    let e = refusal(r#"{"x": [0, {"y": -Infinity}]}"#, 8);
    assert_eq!(e.kind, ErrorKind::Constant("-Infinity"));
    assert_eq!(e.dollar_path(), "$.x[1].y");
    let e = refusal(r#"[{"a": 1, "b": {"c": 1, "c": 2}}]"#, 8);
    assert_eq!(e.kind, ErrorKind::DuplicateKey("c".into()));
    assert_eq!(e.dollar_path(), "$[0].b");
    let many: String = (0..30).map(|i| format!("\"k{i}\": {i}, ")).collect();
    for key in ["k0", "k11", "k12", "k29"] {
        let e = refusal(&format!("{{{many}\"{key}\": 0}}"), 8);
        assert_eq!(e.kind, ErrorKind::DuplicateKey(key.into()), "{key}");
        assert_eq!(e.dollar_path(), "$");
    }
    assert!(nodes(&format!("{{{many}\"k30\": 0}}"), 8).is_ok());
    // The same key in two objects is no duplicate; an escaped key equals
    // the same key written plainly.
    assert!(nodes(r#"{"a": {"a": 1}, "b": {"a": 2}}"#, 8).is_ok());
    let e = refusal(r#"{"a": 1, "\u0061": 2}"#, 8);
    assert_eq!(e.kind, ErrorKind::DuplicateKey("a".into()));
}

/// Past the keys compared pairwise an object's keys go to a set with the
/// ones before them, so a duplicate is found whichever side of that edge
/// each copy falls, at any depth, and an inner object's keys never count
/// for its parent.
#[test]
fn duplicates_are_found_past_the_pairwise_keys() {
    let many = |n: usize| -> String { (0..n).map(|i| format!("\"k{i}\": {i}, ")).collect() };
    for key in ["k0", "k23", "k24", "k25", "k50", "k79"] {
        let e = refusal(&format!("{{{}\"{key}\": 0}}", many(80)), 8);
        assert_eq!(e.kind, ErrorKind::DuplicateKey(key.into()), "{key}");
        assert_eq!(e.dollar_path(), "$");
    }
    assert!(nodes(&format!("{{{}\"k80\": 0}}", many(80)), 8).is_ok());
    // An inner object of 51 keys in a parent of 21: each its own keys.
    let inner = |extra: &str| format!("{{{}{extra}\"k_last\": 0}}", many(50));
    let text = |extra: &str, after: &str| {
        format!(
            "{{{}\"in\": {}, {after}\"end\": 0}}",
            many(20),
            inner(extra)
        )
    };
    assert!(nodes(&text("", "\"k20\": 1, \"k40\": 2, "), 8).is_ok());
    let e = refusal(&text("\"k3\": 0, ", ""), 8);
    assert_eq!(e.kind, ErrorKind::DuplicateKey("k3".into()));
    assert_eq!(e.dollar_path(), "$.in");
    let e = refusal(&text("", "\"k19\": 1, "), 8);
    assert_eq!(e.kind, ErrorKind::DuplicateKey("k19".into()));
    assert_eq!(e.dollar_path(), "$");
    let e = refusal(&text("", "\"in\": 1, "), 8);
    assert_eq!(e.kind, ErrorKind::DuplicateKey("in".into()));
    // Forty levels of three keys: the deepest sees its own duplicates and
    // none of its parents' keys.
    let deep = |last: &str| {
        let open: String = (0..40).map(|_| "{\"a\": 1, \"b\": 2, \"c\": ").collect();
        format!("{open}{{\"a\": 1, {last}}}{}", "}".repeat(40))
    };
    assert!(nodes(&deep("\"b\": 2"), 64).is_ok());
    let e = refusal(&deep("\"a\": 2"), 64);
    assert_eq!(e.kind, ErrorKind::DuplicateKey("a".into()));
    assert_eq!(e.dollar_path(), format!("${}", ".c".repeat(40)));
    // Keys alike in length and edge bytes (one fingerprint) are told apart.
    assert!(nodes(r#"{"employer_share": 1, "employee_share": 2}"#, 8).is_ok());
    let e = refusal(
        r#"{"employer_share": 1, "employee_share": 2, "employer_share": 3}"#,
        8,
    );
    assert_eq!(e.kind, ErrorKind::DuplicateKey("employer_share".into()));
}

/// Nesting is bounded by the caller: `max_depth` levels read, one more refused.
#[test]
fn depth_is_the_callers() {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert!(nodes(&deep(5), 5).is_ok());
    let e = refusal(&deep(6), 5);
    assert_eq!((e.kind, e.at), (ErrorKind::TooDeep, 5));
    assert!(nodes(&deep(127), 127).is_ok());
}

/// Strings written as serde_json writes them, short and long, every escape.
#[test]
fn strings_are_escaped_as_serde_json_does() {
    let texts = [
        "",
        "plain",
        "a\"b",
        "quite a long text with nothing to escape at all",
        "C\"9\\\u{0}\u{8}\t\n\u{c}\r\u{1f}\u{7f}é\u{2028}😀",
        "long text, its escape late in a word: ......................\n",
    ];
    for text in texts {
        let mut out = Vec::new();
        write_string(&mut out, text);
        let serde = serde_json::to_string(text).expect("a string serialises");
        assert_eq!(String::from_utf8_lossy(&out), serde, "{text:?}");
    }
}

/// Decimals as `Display` writes them, scale kept; lists and integers.
#[test]
fn decimals_integers_and_lists() {
    let mut out = Vec::new();
    let amounts = [
        "0",
        "-0.05",
        "1082.220",
        "79228162514264337593543950335",
        "0.0000001",
    ];
    let decimals: Vec<Decimal> = amounts
        .iter()
        .map(|a| a.parse().expect("a decimal"))
        .collect();
    write_list(&mut out, &decimals, write_quoted_decimal);
    out.push(b' ');
    for n in [0, 9, 10, 99, 100, u64::MAX] {
        write_integer(&mut out, n);
        out.push(b' ');
    }
    write_bool(&mut out, false);
    assert_eq!(
        String::from_utf8_lossy(&out),
        r#"["0","-0.05","1082.220","79228162514264337593543950335","0.0000001"] 0 9 10 99 100 18446744073709551615 false"#
    );
}

proptest::proptest! {
    /// Any text, and texts dense in the bytes escaped and their neighbours
    /// (a word's every offset, a text shorter than a word), escaped as
    /// serde_json escapes them.
    #[test]
    fn any_string_is_escaped_as_serde_json_does(
        any in "(?s:.){0,40}",
        dense in "[a \"\\\\\\x00-\\x1f\\x7f!é😀]{0,40}",
    ) {
        for text in [any, dense] {
            let mut out = Vec::new();
            write_string(&mut out, &text);
            let serde = serde_json::to_string(&text).expect("a string serialises");
            proptest::prop_assert_eq!(String::from_utf8_lossy(&out), serde);
        }
    }

    /// A quoted decimal is `Display`'s text in quotes, for every mantissa,
    /// scale and sign.
    #[test]
    fn quoted_decimals_are_display_in_quotes(
        m in -(1i128 << 96) + 1..(1i128 << 96),
        scale in 0u32..=28,
    ) {
        let d = Decimal::from_i128_with_scale(m, scale);
        let mut out = Vec::new();
        write_quoted_decimal(&mut out, &d);
        proptest::prop_assert_eq!(String::from_utf8_lossy(&out), format!("\"{d}\""));
    }
}
