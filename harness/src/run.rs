//! A conformance run: selected vectors (and scenarios), one answer and outcome each, and the
//! summary a person reads.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use vvoc_reference::{Tool, validate_json};

use crate::compare::{Level, matches};
use crate::outcome::{Answer, Outcome, Tallies, classify};
use crate::protocol_hello::Implementation;
use crate::scenario_compare::ScenarioLevel;
use crate::scenario_records::ScenarioRecord;
use crate::scenarios::Scenario;
use crate::vectors::Vector;

/// Which vectors and scenarios a run takes.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Only these tools (all when empty).
    pub tools: Vec<Tool>,
    /// Only vectors and scenarios whose full name contains this text.
    pub filter: Option<String>,
    /// Only vectors, or only scenarios (both when `None`).
    pub only: Option<Kind>,
}

/// The two kinds of test a suite holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// Accept and reject vectors: what a tool accepts.
    Vectors,
    /// Scenarios: what a valid call of an editor does.
    Scenarios,
}

impl Selection {
    /// Whether the vector is selected.
    pub fn keeps(&self, vector: &Vector) -> bool {
        self.only != Some(Kind::Scenarios) && self.keeps_name(vector.tool, &vector.name())
    }

    /// Whether the scenario is selected.
    pub fn keeps_scenario(&self, scenario: &Scenario) -> bool {
        self.only != Some(Kind::Vectors) && self.keeps_name(scenario.tool, &scenario.name())
    }

    fn keeps_name(&self, tool: Tool, name: &str) -> bool {
        (self.tools.is_empty() || self.tools.contains(&tool))
            && self
                .filter
                .as_ref()
                .is_none_or(|f| name.contains(f.as_str()))
    }
}

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
    pub fn passes_at(&self, level: Level) -> bool {
        matches!(&self.answer, Answer::Verdict(v) if matches(&self.vector.expected, v, level))
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
}

impl RunResult {
    /// Whether some outcome, of a vector or a scenario, fails the run.
    pub fn failed(&self) -> bool {
        self.records.iter().any(|r| r.outcome.fails_run())
            || self.scenarios.iter().any(|r| r.outcome.fails_run())
    }

    /// The scenarios' outcomes, counted once: in all and per tool.
    pub fn scenario_tallies(&self) -> Tallies {
        Tallies::of(self.scenarios.iter().map(|r| (r.scenario.tool, r.outcome)))
    }

    /// How many scenarios pass at each scenario level.
    pub fn scenario_level_passes(&self) -> Vec<(ScenarioLevel, usize)> {
        ScenarioLevel::ALL
            .iter()
            .map(|&l| (l, self.scenarios.iter().filter(|r| r.passes_at(l)).count()))
            .collect()
    }

    /// How many scenarios were played (unsupported ones never are).
    pub fn scenario_checks(&self) -> usize {
        self.scenarios
            .iter()
            .filter(|r| r.outcome != Outcome::Unsupported)
            .count()
    }

    /// The vectors' outcomes, counted once: in all and per tool.
    pub fn tallies(&self) -> Tallies {
        Tallies::of(self.records.iter().map(|r| (r.vector.tool, r.outcome)))
    }

    /// How many answers match at each level.
    pub fn level_passes(&self) -> Vec<(Level, usize)> {
        Level::ALL
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
            .filter(|r| r.outcome != Outcome::Unsupported)
            .count()
    }
}

/// Runs the vectors against the in-process reference implementation.
pub fn run_reference(
    vectors: Vec<Vector>,
    level: Level,
    known_failures: &HashSet<String>,
) -> RunResult {
    let start = Instant::now();
    let records = vectors
        .into_iter()
        .map(|vector| {
            let began = Instant::now();
            // A panicking reference (a bug, or a mutant) fails its vector, not the whole run.
            let answer =
                match std::panic::catch_unwind(|| validate_json(vector.tool, &vector.input)) {
                    Ok(verdict) => Answer::Verdict(verdict),
                    Err(panic) => Answer::Crash(format!(
                        "the reference panicked: {}",
                        panic_message(&*panic)
                    )),
                };
            Record::new(vector, answer, began.elapsed(), level, known_failures)
        })
        .collect();
    RunResult {
        implementation: Implementation::reference(),
        level,
        records,
        elapsed: start.elapsed(),
        stderr_tail: String::new(),
        scenarios: Vec::new(),
        scenario_elapsed: Duration::ZERO,
    }
}

pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

/// The plain-text summary: a per-tool table of outcomes, the pass count at every level, and
/// the throughput; then the same for the scenarios, if any (only those when no vector ran).
pub fn summary(run: &RunResult) -> String {
    if run.records.is_empty() && !run.scenarios.is_empty() {
        return crate::scenario_records::summary(run);
    }
    let mut out = vector_summary(run);
    if !run.scenarios.is_empty() {
        out.push('\n');
        out.push_str(&crate::scenario_records::summary(run));
    }
    out
}

fn vector_summary(run: &RunResult) -> String {
    let mut out = outcome_table("vectors", &run.tallies());
    let levels: Vec<String> = run
        .level_passes()
        .iter()
        .map(|(l, n)| format!("{l} {n}/{}", run.records.len()))
        .collect();
    let _ = writeln!(
        out,
        "passing by level: {} (the run is judged at {})",
        levels.join(", "),
        run.level
    );
    let _ = writeln!(
        out,
        "{} checks in {:.3} s: {:.0} vectors per second ({} {} in {})",
        run.checks(),
        run.elapsed.as_secs_f64(),
        run.throughput(),
        run.implementation.name,
        run.implementation.version,
        run.implementation.language
    );
    out
}

/// The summary's table: a row per tool with the count and the outcomes any has (and `pass`),
/// then the total row.
pub(crate) fn outcome_table(counted: &str, tallies: &Tallies) -> String {
    let shown: Vec<Outcome> = Outcome::ALL
        .into_iter()
        .filter(|o| *o == Outcome::Pass || tallies.all.get(*o) > 0)
        .collect();
    let width = counted.len();
    let mut out = format!("{:<20} {counted:>width$}", "tool");
    for o in &shown {
        let _ = write!(out, " {:>8}", o.as_str());
    }
    out.push('\n');
    let rows = tallies
        .by_tool
        .iter()
        .map(|(tool, tally)| (tool.id(), tally));
    for (name, tally) in rows.chain([("total", &tallies.all)]) {
        let _ = write!(out, "{name:<20} {:>width$}", tally.total());
        for o in &shown {
            let _ = write!(out, " {:>8}", tally.get(*o));
        }
        out.push('\n');
    }
    out
}
