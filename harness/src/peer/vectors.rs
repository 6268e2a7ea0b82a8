//! Running the vectors against peer processes: `--jobs` sessions take vectors from one queue,
//! each pumping up to a window of checks (`pump.rs`, which sends again what a failed process
//! left unanswered); the answers become records in vector order.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::compare::Level;
use crate::load::vector::Vector;
use crate::outcome::Answer;
use crate::peer::options::{PeerOptions, Peers, Unusable};
use crate::peer::pump::{Pump, Pumped};
use crate::peer::session::PeerSession;
use crate::protocol::hello::Implementation;
use crate::run::result::{Record, RunResult};

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
    let peers = Peers::new(options).map_err(|e| PeerRunError::RunnerProtocol(vec![e]))?;
    let result = |implementation, records, stderr_tail| RunResult {
        implementation,
        level,
        records,
        elapsed: start.elapsed(),
        stderr_tail,
        scenarios: Vec::new(),
        scenario_elapsed: Duration::ZERO,
        over_mcp: false,
    };
    let first = match PeerSession::start(&peers) {
        Ok(session) => session,
        Err(reason) => {
            let partial = result(Implementation::default(), Vec::new(), String::new());
            return Err(PeerRunError::Unusable {
                reason,
                partial: Box::new(partial),
            });
        }
    };
    let implementation = first.hello().clone();
    let supported = |v: &Vector| implementation.tools.iter().any(|t| t == v.tool.id());
    let queue: VecDeque<usize> = (0..vectors.len())
        .filter(|&i| supported(&vectors[i]))
        .collect();
    let work = Work {
        vectors: &vectors,
        queue: Mutex::new(queue),
        answers: Mutex::new(BTreeMap::new()),
        window: options.window.max(1),
    };
    std::thread::scope(|scope| {
        let mut first = Some(first);
        for _ in 0..options.jobs.max(1) {
            let session = first.take();
            let (work, peers) = (&work, &peers);
            scope.spawn(move || work.run(peers, session));
        }
    });
    let mut answers = work.answers.into_inner().unwrap_or_default();
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
    let ended = peers.end();
    if !ended.violations.is_empty() {
        return Err(PeerRunError::RunnerProtocol(ended.violations));
    }
    let run = result(implementation.clone(), records, ended.stderr);
    match ended.unusable {
        Some(reason) => Err(PeerRunError::Unusable {
            reason,
            partial: Box::new(run),
        }),
        None => Ok(run),
    }
}

/// The vectors to check, shared by the sessions.
struct Work<'a> {
    vectors: &'a [Vector],
    queue: Mutex<VecDeque<usize>>,
    answers: Mutex<BTreeMap<usize, (Answer, Duration)>>,
    window: usize,
}

impl Work<'_> {
    /// One session (the first one, or a new one), fed from the queue until it is empty.
    fn run(&self, peers: &Peers<'_>, session: Option<PeerSession<'_, '_>>) {
        let mut session = match session.map_or_else(|| PeerSession::start(peers), Ok) {
            Ok(session) => session,
            Err(reason) => return peers.give_up(reason),
        };
        let next = || self.queue.lock().ok().and_then(|mut q| q.pop_front());
        let check = |index: usize| self.vectors.get(index).map(|v| (v.tool, &v.input));
        let answer = |index, answer, duration| self.answer(index, answer, duration);
        let mut pump = Pump::new(&mut session, self.window);
        match pump.run(next, check, answer, || peers.stopped()) {
            Ok(Pumped::Done) => session.finish(),
            Ok(Pumped::Stopped) => session.abandon(),
            Err(reason) => peers.give_up(reason),
        }
    }

    fn answer(&self, vector: usize, answer: Answer, duration: Duration) {
        // After an interrupt, a check whose peer was killed did not fail: it was not run.
        let killed = match &answer {
            Answer::Failed(failure) => failure.breaks_process(),
            Answer::Verdict(_)
            | Answer::Mcp(_)
            | Answer::Unsupported
            | Answer::NotObservable(_) => false,
        };
        if killed && crate::progress::stopping() {
            return;
        }
        if let Ok(mut answers) = self.answers.lock() {
            answers.insert(vector, (answer, duration));
        }
    }
}
