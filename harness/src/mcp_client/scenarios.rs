//! The scenarios over MCP: each editor scenario in its own scratch directory, against a server
//! started for it with that directory as `{root}` (so a server confined to its root can run
//! it), its `call` steps as `tools/call`s; `--jobs` at once. A scenario with an `anchors` step,
//! and every web scenario, cannot be observed over MCP; no editor scenario can over a URL.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use vvoc_reference::{JsString, Json, Tool};

use crate::compare::Level;
use crate::mcp_client::servers::{Server, Servers};
use crate::outcome::Failure;
use crate::peer::options::Unusable;
use crate::run::records::{Pending, ScenarioRecord};
use crate::scenario::model::{Reply, Scenario, Step};
use crate::scenario::play::{Executor, ScenarioAnswer, play};
use crate::web::play::{WebAnswer, WebReceived};
use crate::workflow::play::WorkflowAnswer;

/// Why a scenario with an `anchors` step is not observable over MCP.
pub const ANCHORS_NOT_OBSERVABLE: &str = "an anchors step asks for hashline_edit's anchored view of a file, which is no tool call: MCP has no request for it";

/// Why a web scenario is not observable over MCP.
pub const WEB_NOT_OBSERVABLE: &str = "a web scenario gives its call a host configuration (providers, endpoints on the fixture server), for which a tools/call has no place";

/// Why a workflow scenario is not observable over MCP.
pub const WORKFLOW_NOT_OBSERVABLE: &str = "a workflow scenario gives each step a host context (session, agent, workspace, clock, data directory) and delivers the host's task events, for which MCP has no place";

/// Why an editor scenario is not observable over `--mcp-url`.
pub const URL_NOT_OBSERVABLE: &str = "over --mcp-url the server's root is its own: a run cannot give the server the scenario's scratch directory, as it does with {root} in a --mcp command";

/// Plays the scenarios (with their positions), `jobs` at once; the records by position.
pub fn play_scenarios(
    scenarios: Vec<(usize, Pending)>,
    level: Level,
    known: &HashSet<String>,
    servers: &Servers<'_>,
) -> BTreeMap<usize, ScenarioRecord> {
    let work = Work {
        queue: Mutex::new(scenarios.into_iter().collect()),
        done: Mutex::new(BTreeMap::new()),
        scratch: &servers.options.scratch,
        level,
        known,
        over_http: servers.options.over_http(),
    };
    std::thread::scope(|scope| {
        for _ in 0..servers.options.jobs.max(1) {
            scope.spawn(|| work.run(servers));
        }
    });
    work.done.into_inner().unwrap_or_default()
}

/// The record of a scenario that cannot be observed over MCP (a web or workflow scenario, an
/// editor scenario with an `anchors` step), or the scenario back when it can be played.
pub fn not_observable(
    pending: Pending,
    level: Level,
    known: &HashSet<String>,
) -> Result<ScenarioRecord, Box<Scenario>> {
    match pending {
        Pending::Editor(scenario) => {
            if !scenario
                .steps
                .iter()
                .any(|s| matches!(s, Step::Anchors { .. }))
            {
                return Err(Box::new(scenario));
            }
            let answer = ScenarioAnswer::NotObservable(ANCHORS_NOT_OBSERVABLE.to_owned());
            Ok(ScenarioRecord::new(
                scenario,
                answer,
                Duration::ZERO,
                level,
                known,
            ))
        }
        Pending::Web(scenario) => {
            let answer = WebAnswer {
                reply: WebReceived::NotObservable(WEB_NOT_OBSERVABLE.to_owned()),
                asks: Vec::new(),
                requests: Vec::new(),
            };
            Ok(ScenarioRecord::web(
                scenario,
                answer,
                Duration::ZERO,
                level,
                known,
            ))
        }
        Pending::Workflow(scenario) => {
            let answer = WorkflowAnswer::NotObservable(WORKFLOW_NOT_OBSERVABLE.to_owned());
            Ok(ScenarioRecord::workflow(
                scenario,
                answer,
                Duration::ZERO,
                level,
                known,
            ))
        }
    }
}

