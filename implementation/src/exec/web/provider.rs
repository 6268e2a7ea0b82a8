//! What every provider API request shares: error mapping (§2.6), body decoding (§0.3), JSON in and out.

use std::time::Instant;

use super::http::{self, HttpError, Method, Request};
use crate::js_string::JsString;
use crate::json::{Json, Object};

/// `mapHttpErrorToProviderError` (§2.6): an HTTP status becomes the provider's text; the other
/// transport failures keep theirs.
pub fn map_error(error: &HttpError, provider: &str) -> JsString {
    match error {
        HttpError::Status {
            status: 401 | 403, ..
        } => JsString::from(format!("{provider} authentication failed")),
        HttpError::Status { status: 429, .. } => {
            JsString::from(format!("{provider} rate limit exceeded"))
        }
        HttpError::Status { status, .. } => {
            JsString::from(format!("{provider} server error HTTP {status}"))
        }
        HttpError::Oversized { .. }
        | HttpError::Timeout { .. }
        | HttpError::Aborted
        | HttpError::Network(_) => error.message(),
    }
}

/// `TextDecoder("utf-8")`: replacement of each maximal ill-formed subsequence, one leading BOM
/// removed, any `charset` ignored (§0.3).
pub fn decode(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    String::from_utf8_lossy(bytes).into_owned()
}

/// `JSON.parse` of the decoded body; `None` when it is not one JSON text.
pub fn parse_json(bytes: &[u8]) -> Option<Json> {
    Json::parse(&decode(bytes)).ok()
}

/// `JSON.stringify` of a request body (§0.3): the crate's compact writer, which escapes as it does.
pub fn stringify(members: Object) -> String {
    Json::Object(members).to_compact()
}

/// A JSON `POST` to a provider API, with the authentication header first (§3.2, §3.4, §4.7, §4.8).
pub fn post_json(
    url: &str,
    auth: (&'static str, String),
    body: Object,
    timeout_ms: f64,
    abort: Option<Instant>,
) -> Result<http::Response, HttpError> {
    http::send(&Request {
        url: JsString::from(url),
        method: Method::Post,
        headers: vec![
            auth,
            ("content-type", "application/json".to_owned()),
            ("accept", "application/json".to_owned()),
        ],
        body: Some(stringify(body)),
        timeout_ms,
        max_bytes: http::TEXT_MAX_BYTES,
        abort,
    })
}

/// An object of the given members, in order.
pub fn object(members: impl IntoIterator<Item = (&'static str, Json)>) -> Object {
    let mut out = Object::new();
    for (name, value) in members {
        out.insert(name, value);
    }
    out
}

/// A non-empty string member, as the normalizers take titles, snippets and dates.
pub fn non_empty<'a>(object: &'a Object, name: &str) -> Option<&'a JsString> {
    object
        .get(name)
        .and_then(Json::as_string)
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::web::http::Network;

    #[test]
    fn statuses_map_to_provider_texts() {
        let status = |status| HttpError::Status {
            status,
            url: JsString::from("u"),
        };
        assert!(map_error(&status(401), "exa").eq_str("exa authentication failed"));
        assert!(map_error(&status(403), "zai").eq_str("zai authentication failed"));
        assert!(map_error(&status(429), "brave").eq_str("brave rate limit exceeded"));
        assert!(map_error(&status(404), "zai").eq_str("zai server error HTTP 404"));
        assert!(map_error(&status(302), "spider").eq_str("spider server error HTTP 302"));
        assert!(
            map_error(&HttpError::Oversized { max: 5_242_880 }, "exa")
                .eq_str("response body exceeded 5242880 bytes")
        );
        assert!(
            map_error(&HttpError::Timeout { ms: 30000.0 }, "exa")
                .eq_str("request timed out after 30000ms")
        );
        assert!(
            map_error(&HttpError::Network(Network::Unreachable), "exa").eq_str(
                "network error: Unable to connect. Is the computer able to access the url?"
            )
        );
    }

    #[test]
    fn decoding_is_text_decoders() {
        assert_eq!(decode(b"\xEF\xBB\xBFa"), "a");
        assert_eq!(decode(b"\xEF\xBB\xBF\xEF\xBB\xBFa"), "\u{FEFF}a");
        assert_eq!(decode(b"a\xF0\x9F\x98b"), "a\u{FFFD}b");
        assert_eq!(decode(b"\xC0\xAF"), "\u{FFFD}\u{FFFD}");
    }

    #[test]
    fn stringify_is_json_stringify() {
        let mut s = JsString::from("a\"\\/\u{1}\u{8}\u{2028}é");
        s.push_units(&[0xDC00]);
        let body = stringify(object([("q", Json::String(s)), ("n", Json::Number(8.0))]));
        assert_eq!(
            body,
            "{\"q\":\"a\\\"\\\\/\\u0001\\b\u{2028}é\\udc00\",\"n\":8}"
        );
    }
}
