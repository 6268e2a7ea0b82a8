//! `web_fetch` after the ask (execution-web.md §4.4, §4.7–§4.9): native, Spider and Z.AI, and the result object.

use std::time::Instant;

use super::credentials::Credential;
use super::host::{Endpoint, FetchProvider, Host, Region};
use super::html;
use super::http::{self, HttpError, Method, Request};
use super::media::{self, Media};
use super::provider::{self, object};
use crate::js_string::JsString;
use crate::json::{Json, Object};

/// The native text cap, checked after reading (§4.4).
const TEXT_MAX_BYTES: usize = 5_242_880;

/// The accepted `format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Text,
    Html,
}

impl Format {
    /// The accepted input's value.
    pub fn from_name(name: &str) -> Option<Format> {
        match name {
            "markdown" => Some(Format::Markdown),
            "text" => Some(Format::Text),
            "html" => Some(Format::Html),
            _ => None,
        }
    }

    /// The name upstream writes (`metadata.format`, Z.AI's `return_format`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Markdown => "markdown",
            Format::Text => "text",
            Format::Html => "html",
        }
    }

    /// Spider's `SPIDER_RETURN_FORMAT`.
    fn spider(self) -> &'static str {
        match self {
            Format::Markdown => "markdown",
            Format::Text => "text",
            Format::Html => "raw",
        }
    }
}

/// The accepted input of one call.
#[derive(Clone, Debug)]
pub struct Target {
    pub url: JsString,
    pub format: Format,
    /// `timeout × 1000` (§4.1).
    pub timeout_ms: f64,
    /// When the caller aborts (§2.3): every request of the call shares the one signal.
    pub abort: Option<Instant>,
}

/// What a provider produced: a text, or media with the URL its file name comes from.
enum Outcome {
    Text(JsString, Object),
    Media(Media, Vec<u8>, String),
}

/// Runs the fetch on the configured provider and builds the result object (§4.9).
pub fn run(
    host: &Host,
    target: &Target,
    credential: Option<&Credential>,
) -> Result<Json, JsString> {
    let provider = host.fetch.provider;
    let mut metadata = Object::new();
    metadata.insert("provider", Json::str(provider.name()));
    if provider == FetchProvider::Zai {
        metadata.insert("region", Json::str(zai_region(host).name()));
    }
    metadata.insert("format", Json::str(target.format.name()));
    if let Some(credential) = credential {
        metadata.insert("credentialSource", Json::str(credential.source.name()));
    }
    let key = credential.map_or("", |c| c.value.as_str());
    let outcome = match provider {
        FetchProvider::Native => {
            let (outcome, status) = native(target)?;
            metadata.insert("status", Json::Number(f64::from(status)));
            outcome
        }
        FetchProvider::Spider => match probe(target)? {
            Some(media) => media,
            None => spider(host, target, key)?,
        },
        FetchProvider::Zai => match probe(target)? {
            Some(media) => media,
            None => zai(host, target, key)?,
        },
    };
    let mut title = JsString::from("web_fetch: ");
    title.push_units(target.url.units());
    Ok(Json::Object(match outcome {
        Outcome::Text(text, extra) => {
            for (name, value) in extra.iter() {
                metadata.insert(&name.to_string_lossy(), value.clone());
            }
            object([
                ("title", Json::String(title)),
                ("output", Json::String(text)),
                ("metadata", Json::Object(metadata)),
            ])
        }
        Outcome::Media(kind, body, final_url) => object([
            ("title", Json::String(title)),
            ("output", Json::String(media::summary(&final_url, kind))),
            (
                "attachments",
                Json::Array(vec![media::attachment(&body, kind, &final_url)]),
            ),
            ("metadata", Json::Object(metadata)),
        ]),
    }))
}

fn zai_region(host: &Host) -> Region {
    host.fetch.region.unwrap_or(Region::International)
}

/// `GET <url>` with no headers of its own, the media cap (§4.4, §4.7 step 1).
fn get_target(target: &Target) -> Result<http::Response, HttpError> {
    http::send(&Request {
        url: target.url.clone(),
        method: Method::Get,
        headers: Vec::new(),
        body: None,
        timeout_ms: target.timeout_ms,
        max_bytes: http::MEDIA_MAX_BYTES,
        abort: target.abort,
    })
}

