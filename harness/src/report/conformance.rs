//! `conformance.json` as types (interfaces.md §6): built once from a run (`build`), written
//! through the contract's writer, read back with serde; the one model that `conformance.md`,
//! `junit.xml` and the console's list of failures are rendered from, and that `cargo xtask
//! mutants` reads.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use vvoc_reference::{Json, Tool};

use crate::compare::Level;
use crate::json::bridge::to_serde_lossy;
use crate::json::deep::shallow;
use crate::json::ser::{Embedded, to_json};
use crate::outcome::{Outcome, Tally};
use crate::scenario::compare::ScenarioLevel;
use crate::scenario::tree::Tree;

/// How many levels of `conformance.json` are indented: every level of the report's own members
/// and of the verdicts it quotes; an input nested deeper is written compactly below them.
pub const INDENTED_LEVELS: usize = 24;

/// The version of the `conformance.json` format.
pub const FORMAT: u32 = 1;

/// A whole `conformance.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Conformance {
    /// [`FORMAT`].
    pub format: u32,
    /// What was tested: the runner, the contract, the vector set, the peer command.
    pub tested: Tested,
    /// Who answered.
    pub implementation: ImplementationReport,
    /// The vectors compared.
    pub vectors: Compared,
    /// The level that decides pass and fail.
    pub level: Level,
    /// The outcomes of every vector.
    pub totals: VectorTotals,
    /// How many vectors pass at each level, weakest first.
    pub levels: BTreeMap<Level, usize>,
    /// The outcomes per tool, in tool order.
    pub tools: BTreeMap<ToolId, VectorTotals>,
    /// One result per vector, sorted by name.
    pub results: Vec<VectorResult>,
    /// The scenarios, when the run had any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenarios: Option<ScenarioSection>,
    /// Why the run stopped before it had run everything it selected, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Stopped>,
    /// The last bytes the peer wrote to stderr.
    pub stderr_tail: String,
    /// A run over MCP (`conform run --mcp`): how each selected tool's `inputSchema` in
    /// `tools/list` compares with the published schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp: Option<McpSection>,
}

/// What a run over MCP adds: each selected tool's schema, compared.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpSection {
    /// By tool, in tool order.
    pub schemas: BTreeMap<ToolId, SchemaReport>,
}

impl McpSection {
    /// How many tools' schemas differ from the published ones (each fails the run).
    pub fn differing(&self) -> usize {
        self.schemas
            .values()
            .filter(|s| s.outcome == SchemaReport::DIFFERS)
            .count()
    }
}

/// One tool's schema in `tools/list`, compared with the published one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchemaReport {
    /// `equal`, `differs` or `not-served`.
    pub outcome: String,
    /// Where it differs (JSON pointers, `""` the whole schema), the first 20.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// How many more paths differ.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub more: usize,
}

impl SchemaReport {
    /// The outcome of a schema that differs.
    pub const DIFFERS: &str = "differs";
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Conformance {
    /// The report in the contract's JSON model, as the file holds it.
    pub fn to_json(&self) -> Json {
        // Every member has a form in the model (string keys, no tuple or struct variants), so
        // this cannot fail; were it to, the file would say why rather than hold nothing.
        to_json(self).unwrap_or_else(|e| Json::str(&format!("the report has no JSON form: {e}")))
    }

    /// The text of `conformance.json`: indented, but compact below [`INDENTED_LEVELS`] levels,
    /// so that the input of a deep vector is written in linear size.
    pub fn to_text(&self) -> String {
        format!("{}\n", self.to_json().to_pretty_to_depth(INDENTED_LEVELS))
    }

    /// Reads a `conformance.json`. Lone surrogates (in issue paths, texts) come back as U+FFFD:
    /// `serde_json` has no other form for them, and no reader needs more.
    pub fn read(text: &str) -> Result<Conformance, String> {
        let json = Json::parse(text).map_err(|e| format!("the report is not JSON: {e}"))?;
        let value = to_serde_lossy(&json).into_inner();
        let report: Conformance = shallow(value, serde_json::from_value)
            .map_err(|e| format!("the report is not a conformance report: {e}"))?;
        match report.format {
            FORMAT => Ok(report),
            other => Err(format!(
                "the report has format {other}; this program reads format {FORMAT}"
            )),
        }
    }
}

/// What a run tested, so that a report says what it is a report of (and stays deterministic: no
/// time, no machine).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tested {
    /// `conform`'s version.
    pub conform: String,
    /// The contract's version.
    pub contract: String,
    /// The vector and scenario files the run loaded.
    pub suite: SuiteReport,
    /// The peer's command as given, or `None` for the in-process reference.
    pub peer: Option<String>,
}

