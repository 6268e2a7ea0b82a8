//! The rebuilt phase: each worker applies a mutant to its own copy, builds it alone, runs the
//! suite, and puts the file back.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;

use super::baseline::Baseline;
use super::execute::Executor;
use super::interrupt;
use super::outcome::{Mode, MutantResult};
use super::plan::Mutant;
use super::scratch::Scratch;
use super::suite::{self, Step};
use super::workspace::Workspace;

/// About how long a mutant rebuilt alone takes (build and suite, warm), to judge whether
/// another worker's first build pays off.
const SECONDS_PER_MUTANT: u64 = 2;

/// Rebuilding mutants, one per worker copy at a time.
#[derive(Debug)]
pub struct Rebuilt<'a> {
    workspace: &'a Workspace,
    baseline: &'a Baseline,
}

impl<'a> Rebuilt<'a> {
    /// Rebuilding in the workspace's worker copies, worker 0's being the baseline's.
    pub fn new(workspace: &'a Workspace, baseline: &'a Baseline) -> Rebuilt<'a> {
        Rebuilt {
            workspace,
            baseline,
        }
    }

    /// How many of `jobs` workers are worth starting for `queued` mutants: another worker pays
    /// for its first build, so it joins when it has built before, or when the queue outlasts a
    /// build as long as the baseline's. (Builds take turns on the shared build directory's lock;
    /// what workers add is suites running beside builds.)
    pub fn workers(&self, jobs: usize, queued: usize) -> usize {
        let useful = |worker: usize| {
            Scratch::is_built(&self.workspace.worker(worker))
                || Duration::from_secs(SECONDS_PER_MUTANT * queued as u64)
                    > self.baseline.built.build_time
        };
        1 + (1..jobs.max(1).min(queued))
            .take_while(|&w| useful(w))
            .count()
    }
}

impl Executor for Rebuilt<'_> {
    type Worker = (Scratch, PathBuf);
    const MODE: Mode = Mode::Rebuilt;

    fn start(&self, worker: usize) -> Result<(Scratch, PathBuf)> {
        let report = self.workspace.suite_report(&format!("worker-{worker}"));
        if worker == 0 {
            return Ok((self.baseline.built.scratch.clone(), report));
        }
        // A first build of its own, so that no row's time includes it.
        let scratch = Scratch::sync(&self.workspace.root, &self.workspace.worker(worker))?;
        suite::build(&scratch, self.baseline.limits.build)?;
        Ok((scratch, report))
    }

    fn run(
        &self,
        (scratch, report): &mut (Scratch, PathBuf),
        mutant: &Mutant,
    ) -> Result<MutantResult> {
        let original = scratch.read(&mutant.file)?;
        scratch.mark_mutating()?;
        scratch.write(
            &mutant.file,
            &original.replacen(&mutant.find, &mutant.replace, 1),
        )?;
        let limits = self.baseline.limits;
        let result = (|| -> Result<MutantResult> {
            Ok(match suite::build(scratch, limits.build)? {
                Step::TimedOut => MutantResult::TimedOut,
                Step::Done(Err(failure)) => MutantResult::Unviable(failure.log),
                Step::Done(Ok(_)) => {
                    match suite::run(scratch, report, limits.run, None, Some(&mutant.needed())) {
                        Err(error) if interrupt::is(&error) => return Err(error),
                        Err(error) => MutantResult::SuiteFailed(format!("{error:#}")),
                        Ok(Step::Done(suite)) => MutantResult::Ran(suite),
                        Ok(Step::TimedOut) => MutantResult::TimedOut,
                    }
                }
            })
        })();
        scratch.write(&mutant.file, &original)?;
        result
    }
}
