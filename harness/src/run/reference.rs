//! The vectors against the in-process reference: one verdict each, a panic failing only its
//! vector.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use vvoc_reference::validate_json;

use crate::compare::Level;
use crate::load::vector::Vector;
use crate::outcome::{Answer, Failure};
use crate::protocol::hello::Implementation;
use crate::run::result::{Record, RunResult};

/// Runs the vectors against the in-process reference implementation.
pub(crate) fn run_reference(
    vectors: Vec<Vector>,
    level: Level,
    known_failures: &HashSet<String>,
) -> RunResult {
    let start = Instant::now();
    let records = vectors
        .into_iter()
        // An interrupt stops the run before its next vector.
        .take_while(|_| !crate::progress::stopping())
        .map(|vector| {
            let began = Instant::now();
            // A panicking reference (a bug, or a mutant) fails its vector, not the whole run.
            let answer =
                match std::panic::catch_unwind(|| validate_json(vector.tool, &vector.input)) {
                    Ok(verdict) => Answer::Verdict(verdict),
                    Err(panic) => Answer::Failed(Failure::Crash(format!(
                        "the reference panicked: {}",
                        crate::panic::panic_message(&*panic)
                    ))),
                };
            crate::progress::vector_done();
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
        over_mcp: false,
    }
}
