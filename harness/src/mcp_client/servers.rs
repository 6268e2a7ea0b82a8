//! What the MCP server processes of one run share: the command (with `{root}` replaced by a
//! scratch directory of the run's) or the URL, the timeouts, the restart budget, whether the run
//! has given up on the server, and the end of every process's stderr.
//!
//! Over a URL (`--mcp-url`) a "server" is a session: a new one is opened where a process would
//! be started, and a restart is a new session with the same server.

use std::path::PathBuf;
use std::time::Duration;

use crate::mcp_client::session::McpSession;
use crate::peer::process::PeerCommand;
use crate::peer::supervision::{Supervision, Unusable};
use crate::scenario::scratch::Scratch;

/// Where the server's root goes in the command: `conform run --mcp "conform mcp --root {root}"`.
pub const ROOT: &str = "{root}";

/// The server a run talks to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum McpServer {
    /// The command that starts a server over stdio, as given (`{root}` not yet replaced).
    Command(String),
    /// The URL of a server over Streamable HTTP.
    Url(String),
}

impl McpServer {
    /// The command or the URL, as given.
    pub fn as_str(&self) -> &str {
        match self {
            McpServer::Command(text) | McpServer::Url(text) => text,
        }
    }
}

/// How a run over MCP is carried out.
#[derive(Clone, Debug)]
pub struct McpOptions {
    /// The server: a command, or a URL.
    pub server: McpServer,
    /// How long a request may wait for its answer.
    pub timeout: Duration,
    /// How long `initialize` may wait; `None` is the timeout, 5 s at least.
    pub init_timeout: Option<Duration>,
    /// How many server processes answer vectors at once.
    pub jobs: usize,
    /// How many restarts (after timeouts, crashes and protocol errors) the run allows in all.
    pub max_restarts: usize,
    /// Where the servers' roots (and the scenarios' directories) are made.
    pub scratch: PathBuf,
}

impl McpOptions {
    /// Defaults for everything but the server.
    pub fn new(server: McpServer, scratch: PathBuf) -> McpOptions {
        McpOptions {
            server,
            timeout: Duration::from_millis(5000),
            init_timeout: None,
            jobs: 1,
            max_restarts: 10,
            scratch,
        }
    }

    /// The command with `root` in place of `{root}` (quoted as one word), ready to start.
    pub fn command_in(&self, root: &str) -> Result<PeerCommand, Unusable> {
        let text = self
            .server
            .as_str()
            .replace(ROOT, &shell_words::quote(root));
        PeerCommand::parse(&text).map_err(Unusable)
    }

    /// Whether the command takes the server's root (a URL takes none).
    pub fn takes_root(&self) -> bool {
        match &self.server {
            McpServer::Command(command) => command.contains(ROOT),
            McpServer::Url(_) => false,
        }
    }

    /// Whether the server is at a URL, whose root a run cannot choose.
    pub fn over_http(&self) -> bool {
        matches!(self.server, McpServer::Url(_))
    }
}

/// A running server: its session, and the directory it was given as `{root}` (removed with it).
#[derive(Debug)]
pub struct Server {
    /// The session.
    pub session: McpSession,
    /// Its root, when the command takes one.
    _root: Option<Scratch>,
}

/// What the server processes of one run share.
#[derive(Debug)]
pub struct Servers<'o> {
    pub(crate) options: &'o McpOptions,
    supervision: Supervision,
}

impl<'o> Servers<'o> {
    /// The servers of a run.
    pub fn new(options: &'o McpOptions) -> Servers<'o> {
        Servers {
            options,
            supervision: Supervision::new("server", options.max_restarts),
        }
    }

    /// Starts and initializes a server; with `root` (a scenario's directory) as its `{root}`,
    /// or else, when the command takes a root, a new empty scratch directory of its own. Over a
    /// URL, opens and initializes a session (`root` is not used).
    pub fn start(&self, root: Option<&str>) -> Result<Server, Unusable> {
        let init = self
            .options
            .init_timeout
            .unwrap_or_else(|| self.options.timeout.max(Duration::from_secs(5)));
        if let McpServer::Url(url) = &self.options.server {
            let session = McpSession::connect(url, init, self.options.timeout).map_err(Unusable)?;
            return Ok(Server {
                session,
                _root: None,
            });
        }
        let (command, scratch) = match (root, self.options.takes_root()) {
            (Some(root), _) => (self.options.command_in(root)?, None),
            (None, true) => {
                let scratch = Scratch::create(&self.options.scratch)
                    .map_err(|e| Unusable(format!("cannot create a root for the server: {e}")))?;
                (self.options.command_in(scratch.root())?, Some(scratch))
            }
            (None, false) => (self.options.command_in("")?, None),
        };
        let session = McpSession::start(&command, init, self.options.timeout).map_err(Unusable)?;
        Ok(Server {
            session,
            _root: scratch,
        })
    }

    /// Ends a server, keeping its stderr tail.
    pub fn finish(&self, server: Server) {
        self.supervision.keep_stderr(&server.session.finish());
    }

    /// Takes one restart from the run's budget; the server is unusable when there is none left.
    pub fn take_restart(&self) -> Result<(), Unusable> {
        self.supervision.take_restart()
    }

    /// Gives up on the server: every worker stops at its next request.
    pub fn give_up(&self, reason: Unusable) {
        self.supervision.give_up(reason);
    }

    /// Whether the run has given up (or is interrupted).
    pub fn stopped(&self) -> bool {
        self.supervision.stopped()
    }

    /// Why the run gave up, if it did, and the stderr tails.
    pub fn end(self) -> (Option<Unusable>, String) {
        self.supervision.end()
    }
}
