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
use http_body_util::{BodyExt as _, Full};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

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
    let Options { served, reference } = options;
    let reference = Arc::new(reference);
    // rmcp's defaults but for two: the `Host` a client sends may also name the address listened
    // on (127.0.0.2, say), and a body may be as long as a line of the stdio server.
    let hosts = ["localhost", "127.0.0.1", "::1"].map(str::to_owned);
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts.into_iter().chain([bound.ip().to_string()]))
        .with_max_request_body_bytes(MAX_LINE);
    let service = StreamableHttpService::new(
        move || Ok(Handler::new(served.clone(), Arc::clone(&reference))),
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
            let service = service.clone();
            tokio::spawn(async move {
                let answer = service_fn(move |request: Request<hyper::body::Incoming>| {
                    let service = service.clone();
                    async move {
                        if request.uri().path() == ENDPOINT {
                            Ok::<_, std::convert::Infallible>(service.handle(request).await)
                        } else {
                            Ok(not_found())
                        }
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

/// The answer outside [`ENDPOINT`].
fn not_found() -> Response<http_body_util::combinators::BoxBody<Bytes, std::convert::Infallible>> {
    let mut response = Response::new(
        Full::new(Bytes::from(format!(
            "Not Found: the MCP endpoint is {ENDPOINT}\n"
        )))
        .boxed(),
    );
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}
