//! Reading a reply's answer under its decision's fields: the decision it
//! names, exactly that decision's keys (and the optional ones), each value
//! in its field's format. The first breach of the contract is the reply's
//! [`Malformed`] reason. The reference is read only for the keys a keyed
//! object must hold (the case's beneficiary ids); no value is compared here.
//!
//! Invariant: no IO; each key and value of the reply is looked at a bounded
//! number of times per field of the rubric.

use serde_json::Value;

use super::model::*;
use crate::reply::{Amount, Json, Malformed};

/// A value read from the reply under its field's format.
#[derive(Clone, Debug)]
pub(super) enum Got {
    /// The decision key (already read).
    Decision,
    /// An amount.
    Amount(Amount),
    /// A value kept as written.
    Raw(Json),
    /// Distinct clause ids.
    Clauses(Vec<String>),
    /// Each item's fields, in order.
    List(Vec<Vec<Got>>),
    /// Each key's fields.
    Keyed(Vec<(String, Vec<Got>)>),
}

/// The reply's decision: named by the decision key, or the only one.
pub(super) fn reply_decision<'r>(
    rubric: &'r Rubric,
    json: &Json,
) -> Result<&'r DecisionRubric, Malformed> {
    if !matches!(json, Json::Object(_)) {
        return Err(Malformed::new(
            "reply::not_object",
            format!("the reply's JSON is {}, not an object", json.kind()),
        ));
    }
    let Some(key) = &rubric.decision_key else {
        return rubric
            .decisions
            .first()
            .ok_or_else(|| Malformed::new("reply::decision", "the rubric has no decision"));
    };
    match json.get(key) {
        Some(Json::String(d)) => rubric.decision(d).ok_or_else(|| {
            let names: Vec<&str> = rubric.decisions.iter().map(|d| d.name.as_str()).collect();
            Malformed::new(
                "reply::decision",
                format!("`{key}` is {d:?}, not one of {}", names.join(", ")),
            )
        }),
        Some(other) => Err(Malformed::new(
            "reply::decision",
            format!("`{key}` is {}, not a decision's name", other.kind()),
        )),
        None => Err(Malformed::new(
            "reply::missing_key",
            format!("the key `{key}` is missing"),
        )),
    }
}

/// The reply's answer read under the decision's fields, or why it breaks the contract.
pub(super) fn read_answer(
    rubric: &Rubric,
    decision: &DecisionRubric,
    json: &Json,
    expected: Option<&Value>,
) -> Result<Vec<Got>, Malformed> {
    let Json::Object(entries) = json else {
        return Err(Malformed::new(
            "reply::not_object",
            "the reply is not an object",
        ));
    };
    for (key, value) in entries {
        if decision.fields.iter().any(|f| &f.key == key) {
            continue;
        }
        match rubric.optional.iter().find(|(k, _)| k == key) {
            Some((_, JsonKind::String)) if matches!(value, Json::String(_)) => {}
            Some(_) => {
                return Err(Malformed::new(
                    "reply::bad_value",
                    format!("$.{key} is {}, not a string", value.kind()),
                ))
            }
            None => {
                return Err(Malformed::new(
                    "reply::extra_key",
                    format!("$.{key} is not a key of the `{}` answer", decision.name),
                ))
            }
        }
    }
    read_fields(rubric, &decision.fields, entries, expected, "$")
}

fn read_fields(
    rubric: &Rubric,
    fields: &[Field],
    entries: &[(String, Json)],
    expected: Option<&Value>,
    at: &str,
) -> Result<Vec<Got>, Malformed> {
    let mut out = Vec::with_capacity(fields.len());
    for f in fields {
        let path = format!("{at}.{}", f.key);
        let Some((_, value)) = entries.iter().find(|(k, _)| *k == f.key) else {
            return Err(Malformed::new(
                "reply::missing_key",
                format!("{path} is missing"),
            ));
        };
        out.push(read_field(
            rubric,
            f,
            value,
            expected.and_then(|e| e.get(&f.key)),
            &path,
        )?);
    }
    Ok(out)
}

fn exact_keys(fields: &[Field], entries: &[(String, Json)], at: &str) -> Result<(), Malformed> {
    for (key, _) in entries {
        if !fields.iter().any(|f| &f.key == key) {
            return Err(Malformed::new(
                "reply::extra_key",
                format!("{at}.{key} is not a key of the answer"),
            ));
        }
    }
    Ok(())
}

