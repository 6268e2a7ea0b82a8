//! The switched phase, in worker 0's copy: every mutant with a region in the mutated crate is
//! compiled into one build, each behind its switch (round by round, `rounds.rs`); the build must
//! pass with no switch on; then each switched mutant runs with its switch on. The copy is put
//! back as it was when the phase ends.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};

use super::baseline::Limits;
use super::execute::Executor;
use super::interrupt;
use super::outcome::{Mode, MutantResult};
use super::plan::Mutant;
use super::rounds::{Pending, Rounds};
use super::scratch::Scratch;
use super::suite::{self, Step};
use super::workspace::{MUTATED_LIB, Workspace};

/// The switched build, ready to run its mutants; dropping it puts the copy back.
#[derive(Debug)]
pub struct SwitchedRun<'a> {
    workspace: &'a Workspace,
    scratch: &'a Scratch,
    limit: Duration,
    _restore: Restore<'a>,
}

/// What the phase's build came to.
#[derive(Debug)]
pub struct Switching<'a> {
    /// The build, ready to run.
    pub run: SwitchedRun<'a>,
    /// The mutants it holds.
    pub switched: Vec<Mutant>,
    /// The mutants left for rebuilding.
    pub rest: Vec<Mutant>,
}

impl Executor for SwitchedRun<'_> {
    type Worker = PathBuf;
    const MODE: Mode = Mode::Switched;

    fn start(&self, worker: usize) -> Result<PathBuf> {
        Ok(self.workspace.suite_report(&format!("switch-{worker}")))
    }

    fn run(&self, report: &mut PathBuf, mutant: &Mutant) -> Result<MutantResult> {
        let needed = mutant.needed();
        let run = suite::run(
            self.scratch,
            report,
            self.limit,
            Some(mutant.id),
            Some(&needed),
        );
        Ok(match run {
            Err(error) if interrupt::is(&error) => return Err(error),
            Ok(Step::Done(suite)) => MutantResult::Ran(suite),
            Ok(Step::TimedOut) => MutantResult::TimedOut,
            Err(error) => MutantResult::SuiteFailed(format!("{error:#}")),
        })
    }
}

/// The switched build compiled, before it is checked with no switch on; dropping it puts the
/// copy back.
#[derive(Debug)]
pub struct Compiled<'a> {
    workspace: &'a Workspace,
    scratch: &'a Scratch,
    built: bool,
    build_time: Duration,
    switched: Vec<Mutant>,
    rest: Vec<Mutant>,
    restore: Restore<'a>,
}

/// Compiles every switchable mutant into worker 0's copy (`scratch`, built), each build within
/// `build_limit`; round logs go to `log_dir`.
pub fn compile<'a>(
    workspace: &'a Workspace,
    scratch: &'a Scratch,
    build_limit: Duration,
    mutants: Vec<Mutant>,
    log_dir: &Path,
) -> Result<Compiled<'a>> {
    let mut pending = if workspace.path(MUTATED_LIB).is_file() {
        Pending::of(workspace, mutants)
    } else {
        Pending {
            candidates: Vec::new(),
            rest: mutants,
        }
    };
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    let lib = (!pending.candidates.is_empty()).then_some(MUTATED_LIB);
    for file in pending
        .candidates
        .iter()
        .map(|c| c.mutant.file.as_str())
        .chain(lib)
    {
        if !files.contains_key(file) {
            let text = std::fs::read_to_string(workspace.path(file))
                .with_context(|| format!("cannot read {file}"))?;
            files.insert(file.to_owned(), text);
        }
    }
    let rounds = Rounds {
        scratch,
        files: &files,
        limit: build_limit,
        log_dir,
    };
    let started = Instant::now();
    let built = !pending.candidates.is_empty() && rounds.run(&mut pending)?;
    let build_time = started.elapsed();
    let Pending { candidates, rest } = pending;
    Ok(Compiled {
        workspace,
        scratch,
        built,
        build_time,
        switched: candidates.into_iter().map(|c| c.mutant).collect(),
        rest,
        restore: Restore { scratch, files },
    })
}

/// Checks the compiled build with no switch on, within the baseline's limits, and readies it to
/// run its mutants; those it does not hold are left for rebuilding.
pub fn finish(compiled: Compiled<'_>, limits: Limits) -> Result<Switching<'_>> {
    let Compiled {
        workspace,
        scratch,
        built,
        build_time,
        mut switched,
        mut rest,
        restore,
    } = compiled;
    if !built {
        rest.append(&mut switched);
    } else {
        // The switched build with no mutant active must still pass, or its results mean nothing.
        let report = workspace.suite_report("switch");
        match suite::run(scratch, &report, limits.run, None, None)? {
            Step::Done(result) if result.failures.is_empty() => {}
            Step::Done(_) | Step::TimedOut => {
                eprintln!(
                    "warning: the switched build fails without a mutant; every row is rebuilt alone"
                );
                rest.append(&mut switched);
            }
        }
    }
    if !switched.is_empty() {
        let rows = |mutants: &[Mutant]| mutants.iter().map(|m| m.rows.len()).sum::<usize>();
        eprintln!(
            "{} rows compiled into one switched build in {:.1} s; {} rows left to rebuild",
            rows(&switched),
            build_time.as_secs_f64(),
            rows(&rest)
        );
    }
    let run = SwitchedRun {
        workspace,
        scratch,
        limit: limits.run,
        _restore: restore,
    };
    Ok(Switching {
        run,
        switched,
        rest,
    })
}

/// Puts files of a copy back to their original text when dropped.
#[derive(Debug)]
struct Restore<'a> {
    scratch: &'a Scratch,
    files: BTreeMap<String, String>,
}

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        for (file, text) in &self.files {
            if self.scratch.read(file).ok().as_deref() != Some(text.as_str()) {
                let _ = self.scratch.write(file, text);
            }
        }
    }
}
