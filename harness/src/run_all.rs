//! `conform run` as a whole: the selected vectors, then the selected scenarios, against the
//! in-process reference or a peer, into one result.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Duration;

use crate::compare::Level;
use crate::peer_run::{PeerOptions, PeerRunError, run_peer};
use crate::run::{RunResult, run_reference};
use crate::scenario_records::{ScenarioRecord, run_scenarios_reference};
use crate::scenario_run::ScenarioAnswer;
use crate::scenarios::Scenario;
use crate::vectors::Vector;

/// What a run takes and how it goes.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The selected vectors.
    pub vectors: Vec<Vector>,
    /// The selected scenarios.
    pub scenarios: Vec<Scenario>,
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
        level,
        known,
        jobs,
        scratch,
        peer,
    } = plan;
    match peer {
        None => {
            let mut result = run_reference(vectors, level, &known);
            let (records, elapsed) =
                run_scenarios_reference(scenarios, level, &known, jobs, &scratch);
            result.scenarios = records;
            result.scenario_elapsed = elapsed;
            Ok(result)
        }
        Some(options) => {
            let mut result = run_peer(vectors, level, &known, &options)?;
            // Scenarios over the protocol come next; until then no peer executes them.
            result.scenarios = unsupported_records(scenarios, level, &known);
            Ok(result)
        }
    }
}

fn unsupported_records(
    scenarios: Vec<Scenario>,
    level: Level,
    known: &HashSet<String>,
) -> Vec<ScenarioRecord> {
    scenarios
        .into_iter()
        .map(|s| ScenarioRecord::new(s, ScenarioAnswer::Unsupported, Duration::ZERO, level, known))
        .collect()
}