/// The scenario as an MCP server answers it: a refused input, which the editors return as the
/// output `Error: INVALID_INPUT: …` (execution.md §0.1), is over MCP an error result whose text
/// is the one-line form `INVALID_INPUT: …` (behaviour.md §1.6), as `conform mcp` answers it.
pub fn refusals_over_mcp(mut scenario: Scenario) -> Scenario {
    let prefix: Vec<u16> = "Error: INVALID_INPUT: ".encode_utf16().collect();
    let error = "Error: ".encode_utf16().count();
    for step in &mut scenario.steps {
        if let Step::Call { expect, .. } = step
            && let Reply::Output(text) = expect
            && text.units().starts_with(&prefix)
        {
            let line = JsString::from_units(text.units().get(error..).unwrap_or_default());
            *expect = Reply::Throws(line);
        }
    }
    scenario
}

/// The scenarios to play, shared by the workers.
struct Work<'a> {
    queue: Mutex<VecDeque<(usize, Pending)>>,
    done: Mutex<BTreeMap<usize, ScenarioRecord>>,
    scratch: &'a Path,
    level: Level,
    known: &'a HashSet<String>,
    /// Whether the server is at a URL (its root not the run's to choose).
    over_http: bool,
}

impl Work<'_> {
    /// One worker, one scenario at a time until the queue is empty.
    fn run(&self, servers: &Servers<'_>) {
        while !servers.stopped() {
            let Some((index, pending)) = self.queue.lock().ok().and_then(|mut q| q.pop_front())
            else {
                break;
            };
            let record = match not_observable(pending, self.level, self.known) {
                Ok(record) => record,
                Err(scenario) if self.over_http => {
                    let answer = ScenarioAnswer::NotObservable(URL_NOT_OBSERVABLE.to_owned());
                    ScenarioRecord::new(*scenario, answer, Duration::ZERO, self.level, self.known)
                }
                Err(scenario) => {
                    let scenario = refusals_over_mcp(*scenario);
                    let began = Instant::now();
                    let mut steps = Steps {
                        servers,
                        server: None,
                        unusable: None,
                        broke: false,
                    };
                    let answer = play(&scenario, self.scratch, &mut steps);
                    let took = began.elapsed();
                    if let Some(reason) = steps.unusable {
                        return servers.give_up(reason);
                    }
                    if steps.broke
                        && let Err(reason) = servers.take_restart()
                    {
                        servers.give_up(reason);
                    }
                    ScenarioRecord::new(scenario, answer, took, self.level, self.known)
                }
            };
            // After an interrupt, a scenario whose server was killed did not fail: it was not run.
            if crate::progress::stopping() {
                break;
            }
            if let Ok(mut done) = self.done.lock() {
                done.insert(index, record);
            }
        }
    }
}

/// One scenario's steps on a server started for its directory.
struct Steps<'s, 'o> {
    servers: &'s Servers<'o>,
    server: Option<Server>,
    /// Why the server could not be started, which makes the run give up.
    unusable: Option<Unusable>,
    /// Whether the server timed out, crashed or broke the protocol (a restart of the budget).
    broke: bool,
}

impl Executor for Steps<'_, '_> {
    fn begin(&mut self, root: &str) -> Result<(), Failure> {
        match self.servers.start(Some(root)) {
            Ok(server) => {
                self.server = Some(server);
                Ok(())
            }
            Err(reason) => {
                let fault = Failure::Crash(format!("the server could not be started: {reason}"));
                self.unusable = Some(reason);
                Err(fault)
            }
        }
    }

    fn exec(&mut self, tool: Tool, input: &Json) -> Result<Reply, Failure> {
        let Some(server) = self.server.as_mut() else {
            return Err(Failure::Error("no server was started".to_owned()));
        };
        let result = server.session.call_tool(tool.id(), input);
        self.broke |= server.session.broken();
        let result = result?;
        match (result.single_text(), result.is_error) {
            (Some(text), false) => Ok(Reply::Output(text.clone())),
            (Some(text), true) => Ok(Reply::Throws(text.clone())),
            (None, _) => Err(Failure::Error(format!(
                "the result is not one text content but {}",
                result.blocks()
            ))),
        }
    }

    fn anchors(&mut self, _path: &JsString) -> Result<Reply, Failure> {
        Err(Failure::Error(ANCHORS_NOT_OBSERVABLE.to_owned()))
    }

    fn end(&mut self) {
        if let Some(server) = self.server.take() {
            self.servers.finish(server);
        }
    }
}
