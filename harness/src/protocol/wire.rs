//! What every protocol message shares (interfaces.md §4, §9.2): the protocol's version, a `type`
//! and a `seq`, reading one line into a message, and previews of lines quoted in errors.

use vvoc_reference::{JsString, Json, Object};

/// The protocol version this runner speaks.
pub(crate) const PROTOCOL: u32 = 1;

/// A message's `seq`: the runner numbers checks and steps with integers; a peer echoes the value
/// it read, whatever it is, so that even a mistaken message gets its answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Seq(pub Json);

impl From<u64> for Seq {
    fn from(n: u64) -> Seq {
        Seq(Json::Number(n as f64))
    }
}

/// A message's `type` (empty when it has none).
pub(crate) fn message_type(message: &Object) -> String {
    message
        .get("type")
        .and_then(Json::as_string)
        .map(JsString::to_string_lossy)
        .unwrap_or_default()
}

/// A message line as an object. The error does not quote the line: every caller adds its
/// preview, so the line is quoted once.
pub(crate) fn message(line: &str) -> Result<Object, String> {
    let json = Json::parse(line).map_err(|e| format!("not JSON ({e})"))?;
    let kind = json.type_name();
    json.into_object()
        .ok_or_else(|| format!("a message must be an object, found {kind}"))
}

/// Whether the message has the `type` `expected`.
pub(crate) fn expect_type(message: &Object, expected: &str) -> Result<(), String> {
    match message.get("type").and_then(Json::as_string) {
        Some(t) if t.eq_str(expected) => Ok(()),
        Some(t) => Err(format!(
            "expected a {expected:?} message, received {:?}",
            t.to_string()
        )),
        None => Err(format!(
            "expected a {expected:?} message, received one without a string \"type\""
        )),
    }
}

/// The start of a line, for messages about it.
pub(crate) fn preview(line: &str) -> String {
    let cut: String = line.chars().take(80).collect();
    if cut.len() < line.len() {
        format!("{cut:?}…")
    } else {
        format!("{cut:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_that_is_not_json_is_refused_without_quoting_it() {
        let refused = message("garbage here").expect_err("not JSON");
        assert!(refused.starts_with("not JSON ("), "{refused}");
        assert!(!refused.contains("garbage"), "{refused}");
        assert_eq!(
            message("[1]").expect_err("not an object"),
            "a message must be an object, found array"
        );
    }
}
