//! Crossing between the contract's JSON model and `serde_json`: for the JSON Schema validator,
//! and for reading reports back. Both ways go without recursion, and the `serde_json` values made
//! here are taken apart without it, so an input nested as deep as its text allows crosses too.

use std::ops::Deref;

use vvoc_reference::Json;

/// A `serde_json` value made from a contract value. `serde_json`'s own drop recurses once per
/// level (a deep vector input would overflow the stack), so this one is taken apart on a stack
/// of its own ([`dismantle`]).
#[derive(Debug, Default)]
pub struct SerdeValue(serde_json::Value);

impl SerdeValue {
    /// The value itself, for a consumer that takes it whole (its drop is then the consumer's).
    pub fn into_inner(mut self) -> serde_json::Value {
        std::mem::take(&mut self.0)
    }
}

impl Deref for SerdeValue {
    type Target = serde_json::Value;

    fn deref(&self) -> &serde_json::Value {
        &self.0
    }
}

impl Drop for SerdeValue {
    fn drop(&mut self) {
        dismantle(std::mem::take(&mut self.0));
    }
}

/// Drops a `serde_json` value of any depth, its arrays and objects emptied from a stack instead
/// of one call per level.
pub(crate) fn dismantle(value: serde_json::Value) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            serde_json::Value::Array(items) => stack.extend(items),
            serde_json::Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            serde_json::Value::Null
            | serde_json::Value::Bool(_)
            | serde_json::Value::Number(_)
            | serde_json::Value::String(_) => {}
        }
    }
}

/// The value as `serde_json` holds it, or `None` when it cannot: an infinite number or a lone
/// surrogate has no `serde_json` form.
pub fn to_serde(value: &Json) -> Option<SerdeValue> {
    let converted = value.fold(
        |leaf| match leaf {
            Json::Null => Some(serde_json::Value::Null),
            Json::Bool(b) => Some(serde_json::Value::Bool(*b)),
            Json::Number(n) => number(*n),
            Json::String(s) => s.to_str().map(serde_json::Value::String),
            // Containers never come here: the fold builds them below, empty ones included.
            Json::Array(_) => Some(serde_json::Value::Array(Vec::new())),
            Json::Object(_) => Some(serde_json::Value::Object(serde_json::Map::new())),
        },
        |items| {
            if items.iter().all(Option::is_some) {
                Some(serde_json::Value::Array(
                    items.into_iter().flatten().collect(),
                ))
            } else {
                items.into_iter().flatten().for_each(dismantle);
                None
            }
        },
        |members| {
            if members
                .iter()
                .all(|(name, value)| value.is_some() && name.to_str().is_some())
            {
                let mut map = serde_json::Map::new();
                for (name, value) in members {
                    if let (Some(name), Some(value)) = (name.to_str(), value) {
                        map.insert(name, value);
                    }
                }
                Some(serde_json::Value::Object(map))
            } else {
                members
                    .into_iter()
                    .filter_map(|(_, v)| v)
                    .for_each(dismantle);
                None
            }
        },
    );
    converted.map(SerdeValue)
}

/// The value as `serde_json` holds it, lone surrogates as U+FFFD and infinities as the largest
/// doubles: good enough where only the value's shape matters.
pub fn to_serde_lossy(value: &Json) -> SerdeValue {
    SerdeValue(value.fold(
        |leaf| match leaf {
            Json::Null => serde_json::Value::Null,
            Json::Bool(b) => serde_json::Value::Bool(*b),
            Json::Number(n) => {
                number(n.clamp(f64::MIN, f64::MAX)).unwrap_or(serde_json::Value::Null)
            }
            Json::String(s) => serde_json::Value::String(s.to_string_lossy()),
            // Containers never come here: the fold builds them below, empty ones included.
            Json::Array(_) => serde_json::Value::Array(Vec::new()),
            Json::Object(_) => serde_json::Value::Object(serde_json::Map::new()),
        },
        serde_json::Value::Array,
        |members| {
            let mut map = serde_json::Map::new();
            for (name, value) in members {
                // Two names that differ only in lone surrogates become one; the later wins.
                if let Some(replaced) = map.insert(name.to_string_lossy(), value) {
                    dismantle(replaced);
                }
            }
            serde_json::Value::Object(map)
        },
    ))
}

/// The contract's value of a `serde_json` value, objects read as the host reads them.
pub(crate) fn from_serde(value: &serde_json::Value) -> Json {
    Json::from(value)
}

/// Integral values become integers, so that schemas see `1.0` as the integer it is.
fn number(n: f64) -> Option<serde_json::Value> {
    if n.fract() == 0.0 && n.abs() < 9.2e18 {
        return Some(serde_json::Value::from(n as i64));
    }
    serde_json::Number::from_f64(n).map(serde_json::Value::Number)
}

#[cfg(test)]
mod tests {
    use vvoc_reference::Json;

    use super::{from_serde, to_serde, to_serde_lossy};

    #[test]
    fn values_of_any_depth_cross_both_ways_on_a_small_stack() {
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| {
                let depth = 200_000;
                let text = format!(
                    r#"{}{{"a":[1.0,"x",null,true]}}{}"#,
                    "[".repeat(depth),
                    "]".repeat(depth)
                );
                let value = Json::parse(&text).expect("any depth is read");
                let exact = to_serde(&value).expect("plain JSON");
                assert_eq!(from_serde(&exact), value);
                let lossy = to_serde_lossy(&value);
                assert_eq!(from_serde(&lossy), value);
                // A deep part is dropped on the way when another part has no serde form.
                let text = format!(r#"[{}1{},"\ud800"]"#, "[".repeat(depth), "]".repeat(depth));
                let value = Json::parse(&text).expect("read");
                assert!(to_serde(&value).is_none(), "a lone surrogate");
                assert_eq!(
                    to_serde_lossy(&value).get(1),
                    Some(&serde_json::Value::from("\u{fffd}"))
                );
            })
            .expect("a thread")
            .join()
            .expect("crossed on a small stack");
    }
}