/// The files a run loaded: their digest (as `conform --version` gives the built-in set's) and
/// how many there were.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuiteReport {
    /// `sha256:` and the first 12 hex digits of the set's digest.
    pub digest: String,
    /// How many files held vectors or scenarios.
    pub files: usize,
}

/// Why a run stopped early, and how much of its selection it had run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stopped {
    /// Why, in one line.
    pub reason: String,
    /// How many vectors the run selected.
    pub selected_vectors: usize,
    /// How many of them were not run.
    pub vectors_not_run: usize,
    /// How many scenarios the run selected.
    pub selected_scenarios: usize,
    /// How many of them were not run.
    pub scenarios_not_run: usize,
}

/// The implementation a run talked to, as its hello said.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImplementationReport {
    /// Its name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// Its language.
    pub language: String,
    /// The tools it implements.
    pub tools: Vec<String>,
    /// The tools it executes (only when the run had scenarios).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenarios: Option<Vec<String>>,
}

/// How many were compared, and of which tools.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Compared {
    /// How many.
    pub count: usize,
    /// How many were asked: those of tools the implementation claims. The pass counts of
    /// `levels` are out of this number; the others are `unsupported`, counted apart.
    pub asked: usize,
    /// Their tools, in tool order.
    pub tools: Vec<ToolId>,
}

/// A tool, written as its id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ToolId(pub Tool);

impl Serialize for ToolId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0.id())
    }
}

impl<'de> Deserialize<'de> for ToolId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ToolId, D::Error> {
        let id = String::deserialize(deserializer)?;
        id.parse().map(ToolId).map_err(serde::de::Error::custom)
    }
}

/// The outcomes of some vectors, with their count.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VectorTotals {
    /// How many vectors.
    pub vectors: usize,
    /// How many have each outcome.
    #[serde(flatten)]
    pub outcomes: Tally,
}

impl From<Tally> for VectorTotals {
    fn from(outcomes: Tally) -> VectorTotals {
        VectorTotals {
            vectors: outcomes.total(),
            outcomes,
        }
    }
}

/// One vector's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VectorResult {
    /// `<tool>:<id>`.
    pub vector: String,
    /// Its file, relative to its vector folder.
    pub file: String,
    /// Its outcome.
    pub outcome: Outcome,
    /// How long its check took, in milliseconds with three decimals.
    pub duration_ms: f64,
    /// What happened, unless it passed.
    #[serde(flatten)]
    pub detail: Option<VectorDetail>,
}

/// What happened to a vector that did not pass.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VectorDetail {
    /// One line on it.
    pub what: String,
    /// The vector's 0-based position in its file, as load errors and `cargo test` name it.
    pub index: usize,
    /// The input that was sent.
    pub input: Embedded,
    /// The expected verdict (`{"accept": ...}` or `{"reject": [...]}`).
    pub expected: Embedded,
    /// What came back.
    pub received: Received,
    /// The strongest level at which the answer matches, if any.
    pub passes_at: Option<Level>,
}

/// What came back for a vector: a verdict, or `{"<kind>": ...}` when none did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Received {
    /// The implementation said it could not evaluate the input.
    Error(String),
    /// No answer in time (always `true`).
    Timeout(bool),
    /// The implementation died before answering.
    Crash(String),
    /// The answer broke the protocol.
    ProtocolError(String),
    /// The tool is not implemented (always `true`).
    Unsupported(bool),
    /// Why the vector cannot be observed over the transport (over MCP).
    NotObservable(String),
    /// A verdict, as the expected one is written.
    #[serde(untagged)]
    Verdict(Embedded),
}

