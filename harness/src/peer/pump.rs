//! The window-and-resend loop over one peer session: checks sent until a window of them is
//! outstanding, answers taken as they come, and, when the process fails, the blamed check's
//! answer handed on, the process restarted (within the run's budget) and the checks it left
//! unanswered sent again first. Every run that sends checks to a peer pumps them through this.

use std::collections::VecDeque;
use std::time::Duration;

use vvoc_reference::{Json, Tool};

use crate::outcome::Answer;
use crate::peer::options::Unusable;
use crate::peer::session::{Next, PeerSession};

/// One session's window of checks, each known by the caller's tag.
#[derive(Debug)]
pub struct Pump<'s, 'p, 'o> {
    session: &'s mut PeerSession<'p, 'o>,
    window: usize,
    /// Tags a failed process left unanswered, to be sent again before new ones.
    resend: VecDeque<usize>,
}

/// Why [`Pump::run`] returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pumped {
    /// Every check was answered and the source has no more.
    Done,
    /// The run was stopped (a peer became unusable); checks may still be outstanding.
    Stopped,
}

impl<'s, 'p, 'o> Pump<'s, 'p, 'o> {
    /// A pump keeping up to `window` checks (at least one) outstanding on `session`.
    pub fn new(session: &'s mut PeerSession<'p, 'o>, window: usize) -> Pump<'s, 'p, 'o> {
        Pump {
            session,
            window: window.max(1),
            resend: VecDeque::new(),
        }
    }

    /// Pumps until `next` has no more tags and all are answered, or `stopped` says so: each tag
    /// is sent as the check `check` gives for it, and each answer (with how long it took) goes
    /// to `answer`. An error when the process failed and could not be restarted.
    pub fn run<'j>(
        &mut self,
        mut next: impl FnMut() -> Option<usize>,
        check: impl Fn(usize) -> Option<(Tool, &'j Json)>,
        mut answer: impl FnMut(usize, Answer, Duration),
        stopped: impl Fn() -> bool,
    ) -> Result<Pumped, Unusable> {
        loop {
            if stopped() {
                return Ok(Pumped::Stopped);
            }
            self.fill(&mut next, &check);
            if !self.step(&mut answer)? {
                return Ok(Pumped::Done);
            }
        }
    }

    /// Sends checks until the window is full: the tags a failed process left first, then new
    /// ones from `next`. A tag `check` knows nothing of is skipped.
    pub fn fill<'j>(
        &mut self,
        mut next: impl FnMut() -> Option<usize>,
        check: impl Fn(usize) -> Option<(Tool, &'j Json)>,
    ) {
        while self.session.outstanding() < self.window {
            let Some(tag) = self.resend.pop_front().or_else(&mut next) else {
                return;
            };
            if let Some((tool, input)) = check(tag) {
                self.session.check(tag, tool, input);
            }
        }
    }

    /// Waits for the next answer and hands it to `answer`; after a failure, restarts the
    /// process. Whether a check was outstanding; an error when the restart was refused.
    pub fn step(
        &mut self,
        mut answer: impl FnMut(usize, Answer, Duration),
    ) -> Result<bool, Unusable> {
        match self.session.next_answer() {
            None => Ok(false),
            Some(Next::Answer(tag, got, took)) => {
                answer(tag, got, took);
                Ok(true)
            }
            Some(Next::Failed { blamed, resend }) => {
                let (tag, got, took) = blamed;
                answer(tag, got, took);
                self.resend.extend(resend);
                self.session.restart()?;
                Ok(true)
            }
        }
    }

    /// How many checks are outstanding.
    pub fn outstanding(&self) -> usize {
        self.session.outstanding()
    }
}
