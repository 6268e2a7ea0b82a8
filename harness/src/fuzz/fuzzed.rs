//! What a finished fuzz run found: its classes with their examples, the rules that fired, and
//! how the run went.

use std::time::Duration;

use vvoc_reference::{Json, Tool, Verdict};

use crate::compare::Level;
use crate::fuzz::class::Class;
use crate::outcome::Answer;
use crate::protocol::hello::Implementation;

/// One class of disagreement, with its example.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The class.
    pub class: Class,
    /// How many inputs fell in it.
    pub count: u64,
    /// The index of the first of them (its example).
    pub first: u64,
    /// That input, as generated.
    pub original: Json,
    /// The smallest input found that disagrees the same way (the original when not shrunk).
    pub minimal: Json,
    /// The expected side's answer to the minimal input.
    pub expected: Answer,
    /// The peer's answer to the minimal input.
    pub received: Answer,
    /// The reference's verdict on the minimal input (the expectation of its vector).
    pub reference: Verdict,
}

/// Which inventory rules the reference's verdicts named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rules {
    /// How many input rules the selected tools have in the inventory (rules of execution aside).
    pub inventory: usize,
    /// The rules no verdict named, in inventory order.
    pub never_fired: Vec<String>,
}

/// A finished fuzz run.
#[derive(Clone, Debug)]
pub struct Fuzzed {
    /// The options' seed, count and level.
    pub seed: u64,
    /// How many inputs were asked for.
    pub count: u64,
    /// The level that judged.
    pub level: Level,
    /// The peer's hello (the reference's in a dry run).
    pub peer: Implementation,
    /// The other side's hello.
    pub against: Implementation,
    /// The tools generated for.
    pub tools: Vec<Tool>,
    /// How many inputs both sides answered.
    pub inputs: u64,
    /// How many of them disagree.
    pub findings: u64,
    /// How many of them were not sent to an MCP server: the reference accepts them (the call
    /// would execute the tool), or they are no JSON object.
    pub not_observable: u64,
    /// Whether the received side is an MCP server (`--mcp`).
    pub over_mcp: bool,
    /// The classes, in class order.
    pub classes: Vec<Finding>,
    /// Which rules fired.
    pub rules: Rules,
    /// Time spent generating and comparing.
    pub elapsed: Duration,
    /// Time spent shrinking.
    pub shrink_elapsed: Duration,
    /// Whether `--time-limit` ended generation before the count.
    pub timed_out: bool,
    /// Why a peer became unusable, if one did (exit 3).
    pub unusable: Option<String>,
    /// The last bytes the peers wrote to stderr.
    pub stderr_tail: String,
}

impl Fuzzed {
    /// Inputs per second of the generation phase.
    pub fn rate(&self) -> f64 {
        self.inputs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}
