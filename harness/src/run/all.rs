//! `conform run` as a whole: the selected vectors, then the selected scenarios, against the
//! in-process reference or a peer, into one result.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Duration;

use crate::compare::Level;
use crate::load::vector::Vector;
use vvoc_reference::Tool;

use crate::peer::options::{PeerOptions, Peers};
use crate::peer::process::keep_tail;
use crate::peer::scenarios::{PeerScenarios, ScenarioRunError, run_peer_scenarios};
use crate::peer::session::PeerSession;
use crate::peer::vectors::{PeerRunError, run_peer};
use crate::run::records::{Pending, ScenarioRecord, run_scenarios_reference};
use crate::run::reference::run_reference;
use crate::run::result::RunResult;
use crate::scenario::model::Scenario;
use crate::scenario::play::ScenarioAnswer;
use crate::web::model::WebScenario;
use crate::web::play::{WebAnswer, WebReceived};
use crate::workflow::model::WorkflowScenario;
use crate::workflow::play::WorkflowAnswer;

/// What a run takes and how it goes.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The selected vectors.
    pub vectors: Vec<Vector>,
    /// The selected scenarios.
    pub scenarios: Vec<Scenario>,
    /// The selected web scenarios.
    pub web: Vec<WebScenario>,
    /// The selected workflow scenarios.
    pub workflow: Vec<WorkflowScenario>,
    /// The level that decides pass and fail.
    pub level: Level,
    /// The names listed as known failures.
    pub known: HashSet<String>,
    /// How many scenarios run at once in process (a peer run takes `PeerOptions::jobs`).
    pub jobs: usize,
    /// Where the scenarios' scratch directories go.
    pub scratch: PathBuf,
    /// The peer, or `None` for the in-process reference.
    pub peer: Option<PeerOptions>,
}

/// Runs the plan's vectors, then its scenarios.
pub fn run_all(plan: Plan) -> Result<RunResult, PeerRunError> {
    let Plan {
        vectors,
        scenarios,
        web,
        workflow,
        level,
        known,
        jobs,
        scratch,
        peer,
    } = plan;
    crate::progress::begin(vectors.len(), scenarios.len() + web.len() + workflow.len());
    match peer {
        None => {
            let mut result = run_reference(vectors, level, &known);
            let scenarios = match crate::progress::stopping() {
                true => Vec::new(),
                false => scenarios
                    .into_iter()
                    .map(Pending::Editor)
                    .chain(web.into_iter().map(Pending::Web))
                    .chain(workflow.into_iter().map(Pending::Workflow))
                    .collect(),
            };
            let (records, elapsed) =
                run_scenarios_reference(scenarios, level, &known, jobs, &scratch);
            result.scenarios = records;
            result.scenario_elapsed = elapsed;
            Ok(result)
        }
        Some(options) => {
            let mut result = run_peer(vectors, level, &known, &options)?;
            if crate::progress::stopping() {
                return Ok(result);
            }
            let executes = &result.implementation.scenarios;
            let pending = scenarios
                .into_iter()
                .map(Pending::Editor)
                .chain(web.into_iter().map(Pending::Web))
                .chain(workflow.into_iter().map(Pending::Workflow));
            let (played, unsupported): (Vec<_>, Vec<_>) = pending
                .enumerate()
                .partition(|(_, s)| executes.iter().any(|t| t == s.tool().id()));
            let (positions, played): (Vec<usize>, Vec<Pending>) = played.into_iter().unzip();
            let mut records: Vec<(usize, ScenarioRecord)> = unsupported
                .into_iter()
                .map(|(i, s)| (i, unsupported_record(s, level, &known)))
                .collect();
            let outcome = match played.is_empty() {
                true => Ok(PeerScenarios {
                    records: Vec::new(),
                    elapsed: Duration::ZERO,
                    stderr: String::new(),
                }),
                false => run_peer_scenarios(played, level, &known, &options, &scratch),
            };
            let failure = match outcome {
                Ok(done) => {
                    let moved = done.records.into_iter().map(|(i, r)| (positions[i], r));
                    records.extend(moved);
                    result.scenario_elapsed = done.elapsed;
                    keep_tail(&mut result.stderr_tail, &done.stderr);
                    None
                }
                Err(ScenarioRunError::Unusable(reason, done, stderr)) => {
                    records.extend(done.into_iter().map(|(i, r)| (positions[i], r)));
                    keep_tail(&mut result.stderr_tail, &stderr);
                    Some(reason)
                }
                Err(ScenarioRunError::RunnerProtocol(violations)) => {
                    return Err(PeerRunError::RunnerProtocol(violations));
                }
            };
            records.sort_by_key(|(i, _)| *i);
            result.scenarios = records.into_iter().map(|(_, r)| r).collect();
            match failure {
                None => Ok(result),
                Some(reason) => Err(PeerRunError::Unusable {
                    reason,
                    partial: Box::new(result),
                }),
            }
        }
    }
}

/// Refuses `--tool` for a tool the peer does not claim, before anything runs: its hello is asked
/// once, by a process that does nothing else. A peer that cannot give a hello passes here, so the
/// run itself finds it unusable and reports so.
pub fn claimed_by_peer(tools: &[Tool], options: &PeerOptions) -> Result<(), String> {
    if tools.is_empty() {
        return Ok(());
    }
    let peers = Peers::new(options)?;
    let Ok(session) = PeerSession::start(&peers) else {
        return Ok(());
    };
    let claims = session.hello().tools.clone();
    session.finish();
    let unclaimed: Vec<&str> = tools
        .iter()
        .map(|t| t.id())
        .filter(|t| !claims.iter().any(|c| c == t))
        .collect();
    match unclaimed.is_empty() {
        true => Ok(()),
        false => Err(format!(
            "--tool {}: the peer does not claim {} (its hello lists: {}); select only tools it claims",
            unclaimed.join(" --tool "),
            match unclaimed.len() {
                1 => "this tool",
                _ => "these tools",
            },
            match claims.is_empty() {
                true => "no tool".to_owned(),
                false => claims.join(", "),
            }
        )),
    }
}

/// The record of a scenario whose tool the peer does not execute.
fn unsupported_record(pending: Pending, level: Level, known: &HashSet<String>) -> ScenarioRecord {
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
