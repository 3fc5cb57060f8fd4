//! Values between the trace's JSON and the verifier: a recorded input read
//! back by its declared kind, a computed value written as the trace writes
//! it, and the comparison of the two.
//!
//! The trace's JSON does not say whether `"2"` is a text or a number
//! (`docs/trace-format.md` §6), so a recorded input is read by the kind the
//! rulebook declares for it; a computed value is compared with a recorded
//! one by its JSON form, numbers by value (`"3.0"` follows from `3.00`).

use std::sync::Arc;

use rust_decimal::Decimal;
use serde_json::Value as Json;

use crate::model::{Input, InputKind, JsonNumbers};
use crate::num::exact::parse_written;
use crate::rulebook::check::parse_plain_decimal;
use crate::value::{parse_date, Entries, Month, Record, Value};

/// A recorded value read back as the rulebook declares it; `None` when it
/// is not of that kind.
pub fn decode(json: &Json, input: &Input) -> Option<Value> {
    decode_in(json, input, None)
}

/// [`decode`], read beside what the case gave for it when the case is at
/// hand: a trace writes an absent value and an explicit `null` alike, and
/// inside a list, map or record only the case tells them apart (a
/// nullable item the case gives as `null` is null, and `is_null` of it
/// true; without the case it reads as absent).
pub fn decode_in(json: &Json, input: &Input, case: Option<&Json>) -> Option<Value> {
    if json.is_null() {
        let null = input.nullable && case.is_some_and(Json::is_null);
        return Some(if null { Value::Null } else { Value::Absent });
    }
    let kind = &input.kind;
    let inside = |key: &str| case.and_then(|c| c.get(key));
    Some(match kind {
        InputKind::Money(spec) | InputKind::Decimal(spec) => {
            // Held as the validator holds it: money at its places (`"275.5"`
            // is 275.50), so that a `decimal` answer's scale follows too.
            let mut n = number(json)?;
            if let Some(scale) = spec.rescale.filter(|s| n.scale() < *s) {
                n.rescale(scale);
            }
            Value::Number(n)
        }
        InputKind::Integer { .. } => Value::Number(number(json)?),
        InputKind::Fraction { .. } => {
            let text = text_of(json)?;
            Value::from_num(parse_written(&text)?)
        }
        InputKind::Bool => Value::Bool(json.as_bool()?),
        InputKind::Text { .. } | InputKind::Enum { .. } | InputKind::Table { .. } => {
            Value::Text(Arc::from(json.as_str()?))
        }
        InputKind::Date { .. } => Value::Date(parse_date(json.as_str()?)?),
        InputKind::Month { .. } => Value::Month(Month::parse(json.as_str()?)?),
        InputKind::Record { fields, names, .. } => {
            let object = json.as_object()?;
            let mut values = Vec::with_capacity(fields.len());
            for field in fields {
                let v = match object.get(&*field.name) {
                    Some(j) => decode_in(j, field, inside(&field.name))?,
                    None => Value::Absent,
                };
                values.push(v);
            }
            // Fields are validated in their own order; a record holds them in
            // the order of its names.
            let mut ordered = Vec::with_capacity(names.len());
            for name in names.iter() {
                let at = fields.iter().position(|f| f.name == *name)?;
                ordered.push(values.get(at)?.clone());
            }
            Value::Record(Arc::new(Record {
                name: None,
                names: names.clone(),
                fields: ordered.into_boxed_slice(),
            }))
        }
        InputKind::List { item, .. } => {
            let items = json.as_array()?;
            let mut out = Vec::with_capacity(items.len());
            let given = case.and_then(Json::as_array);
            for (i, j) in items.iter().enumerate() {
                out.push(decode_in(j, item, given.and_then(|g| g.get(i)))?);
            }
            Value::List(Arc::from(out))
        }
        InputKind::Map { item, keys, .. } => {
            let object = json.as_object()?;
            let mut entries = Entries::default();
            match keys {
                // Declared keys: the others are ignored, the map in their order.
                Some(keys) => {
                    for k in keys {
                        if let Some(j) = object.get(&**k) {
                            entries.insert(k.clone(), decode_in(j, item, inside(k))?);
                        }
                    }
                }
                None => {
                    for (k, j) in object {
                        entries.insert(Arc::from(k.as_str()), decode_in(j, item, inside(k))?);
                    }
                }
            }
            Value::Map(Arc::new(entries))
        }
    })
}

/// A number written as a string (the trace) or as a JSON number (a case).
pub fn number(json: &Json) -> Option<Decimal> {
    text_of(json)?.parse().ok()
}

