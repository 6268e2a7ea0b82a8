//! `conform mcp`: the reference served over the Model Context Protocol (stdio, or Streamable HTTP on loopback), under the host's policy.
//!
//! `tools` is what `tools/list` shows, `policy` the root the editors stay inside, `host` the web
//! tools' configuration, `call` one `tools/call`, `transport` the lines on the wire, `server`
//! rmcp's handler over all of them, and `http` the same over Streamable HTTP.

pub mod call;
pub mod deep;
pub mod exact;
pub mod host;
pub mod http;
pub mod policy;
pub mod server;
pub mod stdout;
pub mod tools;
pub mod transport;
