//! What the implementation processes of one run share, whatever they speak (the JSON Lines protocol, or MCP): the restart budget, whether the run has given up, and the stderr tails.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::peer::process::keep_tail;

/// Why an implementation cannot be used at all (exit code 3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unusable(pub String);

impl std::fmt::Display for Unusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unusable {}

/// The restart budget of a run's processes, whether the run gave up on them, and their stderr.
#[derive(Debug)]
pub struct Supervision {
    /// What the processes are called in messages: `peer`, `server`.
    what: &'static str,
    max_restarts: usize,
    restarts: AtomicUsize,
    stop: AtomicBool,
    unusable: Mutex<Option<Unusable>>,
    stderr: Mutex<String>,
}

impl Supervision {
    /// The supervision of processes called `what`, which may be restarted `max_restarts` times
    /// in all.
    pub fn new(what: &'static str, max_restarts: usize) -> Supervision {
        Supervision {
            what,
            max_restarts,
            restarts: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            unusable: Mutex::new(None),
            stderr: Mutex::new(String::new()),
        }
    }

    /// Takes one restart from the run's budget; the implementation is unusable when there is
    /// none left.
    pub fn take_restart(&self) -> Result<(), Unusable> {
        let max = self.max_restarts;
        match self.restarts.fetch_add(1, Ordering::Relaxed) >= max {
            true => Err(Unusable(format!(
                "the {} failed {} times (timeouts, crashes or protocol errors); giving up",
                self.what,
                max + 1
            ))),
            false => Ok(()),
        }
    }

    /// Gives up: every worker stops at its next request; the first reason is kept.
    pub fn give_up(&self, reason: Unusable) {
        self.stop.store(true, Ordering::Relaxed);
        if let Ok(mut unusable) = self.unusable.lock() {
            unusable.get_or_insert(reason);
        }
    }

    /// Whether the run has given up (or is interrupted).
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || crate::progress::stopping()
    }

    /// Keeps the end of a finished process's stderr.
    pub fn keep_stderr(&self, tail: &str) {
        if let Ok(mut kept) = self.stderr.lock() {
            keep_tail(&mut kept, tail);
        }
    }

    /// Why the run gave up, if it did, and the stderr tails.
    pub fn end(self) -> (Option<Unusable>, String) {
        (
            self.unusable.into_inner().unwrap_or_default(),
            self.stderr.into_inner().unwrap_or_default(),
        )
    }
}
