//! The baseline: the workspace as it is must build and pass its suite in worker 0's copy before
//! any mutant runs; its times set every mutant's time limits.

use std::time::{Duration, Instant};

use anyhow::Result;

use super::Options;
use super::outcome::exit;
use super::scratch::Scratch;
use super::suite::{self, Step};
use super::workspace::Workspace;

/// How long the baseline may build (a cold build of the workspace).
const BUILD_LIMIT: Duration = Duration::from_secs(3600);
/// How long the baseline's suite may run.
const RUN_LIMIT: Duration = Duration::from_secs(600);
/// A mutant's build may take this many times the baseline's build ...
const BUILD_FACTOR: u32 = 10;
/// ... and never less than this.
const MIN_MUTANT_BUILD: Duration = Duration::from_secs(600);
/// A mutant's suite run may take this many times the baseline's (at least the options' floor).
const RUN_FACTOR: u32 = 20;
/// How many failing vectors the error of a failing baseline lists.
const LISTED_FAILURES: usize = 10;

/// The time limits of one mutant.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Its build.
    pub build: Duration,
    /// Each suite run.
    pub run: Duration,
}

/// A passing baseline.
#[derive(Clone, Debug)]
pub struct Baseline {
    /// Its build.
    pub built: Built,
    /// How long its suite ran.
    pub run_time: Duration,
    /// The limits it sets.
    pub limits: Limits,
}

/// The baseline's build, before its suite has run.
#[derive(Clone, Debug)]
pub struct Built {
    /// Worker 0's copy, built.
    pub scratch: Scratch,
    /// How long its build took.
    pub build_time: Duration,
}

impl Built {
    /// The longest a mutant's build may take.
    pub fn build_limit(&self) -> Duration {
        (self.build_time * BUILD_FACTOR).max(MIN_MUTANT_BUILD)
    }
}

/// Builds the baseline; `Err` holds the exit code of a run whose baseline does not build (the
/// reason is printed).
pub fn build(workspace: &Workspace) -> Result<Result<Built, u8>> {
    let scratch = Scratch::sync(&workspace.root, &workspace.worker(0))?;
    eprintln!("building the baseline in {}", scratch.tree.display());
    let started = Instant::now();
    match suite::build(&scratch, BUILD_LIMIT)? {
        Step::Done(Ok(_)) => {}
        Step::Done(Err(failure)) => {
            eprintln!("error: the baseline does not build:\n{}", failure.log);
            return Ok(Err(exit::BASELINE));
        }
        Step::TimedOut => {
            eprintln!("error: the baseline build did not finish within an hour");
            return Ok(Err(exit::BASELINE));
        }
    }
    Ok(Ok(Built {
        scratch,
        build_time: started.elapsed(),
    }))
}

/// Runs the built baseline's suite with `runner` (the copy whose runner a run starts; the
/// baseline's own, or a frozen copy of it while the copy is built again); `Err` holds the exit
/// code of a run whose baseline fails (the reason is printed).
pub fn check(
    workspace: &Workspace,
    built: &Built,
    runner: &Scratch,
    options: &Options,
) -> Result<Result<Baseline, u8>> {
    let started = Instant::now();
    let suite = suite::run(
        runner,
        &workspace.suite_report("baseline"),
        RUN_LIMIT,
        None,
        None,
    )?;
    let run_time = started.elapsed();
    match &suite {
        Step::Done(result) if result.failures.is_empty() => {}
        Step::Done(result) => {
            eprintln!(
                "error: the baseline fails {} vectors; fix them before checking mutants:",
                result.failures.len()
            );
            for (vector, failure) in result.failures.iter().take(LISTED_FAILURES) {
                eprintln!("  {vector}: {}", failure.what);
            }
            return Ok(Err(exit::BASELINE));
        }
        Step::TimedOut => {
            eprintln!("error: the baseline suite did not finish within 10 minutes");
            return Ok(Err(exit::BASELINE));
        }
    }
    let limits = Limits {
        build: built.build_limit(),
        run: options
            .suite_timeout
            .unwrap_or_else(|| (run_time * RUN_FACTOR).max(options.timeout_floor)),
    };
    eprintln!(
        "baseline: built in {:.1} s, suite in {:.2} s; a mutant's suite run is stopped after {:.0} s",
        built.build_time.as_secs_f64(),
        run_time.as_secs_f64(),
        limits.run.as_secs_f64()
    );
    Ok(Ok(Baseline {
        built: built.clone(),
        run_time,
        limits,
    }))
}
