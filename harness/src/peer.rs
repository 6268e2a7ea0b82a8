//! A peer as a run sees it: a session owns one process at a time and the protocol over it (the
//! hello, numbered checks and steps, the outstanding ones and their clock, blame on a timeout,
//! crash or protocol error, and restarts within the run's budget), and hands the run answers.
//! The processes of one run share their numbering, restart budget and stderr tail ([`Peers`]).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use vvoc_reference::{JsString, Json, Tool};

use crate::outcome::Answer;
use crate::peer_process::{Event, MAX_LINE, PeerCommand, PeerProcess, keep_tail};
use crate::protocol::{ProtocolCheck, Seq, preview};
use crate::protocol_hello::Implementation;
use crate::protocol_result::{CheckAnswer, PeerResult, StepAnswer, StepKind};
use crate::protocol_runner::ToPeer;
use crate::scenario_run::Fault;
use crate::scenarios::Reply;

/// How long a peer may take to exit after `bye` before it is killed.
const GRACE: Duration = Duration::from_millis(500);

/// Why a peer cannot be used at all (exit code 3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unusable(pub String);

impl std::fmt::Display for Unusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unusable {}

/// How a peer run is carried out.
#[derive(Clone, Debug)]
pub struct PeerOptions {
    /// The command that starts a peer.
    pub command: PeerCommand,
    /// How long the peer may go without answering while checks are outstanding.
    pub timeout: Duration,
    /// How many peer processes run at once.
    pub jobs: usize,
    /// How many restarts (after timeouts, crashes and protocol errors) the run allows in all.
    pub max_restarts: usize,
    /// How many checks one process may have outstanding (pipelining).
    pub window: usize,
    /// Whether every message is checked against the protocol schemas.
    pub validate_protocol: bool,
}

impl PeerOptions {
    /// Defaults for everything but the command.
    pub fn new(command: PeerCommand) -> PeerOptions {
        PeerOptions {
            command,
            timeout: Duration::from_millis(5000),
            jobs: 1,
            max_restarts: 10,
            window: 16,
            validate_protocol: false,
        }
    }
}

/// What the peer processes of one run share: how to start one, the numbering of messages, the
/// restart budget, whether the run has given up, and the stderr tails of every process.
#[derive(Debug)]
pub struct Peers<'o> {
    options: &'o PeerOptions,
    protocol: Option<ProtocolCheck>,
    next_seq: AtomicU64,
    restarts: AtomicUsize,
    stop: AtomicBool,
    unusable: Mutex<Option<Unusable>>,
    stderr: Mutex<String>,
}

/// How the peers of a run ended.
#[derive(Debug)]
pub struct Ended {
    /// Why the run gave up on the peer, if it did.
    pub unusable: Option<Unusable>,
    /// The last bytes the peers wrote to stderr.
    pub stderr: String,
    /// The runner's own protocol violations (`--validate-protocol`): a bug of this program.
    pub violations: Vec<String>,
}

