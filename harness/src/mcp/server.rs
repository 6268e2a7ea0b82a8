//! The MCP server: rmcp's handler over the served tools, on one current-thread runtime, each call on its blocking pool.

use std::fmt;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, ErrorCode, ErrorData,
    Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, ServerInitializeError};
use rmcp::{RoleServer, ServerHandler, ServiceExt as _};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::Mutex;
use vvoc_reference::Json;
use vvoc_reference::exec::Session;

use super::call::Reference;
use super::deep::DeepArguments;
use super::exact::ExactTexts;
use super::stdout::ThreadedStdout;
use super::tools::{Served, entry};
use super::transport::LineTransport;
use crate::json::bridge::dismantle;
use crate::panic::panic_message;

/// What one server serves, and under which policy and host.
#[derive(Clone, Debug)]
pub struct Options {
    pub served: Served,
    pub reference: Reference,
}

/// Why the server stopped other than by its client closing the connection.
#[derive(Debug)]
pub enum ServeError {
    /// The async runtime could not be built.
    Runtime(std::io::Error),
    /// The thread writing standard output could not be started.
    Output(std::io::Error),
    /// The connection did not start with the MCP handshake.
    Initialize(String),
    /// The service loop ended abnormally.
    Stopped(String),
    /// The HTTP listener cannot be used.
    Listen(std::io::Error),
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServeError::Runtime(error) => write!(f, "cannot start the async runtime: {error}"),
            ServeError::Output(error) => {
                write!(
                    f,
                    "cannot start the thread writing standard output: {error}"
                )
            }
            ServeError::Initialize(error) => write!(f, "the MCP handshake failed: {error}"),
            ServeError::Stopped(error) => write!(f, "the MCP service stopped: {error}"),
            ServeError::Listen(error) => write!(f, "cannot listen for HTTP: {error}"),
        }
    }
}

impl std::error::Error for ServeError {}

/// Serves MCP on standard input and output until the client closes its end.
///
/// # Errors
///
/// As [`serve`].
pub fn serve_stdio(mut options: Options) -> Result<(), ServeError> {
    // Only this writer puts exact texts back, so only over stdio are they kept.
    options.reference.exact = ExactTexts::kept();
    let stdout =
        ThreadedStdout::start(options.reference.exact.clone()).map_err(ServeError::Output)?;
    serve(options, tokio::io::stdin(), stdout)
}

/// Serves MCP over `read` and `write` until the client closes its end (a client that leaves
/// before the handshake too). A call under way when the client leaves runs to its end first:
/// an editor writes its file whole.
///
/// # Errors
///
/// The runtime cannot start, the first message is not `initialize`, or the service fails.
pub fn serve<R, W>(options: Options, read: R, write: W) -> Result<(), ServeError>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let runtime = runtime()?;
    let deep = DeepArguments::default();
    let handler = Handler::new(options.served, Arc::new(options.reference)).with_deep(deep.clone());
    // Dropping the runtime afterwards waits for the calls still running on its blocking pool.
    runtime.block_on(async move {
        let service = match handler.serve(LineTransport::new(read, write, deep)).await {
            Ok(service) => service,
            Err(ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
            Err(error) => return Err(ServeError::Initialize(error.to_string())),
        };
        service
            .waiting()
            .await
            .map(|_| ())
            .map_err(|error| ServeError::Stopped(error.to_string()))
    })
}

/// The one current-thread runtime a server runs on (the calls on its blocking pool).
pub(super) fn runtime() -> Result<tokio::runtime::Runtime, ServeError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)
}

/// The handler of one connection: its tools, the reference, and the editors' session.
#[derive(Debug)]
pub(super) struct Handler {
    served: Served,
    reference: Arc<Reference>,
    /// One session per connection: `str_replace_editor`'s snapshots live from call to call.
    /// A fair lock, so the editors' calls run in the order they arrived.
    session: Arc<Mutex<Session>>,
    /// The arguments of calls too deep for rmcp, kept by the stdio reader.
    deep: DeepArguments,
}

impl Handler {
    /// The handler of a new connection (over HTTP, of a new MCP session), with a session of
    /// its own.
    pub(super) fn new(served: Served, reference: Arc<Reference>) -> Handler {
        Handler {
            served,
            reference,
            session: Arc::new(Mutex::new(Session::new())),
            deep: DeepArguments::default(),
        }
    }

    /// The handler taking a call's arguments from `deep` when the reader kept them there.
    pub(super) fn with_deep(self, deep: DeepArguments) -> Handler {
        Handler { deep, ..self }
    }
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("conform", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "The vvoc reference implementation (contract 1.6.0): every call is validated \
                 first; a refusal is an error result whose text is the INVALID_INPUT line. The \
                 editors edit files under the server's root; the web tools fetch and search.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.served
                .tools()
                .iter()
                .map(|tool| entry(*tool))
                .collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let deep = self.deep.take(request.arguments.as_ref());
        let Some(tool) = self.served.get(&request.name) else {
            let served: Vec<&str> = self.served.tools().iter().map(|t| t.id()).collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool {:?}; this server serves {}",
                    request.name,
                    served.join(", ")
                ),
                None,
            ));
        };
        let input = deep.unwrap_or_else(|| {
            let arguments = serde_json::Value::Object(request.arguments.unwrap_or_default());
            let input = Json::from(&arguments);
            dismantle(arguments);
            input
        });
        // A refusal is answered at once: only a valid call waits for the editing session and
        // runs on the blocking pool.
        let accepted = match self.reference.validated(tool, &input) {
            Ok(accepted) => accepted,
            Err(refusal) => return Ok(CallToolResponse::from(*refusal)),
        };
        let reference = Arc::clone(&self.reference);
        let done = if Reference::uses_session(tool) {
            let mut session = Arc::clone(&self.session).lock_owned().await;
            tokio::task::spawn_blocking(move || {
                reference.run(tool, &input, &accepted, &mut session)
            })
            .await
        } else {
            tokio::task::spawn_blocking(move || {
                reference.run(tool, &input, &accepted, &mut Session::new())
            })
            .await
        };
        done.map(CallToolResponse::from).map_err(|error| {
            let said = error.try_into_panic().map(|p| panic_message(&*p));
            ErrorData::internal_error(
                format!(
                    "the call of {} failed inside the reference: {}",
                    tool.id(),
                    said.unwrap_or_else(|error| error.to_string())
                ),
                None,
            )
        })
    }

    /// rmcp hands on as a custom request both a method it does not know and a known one whose
    /// params do not parse (`tools/call` with `arguments` not an object); the second is
    /// invalid params (-32602), with serde's reason.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let params = request.params.unwrap_or(serde_json::Value::Null);
        let reason = match request.method.as_str() {
            "tools/call" => serde_json::from_value::<CallToolRequestParams>(params).err(),
            "tools/list" => serde_json::from_value::<Option<PaginatedRequestParams>>(params).err(),
            _ => {
                return Err(ErrorData::new(
                    ErrorCode::METHOD_NOT_FOUND,
                    format!("Method not found: {}", request.method),
                    None,
                ));
            }
        };
        let reason = reason.map_or_else(|| "they do not fit".to_owned(), |e| e.to_string());
        Err(ErrorData::invalid_params(
            format!("Invalid params of {}: {reason}", request.method),
            None,
        ))
    }
}
