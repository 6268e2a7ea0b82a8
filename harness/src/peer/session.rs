//! One peer session: one process at a time and the protocol over it (the hello, numbered checks
//! and steps, the outstanding checks and their clock, blame on a timeout, crash or protocol
//! error, restarts within the run's budget); the runs hand it requests and take its answers.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use vvoc_reference::{JsString, Json, Tool};

use crate::outcome::{Answer, Failure};
use crate::peer::options::{Peers, Unusable};
use crate::peer::process::{Event, MAX_LINE, PeerProcess};
use crate::protocol::hello::Implementation;
use crate::protocol::result::{CheckAnswer, PeerResult, StepAnswer, StepKind};
use crate::protocol::runner::ToPeer;
use crate::protocol::wire::{Seq, preview};
use crate::protocol::workflow::WorkflowMessage;
use crate::scenario::model::Reply;
use crate::workflow::model::Action;
use crate::workflow::play::Received;

/// How long a peer may take to exit after `bye` before it is killed.
const GRACE: Duration = Duration::from_millis(500);

/// One peer process at a time, greeted, with its outstanding checks.
#[derive(Debug)]
pub struct PeerSession<'p, 'o> {
    peers: &'p Peers<'o>,
    process: PeerProcess,
    hello: Implementation,
    /// Checks sent and not yet answered, by `seq`: the caller's tag and when it was sent.
    outstanding: BTreeMap<u64, (usize, Instant)>,
    /// Restarted whenever the peer answers anything, so a slow but steady peer is not blamed
    /// for the checks queued behind the current one.
    progress: Instant,
    /// Whether the process failed and must be restarted.
    broken: bool,
}

/// What came of the outstanding checks.
#[derive(Debug)]
pub enum Next {
    /// The check tagged `tag` got its answer after `duration`.
    Answer(usize, Answer, Duration),
    /// The peer failed (timeout, crash or protocol error): the oldest outstanding check takes
    /// the blame, with this answer; the others are to be sent again, after [`PeerSession::restart`].
    Failed {
        /// The blamed check's tag, its answer, and how long it waited.
        blamed: (usize, Answer, Duration),
        /// The tags of the other outstanding checks.
        resend: Vec<usize>,
    },
}

impl<'p, 'o> PeerSession<'p, 'o> {
    /// Starts a process of `peers` and greets it.
    pub fn start(peers: &'p Peers<'o>) -> Result<PeerSession<'p, 'o>, Unusable> {
        let (process, hello) = peers.spawn()?;
        Ok(PeerSession {
            peers,
            process,
            hello,
            outstanding: BTreeMap::new(),
            progress: Instant::now(),
            broken: false,
        })
    }

    /// What the peer said in its (first) hello.
    pub fn hello(&self) -> &Implementation {
        &self.hello
    }

    /// How many checks are outstanding.
    pub fn outstanding(&self) -> usize {
        self.outstanding.len()
    }

    /// Whether the process failed and must be restarted before the next request.
    pub fn broken(&self) -> bool {
        self.broken
    }

    /// Sends one check, tagged `tag` for its answer.
    pub fn check(&mut self, tag: usize, tool: Tool, input: &Json) {
        if self.outstanding.is_empty() {
            self.progress = Instant::now();
        }
        let seq = self.peers.next_seq();
        let input = Cow::Borrowed(input);
        let message = ToPeer::Check {
            seq: Seq::from(seq),
            tool,
            input,
        };
        self.peers.send(&self.process, &message);
        self.outstanding.insert(seq, (tag, Instant::now()));
    }

    /// Waits for the next answer to an outstanding check; `None` when none is outstanding.
    pub fn next_answer(&mut self) -> Option<Next> {
        let (&oldest, _) = self.outstanding.first_key_value()?;
        let deadline = self.progress + self.peers.timeout();
        let read = PeerResult::<CheckAnswer>::read;
        let broke = match self.receive(deadline, PeerResult::<CheckAnswer>::SCHEMA, read) {
            Ok((seq, answer)) => match self.outstanding.remove(&seq) {
                Some((tag, sent)) => {
                    self.progress = Instant::now();
                    let answer = match answer {
                        CheckAnswer::Verdict(verdict) => Answer::Verdict(verdict),
                        CheckAnswer::Error(text) => Answer::Failed(Failure::Error(text)),
                    };
                    crate::progress::vector_done();
                    return Some(Next::Answer(tag, answer, sent.elapsed()));
                }
                None => Failure::ProtocolError(format!(
                    "an answer for seq {seq}, which is not outstanding"
                )),
            },
            Err(broke) => broke,
        };
        self.broken = true;
        let answer = Answer::Failed(broke);
        // The oldest outstanding check takes the blame; the others are sent again.
        let (tag, sent) = self.outstanding.remove(&oldest)?;
        crate::progress::vector_done();
        let resend = std::mem::take(&mut self.outstanding);
        Some(Next::Failed {
            blamed: (tag, answer, sent.elapsed()),
            resend: resend.into_values().map(|(tag, _)| tag).collect(),
        })
    }

