//! A web scenario (formats.md, "Web scenario file"): one call of `web_fetch` or `web_search`
//! against a fixture server, and what it must give: the result or the raised text, the
//! permission requests and the requests the server saw.

use std::fmt;
use std::path::PathBuf;

use vvoc_reference::{JsString, Json, Tool};

/// What `{server}` stands for in a web scenario.
pub const SERVER: &str = "{server}";

/// One web scenario, every `{server}` unsubstituted.
#[derive(Clone, Debug)]
pub struct WebScenario {
    /// `web_fetch` or `web_search`.
    pub tool: Tool,
    /// The id, unique within the tool across vectors and scenarios.
    pub id: String,
    /// Why the scenario exists.
    pub note: Option<String>,
    /// The host configuration (an object; `{}` when the file gives none).
    pub host: Json,
    /// What the fixture server answers.
    pub routes: Vec<Route>,
    /// The tool's input.
    pub call: Json,
    /// What the call must give.
    pub expect: WebExpect,
    /// The file it came from.
    pub file: PathBuf,
    /// The file's path relative to its vectors folder.
    pub source: String,
    /// Its 0-based position in the file.
    pub index: usize,
}

impl WebScenario {
    /// The full name, `<tool>:<id>`.
    pub fn name(&self) -> String {
        format!("{}:{}", self.tool, self.id)
    }
}

/// One route of the fixture server.
#[derive(Clone, Debug, PartialEq)]
pub struct Route {
    /// The method it answers.
    pub method: String,
    /// The request target it answers, with its query.
    pub path: String,
    /// The status code.
    pub status: u16,
    /// The headers, in order (`{server}` unsubstituted in values).
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Body,
    /// The wait before the status line, in milliseconds.
    pub delay_ms: u64,
}

/// A route's body as the file declares it. A repeated text stays one text and a count until a
/// scenario plays: a cap test's 20 MiB body then costs nothing to load, and every `conform run`
/// loads every file (the mutation check starts a thousand of them).
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// These bytes (a string's UTF-8, or decoded base64).
    Bytes(Vec<u8>),
    /// `text` written `count` times.
    Repeat {
        /// The text.
        text: String,
        /// How many times.
        count: usize,
    },
}

impl Body {
    /// The bytes a response carries.
    pub fn bytes(&self) -> Vec<u8> {
        match self {
            Body::Bytes(bytes) => bytes.clone(),
            Body::Repeat { text, count } => text.repeat(*count).into_bytes(),
        }
    }
}

/// What a web call must give.
#[derive(Clone, Debug, PartialEq)]
pub struct WebExpect {
    /// The result or the raised text.
    pub reply: WebReply,
    /// The permission requests, in order.
    pub asks: Vec<Json>,
    /// The requests the server saw, in order.
    pub requests: Vec<ExpectedRequest>,
}

/// A web call's reply: a result object of a named family, or a raised message.
#[derive(Clone, Debug, PartialEq)]
pub enum WebReply {
    /// The returned object and its result family.
    Result {
        /// The family, `web_fetch:text-native`, ….
        family: String,
        /// The object.
        value: Json,
    },
    /// The raised message.
    Throws(JsString),
}

/// A request the server must see.
#[derive(Clone, Debug, PartialEq)]
pub struct ExpectedRequest {
    /// The method.
    pub method: String,
    /// The request target.
    pub path: String,
    /// The headers compared (names lower-case), in the order given.
    pub headers: Vec<(String, String)>,
    /// The body, parsed as JSON, when compared.
    pub body: Option<Json>,
}

/// What is wrong with one web scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WebProblem {
    /// Not an object.
    NotObject,
    /// A member the format does not have.
    UnknownMember(String),
    /// No string `id`.
    MissingId,
    /// An id that is not kebab-case.
    BadId,
    /// A member of the wrong type: where, and what it must be.
    Type {
        /// The member's place (`routes[1].status`).
        at: String,
        /// What it must be.
        must: &'static str,
    },
    /// Neither or both of `result` and `throws`.
    ReplyKind,
    /// `result` without `family`, or `family` without `result`.
    Family,
    /// A route path that does not start with `/`.
    RoutePath(usize),
    /// Two routes answering the same method and path.
    DuplicateRoute(usize, usize),
    /// A URL that would send the tool off the machine.
    OffLoopback {
        /// Where it is.
        at: String,
        /// The URL.
        url: String,
    },
    /// A host configuration the reference refuses: the reason, as `conform peer` gives it.
    Host(String),
    /// A provider request that would go to upstream's real endpoint.
    NoEndpoint {
        /// The endpoint's name.
        endpoint: &'static str,
        /// Upstream's URL, where the request would go.
        url: &'static str,
    },
}

impl fmt::Display for WebProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WebProblem::NotObject => f.write_str("a web scenario must be an object"),
            WebProblem::UnknownMember(name) => write!(
                f,
                "unknown member {name:?}: a web scenario has id, note, host, routes, call, \
                 result, family, throws, asks, requests"
            ),
            WebProblem::MissingId => f.write_str("the scenario has no string \"id\""),
            WebProblem::BadId => f.write_str(
                "the id must be kebab-case: lower-case letters, digits and single hyphens",
            ),
            WebProblem::Type { at, must } => write!(f, "{at} must be {must}"),
            WebProblem::ReplyKind => {
                f.write_str("give exactly one of \"result\" (with \"family\") and \"throws\"")
            }
            WebProblem::Family => f.write_str(
                "\"result\" and \"family\" go together: name the result family of the result",
            ),
            WebProblem::RoutePath(index) => write!(
                f,
                "routes[{index}].path must start with \"/\" (a request target such as \"/page?q=1\")"
            ),
            WebProblem::DuplicateRoute(first, second) => write!(
                f,
                "routes[{second}] answers the same method and path as routes[{first}]; each \
                 request target has one route"
            ),
            WebProblem::OffLoopback { at, url } => write!(
                f,
                "{at} is {url:?}, which would leave the machine: use {{server}}/… or a loopback \
                 URL (http://127.0.0.1…, http://localhost…, http://[::1]…)"
            ),
            WebProblem::Host(why) => f.write_str(why),
            WebProblem::NoEndpoint { endpoint, url } => write!(
                f,
                "the call would send its provider request to {url}, off the machine: point \
                 host.endpoints.{endpoint} at {{server}}/…"
            ),
        }
    }
}
