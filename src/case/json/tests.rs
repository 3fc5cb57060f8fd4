//! Tests of the one-pass case reader: it reads as serde_json does, or
//! refuses as serde_json does, and refuses a key given twice by name.

use super::*;

/// Each text read both ways: the flat reading gives serde_json's value.
#[test]
fn reads_as_serde_json_does() {
    let texts = [
        r#"{"a": 1, "b": [true, false, null], "c": {"d": "e"}}"#,
        r#"  {"amount": "0.10", "n": -0, "x": 1.50, "e": 1E5, "f": -2.5e-3, "g": 1e+7}  "#,
        r#"{"s": "tab\there \"quoted\" \\ \/ \u00e9 \ud83d\ude00 é", "t": ""}"#,
        r#"[[], {}, [[1]], {"a": {}}]"#,
        "\"just a string\"",
        "123456789012345678901234567890.123456789",
        "\t\r\n null \n",
    ];
    for text in texts {
        let flat = CaseText::parse(text).unwrap_or_else(|| panic!("refused {text}"));
        let serde: serde_json::Value = serde_json::from_str(text).expect("valid JSON");
        assert_eq!(flat.root().to_value(), serde, "{text}");
        assert_eq!(flat.root().to_text(), serde.to_string(), "{text}");
    }
}

/// Numbers keep the text written, as serde_json's `arbitrary_precision` does.
#[test]
fn numbers_are_their_text() {
    let flat = CaseText::parse(r#"{"n": 1.500, "m": -0, "e": 2E3}"#).expect("JSON");
    let number = |key| flat.root().get(key).map(|n| n.kind());
    assert_eq!(number("n"), Some(JsonKind::Number("1.500")));
    assert_eq!(number("m"), Some(JsonKind::Number("-0")));
    assert_eq!(number("e"), Some(JsonKind::Number("2E3")));
    let serde: serde_json::Value = serde_json::from_str(r#"{"n": 1.500}"#).expect("JSON");
    assert_eq!(serde.get("n").map(|n| n.kind()), number("n"));
}

/// What serde_json refuses, and what it reads in its own way (equal keys,
/// of which it keeps the last), is refused; nesting is bounded where
/// serde_json bounds it.
#[test]
fn refuses_what_serde_json_refuses_and_equal_keys() {
    let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
    let refused = [
        "",
        "  ",
        "{",
        "[1,]",
        r#"{"a":1,}"#,
        "01",
        "1.",
        "-",
        "1e",
        ".5",
        "+1",
        "NaN",
        "tru",
        "nul",
        r#""unterminated"#,
        "\"control \u{1} char\"",
        r#""\x""#,
        r#""\ud800""#,
        r#""\udc00\ud800""#,
        r#""\u12""#,
        r#"{"a":1,"a":2}"#,
        r#"{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k3":3}"#,
        r#"{"a":1} x"#,
        "1 2",
        &deep,
    ];
    for text in refused {
        assert!(CaseText::parse(text).is_none(), "read {text:?}");
        if !text.contains("\"k3\":3}") && !text.contains("\"a\":2") {
            assert!(
                serde_json::from_str::<serde_json::Value>(text).is_err(),
                "{text:?}"
            );
        }
    }
    let shallow = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    assert!(CaseText::parse(&shallow).is_some());
    assert!(serde_json::from_str::<serde_json::Value>(&shallow).is_ok());
}

/// A refusal is a `CaseError`: a key given twice at the key's path (in an
/// envelope, the case's path), anything else at `$` in serde_json's words.
#[test]
fn refusals_name_the_key_or_quote_serde_json() {
    let refused = |text: &str| match CaseText::read(text) {
        Ok(_) => panic!("read {text:?}"),
        Err(e) => (e.path, e.message),
    };
    let twice =
        |key: &str| format!("duplicate key \"{key}\": an object of a case gives each key once");
    assert_eq!(
        refused(r#"{"gross_pay": "1", "gross_pay": "2"}"#),
        ("gross_pay".to_string(), twice("gross_pay"))
    );
    assert_eq!(
        refused(r#"{"cart": {"lines": [{"id": "A"}, {"id": "B", "qty": 1, "id": "C"}]}}"#),
        ("cart.lines[1].id".to_string(), twice("id"))
    );
    assert_eq!(
        refused(r#"{"case": {"a": 1, "b": {"c\n": 1, "c\u000a": 2}}}"#),
        ("b.c\n".to_string(), twice("c\\n"))
    );
    assert_eq!(
        refused(r#"{"case": {"a": 1}, "case": {"a": 2}}"#),
        ("case".to_string(), twice("case"))
    );
    for text in ["", "{\"a\": 1,}", "[1] x", "{\"a\": NaN}", "\"\\ud800\""] {
        let serde = serde_json::from_str::<serde_json::Value>(text).expect_err("not JSON");
        let (path, message) = refused(text);
        assert_eq!(path, "$");
        assert!(
            message.starts_with("the case is not valid JSON: "),
            "{message}"
        );
        if !text.contains("ud800") {
            assert_eq!(message, format!("the case is not valid JSON: {serde}"));
        } else {
            assert!(message.contains("lone surrogate"), "{message}");
        }
    }
}

/// Keys in the order written; the envelope taken off as `eval` does.
#[test]
fn entries_in_order_and_envelope() {
    let flat = CaseText::parse(r#"{"case": {"z": 1, "a": [2, 3]}}"#).expect("JSON");
    let case = flat.without_envelope();
    let keys: Vec<_> = case.root().entries().map(|(k, _)| k).collect();
    assert_eq!(keys, ["z", "a"]);
    let items: Vec<_> = case
        .root()
        .get("a")
        .into_iter()
        .flat_map(|a| a.items())
        .map(|i| i.kind())
        .collect();
    assert_eq!(items, [JsonKind::Number("2"), JsonKind::Number("3")]);
    // Two keys: no envelope.
    let two = CaseText::parse(r#"{"case": 1, "x": 2}"#).expect("JSON");
    assert_eq!(two.without_envelope().root().len(), 2);
}
