//! The inputs a trace records, each read by its declared kind and, with
//! the case, held to what the case gives: its value, and the `given` that
//! validation records of an input the case leaves out or gives `null`.

use serde_json::Value as Json;

use crate::model::{Input, InputKind, Rulebook, TableKind};
use crate::value::Value;

use super::calc::Calc;
use super::decode::{agrees, decode_in, encode, guess, plainly_valid, shown};
use super::walk::{text, State};

impl State<'_> {
    /// The recorded inputs, each read by its declared kind and, with the
    /// case, compared with what the case gives.
    pub fn inputs(&mut self, recorded: &[Json]) {
        let rb = self.rb;
        if !recorded.is_empty() && recorded.len() != rb.inputs.len() {
            self.find(
                "inputs",
                "the inputs recorded are not the rulebook's",
                recorded.len().to_string(),
                rb.inputs.len().to_string(),
            );
        }
        for (j, input) in recorded.iter().zip(&rb.inputs) {
            let name = text(j, "name").unwrap_or_default();
            let at = format!("input {name}");
            if name != *input.name {
                self.find(at, "name", name, input.name.to_string());
                continue;
            }
            let given = text(j, "given").unwrap_or_default();
            let value = j.get("value").unwrap_or(&Json::Null);
            let in_case = self.case.and_then(|c| c.get(&*input.name));
            let v = match decode_in(value, input, in_case) {
                // A `null` only a nullable input keeps; any other's reads
                // as absent (`is_null` of it false).
                Some(v) if given == "null" && v.is_missing() && input.nullable => Value::Null,
                Some(v) => v,
                None => {
                    self.find(&at, "value", shown(value), "a value of its kind".into());
                    guess(value)
                }
            };
            self.check_given(&at, input, &given, value);
            self.inputs.insert(input.name.clone(), (v, given));
        }
        // An input is ignored exactly when its `when` does not hold, over
        // the inputs as recorded.
        for (j, input) in recorded.iter().zip(&rb.inputs) {
            let given = text(j, "given").unwrap_or_default();
            if text(j, "name").as_deref() != Some(&*input.name) {
                continue;
            }
            let at = format!("input {}", input.name);
            let held = match &input.when {
                None => true,
                Some(when) => match Calc::new(rb, self, None, &[]).condition(&when.text) {
                    Ok(held) => held,
                    Err(e) => {
                        self.find(&at, "cannot recompute its condition", e, String::new());
                        continue;
                    }
                },
            };
            if held == (given == "ignored") {
                let follows = if held { "not ignored" } else { "ignored" };
                self.find(&at, "given", given, follows.into());
            }
        }
    }

    fn check_given(&mut self, at: &str, input: &Input, given: &str, value: &Json) {
        const GIVEN: [&str; 6] = ["value", "absent", "null", "default", "ignored", "invalid"];
        if !GIVEN.contains(&given) {
            return self.find(at, "given", given.into(), GIVEN.join(", "));
        }
        // Nothing given, or nothing read: no value (an invalid input read
        // as its default has the default).
        let no_value = match given {
            "absent" | "null" | "ignored" => !value.is_null(),
            "invalid" => {
                !value.is_null() && input.default.as_ref().is_none_or(|d| *value != encode(d))
            }
            _ => false,
        };
        if no_value {
            self.find(at, "value", shown(value), format!("none, as it is {given}"));
        }
        // Only an input declared `invalid = "absent"` reads an invalid
        // value (as absent, or its default); any other refuses the case.
        if given == "invalid" && !input.invalid_absent {
            self.find(
                at,
                "given",
                given.into(),
                "not invalid: the input refuses an invalid value".into(),
            );
        }
        let from_case = self.case.map(|c| c.get(&*input.name));
        if given == "default" {
            // As the engine writes it: `"1"`, not `"1.0"`.
            match &input.default {
                Some(d) if *value != encode(d) => {
                    self.find(at, "default", shown(value), encode(d).to_string());
                }
                Some(_) => {}
                // A table, or any input declared without a default, has none to take.
                None => self.find(at, "given", given.into(), "not default: it has none".into()),
            }
        }
        let Some(in_case) = from_case else { return };
        let table = matches!(input.kind, InputKind::Table { .. });
        // What the case says of an input it leaves out or gives `null`
        // (`case::validate`): a table's rows are absent; a `null` kept by
        // a nullable input is null; else the default when there is one.
        let follows = match in_case {
            Some(c) if !c.is_null() => "value",
            _ if table => "absent",
            Some(_) if input.nullable => "null",
            _ if input.default.is_some() => "default",
            Some(_) => "null",
            None => "absent",
        };
        // Ignored is the `when`'s to say (checked over the inputs), and an
        // invalid value the validator's (shared with no one here).
        // (A default where there is none is named above.)
        let named = given == "default" && input.default.is_none();
        if !matches!(given, "ignored" | "invalid") && !named && given != follows {
            return self.find(at, "given", given.into(), follows.into());
        }
        // An invalid value is the validator's to say, but not of a value
        // the declaration alone finds valid (a receipt of 1000.00 for a
        // bonus of "500.00" called invalid).
        if given == "invalid" && in_case.is_some_and(|c| plainly_valid(input, c)) {
            let follows = "value: the case's value is valid by the input's declaration";
            return self.find(at, "given", given.into(), follows.into());
        }
        let bad = match (given, &input.kind) {
            ("value", InputKind::Table { table }) => {
                let follows = supplied_rows(self.rb, table.index(), in_case);
                if value.as_str() != Some(follows.as_str()) {
                    self.find(at, "value", shown(value), follows);
                }
                false
            }
            ("value", _) => in_case.is_none() || !agrees(value, in_case, input),
            ("invalid", _) => in_case.is_none(),
            _ => false,
        };
        if bad {
            let case = in_case.map_or("absent".to_string(), shown);
            self.find(at, "input against the case", shown(value), case);
        }
    }
}

/// How a trace names the rows a case supplies for table `t`
/// (`rows first-half, second-half of table schedule`): a keyed table's by
/// the case's keys in the case's order, a period table's by the
/// rulebook's row names, each of which the case gives.
fn supplied_rows(rb: &Rulebook, t: usize, in_case: Option<&Json>) -> String {
    let Some(table) = rb.tables.get(t) else {
        return "a table of the rulebook".into();
    };
    let names: Vec<&str> = match (&table.kind, in_case.and_then(Json::as_object)) {
        (TableKind::Keyed { .. }, Some(rows)) => rows.keys().map(String::as_str).collect(),
        _ => table
            .rows
            .iter()
            .filter_map(|r| r.name.as_deref())
            .collect(),
    };
    format!("rows {} of table {}", names.join(", "), table.name)
}
