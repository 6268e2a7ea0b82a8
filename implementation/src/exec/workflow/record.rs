//! Work-item records as upstream keeps them: JSON objects whose members keep their order, and the bounded result excerpt.
//!
//! Upstream's records are plain objects: a transition spreads the old record and sets a few
//! members (a member already there keeps its place, a new one goes last), and a record hydrated
//! from a state file keeps whatever members and order the file gave it. Parts of a record reach
//! results as they are (`currentRound`, `resultExcerpt`), so the reference keeps records as JSON
//! objects too and reads them through the accessors here, with JavaScript's notion of a missing
//! member.

use super::js::{crlf_to_lf, is};
use crate::js_string::JsString;
use crate::json::{Json, Object};
use crate::text::trim;

/// `RESULT_EXCERPT_MAX_CHARS`.
pub(crate) const RESULT_EXCERPT_MAX_CHARS: usize = 500;

/// The string member `name`, if it is a string.
pub(crate) fn text<'a>(o: &'a Object, name: &str) -> Option<&'a JsString> {
    o.get(name).and_then(Json::as_string)
}

/// Whether the member `name` is the string `value` (`o[name] === value`).
pub(crate) fn text_is(o: &Object, name: &str, value: &str) -> bool {
    text(o, name).is_some_and(|t| is(t.units(), value))
}

/// The number member `name`, if it is a number.
pub(crate) fn number(o: &Object, name: &str) -> Option<f64> {
    o.get(name).and_then(Json::as_f64)
}

/// The array member `name`, if it is an array.
pub(crate) fn array<'a>(o: &'a Object, name: &str) -> Option<&'a [Json]> {
    o.get(name).and_then(Json::as_array)
}

/// The object member `name`, if it is an object.
pub(crate) fn object<'a>(o: &'a Object, name: &str) -> Option<&'a Object> {
    o.get(name).and_then(Json::as_object)
}

/// The object member `name` to change in place, if it is an object.
pub(crate) fn object_mut<'a>(o: &'a mut Object, name: &str) -> Option<&'a mut Object> {
    match o.get_mut(name) {
        Some(Json::Object(inner)) => Some(inner),
        _ => None,
    }
}

/// Whether an array holds the string `value` (`array.includes(value)`).
pub(crate) fn includes(items: &[Json], value: &str) -> bool {
    items
        .iter()
        .any(|v| v.as_string().is_some_and(|s| is(s.units(), value)))
}

/// A JSON string.
pub(crate) fn string(s: &str) -> Json {
    Json::str(s)
}

/// A JSON string of UTF-16 text.
pub(crate) fn js(s: &JsString) -> Json {
    Json::String(s.clone())
}

/// A JSON number of a count.
pub(crate) fn count(n: usize) -> Json {
    Json::Number(n as f64)
}

/// An object built from members in order.
pub(crate) fn obj(members: Vec<(&str, Json)>) -> Object {
    let mut o = Object::new();
    for (name, value) in members {
        o.insert(name, value);
    }
    o
}

/// JavaScript truthiness of a value.
pub(crate) fn truthy(v: Option<&Json>) -> bool {
    match v {
        None | Some(Json::Null) | Some(Json::Bool(false)) => false,
        Some(Json::Number(n)) => *n != 0.0 && !n.is_nan(),
        Some(Json::String(s)) => !s.is_empty(),
        Some(Json::Bool(true) | Json::Array(_) | Json::Object(_)) => true,
    }
}

/// `createWorkflowResultExcerpt`: the text with CRLF as LF and trimmed, cut to 500 units; none
/// for an empty text.
pub(crate) fn excerpt(text: &[u16], source: &str) -> Option<Object> {
    let normalized = crlf_to_lf(text);
    let normalized = trim(&normalized);
    if normalized.is_empty() {
        return None;
    }
    let truncated = normalized.len() > RESULT_EXCERPT_MAX_CHARS;
    let kept = &normalized[..normalized.len().min(RESULT_EXCERPT_MAX_CHARS)];
    Some(obj(vec![
        ("source", string(source)),
        ("text", Json::String(JsString::from_units(kept))),
        ("truncated", Json::Bool(truncated)),
        ("originalLength", count(normalized.len())),
        ("maxLength", count(RESULT_EXCERPT_MAX_CHARS)),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_excerpt_is_trimmed_lf_text_cut_to_five_hundred_units() {
        let long: Vec<u16> = "x".repeat(501).encode_utf16().collect();
        let e = excerpt(&long, "parsed_body").expect("the test input holds");
        assert_eq!(e.get("truncated"), Some(&Json::Bool(true)));
        assert_eq!(number(&e, "originalLength"), Some(501.0));
        assert_eq!(text(&e, "text").expect("the test input holds").len(), 500);
        assert!(excerpt(&[0x20, 0x0D, 0x0A], "normalized_output").is_none());
        let e = excerpt(&"a\r\nb".encode_utf16().collect::<Vec<_>>(), "parsed_body")
            .expect("the test input holds");
        assert_eq!(text(&e, "text").expect("the test input holds"), "a\nb");
    }
}
