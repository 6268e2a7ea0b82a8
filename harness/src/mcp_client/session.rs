//! One MCP client session over a server process's standard input and output (newline-delimited
//! JSON-RPC 2.0), or over Streamable HTTP at a URL (`http.rs`): `initialize`,
//! `notifications/initialized`, `tools/list` page by page, `tools/call`, one request at a time,
//! each within its timeout.
//!
//! Written by hand over the peers' process handling (`peer/process.rs`: process groups, a
//! reader and a writer thread, the stderr tail, lines capped and checked for UTF-8) rather than
//! with rmcp's client: a conformance client must see the wire as it is (a line that is not
//! JSON-RPC, an answer to an id never asked, a line that is not UTF-8 are each a protocol error
//! of the server, where an SDK skips or hides them), and must bound every request by the clock
//! and kill the whole process group, which the synchronous harness does already.

use std::time::{Duration, Instant};

use vvoc_reference::{JsString, Json, Object};

use crate::compare::{Content, ToolResult};
use crate::mcp_client::http::HttpWire;
use crate::outcome::Failure;
use crate::peer::process::{Event, MAX_LINE, PeerCommand, PeerProcess};
use crate::protocol::wire::preview;

/// The protocol version the client asks for.
pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// How long a server may take to exit once its input is closed before it is killed.
const GRACE: Duration = Duration::from_millis(500);

/// At most this many pages of `tools/list` are read: a server that never stops paging is broken.
const MAX_PAGES: usize = 100;

