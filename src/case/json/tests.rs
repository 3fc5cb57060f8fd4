//! Tests of the one-pass case reader: it reads as serde_json does, or refuses.

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
        let flat = CaseJson::parse(text).unwrap_or_else(|| panic!("refused {text}"));
        let serde: serde_json::Value = serde_json::from_str(text).expect("valid JSON");
        assert_eq!(flat.root().to_value(), serde, "{text}");
        assert_eq!(flat.root().to_text(), serde.to_string(), "{text}");
    }
}

/// Numbers keep the text written, as serde_json's `arbitrary_precision` does.
#[test]
fn numbers_are_their_text() {
    let flat = CaseJson::parse(r#"{"n": 1.500, "m": -0, "e": 2E3}"#).expect("JSON");
    let number = |key| flat.root().get(key).map(|n| n.kind());
    assert_eq!(number("n"), Some(JsonKind::Number("1.500")));
    assert_eq!(number("m"), Some(JsonKind::Number("-0")));
    assert_eq!(number("e"), Some(JsonKind::Number("2E3")));
    let serde: serde_json::Value = serde_json::from_str(r#"{"n": 1.500}"#).expect("JSON");
    assert_eq!(serde.get("n").map(|n| n.kind()), number("n"));
}

/// What it is not sure of is left to serde_json: errors, and the texts
/// serde_json reads in its own way (equal keys, deep nesting).
#[test]
fn refuses_what_serde_json_decides() {
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
        assert!(CaseJson::parse(text).is_none(), "read {text:?}");
    }
    let shallow = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    assert!(CaseJson::parse(&shallow).is_some());
}

/// Keys in the order written; the envelope taken off as `eval` does.
#[test]
fn entries_in_order_and_envelope() {
    let flat = CaseJson::parse(r#"{"case": {"z": 1, "a": [2, 3]}}"#).expect("JSON");
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
    let two = CaseJson::parse(r#"{"case": 1, "x": 2}"#).expect("JSON");
    assert_eq!(two.without_envelope().root().len(), 2);
}
