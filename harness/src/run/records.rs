//! The scenarios of a run, editor, web and workflow: one record each, and the in-process run
//! (scenarios in parallel).

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::compare::Level;
use crate::outcome::Outcome;
use vvoc_reference::Tool;

use crate::scenario::compare::{ScenarioLevel, classify, describe, passes};
use crate::scenario::model::Scenario;
use crate::scenario::play::{ScenarioAnswer, play_reference};
use crate::web::compare as web_compare;
use crate::web::model::WebScenario;
use crate::web::play::WebAnswer;
use crate::workflow::compare as workflow_compare;
use crate::workflow::model::WorkflowScenario;
use crate::workflow::play::WorkflowAnswer;

/// One scenario's result.
#[derive(Clone, Debug)]
pub struct ScenarioRecord {
    /// The scenario and what it got.
    pub played: Played,
    /// The outcome at the run's level.
    pub outcome: Outcome,
    /// How long it took.
    pub duration: Duration,
}

/// A scenario and its answer: an editor's, in a scratch directory, a web tool's, against a
/// fixture server, or a workflow session's, in a scratch data directory.
#[derive(Clone, Debug)]
pub enum Played {
    /// An editor scenario.
    Editor {
        /// The scenario.
        scenario: Scenario,
        /// What it got.
        answer: ScenarioAnswer,
    },
    /// A web scenario.
    Web {
        /// The scenario.
        scenario: WebScenario,
        /// What it got.
        answer: WebAnswer,
    },
    /// A workflow scenario.
    Workflow {
        /// The scenario.
        scenario: WorkflowScenario,
        /// What it got.
        answer: WorkflowAnswer,
    },
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
            played: Played::Editor { scenario, answer },
            outcome,
            duration,
        }
    }

    /// Builds the record of a web scenario, as [`ScenarioRecord::new`] does an editor's.
    pub fn web(
        scenario: WebScenario,
        answer: WebAnswer,
        duration: Duration,
        level: Level,
        known_failures: &HashSet<String>,
    ) -> ScenarioRecord {
        let outcome = web_compare::classify(
            &scenario,
            &answer,
            ScenarioLevel::of(level),
            known_failures.contains(&scenario.name()),
        );
        crate::progress::scenario_done();
        ScenarioRecord {
            played: Played::Web { scenario, answer },
            outcome,
            duration,
        }
    }

    /// Builds the record of a workflow scenario, as [`ScenarioRecord::new`] does an editor's.
    pub fn workflow(
        scenario: WorkflowScenario,
        answer: WorkflowAnswer,
        duration: Duration,
        level: Level,
        known_failures: &HashSet<String>,
    ) -> ScenarioRecord {
        let outcome = workflow_compare::classify(
            &scenario,
            &answer,
            ScenarioLevel::of(level),
            known_failures.contains(&scenario.name()),
        );
        crate::progress::scenario_done();
        ScenarioRecord {
            played: Played::Workflow { scenario, answer },
            outcome,
            duration,
        }
    }

    /// The scenario's full name, `<tool>:<id>`.
    pub fn name(&self) -> String {
        match &self.played {
            Played::Editor { scenario, .. } => scenario.name(),
            Played::Web { scenario, .. } => scenario.name(),
            Played::Workflow { scenario, .. } => scenario.name(),
        }
    }

    /// The scenario's tool.
    pub fn tool(&self) -> Tool {
        match &self.played {
            Played::Editor { scenario, .. } => scenario.tool,
            Played::Web { scenario, .. } => scenario.tool,
            Played::Workflow { scenario, .. } => scenario.tool,
        }
    }

    /// The scenario's file, relative to its vectors folder.
    pub fn source(&self) -> &str {
        match &self.played {
            Played::Editor { scenario, .. } => &scenario.source,
            Played::Web { scenario, .. } => &scenario.source,
            Played::Workflow { scenario, .. } => &scenario.source,
        }
    }

    /// One line on what the scenario got at `level`.
    pub fn describe(&self, level: ScenarioLevel) -> String {
        match &self.played {
            Played::Editor { scenario, answer } => describe(scenario, answer, level),
            Played::Web { scenario, answer } => web_compare::describe(scenario, answer, level),
            Played::Workflow { scenario, answer } => {
                workflow_compare::describe(scenario, answer, level)
            }
        }
    }

    /// Whether the scenario got what it expects at `level` (whatever the run's level).
    pub(crate) fn passes_at(&self, level: ScenarioLevel) -> bool {
        match &self.played {
            Played::Editor { scenario, answer } => passes(scenario, answer, level),
            Played::Web { scenario, answer } => web_compare::passes(scenario, answer, level),
            Played::Workflow { scenario, answer } => {
                workflow_compare::passes(scenario, answer, level)
            }
        }
    }
}

