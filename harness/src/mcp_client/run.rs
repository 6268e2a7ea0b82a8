//! A whole run over MCP: a first server is started (or a session opened) and initialized, its `tools/list` compared
//! with the published schemas, then the vectors are sent and the scenarios played; one result,
//! with the schema comparison beside it, and why the run gave up on the server if it did.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use vvoc_reference::Tool;

use crate::compare::Level;
use crate::load::vector::Vector;
use crate::mcp_client::scenarios::play_scenarios;
use crate::mcp_client::schemas::{ToolSchema, compare_schemas};
use crate::mcp_client::servers::{McpOptions, Servers};
use crate::mcp_client::session::ServerInfo;
use crate::mcp_client::vectors::{call_vectors, unsent};
use crate::outcome::Answer;
use crate::peer::options::Unusable;
use crate::peer::process::keep_tail;
use crate::protocol::hello::Implementation;
use crate::run::records::{Pending, ScenarioRecord};
use crate::run::result::{Record, RunResult};
use crate::scenario::model::Scenario;
use crate::scenario::play::ScenarioAnswer;
use crate::web::model::WebScenario;
use crate::web::play::{WebAnswer, WebReceived};
use crate::workflow::model::WorkflowScenario;
use crate::workflow::play::WorkflowAnswer;

/// What a run over MCP takes.
#[derive(Clone, Debug)]
pub struct McpPlan {
    /// The selected vectors.
    pub vectors: Vec<Vector>,
    /// The selected editor scenarios.
    pub scenarios: Vec<Scenario>,
    /// The selected web scenarios.
    pub web: Vec<WebScenario>,
    /// The selected workflow scenarios (none observable over MCP).
    pub workflow: Vec<WorkflowScenario>,
    /// The level that decides pass and fail: `verdict` or `text`.
    pub level: Level,
    /// The names listed as known failures.
    pub known: HashSet<String>,
    /// How the servers are started and asked.
    pub options: McpOptions,
}

/// What a run over MCP gave.
#[derive(Clone, Debug)]
pub struct McpRun {
    /// The records of what ran (all of it, unless the run gave up).
    pub result: RunResult,
    /// The schema of each selected tool, compared (empty when no server could be initialized).
    pub schemas: Vec<ToolSchema>,
    /// Why the run gave up on the server, if it did (exit code 3).
    pub unusable: Option<Unusable>,
}

/// Runs the plan against MCP servers.
pub fn run_mcp(plan: McpPlan) -> McpRun {
    let McpPlan {
        vectors,
        scenarios,
        web,
        workflow,
        level,
        known,
        options,
    } = plan;
    crate::progress::begin(vectors.len(), scenarios.len() + web.len() + workflow.len());
    let start = Instant::now();
    let servers = Servers::new(&options);
    let mut result = RunResult {
        implementation: Implementation::default(),
        level,
        records: Vec::new(),
        elapsed: Duration::ZERO,
        stderr_tail: String::new(),
        scenarios: Vec::new(),
        scenario_elapsed: Duration::ZERO,
        over_mcp: true,
    };
    let selected: Vec<Tool> = Tool::ALL
        .into_iter()
        .filter(|t| {
            vectors.iter().any(|v| v.tool == *t)
                || scenarios.iter().any(|s| s.tool == *t)
                || web.iter().any(|s| s.tool == *t)
        })
        .collect();
    let first = servers.start(None).and_then(|mut server| {
        let listed = server.session.list_tools().map_err(Unusable)?;
        Ok((server, listed))
    });
    let (first, listed) = match first {
        Ok(started) => started,
        Err(reason) => {
            let (_, stderr) = servers.end();
            result.stderr_tail = stderr;
            return McpRun {
                result,
                schemas: Vec::new(),
                unusable: Some(reason),
            };
        }
    };
    let schemas = compare_schemas(&listed, &selected);
    let served: Vec<String> = Tool::ALL
        .into_iter()
        .filter(|t| listed.iter().any(|l| l.name == t.id()))
        .map(|t| t.id().to_owned())
        .collect();
    result.implementation = implementation(&first.session.info, &served);
    // The vectors: what is sent, and what is not (unsupported, not observable).
    let mut unsent_answers: Vec<Option<Answer>> =
        vectors.iter().map(|v| unsent(v, &served)).collect();
    let sent = (0..vectors.len())
        .filter(|&i| unsent_answers[i].is_none())
        .collect();
    let mut answers = call_vectors(&vectors, sent, &servers, first);
    result.records = vectors
        .into_iter()
        .enumerate()
        .filter_map(|(i, vector)| {
            let (answer, took) = match unsent_answers[i].take() {
                Some(answer) => (answer, Duration::ZERO),
                None => answers.remove(&i)?,
            };
            Some(Record::new(vector, answer, took, level, &known))
        })
        .collect();
    result.elapsed = start.elapsed();
    // The scenarios, unless the run has given up.
    if !servers.stopped() {
        let began = Instant::now();
        let pending = scenarios
            .into_iter()
            .map(Pending::Editor)
            .chain(web.into_iter().map(Pending::Web))
            .chain(workflow.into_iter().map(Pending::Workflow))
            .collect();
        result.scenarios = scenario_records(pending, &served, level, &known, &servers);
        result.scenario_elapsed = began.elapsed();
    }
    let (unusable, stderr) = servers.end();
    keep_tail(&mut result.stderr_tail, &stderr);
    McpRun {
        result,
        schemas,
        unusable,
    }
}

/// The implementation a run talked to: who the server said it is, the tools of the suite it
/// serves, and those of them that have scenarios.
pub(crate) fn implementation(info: &ServerInfo, served: &[String]) -> Implementation {
    Implementation {
        name: info.name.clone(),
        version: info.version.clone(),
        language: format!("an MCP server, protocol {}", info.protocol),
        tools: served.to_vec(),
        scenarios: served
            .iter()
            .filter(|t| t.parse::<Tool>().is_ok_and(crate::has_scenarios))
            .cloned()
            .collect(),
    }
}

/// The scenarios' records in order: those of tools not served unsupported, the others played
/// (or not observable).
fn scenario_records(
    pending: Vec<Pending>,
    served: &[String],
    level: Level,
    known: &HashSet<String>,
    servers: &Servers<'_>,
) -> Vec<ScenarioRecord> {
    let mut records: Vec<(usize, ScenarioRecord)> = Vec::new();
    let mut played = Vec::new();
    for (i, pending) in pending.into_iter().enumerate() {
        match served.iter().any(|t| t == pending.tool().id()) {
            true => played.push((i, pending)),
            false => records.push((i, unsupported(pending, level, known))),
        }
    }
    records.extend(play_scenarios(played, level, known, servers));
    records.sort_by_key(|(i, _)| *i);
    records.into_iter().map(|(_, r)| r).collect()
}

/// The record of a scenario whose tool the server does not serve.
fn unsupported(pending: Pending, level: Level, known: &HashSet<String>) -> ScenarioRecord {
    match pending {
        Pending::Editor(scenario) => {
            let answer = ScenarioAnswer::Unsupported;
            ScenarioRecord::new(scenario, answer, Duration::ZERO, level, known)
        }
        Pending::Web(scenario) => {
            let answer = WebAnswer {
                reply: WebReceived::Unsupported,
                asks: Vec::new(),
                requests: Vec::new(),
            };
            ScenarioRecord::web(scenario, answer, Duration::ZERO, level, known)
        }
        Pending::Workflow(scenario) => {
            let answer = WorkflowAnswer::Unsupported;
            ScenarioRecord::workflow(scenario, answer, Duration::ZERO, level, known)
        }
    }
}
