//! `conform mcp`: the reference served as an MCP server on standard input and output, or over
//! Streamable HTTP on a loopback address.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{Context as _, Result};
use clap::Args;
use vvoc_harness::mcp::call::Reference;
use vvoc_harness::mcp::exact::ExactTexts;
use vvoc_harness::mcp::host::web_host;
use vvoc_harness::mcp::http::{endpoint_url, loopback_address, serve_http};
use vvoc_harness::mcp::policy::Policy;
use vvoc_harness::mcp::server::{Options, serve_stdio};
use vvoc_harness::mcp::tools::Served;

use super::OK;

/// What `conform mcp --help` shows after the flags: how a client starts it.
pub(crate) const EXAMPLE: &str = "\
Example: a client's configuration (Claude Code's .mcp.json; OpenCode, Codex and others take the \
same command and arguments):

  {\"mcpServers\": {\"vvoc\": {\"command\": \"conform\", \"args\": [\"mcp\", \"--root\", \".\"]}}}

Try it by hand (one JSON-RPC message per line):

  conform mcp --root /tmp/scratch --tools str_replace_editor

Over Streamable HTTP (loopback only; the URL is printed on standard output):

  conform mcp --root . --listen 127.0.0.1:8765   # http://127.0.0.1:8765/mcp";

#[derive(Args, Debug)]
pub(crate) struct McpArgs {
    /// The directory the editors are confined to: every path of a hashline_edit or
    /// str_replace_editor call must lie inside it once symbolic links are followed, or the
    /// call is refused and nothing is touched. The server runs in it, so a relative
    /// hashline_edit path is relative to it [default: the current directory].
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Serve only these tools, comma-separated, such as hashline_edit,str_replace_editor
    /// [default: all nine].
    #[arg(long, value_name = "TOOL,...")]
    tools: Option<String>,
    /// The web tools' host configuration as JSON, as for `conform exec --host`: providers,
    /// regions, apiKey, endpoints, such as '{"search":{"provider":"brave"}}' [default: {},
    /// native fetch and Exa search]. Without an "env" member, the credentials come from this
    /// process's environment as upstream reads them: EXA_API_KEY, BRAVE_API_KEY,
    /// SPIDER_API_KEY, ZAI_API_KEY.
    #[arg(long, value_name = "JSON")]
    host: Option<String>,
    /// Serve MCP Streamable HTTP at http://ADDR/mcp instead of stdio, until interrupted. ADDR is
    /// a loopback IP address and a port (0: a free one), such as 127.0.0.1:8765; any other
    /// address is refused. The URL is printed on standard output once the server listens.
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
}

/// `conform mcp`: serves until the client closes standard input.
pub(crate) fn run(args: McpArgs) -> Result<u8> {
    let listen = args.listen.as_deref().map(loopback_address).transpose()?;
    let served = match &args.tools {
        Some(list) => Served::parse(list)?,
        None => Served::all(),
    };
    let host = web_host(args.host.as_deref(), |name| std::env::var(name).ok())?;
    let root = match &args.root {
        Some(root) => root.clone(),
        None => std::env::current_dir().context("cannot read the working directory")?,
    };
    let root = std::fs::canonicalize(&root)
        .with_context(|| format!("--root {}: cannot be resolved", root.display()))?;
    // The editors resolve a relative path against the working directory: make it the root.
    std::env::set_current_dir(&root)
        .with_context(|| format!("--root {}: cannot enter it", root.display()))?;
    let policy = Policy::new(&root)?;
    let reference = Reference {
        policy,
        host,
        exact: ExactTexts::lossy(),
    };
    let options = Options { served, reference };
    match listen {
        None => serve_stdio(options).context("conform mcp")?,
        Some(address) => {
            let listener = std::net::TcpListener::bind(address)
                .with_context(|| format!("--listen {address}: cannot listen there"))?;
            let bound = listener
                .local_addr()
                .context("--listen: the bound address")?;
            let mut stdout = std::io::stdout();
            writeln!(stdout, "{}", endpoint_url(bound)).context("standard output")?;
            stdout.flush().context("standard output")?;
            serve_http(options, listener).context("conform mcp --listen")?;
        }
    }
    Ok(OK)
}
