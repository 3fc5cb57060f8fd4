//! The reply envelope and the strict JSON parser: each refusal by its code.

use super::*;

fn bare() -> Envelope {
    Envelope {
        max_chars: Some(16_000),
        ..Envelope::default()
    }
}

fn bulletin() -> Envelope {
    Envelope {
        max_chars: None,
        tag: Some(Tag {
            name: "bulletin".into(),
            case_insensitive: true,
            closing: Closing::ExactlyOne,
        }),
        fences: true,
    }
}

fn droits() -> Envelope {
    Envelope {
        max_chars: Some(200_000),
        tag: Some(Tag {
            name: "droits".into(),
            case_insensitive: false,
            closing: Closing::FirstAfter,
        }),
        fences: false,
    }
}

/// The code of the refusal, or `ok`.
fn code(text: &str, envelope: &Envelope) -> &'static str {
    match read_reply(text, envelope) {
        Ok(_) => "ok",
        Err(m) => m.code,
    }
}

#[test]
fn bare_json_allows_json_whitespace_only() {
    let e = bare();
    assert_eq!(code(" \t\r\n{\"a\": 1}\n ", &e), "ok");
    assert_eq!(code("```json\n{\"a\": 1}\n```", &e), "reply::fence");
    assert_eq!(code("Here it is: {\"a\": 1}", &e), "reply::invalid_json");
    assert_eq!(code("{\"a\": 1} {\"a\": 1}", &e), "reply::invalid_json");
    assert_eq!(code("\u{feff}{\"a\": 1}", &e), "reply::bom");
    assert_eq!(code("\u{a0}{\"a\": 1}", &e), "reply::invalid_json");
    assert_eq!(code("", &e), "reply::empty");
}

#[test]
fn the_size_limit_counts_code_points() {
    let e = Envelope {
        max_chars: Some(12),
        ..Envelope::default()
    };
    assert_eq!(code("{\"é\": \"ééé\"}", &e), "ok");
    assert_eq!(code("{\"é\": \"éééé\"}", &e), "reply::too_long");
}

