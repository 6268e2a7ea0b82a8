//! The Streamable HTTP wire of an MCP session (`conform run --mcp-url URL`, MCP 2025-06-18
//! "Transports"): each JSON-RPC message is the body of a POST to the URL, with
//! `Accept: application/json, text/event-stream`; the answer is an `application/json` body (one
//! message) or a `text/event-stream` whose events' `data` carry messages (notifications and
//! requests of the server, then the answer). The `Mcp-Session-Id` the server gives with its
//! `initialize` answer goes with every later request, with `MCP-Protocol-Version`; the session
//! is DELETEd at the end.
//!
//! Written over ureq (the HTTP client the reference's web tools use), with no proxy, each
//! request bounded by the clock from its start to the end of its answer.

use std::io::{BufRead as _, BufReader, Read};
use std::time::{Duration, Instant};

use crate::outcome::Failure;
use crate::peer::process::MAX_LINE;

/// How long the DELETE that ends a session may take.
const END_TIMEOUT: Duration = Duration::from_millis(1000);

/// The session's HTTP side: the URL, the session id the server gave, the protocol version.
#[derive(Debug)]
pub struct HttpWire {
    url: String,
    agent: ureq::Agent,
    /// `Mcp-Session-Id` of the `initialize` answer, sent with every later request.
    session: Option<String>,
    /// The negotiated protocol version, sent as `MCP-Protocol-Version` once known.
    pub protocol: Option<String>,
}

/// The messages of one answer, read as they come: a JSON body is one message, an event stream
/// one message per event with data.
pub struct Messages {
    /// An `application/json` body, whole, not yet given.
    whole: Option<String>,
    /// An event stream, read event by event.
    reader: Option<BufReader<Box<dyn Read + Send>>>,
    deadline: Instant,
}

impl std::fmt::Debug for Messages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Messages")
            .field("whole", &self.whole)
            .field("stream", &self.reader.is_some())
            .finish()
    }
}

impl HttpWire {
    /// The wire to `url`; nothing is sent yet.
    pub fn new(url: &str) -> HttpWire {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .proxy(None)
            .max_redirects(0)
            .build();
        HttpWire {
            url: url.to_owned(),
            agent: ureq::Agent::new_with_config(config),
            session: None,
            protocol: None,
        }
    }

    /// POSTs one message; its answer's messages (none for a notification or a response, which
    /// the server takes with 202 Accepted). A refusal by HTTP status is a [`Failure::Error`],
    /// after which the session goes on; any other failure ends it.
    pub fn post(&mut self, message: &str, timeout: Duration) -> Result<Messages, Failure> {
        let deadline = Instant::now() + timeout;
        let mut request = self
            .agent
            .post(&self.url)
            .config()
            .timeout_global(Some(timeout))
            .build()
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json");
        if let Some(session) = &self.session {
            request = request.header("Mcp-Session-Id", session);
        }
        if let Some(protocol) = &self.protocol {
            request = request.header("MCP-Protocol-Version", protocol);
        }
        let response = request
            .send(message)
            .map_err(|e| failure(&e, deadline, &self.url))?;
        let status = response.status().as_u16();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        if self.session.is_none()
            && let Some(session) = header("Mcp-Session-Id")
        {
            self.session = Some(session);
        }
        let kind = header("Content-Type")
            .unwrap_or_default()
            .to_ascii_lowercase();
        let body: Box<dyn Read + Send> = Box::new(response.into_body().into_reader());
        let mut messages = Messages {
            whole: None,
            reader: None,
            deadline,
        };
        match status {
            202 => Ok(messages),
            200 if kind.starts_with("text/event-stream") => {
                messages.reader = Some(BufReader::new(body));
                Ok(messages)
            }
            200 if kind.starts_with("application/json") => {
                messages.whole = Some(read_whole(body, deadline)?);
                Ok(messages)
            }
            200 => Err(Failure::ProtocolError(format!(
                "an answer of type {kind:?}, neither application/json nor text/event-stream"
            ))),
            // The session is gone (MCP "Session Management"): the session breaks, and a new one
            // is opened as a restart.
            404 if self.session.is_some() => Err(Failure::Crash(
                "the server ended the session (HTTP status 404)".to_owned(),
            )),
            // The server refused the request (a JSON-RPC error in the body, or none): it could
            // not carry it out, as with a JSON-RPC error; the session goes on.
            _ => {
                let text = read_whole(body, deadline).unwrap_or_default();
                Err(Failure::Error(format!(
                    "HTTP status {status}: {}",
                    crate::protocol::wire::preview(&text)
                )))
            }
        }
    }

