//! Reading one web scenario (formats.md, "Web scenario file"), refusing anything malformed and
//! any URL that could send a tool past loopback.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use std::path::Path;

use vvoc_reference::exec::web::{Host, provider_endpoint};
use vvoc_reference::{Json, Object, Tool};

use crate::load::error::LoadError;
use crate::load::vector::valid_id;
use crate::scenario::paths::replace_json;
use crate::web::model::{
    Body, ExpectedRequest, Route, SERVER, WebExpect, WebProblem, WebReply, WebScenario,
};
use crate::web::play::refused_host;

const MEMBERS: [&str; 10] = [
    "id", "note", "host", "routes", "call", "result", "family", "throws", "asks", "requests",
];

/// Reads web scenario `index` of `file`.
pub(crate) fn parse_web_scenario(
    tool: Tool,
    file: &Path,
    index: usize,
    item: &Json,
) -> Result<WebScenario, LoadError> {
    let id = item
        .as_object()
        .and_then(|o| o.get("id"))
        .and_then(Json::as_string)
        .map(|s| s.to_string());
    let error = |problem| LoadError::WebScenario {
        file: file.to_owned(),
        index,
        id: id.clone(),
        problem,
    };
    let object = item
        .as_object()
        .ok_or_else(|| error(WebProblem::NotObject))?;
    scenario(tool, object, id.as_deref()).map_err(error).map(
        |(id, note, host, routes, call, expect)| WebScenario {
            tool,
            id,
            note,
            host,
            routes,
            call,
            expect,
            file: file.to_owned(),
            source: file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            index,
        },
    )
}

type Parts = (String, Option<String>, Json, Vec<Route>, Json, WebExpect);

fn scenario(tool: Tool, object: &Object, id: Option<&str>) -> Result<Parts, WebProblem> {
    if let Some((name, _)) = object
        .iter()
        .find(|(k, _)| !MEMBERS.iter().any(|m| k.eq_str(m)))
    {
        return Err(WebProblem::UnknownMember(name.to_string()));
    }
    let id = id.ok_or(WebProblem::MissingId)?.to_owned();
    if !valid_id(&id) {
        return Err(WebProblem::BadId);
    }
    let note = optional_string(object, "note")?;
    let host = match object.get("host") {
        None => Json::Object(Object::new()),
        Some(host @ Json::Object(_)) => host.clone(),
        Some(_) => return Err(type_error("host", "an object")),
    };
    let routes = match object.get("routes") {
        None => Vec::new(),
        Some(Json::Array(items)) => routes(items)?,
        Some(_) => return Err(type_error("routes", "an array of routes")),
    };
    let call = object
        .get("call")
        .cloned()
        .ok_or_else(|| type_error("call", "the tool's input (it is required)"))?;
    let reply = match (object.get("result"), object.get("throws")) {
        (Some(value), None) => match object.get("family").and_then(Json::as_string) {
            Some(family) => WebReply::Result {
                family: family.to_string(),
                value: value.clone(),
            },
            None => return Err(WebProblem::Family),
        },
        (None, Some(Json::String(text))) if !object.contains("family") => {
            WebReply::Throws(text.clone())
        }
        (None, Some(Json::String(_))) => return Err(WebProblem::Family),
        (None, Some(_)) => return Err(type_error("throws", "a string")),
        (Some(_), Some(_)) | (None, None) => return Err(WebProblem::ReplyKind),
    };
    let asks = match object.get("asks") {
        Some(Json::Array(items)) if items.iter().all(|a| a.as_object().is_some()) => items.clone(),
        _ => {
            return Err(type_error(
                "asks",
                "an array of permission requests (objects)",
            ));
        }
    };
    let requests = match object.get("requests") {
        Some(Json::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, r)| request(i, r))
            .collect::<Result<_, _>>()?,
        _ => return Err(type_error("requests", "an array of requests")),
    };
    on_loopback(tool, &host, &call)?;
    let expect = WebExpect {
        reply,
        asks,
        requests,
    };
    Ok((id, note, host, routes, call, expect))
}