fn text_of(json: &Json) -> Option<String> {
    match json {
        Json::String(s) => Some(s.clone()),
        Json::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A value as the trace writes it.
pub fn encode(v: &Value) -> Json {
    serde_json::to_value(v).unwrap_or(Json::Null)
}

/// Whether a recorded value is the one computed: the same JSON, numbers
/// compared by value.
pub fn same(recorded: &Json, computed: &Json) -> bool {
    match (recorded, computed) {
        (Json::String(a), Json::String(b)) => {
            a == b
                || match (parse_written(a), parse_written(b)) {
                    (Some(x), Some(y)) => x.cmp_exact(y).is_ok_and(|o| o.is_eq()),
                    _ => false,
                }
        }
        (Json::Array(a), Json::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
        }
        (Json::Object(a), Json::Object(b)) => {
            a.len() == b.len() && a.iter().all(|(k, x)| b.get(k).is_some_and(|y| same(x, y)))
        }
        (a, b) => a == b,
    }
}

/// Whether a recorded value is the one computed.
pub fn same_value(recorded: &Json, computed: &Value) -> bool {
    same(recorded, &encode(computed))
}

/// Whether a recorded input agrees with what the case gave for it, read
/// through its declaration: every value the trace holds is the case's
/// (numbers by value), and where the case gives nothing the trace holds
/// nothing or the declared default. A `null` recorded where the case gives
/// a value agrees only for a field read under a `when` or whose invalid
/// value reads as absent (or the default, with one); a record holds its declared fields alone; a map
/// the keys the case gives, in the order read (the case's, or that of the
/// keys it declares, when it names them); a list
/// as many items. A key or field the trace adds that the case left out is
/// a disagreement (a receipt built on a bonus the case never gave).
pub fn agrees(recorded: &Json, case: Option<&Json>, input: &Input) -> bool {
    let Some(case) = case.filter(|c| !c.is_null()) else {
        // The default as the engine writes it (`"1"`, not `"1.0"`).
        return recorded.is_null()
            || input
                .default
                .as_ref()
                .is_some_and(|d| *recorded == encode(d));
    };
    // An invalid value reads as absent, or as the default where there is
    // one: never a value plainly valid by the declaration.
    let may_be_invalid = input.invalid_absent && !plainly_valid(input, case);
    if recorded.is_null() {
        return input.when.is_some() || may_be_invalid;
    }
    let read_as_default =
        may_be_invalid && (input.default.as_ref()).is_some_and(|d| *recorded == encode(d));
    if read_as_default {
        return true;
    }
    match (&input.kind, recorded, case) {
        // A record read through a pattern: the case gave its text, whose
        // groups (read as the validator reads them) are the record's fields.
        // Taken as agreeing, a receipt of code K1000L verified for K1257L.
        (
            InputKind::Record {
                pattern: Some(pattern),
                fields,
                ..
            },
            Json::Object(_),
            Json::String(text),
        ) => (pattern.groups(fields, text))
            .is_some_and(|groups| agrees(recorded, Some(&groups), input)),
        (InputKind::Record { fields, .. }, Json::Object(r), Json::Object(c)) => {
            r.keys().all(|k| fields.iter().any(|f| *f.name == **k))
                && fields.iter().all(|f| {
                    let given = r.get(&*f.name).unwrap_or(&Json::Null);
                    agrees(given, c.get(&*f.name), f)
                })
        }
        (InputKind::List { item, .. }, Json::Array(r), Json::Array(c)) => {
            r.len() == c.len() && r.iter().zip(c).all(|(x, y)| agrees(x, Some(y), item))
        }
        (InputKind::Map { item, keys, .. }, Json::Object(r), Json::Object(c)) => {
            // In the order it is read in, the case's or that of its `keys`:
            // a map is iterated in it (`values`, a comprehension), so
            // another order is another reading.
            let order: Vec<&str> = match keys {
                Some(ks) => (ks.iter().map(|k| &**k))
                    .filter(|k| c.contains_key(*k))
                    .collect(),
                None => c.keys().map(String::as_str).collect(),
            };
            order.into_iter().eq(r.keys().map(String::as_str))
                && r.iter().all(|(k, x)| agrees(x, c.get(k), item))
        }
        // A text is its characters: `"007"` is not `"7"`, nor `"2.050"` `"2.05"`.
        (InputKind::Text { .. } | InputKind::Enum { .. }, Json::String(r), Json::String(c)) => {
            r == c
        }
        // A number as held: a decimal's scale as written, money's at its
        // places, a whole number without places (the case's, as the
        // validator takes only those); and written as the engine writes it
        // (`"4500.00"`, never `"45e2"`, `"+4500.00"` or `"04500.00"`, which
        // read as the same number).
        (
            InputKind::Decimal(_) | InputKind::Money(_) | InputKind::Integer { .. },
            Json::String(text),
            c,
        ) => match (decode(recorded, input), decode(c, input)) {
            (Some(Value::Number(r)), Some(Value::Number(c))) => {
                r == c && r.scale() == c.scale() && r.to_string() == *text
            }
            _ => false,
        },
        (_, Json::String(_), Json::Number(n)) => same(recorded, &Json::String(n.to_string())),
        (_, r, c) => same(r, c),
    }
}

/// Whether the case's value for `input` is valid by its declaration alone,
/// read by the rules `docs/rulebook-format.md` gives (the verifier shares
/// no validator): a plain decimal (a string, or a JSON number where
/// `numbers` accepts one) within its places, sign and bounds; a whole JSON
/// number within its sign and bounds; a date or month within its bounds; a
/// boolean; an enum's value; a text within its length. Anything else (a
/// rule, a reference, a fraction, a composite) is not judged here, and a
/// claim that it was invalid is taken as recorded.
pub fn plainly_valid(input: &Input, case: &Json) -> bool {
    let plain_rules = input.rejects.is_empty()
        && input.refers.is_none()
        && input.key_ref.is_none()
        && !input.unique
        && input.after.is_empty();
    let within = |n: Decimal, min: Option<Decimal>, max: Option<Decimal>| {
        min.is_none_or(|m| n >= m) && max.is_none_or(|m| n <= m)
    };
    // Read exactly, a decimal keeps the places written; a sign is refused,
    // even on zero, where the minimum is not below zero.
    let plain = |text: &str, places: Option<u32>, min: Option<Decimal>, max: Option<Decimal>| {
        let signed_below = text.starts_with('-') && min.is_some_and(|m| m >= Decimal::ZERO);
        !signed_below
            && parse_plain_decimal(text)
                .is_some_and(|n| places.is_none_or(|p| n.scale() <= p) && within(n, min, max))
    };
    plain_rules
        && match (&input.kind, case) {
            (InputKind::Money(spec) | InputKind::Decimal(spec), Json::String(text)) => {
                plain(text, spec.places, spec.min, spec.max)
            }
            (InputKind::Money(spec) | InputKind::Decimal(spec), Json::Number(n)) => {
                let text = n.as_str();
                let accepted = match spec.numbers {
                    JsonNumbers::Reject => false,
                    JsonNumbers::Plain => true,
                    JsonNumbers::Integer => !text.contains('.'),
                };
                accepted && plain(text, spec.places, spec.min, spec.max)
            }
            // No decimal place: `2.0` is no whole number.
            (InputKind::Integer { min, max }, Json::Number(n)) => {
                plain(n.as_str(), Some(0), *min, *max)
            }
            (InputKind::Date { min, max }, Json::String(s)) => parse_date(s)
                .is_some_and(|d| min.is_none_or(|m| d >= m) && max.is_none_or(|m| d <= m)),
            (InputKind::Month { min, max }, Json::String(s)) => Month::parse(s)
                .is_some_and(|d| min.is_none_or(|m| d >= m) && max.is_none_or(|m| d <= m)),
            (InputKind::Bool, Json::Bool(_)) => true,
            (InputKind::Enum { values }, Json::String(s)) => values.iter().any(|v| **v == **s),
            (InputKind::Text { max_length }, Json::String(s)) => s.chars().count() <= *max_length,
            _ => false,
        }
}

/// A recorded value as the verifier shows it in a finding.
pub fn shown(json: &Json) -> String {
    match json {
        Json::String(s) => s.clone(),
        Json::Null => "null".into(),
        other => other.to_string(),
    }
}

/// A recorded value read back without a declared kind: a number where the
/// text is one, else the text (used only to go on past a step the verifier
/// could not recompute, which is already a finding).
pub fn guess(json: &Json) -> Value {
    match json {
        Json::Null => Value::Absent,
        Json::Bool(b) => Value::Bool(*b),
        Json::String(s) => match parse_written(s) {
            Some(n) => Value::from_num(n),
            None => parse_date(s)
                .map(Value::Date)
                .or_else(|| Month::parse(s).map(Value::Month))
                .unwrap_or_else(|| Value::Text(Arc::from(s.as_str()))),
        },
        Json::Number(n) => n
            .to_string()
            .parse()
            .map(Value::Number)
            .unwrap_or(Value::Absent),
        Json::Array(items) => Value::List(items.iter().map(guess).collect()),
        Json::Object(o) => {
            let mut entries = Entries::default();
            for (k, v) in o {
                entries.insert(Arc::from(k.as_str()), guess(v));
            }
            Value::Map(Arc::new(entries))
        }
    }
}

/// Whether `s` is a decimal with `places` places as a fixed format writes
/// one: an optional `-`, the whole part without leading zeros, and exactly
/// `places` digits after a point (none, and no point, for 0), and no sign
/// on zero.
pub(super) fn fixed_text(s: &str, places: usize) -> bool {
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let body = s.strip_prefix('-').unwrap_or(s);
    let (whole, fraction) = match body.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (body, None),
    };
    let fraction_ok = match fraction {
        None => places == 0,
        Some(f) => places > 0 && f.len() == places && digits(f),
    };
    // A negative zero is written without its sign.
    let zero = body.bytes().all(|b| b == b'0' || b == b'.');
    let signed_zero = zero && s.starts_with('-');
    digits(whole) && (whole == "0" || !whole.starts_with('0')) && fraction_ok && !signed_zero
}