fn bad(path: &str, what: String) -> Malformed {
    Malformed::new("reply::bad_value", format!("{path}: {what}"))
}

fn read_field(
    rubric: &Rubric,
    f: &Field,
    value: &Json,
    expected: Option<&Value>,
    path: &str,
) -> Result<Got, Malformed> {
    match &f.kind {
        FieldKind::Value(format) => read_value(rubric, *format, value, path),
        FieldKind::List(items) => {
            let Json::Array(list) = value else {
                return Err(bad(path, format!("{}, not a list", value.kind())));
            };
            let mut out = Vec::with_capacity(list.len());
            for (i, item) in list.iter().enumerate() {
                let at = format!("{path}[{i}]");
                let Json::Object(entries) = item else {
                    return Err(bad(&at, format!("{}, not an object", item.kind())));
                };
                exact_keys(items, entries, &at)?;
                let exp = expected.and_then(|e| e.get(i));
                out.push(read_fields(rubric, items, entries, exp, &at)?);
            }
            Ok(Got::List(out))
        }
        FieldKind::Keyed(items) => {
            let Json::Object(entries) = value else {
                return Err(bad(path, format!("{}, not an object", value.kind())));
            };
            if let Some(Value::Object(exp)) = expected {
                for (k, _) in entries {
                    if !exp.contains_key(k) {
                        return Err(Malformed::new(
                            "reply::extra_key",
                            format!("{path}.{k} is not a key of the answer"),
                        ));
                    }
                }
                for k in exp.keys() {
                    if !entries.iter().any(|(x, _)| x == k) {
                        return Err(Malformed::new(
                            "reply::missing_key",
                            format!("{path}.{k} is missing"),
                        ));
                    }
                }
            }
            let mut out = Vec::with_capacity(entries.len());
            for (k, item) in entries {
                let at = format!("{path}.{k}");
                let Json::Object(inner) = item else {
                    return Err(bad(&at, format!("{}, not an object", item.kind())));
                };
                exact_keys(items, inner, &at)?;
                let exp = expected.and_then(|e| e.get(k));
                out.push((k.clone(), read_fields(rubric, items, inner, exp, &at)?));
            }
            Ok(Got::Keyed(out))
        }
    }
}

fn read_value(rubric: &Rubric, format: Format, value: &Json, path: &str) -> Result<Got, Malformed> {
    match format {
        Format::Decision => Ok(Got::Decision),
        Format::Money | Format::SignedMoney => {
            let signed = format == Format::SignedMoney;
            match value {
                Json::String(s) => Amount::money(s, signed).map(Got::Amount).ok_or_else(|| {
                    bad(
                        path,
                        format!("{s:?} is not money with exactly two decimals"),
                    )
                }),
                other => Err(bad(
                    path,
                    format!("{}, not money as a string", other.kind()),
                )),
            }
        }
        Format::Amount => match value {
            Json::Number(n) => rubric
                .amounts
                .json_number(n)
                .map(Got::Amount)
                .map_err(|e| bad(path, format!("the number {n}: {e}"))),
            Json::String(s) if rubric.amounts.strings => rubric
                .amounts
                .text(s)
                .map(Got::Amount)
                .map_err(|e| bad(path, e.to_string())),
            other => Err(bad(path, format!("{}, not an amount", other.kind()))),
        },
        Format::String => match value {
            Json::String(_) => Ok(Got::Raw(value.clone())),
            other => Err(bad(path, format!("{}, not a string", other.kind()))),
        },
        Format::Any | Format::Decimal => Ok(Got::Raw(value.clone())),
        Format::Clauses => {
            let Json::Array(list) = value else {
                return Err(bad(
                    path,
                    format!("{}, not a list of clause ids", value.kind()),
                ));
            };
            let mut ids = Vec::with_capacity(list.len());
            for item in list {
                let Json::String(id) = item else {
                    return Err(bad(path, format!("holds {}, not a clause id", item.kind())));
                };
                if !rubric.clause_ids.iter().any(|c| **c == **id) {
                    return Err(bad(
                        path,
                        format!("{id:?} is not a clause of {}", rubric.rulebook()),
                    ));
                }
                if ids.contains(id) {
                    return Err(bad(path, format!("{id:?} is cited twice")));
                }
                ids.push(id.clone());
            }
            Ok(Got::Clauses(ids))
        }
    }
}
