//! The host configuration of execution-web.md §1.1: providers, keys, environment, clock, endpoints, permission.

use std::fmt;

use crate::js_string::JsString;
use crate::json::{Json, Object};

/// The search provider (`web.search.provider`, default `exa`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchProvider {
    Exa,
    Brave,
    Zai,
}

impl SearchProvider {
    /// The name upstream writes (`metadata.provider`, texts).
    pub fn name(self) -> &'static str {
        match self {
            SearchProvider::Exa => "exa",
            SearchProvider::Brave => "brave",
            SearchProvider::Zai => "zai",
        }
    }
}

/// The fetch provider (`web.fetch.provider`, default `native`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FetchProvider {
    Native,
    Spider,
    Zai,
}

impl FetchProvider {
    /// The name upstream writes.
    pub fn name(self) -> &'static str {
        match self {
            FetchProvider::Native => "native",
            FetchProvider::Spider => "spider",
            FetchProvider::Zai => "zai",
        }
    }
}

/// A Z.AI region (§1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    International,
    China,
}

impl Region {
    /// The name upstream writes (`metadata.region`).
    pub fn name(self) -> &'static str {
        match self {
            Region::International => "international",
            Region::China => "china",
        }
    }
}

/// The endpoints of §1.4, each replaceable in the host configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endpoint {
    Exa,
    Brave,
    Spider,
    ZaiSearchInternational,
    ZaiReaderInternational,
    ZaiSearchChina,
    ZaiReaderChina,
}

impl Endpoint {
    /// Every endpoint, in the table's order.
    pub const ALL: [Endpoint; 7] = [
        Endpoint::Exa,
        Endpoint::Brave,
        Endpoint::Spider,
        Endpoint::ZaiSearchInternational,
        Endpoint::ZaiReaderInternational,
        Endpoint::ZaiSearchChina,
        Endpoint::ZaiReaderChina,
    ];

    /// The endpoint's name in `endpoints`.
    pub fn name(self) -> &'static str {
        match self {
            Endpoint::Exa => "exa",
            Endpoint::Brave => "brave",
            Endpoint::Spider => "spider",
            Endpoint::ZaiSearchInternational => "zai-search-international",
            Endpoint::ZaiReaderInternational => "zai-reader-international",
            Endpoint::ZaiSearchChina => "zai-search-china",
            Endpoint::ZaiReaderChina => "zai-reader-china",
        }
    }

    /// Z.AI's search endpoint of `region` (§1.4).
    pub fn zai_search(region: Region) -> Endpoint {
        match region {
            Region::International => Endpoint::ZaiSearchInternational,
            Region::China => Endpoint::ZaiSearchChina,
        }
    }

    /// Z.AI's reader endpoint of `region` (§1.4).
    pub fn zai_reader(region: Region) -> Endpoint {
        match region {
            Region::International => Endpoint::ZaiReaderInternational,
            Region::China => Endpoint::ZaiReaderChina,
        }
    }

    /// Upstream's hard-coded URL.
    pub fn default_url(self) -> &'static str {
        match self {
            Endpoint::Exa => "https://api.exa.ai/search",
            Endpoint::Brave => "https://api.search.brave.com/res/v1/web/search",
            Endpoint::Spider => "https://api.spider.cloud/scrape",
            Endpoint::ZaiSearchInternational => "https://api.z.ai/api/paas/v4/web_search",
            Endpoint::ZaiReaderInternational => "https://api.z.ai/api/paas/v4/reader",
            Endpoint::ZaiSearchChina => "https://open.bigmodel.cn/api/paas/v4/web_search",
            Endpoint::ZaiReaderChina => "https://open.bigmodel.cn/api/paas/v4/reader",
        }
    }
}

/// The host's answer to `context.ask` (§3.1, §4.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Permission {
    Allow,
    /// The host refuses; the call raises this text unchanged.
    Deny(JsString),
}

/// One tool's provider settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings<P> {
    pub provider: P,
    pub region: Option<Region>,
    pub api_key: Option<String>,
}

/// The host configuration, fixed for the life of a tool instance (§1.1).
#[derive(Clone, Debug, PartialEq)]
pub struct Host {
    pub search: Settings<SearchProvider>,
    pub fetch: Settings<FetchProvider>,
    /// The environment, in the order given.
    pub env: Vec<(String, String)>,
    /// The clock in milliseconds; `None` reads the system clock, as `Date.now()` does.
    pub now: Option<i64>,
    /// Replaced endpoints; the others keep upstream's URL.
    pub endpoints: Vec<(Endpoint, String)>,
    pub permission: Permission,
    /// When the caller aborts, in milliseconds after the call starts (`context.abort`, §2.3);
    /// `Some(0)` is a signal already aborted when the call starts, `None` one that never fires.
    pub abort_after_ms: Option<u64>,
}

