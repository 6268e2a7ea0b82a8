//! Running the vectors against peer processes: pipelined checks, per-check timeouts, restarts
//! after a timeout, crash or protocol error, and several processes in parallel.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::compare::Level;
use crate::outcome::Answer;
use crate::peer::{Event, PeerCommand, STDERR_TAIL, Session, Unusable};
use crate::protocol::{ProtocolCheck, ToPeer, parse_result, preview};
use crate::run::{Record, RunResult};
use crate::vectors::Vector;

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

    fn hello_timeout(&self) -> Duration {
        self.timeout.max(Duration::from_secs(5))
    }
}

/// What went wrong with the run as a whole.
#[derive(Debug)]
pub enum PeerRunError {
    /// The peer cannot be used (exit code 3); the checks answered so far come along.
    Unusable {
        reason: Unusable,
        partial: Box<RunResult>,
    },
    /// The runner broke the protocol itself: a bug of this program.
    RunnerProtocol(Vec<String>),
}

/// Runs every vector against the peer; vectors of tools the peer does not implement are
/// `unsupported` and never sent.
pub fn run_peer(
    vectors: Vec<Vector>,
    level: Level,
    known_failures: &HashSet<String>,
    options: &PeerOptions,
) -> Result<RunResult, PeerRunError> {
    let start = Instant::now();
    let protocol = match options.validate_protocol {
        true => Some(Arc::new(
            ProtocolCheck::new().map_err(|e| PeerRunError::RunnerProtocol(vec![e]))?,
        )),
        false => None,
    };
    let empty = |reason: Unusable| PeerRunError::Unusable {
        reason,
        partial: Box::new(RunResult {
            implementation: crate::run::Implementation::default(),
            level,
            records: Vec::new(),
            elapsed: start.elapsed(),
            stderr_tail: String::new(),
            scenarios: Vec::new(),
            scenario_elapsed: Duration::ZERO,
        }),
    };
    let first = Session::start(&options.command, options.hello_timeout(), protocol.clone())
        .map_err(empty)?;
    let implementation = first.hello.clone();
    let supported = |v: &Vector| implementation.tools.iter().any(|t| t == v.tool.id());
    let queue: VecDeque<usize> = (0..vectors.len())
        .filter(|&i| supported(&vectors[i]))
        .collect();
    let shared = Shared {
        vectors: &vectors,
        queue: Mutex::new(queue),
        answers: Mutex::new(BTreeMap::new()),
        restarts: AtomicUsize::new(0),
        next_seq: AtomicU64::new(1),
        stop: AtomicBool::new(false),
        unusable: Mutex::new(None),
        stderr: Mutex::new(String::new()),
        protocol,
        options,
    };
    std::thread::scope(|scope| {
        let mut first = Some(first);
        for _ in 0..options.jobs.max(1) {
            let session = first.take();
            let shared = &shared;
            scope.spawn(move || shared.work(session));
        }
    });
    let Shared {
        answers,
        stderr,
        protocol,
        unusable,
        ..
    } = shared;
    let mut answers = answers.into_inner().unwrap_or_default();
    let records: Vec<Record> = vectors
        .into_iter()
        .enumerate()
        .filter_map(|(i, vector)| {
            let (answer, duration) = match answers.remove(&i) {
                Some(found) => found,
                None if !supported(&vector) => (Answer::Unsupported, Duration::ZERO),
                None => return None,
            };
            Some(Record::new(vector, answer, duration, level, known_failures))
        })
        .collect();
    let stderr_tail = stderr.into_inner().unwrap_or_default();
    let result = RunResult {
        implementation,
        level,
        records,
        elapsed: start.elapsed(),
        stderr_tail,
        scenarios: Vec::new(),
        scenario_elapsed: Duration::ZERO,
    };
    if let Some(protocol) = &protocol {
        let violations = protocol.runner_violations();
        if !violations.is_empty() {
            return Err(PeerRunError::RunnerProtocol(violations));
        }
    }
    match unusable.into_inner().unwrap_or_default() {
        Some(reason) => Err(PeerRunError::Unusable {
            reason,
            partial: Box::new(result),
        }),
        None => Ok(result),
    }
}

/// What the workers share.
struct Shared<'a> {
    vectors: &'a [Vector],
    queue: Mutex<VecDeque<usize>>,
    answers: Mutex<BTreeMap<usize, (Answer, Duration)>>,
    restarts: AtomicUsize,
    next_seq: AtomicU64,
    stop: AtomicBool,
    unusable: Mutex<Option<Unusable>>,
    stderr: Mutex<String>,
    protocol: Option<Arc<ProtocolCheck>>,
    options: &'a PeerOptions,
}

