//! Playing one scenario: its scratch directory, its files, its steps one at a time against an
//! executor (the in-process reference, or a peer), and the directory read back afterwards.

use std::panic::AssertUnwindSafe;
use std::path::Path;

use vvoc_reference::exec::{self, Outcome as ExecOutcome};
use vvoc_reference::{JsString, Json, Tool};

use crate::outcome::Failure;
use crate::scenario::model::{Reply, Scenario, Step};
use crate::scenario::paths::{substitute, substitute_json, unsubstitute};
use crate::scenario::scratch::Scratch;
use crate::scenario::tree::{Tree, read_tree, write_entry};

/// What a scenario got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScenarioAnswer {
    /// Every step ran: one reply per step (`None` for `write` steps), then the directory.
    Ran {
        /// The replies, `{root}` put back.
        replies: Vec<Option<Reply>>,
        /// The directory after the last step.
        after: Tree,
    },
    /// Step `step` (0-based) got no tool outcome; the scenario stopped there.
    Stopped {
        /// The replies before it.
        replies: Vec<Option<Reply>>,
        /// The step.
        step: usize,
        /// What went wrong.
        fault: Failure,
    },
    /// The runner could not carry the scenario out (its directory, a `write` step).
    Runner(String),
    /// The implementation does not execute the tool.
    Unsupported,
    /// The scenario cannot be observed over the transport (over MCP: an `anchors` step): why.
    NotObservable(String),
}

/// Something that runs the steps of one scenario, which is one editing session.
pub trait Executor {
    /// The scenario's directory (`root`) is ready, its files written: an executor that must be
    /// told where it works (an MCP server started with `--root`) starts here; a failure stops
    /// the scenario before its first step.
    fn begin(&mut self, _root: &str) -> Result<(), Failure> {
        Ok(())
    }
    /// One call of `tool` with `input` (`{root}` already substituted).
    fn exec(&mut self, tool: Tool, input: &Json) -> Result<Reply, Failure>;
    /// The anchored view of the file at the absolute `path`.
    fn anchors(&mut self, path: &JsString) -> Result<Reply, Failure>;
    /// The scenario is over: its session may be forgotten.
    fn end(&mut self);
}

/// Plays `scenario` in a new scratch directory under `parent`, which is removed afterwards
/// whatever happens.
pub fn play(scenario: &Scenario, parent: &Path, executor: &mut dyn Executor) -> ScenarioAnswer {
    let scratch = match Scratch::create(parent) {
        Ok(scratch) => scratch,
        Err(e) => return ScenarioAnswer::Runner(format!("cannot create a scratch directory: {e}")),
    };
    let root = scratch.root();
    for (key, entry) in &scenario.files {
        if let Err(e) = write_entry(scratch.path(), key, Some(entry), false) {
            return ScenarioAnswer::Runner(format!("cannot write files[{key:?}]: {e}"));
        }
    }
    if let Err(fault) = executor.begin(root) {
        executor.end();
        return ScenarioAnswer::Stopped {
            replies: Vec::new(),
            step: 0,
            fault: unsubstitute_fault(fault, root),
        };
    }
    let mut replies = Vec::with_capacity(scenario.steps.len());
    for (index, step) in scenario.steps.iter().enumerate() {
        let reply = match step {
            Step::Call { input, .. } => executor.exec(scenario.tool, &substitute_json(input, root)),
            Step::Anchors { path, .. } => executor.anchors(&substitute(path, root)),
            Step::Write(writes) => {
                for (key, entry) in writes {
                    if let Err(e) = write_entry(scratch.path(), key, entry.as_ref(), true) {
                        executor.end();
                        return ScenarioAnswer::Runner(format!(
                            "step {} (steps[{index}], write): cannot write {key:?}: {e}",
                            index + 1
                        ));
                    }
                }
                replies.push(None);
                continue;
            }
        };
        match reply {
            Ok(Reply::Output(text)) => replies.push(Some(Reply::Output(unsubstitute(&text, root)))),
            Ok(Reply::Throws(text)) => replies.push(Some(Reply::Throws(unsubstitute(&text, root)))),
            Err(fault) => {
                executor.end();
                return ScenarioAnswer::Stopped {
                    replies,
                    step: index,
                    fault: unsubstitute_fault(fault, root),
                };
            }
        }
    }
    executor.end();
    match read_tree(scratch.path()) {
        Ok(after) => ScenarioAnswer::Ran { replies, after },
        Err(e) => ScenarioAnswer::Runner(format!(
            "cannot read the directory after the last step: {e}"
        )),
    }
}

fn unsubstitute_fault(fault: Failure, root: &str) -> Failure {
    let clean = |text: String| text.replace(root, crate::scenario::paths::ROOT);
    match fault {
        Failure::Error(text) => Failure::Error(clean(text)),
        Failure::Timeout => Failure::Timeout,
        Failure::Crash(text) => Failure::Crash(clean(text)),
        Failure::ProtocolError(text) => Failure::ProtocolError(clean(text)),
    }
}

/// The reference implementation, in this process: one editing session.
#[derive(Debug, Default)]
pub(crate) struct InProcess {
    session: exec::Session,
}

impl InProcess {
    /// A new session.
    pub fn new() -> InProcess {
        InProcess::default()
    }
}

impl Executor for InProcess {
    fn exec(&mut self, tool: Tool, input: &Json) -> Result<Reply, Failure> {
        let session = &mut self.session;
        // A panicking reference (a bug, or a mutant) fails its scenario, not the whole run.
        match std::panic::catch_unwind(AssertUnwindSafe(|| exec::execute(tool, input, session))) {
            Ok(Ok(ExecOutcome::Output(text))) => Ok(Reply::Output(text)),
            Ok(Ok(ExecOutcome::Throws(text))) => Ok(Reply::Throws(text)),
            Ok(Err(not_executed)) => Err(Failure::Error(not_executed.to_string())),
            Err(panic) => Err(Failure::Crash(format!(
                "the reference panicked: {}",
                crate::panic::panic_message(&*panic)
            ))),
        }
    }

    fn anchors(&mut self, path: &JsString) -> Result<Reply, Failure> {
        let Some(path) = path.to_str() else {
            return Err(Failure::Error("the path holds a lone surrogate".to_owned()));
        };
        match std::panic::catch_unwind(|| exec::anchors(Path::new(&path))) {
            Ok(Ok(view)) => Ok(Reply::Output(view)),
            Ok(Err(error)) => Err(Failure::Error(error.to_string())),
            Err(panic) => Err(Failure::Crash(format!(
                "the reference panicked: {}",
                crate::panic::panic_message(&*panic)
            ))),
        }
    }

    fn end(&mut self) {}
}

/// Plays `scenario` against the in-process reference.
pub fn play_reference(scenario: &Scenario, parent: &Path) -> ScenarioAnswer {
    if !exec::executes(scenario.tool) {
        return ScenarioAnswer::Unsupported;
    }
    play(scenario, parent, &mut InProcess::new())
}