/// `fetchNative` (§4.4): the outcome and the final status.
fn native(target: &Target) -> Result<(Outcome, u16), JsString> {
    let response = get_target(target).map_err(|e| e.message())?;
    let declared = media::declared(response.content_type.as_deref());
    if let Some(kind) = media::resolve(&response.body, declared.as_deref()) {
        return Ok((
            Outcome::Media(kind, response.body, response.final_url),
            response.status,
        ));
    }
    if !is_text_like(declared.as_deref()) {
        return Err(JsString::from(format!(
            "unsupported content type: {}",
            declared.as_deref().unwrap_or("unknown")
        )));
    }
    if response.body.len() > TEXT_MAX_BYTES {
        return Err(JsString::from(format!(
            "text response exceeded {TEXT_MAX_BYTES} bytes"
        )));
    }
    let text = provider::decode(&response.body);
    let output = if looks_like_html(declared.as_deref(), &text) {
        match target.format {
            Format::Markdown => html::to_markdown(&text).map_err(|t| JsString::from(t.0))?,
            Format::Text => html::to_text(&text),
            Format::Html => text,
        }
    } else {
        text
    };
    Ok((
        Outcome::Text(JsString::from(output), Object::new()),
        response.status,
    ))
}

/// `isTextLike` (§4.4).
pub fn is_text_like(declared: Option<&str>) -> bool {
    let Some(t) = declared else { return true };
    t.starts_with("text/")
        || matches!(
            t,
            "application/json"
                | "application/xml"
                | "text/xml"
                | "application/javascript"
                | "text/javascript"
        )
        || t.ends_with("+json")
        || t.ends_with("+xml")
}

/// `looksLikeHtml` (§4.4): a declared HTML type, or no type and the tag pattern early on.
pub fn looks_like_html(declared: Option<&str>, text: &str) -> bool {
    match declared {
        Some("text/html" | "application/xhtml+xml") => true,
        // `application/octet-stream` is tested upstream too, but never reaches here (§4.4).
        Some("application/octet-stream") | None => has_tag(text),
        Some(_) => false,
    }
}

/// `/<\s*(html|body|div|p|h[1-6]|table)\b/i` on the first 2,000 UTF-16 units.
fn has_tag(text: &str) -> bool {
    let units: Vec<u16> = text.encode_utf16().take(2000).collect();
    let lower = |u: u16| {
        if (0x41..=0x5A).contains(&u) {
            u + 0x20
        } else {
            u
        }
    };
    let word = |u: u16| matches!(u, 0x30..=0x39 | 0x41..=0x5A | 0x61..=0x7A | 0x5F);
    let names: [&[u8]; 6] = [b"html", b"body", b"div", b"p", b"table", b"h"];
    for (start, &u) in units.iter().enumerate() {
        if u != u16::from(b'<') {
            continue;
        }
        let mut at = start + 1;
        while units.get(at).is_some_and(|&u| crate::text::is_trim_unit(u)) {
            at += 1;
        }
        for name in names {
            let rest = &units[at.min(units.len())..];
            let matched = rest.len() >= name.len()
                && rest
                    .iter()
                    .zip(name)
                    .all(|(&u, &b)| lower(u) == u16::from(b));
            if !matched {
                continue;
            }
            let mut end = at + name.len();
            if name == b"h" {
                if !units.get(end).is_some_and(|u| (0x31..=0x36).contains(u)) {
                    continue;
                }
                end += 1;
            }
            if !units.get(end).is_some_and(|&u| word(u)) {
                return true;
            }
        }
    }
    false
}

/// `loadMediaAttachment` as a probe (§4.7 step 1): media, or `None` to go on; failures propagate.
fn probe(target: &Target) -> Result<Option<Outcome>, JsString> {
    let response = get_target(target).map_err(|e| e.message())?;
    let declared = media::declared(response.content_type.as_deref());
    Ok(media::resolve(&response.body, declared.as_deref())
        .map(|kind| Outcome::Media(kind, response.body, response.final_url)))
}

