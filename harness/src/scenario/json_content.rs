//! JSON contents (formats.md, "Workflow scenario file"): the text JavaScript's
//! `JSON.stringify(value, null, 2)` writes, and equality of two JSON values with member order
//! ignored (numbers by value), both without recursion.

use std::collections::HashMap;

use vvoc_reference::{JsString, Json};

/// The text of `JSON.stringify(value, null, 2)`: two-space indentation, `"name": value`, empty
/// containers `[]` and `{}`, numbers in the host's form, and a number that is not finite
/// written `null` as JavaScript writes it.
pub fn stringify2(value: &Json) -> String {
    if finite(value) {
        value.to_pretty()
    } else {
        nulls_for_non_finite(value).to_pretty()
    }
}

/// [`stringify2`] as the UTF-16 text a tool returns.
pub fn stringify2_js(value: &Json) -> JsString {
    JsString::from(stringify2(value).as_str())
}

/// Whether every number in `value` is finite.
fn finite(value: &Json) -> bool {
    let mut pending = vec![value];
    while let Some(next) = pending.pop() {
        match next {
            Json::Number(n) if !n.is_finite() => return false,
            Json::Array(items) => pending.extend(items),
            Json::Object(object) => pending.extend(object.iter().map(|(_, v)| v)),
            Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) => {}
        }
    }
    true
}

/// A copy of `value` with `null` for every number that is not finite (a rare case: the value
/// is rebuilt through text, which never recurses).
fn nulls_for_non_finite(value: &Json) -> Json {
    let text = value.to_compact();
    // The writer gives `1e400`, `-1e400` and `NaN` for such numbers; each stands where a value
    // stands, never inside a string (a string's text is quoted).
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    let mut in_string = false;
    while let Some(c) = rest.chars().next() {
        if in_string {
            match c {
                '\\' => {
                    let escaped: String = rest.chars().take(2).collect();
                    out.push_str(&escaped);
                    rest = &rest[escaped.len()..];
                    continue;
                }
                '"' => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else if let Some(word) = ["-1e400", "1e400", "NaN"]
            .into_iter()
            .find(|w| rest.starts_with(w))
        {
            out.push_str("null");
            rest = &rest[word.len()..];
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    Json::parse(&out).unwrap_or(Json::Null)
}

/// Whether `a` and `b` are the same JSON value, member order aside: objects with the same names
/// holding the same values, arrays element by element, numbers by value.
pub fn same_value(a: &Json, b: &Json) -> bool {
    let mut pending: Vec<(&Json, &Json)> = vec![(a, b)];
    while let Some((a, b)) = pending.pop() {
        let same = match (a, b) {
            (Json::Null, Json::Null) => true,
            (Json::Bool(x), Json::Bool(y)) => x == y,
            (Json::Number(x), Json::Number(y)) => x == y || (x.is_nan() && y.is_nan()),
            (Json::String(x), Json::String(y)) => x == y,
            (Json::Array(x), Json::Array(y)) => {
                pending.extend(x.iter().zip(y));
                x.len() == y.len()
            }
            (Json::Object(x), Json::Object(y)) => {
                let named: HashMap<&JsString, &Json> = y.iter().collect();
                let mut all = x.len() == y.len();
                for (name, value) in x.iter() {
                    match named.get(name) {
                        Some(other) if all => pending.push((value, other)),
                        Some(_) | None => all = false,
                    }
                }
                all
            }
            (
                Json::Null
                | Json::Bool(_)
                | Json::Number(_)
                | Json::String(_)
                | Json::Array(_)
                | Json::Object(_),
                _,
            ) => false,
        };
        if !same {
            return false;
        }
    }
    true
}

/// A `{"json": VALUE}` content: equal to another when [`same_value`] says so.
#[derive(Clone, Debug)]
pub struct JsonContent(pub Json);

impl JsonContent {
    /// The bytes written for it: [`stringify2`] as UTF-8.
    pub fn bytes(&self) -> Vec<u8> {
        stringify2(&self.0).into_bytes()
    }

    /// Whether a file of `bytes` holds this value: its text parses (as the host reads JSON) to
    /// the same value, member order aside.
    pub fn matches_bytes(&self, bytes: &[u8]) -> bool {
        std::str::from_utf8(bytes)
            .ok()
            .and_then(|text| Json::parse(text).ok())
            .is_some_and(|read| same_value(&self.0, &read))
    }
}

impl PartialEq for JsonContent {
    fn eq(&self, other: &JsonContent) -> bool {
        same_value(&self.0, &other.0)
    }
}

// Reflexive: numbers compare by value with NaN equal to NaN.
impl Eq for JsonContent {}

#[cfg(test)]
mod tests {
    use vvoc_reference::Json;

    use super::{same_value, stringify2};

    fn json(text: &str) -> Json {
        Json::parse(text).expect("JSON")
    }

    #[test]
    fn stringify2_writes_what_javascript_writes() {
        let value = json(r#"{"a":[1,2.5,-0,1e21,{}],"b":{"c":null,"d":[]},"e":"x\n\ud800\u2028"}"#);
        assert_eq!(
            stringify2(&value),
            "{\n  \"a\": [\n    1,\n    2.5,\n    0,\n    1e+21,\n    {}\n  ],\n  \"b\": {\n    \"c\": null,\n    \"d\": []\n  },\n  \"e\": \"x\\n\\ud800\u{2028}\"\n}"
        );
        assert_eq!(
            stringify2(&json("[1e400,\"1e400\",-1e400]")),
            "[\n  null,\n  \"1e400\",\n  null\n]"
        );
        assert_eq!(stringify2(&json("\"a\"")), "\"a\"");
    }

    #[test]
    fn values_are_the_same_whatever_the_member_order() {
        assert!(same_value(
            &json(r#"{"a":1,"b":[{"x":1,"y":2}]}"#),
            &json(r#"{"b":[{"y":2,"x":1.0}],"a":1}"#)
        ));
        assert!(!same_value(&json(r#"{"a":1}"#), &json(r#"{"a":1,"b":2}"#)));
        assert!(!same_value(
            &json(r#"{"a":1,"c":2}"#),
            &json(r#"{"a":1,"b":2}"#)
        ));
        assert!(!same_value(&json("[1,2]"), &json("[2,1]")));
        assert!(!same_value(&json("1"), &json("\"1\"")));
    }
}