impl Default for Host {
    fn default() -> Host {
        Host {
            search: Settings {
                provider: SearchProvider::Exa,
                region: None,
                api_key: None,
            },
            fetch: Settings {
                provider: FetchProvider::Native,
                region: None,
                api_key: None,
            },
            env: Vec::new(),
            now: None,
            endpoints: Vec::new(),
            permission: Permission::Allow,
            abort_after_ms: None,
        }
    }
}

/// The largest `now` a `Date` holds (ECMAScript's time value range).
const MAX_TIME: f64 = 8.64e15;

/// The latest abort a host configuration may set: an hour, far past every timer of a call.
pub const MAX_ABORT_AFTER_MS: u64 = 3_600_000;

/// Why a host configuration was refused; each message names the member and the fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostError {
    NotObject,
    UnknownMember(String),
    SectionNotObject(&'static str),
    UnknownSectionMember(&'static str, String),
    Provider(&'static str, &'static str),
    Region(&'static str),
    ApiKey(&'static str),
    EnvNotObject,
    EnvValue(String),
    Now,
    EndpointsNotObject,
    UnknownEndpoint(String),
    EndpointUrl(String),
    Permission,
    AbortAfter,
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostError::NotObject => {
                write!(f, "host: must be an object; write {{}} for the defaults")
            }
            HostError::UnknownMember(name) => write!(
                f,
                "host.{name}: unknown member; the members are search, fetch, env, now, endpoints, permission, abortAfterMs"
            ),
            HostError::SectionNotObject(section) => write!(
                f,
                "host.{section}: must be an object {{\"provider\", \"region\", \"apiKey\"}}"
            ),
            HostError::UnknownSectionMember(section, name) => write!(
                f,
                "host.{section}.{name}: unknown member; the members are provider, region, apiKey"
            ),
            HostError::Provider(section, allowed) => {
                write!(f, "host.{section}.provider: must be one of {allowed}")
            }
            HostError::Region(section) => write!(
                f,
                "host.{section}.region: must be \"international\" or \"china\""
            ),
            HostError::ApiKey(section) => write!(f, "host.{section}.apiKey: must be a string"),
            HostError::EnvNotObject => write!(
                f,
                "host.env: must be an object of variable names to strings"
            ),
            HostError::EnvValue(name) => write!(f, "host.env.{name}: must be a string"),
            HostError::Now => write!(
                f,
                "host.now: must be an integer number of milliseconds from 0 to 8640000000000000"
            ),
            HostError::EndpointsNotObject => write!(
                f,
                "host.endpoints: must be an object of endpoint names to URLs"
            ),
            HostError::UnknownEndpoint(name) => write!(
                f,
                "host.endpoints.{name}: unknown endpoint; the endpoints are exa, brave, spider, zai-search-international, zai-reader-international, zai-search-china, zai-reader-china"
            ),
            HostError::EndpointUrl(name) => write!(
                f,
                "host.endpoints.{name}: must be an absolute http or https URL"
            ),
            HostError::Permission => write!(
                f,
                "host.permission: must be \"allow\" or {{\"deny\": TEXT}}"
            ),
            HostError::AbortAfter => write!(
                f,
                "host.abortAfterMs: must be an integer number of milliseconds from 0 to {MAX_ABORT_AFTER_MS}"
            ),
        }
    }
}

impl std::error::Error for HostError {}

impl Host {
    /// Reads a host configuration (formats.md, "Web scenario file"); every member is optional.
    ///
    /// # Errors
    ///
    /// The first member that is not as §1.1 says, or is unknown.
    pub fn from_json(value: &Json) -> Result<Host, HostError> {
        let object = value.as_object().ok_or(HostError::NotObject)?;
        let mut host = Host::default();
        for (name, member) in object.iter() {
            match name.to_string_lossy().as_str() {
                "search" => {
                    let (provider, region, api_key) = section(member, "search")?;
                    host.search.provider = match provider.as_deref() {
                        None | Some("exa") => SearchProvider::Exa,
                        Some("brave") => SearchProvider::Brave,
                        Some("zai") => SearchProvider::Zai,
                        Some(_) => return Err(HostError::Provider("search", "exa, brave, zai")),
                    };
                    host.search.region = region;
                    host.search.api_key = api_key;
                }
                "fetch" => {
                    let (provider, region, api_key) = section(member, "fetch")?;
                    host.fetch.provider = match provider.as_deref() {
                        None | Some("native") => FetchProvider::Native,
                        Some("spider") => FetchProvider::Spider,
                        Some("zai") => FetchProvider::Zai,
                        Some(_) => return Err(HostError::Provider("fetch", "native, spider, zai")),
                    };
                    host.fetch.region = region;
                    host.fetch.api_key = api_key;
                }
                "env" => {
                    let env = member.as_object().ok_or(HostError::EnvNotObject)?;
                    for (key, value) in env.iter() {
                        let key = key.to_string_lossy();
                        let value = value
                            .as_string()
                            .ok_or_else(|| HostError::EnvValue(key.clone()))?;
                        host.env.push((key, value.to_string_lossy()));
                    }
                }
                "now" => {
                    let n = member
                        .as_f64()
                        .filter(|n| n.fract() == 0.0 && (0.0..=MAX_TIME).contains(n))
                        .ok_or(HostError::Now)?;
                    // Exact: an integer within ±2^53.
                    #[expect(clippy::cast_possible_truncation, reason = "integral and in range")]
                    let ms = n as i64;
                    host.now = Some(ms);
                }
                "endpoints" => host.endpoints = endpoints(member)?,
                "permission" => host.permission = permission(member)?,
                "abortAfterMs" => {
                    let n = member
                        .as_f64()
                        .filter(|n| {
                            n.fract() == 0.0 && (0.0..=MAX_ABORT_AFTER_MS as f64).contains(n)
                        })
                        .ok_or(HostError::AbortAfter)?;
                    #[expect(
                        clippy::cast_possible_truncation,
                        clippy::cast_sign_loss,
                        reason = "integral and in range"
                    )]
                    let ms = n as u64;
                    host.abort_after_ms = Some(ms);
                }
                other => return Err(HostError::UnknownMember(other.to_owned())),
            }
        }
        Ok(host)
    }

    /// The URL of `endpoint`: the configured one, else upstream's.
    pub fn endpoint(&self, endpoint: Endpoint) -> &str {
        self.endpoints
            .iter()
            .find(|(e, _)| *e == endpoint)
            .map_or(endpoint.default_url(), |(_, url)| url.as_str())
    }

    /// The value of an environment variable.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.env
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The clock, as `Date.now()` reads it when no `now` is configured.
    pub fn now_ms(&self) -> i64 {
        self.now.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        })
    }
}

