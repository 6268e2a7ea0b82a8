//! Playing a web scenario: its fixture server started on 127.0.0.1, `{server}` replaced by the
//! server's origin, the call made, and what came back and what the server saw collected.

use std::time::Duration;

use vvoc_reference::exec::web::{Host, HostError, WebCall, execute_web};
use vvoc_reference::{JsString, Json, Tool};

use crate::outcome::Failure;
use crate::scenario::paths::{replace, replace_json};
use crate::web::model::{Route, SERVER, WebScenario};
use crate::web::server::{Answer, Seen, start_with};

/// What one web call gave, `{server}` written back in for the origin.
#[derive(Clone, Debug, PartialEq)]
pub struct WebAnswer {
    /// The returned object or the raised message; or why there was neither.
    pub reply: WebReceived,
    /// The permission requests made, in order.
    pub asks: Vec<Json>,
    /// The requests the server saw, in order.
    pub requests: Vec<Seen>,
}

/// What a web call came back with.
#[derive(Clone, Debug, PartialEq)]
pub enum WebReceived {
    /// The returned object.
    Result(Json),
    /// The raised message.
    Throws(JsString),
    /// Neither: the runner could not play the scenario (its server would not start, the
    /// reference refused its host configuration), and why.
    Failed(String),
    /// The implementation could not make the call: an error, a timeout, a crash, a protocol
    /// error.
    Fault(Failure),
    /// The implementation does not execute the tool.
    Unsupported,
    /// The call cannot be observed over the transport (over MCP: no place for the host
    /// configuration): why.
    NotObservable(String),
}

/// Something that makes a web call with a host configuration: the reference, or a peer.
pub trait WebExecutor {
    /// Calls `tool` with `input` under `host` (both with `{server}` replaced); the result or the
    /// raised message, and the permission requests.
    fn call(
        &mut self,
        scenario: &WebScenario,
        host: &Json,
        input: &Json,
    ) -> (WebReceived, Vec<Json>);
}

/// The reference, in process.
#[derive(Debug, Default)]
pub struct Reference;

impl WebExecutor for Reference {
    fn call(
        &mut self,
        scenario: &WebScenario,
        host: &Json,
        input: &Json,
    ) -> (WebReceived, Vec<Json>) {
        match reference_call(scenario.tool, input, host) {
            Ok(call) => {
                let reply = match call.result {
                    Ok(value) => WebReceived::Result(value),
                    Err(text) => WebReceived::Throws(text),
                };
                (reply, call.asks)
            }
            Err(refused) => (WebReceived::Failed(refused), Vec::new()),
        }
    }
}

/// One call of the reference under the host configuration `host` (as JSON); the reason when the
/// reference refuses the configuration (the scenario loader and `conform peer` say it the same
/// way).
pub fn reference_call(tool: Tool, input: &Json, host: &Json) -> Result<WebCall, String> {
    let host = Host::from_json(host).map_err(|e| refused_host(&e))?;
    Ok(execute_web(tool, input, &host))
}

/// Why a host configuration is refused, in one line.
pub fn refused_host(error: &HostError) -> String {
    format!("the host configuration is refused: {error}")
}

/// Plays `scenario` with `executor`: starts its server, makes the call, stops the server.
pub fn play(scenario: &WebScenario, executor: &mut dyn WebExecutor) -> WebAnswer {
    let server = match start_with(|origin| answers(&scenario.routes, origin)) {
        Ok(server) => server,
        Err(error) => {
            return WebAnswer {
                reply: WebReceived::Failed(format!(
                    "the fixture server did not start on 127.0.0.1: {error}"
                )),
                asks: Vec::new(),
                requests: Vec::new(),
            };
        }
    };
    let origin = server.origin();
    let host = replace_json(&scenario.host, SERVER, &origin);
    let input = replace_json(&scenario.call, SERVER, &origin);
    let (reply, asks) = executor.call(scenario, &host, &input);
    let requests = server.seen();
    drop(server);
    WebAnswer {
        reply: match reply {
            WebReceived::Result(value) => {
                WebReceived::Result(replace_json(&value, &origin, SERVER))
            }
            WebReceived::Throws(text) => WebReceived::Throws(unsubstitute(&text, &origin)),
            other @ (WebReceived::Failed(_)
            | WebReceived::Fault(_)
            | WebReceived::Unsupported
            | WebReceived::NotObservable(_)) => other,
        },
        asks: asks
            .iter()
            .map(|ask| replace_json(ask, &origin, SERVER))
            .collect(),
        requests: requests
            .into_iter()
            .map(|seen| Seen {
                headers: seen
                    .headers
                    .into_iter()
                    .map(|(name, value)| (name, value.replace(&origin, SERVER)))
                    .collect(),
                // A provider's request names the fetched URL in its body (Spider, Z.AI).
                body: match String::from_utf8(seen.body) {
                    Ok(text) => text.replace(&origin, SERVER).into_bytes(),
                    Err(bytes) => bytes.into_bytes(),
                },
                ..seen
            })
            .collect(),
    }
}

/// Plays `scenario` with the reference.
pub fn play_reference(scenario: &WebScenario) -> WebAnswer {
    play(scenario, &mut Reference)
}

/// The server's answers: the routes with `{server}` replaced in header values.
fn answers(routes: &[Route], origin: &str) -> Vec<Answer> {
    routes
        .iter()
        .map(|route| Answer {
            method: route.method.clone(),
            path: route.path.clone(),
            status: route.status,
            headers: route
                .headers
                .iter()
                .map(|(name, value)| (name.clone(), value.replace(SERVER, origin)))
                .collect(),
            body: route.body.bytes(),
            delay: Duration::from_millis(route.delay_ms),
        })
        .collect()
}

fn unsubstitute(text: &JsString, origin: &str) -> JsString {
    replace(text.units(), origin, SERVER)
}