fn routes(items: &[Json]) -> Result<Vec<Route>, WebProblem> {
    let mut routes: Vec<Route> = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let route = route(index, item)?;
        if let Some(first) = routes
            .iter()
            .position(|r| r.method == route.method && r.path == route.path)
        {
            return Err(WebProblem::DuplicateRoute(first, index));
        }
        routes.push(route);
    }
    Ok(routes)
}

fn route(index: usize, item: &Json) -> Result<Route, WebProblem> {
    const ROUTE: [&str; 6] = ["method", "path", "status", "headers", "body", "delay_ms"];
    let at = |member: &str| format!("routes[{index}].{member}");
    let object = item.as_object().ok_or_else(|| WebProblem::Type {
        at: format!("routes[{index}]"),
        must: "an object",
    })?;
    if let Some((name, _)) = object
        .iter()
        .find(|(k, _)| !ROUTE.iter().any(|m| k.eq_str(m)))
    {
        return Err(WebProblem::UnknownMember(format!("routes[{index}].{name}")));
    }
    let method = match object.get("method") {
        None => "GET".to_owned(),
        Some(Json::String(m)) if token(&m.to_string()) => m.to_string(),
        Some(_) => return Err(type_error(&at("method"), "an HTTP method such as \"POST\"")),
    };
    let path = match object.get("path") {
        Some(Json::String(p)) => p.to_string(),
        _ => return Err(type_error(&at("path"), "a string")),
    };
    if !path.starts_with('/')
        || path
            .chars()
            .any(|c| c.is_ascii_whitespace() || c.is_control())
    {
        return Err(WebProblem::RoutePath(index));
    }
    let status = match object.get("status") {
        None => 200,
        Some(Json::Number(n)) if n.fract() == 0.0 && (100.0..=999.0).contains(n) => *n as u16,
        Some(_) => return Err(type_error(&at("status"), "an integer from 100 to 999")),
    };
    let headers = match object.get("headers") {
        None => Vec::new(),
        Some(Json::Array(pairs)) => pairs
            .iter()
            .map(|pair| header(pair).ok_or_else(|| type_error(&at("headers"), HEADERS)))
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(type_error(&at("headers"), HEADERS)),
    };
    let body = match object.get("body") {
        None => Body::Bytes(Vec::new()),
        Some(body) => body_bytes(body).ok_or_else(|| type_error(&at("body"), BODY))?,
    };
    let delay_ms = match object.get("delay_ms") {
        None => 0,
        Some(Json::Number(n)) if n.fract() == 0.0 && (0.0..=120_000.0).contains(n) => *n as u64,
        Some(_) => return Err(type_error(&at("delay_ms"), "an integer from 0 to 120000")),
    };
    Ok(Route {
        method,
        path,
        status,
        headers,
        body,
        delay_ms,
    })
}

const HEADERS: &str = "an array of [name, value] string pairs (a name is an HTTP token; a value \
                       has no line break)";
const BODY: &str = "a string, {\"base64\": \"...\"} or {\"repeat\": TEXT, \"count\": N} (at most \
                    64 MiB in all)";
/// The largest body a route may declare (a cap test needs 20 MiB + 1).
const BODY_LIMIT: usize = 64 << 20;

fn header(pair: &Json) -> Option<(String, String)> {
    let [Json::String(name), Json::String(value)] = pair.as_array()? else {
        return None;
    };
    let (name, value) = (name.to_string(), value.to_string());
    (token(&name) && !value.contains(['\r', '\n'])).then_some((name, value))
}

