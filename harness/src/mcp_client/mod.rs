//! `conform run --mcp CMD`: the suite against any MCP server over stdio (the client side of
//! issue 21).
//!
//! `session` is one JSON-RPC session over a server process, `schemas` the `tools/list`
//! comparison with the published schemas, `servers` what the server processes of a run share
//! (the command with `{root}`, the restart budget, the stderr tails), `vectors` the reject
//! vectors as `tools/call`s, `scenarios` the editor scenarios (one server per scenario, confined
//! to its directory), and `run` the whole run.

pub mod run;
pub mod scenarios;
pub mod schemas;
pub mod servers;
pub mod session;
pub mod vectors;
