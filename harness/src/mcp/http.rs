//! `conform mcp --listen`: the same server over MCP Streamable HTTP, on a loopback address only.
//!
//! rmcp's streamable-HTTP service (one MCP session per client, each with its own handler and so
//! its own editing session; answers as server-sent events) runs under hyper's HTTP/1 server at
//! the one endpoint [`ENDPOINT`]. rmcp refuses a `Host` that is not loopback (DNS rebinding).

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full, Limited};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::deep::{DeepArguments, parsed};
use super::exact::ExactTexts;
use super::server::{Handler, Options, ServeError, runtime};
use super::transport::MAX_LINE;

/// The path of the MCP endpoint; any other path is 404.
pub const ENDPOINT: &str = "/mcp";

/// Why a `--listen` address is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListenError {
    /// Not `IP:PORT`.
    Malformed(String),
    /// An IP address that is not loopback.
    NotLoopback(SocketAddr),
}

impl fmt::Display for ListenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ListenError::Malformed(text) => write!(
                f,
                "--listen {text:?}: expected a loopback IP address and a port, such as \
                 127.0.0.1:8080 or [::1]:8080"
            ),
            ListenError::NotLoopback(address) => write!(
                f,
                "--listen {address}: {} is not a loopback address; the reference serves only on \
                 loopback (127.0.0.0/8 or ::1), so that nothing past this machine reaches its \
                 editors",
                address.ip()
            ),
        }
    }
}

impl std::error::Error for ListenError {}

/// The address `--listen` names, if it is a loopback IP address and a port (0: any free one).
///
/// # Errors
///
/// The text is not `IP:PORT`, or the address is not loopback.
pub fn loopback_address(text: &str) -> Result<SocketAddr, ListenError> {
    let address: SocketAddr = text
        .parse()
        .map_err(|_| ListenError::Malformed(text.to_owned()))?;
    if address.ip().is_loopback() {
        Ok(address)
    } else {
        Err(ListenError::NotLoopback(address))
    }
}

/// The URL a client reaches the server at, listening on `address`.
pub fn endpoint_url(address: SocketAddr) -> String {
    format!("http://{address}{ENDPOINT}")
}

/// Serves MCP Streamable HTTP on `listener` (bound by the caller to a loopback address) until
/// the process ends. Each connection is served on the one runtime; each call on its blocking
/// pool, run to its end even if its client leaves.
///
/// # Errors
///
/// The runtime cannot start, or the listener cannot be used.
pub fn serve_http(options: Options, listener: std::net::TcpListener) -> Result<(), ServeError> {
    let runtime = runtime()?;
    let bound = listener.local_addr().map_err(ServeError::Listen)?;
    let Options {
        served,
        mut reference,
    } = options;
    // Every answer passes through `answer` below, which puts exact texts back, and every request
    // body through `request`, which reads what serde_json cannot (`exact.rs`, `deep.rs`).
    let exact = ExactTexts::kept();
    reference.exact = exact.clone();
    let deep = DeepArguments::default();
    let reference = Arc::new(reference);
    let handlers = deep.clone();
    // rmcp's defaults but for two: the `Host` a client sends may also name the address listened
    // on (127.0.0.2, say), and a body may be as long as a line of the stdio server.
    let hosts = ["localhost", "127.0.0.1", "::1"].map(str::to_owned);
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts.into_iter().chain([bound.ip().to_string()]))
        .with_max_request_body_bytes(MAX_LINE);
    let service = StreamableHttpService::new(
        move || Ok(Handler::new(served.clone(), Arc::clone(&reference)).with_deep(handlers.clone())),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    runtime.block_on(async move {
        listener.set_nonblocking(true).map_err(ServeError::Listen)?;
        let listener = tokio::net::TcpListener::from_std(listener).map_err(ServeError::Listen)?;
        loop {
            let (stream, _) = match listener.accept().await {
                Ok(accepted) => accepted,
                // Out of descriptors, or a connection reset before it was taken: the server
                // goes on, after a pause in case the cause lasts.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let (service, exact, deep) = (service.clone(), exact.clone(), deep.clone());
            tokio::spawn(async move {
                let answer = service_fn(move |request: Request<hyper::body::Incoming>| {
                    let (service, exact, deep) = (service.clone(), exact.clone(), deep.clone());
                    async move {
                        if request.uri().path() != ENDPOINT {
                            return Ok::<_, std::convert::Infallible>(not_found());
                        }
                        let request = match readable(request, &deep).await {
                            Ok(request) => request,
                            Err(refused) => return Ok(refused),
                        };
                        Ok(exactly(service.handle(request).await, exact))
                    }
                });
                // A connection that fails (the client left, a malformed request) ends alone.
                let _ = http1::Builder::new()
                    .timer(TokioTimer::new())
                    .serve_connection(TokioIo::new(stream), answer)
                    .await;
            });
        }
    })
}

/// A request as rmcp reads it: a body `serde_json` cannot read but that is a `tools/call` the
/// contract reads goes on with a stand-in for its arguments (`deep.rs`); any other body as it
/// came. A body over [`MAX_LINE`] is 413, as rmcp answers it.
async fn readable(
    request: Request<hyper::body::Incoming>,
    deep: &DeepArguments,
) -> Result<Request<Full<Bytes>>, Answer> {
    let (parts, body) = request.into_parts();
    let Ok(collected) = Limited::new(body, MAX_LINE).collect().await else {
        let mut response = Response::new(
            Full::new(Bytes::from(format!(
                "Payload Too Large: a request body may hold at most {MAX_LINE} bytes\n"
            )))
            .boxed(),
        );
        *response.status_mut() = StatusCode::PAYLOAD_TOO_LARGE;
        return Err(response);
    };
    let bytes = collected.to_bytes();
    let bytes = match serde_json::from_slice::<serde_json::Value>(&bytes) {
        Ok(_) => bytes,
        Err(_) => match parsed(&bytes)
            .and_then(|value| deep.stand_in(value))
            .map(|m| serde_json::to_vec(&m))
        {
            Some(Ok(message)) => Bytes::from(message),
            Some(Err(_)) | None => bytes,
        },
    };
    Ok(Request::from_parts(parts, Full::new(bytes)))
}

/// rmcp's answer with every text held as a stand-in put back exactly (`exact.rs`): each
/// server-sent event is one frame, so a stand-in never falls across two.
fn exactly(answer: Answer, exact: ExactTexts) -> Answer {
    answer.map(|body| {
        body.map_frame(move |frame| {
            frame.map_data(|data| Bytes::from(exact.restore(data.to_vec())))
        })
        .boxed()
    })
}

/// An HTTP answer as rmcp writes them.
type Answer = Response<http_body_util::combinators::BoxBody<Bytes, std::convert::Infallible>>;

/// The answer outside [`ENDPOINT`].
fn not_found() -> Answer {
    let mut response = Response::new(
        Full::new(Bytes::from(format!(
            "Not Found: the MCP endpoint is {ENDPOINT}\n"
        )))
        .boxed(),
    );
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}