fn token(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

fn body_bytes(body: &Json) -> Option<Body> {
    match body {
        Json::String(text) => Some(Body::Bytes(text.to_string().into_bytes())),
        Json::Object(o) if o.len() == 1 => match o.get("base64") {
            Some(Json::String(b64)) => BASE64.decode(b64.to_string()).ok().map(Body::Bytes),
            _ => None,
        },
        Json::Object(o) if o.len() == 2 => {
            let text = o.get("repeat")?.as_string()?.to_string();
            let count = match o.get("count")? {
                Json::Number(n) if n.fract() == 0.0 && *n >= 0.0 => *n as usize,
                _ => return None,
            };
            (text.len().saturating_mul(count) <= BODY_LIMIT).then_some(Body::Repeat { text, count })
        }
        Json::Null | Json::Bool(_) | Json::Number(_) | Json::Array(_) | Json::Object(_) => None,
    }
}

fn request(index: usize, item: &Json) -> Result<ExpectedRequest, WebProblem> {
    let at = |member: &str| format!("requests[{index}].{member}");
    let object = item.as_object().ok_or_else(|| WebProblem::Type {
        at: format!("requests[{index}]"),
        must: "an object",
    })?;
    const REQUEST: [&str; 4] = ["method", "path", "headers", "body"];
    if let Some((name, _)) = object
        .iter()
        .find(|(k, _)| !REQUEST.iter().any(|m| k.eq_str(m)))
    {
        return Err(WebProblem::UnknownMember(format!(
            "requests[{index}].{name}"
        )));
    }
    let text = |member: &str| match object.get(member) {
        Some(Json::String(s)) => Ok(s.to_string()),
        _ => Err(type_error(&at(member), "a string")),
    };
    let headers = match object.get("headers") {
        None => Vec::new(),
        Some(Json::Object(o)) => o
            .iter()
            .map(|(name, value)| match value {
                Json::String(v) => Ok((name.to_string().to_ascii_lowercase(), v.to_string())),
                _ => Err(type_error(
                    &at("headers"),
                    "an object of header names to strings",
                )),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(type_error(
                &at("headers"),
                "an object of header names to strings",
            ));
        }
    };
    Ok(ExpectedRequest {
        method: text("method")?,
        path: text("path")?,
        headers,
        body: object.get("body").cloned(),
    })
}

/// Refuses a call URL or an endpoint that is neither `{server}…` nor loopback, a host
/// configuration the reference refuses, and one whose provider request would go to upstream's
/// real endpoint.
fn on_loopback(tool: Tool, host: &Json, call: &Json) -> Result<(), WebProblem> {
    if tool == Tool::WebFetch
        && let Some(url) = call
            .as_object()
            .and_then(|c| c.get("url"))
            .and_then(Json::as_string)
    {
        let url = url.to_string();
        // Only a URL the tool would fetch matters: one that validation refuses never leaves.
        if vvoc_reference::whatwg_url::scheme(&url).is_some_and(|s| s == "http" || s == "https")
            && !loopback(&url)
        {
            return Err(WebProblem::OffLoopback {
                at: "call.url".to_owned(),
                url,
            });
        }
    }
    let endpoints = host
        .as_object()
        .and_then(|h| h.get("endpoints"))
        .and_then(Json::as_object);
    for (name, url) in endpoints.into_iter().flat_map(Object::iter) {
        let url = url.as_string().map(|u| u.to_string()).unwrap_or_default();
        if !loopback(&url) {
            return Err(WebProblem::OffLoopback {
                at: format!("host.endpoints.{name}"),
                url,
            });
        }
    }
    // The reference reads the configuration, as it will when the call is made (with a loopback
    // stand-in for the server), and says where the provider request would go.
    let parsed = Host::from_json(&replace_json(host, SERVER, "http://127.0.0.1:1"))
        .map_err(|e| WebProblem::Host(refused_host(&e)))?;
    match provider_endpoint(tool, &parsed) {
        Some(endpoint) if !loopback(parsed.endpoint(endpoint)) => Err(WebProblem::NoEndpoint {
            endpoint: endpoint.name(),
            url: endpoint.default_url(),
        }),
        Some(_) | None => Ok(()),
    }
}

/// Whether `url` is `{server}…` or names a loopback host over http(s).
fn loopback(url: &str) -> bool {
    if url.starts_with(SERVER) {
        return true;
    }
    url::Url::parse(url).is_ok_and(|u| {
        matches!(u.scheme(), "http" | "https")
            && match u.host() {
                Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
                Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
                Some(url::Host::Domain(d)) => d == "localhost",
                None => false,
            }
    })
}

fn optional_string(object: &Object, member: &str) -> Result<Option<String>, WebProblem> {
    match object.get(member) {
        None => Ok(None),
        Some(Json::String(s)) => Ok(Some(s.to_string())),
        Some(_) => Err(type_error(member, "a string")),
    }
}

fn type_error(at: &str, must: &'static str) -> WebProblem {
    WebProblem::Type {
        at: at.to_owned(),
        must,
    }
}
