//! The vvoc conformance harness: loads the contract vectors, runs them against the in-process
//! reference or a peer process, compares at a chosen level, and reports.
//!
//! The rooms, each depending only on those listed before it: `json` (the contract's JSON model
//! for serde), `compare` and `outcome` (levels and outcomes), `scenario` (what a scenario is and
//! how one plays), `web` and `workflow` (web and workflow scenarios), `load` (the suite's files), `protocol` (the JSON Lines messages), `peer`
//! (peer processes and sessions), `run` (a whole run and its summary), `report` (the files a run
//! writes), `fuzz`, the commands `serve` (`conform peer`) and `bench`, and `mcp` (`conform mcp`,
//! the reference as an MCP server).

pub mod bench;
pub mod compare;
pub mod fuzz;
pub mod json;
pub mod load;
pub mod mcp;
pub mod mcp_client;
pub mod meta_schema;
pub mod meta_schema_web;
pub mod meta_schema_workflow;
pub mod outcome;
pub mod panic;
pub mod parallel;
pub mod peer;
pub mod preview;
pub mod progress;
pub mod protocol;
pub mod report;
pub mod run;
pub mod scenario;
pub mod serve;
mod serve_workflow;
pub mod web;
pub mod workflow;

pub use compare::Level;
pub use load::error::LoadError;
pub use load::vector::Vector;
pub use outcome::{Answer, Outcome};

use std::path::PathBuf;

use vvoc_reference::Tool;

/// Whether the suite has scenarios for `tool` (what a valid call does, played step by step):
/// the editors', the web tools' and the workflow tools'. The one answer for the hello's
/// `scenarios`, a report's implementation block and the mutation check's choice of scenarios.
pub fn has_scenarios(tool: Tool) -> bool {
    vvoc_reference::exec::executes(tool) || web::is_web(tool) || workflow::is_workflow(tool)
}

/// The workspace's own `vectors/` folder (where the built-in set is embedded from; for tests and
/// tasks run inside the workspace).
pub fn default_vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("vectors")
}
