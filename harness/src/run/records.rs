//! The scenarios of a run: one record each, and the in-process run (scenarios in parallel).

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::compare::Level;
use crate::outcome::Outcome;
use crate::scenario::compare::{ScenarioLevel, classify, passes};
use crate::scenario::model::Scenario;
use crate::scenario::play::{ScenarioAnswer, play_reference};

/// One scenario's result.
#[derive(Clone, Debug)]
pub struct ScenarioRecord {
    /// The scenario.
    pub scenario: Scenario,
    /// What it got.
    pub answer: ScenarioAnswer,
    /// The outcome at the run's level.
    pub outcome: Outcome,
    /// How long it took.
    pub duration: Duration,
}

impl ScenarioRecord {
    /// Builds a record, classifying the answer at the scenario level of the run's `level`.
    pub fn new(
        scenario: Scenario,
        answer: ScenarioAnswer,
        duration: Duration,
        level: Level,
        known_failures: &HashSet<String>,
    ) -> ScenarioRecord {
        let outcome = classify(
            &scenario,
            &answer,
            ScenarioLevel::of(level),
            known_failures.contains(&scenario.name()),
        );
        crate::progress::scenario_done();
        ScenarioRecord {
            scenario,
            answer,
            outcome,
            duration,
        }
    }

    /// Whether the scenario got what it expects at `level` (whatever the run's level).
    pub(crate) fn passes_at(&self, level: ScenarioLevel) -> bool {
        passes(&self.scenario, &self.answer, level)
    }
}

/// Runs the scenarios against the in-process reference, `jobs` at a time, each in its own scratch
/// directory under `parent`; the records come back in scenario order, with the wall-clock time.
pub(crate) fn run_scenarios_reference(
    scenarios: Vec<Scenario>,
    level: Level,
    known_failures: &HashSet<String>,
    jobs: usize,
    parent: &Path,
) -> (Vec<ScenarioRecord>, Duration) {
    let start = Instant::now();
    let queue: Mutex<VecDeque<(usize, Scenario)>> =
        Mutex::new(scenarios.into_iter().enumerate().collect());
    let done: Mutex<BTreeMap<usize, ScenarioRecord>> = Mutex::new(BTreeMap::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| {
                while let Some((index, scenario)) = queue
                    .lock()
                    .ok()
                    .filter(|_| !crate::progress::stopping())
                    .and_then(|mut q| q.pop_front())
                {
                    let began = Instant::now();
                    let answer = play_reference(&scenario, parent);
                    let record = ScenarioRecord::new(
                        scenario,
                        answer,
                        began.elapsed(),
                        level,
                        known_failures,
                    );
                    if let Ok(mut done) = done.lock() {
                        done.insert(index, record);
                    }
                }
            });
        }
    });
    let records = done
        .into_inner()
        .unwrap_or_default()
        .into_values()
        .collect();
    (records, start.elapsed())
}
