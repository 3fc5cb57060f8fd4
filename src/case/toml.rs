//! TOML data as the JSON a case would hold: defaults, table cells and
//! expected answers are written in TOML but validated and compared as JSON.
//!
//! The rulebook checker validates a default or a table cell with the same
//! code that validates a case, and the conformance runner compares answers
//! as JSON; both need this one conversion, so TOML and JSON values cannot
//! be read two ways.
//!
//! Invariant: TOML floats are refused, never converted.

/// TOML data (defaults, table cells, expected answers) as the JSON a case would hold.
///
/// TOML floats are refused: they are binary approximations, and every
/// amount must be exact.
pub(crate) fn json_from_toml(v: &toml::Value) -> Result<serde_json::Value, String> {
    Ok(match v {
        toml::Value::String(s) => serde_json::Value::String(s.clone()),
        toml::Value::Integer(i) => serde_json::Value::Number((*i).into()),
        toml::Value::Boolean(b) => serde_json::Value::Bool(*b),
        toml::Value::Float(f) => {
            return Err(format!(
                "TOML floats are not exact ({f}): write decimals as strings (\"0.05\")"
            ))
        }
        toml::Value::Datetime(d) => serde_json::Value::String(d.to_string()),
        toml::Value::Array(items) => {
            serde_json::Value::Array(items.iter().map(json_from_toml).collect::<Result<_, _>>()?)
        }
        toml::Value::Table(t) => {
            let mut map = serde_json::Map::new();
            for (k, v) in t {
                map.insert(k.clone(), json_from_toml(v)?);
            }
            serde_json::Value::Object(map)
        }
    })
}
