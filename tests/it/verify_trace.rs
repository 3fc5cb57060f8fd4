//! `verify-trace` (issue 30): every bundled rulebook's conformance cases,
//! traced, verify; a trace changed in one place does not, and the change
//! is named.

use std::path::Path;

use bareme::unstable::audit::{verify_line, TraceVerdict};
use bareme::unstable::conformance::cases;
use bareme::unstable::outcome::write_traced;
use bareme::{evaluate_value, load_rulebook, Rulebook};

/// The traced line `eval --trace json` prints for a case, or `None` when
/// the rulebook faults on it (exit 4, no trace).
pub fn traced(rb: &Rulebook, case: &serde_json::Value) -> Option<String> {
    let (outcome, trace) = evaluate_value(rb, case, true).ok()?;
    let mut out = Vec::new();
    write_traced(&mut out, &outcome, &trace?).expect("a trace within its bound");
    String::from_utf8(out).ok()
}

pub fn versions() -> Vec<String> {
    let mut out = Vec::new();
    for set in std::fs::read_dir("rulebooks").expect("rulebooks/") {
        let set = set.expect("entry").path();
        let Ok(versions) = std::fs::read_dir(&set) else {
            continue;
        };
        for v in versions {
            let v = v.expect("entry").path();
            if v.join("cases").is_dir() {
                out.push(v.display().to_string());
            }
        }
    }
    out.sort();
    out
}

fn verdict(rb: &Rulebook, line: &str, case: &serde_json::Value) -> TraceVerdict {
    verify_line(rb, line, Some(case)).expect("a trace of this rulebook")
}

/// What the verifier would not read is refused, not passed as verified: a
/// format that is not 1 or 2, a key the line or the trace does not have,
/// an answer beside an error.
#[test]
fn keys_and_formats_the_verifier_does_not_read_are_refused() {
    let rb = super::rulebook("rulebooks/luma-payroll/v3");
    let case: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("examples/luma-payroll/payslip.json").expect("the example"),
    )
    .expect("JSON");
    let line = traced(&rb, &case).expect("a trace");
    let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    assert!(verdict(&rb, &line, &case).follows());
    let changed = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut j = json.clone();
        edit(&mut j);
        match verify_line(&rb, &j.to_string(), Some(&case)) {
            Err(e) => e.to_string(),
            Ok(v) => format!("verified: {:?}", v.findings),
        }
    };
    for (edit, says) in [
        (
            &(|j: &mut serde_json::Value| j["trace"]["format"] = serde_json::json!(1.5))
                as &dyn Fn(&mut serde_json::Value),
            "a trace of format 1.5",
        ),
        (
            &|j: &mut serde_json::Value| j["trace"]["format"] = serde_json::json!({}),
            "a trace of format {}",
        ),
        (
            &|j: &mut serde_json::Value| j["trace"]["note"] = serde_json::json!("x"),
            "the trace holds an unknown key \"note\"",
        ),
        (
            &|j: &mut serde_json::Value| j["trace"]["steps"] = serde_json::json!([]),
            "the trace holds an unknown key \"steps\"",
        ),
        (
            &|j: &mut serde_json::Value| j["score"] = serde_json::json!(1),
            "the line holds an unknown key \"score\"",
        ),
        (
            &|j: &mut serde_json::Value| j["error"] = serde_json::json!({"path": "$"}),
            "holds \"answer\" or \"error\", not both",
        ),
    ] {
        let got = changed(edit);
        assert!(got.contains(says), "{says}: {got}");
    }
}

