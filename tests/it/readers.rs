//! The two readings of a case give one: a case read from its text in one
//! pass (`CaseText`, what `eval` and `eval --batch` read) validates to the
//! very `Facts`, or the very rejection, that the same text read into a
//! `serde_json::Value` (what the library and the conformance runner give)
//! validates to; the one-pass reader takes exactly the texts serde_json
//! takes, as the same value, except a key given twice, which it refuses
//! (serde_json keeps the last), and it refuses a text that is not JSON with
//! serde_json's message. Run over every bundled rulebook's conformance
//! cases and a few hundred generated cases, each also damaged (values of
//! the wrong kind, nulls, removed keys, repeated keys, cut short), so
//! rejections and malformed lines are read both ways too. Each case's line,
//! as the one writer writes it, is serde_json's text of the
//! `serde_json::Value` the library gives at its edge (`written.rs` pins the
//! corners by hand).

use bareme::unstable::case::{validate_case_text, CaseText};
use bareme::unstable::evaluation::evaluate_text;
use bareme::unstable::generate::{load_generator, run, RunOptions, TaskDrawer};
use bareme::unstable::outcome::{outcome_json, write_outcome};
use bareme::{validate_case, Rulebook};
use serde_json::Value as Json;

use crate::{root, rulebook, rulebook_dirs};

/// What one reading gives, compared as text (`Facts` has no `PartialEq`).
fn reading(result: Result<bareme::Facts, bareme::CaseError>) -> String {
    format!("{result:?}")
}

/// Tallies of the texts read, so a run that compares nothing fails.
#[derive(Default)]
struct Tally {
    flat: usize,
    twice: usize,
    rejected: usize,
    malformed: usize,
}

/// Reads `text` both ways and requires one reading.
fn both_ways(rb: &Rulebook, text: &str, tally: &mut Tally) {
    let serde = serde_json::from_str::<Json>(text);
    let (flat, value) = match (CaseText::read(text), serde) {
        (Ok(flat), Ok(value)) => (flat, value),
        (Ok(_), Err(e)) => panic!("read in one pass, refused by serde_json ({e}): {text}"),
        (Err(refused), Ok(_)) => {
            assert!(
                refused.message.starts_with("duplicate key "),
                "refused ({}), read by serde_json: {text}",
                refused.message
            );
            tally.twice += 1;
            return;
        }
        (Err(refused), Err(e)) => {
            assert_eq!(refused.path, "$", "{text}");
            if !refused.message.contains("lone surrogate") {
                assert_eq!(refused.message, format!("the case is not valid JSON: {e}"));
            }
            tally.malformed += 1;
            return;
        }
    };
    tally.flat += 1;
    assert_eq!(flat.root().to_value(), value, "{text}");
    let expected = validate_case(rb, &value);
    if expected.is_err() {
        tally.rejected += 1;
    }
    assert_eq!(
        reading(validate_case_text(rb, &flat)),
        reading(expected),
        "{text}"
    );
    // The line `eval --batch` writes is serde_json's text of the value
    // the library gives for the same outcome.
    let result = evaluate_text(rb, &flat, false);
    let mut written = Vec::new();
    write_outcome(&mut written, result.as_ref().map(|(o, _)| o));
    assert_eq!(
        String::from_utf8_lossy(&written),
        outcome_json(result.as_ref().map(|(o, _)| o)).to_string(),
        "{text}"
    );
    // In its envelope, as a batch line may carry it.
    let enveloped = format!("{{\"case\": {text}}}");
    if let Some(flat) = CaseText::parse(&enveloped) {
        assert_eq!(
            reading(validate_case_text(rb, &flat.without_envelope())),
            reading(validate_case(rb, &value)),
            "{enveloped}"
        );
    };
}

