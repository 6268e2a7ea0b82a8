//! A pool of worker threads taking jobs from one queue, each worker with a state of its own.

use std::collections::VecDeque;
use std::sync::Mutex;

use anyhow::Result;

/// The stack of each worker: a suite report holds the input of each failing vector, nested up to
/// 5,000 deep (`vectors/*/deep-nesting.json`), and reading it into serde types recurses once per
/// level; 2 MiB, a thread's default, is not enough. Only the pages a worker touches are used.
const STACK: usize = 256 << 20;

/// Runs `work` on every job with `workers` threads (at least one). Each thread first makes its
/// state with `start(worker)` (workers are numbered from 0); results come in the order the jobs
/// finish. The first error stops the pool: every worker finishes its job at hand and takes no
/// other, and the error is returned. An interrupt (`interrupt.rs`) stops it too: the jobs it
/// stopped are dropped, and the results of those done before are returned.
pub fn run<J, S, R>(
    workers: usize,
    jobs: Vec<J>,
    start: impl Fn(usize) -> Result<S> + Sync,
    work: impl Fn(&mut S, J) -> Result<R> + Sync,
) -> Result<Vec<R>>
where
    J: Send,
    R: Send,
{
    let queue = Mutex::new(VecDeque::from(jobs));
    let done = Mutex::new(Vec::new());
    let failure: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let next = || {
        let stopped = super::interrupt::stopping() || failure.lock().map_or(true, |f| f.is_some());
        if stopped {
            return None;
        }
        queue.lock().ok().and_then(|mut q| q.pop_front())
    };
    std::thread::scope(|scope| {
        for worker in 0..workers.max(1) {
            let (start, work, next, done, failure) = (&start, &work, &next, &done, &failure);
            let spawned =
                std::thread::Builder::new()
                    .stack_size(STACK)
                    .spawn_scoped(scope, move || {
                        let outcome = (|| -> Result<()> {
                            let mut state = start(worker)?;
                            while let Some(job) = next() {
                                let result = work(&mut state, job);
                                // A job the interrupt stopped (or ended at it) counts for nothing.
                                if super::interrupt::stopping() {
                                    return Ok(());
                                }
                                let result = result?;
                                if let Ok(mut done) = done.lock() {
                                    done.push(result);
                                }
                            }
                            Ok(())
                        })();
                        if let (Err(error), Ok(mut failure)) = (outcome, failure.lock())
                            && !super::interrupt::stopping()
                        {
                            failure.get_or_insert(error);
                        }
                    });
            if let (Err(error), Ok(mut failure)) = (spawned, failure.lock()) {
                failure.get_or_insert(
                    anyhow::Error::new(error).context("cannot start a worker thread"),
                );
            }
        }
    });
    match failure.into_inner().unwrap_or_default() {
        Some(error) => Err(error),
        None => Ok(done.into_inner().unwrap_or_default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_job_runs_once_with_its_worker_state() {
        let mut results = run(
            3,
            (1..=20).collect(),
            |worker| Ok(worker * 1000),
            |state: &mut usize, job: usize| Ok((*state, job)),
        )
        .expect("no error");
        assert!(
            results
                .iter()
                .all(|(state, _)| state % 1000 == 0 && *state < 3000)
        );
        results.sort_by_key(|(_, job)| *job);
        let jobs: Vec<usize> = results.into_iter().map(|(_, job)| job).collect();
        assert_eq!(jobs, (1..=20).collect::<Vec<_>>());
    }

    #[test]
    fn the_first_error_stops_the_pool() {
        let ran = Mutex::new(0);
        let result = run(
            1,
            (1..=10).collect(),
            |_| Ok(()),
            |_: &mut (), job: usize| {
                *ran.lock().expect("lock") += 1;
                if job == 3 {
                    anyhow::bail!("job 3 fails")
                }
                Ok(job)
            },
        );
        assert_eq!(
            result.map_err(|e| e.to_string()).err().as_deref(),
            Some("job 3 fails")
        );
        assert_eq!(*ran.lock().expect("lock"), 3, "no job after the error");
    }

    #[test]
    fn a_worker_that_cannot_start_is_an_error() {
        let result = run(
            2,
            vec![1, 2],
            |worker| {
                if worker == 1 {
                    anyhow::bail!("no state")
                }
                Ok(())
            },
            |_: &mut (), job: i32| Ok(job),
        );
        assert!(result.is_err());
    }
}