/// Who the server said it is in its `initialize` result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServerInfo {
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.version`.
    pub version: String,
    /// The protocol version it chose.
    pub protocol: String,
}

/// One tool of `tools/list`: its name and its `inputSchema` (any JSON value, as sent).
#[derive(Clone, Debug)]
pub struct ListedTool {
    /// `name`.
    pub name: String,
    /// `inputSchema`, absent when the tool has none.
    pub input_schema: Option<Json>,
}

/// What a session talks over: a server process's standard input and output, or HTTP.
#[derive(Debug)]
enum Wire {
    Stdio(PeerProcess),
    Http(HttpWire),
}

/// A running, initialized MCP session: with a server process, or with a server at a URL.
#[derive(Debug)]
pub struct McpSession {
    wire: Wire,
    next_id: u64,
    timeout: Duration,
    /// Whether a request failed in a way that leaves the process unusable.
    broken: bool,
    /// Who the server is.
    pub info: ServerInfo,
}

impl McpSession {
    /// Starts `command` and initializes it: `initialize` must be answered within
    /// `init_timeout`; every later request within `timeout`.
    pub fn start(
        command: &PeerCommand,
        init_timeout: Duration,
        timeout: Duration,
    ) -> Result<McpSession, String> {
        let process = PeerProcess::spawn(command)?;
        McpSession::initialize(Wire::Stdio(process), init_timeout, timeout)
    }

    /// Opens a session with the MCP server at `url` (Streamable HTTP) and initializes it, with
    /// the timeouts of [`McpSession::start`].
    pub fn connect(
        url: &str,
        init_timeout: Duration,
        timeout: Duration,
    ) -> Result<McpSession, String> {
        McpSession::initialize(Wire::Http(HttpWire::new(url)), init_timeout, timeout)
    }

    /// `initialize` and `notifications/initialized` over `wire`.
    fn initialize(
        wire: Wire,
        init_timeout: Duration,
        timeout: Duration,
    ) -> Result<McpSession, String> {
        let mut session = McpSession {
            wire,
            next_id: 1,
            timeout: init_timeout,
            broken: false,
            info: ServerInfo::default(),
        };
        let mut params = Object::new();
        params.insert("protocolVersion", Json::str(PROTOCOL_VERSION));
        params.insert("capabilities", Json::Object(Object::new()));
        let mut client = Object::new();
        client.insert("name", Json::str("conform"));
        client.insert("version", Json::str(env!("CARGO_PKG_VERSION")));
        params.insert("clientInfo", Json::Object(client));
        let result = session
            .request("initialize", Json::Object(params))
            .map_err(|f| session.fail("initialize", &f))?;
        let text = |o: Option<&Json>| {
            o.and_then(Json::as_string)
                .map(JsString::to_string_lossy)
                .unwrap_or_default()
        };
        let Some(result) = result.as_object() else {
            return Err(session.refuse("the initialize result is not an object"));
        };
        let server = result.get("serverInfo").and_then(Json::as_object);
        session.info = ServerInfo {
            name: text(server.and_then(|s| s.get("name"))),
            version: text(server.and_then(|s| s.get("version"))),
            protocol: text(result.get("protocolVersion")),
        };
        if let Wire::Http(http) = &mut session.wire {
            http.protocol = Some(session.info.protocol.clone());
        }
        session.notify("notifications/initialized");
        session.timeout = timeout;
        Ok(session)
    }

    /// Every tool of `tools/list`, following `nextCursor`.
    pub fn list_tools(&mut self) -> Result<Vec<ListedTool>, String> {
        let mut tools = Vec::new();
        let mut cursor: Option<Json> = None;
        for _ in 0..MAX_PAGES {
            let mut params = Object::new();
            if let Some(cursor) = cursor.take() {
                params.insert("cursor", cursor);
            }
            let result = self
                .request("tools/list", Json::Object(params))
                .map_err(|f| self.fail("tools/list", &f))?;
            let page = result.as_object();
            let Some(listed) = page.and_then(|p| p.get("tools")).and_then(Json::as_array) else {
                return Err(self.refuse("the tools/list result has no array \"tools\""));
            };
            for tool in listed {
                let tool = tool.as_object();
                let Some(name) = tool.and_then(|t| t.get("name")).and_then(Json::as_string) else {
                    return Err(self.refuse("a tool of tools/list has no string \"name\""));
                };
                tools.push(ListedTool {
                    name: name.to_string_lossy(),
                    input_schema: tool.and_then(|t| t.get("inputSchema")).cloned(),
                });
            }
            match page.and_then(|p| p.get("nextCursor")) {
                None | Some(Json::Null) => return Ok(tools),
                Some(next) => cursor = Some(next.clone()),
            }
        }
        Err(self.refuse(&format!(
            "tools/list still had a nextCursor after {MAX_PAGES} pages"
        )))
    }

    /// One `tools/call`: the server's result, or how it failed (a JSON-RPC error is an
    /// [`Failure::Error`]; a timeout, a crash or a protocol error also breaks the session).
    pub fn call_tool(&mut self, name: &str, arguments: &Json) -> Result<ToolResult, Failure> {
        let mut params = Object::new();
        params.insert("name", Json::str(name));
        params.insert("arguments", arguments.clone());
        let result = self.request("tools/call", Json::Object(params))?;
        read_tool_result(&result).map_err(|reason| {
            self.broken = true;
            Failure::ProtocolError(format!("{reason}: {}", preview(&result.to_compact())))
        })
    }

    /// Whether a request failed in a way that leaves the process unusable.
    pub fn broken(&self) -> bool {
        self.broken
    }

    /// Closes the server's input, gives it a short grace to exit, then kills what is left of its
    /// process group; the last bytes of its stderr. Over HTTP, the session is DELETEd.
    pub fn finish(mut self) -> String {
        match (&mut self.wire, self.broken) {
            (Wire::Stdio(process), true) => process.kill(),
            (Wire::Stdio(process), false) => process.close(GRACE),
            (Wire::Http(http), _) => http.end(),
        }
        self.stderr_tail()
    }

    /// The last bytes of the server process's stderr (none over HTTP).
    fn stderr_tail(&self) -> String {
        match &self.wire {
            Wire::Stdio(process) => process.stderr_tail(),
            Wire::Http(_) => String::new(),
        }
    }

    /// Sends a message that is answered by none (a notification, an answer to the server).
    fn send(&mut self, message: Json) {
        let text = message.to_compact();
        match &mut self.wire {
            Wire::Stdio(process) => process.send(text),
            Wire::Http(http) => {
                // Accepted with 202 and no body; a failure shows at the next request.
                let _ = http.post(&text, self.timeout);
            }
        }
    }

    /// Sends a request and waits for its answer: the `result`, or how it failed.
    fn request(&mut self, method: &str, params: Json) -> Result<Json, Failure> {
        let id = self.next_id;
        self.next_id += 1;
        let mut message = Object::new();
        message.insert("jsonrpc", Json::str("2.0"));
        message.insert("id", Json::Number(id as f64));
        message.insert("method", Json::str(method));
        message.insert("params", params);
        let text = Json::Object(message).to_compact();
        let answer = match &mut self.wire {
            Wire::Stdio(process) => {
                process.send(text);
                let deadline = Instant::now() + self.timeout;
                self.receive_stdio(deadline, id)
            }
            Wire::Http(http) => match http.post(&text, self.timeout) {
                Ok(messages) => self.receive_http(messages, id),
                Err(failure) => Err(failure),
            },
        };
        answer.unwrap_or_else(|failure| {
            // A refusal (over HTTP, by status) leaves the session as it was.
            self.broken |= !matches!(failure, Failure::Error(_));
            Err(failure)
        })
    }

    /// The answer to request `id` among the messages of its HTTP answer.
    fn receive_http(
        &mut self,
        mut messages: crate::mcp_client::http::Messages,
        id: u64,
    ) -> Result<Result<Json, Failure>, Failure> {
        while let Some(message) = messages.next_message()? {
            if let Some(answer) = self.interpret(&message, id)? {
                return Ok(answer);
            }
        }
        Err(Failure::ProtocolError(format!(
            "the HTTP answer ended without an answer to id {id}"
        )))
    }

    /// Reads lines of the server process until the answer to request `id`, before `deadline`.
    fn receive_stdio(
        &mut self,
        deadline: Instant,
        id: u64,
    ) -> Result<Result<Json, Failure>, Failure> {
        loop {
            if let Some(answer) = self.receive(deadline, id)? {
                return Ok(answer);
            }
        }
    }

    /// Reads one line before `deadline`: the answer to request `id` (its result or JSON-RPC
    /// error), `None` for a notification or a request of the server (answered), or a failure
    /// that breaks the session.
    fn receive(
        &mut self,
        deadline: Instant,
        id: u64,
    ) -> Result<Option<Result<Json, Failure>>, Failure> {
        let Wire::Stdio(process) = &mut self.wire else {
            return Err(Failure::ProtocolError("no process to read".to_owned()));
        };
        let line = match process.next_event(deadline) {
            Ok(Event::Line(line)) => line,
            Ok(Event::Closed) => {
                let status = process.exit_status();
                return Err(Failure::Crash(format!(
                    "the server closed its output before answering ({status})"
                )));
            }
            Ok(Event::TooLong) => {
                return Err(Failure::ProtocolError(format!(
                    "a line of more than {MAX_LINE} bytes"
                )));
            }
            Ok(Event::NotUtf8(offset)) => {
                return Err(Failure::ProtocolError(format!(
                    "a line that is not UTF-8 (an invalid byte at offset {offset})"
                )));
            }
            Err(_) => return Err(Failure::Timeout),
        };
        self.interpret(&line, id)
    }

    /// One message of the server: the answer to request `id` (its result or JSON-RPC error),
    /// `None` for a notification or a request of the server (answered), or a failure that
    /// breaks the session.
    fn interpret(&mut self, line: &str, id: u64) -> Result<Option<Result<Json, Failure>>, Failure> {
        let bad = |why: &str| Failure::ProtocolError(format!("{why}: {}", preview(line)));
        let message = Json::parse(line).map_err(|_| bad("a line that is not JSON"))?;
        let Some(message) = message.as_object() else {
            return Err(bad("a JSON-RPC message must be an object"));
        };
        if !message
            .get("jsonrpc")
            .and_then(Json::as_string)
            .is_some_and(|v| v.eq_str("2.0"))
        {
            return Err(bad("a message without \"jsonrpc\": \"2.0\""));
        }
        match (message.get("method"), message.get("id")) {
            // A notification (logging, progress, a changed list) asks for nothing: it is read
            // and let be, and the request's clock runs on.
            (Some(_), None) => Ok(None),
            (Some(method), Some(asked)) => {
                self.answer_request(method, asked);
                Ok(None)
            }
            (None, Some(answered)) if answered.as_f64() == Some(id as f64) => {
                match (message.get("result"), message.get("error")) {
                    (Some(result), None) => Ok(Some(Ok(result.clone()))),
                    (None, Some(error)) => Ok(Some(Err(Failure::Error(rpc_error(error))))),
                    _ => Err(bad("an answer must hold exactly one of result and error")),
                }
            }
            (None, Some(answered)) => Err(bad(&format!(
                "an answer to id {}, which is not the request outstanding (id {id})",
                answered.to_compact()
            ))),
            (None, None) => Err(bad("a message with neither method nor id")),
        }
    }

    /// Answers a request of the server: `ping` with an empty result, anything else (sampling,
    /// roots, elicitation: capabilities this client does not declare) with "method not found".
    fn answer_request(&mut self, method: &Json, id: &Json) {
        let mut answer = Object::new();
        answer.insert("jsonrpc", Json::str("2.0"));
        answer.insert("id", id.clone());
        match method.as_string().is_some_and(|m| m.eq_str("ping")) {
            true => answer.insert("result", Json::Object(Object::new())),
            false => {
                let mut error = Object::new();
                error.insert("code", Json::Number(-32601.0));
                error.insert("message", Json::str("Method not found"));
                answer.insert("error", Json::Object(error));
            }
        }
        self.send(Json::Object(answer));
    }

    /// Sends a notification.
    fn notify(&mut self, method: &str) {
        let mut message = Object::new();
        message.insert("jsonrpc", Json::str("2.0"));
        message.insert("method", Json::str(method));
        self.send(Json::Object(message));
    }

    /// Why the server cannot be used, after `what` failed; the process is killed.
    fn fail(&mut self, what: &str, failure: &Failure) -> String {
        let why = match failure {
            Failure::Error(text) => format!("the server answered {what} with an error: {text}"),
            Failure::Timeout => format!(
                "the server did not answer {what} within {} ms",
                self.timeout.as_millis()
            ),
            Failure::Crash(text) => format!("{text} (during {what})"),
            Failure::ProtocolError(text) => format!("protocol error during {what}: {text}"),
        };
        self.refuse(&why)
    }

    /// `why`, with the end of the server's stderr; the process is killed.
    fn refuse(&mut self, why: &str) -> String {
        self.broken = true;
        if let Wire::Stdio(process) = &mut self.wire {
            process.kill();
        }
        let tail = self.stderr_tail();
        match tail.trim().is_empty() {
            true => why.to_owned(),
            false => format!("{why}; its stderr ends with:\n{}", tail.trim_end()),
        }
    }
}

/// A JSON-RPC error object in one line: `JSON-RPC error <code>: <message>`.
fn rpc_error(error: &Json) -> String {
    let error = error.as_object();
    let code = error
        .and_then(|e| e.get("code"))
        .map_or_else(|| "?".to_owned(), Json::to_compact);
    let message = error
        .and_then(|e| e.get("message"))
        .and_then(Json::as_string)
        .map(JsString::to_string_lossy)
        .unwrap_or_default();
    format!("JSON-RPC error {code}: {message}")
}

/// A `tools/call` result: `content` an array of blocks, each with a string `type` (a text
/// block with its string `text`), `isError` a boolean when present.
fn read_tool_result(result: &Json) -> Result<ToolResult, String> {
    let result = result
        .as_object()
        .ok_or("the tools/call result is not an object")?;
    let is_error = match result.get("isError") {
        None | Some(Json::Null) => false,
        Some(Json::Bool(b)) => *b,
        Some(_) => return Err("the result's \"isError\" is not a boolean".to_owned()),
    };
    let blocks = result
        .get("content")
        .and_then(Json::as_array)
        .ok_or("the result has no array \"content\"")?;
    let mut content = Vec::with_capacity(blocks.len());
    for block in blocks {
        let block = block.as_object();
        let kind = block
            .and_then(|b| b.get("type"))
            .and_then(Json::as_string)
            .ok_or("a content block has no string \"type\"")?;
        if kind.eq_str("text") {
            let text = block
                .and_then(|b| b.get("text"))
                .and_then(Json::as_string)
                .ok_or("a text content block has no string \"text\"")?;
            content.push(Content::Text(text.clone()));
        } else {
            content.push(Content::Other(kind.to_string_lossy()));
        }
    }
    Ok(ToolResult { is_error, content })
}
