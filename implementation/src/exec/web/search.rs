//! `web_search` after the ask (execution-web.md §3.2–§3.6): Exa, Brave and Z.AI requests, their answers, the Markdown.

use std::time::Instant;

use super::credentials::Credential;
use super::host::{Endpoint, Host, Region, SearchProvider};
use super::http::{self, Method, Request};
use super::provider::{self, non_empty, object};
use crate::js_string::JsString;
use crate::json::{Json, Object, format_number};

/// `web_search` uses this timer whatever the input (`DEFAULT_REQUEST_TIMEOUT_MS`, §2.3).
const TIMEOUT_MS: f64 = 30000.0;

/// A freshness window of the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Freshness {
    Day,
    Week,
    Month,
    Year,
}

impl Freshness {
    /// The accepted input's value.
    pub fn from_name(name: &str) -> Option<Freshness> {
        match name {
            "day" => Some(Freshness::Day),
            "week" => Some(Freshness::Week),
            "month" => Some(Freshness::Month),
            "year" => Some(Freshness::Year),
            _ => None,
        }
    }

    /// Exa's `FRESHNESS_DAYS`.
    fn days(self) -> i64 {
        match self {
            Freshness::Day => 1,
            Freshness::Week => 7,
            Freshness::Month => 31,
            Freshness::Year => 365,
        }
    }

    /// Brave's `BRAVE_FRESHNESS`.
    fn brave(self) -> &'static str {
        match self {
            Freshness::Day => "pd",
            Freshness::Week => "pw",
            Freshness::Month => "pm",
            Freshness::Year => "py",
        }
    }

    /// Z.AI's `ZAI_FRESHNESS`.
    fn zai(self) -> &'static str {
        match self {
            Freshness::Day => "oneDay",
            Freshness::Week => "oneWeek",
            Freshness::Month => "oneMonth",
            Freshness::Year => "oneYear",
        }
    }
}

/// The accepted input of one call.
#[derive(Clone, Debug)]
pub struct Query {
    pub query: JsString,
    pub count: f64,
    pub freshness: Option<Freshness>,
    /// When the caller aborts (§2.3).
    pub abort: Option<Instant>,
}

/// One normalized result.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    pub title: JsString,
    pub url: JsString,
    pub snippet: Option<JsString>,
    pub published_at: Option<JsString>,
}

/// Runs the search on the configured provider and builds the result object (§3.6).
pub fn run(host: &Host, query: &Query, credential: &Credential) -> Result<Json, JsString> {
    let provider = host.search.provider;
    let request = build(host, query, credential);
    let response = http::send(&request).map_err(|e| provider::map_error(&e, provider.name()))?;
    let hits = parse(provider, &response.body)?;
    let mut metadata = Object::new();
    metadata.insert("provider", Json::str(provider.name()));
    if provider == SearchProvider::Zai {
        metadata.insert("region", Json::str(zai_region(host).name()));
    }
    metadata.insert("resultCount", Json::Number(hits.len() as f64));
    metadata.insert("credentialSource", Json::str(credential.source.name()));
    let mut title = JsString::from("web_search: ");
    title.push_units(query.query.units());
    Ok(Json::Object(object([
        ("title", Json::String(title)),
        ("output", Json::String(render(&hits))),
        ("metadata", Json::Object(metadata)),
    ])))
}

/// The region of a `zai` search; the host check (§1.3) has made sure there is one.
fn zai_region(host: &Host) -> Region {
    host.search.region.unwrap_or(Region::International)
}

