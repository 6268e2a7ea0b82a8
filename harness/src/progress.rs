//! How far a run has got, kept where an interrupt's handler can read it: how many vectors and
//! scenarios it selected, how many have been answered, and whether an interrupt asked it to stop
//! (then it stops at its next step and writes the reports of what ran).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

static SELECTED_VECTORS: AtomicUsize = AtomicUsize::new(0);
static SELECTED_SCENARIOS: AtomicUsize = AtomicUsize::new(0);
static VECTORS_DONE: AtomicUsize = AtomicUsize::new(0);
static SCENARIOS_DONE: AtomicUsize = AtomicUsize::new(0);
static RUNNING: AtomicBool = AtomicBool::new(false);
static STOPPING: AtomicBool = AtomicBool::new(false);
static ENDED: AtomicBool = AtomicBool::new(false);

/// A run begins with this many vectors and scenarios selected; the counts start again.
pub(crate) fn begin(vectors: usize, scenarios: usize) {
    SELECTED_VECTORS.store(vectors, Ordering::SeqCst);
    SELECTED_SCENARIOS.store(scenarios, Ordering::SeqCst);
    VECTORS_DONE.store(0, Ordering::SeqCst);
    SCENARIOS_DONE.store(0, Ordering::SeqCst);
    RUNNING.store(true, Ordering::SeqCst);
}

/// Whether a run that stops by itself when interrupted is under way (it began, and has not
/// ended).
pub fn running() -> bool {
    RUNNING.load(Ordering::SeqCst) && !ENDED.load(Ordering::SeqCst)
}

/// An interrupt asks the run to stop at its next step.
pub fn stop() {
    STOPPING.store(true, Ordering::SeqCst);
}

/// Whether an interrupt asked the run to stop.
pub fn stopping() -> bool {
    STOPPING.load(Ordering::SeqCst)
}

/// The program has said what ran and written its reports: it may now end with 130.
pub fn end() {
    ENDED.store(true, Ordering::SeqCst);
}

/// Whether the program has ended its run after an interrupt, by itself.
pub fn ended() -> bool {
    ENDED.load(Ordering::SeqCst)
}

/// A vector's check has an answer (or a fault that takes its place).
pub(crate) fn vector_done() {
    VECTORS_DONE.fetch_add(1, Ordering::SeqCst);
}

/// A scenario has its record.
pub(crate) fn scenario_done() {
    SCENARIOS_DONE.fetch_add(1, Ordering::SeqCst);
}

/// What an interrupted run had done, in one line, or `None` when no run had begun.
pub(crate) fn interrupted_line() -> Option<String> {
    let (vectors, scenarios) = (
        SELECTED_VECTORS.load(Ordering::SeqCst),
        SELECTED_SCENARIOS.load(Ordering::SeqCst),
    );
    if vectors + scenarios == 0 {
        return None;
    }
    let done = |count: &AtomicUsize, selected: usize| count.load(Ordering::SeqCst).min(selected);
    let (v, s) = (
        done(&VECTORS_DONE, vectors),
        done(&SCENARIOS_DONE, scenarios),
    );
    Some(format!(
        "interrupted: {v} of {vectors} selected vectors and {s} of {scenarios} selected scenarios \
         had run; {} vectors and {} scenarios were not run",
        vectors - v,
        scenarios - s
    ))
}
