//! One call of a web tool in upstream's order (execution-web.md §3.1, §4.1): validate, region, ask, credential, dispatch.

use std::time::{Duration, Instant};

use super::credentials::{self, Credential};
use super::fetch::{self, Format, Target};
use super::host::{Endpoint, FetchProvider, Host, Permission, SearchProvider};
use super::provider::object;
use super::search::{self, Freshness, Query};
use crate::catalog::Tool;
use crate::issue::{Verdict, one_line};
use crate::js_string::JsString;
use crate::json::{Json, Object};

/// What one call of a web tool did: the result object or the raised message, and the
/// permission requests made (each `context.ask`'s argument as a JSON object, member order as
/// upstream writes it).
#[derive(Clone, Debug, PartialEq)]
pub struct WebCall {
    pub result: Result<Json, JsString>,
    pub asks: Vec<Json>,
}

/// Runs one call of `web_search` or `web_fetch` with `input` against `host`.
///
/// Any other tool raises a text saying the reference runs only the two web tools here.
pub fn execute_web(tool: Tool, input: &Json, host: &Host) -> WebCall {
    // The caller's signal is the call's own: its clock starts as the call does (§2.3).
    let abort = host
        .abort_after_ms
        .and_then(|ms| Instant::now().checked_add(Duration::from_millis(ms)));
    let mut asks = Vec::new();
    let result = run(tool, input, host, abort, &mut asks);
    WebCall { result, asks }
}

/// The endpoint a valid call of `tool` under `host` would send its provider request to: none
/// for `native` fetch, for another tool, for Z.AI without a region, or when the provider has no
/// credential (the call then raises before any provider request). A test harness uses it to keep every such request on
/// its own machine.
pub fn provider_endpoint(tool: Tool, host: &Host) -> Option<Endpoint> {
    let (need, key, endpoint) = match tool {
        Tool::WebSearch => {
            let endpoint = match host.search.provider {
                SearchProvider::Exa => Endpoint::Exa,
                SearchProvider::Brave => Endpoint::Brave,
                SearchProvider::Zai => Endpoint::zai_search(host.search.region?),
            };
            let need = credentials::search_need(host.search.provider);
            (need, host.search.api_key.as_deref(), endpoint)
        }
        Tool::WebFetch => {
            let endpoint = match host.fetch.provider {
                FetchProvider::Native => return None,
                FetchProvider::Spider => Endpoint::Spider,
                FetchProvider::Zai => Endpoint::zai_reader(host.fetch.region?),
            };
            let need = credentials::fetch_need(host.fetch.provider)?;
            (need, host.fetch.api_key.as_deref(), endpoint)
        }
        Tool::HashlineEdit
        | Tool::StrReplaceEditor
        | Tool::WorkItemOpen
        | Tool::WorkItemList
        | Tool::WorkItemClose
        | Tool::WorkItemDecide
        | Tool::WorkCheckpoint => return None,
    };
    credentials::resolve(host, need, key).map(|_| endpoint)
}

fn run(
    tool: Tool,
    input: &Json,
    host: &Host,
    abort: Option<Instant>,
    asks: &mut Vec<Json>,
) -> Result<Json, JsString> {
    let accepted = match tool {
        // §1.3: the region is refused as the tool instance is built, before any call, so
        // before validation too.
        Tool::WebSearch | Tool::WebFetch => {
            check_regions(host).and_then(|()| accept(tool, input))?
        }
        Tool::HashlineEdit
        | Tool::StrReplaceEditor
        | Tool::WorkItemOpen
        | Tool::WorkItemList
        | Tool::WorkItemClose
        | Tool::WorkItemDecide
        | Tool::WorkCheckpoint => {
            return Err(JsString::from(format!(
                "execute_web runs only web_search and web_fetch, not {}",
                tool.id()
            )));
        }
    };
    let string = |name: &str| {
        accepted
            .get(name)
            .and_then(Json::as_string)
            .cloned()
            .unwrap_or_default()
    };
    if tool == Tool::WebSearch {
        let provider = host.search.provider;
        let query = Query {
            query: string("query"),
            count: accepted.get("count").and_then(Json::as_f64).unwrap_or(8.0),
            freshness: accepted
                .get("freshness")
                .and_then(Json::as_string)
                .and_then(|f| Freshness::from_name(&f.to_string_lossy())),
            abort,
        };
        ask(
            host,
            asks,
            "web_search",
            &query.query,
            object([("provider", Json::str(provider.name()))]),
        )?;
        let need = credentials::search_need(provider);
        let credential = credentials::resolve(host, need, host.search.api_key.as_deref())
            .ok_or_else(|| JsString::from(need.missing()))?;
        return search::run(host, &query, &credential);
    }
    let provider = host.fetch.provider;
    let format = accepted
        .get("format")
        .and_then(Json::as_string)
        .and_then(|f| Format::from_name(&f.to_string_lossy()))
        .unwrap_or(Format::Markdown);
    let target = Target {
        url: string("url"),
        format,
        timeout_ms: accepted
            .get("timeout")
            .and_then(Json::as_f64)
            .unwrap_or(30.0)
            * 1000.0,
        abort,
    };
    ask(
        host,
        asks,
        "web_fetch",
        &target.url,
        object([
            ("provider", Json::str(provider.name())),
            ("format", Json::str(format.name())),
        ]),
    )?;
    let credential: Option<Credential> = match credentials::fetch_need(provider) {
        None => None,
        Some(need) => Some(
            credentials::resolve(host, need, host.fetch.api_key.as_deref())
                .ok_or_else(|| JsString::from(need.missing()))?,
        ),
    };
    fetch::run(host, &target, credential.as_ref())
}