/// The one request of §3.2, §3.3 or §3.4.
pub fn build(host: &Host, query: &Query, credential: &Credential) -> Request {
    let q = Json::String(query.query.clone());
    let count = Json::Number(query.count);
    let (url, method, headers, body) = match host.search.provider {
        SearchProvider::Exa => {
            let mut body = object([
                ("query", q.clone()),
                ("type", Json::str("auto")),
                ("numResults", count),
                (
                    "contents",
                    Json::Object(object([(
                        "highlights",
                        Json::Object(object([("query", q), ("numSentences", Json::Number(3.0))])),
                    )])),
                ),
            ]);
            if let Some(f) = query.freshness {
                let at = host.now_ms().saturating_sub(f.days() * 86_400_000);
                body.insert("startPublishedDate", Json::str(&iso_date(at)));
            }
            (
                host.endpoint(Endpoint::Exa).to_owned(),
                Method::Post,
                vec![
                    ("x-api-key", credential.value.clone()),
                    ("content-type", "application/json".to_owned()),
                    ("accept", "application/json".to_owned()),
                ],
                Some(provider::stringify(body)),
            )
        }
        SearchProvider::Brave => {
            let mut pairs = vec![
                ("q", query.query.to_string_lossy()),
                ("count", format_number(query.count)),
                ("safesearch", "moderate".to_owned()),
            ];
            if let Some(f) = query.freshness {
                pairs.push(("freshness", f.brave().to_owned()));
            }
            (
                format!("{}?{}", host.endpoint(Endpoint::Brave), form_encode(&pairs)),
                Method::Get,
                vec![
                    ("X-Subscription-Token", credential.value.clone()),
                    ("accept", "application/json".to_owned()),
                ],
                None,
            )
        }
        SearchProvider::Zai => {
            let region = zai_region(host);
            let endpoint = Endpoint::zai_search(region);
            // The engine follows the region, not the endpoint (§1.4).
            let engine = match region {
                Region::International => "search-prime",
                Region::China => "search_pro",
            };
            let mut body = object([
                ("search_engine", Json::str(engine)),
                ("search_query", q),
                ("count", count),
            ]);
            if let Some(f) = query.freshness {
                body.insert("search_recency_filter", Json::str(f.zai()));
            }
            (
                host.endpoint(endpoint).to_owned(),
                Method::Post,
                vec![
                    ("Authorization", format!("Bearer {}", credential.value)),
                    ("content-type", "application/json".to_owned()),
                    ("accept", "application/json".to_owned()),
                ],
                Some(provider::stringify(body)),
            )
        }
    };
    Request {
        url: JsString::from(url),
        method,
        headers,
        body,
        timeout_ms: TIMEOUT_MS,
        max_bytes: http::TEXT_MAX_BYTES,
        abort: query.abort,
    }
}

/// `URLSearchParams` serialization (`application/x-www-form-urlencoded`, §3.3).
pub fn form_encode(pairs: &[(&str, String)]) -> String {
    let mut out = String::new();
    for (i, (name, value)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        push_form(&mut out, name);
        out.push('=');
        push_form(&mut out, value);
    }
    out
}

