//! Running mutants on a pool of workers, however they are built: an executor says how one
//! mutant is built and run (switched or rebuilt); every mutant's rows then get their outcomes
//! the same way.

use std::time::Instant;

use anyhow::Result;

use super::outcome::{Mode, MutantResult, RowResult};
use super::plan::Mutant;
use super::pool;
use super::progress::Progress;

/// A way of building and running mutants.
pub trait Executor: Sync {
    /// What a worker keeps from one mutant to the next (its copy, its report folder).
    type Worker;
    /// How this executor's mutants are built, as the report says it.
    const MODE: Mode;
    /// Readies worker `n` (numbered from 0).
    fn start(&self, worker: usize) -> Result<Self::Worker>;
    /// Builds and runs one mutant.
    fn run(&self, worker: &mut Self::Worker, mutant: &Mutant) -> Result<MutantResult>;
}

/// Runs every mutant with `workers` workers; the results of their rows, recorded in `progress`
/// as each mutant finishes.
pub fn execute<E: Executor>(
    executor: &E,
    workers: usize,
    mutants: Vec<Mutant>,
    progress: &Progress,
) -> Result<Vec<RowResult>> {
    if mutants.is_empty() {
        return Ok(Vec::new());
    }
    let per_mutant = pool::run(
        workers,
        mutants,
        |worker| executor.start(worker),
        |worker, mutant| {
            let started = Instant::now();
            let result = executor.run(worker, &mutant)?;
            let rows = RowResult::of_mutant(&mutant, &result, started.elapsed(), E::MODE);
            progress.record(&rows);
            Ok(rows)
        },
    )?;
    Ok(per_mutant.into_iter().flatten().collect())
}