type Section = (Option<String>, Option<Region>, Option<String>);

fn section(value: &Json, name: &'static str) -> Result<Section, HostError> {
    let object: &Object = value.as_object().ok_or(HostError::SectionNotObject(name))?;
    let mut out: Section = (None, None, None);
    for (key, member) in object.iter() {
        match key.to_string_lossy().as_str() {
            "provider" => {
                let p = member.as_string().ok_or(HostError::Provider(
                    name,
                    if name == "search" {
                        "exa, brave, zai"
                    } else {
                        "native, spider, zai"
                    },
                ))?;
                out.0 = Some(p.to_string_lossy());
            }
            "region" => {
                out.1 = Some(
                    match member.as_string().and_then(JsString::to_str).as_deref() {
                        Some("international") => Region::International,
                        Some("china") => Region::China,
                        _ => return Err(HostError::Region(name)),
                    },
                );
            }
            "apiKey" => {
                let key = member.as_string().ok_or(HostError::ApiKey(name))?;
                out.2 = Some(key.to_string_lossy());
            }
            other => return Err(HostError::UnknownSectionMember(name, other.to_owned())),
        }
    }
    Ok(out)
}

fn endpoints(value: &Json) -> Result<Vec<(Endpoint, String)>, HostError> {
    let object = value.as_object().ok_or(HostError::EndpointsNotObject)?;
    let mut out = Vec::new();
    for (key, member) in object.iter() {
        let key = key.to_string_lossy();
        let endpoint = Endpoint::ALL
            .into_iter()
            .find(|e| e.name() == key)
            .ok_or_else(|| HostError::UnknownEndpoint(key.clone()))?;
        let url = member
            .as_string()
            .map(JsString::to_string_lossy)
            .filter(|u| url::Url::parse(u).is_ok_and(|p| matches!(p.scheme(), "http" | "https")))
            .ok_or(HostError::EndpointUrl(key))?;
        out.push((endpoint, url));
    }
    Ok(out)
}