    /// One step of a scenario's session, sent once the last one is answered: its answer, or how
    /// it failed (a timeout, crash or protocol error breaks the session).
    pub fn step(&mut self, session: &str, step: Step<'_>) -> Result<Reply, Failure> {
        match self.exchange(session, step, Duration::ZERO)? {
            StepAnswer::Reply(reply) => Ok(reply),
            StepAnswer::Web { .. } | StepAnswer::Done | StepAnswer::Error(_) => {
                unreachable_answer(&mut self.broken)
            }
        }
    }

    /// One step of a workflow scenario's session, with `workflow` (the host, the step's context
    /// and the clock): a call's returned or raised text, a hook's outcome, or how it failed.
    pub fn workflow_step(
        &mut self,
        session: &str,
        action: &Action,
        workflow: &Json,
    ) -> Result<Received, Failure> {
        match self.exchange(session, Step::Workflow(action, workflow), Duration::ZERO)? {
            StepAnswer::Reply(Reply::Output(text)) => Ok(Received::Returned(text)),
            StepAnswer::Reply(Reply::Throws(text)) => Ok(Received::Throws(text)),
            StepAnswer::Done => Ok(Received::Done),
            StepAnswer::Web { .. } | StepAnswer::Error(_) => unreachable_answer(&mut self.broken),
        }
    }

    /// A web call (its scenario's only step): the result or the raised message with the
    /// permission requests, or how it failed; the peer has `waits` beyond its timeout to answer.
    pub fn web_call(
        &mut self,
        session: &str,
        tool: Tool,
        input: &Json,
        host: &Json,
        waits: Duration,
    ) -> Result<(Result<Json, JsString>, Vec<Json>), Failure> {
        match self.exchange(session, Step::Web(tool, input, host), waits)? {
            StepAnswer::Web { reply, asks } => Ok((reply, asks)),
            StepAnswer::Reply(_) | StepAnswer::Done | StepAnswer::Error(_) => {
                unreachable_answer(&mut self.broken)
            }
        }
    }

    /// Sends a step and reads its answer within the timeout and `waits`: a tool outcome (an
    /// `error` answer is a failure), or how the process failed.
    fn exchange(
        &mut self,
        session: &str,
        step: Step<'_>,
        waits: Duration,
    ) -> Result<StepAnswer, Failure> {
        let n = self.peers.next_seq();
        let (seq, session) = (Seq::from(n), Cow::Borrowed(session));
        let (message, kind) = match step {
            Step::Exec(tool, input) => {
                let input = Cow::Borrowed(input);
                let exec = ToPeer::Exec {
                    seq,
                    session,
                    tool,
                    input,
                    host: None,
                    workflow: None,
                };
                (exec, StepKind::Exec)
            }
            Step::Workflow(action, workflow) => {
                match WorkflowMessage::of_step(seq.clone(), session.clone(), action, workflow) {
                    Some(message) => (ToPeer::Workflow(message), StepKind::Hook),
                    None => {
                        let (tool, input) = match action {
                            Action::Call { tool, input } => (*tool, input),
                            // `of_step` gives a message for every other step.
                            Action::Launch { .. }
                            | Action::Result { .. }
                            | Action::Event(_)
                            | Action::Restart => return unreachable_answer(&mut self.broken),
                        };
                        let exec = ToPeer::Exec {
                            seq,
                            session,
                            tool,
                            input: Cow::Borrowed(input),
                            host: None,
                            workflow: Some(Cow::Borrowed(workflow)),
                        };
                        (exec, StepKind::Exec)
                    }
                }
            }
            Step::Web(tool, input, host) => {
                let exec = ToPeer::Exec {
                    seq,
                    session,
                    tool,
                    input: Cow::Borrowed(input),
                    host: Some(Cow::Borrowed(host)),
                    workflow: None,
                };
                (exec, StepKind::Web)
            }
            Step::Anchors(path) => {
                let path = Cow::Borrowed(path);
                let anchors = ToPeer::Anchors { seq, session, path };
                (anchors, StepKind::Anchors)
            }
        };
        self.peers.send(&self.process, &message);
        let deadline = Instant::now() + self.peers.timeout() + waits;
        let read = |line: &str| PeerResult::<StepAnswer>::read(line, kind);
        let broke = match self.receive(deadline, PeerResult::<StepAnswer>::SCHEMA, read) {
            Ok((got, StepAnswer::Error(text))) if got == n => return Err(Failure::Error(text)),
            Ok((got, answer)) if got == n => return Ok(answer),
            Ok((got, _)) => Failure::ProtocolError(format!(
                "an answer for seq {got}, which is not outstanding (the step sent seq {n})"
            )),
            Err(broke) => broke,
        };
        self.broken = true;
        Err(broke)
    }