/// A scenario waiting to be played.
#[derive(Clone, Debug)]
pub enum Pending {
    /// An editor scenario.
    Editor(Scenario),
    /// A web scenario.
    Web(WebScenario),
    /// A workflow scenario.
    Workflow(WorkflowScenario),
}

impl Pending {
    /// The scenario's tool.
    pub fn tool(&self) -> Tool {
        match self {
            Pending::Editor(scenario) => scenario.tool,
            Pending::Web(scenario) => scenario.tool,
            Pending::Workflow(scenario) => scenario.tool,
        }
    }
}

/// Runs the scenarios against the in-process reference, `jobs` at a time (and the web scenarios
/// that wait on a delayed route all at once beside them), each editor scenario in its own scratch
/// directory under `parent` (a workflow scenario's data directory too), each web scenario against
/// its own fixture server; the records come
/// back in scenario order, with the wall-clock time.
pub(crate) fn run_scenarios_reference(
    scenarios: Vec<Pending>,
    level: Level,
    known_failures: &HashSet<String>,
    jobs: usize,
    parent: &Path,
) -> (Vec<ScenarioRecord>, Duration) {
    let start = Instant::now();
    // A web scenario whose server waits before answering (a timeout, a slow route) waits on a
    // timer, not on the CPU: each such one plays at once on a thread of its own, so the run
    // takes as long as the longest wait, not their sum.
    let (waiting, queued): (Vec<_>, Vec<_>) = scenarios.into_iter().enumerate().partition(
        |(_, p)| matches!(p, Pending::Web(s) if s.routes.iter().any(|r| r.delay_ms > 0)),
    );
    let queue: Mutex<VecDeque<(usize, Pending)>> = Mutex::new(queued.into_iter().collect());
    let done: Mutex<BTreeMap<usize, ScenarioRecord>> = Mutex::new(BTreeMap::new());
    let play = |index: usize, pending: Pending| {
        let began = Instant::now();
        let record = match pending {
            Pending::Editor(scenario) => {
                let answer = play_reference(&scenario, parent);
                let took = began.elapsed();
                ScenarioRecord::new(scenario, answer, took, level, known_failures)
            }
            Pending::Web(scenario) => {
                let answer = crate::web::play::play_reference(&scenario);
                let took = began.elapsed();
                ScenarioRecord::web(scenario, answer, took, level, known_failures)
            }
            Pending::Workflow(scenario) => {
                let answer = crate::workflow::play::play_reference(&scenario, parent);
                let took = began.elapsed();
                ScenarioRecord::workflow(scenario, answer, took, level, known_failures)
            }
        };
        if let Ok(mut done) = done.lock() {
            done.insert(index, record);
        }
    };
    std::thread::scope(|scope| {
        for (index, pending) in waiting {
            scope.spawn(move || {
                if !crate::progress::stopping() {
                    play(index, pending);
                }
            });
        }
        for _ in 0..jobs.max(1) {
            scope.spawn(|| {
                while let Some((index, pending)) = queue
                    .lock()
                    .ok()
                    .filter(|_| !crate::progress::stopping())
                    .and_then(|mut q| q.pop_front())
                {
                    play(index, pending);
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