/// `scrapeSpider` after the probe (§4.7 steps 2–3).
fn spider(host: &Host, target: &Target, key: &str) -> Result<Outcome, JsString> {
    let body = object([
        ("url", Json::String(target.url.clone())),
        (
            "return_format",
            Json::Array(vec![Json::str(target.format.spider())]),
        ),
    ]);
    let response = provider::post_json(
        host.endpoint(Endpoint::Spider),
        ("Authorization", format!("Bearer {key}")),
        body,
        target.timeout_ms,
        target.abort,
    )
    .map_err(|e| provider::map_error(&e, "spider"))?;
    parse_spider(&response.body)
}

/// `parseSpiderResponse` (§4.7 step 3).
fn parse_spider(body: &[u8]) -> Result<Outcome, JsString> {
    let value = provider::parse_json(body)
        .ok_or_else(|| JsString::from("malformed JSON response from spider"))?;
    let first = value
        .as_array()
        .and_then(<[Json]>::first)
        .and_then(Json::as_object)
        .ok_or_else(|| JsString::from("unexpected spider response envelope"))?;
    let mut metadata = Object::new();
    if let Some(Json::Number(n)) = first.get("status") {
        metadata.insert("status", Json::Number(*n));
    }
    if let Some(Json::Number(n)) = first.get("duration") {
        metadata.insert("durationMs", Json::Number(*n));
    }
    if let Some(error) = first.get("error").filter(|e| truthy(e)) {
        let mut text = JsString::from("spider error: ");
        match error.as_string() {
            Some(s) => text.push_units(s.units()),
            None => text.push_str("scrape failed"),
        }
        return Err(text);
    }
    match first.get("content").and_then(Json::as_string) {
        Some(content) => Ok(Outcome::Text(content.clone(), metadata)),
        None => Err(JsString::from("spider response missing content")),
    }
}

/// ECMAScript truthiness of a JSON value.
fn truthy(value: &Json) -> bool {
    match value {
        Json::Null => false,
        Json::Bool(b) => *b,
        Json::Number(n) => *n != 0.0 && !n.is_nan(),
        Json::String(s) => !s.is_empty(),
        Json::Array(_) | Json::Object(_) => true,
    }
}

/// `fetchZai` after the probe (§4.8 steps 2–3).
fn zai(host: &Host, target: &Target, key: &str) -> Result<Outcome, JsString> {
    let endpoint = Endpoint::zai_reader(zai_region(host));
    let body = object([
        ("url", Json::String(target.url.clone())),
        ("timeout", Json::Number(target.timeout_ms / 1000.0)),
        ("return_format", Json::str(target.format.name())),
    ]);
    let response = provider::post_json(
        host.endpoint(endpoint),
        ("Authorization", format!("Bearer {key}")),
        body,
        target.timeout_ms,
        target.abort,
    )
    .map_err(|e| provider::map_error(&e, "zai"))?;
    parse_reader(&response.body, response.status)
}