impl<'o> Peers<'o> {
    /// The peers of a run; an error when the protocol schemas do not compile (a bug).
    pub fn new(options: &'o PeerOptions) -> Result<Peers<'o>, String> {
        let protocol = match options.validate_protocol {
            true => Some(ProtocolCheck::new()?),
            false => None,
        };
        Ok(Peers {
            options,
            protocol,
            next_seq: AtomicU64::new(1),
            restarts: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            unusable: Mutex::new(None),
            stderr: Mutex::new(String::new()),
        })
    }

    /// Starts a process and greets it.
    pub fn start(&self) -> Result<PeerSession<'_, 'o>, Unusable> {
        let (process, hello) = self.spawn()?;
        Ok(PeerSession {
            peers: self,
            process,
            hello,
            outstanding: BTreeMap::new(),
            progress: Instant::now(),
            broken: false,
        })
    }

    /// Gives up on the peer: every session stops at its next request.
    pub fn give_up(&self, reason: Unusable) {
        self.stop.store(true, Ordering::Relaxed);
        if let Ok(mut unusable) = self.unusable.lock() {
            unusable.get_or_insert(reason);
        }
    }

    /// Whether the run has given up on the peer.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// How the run's peers ended, once every session has.
    pub fn end(self) -> Ended {
        Ended {
            unusable: self.unusable.into_inner().unwrap_or_default(),
            stderr: self.stderr.into_inner().unwrap_or_default(),
            violations: self
                .protocol
                .map(|p| p.runner_violations())
                .unwrap_or_default(),
        }
    }

    /// Starts a process and exchanges hellos; the wait for its answer is the timeout, 5 s at least.
    fn spawn(&self) -> Result<(PeerProcess, Implementation), Unusable> {
        let mut process = PeerProcess::spawn(&self.options.command).map_err(Unusable)?;
        self.send(&process, &ToPeer::Hello);
        let timeout = self.options.timeout.max(Duration::from_secs(5));
        let line = match process.next_event(Instant::now() + timeout) {
            Ok(Event::Line(line)) => line,
            Ok(Event::Closed) => {
                let status = process.exit_status();
                process.kill();
                let tail = process.stderr_tail();
                let note = match tail.trim().is_empty() {
                    true => String::new(),
                    false => format!("; its stderr ends with:\n{}", tail.trim_end()),
                };
                return Err(Unusable(format!(
                    "the peer exited during the hello ({status}){note}"
                )));
            }
            Ok(Event::TooLong) => {
                process.kill();
                return Err(Unusable(format!(
                    "the peer answered the hello with a line over {MAX_LINE} bytes"
                )));
            }
            Err(_) => {
                process.kill();
                return Err(Unusable(format!(
                    "the peer did not answer the hello within {} ms",
                    timeout.as_millis()
                )));
            }
        };
        match self
            .check_incoming(Implementation::SCHEMA, &line)
            .and_then(|()| Implementation::read_hello(&line))
        {
            Ok(hello) => Ok((process, hello)),
            Err(reason) => {
                process.kill();
                Err(Unusable(format!(
                    "bad hello from the peer: {reason}: {}",
                    preview(&line)
                )))
            }
        }
    }

    /// Writes one message (checked first with `--validate-protocol`).
    fn send(&self, process: &PeerProcess, message: &ToPeer<'_>) {
        let line = message.to_line();
        if let Some(protocol) = &self.protocol {
            protocol.check_outgoing(&format!("runner-{}", message.kind()), &line);
        }
        process.send(line);
    }

    /// With `--validate-protocol`, whether an incoming line follows the schema `stem`.
    fn check_incoming(&self, stem: &str, line: &str) -> Result<(), String> {
        match &self.protocol {
            Some(protocol) => protocol.check(stem, line),
            None => Ok(()),
        }
    }

    fn keep_stderr(&self, process: &PeerProcess) {
        if let Ok(mut kept) = self.stderr.lock() {
            keep_tail(&mut kept, &process.stderr_tail());
        }
    }
}

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

impl PeerSession<'_, '_> {
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
        let seq = self.peers.next_seq.fetch_add(1, Ordering::Relaxed);
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
        let deadline = self.progress + self.peers.options.timeout;
        let failure = match self.process.next_event(deadline) {
            Ok(Event::Line(line)) => {
                match self
                    .peers
                    .check_incoming(PeerResult::<CheckAnswer>::SCHEMA, &line)
                    .and_then(|()| PeerResult::<CheckAnswer>::read(&line))
                {
                    Ok((seq, answer)) => match self.outstanding.remove(&seq) {
                        Some((tag, sent)) => {
                            self.progress = Instant::now();
                            let answer = match answer {
                                CheckAnswer::Verdict(verdict) => Answer::Verdict(verdict),
                                CheckAnswer::Error(text) => Answer::Error(text),
                            };
                            return Some(Next::Answer(tag, answer, sent.elapsed()));
                        }
                        None => Answer::ProtocolError(format!(
                            "an answer for seq {seq}, which is not outstanding"
                        )),
                    },
                    Err(reason) => Answer::ProtocolError(format!("{reason}: {}", preview(&line))),
                }
            }
            Ok(Event::Closed) => Answer::Crash(self.closed()),
            Ok(Event::TooLong) => Answer::ProtocolError(too_long()),
            Err(_) => Answer::Timeout,
        };
        self.broken = true;
        // The oldest outstanding check takes the blame; the others are sent again.
        let (tag, sent) = self.outstanding.remove(&oldest)?;
        let resend = std::mem::take(&mut self.outstanding);
        Some(Next::Failed {
            blamed: (tag, failure, sent.elapsed()),
            resend: resend.into_values().map(|(tag, _)| tag).collect(),
        })
    }

