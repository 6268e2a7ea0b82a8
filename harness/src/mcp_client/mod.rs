//! `conform run --mcp CMD` and `--mcp-url URL`: the suite against any MCP server over stdio or
//! Streamable HTTP (the client side of issue 21).
//!
//! `session` is one JSON-RPC session over a server process or a URL (`http` its HTTP wire),
//! `schemas` the `tools/list` comparison with the published schemas, `servers` what the server
//! processes (or sessions) of a run share (the command with `{root}` or the URL, the restart
//! budget, the stderr tails), `vectors` the reject vectors as `tools/call`s, `scenarios` the
//! editor scenarios (one server per scenario, confined to its directory; not observable over a
//! URL), and `run` the whole run.

pub mod http;
pub mod run;
pub mod scenarios;
pub mod schemas;
pub mod servers;
pub mod session;
pub mod vectors;