    /// Ends the session: a DELETE with its id (its answer let be; a server may refuse it).
    pub fn end(&mut self) {
        let Some(session) = self.session.take() else {
            return;
        };
        let mut request = self
            .agent
            .delete(&self.url)
            .config()
            .timeout_global(Some(END_TIMEOUT))
            .build()
            .header("Mcp-Session-Id", &session);
        if let Some(protocol) = &self.protocol {
            request = request.header("MCP-Protocol-Version", protocol);
        }
        drop(request.call());
    }
}

impl Messages {
    /// The next message of the answer, `None` at its end.
    pub fn next_message(&mut self) -> Result<Option<String>, Failure> {
        if let Some(whole) = self.whole.take() {
            return Ok(Some(whole));
        }
        let Some(reader) = self.reader.as_mut() else {
            return Ok(None);
        };
        // One event: `data:` lines joined by newlines, up to a blank line (or the end).
        let mut data: Option<String> = None;
        loop {
            let mut line = Vec::new();
            let read = reader
                .by_ref()
                .take(MAX_LINE + 1)
                .read_until(b'\n', &mut line)
                .map_err(|e| io_failure(&e, self.deadline))?;
            if line.len() as u64 > MAX_LINE {
                return Err(Failure::ProtocolError(format!(
                    "an event-stream line of more than {MAX_LINE} bytes"
                )));
            }
            let line = String::from_utf8(line).map_err(|e| {
                Failure::ProtocolError(format!(
                    "an event-stream line that is not UTF-8 (an invalid byte at offset {})",
                    e.utf8_error().valid_up_to()
                ))
            })?;
            let line = line.strip_suffix('\n').unwrap_or(&line);
            let line = line.strip_suffix('\r').unwrap_or(line);
            if read == 0 || line.is_empty() {
                // An event with empty data (the priming event a resumable stream begins with,
                // MCP 2025-11-25) carries no message.
                match (data.take().filter(|d| !d.is_empty()), read) {
                    (Some(data), _) => return Ok(Some(data)),
                    (None, 0) => return Ok(None),
                    (None, _) => continue,
                }
            }
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            if field == "data" {
                match data.as_mut() {
                    Some(data) => {
                        data.push('\n');
                        data.push_str(value);
                    }
                    None => data = Some(value.to_owned()),
                }
            }
        }
    }
}

/// The whole body as UTF-8 text, within its size cap.
fn read_whole(body: Box<dyn Read + Send>, deadline: Instant) -> Result<String, Failure> {
    let mut bytes = Vec::new();
    body.take(MAX_LINE + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io_failure(&e, deadline))?;
    if bytes.len() as u64 > MAX_LINE {
        return Err(Failure::ProtocolError(format!(
            "an answer of more than {MAX_LINE} bytes"
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        Failure::ProtocolError(format!(
            "an answer that is not UTF-8 (an invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// How a request that got no answer failed: its time ran out, or the server could not be
/// reached or dropped the connection (a crash, as a process that exits).
fn failure(error: &ureq::Error, deadline: Instant, url: &str) -> Failure {
    match error {
        ureq::Error::Timeout(_) => Failure::Timeout,
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            Failure::Crash(format!("cannot connect to {url}: {io}"))
        }
        ureq::Error::Io(io) => io_failure(io, deadline),
        _ if Instant::now() >= deadline => Failure::Timeout,
        ureq::Error::ConnectionFailed | ureq::Error::HostNotFound => {
            Failure::Crash(format!("cannot connect to {url}: {error}"))
        }
        _ => Failure::Crash(format!("the request to {url} failed: {error}")),
    }
}

/// A read or connection that failed: a timeout once the deadline has passed, else the server
/// went away.
fn io_failure(error: &std::io::Error, deadline: Instant) -> Failure {
    use std::io::ErrorKind;
    match error.kind() {
        ErrorKind::TimedOut | ErrorKind::WouldBlock => Failure::Timeout,
        _ if Instant::now() >= deadline => Failure::Timeout,
        _ => Failure::Crash(format!("the connection failed: {error}")),
    }
}
