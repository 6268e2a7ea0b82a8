//! What happened to a mutant and to each of its rows, and what the run as a whole exits with.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::plan::Mutant;
use super::rows::Row;
use super::suite::{Failure, SuiteResult};

/// The outcome of one row (interfaces.md §7), in report order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RowOutcome {
    /// The suite failed on every `caught_by` vector.
    Caught,
    /// The suite failed, but not on every `caught_by` vector.
    Imprecise,
    /// The suite passed: the mutant survived.
    Missed,
    /// The mutant did not build.
    Unviable,
    /// The build or the suite ran out of time.
    Timeout,
    /// `find` does not occur exactly once.
    Stale,
    /// The row is retired and not run.
    Retired,
}

impl RowOutcome {
    /// Every outcome, in report order.
    pub const ALL: [RowOutcome; 7] = [
        RowOutcome::Caught,
        RowOutcome::Imprecise,
        RowOutcome::Missed,
        RowOutcome::Unviable,
        RowOutcome::Timeout,
        RowOutcome::Stale,
        RowOutcome::Retired,
    ];

    /// The outcome's name in reports.
    pub const fn as_str(self) -> &'static str {
        match self {
            RowOutcome::Caught => "caught",
            RowOutcome::Imprecise => "imprecise",
            RowOutcome::Missed => "missed",
            RowOutcome::Unviable => "unviable",
            RowOutcome::Timeout => "timeout",
            RowOutcome::Stale => "stale",
            RowOutcome::Retired => "retired",
        }
    }

    /// Whether the row is a problem of the run (the one place this is decided).
    pub const fn is_problem(self) -> bool {
        match self {
            RowOutcome::Imprecise
            | RowOutcome::Missed
            | RowOutcome::Unviable
            | RowOutcome::Timeout
            | RowOutcome::Stale => true,
            RowOutcome::Caught | RowOutcome::Retired => false,
        }
    }
}

/// How a row's mutant was built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mode {
    /// With many others, behind a switch.
    #[serde(rename = "switched")]
    Switched,
    /// Alone.
    #[serde(rename = "rebuilt")]
    Rebuilt,
    /// Not at all (a stale or retired row).
    #[serde(rename = "not run")]
    NotRun,
}

/// What building and running one mutant came to.
#[derive(Clone, Debug)]
pub enum MutantResult {
    /// The suite ran.
    Ran(SuiteResult),
    /// The mutant did not build; the compiler's messages.
    Unviable(String),
    /// The mutant built, but the suite could not run under it (it refused its own files, say,
    /// when the loader asks the mutated reference); why.
    SuiteFailed(String),
    /// The build or the suite was killed at its time limit.
    TimedOut,
}

/// A row with what happened to it.
#[derive(Clone, Debug)]
pub struct RowResult {
    /// The row.
    pub row: Row,
    /// The named mutant it names, if it names one.
    pub mutant: Option<String>,
    /// Its outcome.
    pub outcome: RowOutcome,
    /// Build and suite time of its mutant (zero when not run).
    pub duration: Duration,
    /// How the mutant was built.
    pub mode: Mode,
    /// The vectors that failed, with what was expected and received.
    pub failures: BTreeMap<String, Failure>,
    /// Why the row is stale, unviable or timed out, or the build log.
    pub detail: String,
}

impl RowResult {
    /// A row that does not run, with the named mutant it names, if any.
    pub fn not_run(
        row: Row,
        mutant: Option<String>,
        outcome: RowOutcome,
        detail: String,
    ) -> RowResult {
        RowResult {
            row,
            mutant,
            outcome,
            duration: Duration::ZERO,
            mode: Mode::NotRun,
            failures: BTreeMap::new(),
            detail,
        }
    }

    /// The results of a mutant's rows, from what its build and suite came to.
    pub fn of_mutant(
        mutant: &Mutant,
        result: &MutantResult,
        duration: Duration,
        mode: Mode,
    ) -> Vec<RowResult> {
        let (failures, detail) = match result {
            MutantResult::Ran(SuiteResult { failures, vectors }) => (
                failures.clone(),
                format!(
                    "{} of {vectors} vectors failed under the mutant\n",
                    failures.len()
                ),
            ),
            MutantResult::Unviable(log) => (
                BTreeMap::new(),
                format!("the mutant does not build:\n{log}"),
            ),
            MutantResult::SuiteFailed(log) => (
                BTreeMap::new(),
                format!("the mutant builds, but the suite cannot run under it:\n{log}"),
            ),
            MutantResult::TimedOut => (
                BTreeMap::new(),
                "the build or the suite ran out of time".to_owned(),
            ),
        };
        mutant
            .rows
            .iter()
            .map(|row| RowResult {
                row: row.clone(),
                mutant: mutant.name.clone(),
                outcome: classify(row, result),
                duration,
                mode,
                failures: failures.clone(),
                detail: detail.clone(),
            })
            .collect()
    }
}

/// The outcome of a row that ran. The order of the checks is the policy.
pub fn classify(row: &Row, result: &MutantResult) -> RowOutcome {
    match result {
        MutantResult::Unviable(_) | MutantResult::SuiteFailed(_) => RowOutcome::Unviable,
        MutantResult::TimedOut => RowOutcome::Timeout,
        MutantResult::Ran(suite) if suite.failures.is_empty() => RowOutcome::Missed,
        MutantResult::Ran(suite)
            if row.caught_by.iter().all(|v| suite.failures.contains_key(v)) =>
        {
            RowOutcome::Caught
        }
        MutantResult::Ran(_) => RowOutcome::Imprecise,
    }
}

/// Exit codes of `cargo xtask mutants` (interfaces.md §7).
pub mod exit {
    /// Every run row caught.
    pub const OK: u8 = 0;
    /// A usage error.
    pub const USAGE: u8 = 1;
    /// Missed, imprecise or unviable rows.
    pub const MISSED: u8 = 2;
    /// Timeouts.
    pub const TIMEOUT: u8 = 3;
    /// The baseline fails.
    pub const BASELINE: u8 = 4;
    /// Stale rows.
    pub const STALE: u8 = 5;
    /// The run was interrupted (SIGINT or SIGTERM), as a shell reports an interrupted command.
    pub const INTERRUPTED: u8 = 130;
}

/// The exit code of a finished run: the most serious problem wins, in this order: rows that
/// prove nothing (missed, imprecise, unviable), then timeouts, then stale rows.
pub fn exit_code(outcomes: impl IntoIterator<Item = RowOutcome>) -> u8 {
    let outcomes: Vec<RowOutcome> = outcomes.into_iter().collect();
    let any = |f: fn(RowOutcome) -> bool| outcomes.iter().any(|o| f(*o));
    if any(|o| {
        matches!(
            o,
            RowOutcome::Missed | RowOutcome::Imprecise | RowOutcome::Unviable
        )
    }) {
        exit::MISSED
    } else if any(|o| o == RowOutcome::Timeout) {
        exit::TIMEOUT
    } else if any(|o| o == RowOutcome::Stale) {
        exit::STALE
    } else {
        exit::OK
    }
}
