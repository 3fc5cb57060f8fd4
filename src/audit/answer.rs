//! The outcome's end of a trace recomputed: a check's rejection (its path
//! and message rendered from the steps) and the decision's answer, each
//! field from the steps in its format, written as the engine writes it.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value as Json;

use crate::model::{Format, MessagePart, Output, OutputValue};
use crate::value::{plain, Value};

use super::calc::Calc;
use super::decode::{encode, fixed_text, same, shown};
use super::walk::State;

impl State<'_> {
    /// A check's rejection, its path and message rendered from the steps
    /// as the engine renders them (a text as itself, else as it prints),
    /// against the line's `error` and the outcome's: a line that a check
    /// rejects carries that error and no answer.
    pub fn rejection(
        &mut self,
        errors: [Option<&Json>; 2],
        path: &[MessagePart],
        message: &[MessagePart],
    ) {
        self.settle_empty_groups();
        let render = |parts: &[MessagePart]| -> Result<String, String> {
            let mut text = String::new();
            for part in parts {
                match part {
                    MessagePart::Text(t) => text.push_str(t),
                    MessagePart::Value(f) => {
                        match Calc::new(self.rb, self, None, &[]).formula(&f.text)? {
                            Value::Text(t) => text.push_str(&t),
                            other => text.push_str(&other.to_string()),
                        }
                    }
                }
            }
            Ok(text)
        };
        let follows = match (render(path), render(message)) {
            (Ok(p), Ok(m)) => serde_json::json!({ "path": p, "message": m }),
            (Err(e), _) | (_, Err(e)) => {
                return self.find(
                    "outcome",
                    "cannot recompute the rejection",
                    e,
                    String::new(),
                )
            }
        };
        for (at, error) in ["error", "outcome error"].into_iter().zip(errors) {
            let recorded = error.unwrap_or(&Json::Null);
            if *recorded != follows {
                self.find(at, "rejection", shown(recorded), follows.to_string());
            }
        }
    }

    /// The answer's fields recomputed from the steps.
    pub fn answer(
        &mut self,
        answer: &Json,
        decision: usize,
        reason: Option<&Arc<str>>,
        clauses: &[Arc<str>],
    ) {
        self.settle_empty_groups();
        let rb = self.rb;
        let Some(d) = rb.decisions.get(decision) else {
            return;
        };
        self.decided = vec![
            ("decision", Value::Text(d.name.clone())),
            (
                "reason",
                reason.map_or(Value::Absent, |r| Value::Text(r.clone())),
            ),
        ];
        // A field the decision's answer does not have follows from nothing.
        match answer.as_object() {
            Some(fields) => {
                for (key, value) in fields {
                    if !d.answer.iter().any(|out| &*out.key == key.as_str()) {
                        self.find(
                            format!("answer {key}"),
                            "field",
                            shown(value),
                            "none".into(),
                        );
                    }
                }
                self.order("answer", fields, &keys_of(&d.answer));
            }
            None => self.find("answer", "shape", shown(answer), "an object".into()),
        }
        for out in &d.answer {
            let at = format!("answer {}", out.key);
            let recorded = answer.get(&*out.key).unwrap_or(&Json::Null);
            self.counts[5] += 1;
            match &out.value {
                OutputValue::Value { expr, format } => {
                    if *format == Format::Clauses {
                        let follows: Json = clauses
                            .iter()
                            .map(|c| Json::String(c.to_string()))
                            .collect();
                        if *recorded != follows {
                            self.find(at, "clauses", recorded.to_string(), follows.to_string());
                        }
                        continue;
                    }
                    let v = Calc::new(rb, self, None, &[]).formula(&expr.text);
                    self.answer_value(&at, recorded, v, *format);
                }
                OutputValue::Each { group, key, fields } => {
                    let n = self.over(*group).map(|l| l.len()).unwrap_or(0);
                    let items = match recorded {
                        Json::Array(list) => list.len(),
                        Json::Object(map) => map.len(),
                        _ => 0,
                    };
                    if items > n {
                        self.find(&at, "items", items.to_string(), n.to_string());
                    }
                    // A keyed answer's items in the group's order, as written.
                    let mut keys: Vec<String> = Vec::new();
                    for i in 0..n {
                        let item_json = match key {
                            None => recorded.get(i),
                            Some(k) => {
                                let kv = Calc::new(rb, self, Some((*group, i)), &[])
                                    .formula(&k.text)
                                    .map(|v| plain(&v))
                                    .unwrap_or_default();
                                keys.push(kv.clone());
                                recorded.get(kv.as_str())
                            }
                        };
                        let Some(item_json) = item_json else {
                            self.find(format!("{at}[{i}]"), "item", "none".into(), "one".into());
                            continue;
                        };
                        if let Some(map) = item_json.as_object() {
                            for (k, v) in map {
                                if !fields.iter().any(|f| &*f.key == k.as_str()) {
                                    let fat = format!("{at}[{i}].{k}");
                                    self.find(fat, "field", shown(v), "none".into());
                                }
                            }
                            self.order(&format!("{at}[{i}]"), map, &keys_of(fields));
                        }
                        for f in fields {
                            let OutputValue::Value { expr, format } = &f.value else {
                                continue;
                            };
                            let fat = format!("{at}[{i}].{}", f.key);
                            let r = item_json.get(&*f.key).unwrap_or(&Json::Null);
                            let v = Calc::new(rb, self, Some((*group, i)), &[]).formula(&expr.text);
                            self.answer_value(&fat, r, v, *format);
                        }
                    }
                    if let (Json::Object(map), false) = (recorded, keys.is_empty()) {
                        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
                        self.order(&at, map, &keys);
                    }
                }
            }
        }
    }

    /// The keys of an answer object in the order the engine writes them
    /// (`expected`: the decision's fields, a keyed answer's items in the
    /// group's order): a receipt with two swapped holds the same values,
    /// but not the bytes `eval` printed.
    fn order(&mut self, at: &str, recorded: &serde_json::Map<String, Json>, expected: &[&str]) {
        let index: HashMap<&str, usize> =
            expected.iter().enumerate().map(|(i, k)| (*k, i)).collect();
        let places: Vec<usize> = recorded
            .keys()
            .filter_map(|k| index.get(k.as_str()).copied())
            .collect();
        if places.windows(2).any(|w| w[0] > w[1]) {
            let written: Vec<&str> = recorded.keys().map(String::as_str).collect();
            let follows: Vec<&str> = expected
                .iter()
                .copied()
                .filter(|k| recorded.contains_key(*k))
                .collect();
            self.find(at, "order", written.join(", "), follows.join(", "));
        }
    }

    fn answer_value(
        &mut self,
        at: &str,
        recorded: &Json,
        v: Result<Value, String>,
        format: Format,
    ) {
        match v {
            Ok(v) => {
                let follows = encode(&v);
                let ok = match (format, recorded) {
                    (_, Json::Null) => v.is_missing(),
                    // As the engine writes it: `3155.20`, never `+3155.20`
                    // or `03155.20`, which are the same value.
                    (Format::Fixed(p), Json::String(s)) => {
                        fixed_text(s, p as usize) && same(recorded, &follows)
                    }
                    // As held, scale kept: `2.340` is not what `2.34` writes;
                    // a text is its characters (`"7.0"` is not `"7"`).
                    (Format::Decimal | Format::Text, Json::String(_)) => *recorded == follows,
                    // A JSON number as the engine writes it: `12570`, never
                    // `12570.0`, `"12570"` or `1.257e4`.
                    (Format::Integer | Format::Number, recorded) => json_number_text(&v, format)
                        .is_some_and(|t| match recorded {
                            Json::Number(n) => n.to_string() == t,
                            _ => false,
                        }),
                    _ => same(recorded, &follows),
                };
                if !ok {
                    self.find(at, "value", shown(recorded), shown(&follows));
                }
            }
            Err(e) => self.find(at, "cannot recompute", e, String::new()),
        }
    }
}

/// The text of the JSON number an `integer` or `number` answer field is
/// written as: the whole value (`None` if it is not whole) or the value
/// without trailing zeros, a zero without its sign.
fn json_number_text(v: &Value, format: Format) -> Option<String> {
    let Value::Number(d) = v else { return None };
    let mut d = match format {
        Format::Integer if d.fract().is_zero() => d.trunc(),
        Format::Integer => return None,
        _ => d.normalize(),
    };
    if d.is_zero() {
        d.set_sign_positive(true);
    }
    Some(d.to_string())
}

/// The keys of answer fields, in the decision's order.
fn keys_of(outputs: &[Output]) -> Vec<&str> {
    outputs.iter().map(|o| &*o.key).collect()
}
