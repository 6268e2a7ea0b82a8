//! Crossing between the contract's JSON model and `serde_json`: for the JSON Schema validator,
//! and for reading reports back.

use vvoc_reference::{JsString, Json, Object};

/// The value as `serde_json` holds it, or `None` when it cannot: an infinite number or a lone
/// surrogate has no `serde_json` form.
pub fn to_serde(value: &Json) -> Option<serde_json::Value> {
    Some(match value {
        Json::Null => serde_json::Value::Null,
        Json::Bool(b) => serde_json::Value::Bool(*b),
        Json::Number(n) => number(*n)?,
        Json::String(s) => serde_json::Value::String(s.to_str()?),
        Json::Array(items) => {
            serde_json::Value::Array(items.iter().map(to_serde).collect::<Option<_>>()?)
        }
        Json::Object(object) => serde_json::Value::Object(
            object
                .iter()
                .map(|(k, v)| Some((k.to_str()?, to_serde(v)?)))
                .collect::<Option<_>>()?,
        ),
    })
}

/// The value as `serde_json` holds it, lone surrogates as U+FFFD and infinities as the largest
/// doubles: good enough where only the value's shape matters.
pub fn to_serde_lossy(value: &Json) -> serde_json::Value {
    match value {
        Json::Null => serde_json::Value::Null,
        Json::Bool(b) => serde_json::Value::Bool(*b),
        Json::Number(n) => number(n.clamp(f64::MIN, f64::MAX)).unwrap_or(serde_json::Value::Null),
        Json::String(s) => serde_json::Value::String(s.to_string_lossy()),
        Json::Array(items) => serde_json::Value::Array(items.iter().map(to_serde_lossy).collect()),
        Json::Object(object) => serde_json::Value::Object(
            object
                .iter()
                .map(|(k, v)| (k.to_string_lossy(), to_serde_lossy(v)))
                .collect(),
        ),
    }
}

/// The contract's value of a `serde_json` value, objects read as the host reads them.
pub fn from_serde(value: &serde_json::Value) -> Json {
    match value {
        serde_json::Value::Null => Json::Null,
        serde_json::Value::Bool(b) => Json::Bool(*b),
        serde_json::Value::Number(n) => Json::Number(n.as_f64().unwrap_or_default()),
        serde_json::Value::String(s) => Json::str(s),
        serde_json::Value::Array(items) => Json::Array(items.iter().map(from_serde).collect()),
        serde_json::Value::Object(map) => Json::Object(Object::from_members(
            map.iter()
                .map(|(k, v)| (JsString::from(k.as_str()), from_serde(v))),
        )),
    }
}

/// Integral values become integers, so that schemas see `1.0` as the integer it is.
fn number(n: f64) -> Option<serde_json::Value> {
    if n.fract() == 0.0 && n.abs() < 9.2e18 {
        return Some(serde_json::Value::from(n as i64));
    }
    serde_json::Number::from_f64(n).map(serde_json::Value::Number)
}
