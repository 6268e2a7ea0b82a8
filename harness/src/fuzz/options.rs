//! What a fuzz run is asked to do, and where it is while it runs.

use std::time::Duration;

use vvoc_reference::Tool;

use crate::compare::Level;
use crate::mcp_client::servers::McpOptions;
use crate::peer::options::PeerOptions;

/// How a fuzz run is carried out.
#[derive(Clone, Debug)]
pub struct Options {
    /// The implementation under test; `None` is the reference itself (a dry run: it measures
    /// generation and which rules fire, and finds nothing by construction).
    pub peer: Option<PeerOptions>,
    /// What the peer is compared against; `None` is the reference in process.
    pub against: Option<PeerOptions>,
    /// An MCP server under test instead of a peer (`--mcp`): the inputs the reference refuses
    /// are sent to it as `tools/call`s; compared at `verdict` or `text`.
    pub mcp: Option<McpOptions>,
    /// Only these tools (all the peers implement when empty).
    pub tools: Vec<Tool>,
    /// How many inputs.
    pub count: u64,
    /// The seed that names the inputs.
    pub seed: u64,
    /// How much of an answer must match.
    pub level: Level,
    /// How many workers (each with its own peer processes).
    pub jobs: usize,
    /// Stop generating after this long (the run is then no longer determined by its seed).
    pub time_limit: Option<Duration>,
    /// How many candidates the shrinker may try per class.
    pub shrink_budget: usize,
}

impl Options {
    /// A dry run of `count` inputs of every tool at level `exact`, seed 1, one job.
    pub fn new(count: u64) -> Options {
        Options {
            peer: None,
            against: None,
            mcp: None,
            tools: Vec::new(),
            count,
            seed: 1,
            level: Level::Exact,
            jobs: 1,
            time_limit: None,
            shrink_budget: 4000,
        }
    }
}

/// Where a run is, for a progress line.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Inputs answered by both sides.
    pub inputs: u64,
    /// Of those, how many disagree.
    pub findings: u64,
    /// Since the start.
    pub elapsed: Duration,
    /// Whether the run is shrinking its findings (generation is over).
    pub shrinking: bool,
}
