//! A run's records and result: one answer and outcome per vector (and scenario), the counts and
//! pass rates read off them.

use std::collections::HashSet;
use std::time::Duration;

use crate::compare::Level;
use crate::load::vector::Vector;
use crate::outcome::{Answer, Outcome, Tallies, answer_matches, classify};
use crate::protocol::hello::Implementation;
use crate::run::records::ScenarioRecord;
use crate::scenario::compare::ScenarioLevel;

/// One vector's result.
#[derive(Clone, Debug)]
pub struct Record {
    /// The vector.
    pub vector: Vector,
    /// What came back.
    pub answer: Answer,
    /// The outcome at the run's level.
    pub outcome: Outcome,
    /// How long the check took.
    pub duration: Duration,
}

impl Record {
    /// Builds a record, classifying the answer.
    pub fn new(
        vector: Vector,
        answer: Answer,
        duration: Duration,
        level: Level,
        known_failures: &HashSet<String>,
    ) -> Record {
        let outcome = classify(
            &vector.expected,
            &answer,
            level,
            known_failures.contains(&vector.name()),
        );
        Record {
            vector,
            answer,
            outcome,
            duration,
        }
    }

    /// Whether the answer matches at `level` (whatever the run's level).
    pub(crate) fn passes_at(&self, level: Level) -> bool {
        answer_matches(&self.vector.expected, &self.answer, level)
    }
}

/// A finished run.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// Who answered.
    pub implementation: Implementation,
    /// The level that decides pass and fail.
    pub level: Level,
    /// One record per selected vector, in vector order.
    pub records: Vec<Record>,
    /// Wall-clock time of the checks.
    pub elapsed: Duration,
    /// The last bytes the peer wrote to stderr (empty in process).
    pub stderr_tail: String,
    /// One record per selected scenario, in scenario order.
    pub scenarios: Vec<ScenarioRecord>,
    /// Wall-clock time of the scenarios.
    pub scenario_elapsed: Duration,
    /// Whether the run was over MCP (`conform run --mcp`): its levels are `verdict` and `text`.
    pub over_mcp: bool,
}

impl RunResult {
    /// Whether some outcome, of a vector or a scenario, fails the run.
    pub fn failed(&self) -> bool {
        self.records.iter().any(|r| r.outcome.fails_run())
            || self.scenarios.iter().any(|r| r.outcome.fails_run())
    }

    /// The scenarios' outcomes, counted once: in all and per tool.
    pub(crate) fn scenario_tallies(&self) -> Tallies {
        Tallies::of(self.scenarios.iter().map(|r| (r.tool(), r.outcome)))
    }

    /// How many scenarios pass at each scenario level.
    pub(crate) fn scenario_level_passes(&self) -> Vec<(ScenarioLevel, usize)> {
        ScenarioLevel::ALL
            .iter()
            .map(|&l| (l, self.scenarios.iter().filter(|r| r.passes_at(l)).count()))
            .collect()
    }

    /// How many scenarios were played (unsupported ones never are).
    pub fn scenario_checks(&self) -> usize {
        self.scenarios
            .iter()
            .filter(|r| !r.outcome.counted_apart())
            .count()
    }

    /// The vectors' outcomes, counted once: in all and per tool.
    pub(crate) fn tallies(&self) -> Tallies {
        Tallies::of(self.records.iter().map(|r| (r.vector.tool, r.outcome)))
    }

    /// How many answers match at each level.
    pub(crate) fn level_passes(&self) -> Vec<(Level, usize)> {
        let ladder: &[Level] = match self.over_mcp {
            true => &Level::MCP,
            false => &Level::ALL,
        };
        ladder
            .iter()
            .map(|&l| (l, self.records.iter().filter(|r| r.passes_at(l)).count()))
            .collect()
    }

    /// Checks per second.
    pub fn throughput(&self) -> f64 {
        self.checks() as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// How many vectors were checked (unsupported ones are never sent).
    pub fn checks(&self) -> usize {
        self.records
            .iter()
            .filter(|r| !r.outcome.counted_apart())
            .count()
    }
}
