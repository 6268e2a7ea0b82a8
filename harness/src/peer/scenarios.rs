//! Scenarios over the peer protocol, editor, web and workflow: `--jobs` sessions take scenarios
//! from one queue and play them one at a time; a scenario that broke its peer (a timeout, crash or protocol error) has
//! failed, and the peer is restarted before the next. The scenario's directory is removed
//! whatever happened.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use vvoc_reference::{JsString, Json, Tool};

use crate::compare::Level;
use crate::outcome::Failure;
use crate::peer::options::{PeerOptions, Peers, Unusable};
use crate::peer::session::{PeerSession, Step};
use crate::run::records::{Pending, ScenarioRecord};
use crate::scenario::model::Reply;
use crate::scenario::play::{Executor, play};
use crate::web::model::WebScenario;
use crate::web::play::{WebExecutor, WebReceived, play as web_play};
use crate::workflow::model::Action;
use crate::workflow::play::{Received, WorkflowExecutor, play as workflow_play};
use crate::workflow::wire::workflow_json;
use vvoc_reference::exec::workflow::{StepContext, WorkflowHost};

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

/// Plays every scenario, editor and web, against peer processes.
pub fn run_peer_scenarios(
    scenarios: Vec<Pending>,
    level: Level,
    known: &HashSet<String>,
    options: &PeerOptions,
    scratch: &Path,
) -> Result<PeerScenarios, ScenarioRunError> {
    let start = Instant::now();
    let peers = Peers::new(options).map_err(|e| ScenarioRunError::RunnerProtocol(vec![e]))?;
    let work = Work {
        queue: Mutex::new(scenarios.into_iter().enumerate().collect()),
        done: Mutex::new(BTreeMap::new()),
        scratch,
        level,
        known,
    };
    std::thread::scope(|scope| {
        for _ in 0..options.jobs.max(1) {
            scope.spawn(|| work.run(&peers));
        }
    });
    let records: Vec<(usize, ScenarioRecord)> = work
        .done
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .collect();
    let ended = peers.end();
    if !ended.violations.is_empty() {
        return Err(ScenarioRunError::RunnerProtocol(ended.violations));
    }
    match ended.unusable {
        Some(reason) => Err(ScenarioRunError::Unusable(reason, records, ended.stderr)),
        None => Ok(PeerScenarios {
            records,
            elapsed: start.elapsed(),
            stderr: ended.stderr,
        }),
    }
}

/// The scenarios to play, shared by the sessions.
struct Work<'a> {
    queue: Mutex<VecDeque<(usize, Pending)>>,
    done: Mutex<BTreeMap<usize, ScenarioRecord>>,
    scratch: &'a Path,
    level: Level,
    known: &'a HashSet<String>,
}

impl Work<'_> {
    /// One session, one scenario at a time until the queue is empty.
    fn run(&self, peers: &Peers<'_>) {
        let mut session = match PeerSession::start(peers) {
            Ok(session) => session,
            Err(reason) => return peers.give_up(reason),
        };
        while !peers.stopped() {
            let Some((index, pending)) = self.queue.lock().ok().and_then(|mut q| q.pop_front())
            else {
                break;
            };
            let began = Instant::now();
            let record = match pending {
                Pending::Editor(scenario) => {
                    let name = scenario.name();
                    let answer = play(&scenario, self.scratch, &mut Steps(&mut session, &name));
                    let took = began.elapsed();
                    ScenarioRecord::new(scenario, answer, took, self.level, self.known)
                }
                Pending::Web(scenario) => {
                    let name = scenario.name();
                    let answer = web_play(&scenario, &mut WebCall(&mut session, &name));
                    let took = began.elapsed();
                    ScenarioRecord::web(scenario, answer, took, self.level, self.known)
                }
                Pending::Workflow(scenario) => {
                    let name = scenario.name();
                    let mut steps = WorkflowSteps {
                        session: &mut session,
                        name: &name,
                        host: None,
                    };
                    let answer = workflow_play(&scenario, self.scratch, &mut steps);
                    let took = began.elapsed();
                    ScenarioRecord::workflow(scenario, answer, took, self.level, self.known)
                }
            };
            // After an interrupt, a scenario whose peer was killed did not fail: it was not run.
            if crate::progress::stopping() {
                break;
            }
            if let Ok(mut done) = self.done.lock() {
                done.insert(index, record);
            }
            if session.broken()
                && let Err(reason) = session.restart()
            {
                return peers.give_up(reason);
            }
        }
        session.finish();
    }
}

/// One scenario's session (named after the scenario) on a peer session.
struct Steps<'s, 'p, 'o>(&'s mut PeerSession<'p, 'o>, &'s str);

impl Executor for Steps<'_, '_, '_> {
    fn exec(&mut self, tool: Tool, input: &Json) -> Result<Reply, Failure> {
        self.0.step(self.1, Step::Exec(tool, input))
    }

    fn anchors(&mut self, path: &JsString) -> Result<Reply, Failure> {
        self.0.step(self.1, Step::Anchors(path))
    }

    fn end(&mut self) {
        self.0.end(self.1);
    }
}

/// A workflow scenario's steps (in a session named after the scenario) on a peer session: each
/// carries the host and the step's context and clock.
struct WorkflowSteps<'s, 'p, 'o> {
    session: &'s mut PeerSession<'p, 'o>,
    name: &'s str,
    host: Option<WorkflowHost>,
}

impl WorkflowExecutor for WorkflowSteps<'_, '_, '_> {
    fn begin(&mut self, host: &WorkflowHost) -> Result<(), Failure> {
        self.host = Some(host.clone());
        Ok(())
    }

    fn step(&mut self, action: &Action, cx: &StepContext) -> Result<Received, Failure> {
        let Some(host) = &self.host else {
            return Err(Failure::Error("no host: begin was not called".to_owned()));
        };
        let workflow = workflow_json(host, cx);
        self.session.workflow_step(self.name, action, &workflow)
    }

    fn end(&mut self) {
        self.session.end(self.name);
    }
}

/// A web scenario's call (in a session named after the scenario) on a peer session.
struct WebCall<'s, 'p, 'o>(&'s mut PeerSession<'p, 'o>, &'s str);

impl WebExecutor for WebCall<'_, '_, '_> {
    fn call(
        &mut self,
        scenario: &WebScenario,
        host: &Json,
        input: &Json,
    ) -> (WebReceived, Vec<Json>) {
        // A route that waits makes the call wait too: the peer has that long beyond its timeout.
        let waits = scenario
            .routes
            .iter()
            .map(|r| Duration::from_millis(r.delay_ms))
            .sum();
        let answer = self.0.web_call(self.1, scenario.tool, input, host, waits);
        self.0.end(self.1);
        match answer {
            Ok((Ok(result), asks)) => (WebReceived::Result(result), asks),
            Ok((Err(text), asks)) => (WebReceived::Throws(text), asks),
            Err(fault) => (WebReceived::Fault(fault), Vec::new()),
        }
    }
}