/// The scenarios' section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScenarioSection {
    /// How many scenarios, and of which tools.
    #[serde(flatten)]
    pub compared: Compared,
    /// The scenario level that decides pass and fail.
    pub level: ScenarioLevel,
    /// The outcomes of every scenario.
    pub totals: ScenarioTotals,
    /// How many scenarios pass at each scenario level, weakest first.
    pub levels: BTreeMap<ScenarioLevel, usize>,
    /// The outcomes per tool, in tool order.
    pub by_tool: BTreeMap<ToolId, ScenarioTotals>,
    /// One result per scenario, sorted by name.
    pub results: Vec<ScenarioResult>,
}

/// The outcomes of some scenarios, with their count.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioTotals {
    /// How many scenarios.
    pub scenarios: usize,
    /// How many have each outcome.
    #[serde(flatten)]
    pub outcomes: Tally,
}

impl From<Tally> for ScenarioTotals {
    fn from(outcomes: Tally) -> ScenarioTotals {
        ScenarioTotals {
            scenarios: outcomes.total(),
            outcomes,
        }
    }
}

/// One scenario's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScenarioResult {
    /// `<tool>:<id>`.
    pub scenario: String,
    /// Its file, relative to its vector folder.
    pub file: String,
    /// Its outcome.
    pub outcome: Outcome,
    /// How long it took, in milliseconds with three decimals.
    pub duration_ms: f64,
    /// What happened, unless it passed.
    #[serde(flatten)]
    pub detail: Option<ScenarioDetail>,
}

/// What happened to a scenario that did not pass.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScenarioDetail {
    /// One line on it.
    pub what: String,
    /// The whole story: the step, its input, both texts with a diff, the directory file by
    /// file (as `cargo test` tells it).
    pub explanation: String,
    /// The input of the step where it first differs (a call's input, an `anchors` step's
    /// path), when a step differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Embedded>,
    /// What the first difference expected (`null` when the scenario never ran).
    pub expected: Option<Observed>,
    /// What it got there.
    pub received: Observed,
    /// The directory's differences, file by file, when every step ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directory: Option<Vec<DirectoryChange>>,
    /// The strongest scenario level at which it passes, if any.
    pub passes_at: Option<ScenarioLevel>,
}

/// One side of a scenario's first difference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Observed {
    /// A step (1-based) and what it returned, raised or met.
    Step(StepReport),
    /// The directory after the last step.
    After {
        /// Every entry, by key.
        after: Tree,
    },
    /// The runner could not carry the scenario out.
    Runner {
        /// Why.
        runner_error: String,
    },
    /// The implementation does not execute the tool.
    Unsupported {
        /// Always `true`.
        unsupported: bool,
    },
    /// The scenario cannot be observed over the transport (over MCP).
    NotObservable {
        /// Why.
        not_observable: String,
    },
    /// A web call, whole: `family` and `result` or `throws` (or why there was neither),
    /// `asks` and `requests`.
    Web {
        /// The object.
        web: Embedded,
    },
}

/// A step and what it came to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepReport {
    /// The step's number, from 1.
    pub step: usize,
    /// What it came to (nothing for a `write` step).
    #[serde(flatten)]
    pub came_to: Option<StepCameTo>,
}

/// What a step came to: a tool outcome, or why there was none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepCameTo {
    /// The returned text.
    Output(Embedded),
    /// The raised error's message.
    Throws(Embedded),
    /// A workflow hook, event or restart went through (always `true`).
    Ok(bool),
    /// The implementation could not run the step.
    Error(String),
    /// No answer in time (always `true`).
    Timeout(bool),
    /// The implementation died before answering.
    Crash(String),
    /// The answer broke the protocol.
    ProtocolError(String),
}

/// A file that differs from the expected directory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirectoryChange {
    /// Its key.
    pub path: String,
    /// How it differs.
    pub change: Change,
}

/// How a file differs from the expected directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// Expected, not there.
    Missing,
    /// There, not expected.
    Extra,
    /// There, with other content.
    Different,
}

/// What happened to a known failure that passes.
pub(crate) const FIXED: &str =
    "listed as a known failure but passes: remove it from the known-failure file";

/// Milliseconds with three decimals: enough to rank, few enough digits to read.
pub(crate) fn milliseconds(duration: std::time::Duration) -> f64 {
    (duration.as_secs_f64() * 1e6).round() / 1e3
}