/// `parseReaderResponse` (§4.8 step 3).
fn parse_reader(body: &[u8], status: u16) -> Result<Outcome, JsString> {
    let value = provider::parse_json(body)
        .ok_or_else(|| JsString::from("malformed JSON response from zai reader"))?;
    let envelope = || JsString::from("unexpected zai reader response envelope");
    let top = value.as_object().ok_or_else(envelope)?;
    let reader = top
        .get("reader_result")
        .and_then(Json::as_object)
        .ok_or_else(envelope)?;
    let content = reader
        .get("content")
        .and_then(Json::as_string)
        .ok_or_else(envelope)?;
    let mut metadata = Object::new();
    metadata.insert("status", Json::Number(f64::from(status)));
    let strings = [
        ("requestId", top.get("request_id")),
        ("model", top.get("model")),
    ];
    for (name, value) in strings {
        if let Some(s) = value.and_then(Json::as_string) {
            metadata.insert(name, Json::String(s.clone()));
        }
    }
    if let Some(Json::Number(n)) = top.get("created") {
        metadata.insert("created", Json::Number(*n));
    }
    if let Some(s) = reader.get("title").and_then(Json::as_string) {
        metadata.insert("title", Json::String(s.clone()));
    }
    Ok(Outcome::Text(content.clone(), metadata))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_like_types() {
        for t in [
            None,
            Some("text/plain"),
            Some("text/css"),
            Some("application/json"),
            Some("application/xml"),
            Some("application/javascript"),
            Some("application/ld+json"),
            Some("image/svg+xml"),
        ] {
            assert!(is_text_like(t), "{t:?}");
        }
        for t in [
            Some("application/octet-stream"),
            Some("application/zip"),
            Some("image/avif"),
            Some("application/jsonx"),
        ] {
            assert!(!is_text_like(t), "{t:?}");
        }
    }

    #[test]
    fn html_detection() {
        assert!(looks_like_html(Some("text/html"), "plain"));
        assert!(looks_like_html(Some("application/xhtml+xml"), ""));
        assert!(!looks_like_html(Some("text/plain"), "<html>"));
        for yes in [
            "<P>",
            "< div class=x>",
            "<h3>",
            "x<table",
            "<\u{a0}body>",
            "<HTML>",
        ] {
            assert!(looks_like_html(None, yes), "{yes}");
        }
        for no in [
            "<pre>",
            "<span>",
            "<h7>",
            "<!DOCTYPE html>",
            "<divx>",
            "<p_",
            "< >",
            "<h",
        ] {
            assert!(!looks_like_html(None, no), "{no}");
        }
        // Only the first 2,000 units are tested, and the slice's end is a word boundary.
        let late = format!("{}<p>", "a".repeat(1999));
        assert!(!looks_like_html(None, &late));
        let edge = format!("{}<p>", "a".repeat(1997));
        assert!(looks_like_html(None, &edge));
        let cut = format!("{}<px", "a".repeat(1998));
        assert!(looks_like_html(None, &cut));
        assert!(!looks_like_html(None, &format!("{}<px", "a".repeat(1997))));
    }

    fn spider_text(body: &str) -> Result<(String, String), String> {
        match parse_spider(body.as_bytes()) {
            Ok(Outcome::Text(t, m)) => Ok((t.to_string_lossy(), Json::Object(m).to_compact())),
            Ok(Outcome::Media(..)) => Err("media".to_owned()),
            Err(e) => Err(e.to_string_lossy()),
        }
    }

    #[test]
    fn spider_answers() {
        assert_eq!(
            spider_text(r#"[{"content":"c","status":200,"duration":1.5,"error":""}]"#),
            Ok((
                "c".to_owned(),
                r#"{"status":200,"durationMs":1.5}"#.to_owned()
            ))
        );
        assert_eq!(
            spider_text("x"),
            Err("malformed JSON response from spider".to_owned())
        );
        assert_eq!(
            spider_text("[]"),
            Err("unexpected spider response envelope".to_owned())
        );
        assert_eq!(
            spider_text("[1]"),
            Err("unexpected spider response envelope".to_owned())
        );
        assert_eq!(
            spider_text(r#"[{"error":"boom","content":"c"}]"#),
            Err("spider error: boom".to_owned())
        );
        assert_eq!(
            spider_text(r#"[{"error":{},"content":"c"}]"#),
            Err("spider error: scrape failed".to_owned())
        );
        assert_eq!(
            spider_text(r#"[{"error":0,"content":""}]"#),
            Ok((String::new(), "{}".to_owned()))
        );
        assert_eq!(
            spider_text(r#"[{"content":1}]"#),
            Err("spider response missing content".to_owned())
        );
    }

    #[test]
    fn reader_answers() {
        let text = |body: &str| match parse_reader(body.as_bytes(), 200) {
            Ok(Outcome::Text(t, m)) => Ok((t.to_string_lossy(), Json::Object(m).to_compact())),
            Ok(Outcome::Media(..)) => Err("media".to_owned()),
            Err(e) => Err(e.to_string_lossy()),
        };
        assert_eq!(
            text(
                r#"{"created":1,"model":"m","request_id":"","reader_result":{"content":"c","title":"t"}}"#
            ),
            Ok((
                "c".to_owned(),
                r#"{"status":200,"requestId":"","model":"m","created":1,"title":"t"}"#.to_owned()
            ))
        );
        assert_eq!(
            text("{"),
            Err("malformed JSON response from zai reader".to_owned())
        );
        assert_eq!(
            text(r#"{"reader_result":{"content":1}}"#),
            Err("unexpected zai reader response envelope".to_owned())
        );
    }
}