/// Damaged copies of a case: each key in turn given a value of another
/// kind, or removed; one item of each list likewise; texts with a key
/// repeated, cut short, or with a trailing comma.
fn damaged(case: &Json, n: usize) -> Vec<String> {
    let replacements = [
        Json::Null,
        Json::from("x"),
        serde_json::from_str("1.5").unwrap_or(Json::Null),
        serde_json::from_str("-0").unwrap_or(Json::Null),
        Json::from("0.123456789"),
        Json::Array(Vec::new()),
        Json::Object(serde_json::Map::new()),
        Json::Bool(true),
        Json::from("2026-13-01"),
        Json::from("déjà \u{1F600} \"quoted\"\n"),
    ];
    let mut out = Vec::new();
    let Some(object) = case.as_object() else {
        return out;
    };
    for (i, key) in object.keys().enumerate() {
        let mut changed = object.clone();
        let pick = &replacements[(n + i) % replacements.len()];
        changed.insert(key.clone(), pick.clone());
        out.push(Json::Object(changed.clone()).to_string());
        changed.shift_remove(key);
        out.push(Json::Object(changed).to_string());
        // One item of a list, one field of a record item.
        if let Some(Json::Array(items)) = object.get(key) {
            if let Some(first) = items.first() {
                let mut item = first.clone();
                match &mut item {
                    Json::Object(fields) => {
                        if let Some(field) = fields.keys().nth(n % fields.len().max(1)).cloned() {
                            fields.insert(field, pick.clone());
                        }
                    }
                    other => *other = pick.clone(),
                }
                let mut changed = object.clone();
                let mut list = items.clone();
                list[0] = item;
                list.push(pick.clone());
                changed.insert(key.clone(), Json::Array(list));
                out.push(Json::Object(changed).to_string());
            }
        }
    }
    let text = case.to_string();
    if let Some((first, _)) = object.iter().next() {
        // A key written twice: serde_json keeps the last value, the
        // one-pass reader refuses it.
        out.push(format!(
            "{},{}:null}}",
            &text[..text.len() - 1],
            Json::from(first.as_str())
        ));
    }
    let mut cut = text.len() * (n % 7 + 1) / 8;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    out.push(text[..cut].to_string());
    out.push(format!("{},}}", &text[..text.len() - 1]));
    out.push(serde_json::to_string_pretty(case).unwrap_or_default());
    out
}

/// Cases a generator draws (rejections included), as JSON values.
fn generated(rel: &str, count: u64) -> (Rulebook, Vec<Json>) {
    let (generator, rb) = match load_generator(&root().join(rel), None) {
        Ok(loaded) => loaded,
        Err(e) => panic!("{rel}: {e:?}"),
    };
    let engine = TaskDrawer::new(&generator, &rb).expect("engine");
    let options = RunOptions {
        seed: 11,
        start: 0,
        count,
        level: None,
        jobs: 2,
    };
    let mut out = Vec::new();
    run(&engine, options, &mut out, &|_| {}).expect("tasks");
    let cases = String::from_utf8(out)
        .expect("UTF-8")
        .lines()
        .map(|l| serde_json::from_str::<Json>(l).expect("a JSON line")["case"].clone())
        .collect();
    (rb, cases)
}

#[test]
fn conformance_cases_read_one_way() {
    let mut tally = Tally::default();
    for dir in rulebook_dirs() {
        let rb = rulebook(dir.to_str().expect("UTF-8 path"));
        let cases = bareme::unstable::conformance::cases(&dir).expect("cases");
        for (n, (_, case)) in cases.iter().enumerate() {
            both_ways(&rb, &case.to_string(), &mut tally);
            for text in damaged(case, n) {
                both_ways(&rb, &text, &mut tally);
            }
        }
    }
    assert!(tally.flat > 1000, "{} read in one pass", tally.flat);
    assert!(tally.rejected > 300, "{} rejections", tally.rejected);
    assert!(tally.malformed > 100, "{} malformed", tally.malformed);
    assert!(tally.twice > 100, "{} keys given twice", tally.twice);
}

#[test]
fn generated_cases_read_one_way() {
    let generators = [
        ("rulebooks/luma-payroll/generator-4.toml", 120),
        ("rulebooks/sales-tax/generator-1.toml", 80),
        ("rulebooks/paie-fr/generator-1.toml", 80),
        ("rulebooks/succession-fr/generator-1.toml", 80),
    ];
    let mut tally = Tally::default();
    for (rel, count) in generators {
        let (rb, cases) = generated(rel, count);
        for (n, case) in cases.iter().enumerate() {
            both_ways(&rb, &case.to_string(), &mut tally);
            for text in damaged(case, n) {
                both_ways(&rb, &text, &mut tally);
            }
        }
    }
    assert!(tally.flat > 2000, "{} read in one pass", tally.flat);
    assert!(tally.rejected > 500, "{} rejections", tally.rejected);
    assert!(tally.twice > 300, "{} keys given twice", tally.twice);
    assert!(tally.malformed > 300, "{} malformed", tally.malformed);
}
