//! The stdio transport of `conform mcp`: newline-delimited JSON-RPC as rmcp writes it, read so that every bad line gets its standard error.
//!
//! rmcp's own reader skips a line that is not JSON without a word (its issue 938: the other
//! official SDKs do the same), so a client that sent one waits forever for the answer. JSON-RPC
//! 2.0 answers it with a parse error (-32700), and so does this reader; writing stays rmcp's.
//!
//! A `tools/call` whose arguments `serde_json` cannot read (nested past 128 levels, a number past
//! a double, a lone surrogate) is still JSON the contract reads: the reader hands rmcp the call
//! with a stand-in for its arguments ([`DeepArguments`]), and the call gets its verdict like any
//! other.

use std::future::Future;
use std::pin::Pin;

use rmcp::RoleServer;

use super::deep::{DeepArguments, parsed, request_id};
use rmcp::model::{ErrorData, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::{AsyncRwTransport, DEFAULT_MAX_LINE_LENGTH};
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWrite, BufReader};
use vvoc_reference::Json;

/// The longest line read, in bytes (rmcp's default): a longer one is answered with an invalid
/// request error and dropped, without being held in memory.
pub const MAX_LINE: usize = DEFAULT_MAX_LINE_LENGTH;

/// A JSON-RPC error being written: an answer to a bad line, finished before the next line is read.
type Pending = Pin<Box<dyn Future<Output = Result<(), std::io::Error>> + Send>>;

/// Newline-delimited JSON-RPC over a reader and a writer (standard input and output).
pub struct LineTransport<R, W: AsyncWrite> {
    read: BufReader<R>,
    /// The line read so far; kept across a cancelled read (rmcp polls `receive` in a `select!`).
    line: Vec<u8>,
    /// Whether the line being read is past [`MAX_LINE`] and is being skipped.
    discarding: bool,
    /// rmcp's own writer (its reading half reads nothing).
    write: AsyncRwTransport<RoleServer, tokio::io::Empty, W>,
    pending: Option<Pending>,
    deep: DeepArguments,
}

impl<R, W: AsyncWrite> std::fmt::Debug for LineTransport<R, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineTransport")
            .field("line", &self.line.len())
            .field("discarding", &self.discarding)
            .finish_non_exhaustive()
    }
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    /// A transport reading messages from `read` and writing them to `write`, keeping in `deep`
    /// the arguments of calls too deep for rmcp.
    pub fn new(read: R, write: W, deep: DeepArguments) -> Self {
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            write: AsyncRwTransport::new(tokio::io::empty(), write),
            pending: None,
            deep,
        }
    }

    /// Reads up to the next newline (or the end of a last line without one) into `self.line`.
    /// Cancel-safe: bytes are taken from the reader only once they are in `self.line`.
    async fn read_line(&mut self) -> Read {
        loop {
            let available = match self.read.fill_buf().await {
                Ok(bytes) => bytes,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => return Read::End,
            };
            if available.is_empty() {
                return match (self.discarding, self.line.is_empty()) {
                    (true, _) => {
                        self.discarding = false;
                        Read::TooLong
                    }
                    (false, true) => Read::End,
                    (false, false) => Read::Line,
                };
            }
            let (taken, end) = match available.iter().position(|b| *b == b'\n') {
                Some(at) => (at, true),
                None => (available.len(), false),
            };
            if !self.discarding {
                if self.line.len().saturating_add(taken) > MAX_LINE {
                    self.discarding = true;
                    self.line.clear();
                } else {
                    self.line.extend_from_slice(&available[..taken]);
                }
            }
            self.read.consume(if end { taken + 1 } else { taken });
            if end {
                if self.discarding {
                    self.discarding = false;
                    return Read::TooLong;
                }
                return Read::Line;
            }
        }
    }
}

/// What one read ended with.
enum Read {
    /// A whole line is in the buffer.
    Line,
    /// A line past [`MAX_LINE`] was skipped.
    TooLong,
    /// The client closed its end (or it cannot be read).
    End,
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), std::io::Error>> + Send + 'static {
        self.write.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if let Some(pending) = self.pending.as_mut() {
                let written = pending.await;
                self.pending = None;
                written.ok()?;
            }
            let answer = match self.read_line().await {
                Read::End => return None,
                Read::TooLong => ErrorData::invalid_request(
                    format!("Invalid request: the message is longer than {MAX_LINE} bytes"),
                    None,
                ),
                Read::Line => {
                    let line = std::mem::take(&mut self.line);
                    match read_message(&line, &self.deep) {
                        Line::Message(message) => return Some(*message),
                        Line::Ignored => continue,
                        Line::Error(error, id) => {
                            let reply = TxJsonRpcMessage::<RoleServer>::error(error, id);
                            self.pending = Some(Box::pin(self.write.send(reply)));
                            continue;
                        }
                    }
                }
            };
            let reply = TxJsonRpcMessage::<RoleServer>::error(answer, None);
            self.pending = Some(Box::pin(self.write.send(reply)));
        }
    }

    async fn close(&mut self) -> Result<(), std::io::Error> {
        self.write.close().await
    }
}

/// What a line holds.
enum Line {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Nothing to answer: an empty line, or a notification rmcp does not know (a notification
    /// is never answered).
    Ignored,
    /// The error to answer, and the request's id when it can be read.
    Error(ErrorData, Option<RequestId>),
}

/// Reads one line: a message, or the standard error it gets (-32700 for text that is not JSON,
/// also nested past `serde_json`'s 128 levels; -32602 for a request of a known method whose
/// parameters do not fit; -32600 for JSON that is no JSON-RPC message).
fn read_message(line: &[u8], deep: &DeepArguments) -> Line {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Line::Ignored;
    }
    let error = match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
        Ok(message) => return Line::Message(Box::new(message)),
        Err(error) => error,
    };
    if !matches!(error.classify(), serde_json::error::Category::Data) {
        // JSON nested past serde_json's limit is still JSON: the contract's parser reads any
        // depth, so a tools/call gets its verdict, and another answer carries the request's id:
        // the client is not left waiting.
        let value = parsed(line);
        let id = value
            .as_ref()
            .and_then(Json::as_object)
            .and_then(|o| o.get("id"))
            .and_then(request_id);
        if let Some(message) = value.and_then(|value| deep.stand_in(value))
            && let Ok(message) = serde_json::from_value(message)
        {
            return Line::Message(Box::new(message));
        }
        return Line::Error(
            ErrorData::parse_error(format!("Parse error: {error}"), None),
            id,
        );
    }
    // The line is JSON: see what kind of message it meant to be.
    let Ok(serde_json::Value::Object(object)) = serde_json::from_slice::<serde_json::Value>(line)
    else {
        return invalid_request(&error, None);
    };
    let id = object
        .get("id")
        .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
    let method = object.get("method").and_then(serde_json::Value::as_str);
    let versioned = object.get("jsonrpc").and_then(serde_json::Value::as_str) == Some("2.0");
    match (method, object.contains_key("id"), id) {
        (Some(_), false, _) if versioned => Line::Ignored,
        (Some(method), true, Some(id)) if versioned => Line::Error(
            ErrorData::invalid_params(format!("Invalid params of {method}: {error}"), None),
            Some(id),
        ),
        (_, _, id) => invalid_request(&error, id),
    }
}

fn invalid_request(error: &serde_json::Error, id: Option<RequestId>) -> Line {
    Line::Error(
        ErrorData::invalid_request(format!("Invalid request: {error}"), None),
        id,
    )
}
