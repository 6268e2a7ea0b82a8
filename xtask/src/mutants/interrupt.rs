//! An interrupted mutation run (SIGINT or SIGTERM): the suites and builds under way are asked to
//! stop (SIGTERM to their process groups: `conform run` then removes its scenario scratch and
//! exits), what is left after [`TERM_GRACE`] is killed, no further mutant starts, and the run
//! writes a report of the rows done that says it is partial, says what ran, and exits with 130.
//! `cargo xtask check` stops the same way, with a longer grace: the mutation run it may be
//! running needs its own grace and its report.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The process groups of the builds and suites running now.
static GROUPS: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());
/// Set once an interrupt came: no mutant starts any more.
static STOPPING: AtomicBool = AtomicBool::new(false);
/// Set once the run has written what it has and said what ran.
static ENDED: AtomicBool = AtomicBool::new(false);

/// How long a group asked to stop (SIGTERM) has before it is killed (`conform run` needs well
/// under this to remove its scratch).
pub const TERM_GRACE: Duration = Duration::from_secs(5);
/// The same for a check of `cargo xtask check`: a mutation run's own grace, and its report.
pub const CHECK_TERM_GRACE: Duration = Duration::from_secs(25);
/// The grace [`install`] was given, in milliseconds.
static GRACE_MS: AtomicU64 = AtomicU64::new(5_000);
/// How long the run then has to write its report before the handler ends the program.
const REPORT_GRACE: Duration = Duration::from_secs(30);

/// The error a step returns when the interrupt stopped it; its result counts for nothing.
#[derive(Debug)]
pub struct Interrupted;

impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the mutation run was interrupted")
    }
}

impl std::error::Error for Interrupted {}

/// Whether `error` is (or was caused by) an interrupt.
pub fn is(error: &anyhow::Error) -> bool {
    error.chain().any(|e| e.is::<Interrupted>())
}

/// Handles SIGINT and SIGTERM as the module says, for the rest of the program, giving each group
/// `term_grace` to stop by itself. Call once.
pub fn install(term_grace: Duration) -> Result<(), ctrlc::Error> {
    let ms = u64::try_from(term_grace.as_millis()).unwrap_or(u64::MAX);
    GRACE_MS.store(ms, Ordering::SeqCst);
    ctrlc::set_handler(handle)
}

fn handle() {
    STOPPING.store(true, Ordering::SeqCst);
    signal_all(Signal::Term);
    let asked = Instant::now();
    let grace = Duration::from_millis(GRACE_MS.load(Ordering::SeqCst));
    while !groups().is_empty() && asked.elapsed() < grace {
        std::thread::sleep(Duration::from_millis(20));
    }
    signal_all(Signal::Kill);
    let killed = Instant::now();
    while !ENDED.load(Ordering::SeqCst) && killed.elapsed() < REPORT_GRACE {
        std::thread::sleep(Duration::from_millis(20));
    }
    if !ENDED.load(Ordering::SeqCst) {
        eprintln!(
            "\ninterrupted: the run did not stop within {} s; no report was written",
            REPORT_GRACE.as_secs()
        );
    }
    std::process::exit(130);
}

/// Whether an interrupt came: no step should start.
pub fn stopping() -> bool {
    STOPPING.load(Ordering::SeqCst)
}

/// The interrupted run has said what ran and written its report; the program may end.
pub fn end() {
    ENDED.store(true, Ordering::SeqCst);
}

/// Remembers the process group led by `leader` until [`forget`]. A group started as an interrupt
/// came, after its handler signalled the groups it knew, is asked to stop here.
pub fn watch(leader: u32) {
    if let Ok(mut groups) = GROUPS.lock() {
        groups.insert(leader);
    }
    if stopping() {
        signal_group(leader, Signal::Term);
    }
}

/// Forgets a group whose leader has been waited for.
pub fn forget(leader: u32) {
    if let Ok(mut groups) = GROUPS.lock() {
        groups.remove(&leader);
    }
}

fn groups() -> Vec<u32> {
    GROUPS
        .lock()
        .map(|g| g.iter().copied().collect())
        .unwrap_or_default()
}

#[derive(Clone, Copy)]
enum Signal {
    Term,
    Kill,
}

fn signal_all(signal: Signal) {
    for leader in groups() {
        signal_group(leader, signal);
    }
}

#[cfg(unix)]
fn signal_group(leader: u32, signal: Signal) {
    use nix::sys::signal::{Signal as S, killpg};
    let signal = match signal {
        Signal::Term => S::SIGTERM,
        Signal::Kill => S::SIGKILL,
    };
    if let Ok(pid) = i32::try_from(leader) {
        // A group already gone (ESRCH) is the usual, harmless answer.
        let _ = killpg(nix::unistd::Pid::from_raw(pid), signal);
    }
}

/// Off Unix there are no process groups: the run stops at its next step.
#[cfg(not(unix))]
fn signal_group(_leader: u32, _signal: Signal) {}