fn permission(value: &Json) -> Result<Permission, HostError> {
    if value.as_string().is_some_and(|s| s.eq_str("allow")) {
        return Ok(Permission::Allow);
    }
    let object = value.as_object().ok_or(HostError::Permission)?;
    match (object.len(), object.get("deny").and_then(Json::as_string)) {
        (1, Some(text)) => Ok(Permission::Deny(text.clone())),
        _ => Err(HostError::Permission),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(text: &str) -> Result<Host, HostError> {
        Host::from_json(&Json::parse(text).unwrap_or(Json::Null))
    }

    #[test]
    fn defaults() {
        let h = host("{}");
        assert_eq!(h, Ok(Host::default()));
        let h = Host::default();
        assert_eq!(h.endpoint(Endpoint::Exa), "https://api.exa.ai/search");
        assert_eq!(h.search.provider, SearchProvider::Exa);
        assert_eq!(h.fetch.provider, FetchProvider::Native);
    }

    #[test]
    fn a_full_configuration_reads() {
        let h = host(
            r#"{"search":{"provider":"zai","region":"china","apiKey":"k"},"fetch":{"provider":"spider"},
               "env":{"EXA_API_KEY":"e"},"now":1767225600000,"endpoints":{"exa":"http://127.0.0.1:9/exa"},
               "permission":{"deny":"no"}}"#,
        );
        let Ok(h) = h else { unreachable!("{h:?}") };
        assert_eq!(h.search.provider, SearchProvider::Zai);
        assert_eq!(h.search.region, Some(Region::China));
        assert_eq!(h.search.api_key.as_deref(), Some("k"));
        assert_eq!(h.fetch.provider, FetchProvider::Spider);
        assert_eq!(h.var("EXA_API_KEY"), Some("e"));
        assert_eq!(h.now, Some(1_767_225_600_000));
        assert_eq!(h.endpoint(Endpoint::Exa), "http://127.0.0.1:9/exa");
        assert_eq!(h.permission, Permission::Deny(JsString::from("no")));
    }

    #[test]
    fn an_abort_reads_as_whole_milliseconds_within_an_hour() {
        assert_eq!(
            host(r#"{"abortAfterMs":0}"#).map(|h| h.abort_after_ms),
            Ok(Some(0))
        );
        assert_eq!(
            host(r#"{"abortAfterMs":3600000}"#).map(|h| h.abort_after_ms),
            Ok(Some(MAX_ABORT_AFTER_MS))
        );
        for bad in ["-1", "3600001", "1.5", "\"10\"", "null", "true"] {
            let text = format!(r#"{{"abortAfterMs":{bad}}}"#);
            assert_eq!(host(&text), Err(HostError::AbortAfter), "{text}");
        }
        assert_eq!(
            HostError::AbortAfter.to_string(),
            "host.abortAfterMs: must be an integer number of milliseconds from 0 to 3600000"
        );
    }

    #[test]
    fn the_docs_quote_the_latest_abort() {
        let bound = format!("from 0 to {MAX_ABORT_AFTER_MS}");
        for (doc, text) in [
            (
                "docs/formats.md",
                include_str!("../../../../docs/formats.md"),
            ),
            (
                "docs/execution-web.md",
                include_str!("../../../../docs/execution-web.md"),
            ),
        ] {
            assert!(text.contains(&bound), "{doc} should say `{bound}`");
        }
    }

    #[test]
    fn refusals_name_the_member_and_the_fix() {
        let cases = [
            ("[]", "host: must be an object; write {} for the defaults"),
            (
                r#"{"clock":1}"#,
                "host.clock: unknown member; the members are search, fetch, env, now, endpoints, permission, abortAfterMs",
            ),
            (
                r#"{"search":1}"#,
                "host.search: must be an object {\"provider\", \"region\", \"apiKey\"}",
            ),
            (
                r#"{"fetch":{"key":"x"}}"#,
                "host.fetch.key: unknown member; the members are provider, region, apiKey",
            ),
            (
                r#"{"search":{"provider":"google"}}"#,
                "host.search.provider: must be one of exa, brave, zai",
            ),
            (
                r#"{"fetch":{"region":"eu"}}"#,
                "host.fetch.region: must be \"international\" or \"china\"",
            ),
            (
                r#"{"search":{"apiKey":1}}"#,
                "host.search.apiKey: must be a string",
            ),
            (
                r#"{"env":[]}"#,
                "host.env: must be an object of variable names to strings",
            ),
            (r#"{"env":{"A":1}}"#, "host.env.A: must be a string"),
            (
                r#"{"now":1.5}"#,
                "host.now: must be an integer number of milliseconds from 0 to 8640000000000000",
            ),
            (
                r#"{"endpoints":{"bing":"http://x"}}"#,
                "host.endpoints.bing: unknown endpoint; the endpoints are exa, brave, spider, zai-search-international, zai-reader-international, zai-search-china, zai-reader-china",
            ),
            (
                r#"{"endpoints":{"exa":"ftp://x"}}"#,
                "host.endpoints.exa: must be an absolute http or https URL",
            ),
            (
                r#"{"endpoints":{"exa":"/exa"}}"#,
                "host.endpoints.exa: must be an absolute http or https URL",
            ),
            (
                r#"{"permission":"ask"}"#,
                "host.permission: must be \"allow\" or {\"deny\": TEXT}",
            ),
            (
                r#"{"permission":{"deny":1}}"#,
                "host.permission: must be \"allow\" or {\"deny\": TEXT}",
            ),
        ];
        for (text, message) in cases {
            match host(text) {
                Err(e) => assert_eq!(e.to_string(), message, "{text}"),
                Ok(h) => unreachable!("{text} read as {h:?}"),
            }
        }
    }
}
