//! Playing a workflow scenario: a scratch data directory with its files, the host built on it,
//! each step's context (the host's, the step's overrides, the clock carried forward) and the
//! step itself handed to an executor (the in-process reference, or a peer), the directory read
//! back afterwards.

use std::panic::AssertUnwindSafe;
use std::path::Path;

use vvoc_reference::JsString;
use vvoc_reference::exec::workflow::{StepContext, Workflow, WorkflowHost};

use crate::outcome::Failure;
use crate::scenario::paths::{ROOT, unsubstitute};
use crate::scenario::scratch::Scratch;
use crate::scenario::tree::{Tree, read_tree, write_entry};
use crate::workflow::model::{Action, WorkflowScenario};

/// What one step gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Received {
    /// A call returned this text.
    Returned(JsString),
    /// The call or hook raised this message.
    Throws(JsString),
    /// A hook, event or restart went through.
    Done,
}

impl Received {
    /// `result`, `throws` or `ok`.
    pub fn kind(&self) -> &'static str {
        match self {
            Received::Returned(_) => "result",
            Received::Throws(_) => "throws",
            Received::Done => "ok",
        }
    }
}

/// What a workflow scenario got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WorkflowAnswer {
    /// Every step ran: one reply each, then the data directory.
    Ran {
        /// The replies, `{root}` put back for the data directory.
        replies: Vec<Received>,
        /// The data directory after the last step.
        after: Tree,
    },
    /// Step `step` (0-based) got no outcome; the scenario stopped there.
    Stopped {
        /// The replies before it.
        replies: Vec<Received>,
        /// The step.
        step: usize,
        /// What went wrong.
        fault: Failure,
    },
    /// The runner could not carry the scenario out (its data directory).
    Runner(String),
    /// The implementation does not execute the tool.
    Unsupported,
    /// The scenario cannot be observed over the transport (over MCP), and why.
    NotObservable(String),
}

/// Something that plays the steps of one workflow scenario: one plugin instance in one host.
pub trait WorkflowExecutor {
    /// The data directory is ready, its files written: a plugin that has seen nothing yet
    /// starts in `host`.
    fn begin(&mut self, host: &WorkflowHost) -> Result<(), Failure>;
    /// One step, in the context `cx`: its outcome, or why there was none.
    fn step(&mut self, action: &Action, cx: &StepContext) -> Result<Received, Failure>;
    /// The scenario is over.
    fn end(&mut self);
}

/// Plays `scenario` in a new scratch data directory under `parent`, removed afterwards whatever
/// happens.
pub fn play(
    scenario: &WorkflowScenario,
    parent: &Path,
    executor: &mut dyn WorkflowExecutor,
) -> WorkflowAnswer {
    let scratch = match Scratch::create(parent) {
        Ok(scratch) => scratch,
        Err(e) => {
            return WorkflowAnswer::Runner(format!("cannot create a scratch directory: {e}"));
        }
    };
    let root = scratch.root();
    for (key, entry) in &scenario.files {
        if let Err(e) = write_entry(scratch.path(), key, Some(entry), false) {
            return WorkflowAnswer::Runner(format!("cannot write files[{key:?}]: {e}"));
        }
    }
    let host = scenario.host.workflow_host(scratch.path().to_owned());
    let clean = |fault: Failure| unsubstitute_fault(fault, root);
    if let Err(fault) = executor.begin(&host) {
        executor.end();
        return WorkflowAnswer::Stopped {
            replies: Vec::new(),
            step: 0,
            fault: clean(fault),
        };
    }
    let mut now = scenario.host.now;
    let mut replies = Vec::with_capacity(scenario.steps.len());
    for (index, step) in scenario.steps.iter().enumerate() {
        now = step.now.unwrap_or(now);
        let cx = scenario.host.context(step, now);
        match executor.step(&step.action, &cx) {
            Ok(Received::Returned(text)) => {
                replies.push(Received::Returned(unsubstitute(&text, root)));
            }
            Ok(Received::Throws(text)) => replies.push(Received::Throws(unsubstitute(&text, root))),
            Ok(Received::Done) => replies.push(Received::Done),
            Err(fault) => {
                executor.end();
                return WorkflowAnswer::Stopped {
                    replies,
                    step: index,
                    fault: clean(fault),
                };
            }
        }
    }
    executor.end();
    match read_tree(scratch.path()) {
        Ok(after) => WorkflowAnswer::Ran { replies, after },
        Err(e) => WorkflowAnswer::Runner(format!(
            "cannot read the data directory after the last step: {e}"
        )),
    }
}

fn unsubstitute_fault(fault: Failure, root: &str) -> Failure {
    let clean = |text: String| text.replace(root, ROOT);
    match fault {
        Failure::Error(text) => Failure::Error(clean(text)),
        Failure::Timeout => Failure::Timeout,
        Failure::Crash(text) => Failure::Crash(clean(text)),
        Failure::ProtocolError(text) => Failure::ProtocolError(clean(text)),
    }
}

/// The reference, in this process: one [`Workflow`] per scenario.
#[derive(Debug, Default)]
pub struct Reference {
    workflow: Option<Workflow>,
}

impl Reference {
    /// A reference that has played nothing yet.
    pub fn new() -> Reference {
        Reference::default()
    }
}

impl WorkflowExecutor for Reference {
    fn begin(&mut self, host: &WorkflowHost) -> Result<(), Failure> {
        self.workflow = Some(Workflow::new(host.clone()));
        Ok(())
    }

    fn step(&mut self, action: &Action, cx: &StepContext) -> Result<Received, Failure> {
        let Some(workflow) = self.workflow.as_mut() else {
            return Err(Failure::Error(
                "no plugin instance: begin was not called".to_owned(),
            ));
        };
        // A panicking reference (a bug, or a mutant) fails its scenario, not the whole run.
        std::panic::catch_unwind(AssertUnwindSafe(|| reference_step(workflow, action, cx))).map_err(
            |panic| {
                Failure::Crash(format!(
                    "the reference panicked: {}",
                    crate::panic::panic_message(&*panic)
                ))
            },
        )
    }

    fn end(&mut self) {
        self.workflow = None;
    }
}

/// One step of the reference's plugin, as `conform peer` takes it too.
pub fn reference_step(workflow: &mut Workflow, action: &Action, cx: &StepContext) -> Received {
    let hook = |outcome: Result<(), JsString>| match outcome {
        Ok(()) => Received::Done,
        Err(text) => Received::Throws(text),
    };
    match action {
        Action::Call { tool, input } => match workflow.call(*tool, input, cx) {
            Ok(text) => Received::Returned(text),
            Err(text) => Received::Throws(text),
        },
        Action::Launch { call_id, args } => hook(workflow.task_launch(cx, call_id, args)),
        Action::Result {
            call_id,
            args,
            output,
            metadata,
        } => hook(workflow.task_result(cx, call_id, args, output, metadata.as_ref())),
        Action::Event(event) => hook(workflow.event(cx, event)),
        Action::Restart => {
            workflow.restart();
            Received::Done
        }
    }
}

/// Plays `scenario` with the in-process reference.
pub fn play_reference(scenario: &WorkflowScenario, parent: &Path) -> WorkflowAnswer {
    play(scenario, parent, &mut Reference::new())
}