#[test]
fn strict_json_refusals_are_named() {
    let e = bare();
    assert_eq!(code(r#"{"a": 1, "a": 2}"#, &e), "reply::duplicate_key");
    assert_eq!(
        code(r#"{"x": [{"b": {"c": 1, "c": 1}}]}"#, &e),
        "reply::duplicate_key"
    );
    assert_eq!(code(r#"{"a": NaN}"#, &e), "reply::non_standard_constant");
    assert_eq!(
        code(r#"{"a": -Infinity}"#, &e),
        "reply::non_standard_constant"
    );
    assert_eq!(
        code(r#"{"a": Infinity}"#, &e),
        "reply::non_standard_constant"
    );
    assert_eq!(code(r#"{"a": "\ud800"}"#, &e), "reply::lone_surrogate");
    assert_eq!(
        code(r#"{"a": "\udc00\ud800"}"#, &e),
        "reply::lone_surrogate"
    );
    assert_eq!(code(r#"{"a": "😀\ud83d\ude00"}"#, &e), "ok");
    assert_eq!(code("{\"a\": \"tab\there\"}", &e), "reply::invalid_json");
    assert_eq!(code(r#"{"a": 01}"#, &e), "reply::invalid_json");
    assert_eq!(code(r#"{"a": 1.}"#, &e), "reply::invalid_json");
    assert_eq!(code(r#"{"a": .5}"#, &e), "reply::invalid_json");
    assert_eq!(code(r#"{"a": +5}"#, &e), "reply::invalid_json");
    assert_eq!(code(r#"{"a": 1,}"#, &e), "reply::invalid_json");
    assert_eq!(code(r#"{'a': 1}"#, &e), "reply::invalid_json");
    let deep = format!("{}{}", "[".repeat(40), "]".repeat(40));
    assert_eq!(code(&deep, &e), "reply::too_deep");
}

#[test]
fn duplicate_keys_name_their_place() {
    let err = read_reply(r#"{"b": {"B1": {"droits": 1, "droits": 2}}}"#, &bare()).unwrap_err();
    assert_eq!(
        err.message,
        "the key \"droits\" appears twice in the object at $.b.B1"
    );
}

#[test]
fn numbers_are_kept_as_written() {
    let v = read_reply(r#"{"a": -12.50e+3, "b": 1e999999999}"#, &bare()).unwrap();
    assert_eq!(v.get("a"), Some(&Json::Number("-12.50e+3".into())));
    assert_eq!(v.get("b"), Some(&Json::Number("1e999999999".into())));
}

#[test]
fn bulletin_tags() {
    let e = bulletin();
    let obj = r#"{"brut": "1.00"}"#;
    assert_eq!(
        code(&format!("Voici :\n<bulletin>{obj}</bulletin>\nFin."), &e),
        "ok"
    );
    assert_eq!(
        code(&format!("<BULLETIN>\n```json\n{obj}\n```\n</Bulletin>"), &e),
        "ok"
    );
    assert_eq!(
        code(&format!("<bulletin>```JSON\n{obj}\n```</bulletin>"), &e),
        "ok"
    );
    assert_eq!(
        code(&format!("<bulletin>```\n{obj}```</bulletin>"), &e),
        "ok"
    );
    assert_eq!(
        code(&format!("<bulletin>```python\n{obj}\n```</bulletin>"), &e),
        "reply::fence"
    );
    // A fence closed with text after it was said to be unclosed.
    let message = |text: &str| match read_reply(text, &e) {
        Ok(_) => "ok".to_string(),
        Err(m) => format!("{}: {}", m.code, m.message),
    };
    assert_eq!(
        message(&format!("<bulletin>```json\n{obj}\n```\nhello</bulletin>")),
        "reply::fence: text follows the code fence: the fence must hold the whole reply"
    );
    assert_eq!(
        message(&format!("<bulletin>```json\n{obj}\n</bulletin>")),
        "reply::fence: a code fence is opened and not closed"
    );
    assert_eq!(code(obj, &e), "reply::no_tag");
    assert_eq!(
        code(
            &format!("<bulletin>{obj}</bulletin><bulletin>{obj}</bulletin>"),
            &e
        ),
        "reply::several_tags"
    );
    assert_eq!(code(&format!("<bulletin>{obj}"), &e), "reply::unclosed_tag");
    assert_eq!(
        code(&format!("</bulletin>{obj}<bulletin>"), &e),
        "reply::tag_order"
    );
    assert_eq!(
        code(&format!("<bulletin>Voici {obj}</bulletin>"), &e),
        "reply::invalid_json"
    );
    assert_eq!(
        code(&format!("<bulletin class=x>{obj}</bulletin>"), &e),
        "reply::no_tag"
    );
}

#[test]
fn droits_blocks_end_at_the_first_closing_tag() {
    let e = droits();
    let obj = r#"{"total_droits": 0}"#;
    assert_eq!(
        code(
            &format!("</droits> calcul…\n<droits>\n{obj}\n</droits> </droits>"),
            &e
        ),
        "ok"
    );
    assert_eq!(
        code(&format!("<DROITS>{obj}</DROITS>"), &e),
        "reply::no_tag"
    );
    assert_eq!(
        code(&format!("<droits>{obj}</droits><droits>"), &e),
        "reply::several_tags"
    );
    assert_eq!(code(&format!("<droits>{obj}"), &e), "reply::unclosed_tag");
    assert_eq!(
        code(&format!("<droits>```json\n{obj}\n```</droits>"), &e),
        "reply::fence"
    );
}

#[test]
fn a_long_hostile_reply_is_refused_without_panic() {
    let e = bare();
    let many = "{\"a\":".repeat(50_000);
    assert_eq!(code(&many, &e), "reply::too_long");
    let e = Envelope::default();
    assert_eq!(code(&many, &e), "reply::too_deep");
    let digits = format!("{{\"a\": 1{}}}", "0".repeat(200_000));
    assert_eq!(code(&digits, &e), "ok");
}

/// Whatever the rubric, a reply past `MAX_REPLY_BYTES` is not read: a list
/// of millions of zeros took some forty times its size to read, on every
/// worker at once, and aborted `score` (hostile probe).
#[test]
fn a_reply_past_the_bound_is_too_long_under_any_rubric() {
    let zeros = format!("[{}0]", "0,".repeat(MAX_REPLY_BYTES / 2));
    let unbounded = Envelope::default();
    assert_eq!(code(&zeros, &unbounded), "reply::too_long");
    let just = format!("[{}0]", "0,".repeat((MAX_REPLY_BYTES - 3) / 2));
    assert!(just.len() <= MAX_REPLY_BYTES);
    assert_eq!(code(&just, &unbounded), "ok");
}
