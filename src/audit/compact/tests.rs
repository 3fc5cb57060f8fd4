//! The compact trace read back: bounds on what it copies, and shapes refused.

use super::*;
use serde_json::json;

/// `n` checks, each reading a 1 KiB input by its name alone.
fn trace(n: usize) -> Json {
    let check = |i: usize| json!({"event": "check", "index": i + 1, "r": [["note"]]});
    json!({
        "format": 2,
        "inputs": [{"name": "note", "value": "x".repeat(1024), "given": "value"}],
        "steps": [],
        "events": (0..n).map(check).collect::<Vec<_>>(),
        "outcome": {"kind": "answer"},
    })
}

#[test]
fn a_read_by_name_alone_copies_its_value_within_the_bound() {
    let expanded = expand_within(&trace(8), 64 << 10).expect("8 KiB copied");
    let reads = &expanded["events"][7]["reads"];
    assert_eq!(reads.as_array().map(Vec::len), Some(1));
    assert_eq!(reads[0]["value"].as_str().map(str::len), Some(1024));
    // One event reads a name once: a second read of it is refused before
    // it is copied.
    let mut twice = trace(1);
    twice["events"][0]["r"] = json!([["note"], ["note"]]);
    assert_eq!(
        expand_within(&twice, 64 << 10).unwrap_err(),
        "trace.events[0]: the read \"note\" is written twice in one event"
    );
    // 64 copies of 1 KiB and their quotes pass 64 KiB, at the last.
    assert_eq!(
        expand_within(&trace(64), 64 << 10).unwrap_err(),
        "trace.events[63]: the compact trace expands past 0 MiB, more than a trace is written as"
    );
    // A name that refers to nothing is read as null, for the walk to name
    // the step whose read it is (an event pointed at another definition).
    let mut unknown = trace(1);
    unknown["events"][0]["r"] = json!([["nothing"]]);
    let expanded = expand_within(&unknown, 64 << 10).expect("expanded");
    assert_eq!(
        expanded["events"][0]["reads"],
        json!([{"name": "nothing", "value": null}])
    );
}

#[test]
fn a_definition_given_to_every_event_counts_each_time() {
    let def = json!({"step": "s", "formula": "1".repeat(1000)});
    let event = json!({"s": 0, "v": "1"});
    let t = |n: usize| {
        json!({"format": 2, "inputs": [], "steps": [def.clone()],
               "events": vec![event.clone(); n], "outcome": {"kind": "answer"}})
    };
    assert!(expand_within(&t(10), 16 << 10).is_ok());
    assert!(expand_within(&t(20), 16 << 10).is_err());
}

/// What the expansion would drop or misplace is a shape error.
#[test]
fn reads_items_and_lists_of_another_shape_are_refused() {
    let def = json!({"step": "s", "formula": "x", "reads": ["x"]});
    let item_def = json!({"step": "net", "group": "lines", "formula": "x"});
    let with = |event: Json| {
        json!({"format": 2, "inputs": [], "steps": [def.clone(), item_def.clone()],
               "events": [event], "outcome": {"kind": "answer"}})
    };
    for (event, says) in [
        (
            json!({"s": 0, "v": "1", "r": [[0, "1", "junk"]]}),
            "a read is [NAME] or [NAME, VALUE]",
        ),
        (
            json!({"s": 0, "v": "1", "r": [[]]}),
            "a read is [NAME] or [NAME, VALUE]",
        ),
        (
            json!({"s": 0, "v": "1", "roundings": "1/0"}),
            "\"roundings\" is not a list",
        ),
        (
            json!({"s": 0, "v": "1", "r": {"x": 1}}),
            "\"r\" is not a list",
        ),
        (
            json!({"s": 0, "v": "1", "i": 3}),
            "\"i\" on a step of no group",
        ),
        (json!({"s": 1, "v": "1"}), "an item's step without \"i\""),
    ] {
        let e = expand_within(&with(event.clone()), EXPANDED).unwrap_err();
        assert!(e.contains(says), "{event}: {e}");
    }
    let both = |events: Json| {
        json!({"format": 2, "inputs": [], "steps": [def.clone(), item_def.clone()],
               "events": events, "outcome": {"kind": "answer"}})
    };
    let ok = both(json!([{"s": 0, "v": "1", "r": [[0, "1"]]}, {"s": 1, "v": "1", "i": 0}]));
    let ok = expand_within(&ok, EXPANDED).expect("fine");
    assert_eq!(ok["events"][1]["item"], "lines[0]");
    // A definition no event refers to, or a rounding's text none does, is
    // carried unread: refused.
    let e = expand_within(&with(json!({"s": 1, "v": "1", "i": 0})), EXPANDED).unwrap_err();
    assert_eq!(e, "step definition 0 has no event");
    let rounded = json!({"step": "s", "formula": "round(x, 2)", "reads": ["x"],
                         "at": ["round(x, 2)", "payload"]});
    let t = json!({"format": 2, "inputs": [], "steps": [rounded],
                   "events": [{"s": 0, "v": "1.00", "r": [[0, "1"]],
                               "roundings": [[0, "half_up", 2, "1", "1.00", "0.005"]]}],
                   "outcome": {"kind": "answer"}});
    let e = expand_within(&t, EXPANDED).unwrap_err();
    assert_eq!(
        e,
        "step definition 0: its \"at\" entry 1 (\"payload\") is referred to by no event"
    );
}

#[test]
fn weight_is_about_the_json_and_stops_at_its_limit() {
    let v = json!({"ab": ["xyz", 1, true]});
    // {} 2, "ab": 6, [] 3 + 2 items' commas, "xyz" 5, 1 8, true 5.
    assert_eq!(weight(&v, usize::MAX), 2 + 6 + 5 + 5 + 8 + 5);
    // The list's own commas and brackets pass 10: its items are not walked.
    let long = json!(vec![json!("x"); 1000]);
    assert_eq!(weight(&long, 10), 1002);
    assert_eq!(weight(&long, usize::MAX), 1002 + 3 * 1000);
}
