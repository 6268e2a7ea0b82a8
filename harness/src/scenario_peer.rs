//! Scenarios over the peer protocol: one scenario at a time per peer process, `--jobs` processes
//! at once, steps never overlapping; a timeout, crash or protocol error fails its scenario and
//! restarts the peer, and the scenario's directory is removed whatever happened.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use vvoc_reference::{JsString, Json, Tool};

use crate::compare::Level;
use crate::peer::{Event, STDERR_TAIL, Session, Unusable};
use crate::peer_run::PeerOptions;
use crate::protocol::{ProtocolCheck, ToPeer, preview};
use crate::protocol_exec::{StepAnswer, StepKind, parse_step_result};
use crate::scenario_records::ScenarioRecord;
use crate::scenario_run::{Executor, Fault, play};
use crate::scenarios::{Reply, Scenario};

/// Why a scenario run went wrong as a whole.
#[derive(Debug)]
pub enum ScenarioRunError {
    /// The peer became unusable: the reason, the records so far (by position), the peers'
    /// stderr tail.
    Unusable(Unusable, Vec<(usize, ScenarioRecord)>, String),
    /// The runner broke the protocol itself: a bug of this program.
    RunnerProtocol(Vec<String>),
}

/// The scenarios played against a peer.
#[derive(Debug)]
pub struct PeerScenarios {
    /// The records with their positions, in scenario order.
    pub records: Vec<(usize, ScenarioRecord)>,
    /// The wall-clock time.
    pub elapsed: Duration,
    /// The last bytes the peers wrote to stderr.
    pub stderr: String,
}

/// Plays every scenario against peer processes.
pub fn run_peer_scenarios(
    scenarios: Vec<Scenario>,
    level: Level,
    known: &HashSet<String>,
    options: &PeerOptions,
    scratch: &Path,
) -> Result<PeerScenarios, ScenarioRunError> {
    let start = Instant::now();
    let protocol = match options.validate_protocol {
        true => Some(Arc::new(
            ProtocolCheck::new().map_err(|e| ScenarioRunError::RunnerProtocol(vec![e]))?,
        )),
        false => None,
    };
    let shared = Shared {
        queue: Mutex::new(scenarios.into_iter().enumerate().collect()),
        done: Mutex::new(BTreeMap::new()),
        restarts: AtomicUsize::new(0),
        next_seq: AtomicU64::new(1),
        stop: AtomicBool::new(false),
        unusable: Mutex::new(None),
        stderr: Mutex::new(String::new()),
        protocol,
        options,
        scratch,
        level,
        known,
    };
    std::thread::scope(|scope| {
        for _ in 0..options.jobs.max(1) {
            scope.spawn(|| shared.work());
        }
    });
    let records: Vec<(usize, ScenarioRecord)> = shared
        .done
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .collect();
    let stderr = shared.stderr.into_inner().unwrap_or_default();
    if let Some(protocol) = &shared.protocol {
        let violations = protocol.runner_violations();
        if !violations.is_empty() {
            return Err(ScenarioRunError::RunnerProtocol(violations));
        }
    }
    match shared.unusable.into_inner().unwrap_or_default() {
        Some(reason) => Err(ScenarioRunError::Unusable(reason, records, stderr)),
        None => Ok(PeerScenarios {
            records,
            elapsed: start.elapsed(),
            stderr,
        }),
    }
}

/// What the workers share.
struct Shared<'a> {
    queue: Mutex<VecDeque<(usize, Scenario)>>,
    done: Mutex<BTreeMap<usize, ScenarioRecord>>,
    restarts: AtomicUsize,
    next_seq: AtomicU64,
    stop: AtomicBool,
    unusable: Mutex<Option<Unusable>>,
    stderr: Mutex<String>,
    protocol: Option<Arc<ProtocolCheck>>,
    options: &'a PeerOptions,
    scratch: &'a Path,
    level: Level,
    known: &'a HashSet<String>,
}

impl Shared<'_> {
    /// One worker: its own peer process, one scenario at a time until the queue is empty.
    fn work(&self) {
        let mut session = match self.start() {
            Ok(session) => session,
            Err(reason) => return self.give_up(reason),
        };
        while !self.stop.load(Ordering::Relaxed) {
            let Some((index, scenario)) = self.queue.lock().ok().and_then(|mut q| q.pop_front())
            else {
                break;
            };
            let began = Instant::now();
            let mut peer = PeerExecutor {
                session: &mut session,
                name: scenario.name(),
                next_seq: &self.next_seq,
                timeout: self.options.timeout,
                broken: false,
            };
            let answer = play(&scenario, self.scratch, &mut peer);
            let broken = peer.broken;
            let record =
                ScenarioRecord::new(scenario, answer, began.elapsed(), self.level, self.known);
            if let Ok(mut done) = self.done.lock() {
                done.insert(index, record);
            }
            if broken {
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
        }
        self.keep_stderr(&session);
        session.finish();
    }

    fn start(&self) -> Result<Session, Unusable> {
        Session::start(
            &self.options.command,
            self.options.timeout.max(Duration::from_secs(5)),
            self.protocol.clone(),
        )
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

/// One scenario's session on a peer process.
struct PeerExecutor<'a> {
    session: &'a mut Session,
    name: String,
    next_seq: &'a AtomicU64,
    timeout: Duration,
    /// Whether the peer must be restarted (a timeout, crash or protocol error).
    broken: bool,
}

impl PeerExecutor<'_> {
    /// Sends one step and waits for its answer.
    fn step(&mut self, seq: u64, message: &ToPeer<'_>, kind: StepKind) -> Result<Reply, Fault> {
        self.session.send(message);
        let fault = match self.session.next_event(Instant::now() + self.timeout) {
            Ok(Event::Line(line)) => match self
                .session
                .check_incoming("peer-step-result", &line)
                .and_then(|()| parse_step_result(&line, kind))
            {
                Ok((got, StepAnswer::Reply(reply))) if got == seq => return Ok(reply),
                Ok((got, StepAnswer::Error(text))) if got == seq => return Err(Fault::Error(text)),
                Ok((got, _)) => Fault::ProtocolError(format!(
                    "an answer for seq {got}, which is not outstanding (the step sent seq {seq})"
                )),
                Err(reason) => Fault::ProtocolError(format!("{reason}: {}", preview(&line))),
            },
            Ok(Event::Closed) => Fault::Crash(format!(
                "the peer closed its output before answering ({})",
                self.session.exit_status()
            )),
            Ok(Event::TooLong) => Fault::ProtocolError(format!(
                "a line of more than {} bytes",
                crate::peer::MAX_LINE
            )),
            Err(_) => Fault::Timeout,
        };
        self.broken = true;
        Err(fault)
    }
}

impl Executor for PeerExecutor<'_> {
    fn exec(&mut self, tool: Tool, input: &Json) -> Result<Reply, Fault> {
        let seq = self.next_seq.fetch_add(1, Ordering::Relaxed);
        let name = self.name.clone();
        let message = ToPeer::Exec {
            seq,
            session: &name,
            tool,
            input,
        };
        self.step(seq, &message, StepKind::Exec)
    }

    fn anchors(&mut self, path: &JsString) -> Result<Reply, Fault> {
        let seq = self.next_seq.fetch_add(1, Ordering::Relaxed);
        let name = self.name.clone();
        let message = ToPeer::Anchors {
            seq,
            session: &name,
            path,
        };
        self.step(seq, &message, StepKind::Anchors)
    }

    fn end(&mut self) {
        if !self.broken {
            let name = self.name.clone();
            self.session.send(&ToPeer::End { session: &name });
        }
    }
}