/// Validation first (§0.2): a refusal raises its one-line form, with no `Error: ` prefix.
fn accept(tool: Tool, input: &Json) -> Result<Object, JsString> {
    match crate::validate_json(tool, input) {
        Verdict::Accept(output) => output
            .into_object()
            .ok_or_else(|| JsString::from("the validator accepted a non-object")),
        Verdict::Reject(issues) => Err(one_line(&issues)),
    }
}

/// §1.3: the start-up refuses a `zai` provider without a region, the search section first,
/// whichever tool is called (upstream resolves both sections before either tool exists).
fn check_regions(host: &Host) -> Result<(), JsString> {
    if host.search.provider == SearchProvider::Zai && host.search.region.is_none() {
        return Err(JsString::from(
            "web.search.region is required when provider is zai",
        ));
    }
    if host.fetch.provider == FetchProvider::Zai && host.fetch.region.is_none() {
        return Err(JsString::from(
            "web.fetch.region is required when provider is zai",
        ));
    }
    Ok(())
}

/// `context.ask({permission, patterns: [pattern], always: [], metadata})`, recorded; a deny raises.
fn ask(
    host: &Host,
    asks: &mut Vec<Json>,
    permission: &str,
    pattern: &JsString,
    metadata: Object,
) -> Result<(), JsString> {
    asks.push(Json::Object(object([
        ("permission", Json::str(permission)),
        ("patterns", Json::Array(vec![Json::String(pattern.clone())])),
        ("always", Json::Array(Vec::new())),
        ("metadata", Json::Object(metadata)),
    ])));
    match &host.permission {
        Permission::Allow => Ok(()),
        Permission::Deny(text) => Err(text.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(tool: Tool, input: &str, host: &str) -> WebCall {
        let host = Host::from_json(&Json::parse(host).unwrap_or(Json::Null)).unwrap_or_default();
        execute_web(tool, &Json::parse(input).unwrap_or(Json::Null), &host)
    }

    fn raised(c: &WebCall) -> String {
        c.result
            .as_ref()
            .err()
            .map(JsString::to_string_lossy)
            .unwrap_or_default()
    }

    #[test]
    fn refused_input_raises_before_anything() {
        let c = call(Tool::WebSearch, "{}", "{}");
        assert!(raised(&c).starts_with("INVALID_INPUT: "), "{}", raised(&c));
        assert!(c.asks.is_empty());
    }

    #[test]
    fn region_is_checked_before_the_ask() {
        let c = call(
            Tool::WebFetch,
            r#"{"url":"http://127.0.0.1:9/"}"#,
            r#"{"fetch":{"provider":"zai"}}"#,
        );
        assert_eq!(
            raised(&c),
            "web.fetch.region is required when provider is zai"
        );
        assert!(c.asks.is_empty());
    }

    #[test]
    fn missing_credential_after_the_ask() {
        let c = call(Tool::WebSearch, r#"{"query":"q"}"#, "{}");
        assert_eq!(
            raised(&c),
            "missing credential for exa: set EXA_API_KEY or web.search.apiKey"
        );
        assert_eq!(
            c.asks.iter().map(Json::to_compact).collect::<Vec<_>>(),
            [
                r#"{"permission":"web_search","patterns":["q"],"always":[],"metadata":{"provider":"exa"}}"#
            ]
        );
        let c = call(
            Tool::WebFetch,
            r#"{"url":"http://127.0.0.1:9/x","format":"text"}"#,
            r#"{"fetch":{"provider":"spider"}}"#,
        );
        assert_eq!(
            raised(&c),
            "missing credential for spider: set SPIDER_API_KEY or web.fetch.apiKey"
        );
        assert_eq!(
            c.asks.iter().map(Json::to_compact).collect::<Vec<_>>(),
            [
                r#"{"permission":"web_fetch","patterns":["http://127.0.0.1:9/x"],"always":[],"metadata":{"provider":"spider","format":"text"}}"#
            ]
        );
    }

    #[test]
    fn a_deny_raises_its_text() {
        let c = call(
            Tool::WebSearch,
            r#"{"query":"q"}"#,
            r#"{"permission":{"deny":"nope"},"env":{"EXA_API_KEY":"k"}}"#,
        );
        assert_eq!(raised(&c), "nope");
        assert_eq!(c.asks.len(), 1);
    }
}