fn push_form(out: &mut String, text: &str) {
    for &b in text.as_bytes() {
        match b {
            b'*' | b'-' | b'.' | b'_' | b'0'..=b'9' | b'A'..=b'Z' | b'a'..=b'z' => {
                out.push(char::from(b));
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
}

/// `new Date(ms).toISOString()`: `YYYY-MM-DDTHH:mm:ss.sssZ`, the year as `±YYYYYY` outside 0–9999.
pub fn iso_date(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let in_day = ms.rem_euclid(86_400_000);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let year_text = if (0..=9999).contains(&year) {
        format!("{year:04}")
    } else if year < 0 {
        format!("-{:06}", -year)
    } else {
        format!("+{year:06}")
    };
    format!(
        "{year_text}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000
    )
}

/// Parses a provider's answer into normalized hits (§3.2–§3.4).
pub fn parse(provider: SearchProvider, body: &[u8]) -> Result<Vec<Hit>, JsString> {
    let (name, results, link) = match provider {
        SearchProvider::Exa => ("exa", &["results"][..], "url"),
        SearchProvider::Brave => ("brave", &["web", "results"][..], "url"),
        SearchProvider::Zai => ("zai search", &["search_result"][..], "link"),
    };
    let value = provider::parse_json(body)
        .ok_or_else(|| JsString::from(format!("malformed JSON response from {name}")))?;
    let envelope = || JsString::from(format!("unexpected {name} response envelope"));
    let mut at = value.as_object().ok_or_else(envelope)?;
    let (last, path) = results.split_last().ok_or_else(envelope)?;
    for step in path {
        at = at
            .get(step)
            .and_then(Json::as_object)
            .ok_or_else(envelope)?;
    }
    let items = at.get(last).and_then(Json::as_array).ok_or_else(envelope)?;
    Ok(items
        .iter()
        .filter_map(|item| normalize(provider, item, link))
        .collect())
}

fn normalize(provider: SearchProvider, item: &Json, link: &str) -> Option<Hit> {
    let item = item.as_object()?;
    let url = non_empty(item, link)?.clone();
    let title = non_empty(item, "title").unwrap_or(&url).clone();
    let (snippet, published_at) = match provider {
        SearchProvider::Exa => {
            let first = item
                .get("highlights")
                .and_then(Json::as_array)
                .and_then(|h| h.iter().find_map(Json::as_string))
                .filter(|s| !s.is_empty())
                .cloned();
            (first, non_empty(item, "publishedDate").cloned())
        }
        SearchProvider::Brave => (
            non_empty(item, "description").cloned(),
            non_empty(item, "page_age").cloned(),
        ),
        SearchProvider::Zai => (
            non_empty(item, "content").cloned(),
            non_empty(item, "publish_date").cloned(),
        ),
    };
    Some(Hit {
        title,
        url,
        snippet,
        published_at,
    })
}

/// `renderSearchMarkdown` (§3.5).
pub fn render(hits: &[Hit]) -> JsString {
    if hits.is_empty() {
        return JsString::from("No results found.");
    }
    let mut out = JsString::new();
    for (i, hit) in hits.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&format!("{}. [", i + 1));
        out.push_units(hit.title.units());
        out.push_str("](");
        out.push_units(hit.url.units());
        out.push(')');
        if let Some(snippet) = &hit.snippet {
            out.push_str("\n   ");
            out.push_units(snippet.units());
        }
        if let Some(date) = &hit.published_at {
            out.push_str("\n   _");
            out.push_units(date.units());
            out.push('_');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::web::credentials::Source;

    fn credential() -> Credential {
        Credential {
            value: "key".to_owned(),
            source: Source::Env,
        }
    }

    fn query(text: &str, freshness: Option<Freshness>) -> Query {
        Query {
            query: JsString::from(text),
            count: 8.0,
            freshness,
            abort: None,
        }
    }

    #[test]
    fn exa_request_with_freshness_from_now() {
        let host = Host {
            now: Some(1_767_225_600_000),
            ..Host::default()
        };
        let r = build(&host, &query("rust", Some(Freshness::Week)), &credential());
        assert!(r.url.eq_str("https://api.exa.ai/search"));
        assert_eq!(r.method, Method::Post);
        assert_eq!(r.headers[0], ("x-api-key", "key".to_owned()));
        assert_eq!(
            r.body.as_deref(),
            Some(
                "{\"query\":\"rust\",\"type\":\"auto\",\"numResults\":8,\"contents\":{\"highlights\":{\"query\":\"rust\",\"numSentences\":3}},\"startPublishedDate\":\"2025-12-25T00:00:00.000Z\"}"
            )
        );
        assert_eq!(r.timeout_ms, 30000.0);
        assert_eq!(r.max_bytes, 5_242_880);
        let r = build(&host, &query("rust", None), &credential());
        assert!(!r.body.unwrap_or_default().contains("startPublishedDate"));
    }

    #[test]
    fn iso_dates() {
        assert_eq!(iso_date(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            iso_date(1_767_225_600_000 - 86_400_000),
            "2025-12-31T00:00:00.000Z"
        );
        assert_eq!(
            iso_date(951_782_400_000 + 3_723_004),
            "2000-02-29T01:02:03.004Z"
        );
        assert_eq!(iso_date(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(
            iso_date(8_640_000_000_000_000),
            "+275760-09-13T00:00:00.000Z"
        );
        assert_eq!(iso_date(253_402_300_800_000), "+010000-01-01T00:00:00.000Z");
    }

    #[test]
    fn brave_query_is_url_search_params() {
        let host = Host {
            search: super::super::host::Settings {
                provider: SearchProvider::Brave,
                region: None,
                api_key: None,
            },
            ..Host::default()
        };
        let r = build(
            &host,
            &query("a b&c/é", Some(Freshness::Week)),
            &credential(),
        );
        assert!(r.url.eq_str(
            "https://api.search.brave.com/res/v1/web/search?q=a+b%26c%2F%C3%A9&count=8&safesearch=moderate&freshness=pw"
        ));
        assert_eq!(r.method, Method::Get);
        assert_eq!(r.body, None);
        assert_eq!(
            form_encode(&[("q", "*-._~!'()+%".to_owned())]),
            "q=*-._%7E%21%27%28%29%2B%25"
        );
        let mut lone = JsString::from("x");
        lone.push_units(&[0xD800]);
        assert_eq!(
            form_encode(&[("q", lone.to_string_lossy())]),
            "q=x%EF%BF%BD"
        );
    }

    #[test]
    fn zai_request_follows_the_region() {
        let mut host = Host::default();
        host.search.provider = SearchProvider::Zai;
        host.search.region = Some(Region::China);
        let r = build(&host, &query("q", Some(Freshness::Day)), &credential());
        assert!(
            r.url
                .eq_str("https://open.bigmodel.cn/api/paas/v4/web_search")
        );
        assert_eq!(r.headers[0], ("Authorization", "Bearer key".to_owned()));
        assert_eq!(
            r.body.as_deref(),
            Some(
                "{\"search_engine\":\"search_pro\",\"search_query\":\"q\",\"count\":8,\"search_recency_filter\":\"oneDay\"}"
            )
        );
        host.search.region = Some(Region::International);
        host.endpoints.push((
            Endpoint::ZaiSearchInternational,
            "http://127.0.0.1:1/z".to_owned(),
        ));
        let r = build(&host, &query("q", None), &credential());
        assert!(r.url.eq_str("http://127.0.0.1:1/z"));
        assert!(r.body.unwrap_or_default().contains("search-prime"));
    }

    fn texts(r: Result<Vec<Hit>, JsString>) -> Result<String, String> {
        r.map(|h| render(&h).to_string_lossy())
            .map_err(|e| e.to_string_lossy())
    }

    #[test]
    fn answers_parse_and_render() {
        let exa = br#"{"results":[{"url":"https://www.rust-lang.org/","title":"Rust","highlights":[1,"A language empowering everyone.","x"],"publishedDate":"2024-05-01"},
            {"url":""},5,{"url":"https://example.test/x","title":"","highlights":["","later"]}]}"#;
        assert_eq!(
            texts(parse(SearchProvider::Exa, exa)),
            Ok("1. [Rust](https://www.rust-lang.org/)\n   A language empowering everyone.\n   _2024-05-01_\n2. [https://example.test/x](https://example.test/x)".to_owned())
        );
        assert_eq!(
            texts(parse(SearchProvider::Exa, b"{\"results\":[]}")),
            Ok("No results found.".to_owned())
        );
        assert_eq!(
            texts(parse(SearchProvider::Exa, b"nope")),
            Err("malformed JSON response from exa".to_owned())
        );
        assert_eq!(
            texts(parse(SearchProvider::Exa, b"{\"results\":{}}")),
            Err("unexpected exa response envelope".to_owned())
        );
        assert_eq!(
            texts(parse(SearchProvider::Brave, b"{\"query\":{}}")),
            Err("unexpected brave response envelope".to_owned())
        );
        assert_eq!(
            texts(parse(
                SearchProvider::Brave,
                br#"{"web":{"results":[{"url":"u","description":"d","page_age":"p"}]}}"#
            )),
            Ok("1. [u](u)\n   d\n   _p_".to_owned())
        );
        assert_eq!(
            texts(parse(SearchProvider::Zai, b"[1]")),
            Err("unexpected zai search response envelope".to_owned())
        );
        assert_eq!(
            texts(parse(SearchProvider::Zai, b"{")),
            Err("malformed JSON response from zai search".to_owned())
        );
        assert_eq!(
            texts(parse(
                SearchProvider::Zai,
                br#"{"search_result":[{"link":"l","title":"t]","content":"a\nb"}]}"#
            )),
            Ok("1. [t]](l)\n   a\nb".to_owned())
        );
    }
}