    /// One step of a scenario's session, sent once the last one is answered: its answer, or the
    /// fault it met (a timeout, crash or protocol error breaks the session).
    pub fn step(&mut self, session: &str, step: Step<'_>) -> Result<Reply, Fault> {
        let seq = self.peers.next_seq.fetch_add(1, Ordering::Relaxed);
        let (message, kind) = match step {
            Step::Exec(tool, input) => {
                let (session, input) = (Cow::Borrowed(session), Cow::Borrowed(input));
                let seq = Seq::from(seq);
                (
                    ToPeer::Exec {
                        seq,
                        session,
                        tool,
                        input,
                    },
                    StepKind::Exec,
                )
            }
            Step::Anchors(path) => {
                let (session, path) = (Cow::Borrowed(session), Cow::Borrowed(path));
                let seq = Seq::from(seq);
                (ToPeer::Anchors { seq, session, path }, StepKind::Anchors)
            }
        };
        self.peers.send(&self.process, &message);
        let deadline = Instant::now() + self.peers.options.timeout;
        let fault = match self.process.next_event(deadline) {
            Ok(Event::Line(line)) => match self
                .peers
                .check_incoming(PeerResult::<StepAnswer>::SCHEMA, &line)
                .and_then(|()| PeerResult::<StepAnswer>::read(&line, kind))
            {
                Ok((got, StepAnswer::Reply(reply))) if got == seq => return Ok(reply),
                Ok((got, StepAnswer::Error(text))) if got == seq => return Err(Fault::Error(text)),
                Ok((got, _)) => Fault::ProtocolError(format!(
                    "an answer for seq {got}, which is not outstanding (the step sent seq {seq})"
                )),
                Err(reason) => Fault::ProtocolError(format!("{reason}: {}", preview(&line))),
            },
            Ok(Event::Closed) => Fault::Crash(self.closed()),
            Ok(Event::TooLong) => Fault::ProtocolError(too_long()),
            Err(_) => Fault::Timeout,
        };
        self.broken = true;
        Err(fault)
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
        self.peers.keep_stderr(&self.process);
        self.process.kill();
        let options = self.peers.options;
        if self.peers.restarts.fetch_add(1, Ordering::Relaxed) >= options.max_restarts {
            return Err(Unusable(format!(
                "the peer failed {} times (timeouts, crashes or protocol errors); giving up",
                options.max_restarts + 1
            )));
        }
        // The first hello stands for the peer; a restarted process is the same program.
        let (process, _) = self.peers.spawn()?;
        self.process = process;
        self.outstanding.clear();
        self.broken = false;
        Ok(())
    }

    /// Says bye, keeps the stderr tail, and gives the process a short grace period to exit.
    pub fn finish(self) {
        self.peers.keep_stderr(&self.process);
        self.peers.send(&self.process, &ToPeer::Bye);
        self.process.close(GRACE);
    }

    /// Kills the process at once (the run gave up).
    pub fn abandon(mut self) {
        self.process.kill();
    }

    /// The crash text of a process that closed its output.
    fn closed(&mut self) -> String {
        let status = self.process.exit_status();
        format!("the peer closed its output before answering ({status})")
    }
}

/// A step of a scenario, as sent to a peer.
#[derive(Clone, Copy, Debug)]
pub enum Step<'a> {
    /// A call of the tool with this input (`{root}` substituted).
    Exec(Tool, &'a Json),
    /// The anchored view of the file at this absolute path.
    Anchors(&'a JsString),
}

fn too_long() -> String {
    format!("a line of more than {MAX_LINE} bytes")
}