    /// The next line of the peer before `deadline`, checked against the schema `stem` and
    /// read by `read`, or how the process failed (a failure that breaks it).
    fn receive<T>(
        &mut self,
        deadline: Instant,
        stem: &str,
        read: impl FnOnce(&str) -> Result<T, String>,
    ) -> Result<T, Failure> {
        match self.process.next_event(deadline) {
            Ok(Event::Line(line)) => self
                .peers
                .check_incoming(stem, &line)
                .and_then(|()| read(&line))
                .map_err(|reason| Failure::ProtocolError(format!("{reason}: {}", preview(&line)))),
            Ok(Event::Closed) => {
                let status = self.process.exit_status();
                Err(Failure::Crash(format!(
                    "the peer closed its output before answering ({status})"
                )))
            }
            Ok(Event::TooLong) => Err(Failure::ProtocolError(format!(
                "a line of more than {MAX_LINE} bytes"
            ))),
            Ok(Event::NotUtf8(offset)) => Err(Failure::ProtocolError(format!(
                "a line that is not UTF-8 (an invalid byte at offset {offset})"
            ))),
            Err(_) => Err(Failure::Timeout),
        }
    }

    /// The scenario's session is over (nothing is sent to a broken process).
    pub fn end(&mut self, session: &str) {
        if !self.broken {
            let session = Cow::Borrowed(session);
            self.peers.send(&self.process, &ToPeer::End { session });
        }
    }

    /// Replaces the failed process with a new one, if the run's restart budget allows.
    pub fn restart(&mut self) -> Result<(), Unusable> {
        self.process.kill();
        self.peers.keep_stderr(&self.process);
        self.peers.take_restart()?;
        // The first hello stands for the peer; a restarted process is the same program.
        let (process, _) = self.peers.spawn()?;
        self.process = process;
        self.outstanding.clear();
        self.broken = false;
        Ok(())
    }

    /// Says bye, gives the process a short grace period to exit, and keeps the stderr tail.
    pub fn finish(mut self) {
        self.peers.send(&self.process, &ToPeer::Bye);
        self.process.close(GRACE);
        self.peers.keep_stderr(&self.process);
    }

    /// Kills the process at once (the run gave up).
    pub fn abandon(mut self) {
        self.process.kill();
    }
}

/// A step of a scenario, as sent to a peer.
#[derive(Clone, Copy, Debug)]
pub enum Step<'a> {
    /// A call of the tool with this input (`{root}` substituted).
    Exec(Tool, &'a Json),
    /// The anchored view of the file at this absolute path.
    Anchors(&'a JsString),
    /// A call of a web tool with this input and host configuration (`{server}` substituted).
    Web(Tool, &'a Json, &'a Json),
    /// A step of a workflow scenario with its `workflow` member (host, context, clock).
    Workflow(&'a Action, &'a Json),
}

/// An answer of the wrong kind for its step, which [`PeerResult::read`] never gives: reading by
/// the step's kind refuses the others. Should it happen, it breaks the session as a protocol
/// error would.
fn unreachable_answer<T>(broken: &mut bool) -> Result<T, Failure> {
    *broken = true;
    Err(Failure::ProtocolError(
        "an answer of another kind of step than the one sent".to_owned(),
    ))
}
