//! A trace changed in one place, at random over hundreds of traces, does
//! not follow, and the change is named where it was made.

use super::*;

/// A trace changed in one place, and where the change is.
struct Tampered {
    line: String,
    at: String,
    what: &'static str,
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

/// A group runs whole, so a receipt holds an event of every step of every
/// item: each per-item step event of a level-4 payslip left out (most are
/// read by a later step, which names the gap too; a few, such as a line's
/// `employee_part` that nothing reads, only this check can miss) is named
/// at its item, and an item left out whole names all its steps in order.
#[test]
fn a_per_item_step_left_out_is_named_at_its_item() {
    let dir = "rulebooks/paie-fr/v2026";
    let rb = load_rulebook(Path::new(dir)).expect("paie-fr");
    let (_, case) = cases(Path::new(dir))
        .expect("cases")
        .into_iter()
        .find(|(name, _)| name.starts_with("15-level-4"))
        .expect("case 15");
    let line: serde_json::Value =
        serde_json::from_str(&traced(&rb, &case).expect("traced")).expect("JSON");
    let events = line["trace"]["events"].as_array().expect("events").clone();
    let mut left_out = 0;
    for (i, ev) in events.iter().enumerate() {
        let (Some(item), Some(step)) = (ev["item"].as_str(), ev["step"].as_str()) else {
            continue;
        };
        let mut changed = line.clone();
        changed["trace"]["events"]
            .as_array_mut()
            .expect("events")
            .remove(i);
        let expected = format!(
            "item {item}: steps: recorded no event of {step}, follows an event of each step \
             of each item (a group runs whole)"
        );
        let found = findings(&rb, &changed, &case);
        assert!(found.contains(&expected), "{item}.{step}: {found:#?}");
        left_out += 1;
    }
    assert!(left_out > 200, "only {left_out} per-item events");

    let mut changed = line.clone();
    changed["trace"]["events"]
        .as_array_mut()
        .expect("events")
        .retain(|ev| ev["item"] != "lines[2]");
    // The steps of a line, as another line's events name them.
    let mut steps: Vec<&str> = events
        .iter()
        .filter(|ev| ev["item"] == "lines[3]")
        .filter_map(|ev| ev["step"].as_str())
        .collect();
    steps.sort_unstable();
    assert!(steps.len() > 5, "{steps:?}");
    let prefix = "item lines[2]: steps: recorded no event of ";
    let found = findings(&rb, &changed, &case);
    let named: Vec<&str> = found
        .iter()
        .filter_map(|f| f.strip_prefix(prefix))
        .filter_map(|f| f.split_once(", follows"))
        .map(|(names, _)| names)
        .collect();
    let [named] = named.as_slice() else {
        panic!("one finding for lines[2]: {found:#?}")
    };
    let mut named: Vec<&str> = named.split(", ").collect();
    named.sort_unstable();
    assert_eq!(named, steps);
}