/// A check sent and not yet answered.
struct Outstanding {
    vector: usize,
    sent: Instant,
}

impl Shared<'_> {
    /// One worker: its own peer process, fed from the shared queue until it is empty.
    fn work(&self, session: Option<Session>) {
        let mut session = match session.map_or_else(|| self.start(), Ok) {
            Ok(session) => session,
            Err(reason) => return self.give_up(reason),
        };
        let mut retry: VecDeque<usize> = VecDeque::new();
        let mut outstanding: BTreeMap<u64, Outstanding> = BTreeMap::new();
        // The clock of the oldest outstanding check restarts whenever the peer answers anything,
        // so a slow but steady peer is not blamed for the checks queued behind the current one.
        let mut progress = Instant::now();
        loop {
            if self.stop.load(Ordering::Relaxed) {
                session.kill();
                return;
            }
            while outstanding.len() < self.options.window.max(1) {
                let next = retry
                    .pop_front()
                    .or_else(|| self.queue.lock().ok().and_then(|mut q| q.pop_front()));
                let Some(vector) = next else { break };
                if outstanding.is_empty() {
                    progress = Instant::now();
                }
                let seq = self.next_seq.fetch_add(1, Ordering::Relaxed);
                let v = &self.vectors[vector];
                session.send(&ToPeer::Check {
                    seq,
                    tool: v.tool,
                    input: &v.input,
                });
                outstanding.insert(
                    seq,
                    Outstanding {
                        vector,
                        sent: Instant::now(),
                    },
                );
            }
            let Some((&oldest, _)) = outstanding.first_key_value() else {
                break;
            };
            let failure = match session.next_event(progress + self.options.timeout) {
                Ok(Event::Line(line)) => {
                    match session
                        .check_incoming("peer-result", &line)
                        .and_then(|()| parse_result(&line))
                    {
                        Ok((seq, answer)) => match outstanding.remove(&seq) {
                            Some(done) => {
                                self.answer(done.vector, answer, done.sent.elapsed());
                                progress = Instant::now();
                                None
                            }
                            None => Some(Answer::ProtocolError(format!(
                                "an answer for seq {seq}, which is not outstanding"
                            ))),
                        },
                        Err(reason) => Some(Answer::ProtocolError(format!(
                            "{reason}: {}",
                            preview(&line)
                        ))),
                    }
                }
                Ok(Event::Closed) => {
                    let status = session.exit_status();
                    Some(Answer::Crash(format!(
                        "the peer closed its output before answering ({status})"
                    )))
                }
                Ok(Event::TooLong) => Some(Answer::ProtocolError(format!(
                    "a line of more than {} bytes",
                    crate::peer::MAX_LINE
                ))),
                Err(_) => Some(Answer::Timeout),
            };
            let Some(failure) = failure else { continue };
            // The oldest outstanding check takes the blame; the others are sent again.
            if let Some(blamed) = outstanding.remove(&oldest) {
                self.answer(blamed.vector, failure, blamed.sent.elapsed());
            }
            retry.extend(
                std::mem::take(&mut outstanding)
                    .into_values()
                    .map(|o| o.vector),
            );
            self.keep_stderr(&session);
            session.kill();
            if self.restarts.fetch_add(1, Ordering::Relaxed) >= self.options.max_restarts {
                return self.give_up(Unusable(format!(
                    "the peer failed {} times (timeouts, crashes or protocol errors); giving up",
                    self.options.max_restarts + 1
                )));
            }
            session = match self.start() {
                Ok(session) => session,
                Err(reason) => return self.give_up(reason),
            };
        }
        self.keep_stderr(&session);
        session.finish();
    }

    fn start(&self) -> Result<Session, Unusable> {
        Session::start(
            &self.options.command,
            self.options.hello_timeout(),
            self.protocol.clone(),
        )
    }

    fn answer(&self, vector: usize, answer: Answer, duration: Duration) {
        if let Ok(mut answers) = self.answers.lock() {
            answers.insert(vector, (answer, duration));
        }
    }

    fn give_up(&self, reason: Unusable) {
        self.stop.store(true, Ordering::Relaxed);
        if let Ok(mut unusable) = self.unusable.lock() {
            unusable.get_or_insert(reason);
        }
    }

    fn keep_stderr(&self, session: &Session) {
        let tail = session.stderr_tail();
        if let (false, Ok(mut kept)) = (tail.is_empty(), self.stderr.lock()) {
            kept.push_str(&tail);
            let excess = kept.len().saturating_sub(STDERR_TAIL);
            let cut = (excess..=kept.len())
                .find(|&i| kept.is_char_boundary(i))
                .unwrap_or(kept.len());
            kept.drain(..cut);
        }
    }
}