#[test]
fn every_conformance_trace_follows() {
    let mut failed = Vec::new();
    let mut verified = 0;
    // The language's own rulebooks too: `tests/lang` answers a sum over a
    // group with no items, which the verifier read as "before the trace ran it".
    let mut dirs = versions();
    dirs.extend(["tests/lang".to_string(), "tests/bands".to_string()]);
    for dir in dirs {
        let rb = load_rulebook(Path::new(&dir)).expect("bundled rulebook");
        for (name, case) in cases(Path::new(&dir)).expect("cases") {
            let Some(line) = traced(&rb, &case) else {
                continue;
            };
            let v = verdict(&rb, &line, &case);
            verified += 1;
            if !v.follows() {
                failed.push(format!(
                    "{dir} {name}:\n  {}",
                    v.findings
                        .iter()
                        .map(|f| f.to_string())
                        .collect::<Vec<_>>()
                        .join("\n  ")
                ));
            }
        }
    }
    assert!(verified > 300, "only {verified} traces verified");
    assert!(
        failed.is_empty(),
        "{} traces do not follow:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

/// A value changed past its 28th place is a change: read the way
/// rust_decimal's `parse` reads it (rounded to 28 places), `302.40` with a
/// 1 in its 31st place passed for the value computed.
#[test]
fn a_value_changed_past_28_places_does_not_follow() {
    let rb = load_rulebook(Path::new("rulebooks/luma-payroll/v3")).expect("bundled rulebook");
    let case = serde_json::json!({"task": "payslip", "gross_pay": "3650.00",
        "payroll_month": "2026-09", "allowed_deduction": "120.00", "contract_gross_pay": "3500.00"});
    let line = traced(&rb, &case).expect("a trace");
    assert!(verdict(&rb, &line, &case).follows());
    let mut json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    let events = json["trace"]["events"].as_array_mut().expect("events");
    let step = events
        .iter_mut()
        .find(|e| e["event"] == "step" && e["value"].as_str().is_some_and(|v| v.contains('.')))
        .expect("a step with a decimal value");
    let at = event_at(step);
    let changed = format!(
        "{}{}1",
        step["value"].as_str().unwrap_or(""),
        "0".repeat(28)
    );
    step["value"] = serde_json::Value::String(changed.clone());
    let v = verdict(&rb, &json.to_string(), &case);
    assert!(!v.follows(), "{changed} passed");
    assert!(
        v.findings.iter().any(|f| f.to_string().contains(&at)),
        "{changed} at {at}: {:?}",
        v.findings.iter().map(|f| f.to_string()).collect::<Vec<_>>()
    );
}

/// A `decimal` answer is written as held, scale kept, so its text is the
/// answer: Luma's retrieval of a supplied `"275.5"` deduction (money, held
/// at two places) answers `"275.50"`, and `"275.5"` or `"275.500"`, the
/// same value, are not what the engine writes. The verifier compared them
/// by value (its decoding dropped money's scale).
#[test]
fn a_decimal_answer_at_another_scale_does_not_follow() {
    let rb = load_rulebook(Path::new("rulebooks/luma-payroll/v3")).expect("bundled rulebook");
    let case = serde_json::json!({"task": "retrieval", "payroll_month": "2026-04",
        "field": "deduction_cap", "reference_tables": {
            "first-half": {"rate": "0.05", "cap": "4800.00", "deduction": "275.5",
                "free": "1000.00", "upper": "3300.00", "middle_rate": "0.10", "upper_rate": "0.22"},
            "second-half": {"rate": "0.04", "cap": "5000.00", "deduction": "350.00",
                "free": "1100.00", "upper": "3000.00", "middle_rate": "0.08", "upper_rate": "0.20"}}});
    let line = traced(&rb, &case).expect("a trace");
    let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    assert_eq!(json["answer"]["value"], "275.50", "{line}");
    assert!(findings(&rb, &json, &case).is_empty(), "{line}");
    for other in ["275.5", "275.500", "0275.50"] {
        let mut j = json.clone();
        j["answer"]["value"] = serde_json::json!(other);
        let found = findings(&rb, &j, &case);
        assert_eq!(
            found,
            [format!(
                "answer value: value: recorded {other}, follows 275.50"
            )],
            "{other}"
        );
    }
}

/// A rulebook `id` of the inputs and steps in `body` whose one decision
/// answers the step `part` in money.
fn part_rulebook(id: &str, body: &str) -> Rulebook {
    let text = format!(
        "[rulebook]\nid = \"{id}\"\nversion = 1\nschema = 1\n{body}\n\
         [decisions.ok.answer]\npart = {{ expr = \"part\", format = \"money\" }}\n\n\
         [[checks]]\ndecision = \"ok\"\n"
    );
    bareme::parse_rulebook(&format!("{id}.toml"), &text).expect("the rulebook loads")
}

/// A finite fraction too long for a decimal (a share of 1/2^39, and its
/// product with an amount) is written as every digit of it: the verifier
/// reads those digits as the exact fraction, in the inputs and in a step,
/// and a digit changed in the 41st place is a finding.
#[test]
fn a_long_finite_fraction_is_written_in_full_and_verified() {
    let rb = part_rulebook(
        "share",
        r#"
[inputs.share]
type = "fraction"
required = true

[inputs.amount]
type = "money"
required = true

[steps.part]
expr = "amount * share"
round = { places = 2, mode = "half_up" }
"#,
    );
    let case = serde_json::json!({"share": "1/549755813888", "amount": "12345678.91"});
    let line = traced(&rb, &case).expect("a trace");
    let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    let trace = &json["trace"];
    assert_eq!(
        trace["inputs"][0]["value"],
        "0.000000000001818989403545856475830078125"
    );
    let step = &trace["events"][1];
    // 12345678.91 / 2^39, exactly: 41 places.
    let exact = "0.00002245665911686955951154232025146484375";
    assert_eq!(
        (&step["step"], &step["exact"]),
        (&"part".into(), &exact.into())
    );
    assert!(verdict(&rb, &line, &case).follows());

    let changed = line.replace(exact, "0.00002245665911686955951154232025146484376");
    assert_ne!(changed, line);
    let v = verdict(&rb, &changed, &case);
    assert!(!v.follows(), "a change in the 41st place passed");
    assert!(v.findings.iter().any(|f| f.to_string().contains("part")));
}

/// A fraction with terms past a case's bound (10^12) is read by value:
/// the same value written unreduced follows, a numerator one more does not.
#[test]
fn a_wide_fraction_is_compared_by_value() {
    let rb = part_rulebook(
        "seventh",
        r#"
[inputs.amount]
type = "money"
required = true

[steps.seventh]
expr = "amount / 7"

[steps.part]
expr = "seventh"
round = { places = 2, mode = "half_up" }
"#,
    );
    let case = serde_json::json!({"amount": "123456789012345.68"});
    let line = traced(&rb, &case).expect("a trace");
    let exact = "3086419725308642/175";
    assert!(line.contains(&format!(r#""value":"{exact}""#)), "{line}");
    assert!(verdict(&rb, &line, &case).follows());
    let unreduced = line.replace(exact, "6172839450617284/350");
    assert!(verdict(&rb, &unreduced, &case).follows());
    let changed = line.replace(exact, "3086419725308643/175");
    let v = verdict(&rb, &changed, &case);
    assert!(!v.follows(), "a numerator one more passed");
    assert!(v.findings.iter().any(|f| f.to_string().contains("seventh")));
}

/// A trace changed in one place, and where the change is.
struct Tampered {
    line: String,
    at: String,
    what: &'static str,
}

/// The `at` of an event as the verifier names it.
fn event_at(ev: &serde_json::Value) -> String {
    let s = |k: &str| ev.get(k).and_then(|v| v.as_str()).map(str::to_string);
    match s("event").as_deref() {
        Some("check") => format!("check {}", ev["index"]),
        _ => match s("item") {
            Some(item) => format!("step {item}.{}", s("step").unwrap_or_default()),
            None => format!("step {}", s("step").unwrap_or_default()),
        },
    }
}

fn cent_more(v: &serde_json::Value) -> Option<serde_json::Value> {
    let d: rust_decimal::Decimal = v.as_str()?.parse().ok()?;
    Some(serde_json::Value::String(
        (d + rust_decimal::Decimal::new(1, 2)).to_string(),
    ))
}

/// The other rows a lookup could have chosen in the same table.
fn other_rows(rb_rows: &[(String, Vec<String>)], table: &str, row: &str) -> Vec<String> {
    rb_rows
        .iter()
        .filter(|(t, _)| t == table)
        .flat_map(|(_, rows)| rows.iter().filter(|r| *r != row).cloned())
        .collect()
}

/// The traced line of `eval --trace json-compact` for the same evaluation
/// as a format-1 line: its answer (or error), the trace in format 2.
fn compact_line(rb: &Rulebook, case: &serde_json::Value, line: &str) -> Option<String> {
    let (_, two) = both_formats(rb, case)?;
    let mut json: serde_json::Value = serde_json::from_str(line).ok()?;
    json["trace"] = serde_json::from_str(&two).ok()?;
    Some(json.to_string())
}

/// The `at` of a format-2 event as the verifier names it, its step's name
/// and group from the trace's definitions.
fn compact_event_at(steps: &[serde_json::Value], ev: &serde_json::Value) -> String {
    if ev.get("event").is_some() {
        return event_at(ev);
    }
    let def = ev["s"].as_u64().and_then(|s| steps.get(s as usize));
    let name = def.and_then(|d| d["step"].as_str()).unwrap_or_default();
    match (def.and_then(|d| d["group"].as_str()), ev["i"].as_u64()) {
        (Some(group), Some(i)) => format!("step {group}[{i}].{name}"),
        _ => format!("step {name}"),
    }
}

/// Where a trace format keeps what a change touches: format 1 (`--trace
/// json`) names every field, format 2 (`--trace json-compact`) writes a
/// read as `[NAME, VALUE]`, a rounding as `[…, MODE, …]`, a step's value
/// as `v` and its rounding point as `round`.
struct Layout {
    /// A step's event (one that records a value).
    is_step: fn(&serde_json::Value) -> bool,
    /// The key of a step's value.
    value: &'static str,
    /// The key of an event's reads.
    reads: &'static str,
    /// Where a read holds its value.
    read_value: Key,
    /// Where a rounding inside a formula holds its mode.
    rounding_mode: Key,
    /// The step's own rounding point and where it holds its mode, if the
    /// format writes it apart from `roundings`.
    round: Option<(&'static str, usize)>,
    /// The `at` of an event as the verifier names it (format 2 reads the
    /// step definitions).
    at: fn(&[serde_json::Value], &serde_json::Value) -> String,
}

/// A field of an object or an item of an array.
#[derive(Clone, Copy)]
enum Key {
    Name(&'static str),
    At(usize),
}

impl Key {
    fn get(self, v: &serde_json::Value) -> &serde_json::Value {
        match self {
            Key::Name(name) => &v[name],
            Key::At(i) => &v[i],
        }
    }

    fn of(self, v: &mut serde_json::Value) -> &mut serde_json::Value {
        match self {
            Key::Name(name) => &mut v[name],
            Key::At(i) => &mut v[i],
        }
    }
}

const FORMAT_1: Layout = Layout {
    is_step: |ev| ev["event"] == "step",
    value: "value",
    reads: "reads",
    read_value: Key::Name("value"),
    rounding_mode: Key::Name("mode"),
    round: None,
    at: |_, ev| event_at(ev),
};

const FORMAT_2: Layout = Layout {
    is_step: |ev| ev.get("s").is_some(),
    value: "v",
    reads: "r",
    read_value: Key::At(1),
    rounding_mode: Key::At(1),
    round: Some(("round", 0)),
    at: compact_event_at,
};

/// One change of the given kind drawn from a trace written in `layout`, if
/// it has a place for one: a step's value a cent more; a read's value
/// changed (a cent more, a truth value negated); a lookup's row swapped for
/// another of its table; a rounding's mode changed, inside the formula
/// (`roundings`) or at the step's rounding point; a read left out; a
/// step's event written twice.
fn tamper(
    layout: &Layout,
    line: &str,
    kind: usize,
    rng: &mut rand_chacha::ChaCha8Rng,
    rows: &[(String, Vec<String>)],
) -> Option<Tampered> {
    use rand::Rng;
    let mut json: serde_json::Value = serde_json::from_str(line).ok()?;
    let events = json["trace"]["events"].as_array()?.clone();
    let steps = json["trace"]["steps"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    // Every place of this kind: (event, sub-index); a sub-index past the
    // `roundings` is the step's rounding point.
    let mut places = Vec::new();
    for (e, ev) in events.iter().enumerate() {
        match kind {
            0 if (layout.is_step)(ev) && cent_more(&ev[layout.value]).is_some() => {
                places.push((e, 0))
            }
            1 => {
                let reads = ev[layout.reads].as_array().into_iter().flatten();
                for (r, read) in reads.enumerate() {
                    let value = layout.read_value.get(read);
                    if cent_more(value).is_some() || value.is_boolean() {
                        places.push((e, r));
                    }
                }
            }
            2 => {
                for (l, lk) in ev["lookups"].as_array().into_iter().flatten().enumerate() {
                    let (Some(t), Some(r)) = (lk["table"].as_str(), lk["row"].as_str()) else {
                        continue;
                    };
                    if lk["source"] == "rulebook" && !other_rows(rows, t, r).is_empty() {
                        places.push((e, l));
                    }
                }
            }
            4 => {
                let reads = ev[layout.reads].as_array().map_or(0, Vec::len);
                places.extend((0..reads).map(|r| (e, r)));
            }
            5 if (layout.is_step)(ev) => places.push((e, 0)),
            3 => {
                let inside = ev["roundings"].as_array().map_or(0, Vec::len);
                places.extend((0..inside).map(|r| (e, r)));
                if layout.round.is_some_and(|(key, _)| ev.get(key).is_some()) {
                    places.push((e, inside));
                }
            }
            _ => {}
        }
    }
    if places.is_empty() {
        return None;
    }
    let (e, sub) = places[rng.random_range(0..places.len())];
    let at = (layout.at)(&steps, &events[e]);
    if kind == 5 {
        // The step's event again, right after it.
        json["trace"]["events"]
            .as_array_mut()?
            .insert(e + 1, events[e].clone());
        return Some(Tampered {
            line: json.to_string(),
            at,
            what: "recorded again",
        });
    }
    let ev = &mut json["trace"]["events"][e];
    let what = match kind {
        0 => {
            ev[layout.value] = cent_more(&ev[layout.value])?;
            "value"
        }
        1 => {
            let v = layout.read_value.of(&mut ev[layout.reads][sub]);
            let changed = match &*v {
                serde_json::Value::Bool(b) => serde_json::Value::Bool(!*b),
                other => cent_more(other)?,
            };
            *v = changed;
            "read"
        }
        2 => {
            let lk = &mut ev["lookups"][sub];
            let others = other_rows(rows, lk["table"].as_str()?, lk["row"].as_str()?);
            let other = others[rng.random_range(0..others.len())].clone();
            if lk["kind"] == "key" {
                lk["key"] = serde_json::Value::String(other.clone());
            }
            lk["row"] = serde_json::Value::String(other);
            "lookup"
        }
        4 => {
            ev[layout.reads].as_array_mut()?.remove(sub);
            "read"
        }
        _ => {
            let inside = ev["roundings"].as_array().map_or(0, Vec::len);
            let mode = match layout.round {
                Some((key, at)) if sub >= inside => &mut ev[key][at],
                _ => layout.rounding_mode.of(&mut ev["roundings"][sub]),
            };
            let modes = ["half_up", "half_even", "down", "up", "floor", "ceiling"];
            let now = mode.as_str()?.to_string();
            let others: Vec<&str> = modes.into_iter().filter(|m| *m != now).collect();
            *mode = serde_json::Value::String(others[rng.random_range(0..others.len())].into());
            "rounding"
        }
    };
    Some(Tampered {
        line: json.to_string(),
        at,
        what,
    })
}

/// Each table's name and the names of its rows.
type TableRows = Vec<(String, Vec<String>)>;

/// Each table's rows as a lookup names them: a period row by its name, a
/// keyed row by its key (one key column).
fn table_rows(rb: &Rulebook, dir: &str) -> Vec<(String, Vec<String>)> {
    let _ = rb;
    let text = std::fs::read_to_string(Path::new(dir).join("rulebook.toml")).unwrap_or_default();
    let doc: toml::Value = toml::from_str(&text).unwrap_or(toml::Value::Integer(0));
    let mut out = Vec::new();
    for (name, table) in doc
        .get("tables")
        .and_then(|t| t.as_table())
        .into_iter()
        .flatten()
    {
        let keys: Vec<String> = table
            .get("keys")
            .and_then(|k| k.as_array())
            .into_iter()
            .flatten()
            .filter_map(|k| k.as_str().map(str::to_string))
            .collect();
        let rows = table
            .get("rows")
            .and_then(|r| r.as_array())
            .into_iter()
            .flatten();
        let names: Vec<String> = rows
            .filter_map(|r| match r.get("name").and_then(|n| n.as_str()) {
                Some(n) => Some(n.to_string()),
                None if !keys.is_empty() => {
                    let parts: Option<Vec<String>> = keys
                        .iter()
                        .map(|k| r.get(k).and_then(|v| v.as_str()).map(str::to_string))
                        .collect();
                    parts.map(|p| p.join(", "))
                }
                None => None,
            })
            .collect();
        out.push((name.clone(), names));
    }
    out
}

#[test]
fn a_trace_changed_in_one_place_is_named_there() {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2026);
    let mut traces: Vec<(String, String, serde_json::Value)> = Vec::new();
    // Generated cases of every bundled generator, and every conformance case.
    for generator in [
        "rulebooks/luma-payroll/generator-4.toml",
        "rulebooks/sales-tax/generator-1.toml",
        "rulebooks/paie-fr/generator-1.toml",
        "rulebooks/succession-fr/generator-1.toml",
    ] {
        let (g, rb) = bareme::load_generator(Path::new(generator), None).expect("generator");
        let drawer = bareme::TaskDrawer::new(&g, &rb).expect("drawer");
        let dir = rb.files()[0].clone();
        let dir = Path::new(&dir)
            .parent()
            .expect("folder")
            .display()
            .to_string();
        for i in 0..40 {
            let task = drawer.task(2026, i, None).expect("task").task;
            traces.push((dir.clone(), generator.to_string(), task.case));
        }
    }
    for dir in versions() {
        for (_, case) in cases(Path::new(&dir)).expect("cases") {
            traces.push((dir.clone(), dir.clone(), case));
        }
    }
    // Per kind of change, in format 1 and in format 2.
    let mut tried = [[0usize; 2]; 6];
    let mut missed = Vec::new();
    let mut books: std::collections::HashMap<String, (Rulebook, TableRows)> = Default::default();
    for (dir, origin, case) in &traces {
        let (rb, rows) = books.entry(dir.clone()).or_insert_with(|| {
            let rb = load_rulebook(Path::new(dir)).expect("rulebook");
            let rows = table_rows(&rb, dir);
            (rb, rows)
        });
        let Some(line) = traced(rb, case) else {
            continue;
        };
        assert!(verdict(rb, &line, case).follows(), "{origin}: {case}");
        let compact = compact_line(rb, case, &line).expect("a compact trace");
        assert!(verdict(rb, &compact, case).follows(), "{origin}: {case}");
        for (kind, [one, two]) in tried.iter_mut().enumerate() {
            let changes = [
                (tamper(&FORMAT_1, &line, kind, &mut rng, rows), one, 1),
                (tamper(&FORMAT_2, &compact, kind, &mut rng, rows), two, 2),
            ];
            for (t, tried, format) in changes {
                let Some(t) = t else {
                    continue;
                };
                *tried += 1;
                let v = verdict(rb, &t.line, case);
                let named = v
                    .findings
                    .iter()
                    .any(|f| f.at == t.at && f.what.starts_with(t.what));
                // In format 2 a later read written as a name alone refers to
                // the value recorded at the changed step, so it carries the
                // change too: such reads of that step are named where they are.
                // (`base` of `step lines[3].base`, or the group `lines` whose
                // records or projection hold it.)
                let name = t.at.trim_start_matches("step ");
                let step = name.rsplit('.').next().unwrap_or_default();
                let group = name.split_once('[').map(|(g, _)| g);
                let carried = |what: &str| {
                    what.strip_prefix("read ").is_some_and(|read| {
                        let base = read.split('.').next().unwrap_or_default();
                        read.rsplit('.').next() == Some(step) || Some(base) == group
                    })
                };
                let elsewhere: Vec<_> = v
                    .findings
                    .iter()
                    .filter(|f| f.at != t.at)
                    .filter(|f| !(format == 2 && t.what == "value" && carried(&f.what)))
                    .collect();
                if v.follows() || !named || !elsewhere.is_empty() {
                    missed.push(format!(
                        "{origin} format {format} {} {}: {:?}",
                        t.what, t.at, v.findings
                    ));
                }
            }
        }
    }
    assert!(
        missed.is_empty(),
        "{} changes missed:\n{}",
        missed.len(),
        missed.join("\n")
    );
    assert!(
        tried.iter().flatten().all(|n| *n >= 100),
        "changes tried per kind, format 1 and 2: {tried:?}"
    );
}

/// `bareme verify-trace` on the Luma example payslip: taxable pay
/// 3650.00 − 146.00 − 120.00 = 3384.00, income tax 0.08 × 1900.00 +
/// 0.20 × 384.00 = 228.80 (rounded half-up at the step).
mod command {
    use crate::cli::bareme;

    fn trace() -> String {
        let out = bareme(
            &[
                "eval",
                "rulebooks/luma-payroll/v3",
                "examples/luma-payroll/payslip.json",
                "--trace",
                "json",
            ],
            None,
        );
        assert!(out.status.success());
        String::from_utf8(out.stdout).expect("UTF-8")
    }

    fn verify(trace: &str) -> (Option<i32>, String, String) {
        let out = bareme(
            &[
                "verify-trace",
                "-",
                "--rulebook",
                "rulebooks/luma-payroll/v3",
            ],
            Some(trace),
        );
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    #[test]
    fn a_trace_as_written_follows_in_one_line() {
        let (code, stdout, _) = verify(&trace());
        assert_eq!(code, Some(0));
        assert_eq!(stdout.lines().count(), 1, "{stdout}");
        assert!(
            stdout.starts_with("1 of 1 traces follow luma-payroll@3#114555701f02: "),
            "{stdout}"
        );
    }

    /// A receipt of an ablation follows that reading, not the rules: the
    /// summary says so (only the JSON's `ablation` key did).
    #[test]
    fn an_ablated_trace_is_named_so_in_the_summary() {
        let (rulebook, cart) = ("rulebooks/sales-tax/v1", "examples/sales-tax/cart.json");
        let eval = ["eval", rulebook, cart, "--trace", "json", "--ablate"];
        let out = bareme(&[&eval[..], &["billing_jurisdiction"]].concat(), None);
        assert!(out.status.success());
        let traced = String::from_utf8(out.stdout).expect("UTF-8");
        let out = bareme(
            &["verify-trace", "-", "--rulebook", rulebook, "--case", cart],
            Some(&traced),
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{stdout}");
        assert!(
            stdout.trim_end().ends_with(
                " (1 under an ablation, an alternative reading and not the rules: billing_jurisdiction)"
            ),
            "{stdout}"
        );
    }

    /// An ablation named twice is refused by `eval --ablate`, so no trace
    /// of it is honest: the verifier said one that names it twice follows
    /// (hostile probe).
    #[test]
    fn an_ablation_named_twice_does_not_follow() {
        let (rulebook, cart) = ("rulebooks/sales-tax/v1", "examples/sales-tax/cart.json");
        let eval = ["eval", rulebook, cart, "--trace", "json", "--ablate"];
        let out = bareme(&[&eval[..], &["billing_jurisdiction"]].concat(), None);
        assert!(out.status.success());
        let traced = String::from_utf8(out.stdout).expect("UTF-8");
        let from = "\"ablation\":\"billing_jurisdiction\"";
        assert!(traced.contains(from), "{traced}");
        let twice = traced.replacen(
            from,
            "\"ablation\":\"billing_jurisdiction,billing_jurisdiction\"",
            1,
        );
        let out = bareme(
            &["verify-trace", "-", "--rulebook", rulebook, "--case", cart],
            Some(&twice),
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{stdout}");
        assert!(
            stdout.starts_with(
                "line 1: ablation: names an ablation twice, which the engine refuses: recorded billing_jurisdiction"
            ),
            "{stdout}"
        );
    }

    #[test]
    fn a_changed_step_is_named_with_what_follows() {
        let t = trace();
        for (from, to, finding) in [
            (
                "\"value\":\"228.80\"",
                "\"value\":\"228.81\"",
                "line 1: step income_tax: value: recorded 228.81, follows 228.80",
            ),
            (
                "{\"name\":\"row.rate\",\"value\":\"0.04\"}",
                "{\"name\":\"row.rate\",\"value\":\"0.05\"}",
                "line 1: step employee_contribution: read row.rate: recorded 0.05, follows 0.04",
            ),
            (
                // `field` is asked only of a retrieval: ignored here.
                "{\"name\":\"field\",\"given\":\"ignored\"",
                "{\"name\":\"field\",\"given\":\"absent\"",
                "line 1: input field: given: recorded absent, follows ignored",
            ),
            (
                "{\"name\":\"reference_tables\",\"given\":\"absent\"",
                "{\"name\":\"reference_tables\",\"given\":\"bogus\"",
                "line 1: input reference_tables: given: recorded bogus, follows value, absent",
            ),
            (
                // What a citation says is the rulebook's, not only whether it held.
                "\"held\":true,\"clauses\":[\"R9\"]",
                "\"held\":true,\"clauses\":[\"R1\",\"R2\"]",
                "line 1: citation 1: clauses: recorded [\"R1\",\"R2\"], follows [\"R9\"]",
            ),
            (
                "\"mode\":\"half_up\",\"places\":2,\"before\":\"228.8000\"",
                "\"mode\":\"half_even\",\"places\":2,\"before\":\"228.8000\"",
                "line 1: step income_tax: rounding: recorded",
            ),
        ] {
            assert!(t.contains(from), "{from}");
            let (code, stdout, _) = verify(&t.replacen(from, to, 1));
            assert_eq!(code, Some(1), "{stdout}");
            let lines: Vec<&str> = stdout.lines().collect();
            assert_eq!(lines.len(), 2, "{stdout}");
            assert!(lines[0].starts_with(finding), "{stdout}");
            assert!(lines[1].starts_with("0 of 1 traces follow"), "{stdout}");
        }
    }

    /// A receipt lost from the end of a batch, or none at all, is not
    /// verified: "2 of 2 traces follow" hid a third case without one.
    #[test]
    fn a_case_without_its_trace_or_no_trace_is_a_usage_error() {
        let dir = std::env::temp_dir().join(format!("bareme-vt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temp dir");
        let case =
            std::fs::read_to_string(crate::root().join("examples/luma-payroll/payslip.json"))
                .expect("the example");
        let one_line: serde_json::Value = serde_json::from_str(&case).expect("JSON");
        let cases = dir.join("cases.jsonl");
        std::fs::write(&cases, format!("{one_line}\n{one_line}\n")).expect("written");
        let t = trace();
        let run = |traces: &str| {
            let out = bareme(
                &[
                    "verify-trace",
                    "-",
                    "--rulebook",
                    "rulebooks/luma-payroll/v3",
                    "--cases",
                    cases.to_str().expect("UTF-8"),
                ],
                Some(traces),
            );
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stdout).into_owned(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        };
        let (code, stdout, _) = run(&format!("{}\n{}\n", t.trim_end(), t.trim_end()));
        assert_eq!(code, Some(0), "{stdout}");
        assert!(stdout.starts_with("2 of 2 traces follow"), "{stdout}");
        let (code, _, stderr) = run(&t);
        assert_eq!(code, Some(2));
        assert!(
            stderr.contains("case line 2 has no trace (the trace file is shorter)"),
            "{stderr}"
        );
        let (code, _, stderr) = verify("\n");
        assert_eq!(code, Some(2));
        assert!(stderr.contains("no trace to verify"), "{stderr}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn another_rulebooks_trace_or_no_json_is_a_usage_error() {
        let out = bareme(
            &["verify-trace", "-", "--rulebook", "rulebooks/sales-tax/v1"],
            Some(&trace()),
        );
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("[audit::rulebook]"));
        let (code, _, stderr) = verify("not json\n");
        assert_eq!(code, Some(2));
        assert!(stderr.contains("[audit::json]"), "{stderr}");
    }
}

/// The trace of a case in both formats: format 1 as `--trace json` writes
/// it, and format 2 (`--trace json-compact`).
fn both_formats(rb: &Rulebook, case: &serde_json::Value) -> Option<(String, String)> {
    let (_, trace) = evaluate_value(rb, case, true).ok()?;
    let trace = trace?;
    let mut one = Vec::new();
    bareme::unstable::trace::write_trace_json(&mut one, &trace).expect("a trace within its bound");
    let mut two = Vec::new();
    bareme::unstable::trace::write_trace_json_compact(&mut two, &trace)
        .expect("a trace within its bound");
    Some((String::from_utf8(one).ok()?, String::from_utf8(two).ok()?))
}

#[test]
fn a_compact_trace_reads_back_as_the_full_one_byte_for_byte() {
    let mut checked = 0;
    for dir in versions() {
        let rb = load_rulebook(Path::new(&dir)).expect("bundled rulebook");
        for (name, case) in cases(Path::new(&dir)).expect("cases") {
            let Some((one, two)) = both_formats(&rb, &case) else {
                continue;
            };
            let compact: serde_json::Value = serde_json::from_str(&two).expect("JSON");
            assert_eq!(compact["format"], 2);
            let expanded = bareme::unstable::audit::expand_compact(&compact).expect("expands");
            assert_eq!(
                serde_json::to_string(&expanded).expect("text"),
                one,
                "{dir} {name}"
            );
            // And the verifier reads it as it reads the full trace (the
            // line's answer or error left out).
            let line = format!("{{\"trace\":{two}}}");
            let v = verify_line(&rb, &line, Some(&case)).expect("a trace");
            assert!(
                v.findings
                    .iter()
                    .all(|f| (f.at == "outcome" && f.what == "answer")
                        || (f.at == "error" && f.what == "rejection" && f.recorded == "null")),
                "{dir} {name}: {:?}",
                v.findings
            );
            checked += 1;
        }
    }
    assert!(checked > 300);
}

#[test]
fn a_level_4_payslips_compact_trace_is_at_most_a_quarter() {
    let (g, rb) = bareme::load_generator(Path::new("rulebooks/paie-fr/generator-1.toml"), None)
        .expect("generator");
    let drawer = bareme::TaskDrawer::new(&g, &rb).expect("drawer");
    let (mut full, mut compact) = (0usize, 0usize);
    for i in 0..20 {
        let task = drawer.task(2026, i, Some(4)).expect("task").task;
        let (one, two) = both_formats(&rb, &task.case).expect("traced");
        assert!(
            two.len() * 4 <= one.len(),
            "case {i}: {} of {} bytes",
            two.len(),
            one.len()
        );
        full += one.len();
        compact += two.len();
    }
    assert!(compact * 4 <= full, "{compact} of {full} bytes");
}

/// `scale_by` (tests/bands): each band limit scaled by the factor and
/// rounded, each rounding recorded, then the scale applied. The verifier
/// recomputes them; month 7 of `03-month-seven`: limits 12,570 × 7/12 =
/// 7,332.5 → 7,333 (up) and 50,270 × 7/12 = 29,324.1666… → 29,325.
#[test]
fn scale_by_limits_are_recomputed_and_a_changed_one_is_named() {
    let dir = Path::new("tests/bands");
    let rb = load_rulebook(dir).expect("tests/bands");
    let mut verified = 0;
    for (name, case) in cases(dir).expect("cases") {
        let Some(line) = traced(&rb, &case) else {
            continue;
        };
        let v = verdict(&rb, &line, &case);
        assert!(v.follows(), "{name}: {:?}", v.findings);
        assert!(v.roundings >= 2, "{name}: {v}");
        verified += 1;
    }
    assert!(verified >= 4, "{verified}");
    let case = serde_json::json!({"pay_to_date": "20000.00", "month": 7});
    let line = traced(&rb, &case).expect("traced");
    let from = "\"after\":\"7333\"";
    assert!(line.contains("limit of band 1 of annual_bands"), "{line}");
    assert!(line.contains(from), "{line}");
    let changed = line.replacen(from, "\"after\":\"7332\"", 1);
    let v = verdict(&rb, &changed, &case);
    let at: Vec<_> = v.findings.iter().map(|f| (&*f.at, &*f.what)).collect();
    assert!(
        at.contains(&("step tax_to_date", "rounding")),
        "{:?}",
        v.findings
    );
}

/// The report tables are recomputed: a payslip's cell one cent more, or a
/// total changed, is named at that cell and nowhere else.
#[test]
fn a_changed_report_cell_is_named() {
    let dir = "rulebooks/paie-fr/v2026";
    let rb = load_rulebook(Path::new(dir)).expect("paie-fr");
    let (name, case) = cases(Path::new(dir))
        .expect("cases")
        .into_iter()
        .find(|(_, c)| traced(&rb, c).is_some_and(|l| l.contains("\"reports\":[{\"title\"")))
        .expect("a case with a payslip");
    let line = traced(&rb, &case).expect("traced");
    assert!(verdict(&rb, &line, &case).follows(), "{name}");
    let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    let report = &json["trace"]["reports"][0];
    let header = report["header"].as_array().expect("header");
    // The first row's first number cell, and the first total.
    let rows = report["rows"].as_array().expect("rows");
    let (r, c) = rows
        .iter()
        .enumerate()
        .find_map(|(r, row)| {
            let c = row
                .as_array()?
                .iter()
                .position(|v| cent_more(v).is_some())?;
            Some((r, c))
        })
        .expect("a number cell");
    let mut changed = json.clone();
    let cell = &mut changed["trace"]["reports"][0]["rows"][r][c];
    *cell = cent_more(cell).expect("a number");
    let v = verdict(&rb, &changed.to_string(), &case);
    assert_eq!(v.findings.len(), 1, "{:?}", v.findings);
    let f = &v.findings[0];
    assert!(f.at.starts_with("report "), "{f}");
    assert!(
        f.at.ends_with(&format!("].{}", header[c].as_str().expect("key"))),
        "{f}"
    );
    assert_eq!(f.what, "value", "{f}");
    // The same value written another way is not the cell either: a sign, a
    // leading zero, a trailing zero.
    let text = json["trace"]["reports"][0]["rows"][r][c]
        .as_str()
        .expect("a text cell")
        .to_string();
    for other in [format!("+{text}"), format!("0{text}"), format!("{text}0")] {
        let mut changed = json.clone();
        changed["trace"]["reports"][0]["rows"][r][c] = serde_json::json!(other);
        let v = verdict(&rb, &changed.to_string(), &case);
        assert_eq!(v.findings.len(), 1, "{other}: {:?}", v.findings);
    }
    let mut changed = json.clone();
    let total = &mut changed["trace"]["reports"][0]["totals"][0][1];
    *total = cent_more(total).expect("a number");
    let v = verdict(&rb, &changed.to_string(), &case);
    assert_eq!(v.findings.len(), 1, "{:?}", v.findings);
    assert!(v.findings[0].at.contains(" total "), "{:?}", v.findings);
    // A row left out is named too.
    let mut changed = json;
    changed["trace"]["reports"][0]["rows"]
        .as_array_mut()
        .expect("rows")
        .pop();
    let v = verdict(&rb, &changed.to_string(), &case);
    assert!(
        v.findings.iter().any(|f| f.what == "rows"),
        "{:?}",
        v.findings
    );
}

#[test]
fn a_long_recorded_text_is_shown_clipped_and_kept_whole() {
    let dir = "rulebooks/luma-payroll/v3";
    let rb = load_rulebook(Path::new(dir)).expect("bundled rulebook");
    let (_, case) = cases(Path::new(dir))
        .expect("cases")
        .into_iter()
        .next()
        .expect("a case");
    let line = traced(&rb, &case).expect("a trace");
    let mut json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    let long = vec!["1"; 50_000].join(" + ");
    let step = json["trace"]["events"]
        .as_array_mut()
        .and_then(|events| events.iter_mut().find(|e| e["event"] == "step"))
        .expect("a step event");
    step["formula"] = serde_json::Value::String(long.clone());
    let v = verdict(&rb, &json.to_string(), &case);
    let finding = v
        .findings
        .iter()
        .find(|f| f.recorded == long)
        .expect("the changed formula is named");
    let shown = finding.to_string();
    assert!(shown.len() < 1_000, "{} bytes shown", shown.len());
    assert!(
        shown.contains(&format!("… ({} bytes), follows ", long.len())),
        "{shown}"
    );
}

/// The Luma example payslip, its rulebook, and its traced line as JSON.
fn luma_payslip() -> (Rulebook, serde_json::Value, serde_json::Value) {
    let rb = load_rulebook(Path::new("rulebooks/luma-payroll/v3")).expect("luma");
    let text = std::fs::read_to_string("examples/luma-payroll/payslip.json").expect("example");
    let case: serde_json::Value = serde_json::from_str(&text).expect("case JSON");
    let line = traced(&rb, &case).expect("traced");
    let json = serde_json::from_str(&line).expect("trace JSON");
    (rb, case, json)
}

fn findings(rb: &Rulebook, line: &serde_json::Value, case: &serde_json::Value) -> Vec<String> {
    let v = verdict(rb, &line.to_string(), case);
    v.findings.iter().map(|f| f.to_string()).collect()
}

/// A receipt built on input the case never gave does not verify against
/// that case: a record field the case leaves out given a value, a map
/// given a key, a list item's field filled in, a field the case gives
/// recorded as absent. Each was compared only where the case had a value.
#[test]
fn an_input_the_case_never_gave_does_not_follow() {
    let rb = part_rulebook(
        "gaps",
        "[inputs.pay]\ntype = \"record\"\nrequired = true\n\
         fields = { base = { type = \"money\", required = true }, bonus = { type = \"money\" }, \
         rate = { type = \"decimal\", default = \"0.5\" } }\n\
         [inputs.m]\ntype = \"map\"\nitems = { type = \"money\" }\n\
         [inputs.xs]\ntype = \"list\"\nitems = { type = \"record\", fields = { v = { type = \"money\", required = true }, w = { type = \"money\" } } }\n\
         [steps.part]\nexpr = \"pay.base + coalesce(pay.bonus, 0) + sum(values(m)) + sum([coalesce(x.w, 0) for x in xs])\"\n",
    );
    let case =
        serde_json::json!({"pay": {"base": "1000.00"}, "m": {"a": "1.00"}, "xs": [{"v": "1.00"}]});
    let line = traced(&rb, &case).expect("a trace");
    let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    assert!(findings(&rb, &json, &case).is_empty(), "{line}");
    // The default a field the case leaves out takes is recorded, and follows.
    assert!(line.contains(r#""rate":"0.5""#), "{line}");
    let input = |j: &mut serde_json::Value, name: &str| -> Option<serde_json::Value> {
        let inputs = j["trace"]["inputs"].as_array_mut()?;
        let at = inputs.iter().position(|i| i["name"] == name)?;
        Some(inputs[at]["value"].take())
    };
    type Edit<'a> = (&'a str, &'a dyn Fn(&mut serde_json::Value));
    let edits: [Edit; 5] = [
        ("pay", &|v| v["bonus"] = serde_json::json!("500.00")),
        ("pay", &|v| v["rate"] = serde_json::json!("0.7")),
        ("m", &|v| v["b"] = serde_json::json!("5.00")),
        ("xs", &|v| v[0]["w"] = serde_json::json!("7.00")),
        ("xs", &|v| v[0]["v"] = serde_json::Value::Null),
    ];
    for (name, edit) in edits {
        let mut j = json.clone();
        let mut value = input(&mut j, name).expect("the input recorded");
        edit(&mut value);
        let inputs = j["trace"]["inputs"].as_array_mut().expect("inputs");
        if let Some(i) = inputs.iter_mut().find(|i| i["name"] == name) {
            i["value"] = value.clone();
        }
        let found = findings(&rb, &j, &case);
        assert!(
            found
                .iter()
                .any(|f| f.contains(&format!("input {name}: input against the case"))),
            "{name} {value}: {found:?}"
        );
    }
}

/// Honest traces the verifier refused: a null inside a list, a map or a
/// record (read as absent, so `is_null` of it false, and a trace forged
/// to say so verified); a group with no items read by a step a check runs
/// first; a record field whose invalid value reads as its default.
#[test]
fn nulls_inside_values_empty_groups_and_defaults_read_as_the_engine_reads_them() {
    let follows = |rb: &Rulebook, case: serde_json::Value| {
        let line = traced(rb, &case).expect("a trace");
        let found: Vec<String> = verdict(rb, &line, &case)
            .findings
            .iter()
            .map(|f| f.to_string())
            .collect();
        assert!(found.is_empty(), "{case}: {found:?}");
        line
    };
    let nulls = part_rulebook(
        "nulls",
        "[inputs.xs]\ntype = \"list\"\nitems = { type = \"money\", nullable = true }\n\
         [inputs.mp]\ntype = \"map\"\nitems = { type = \"money\", nullable = true }\n\
         [inputs.rec]\ntype = \"record\"\nnullable = true\nfields = { f = { type = \"money\" } }\n\
         [steps.part]\nexpr = \"count([x for x in xs if is_null(x)]) + (if is_null(get(mp, 'k')) then 10 else 0) + (if is_null(rec.f) then 100 else 0)\"\n",
    );
    let line = follows(
        &nulls,
        serde_json::json!({"xs": [null, "1"], "mp": {"k": null, "j": "2"}, "rec": null}),
    );
    assert!(line.contains(r#"{"answer":{"part":"111.00"}"#), "{line}");
    // The same trace, its step and answer forged to read the nulls as absent.
    let forged = line
        .replace("\"111.00\"", "\"0.00\"")
        .replace("\"111\"", "\"0\"");
    let case = serde_json::json!({"xs": [null, "1"], "mp": {"k": null, "j": "2"}, "rec": null});
    assert!(!verdict(&nulls, &forged, &case).follows(), "{forged}");
    follows(
        &nulls,
        serde_json::json!({"xs": ["1"], "mp": {"j": "2"}, "rec": {}}),
    );

    let empty = part_rulebook(
        "empty",
        "[inputs.xs]\ntype = \"list\"\nitems = { type = \"decimal\" }\n\
         [per_item.g]\nover = \"xs\"\nitem = \"x\"\n\
         [per_item.g.steps.y]\nexpr = \"x * 2\"\n\
         [steps.part]\nexpr = \"sum(g.y)\"\n\
         [[checks]]\nwhen = \"part > 100\"\nreject = \"xs\"\n",
    );
    follows(&empty, serde_json::json!({"xs": []}));
    follows(&empty, serde_json::json!({}));
    follows(&empty, serde_json::json!({"xs": ["1", "2"]}));

    let defaults = part_rulebook(
        "defaults",
        "[inputs.r]\ntype = \"record\"\n[inputs.r.fields.tag]\ntype = \"text\"\ninvalid = \"absent\"\ndefault = \"none\"\n\
         [steps.part]\nexpr = \"if coalesce(r.tag, 'x') == 'none' then 1 else 0\"\n",
    );
    let line = follows(&defaults, serde_json::json!({"r": {"tag": 5}}));
    assert!(line.contains(r#"{"answer":{"part":"1.00"}"#), "{line}");
}

/// A step's condition is the rulebook's: `when children > 5 → held true`
/// (in either format) is no receipt; only what it held was compared.
#[test]
fn a_step_s_condition_formula_changed_does_not_follow() {
    let rb = part_rulebook(
        "cond",
        "[inputs.children]\ntype = \"integer\"\ndefault = 0\n\
         [steps.part]\nexpr = \"children * 125.50\"\nwhen = \"children > 0\"\notherwise = \"0\"\n",
    );
    let case = serde_json::json!({"children": 2});
    let line = traced(&rb, &case).expect("a trace");
    let compact = compact_line(&rb, &case, &line).expect("a compact trace");
    for line in [line, compact] {
        assert!(verdict(&rb, &line, &case).follows(), "{line}");
        let changed = line.replacen("\"children > 0\"", "\"children > 5\"", 1);
        assert_ne!(changed, line);
        let v = verdict(&rb, &changed, &case);
        let found: Vec<String> = v.findings.iter().map(|f| f.to_string()).collect();
        assert_eq!(
            found,
            ["step part: condition formula: recorded children > 5, follows children > 0"],
            "{changed}"
        );
    }
}

/// What a forged line claims besides the events: a rejection with no
/// check that rejects holding, an answer field the decision does not
/// have, another `gives` for a check, a read recorded twice, and a key
/// written twice (serde_json would keep the second).
#[test]
fn claims_beyond_the_events_are_checked() {
    let (rb, case, line) = luma_payslip();
    assert!(findings(&rb, &line, &case).is_empty());

    // A rejection claimed after the inputs were read and steps ran.
    let mut forged = line.clone();
    let error = serde_json::json!({ "path": "gross_pay", "message": "must not be negative" });
    forged["trace"]["outcome"] = serde_json::json!({ "kind": "rejected", "error": error });
    forged["trace"]["events"] = serde_json::json!([]);
    forged.as_object_mut().expect("object").remove("answer");
    forged["error"] = error.clone();
    assert_eq!(
        findings(&rb, &forged, &case),
        ["outcome: kind: recorded rejected after the inputs were read, follows no check held"]
    );
    // The same with nothing recorded is a rejection while validated:
    // taken as recorded, and said so.
    forged["trace"]["inputs"] = serde_json::json!([]);
    let v = verdict(&rb, &forged.to_string(), &case);
    assert!(v.follows() && v.rejected_while_validated);
    assert!(!verdict(&rb, &line.to_string(), &case).rejected_while_validated);

    let mut extra = line.clone();
    extra["answer"]["bonus_paid"] = serde_json::json!("10000.00");
    assert_eq!(
        findings(&rb, &extra, &case),
        ["answer bonus_paid: field: recorded 10000.00, follows none"]
    );

    let mut gives = line.clone();
    let events = gives["trace"]["events"].as_array_mut().expect("events");
    let check = events
        .iter_mut()
        .find(|e| e["event"] == "check")
        .expect("a check");
    let was = check["gives"].as_str().expect("gives").to_string();
    check["gives"] = serde_json::json!("reject gross_pay");
    assert_eq!(
        findings(&rb, &gives, &case),
        [format!(
            "check 1: gives: recorded reject gross_pay, follows {was}"
        )]
    );

    let mut twice = line.clone();
    let events = twice["trace"]["events"].as_array_mut().expect("events");
    let step = events
        .iter_mut()
        .find(|e| e["event"] == "step" && !e["reads"].as_array().expect("reads").is_empty())
        .expect("a step that reads");
    let at = step["step"].as_str().expect("name").to_string();
    let reads = step["reads"].as_array_mut().expect("reads");
    let first = reads[0].clone();
    reads.push(first.clone());
    let name = first["name"].as_str().expect("read name");
    // A finding shows a text without its quotes.
    let value = match &first["value"] {
        serde_json::Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    assert_eq!(
        findings(&rb, &twice, &case),
        [format!(
            "step {at}: read {name}: recorded {value}, follows recorded once"
        )]
    );

    // A lookup's reason is recomputed: the row's period, not another's.
    let mut why = line.clone();
    let events = why["trace"]["events"].as_array_mut().expect("events");
    let step = events
        .iter_mut()
        .find(|e| e["lookups"].as_array().is_some_and(|l| !l.is_empty()))
        .expect("a step with a lookup");
    let at = step["step"].as_str().expect("name").to_string();
    assert_eq!(
        step["lookups"][0]["why"],
        "2026-09 is within 2026-07…2026-12"
    );
    step["lookups"][0]["why"] = serde_json::json!("2026-09 is within 2026-01…2026-12");
    let found = findings(&rb, &why, &case);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with(&format!("step {at}: lookup: "))
            && found[0].ends_with("why: 2026-09 is within 2026-07…2026-12}"),
        "{found:?}"
    );

    // A table has no default to take (nor has any input declared without one).
    let mut default = line.clone();
    let inputs = default["trace"]["inputs"].as_array_mut().expect("inputs");
    let tables = inputs
        .iter_mut()
        .find(|i| i["name"] == "reference_tables")
        .expect("the table input");
    assert_eq!(tables["given"], "absent");
    tables["given"] = serde_json::json!("default");
    assert_eq!(
        findings(&rb, &default, &case),
        ["input reference_tables: given: recorded default, follows not default: it has none"]
    );

    let text = line.to_string();
    let net = line["answer"]["net_pay"].to_string();
    let dup = text.replacen(
        &format!("\"net_pay\":{net}"),
        &format!("\"net_pay\":\"9999.99\",\"net_pay\":{net}"),
        1,
    );
    assert_ne!(dup, text);
    let e = verify_line(&rb, &dup, Some(&case)).expect_err("refused");
    assert_eq!(e.code(), "audit::shape");
    assert!(
        e.to_string()
            .contains("\"net_pay\" is written twice in $.answer"),
        "{e}"
    );
}

/// A trace of the case written another way does not follow the case: a
/// decimal's scale is as written (`"2.34500"` is not `"2.345"`: a
/// `decimal` answer then writes the other scale), a text is its characters
/// (`"2.05"` is not `"2.050"`); both were compared as numbers, by value.
#[test]
fn a_trace_of_another_spelling_of_the_case_does_not_follow() {
    use serde_json::json;
    let rb = load_rulebook(Path::new("tests/lang")).expect("tests/lang");
    for (written, other, input) in [
        (json!({"x": "2.34500"}), json!({"x": "2.345"}), "x"),
        (
            json!({"x": "1", "code": "2.05"}),
            json!({"x": "1", "code": "2.050"}),
            "code",
        ),
    ] {
        let line = traced(&rb, &written).expect("a trace");
        assert!(verdict(&rb, &line, &written).follows(), "{line}");
        let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
        let found = findings(&rb, &json, &other);
        assert!(
            found
                .iter()
                .any(|f| f.starts_with(&format!("input {input}: input against the case"))),
            "{other}: {found:?}"
        );
    }
}

/// A text read through a `pattern` agrees with the case by its groups: the
/// receipt of tax code K1000L verified for a case giving K1257L (another
/// allowance, another tax), and for an invalid code.
#[test]
fn a_code_read_through_a_pattern_is_compared_with_the_case() {
    use serde_json::json;
    let rb = load_rulebook(Path::new("examples/regional-payroll/v2026")).expect("regional");
    let case = |code: &str| json!({"tax_code": code, "tax_month": 1, "gross_pay": "3000.00", "category": "A"});
    let line = traced(&rb, &case("K1000L")).expect("a trace");
    assert!(verdict(&rb, &line, &case("K1000L")).follows(), "{line}");
    let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    for other in ["K1257L", "K12L"] {
        let found = findings(&rb, &json, &case(other));
        assert!(
            found
                .iter()
                .any(|f| f.starts_with("input tax_code: input against the case")),
            "{other}: {found:?}"
        );
    }
}

/// An answer's numbers are as the engine writes them, not only their
/// values: an `integer` field a JSON integer (`12570`, not `12570.0`,
/// `"12570"` or `1.257e4`), a money field without a sign on zero.
#[test]
fn answer_numbers_are_written_as_the_engine_writes_them() {
    use serde_json::json;
    let rb = load_rulebook(Path::new("examples/regional-payroll/v2026")).expect("regional");
    let case =
        json!({"tax_code": "K1257L", "tax_month": 1, "gross_pay": "3000.00", "category": "A"});
    let line = traced(&rb, &case).expect("a trace");
    let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    assert!(findings(&rb, &json, &case).is_empty(), "{line}");
    assert_eq!(json["answer"]["annual_allowance"], json!(12570));
    assert_eq!(json["answer"]["pension"], json!("0.00"));
    let forged: [(&str, serde_json::Value); 5] = [
        ("annual_allowance", json!(12570.0)),
        ("annual_allowance", json!("12570")),
        (
            "annual_allowance",
            serde_json::from_str("1.257e4").expect("a number"),
        ),
        ("pension", json!("-0.00")),
        ("pension", json!("+0.00")),
    ];
    for (field, value) in forged {
        let mut j = json.clone();
        j["answer"][field] = value.clone();
        let found = findings(&rb, &j, &case);
        assert!(
            found.len() == 1 && found[0].starts_with(&format!("answer {field}: value: ")),
            "{field} {value}: {found:?}"
        );
    }
}

/// A line a check rejects carries that check's error, rendered from the
/// steps, and no answer: an answer in its place passed, and so did any
/// error text. An input declared without `invalid = "absent"` is never
/// recorded `given: "invalid"` (a receipt that dropped the case's
/// deduction as invalid passed, with another net pay).
#[test]
fn a_rejection_and_an_invalid_input_are_what_the_rules_give() {
    use serde_json::json;
    let rb = load_rulebook(Path::new("rulebooks/luma-payroll/v3")).expect("luma");
    let case = json!({"task": "payslip", "gross_pay": "2000.00", "payroll_month": "2026-04",
        "allowed_deduction": "300.01"});
    let line = traced(&rb, &case).expect("a trace");
    let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    assert!(findings(&rb, &json, &case).is_empty(), "{line}");
    let error = json!({"path": "allowed_deduction",
        "message": "300.01 exceeds the deduction cap 300.00 (R4)"});
    assert_eq!(json["error"], error);
    let mut answered = json.clone();
    let object = answered.as_object_mut().expect("object");
    object.remove("error");
    object.insert(
        "answer".into(),
        json!({"decision": "calculate", "net_pay": "1700.00"}),
    );
    assert_eq!(
        findings(&rb, &answered, &case),
        [
            "outcome: answer: recorded {\"decision\":\"calculate\",\"net_pay\":\"1700.00\"}, follows none: a check rejects".to_string(),
            format!("error: rejection: recorded null, follows {error}"),
        ]
    );
    let mut reworded = json.clone();
    reworded["trace"]["outcome"]["error"]["message"] =
        json!("300.00 exceeds the deduction cap 300.00 (R4)");
    let found = findings(&rb, &reworded, &case);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("outcome error: rejection: recorded "),
        "{found:?}"
    );

    let (rb, case, line) = luma_payslip();
    let mut invalid = line.clone();
    let inputs = invalid["trace"]["inputs"].as_array_mut().expect("inputs");
    let deduction = (inputs.iter_mut())
        .find(|i| i["name"] == "allowed_deduction")
        .expect("the deduction");
    deduction["given"] = json!("invalid");
    deduction["value"] = serde_json::Value::Null;
    let found = findings(&rb, &invalid, &case);
    assert!(
        found.contains(&"input allowed_deduction: given: recorded invalid, follows not invalid: the input refuses an invalid value".to_string()),
        "{found:?}"
    );
}

/// The outcome of verifying `line` against `case`: its findings' places
/// and kinds, or the error that refused it.
fn outcome_of(rb: &Rulebook, line: &serde_json::Value, case: &serde_json::Value) -> String {
    match verify_line(rb, &line.to_string(), Some(case)) {
        Err(e) => format!("refused: {e}"),
        Ok(v) if v.follows() => "follows".into(),
        Ok(v) => v
            .findings
            .iter()
            .map(|f| format!("{} {}", f.at, f.what))
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// A change made to a report table of a trace line.
type Edit<'a> = &'a dyn Fn(&mut serde_json::Value);

/// A payslip's report as a reader reads it: its column titles, its totals'
/// labels, a cell per column. An extra column or total, titles swapped, a
/// label renamed all passed as following, in both formats.
#[test]
fn a_report_s_layout_changed_does_not_follow() {
    let dir = "rulebooks/paie-fr/v2026";
    let rb = load_rulebook(Path::new(dir)).expect("paie-fr");
    let case: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("examples/paie-fr/level3-cadre.json").expect("the example"),
    )
    .expect("JSON");
    let line = traced(&rb, &case).expect("traced");
    let one: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    let compact = compact_line(&rb, &case, &line).expect("compact");
    let two: serde_json::Value = serde_json::from_str(&compact).expect("JSON");
    let name = "bulletin";
    let edits: [(Edit, String); 6] = [
        (
            &|r| {
                if let Some(h) = r["header"].as_array_mut() {
                    h.push("Bonus".into());
                }
                for row in r["rows"].as_array_mut().into_iter().flatten() {
                    if let Some(cells) = row.as_array_mut() {
                        cells.push("1000.00".into());
                    }
                }
            },
            format!("report {name} header"),
        ),
        (
            &|r| {
                if let Some(t) = r["totals"].as_array_mut() {
                    t.push(serde_json::json!(["Prime", "5000.00"]));
                }
            },
            format!("report {name} totals"),
        ),
        (
            &|r| {
                if let Some(h) = r["header"].as_array_mut() {
                    h.swap(3, 5);
                }
            },
            format!("report {name} header"),
        ),
        (
            &|r| r["totals"][5][0] = "Net (après prime)".into(),
            "label".into(),
        ),
        (
            &|r| {
                if let Some(cells) = r["rows"][0].as_array_mut() {
                    cells.push("".into());
                }
            },
            "cells".into(),
        ),
        (
            &|r| r["title"] = "Another payslip".into(),
            format!("report {name} title"),
        ),
    ];
    for (k, (edit, says)) in edits.iter().enumerate() {
        for json in [&one, &two] {
            let mut changed = json.clone();
            edit(&mut changed["trace"]["reports"][0]);
            let got = outcome_of(&rb, &changed, &case);
            assert!(got.contains(says.as_str()), "edit {k}: {says}: {got}");
        }
    }
}

/// A key the verifier does not read passed unverified below the top of the
/// line (in an event, a read, an input, the outcome, a report, a compact
/// step or its definition), and a check's fields of the wrong type were
/// reported as values never recorded (`check 0` for an index of `"1"`).
#[test]
fn a_key_or_type_out_of_shape_anywhere_is_refused() {
    let rb = super::rulebook("rulebooks/luma-payroll/v3");
    let case: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("examples/luma-payroll/payslip.json").expect("the example"),
    )
    .expect("JSON");
    let line = traced(&rb, &case).expect("a trace");
    let one: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    let two: serde_json::Value =
        serde_json::from_str(&compact_line(&rb, &case, &line).expect("compact")).expect("JSON");
    assert_eq!(outcome_of(&rb, &one, &case), "follows");
    assert_eq!(outcome_of(&rb, &two, &case), "follows");
    let events =
        |j: &serde_json::Value| j["trace"]["events"].as_array().cloned().unwrap_or_default();
    let first = |j: &serde_json::Value, kind: Option<&str>| {
        events(j)
            .iter()
            .position(|e| e.get("event").and_then(|k| k.as_str()) == kind)
            .expect("such an event")
    };
    let check = first(&one, Some("check"));
    let step = first(&one, Some("step"));
    let read = events(&one)
        .iter()
        .position(|e| e["reads"].as_array().is_some_and(|r| !r.is_empty()))
        .expect("an event that reads");
    let cases: Vec<(serde_json::Value, &str, &str)> = vec![
        (
            serde_json::json!(["trace", "events", check, "extra"]),
            "1",
            "holds an unknown key \"extra\"",
        ),
        (
            serde_json::json!(["trace", "events", step, "extra"]),
            "1",
            "holds an unknown key \"extra\"",
        ),
        (
            serde_json::json!(["trace", "events", read, "reads", 0, "extra"]),
            "1",
            "holds an unknown key \"extra\"",
        ),
        (
            serde_json::json!(["trace", "inputs", 0, "extra"]),
            "1",
            "holds an unknown key \"extra\"",
        ),
        (
            serde_json::json!(["trace", "outcome", "extra"]),
            "1",
            "holds an unknown key \"extra\"",
        ),
        (
            serde_json::json!(["trace", "events", check, "index"]),
            "\"1\"",
            "\"index\" is not a check's position",
        ),
        (
            serde_json::json!(["trace", "events", check, "index"]),
            "0",
            "\"index\" is not a check's position",
        ),
        (
            serde_json::json!(["trace", "events", check, "held"]),
            "\"yes\"",
            "\"held\" is not true or false",
        ),
        (
            serde_json::json!(["trace", "events", check, "gives"]),
            "5",
            "\"gives\" is not a text",
        ),
        (
            serde_json::json!(["trace", "events", check, "when"]),
            "1",
            "\"when\" is neither a formula nor null",
        ),
    ];
    for (path, value, says) in &cases {
        let mut changed = one.clone();
        let path = path.as_array().expect("a path");
        let mut at = &mut changed;
        for key in &path[..path.len() - 1] {
            at = match key {
                serde_json::Value::String(k) => &mut at[k.as_str()],
                n => &mut at[n.as_u64().expect("an index") as usize],
            };
        }
        let last = path[path.len() - 1].as_str().expect("a key");
        at[last] = serde_json::from_str(value).expect("JSON");
        let got = outcome_of(&rb, &changed, &case);
        assert!(
            got.starts_with("refused") && got.contains(says),
            "{path:?} = {value}: {got}"
        );
    }
    // A compact step event and its definition.
    let step = first(&two, None);
    let mut changed = two.clone();
    changed["trace"]["events"][step]["extra"] = 1.into();
    let got = outcome_of(&rb, &changed, &case);
    assert!(got.contains("holds an unknown key \"extra\""), "{got}");
    let mut changed = two.clone();
    changed["trace"]["steps"][0]["extra"] = 1.into();
    let got = outcome_of(&rb, &changed, &case);
    assert!(
        got.contains("step definition 0 holds an unknown key \"extra\""),
        "{got}"
    );
}

/// `--cases` read a case line that is not JSON as no case, and verified
/// the trace beside it without its inputs (exit 0, "follows"); `--case`
/// refused the same line.
#[test]
fn a_case_line_that_is_not_json_is_refused_beside_a_trace() {
    let dir = std::env::temp_dir().join(format!("bareme-vt-cases-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let rb = "rulebooks/sales-tax/v1";
    let cart = std::fs::read_to_string("examples/sales-tax/cart.json").expect("the example");
    let one: serde_json::Value = serde_json::from_str(&cart).expect("JSON");
    let cases = dir.join("cases.jsonl");
    std::fs::write(&cases, format!("{one}\n")).expect("write");
    let bin = env!("CARGO_BIN_EXE_bareme");
    let run = |args: &[&str]| {
        std::process::Command::new(bin)
            .args(args)
            .output()
            .expect("runs")
    };
    let o = run(&[
        "eval",
        rb,
        "--batch",
        cases.to_str().expect("utf-8"),
        "--trace",
        "json",
    ]);
    assert!(o.status.success());
    let traces = dir.join("traces.jsonl");
    std::fs::write(&traces, &o.stdout).expect("write");
    let verify = |cases_text: &str| {
        std::fs::write(&cases, cases_text).expect("write");
        let o = run(&[
            "verify-trace",
            traces.to_str().expect("utf-8"),
            "--rulebook",
            rb,
            "--cases",
            cases.to_str().expect("utf-8"),
        ]);
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).to_string(),
        )
    };
    assert_eq!(verify(&format!("{one}\n")).0, Some(0));
    for bad in [
        "garbage\n".to_string(),
        format!("\u{feff}{one}\n"),
        format!("{one} x\n"),
    ] {
        let (code, stderr) = verify(&bad);
        assert_eq!(code, Some(2), "{bad:?}: {stderr}");
        assert!(
            stderr.contains("error: case line 1: not JSON")
                && stderr.contains("and trace line 1 is a traced evaluation of a case"),
            "{stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// A compact trace's parts the expansion would drop (a truth value past a
/// step's citations, a fourth part of a rounding point, a seventh of a
/// rounding, `held` on a step without a condition) and an `ablation` that
/// is not a text were read as if absent, and the trace said to follow
/// (hostile probe): each is refused. So is an answer written `+1377.42`.
#[test]
fn what_the_expansion_would_drop_is_refused() {
    let rb = super::rulebook("rulebooks/paie-fr/v2026");
    let case: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("examples/paie-fr/level4-entry.json").expect("the example"),
    )
    .expect("JSON");
    let line = traced(&rb, &case).expect("a trace");
    let two: serde_json::Value =
        serde_json::from_str(&compact_line(&rb, &case, &line).expect("compact")).expect("JSON");
    assert_eq!(outcome_of(&rb, &two, &case), "follows");
    let defs = two["trace"]["steps"]
        .as_array()
        .expect("definitions")
        .clone();
    let events = two["trace"]["events"].as_array().expect("events").clone();
    let def_of = |e: &serde_json::Value| &defs[e["s"].as_u64().expect("a step event") as usize];
    let find = |what: &str, test: &dyn Fn(&serde_json::Value) -> bool| {
        events
            .iter()
            .position(|e| e.get("s").is_some() && test(e))
            .unwrap_or_else(|| panic!("paie-fr's trace has {what}"))
    };
    let cited = find("a step with citations", &|e| {
        def_of(e).get("cites").is_some()
    });
    let rounded = find("a rounding point", &|e| e.get("round").is_some());
    let inner = find("a rounding inside a formula", &|e| {
        e["roundings"].as_array().is_some_and(|r| !r.is_empty())
    });
    let plain = find("a step without a condition", &|e| {
        def_of(e).get("condition").is_none()
    });
    type Change = Box<dyn Fn(&mut serde_json::Value)>;
    let changes: Vec<(Change, &str)> = vec![
        (
            Box::new(move |t| {
                t["events"][cited]["cites"]
                    .as_array_mut()
                    .unwrap()
                    .push(true.into())
            }),
            "truth values for the",
        ),
        (
            Box::new(move |t| {
                t["events"][cited]["cites"].as_array_mut().unwrap().pop();
            }),
            "truth values for the",
        ),
        (
            Box::new(move |t| {
                t["events"][rounded]["round"]
                    .as_array_mut()
                    .unwrap()
                    .push(1.into())
            }),
            "a rounding point is [MODE, PLACES, MARGIN]",
        ),
        (
            Box::new(move |t| {
                t["events"][inner]["roundings"][0]
                    .as_array_mut()
                    .unwrap()
                    .push("junk".into())
            }),
            "a rounding is [AT, MODE, PLACES, BEFORE, AFTER, MARGIN]",
        ),
        (
            Box::new(move |t| t["events"][plain]["held"] = true.into()),
            "\"held\" on a step without a condition",
        ),
        (
            Box::new(|t| t["ablation"] = serde_json::json!(["half_even"])),
            "\"trace.ablation\" is not a text naming ablations",
        ),
    ];
    for (change, says) in &changes {
        let mut changed = two.clone();
        change(&mut changed["trace"]);
        let got = outcome_of(&rb, &changed, &case);
        assert!(
            got.starts_with("refused") && got.contains(says),
            "{says}: {got}"
        );
    }
    // An answer field is checked as the engine writes it, not only by value.
    let net = two["answer"]["net_a_payer"]
        .as_str()
        .expect("net pay")
        .to_string();
    for text in [format!("+{net}"), format!("0{net}"), format!("{net}0")] {
        let mut changed = two.clone();
        changed["answer"]["net_a_payer"] = text.clone().into();
        assert_eq!(
            outcome_of(&rb, &changed, &case),
            "answer net_a_payer value",
            "{text}"
        );
    }
}

/// `eval --batch` answers a blank case line with an error line; `--cases`
/// skipped blank lines, so every trace after one was paired with the next
/// case (exit 2, "the cases file is shorter"). A line with a key written
/// twice is no case either: its error line is let by too.
#[test]
fn a_blank_case_line_pairs_with_its_error_line() {
    let dir = std::env::temp_dir().join(format!("bareme-vt-blank-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let rb = "rulebooks/luma-payroll/v3";
    let case = std::fs::read_to_string("examples/luma-payroll/payslip.json").expect("the example");
    let one: serde_json::Value = serde_json::from_str(&case).expect("JSON");
    let cases = dir.join("cases.jsonl");
    // The last line writes a key twice: the engine reads no case there.
    std::fs::write(&cases, format!("{one}\n\n{one}\n{{\"a\":1,\"a\":2}}\n")).expect("write");
    let bin = env!("CARGO_BIN_EXE_bareme");
    let path = |p: &std::path::Path| p.to_str().expect("utf-8").to_string();
    let o = std::process::Command::new(bin)
        .args(["eval", rb, "--batch", &path(&cases), "--trace", "json"])
        .output()
        .expect("runs");
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 4);
    let traces = dir.join("traces.jsonl");
    std::fs::write(&traces, &o.stdout).expect("write");
    let o = std::process::Command::new(bin)
        .args([
            "verify-trace",
            &path(&traces),
            "--rulebook",
            rb,
            "--cases",
            &path(&cases),
        ])
        .output()
        .expect("runs");
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        out.starts_with("2 of 2 traces follow")
            && out.contains("(2 unread case lines without a trace)"),
        "{out}"
    );
    // The first receipt swapped for an error line without a trace: its
    // case line is JSON, so it was read and traced (hostile probe: the
    // swap was counted an unread line and the batch said to follow).
    let written = std::fs::read_to_string(&traces).expect("read");
    let blank_error = written.lines().nth(1).expect("the blank line's error");
    let swapped: Vec<&str> = std::iter::once(blank_error)
        .chain(written.lines().skip(1))
        .collect();
    std::fs::write(&traces, swapped.join("\n") + "\n").expect("write");
    let o = std::process::Command::new(bin)
        .args([
            "verify-trace",
            &path(&traces),
            "--rulebook",
            rb,
            "--cases",
            &path(&cases),
        ])
        .output()
        .expect("runs");
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.starts_with("line 1: case: trace: recorded an error line without a trace, {\"error\":")
            && out.contains("follows a traced evaluation: the case line is JSON")
            && out.contains("1 of 2 traces follow")
            && out.contains("(2 unread case lines without a trace)"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// What the case says of an input it leaves out or gives `null` is one
/// `given`, as validation records it: a receipt claiming another passed
/// wherever no step read the input (hostile probe: `absent` for a `null`,
/// `absent` for an input that took its default, `null` for a key the case
/// leaves out).
#[test]
fn the_given_of_an_input_left_out_or_null_is_the_one_the_case_says() {
    let rb = part_rulebook(
        "givens",
        "[inputs.a]\ntype = \"money\"\ndefault = \"5.00\"\n\
         [inputs.b]\ntype = \"money\"\n\
         [inputs.c]\ntype = \"money\"\nnullable = true\n\
         [inputs.x]\ntype = \"money\"\nrequired = true\n\
         [steps.part]\nexpr = \"x\"\n",
    );
    let given = |line: &serde_json::Value, name: &str| -> String {
        let inputs = line["trace"]["inputs"].as_array().expect("inputs");
        let i = inputs.iter().find(|i| i["name"] == name).expect("recorded");
        i["given"].as_str().expect("a text").to_string()
    };
    let with = |line: &serde_json::Value, name: &str, claim: &str| {
        let mut j = line.clone();
        let inputs = j["trace"]["inputs"].as_array_mut().expect("inputs");
        let i = inputs
            .iter_mut()
            .find(|i| i["name"] == name)
            .expect("recorded");
        i["given"] = claim.into();
        if claim != "default" {
            i["value"] = serde_json::Value::Null;
        }
        j
    };
    // Left out: the default, else absent; `null`: the default of an input
    // that keeps no null, null where it is kept or there is no default.
    for (case, want) in [
        (
            serde_json::json!({"x": "1.00"}),
            [("a", "default"), ("b", "absent"), ("c", "absent")],
        ),
        (
            serde_json::json!({"x": "1.00", "a": null, "b": null, "c": null}),
            [("a", "default"), ("b", "null"), ("c", "null")],
        ),
    ] {
        let line: serde_json::Value =
            serde_json::from_str(&traced(&rb, &case).expect("a trace")).expect("JSON");
        assert!(findings(&rb, &line, &case).is_empty(), "{line}");
        for (name, follows) in want {
            assert_eq!(given(&line, name), follows, "{case}");
            for claim in ["absent", "null", "default", "value"] {
                if claim == follows {
                    continue;
                }
                let found = findings(&rb, &with(&line, name, claim), &case);
                let named = format!("input {name}: given: recorded {claim}, follows ");
                assert!(
                    found.iter().any(|f| f.starts_with(&named)),
                    "{case} {name} {claim}: {found:?}"
                );
            }
        }
    }
}

/// A supplied table's input is recorded as the rows the case gave
/// (`rows first-half, second-half of table schedule`): another text
/// verified (hostile probe).
#[test]
fn a_supplied_tables_rows_are_named_as_the_case_gives_them() {
    let rb = load_rulebook(Path::new("rulebooks/luma-payroll/v3")).expect("luma");
    let text = std::fs::read_to_string(
        "rulebooks/luma-payroll/v3/cases/23-supplied-tables-distractor-row.toml",
    )
    .expect("the case");
    let file: toml::Table = toml::from_str(&text).expect("TOML");
    let case: serde_json::Value =
        serde_json::from_str(file["case"].as_str().expect("the case text")).expect("JSON");
    let mut line: serde_json::Value =
        serde_json::from_str(&traced(&rb, &case).expect("a trace")).expect("JSON");
    assert!(findings(&rb, &line, &case).is_empty());
    let inputs = line["trace"]["inputs"].as_array_mut().expect("inputs");
    let tables = inputs
        .iter_mut()
        .find(|i| i["name"] == "reference_tables")
        .expect("recorded");
    assert_eq!(
        tables["value"],
        "rows first-half, second-half of table schedule"
    );
    tables["value"] = "rows first-half of table schedule".into();
    assert_eq!(
        findings(&rb, &line, &case),
        ["input reference_tables: value: recorded rows first-half of table schedule, follows rows first-half, second-half of table schedule"]
    );
}

/// A map is read in the case's order (`values`, comprehensions): a trace
/// recording its entries in another order verified (hostile probe).
#[test]
fn a_map_recorded_in_another_order_does_not_follow() {
    let rb = part_rulebook(
        "order",
        "[inputs.m]\ntype = \"map\"\nitems = { type = \"money\" }\n\
         [steps.part]\nexpr = \"sum(values(m))\"\n",
    );
    let case = serde_json::json!({"m": {"b": "2.00", "a": "1.00"}});
    let line = traced(&rb, &case).expect("a trace");
    let mut json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    assert!(findings(&rb, &json, &case).is_empty(), "{line}");
    let inputs = json["trace"]["inputs"].as_array_mut().expect("inputs");
    assert_eq!(inputs[0]["value"].to_string(), r#"{"b":"2.00","a":"1.00"}"#);
    inputs[0]["value"] = serde_json::json!({"a": "1.00", "b": "2.00"});
    let found = findings(&rb, &json, &case);
    assert!(
        found
            .iter()
            .any(|f| f.starts_with("input m: input against the case")),
        "{found:?}"
    );
}

/// `given: "invalid"` is the validator's to say, which the verifier does
/// not share; but a value the declaration alone finds valid is not
/// invalid: the receipt of a case whose bonus was "x" (pay 1000.00)
/// verified for the case whose bonus is "500.00" (pay 1500.00), at the
/// top level and inside a record (hostile probe).
#[test]
fn a_plainly_valid_value_called_invalid_does_not_follow() {
    let rb = part_rulebook(
        "invalid",
        "[inputs.salary]\ntype = \"money\"\nrequired = true\n\
         [inputs.bonus]\ntype = \"money\"\ninvalid = \"absent\"\n\
         [inputs.extra]\ntype = \"record\"\nfields = { tip = { type = \"money\", invalid = \"absent\" } }\n\
         [steps.part]\nexpr = \"salary + coalesce(bonus, 0) + coalesce(extra.tip, 0)\"\n",
    );
    let case =
        serde_json::json!({"salary": "1000.00", "bonus": "500.00", "extra": {"tip": "7.00"}});
    for (minted_from, named) in [
        (
            serde_json::json!({"salary": "1000.00", "bonus": "x", "extra": {"tip": "7.00"}}),
            "input bonus: given: recorded invalid, follows value: the case's value is valid by the input's declaration",
        ),
        (
            serde_json::json!({"salary": "1000.00", "bonus": "500.00", "extra": {"tip": "7.001"}}),
            "input extra: input against the case: recorded {\"tip\":null}, follows {\"tip\":\"7.00\"}",
        ),
    ] {
        let line = traced(&rb, &minted_from).expect("a trace");
        // Honest against the case it was made of: the invalid value is
        // taken as recorded.
        assert!(verdict(&rb, &line, &minted_from).follows(), "{line}");
        let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
        let found = findings(&rb, &json, &case);
        assert!(found.iter().any(|f| f == named), "{found:?}");
    }
}

/// As above, for a whole number, a date, a month and a decimal read from
/// a JSON number: each was judged no more, so a receipt minted from a case
/// with that input invalid verified for a case where it is valid.
#[test]
fn a_valid_number_date_or_month_called_invalid_does_not_follow() {
    let rb = part_rulebook(
        "invalid_kinds",
        "[inputs.salary]\ntype = \"money\"\nrequired = true\n\
         [inputs.n]\ntype = \"integer\"\nmin = \"0\"\nmax = \"9\"\ninvalid = \"absent\"\n\
         [inputs.d]\ntype = \"date\"\ninvalid = \"absent\"\n\
         [inputs.m]\ntype = \"month\"\ninvalid = \"absent\"\n\
         [inputs.r]\ntype = \"decimal\"\nnumbers = \"plain\"\nplaces = 2\ninvalid = \"absent\"\n\
         [steps.part]\nexpr = \"salary + coalesce(n, 0) + coalesce(r, 0) + (if is_missing(d) then 0 else 10) + (if is_missing(m) then 0 else 100)\"\n",
    );
    let valid = serde_json::json!({"salary": "1000.00", "n": 3, "d": "2026-02-28", "m": "2026-02", "r": 0.25});
    let line = traced(&rb, &valid).expect("a trace");
    let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    assert_eq!(json["answer"]["part"], "1113.25", "{line}");
    assert!(findings(&rb, &json, &valid).is_empty(), "{line}");
    for (name, bad) in [
        ("n", serde_json::from_str("-0").expect("JSON")),
        ("n", serde_json::from_str("2.0").expect("JSON")),
        ("n", serde_json::json!(10)),
        ("d", serde_json::json!("2026-02-30")),
        ("m", serde_json::json!("2026-13")),
        ("r", serde_json::json!(0.125)),
    ] {
        let mut minted_from = valid.clone();
        minted_from[name] = bad;
        let line = traced(&rb, &minted_from).expect("a trace");
        assert!(verdict(&rb, &line, &minted_from).follows(), "{line}");
        let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
        let found = findings(&rb, &json, &valid);
        let named = format!(
            "input {name}: given: recorded invalid, follows value: the case's value is valid by the input's declaration"
        );
        assert!(found.contains(&named), "{name}: {found:?}");
    }
}

/// `null` given to an input that is not nullable reads as absent
/// (`is_null` of it false), as the engine reads it: the verifier read it
/// as null, so the honest trace failed and one forged to say `true`
/// followed (hostile probe). A map with `keys` is read in their order,
/// whatever the case's: its honest trace failed.
#[test]
fn a_null_the_input_does_not_keep_and_declared_keys_read_as_the_engine_reads_them() {
    let rb = part_rulebook(
        "nulls",
        "[inputs.t]\ntype = \"text\"\n\
         [inputs.rates]\ntype = \"map\"\nkeys = [\"low\", \"high\"]\nitems = { type = \"decimal\" }\n\
         [steps.part]\nexpr = \"if is_null(t) then 1 else sum(values(rates))\"\n",
    );
    let case = serde_json::json!({"t": null, "rates": {"high": "0.2", "low": "0.1"}});
    let line = traced(&rb, &case).expect("a trace");
    let json: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    assert_eq!(json["answer"]["part"], "0.30", "{line}");
    assert!(findings(&rb, &json, &case).is_empty(), "{line}");
    let forged = line
        .replace("\"0.30\"", "\"1.00\"")
        .replace("\"0.3\"", "\"1\"");
    let forged: serde_json::Value = serde_json::from_str(&forged).expect("JSON");
    assert_ne!(forged, json);
    let found = findings(&rb, &forged, &case);
    assert!(
        found
            .iter()
            .any(|f| f.starts_with("step part: value: recorded 1")),
        "{found:?}"
    );
}

/// A receipt whose answer holds the right values in another order than
/// the engine writes them (the decision's) is not what `eval` printed:
/// two fields swapped, at the top or in an item, verified.
#[test]
fn an_answer_with_its_fields_reordered_does_not_follow() {
    let (rb, case, json) = luma_payslip();
    assert!(findings(&rb, &json, &case).is_empty());
    let swapped = |object: &serde_json::Value, a: &str, b: &str| -> serde_json::Value {
        let map = object.as_object().expect("an object");
        let mut out = serde_json::Map::new();
        // Each key, with its own value, where the other stood.
        for k in map.keys() {
            let k = match k.as_str() {
                k if k == a => b,
                k if k == b => a,
                k => k,
            };
            out.insert(k.to_string(), map[k].clone());
        }
        serde_json::Value::Object(out)
    };
    let mut j = json.clone();
    j["answer"] = swapped(&json["answer"], "gross_pay", "net_pay");
    let found = findings(&rb, &j, &case);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("answer: order: "), "{found:?}");

    let rb = load_rulebook(Path::new("rulebooks/sales-tax/v1")).expect("sales-tax");
    let text = std::fs::read_to_string("examples/sales-tax/cart.json").expect("example");
    let case: serde_json::Value = serde_json::from_str(&text).expect("case JSON");
    let json: serde_json::Value =
        serde_json::from_str(&traced(&rb, &case).expect("traced")).expect("JSON");
    assert!(findings(&rb, &json, &case).is_empty());
    let mut j = json.clone();
    let line = &json["answer"]["lines"][0];
    let keys: Vec<String> = line.as_object().expect("a line").keys().cloned().collect();
    j["answer"]["lines"][0] = swapped(line, &keys[0], &keys[1]);
    let found = findings(&rb, &j, &case);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("answer lines[0]: order: "),
        "{found:?}"
    );

    // An answer keyed by item (succession-fr's heirs by id): its items in
    // the group's order.
    let rb = load_rulebook(Path::new("rulebooks/succession-fr/v2026")).expect("succession");
    let file =
        std::fs::read_to_string("rulebooks/succession-fr/v2026/cases/01-spec-example-estate.toml")
            .expect("case file");
    let table: toml::Table = toml::from_str(&file).expect("TOML");
    let case: serde_json::Value =
        serde_json::from_str(table["case"].as_str().expect("case text")).expect("case JSON");
    let json: serde_json::Value =
        serde_json::from_str(&traced(&rb, &case).expect("traced")).expect("JSON");
    assert!(findings(&rb, &json, &case).is_empty());
    let heirs = &json["answer"]["beneficiaires"];
    let ids: Vec<String> = heirs.as_object().expect("keyed").keys().cloned().collect();
    assert!(ids.len() >= 2, "{heirs}");
    let mut j = json.clone();
    j["answer"]["beneficiaires"] = swapped(heirs, &ids[0], &ids[1]);
    let found = findings(&rb, &j, &case);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("answer beneficiaires: order: "),
        "{found:?}"
    );
}
