//! What the five workflow tools do with a valid call, and the host's `task` events that drive them (`execution-workflow.md`).
//!
//! A [`Workflow`] is one instance of upstream's workflow plugin inside one host process: a store
//! per session, hydrated lazily from the session's state file under the data directory, the
//! live bindings of delegated launches, and the host that answers the root-session lookup.
//! Everything that upstream reads from its surroundings is explicit input here: the session, the
//! agent and the workspace of each step ([`StepContext`]), the clock (`now_ms`), and the data
//! directory and plugin workspace ([`WorkflowHost`]). [`Workflow::restart`] is a process restart.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::catalog::Tool;
use crate::js_string::JsString;
use crate::json::Json;

/// The host around the plugin: what stays the same for every step of a scenario.
#[derive(Clone, Debug)]
pub struct WorkflowHost {
    /// The host's data directory (`XDG_DATA_HOME`): state files live under `vvoc/workflow/`.
    pub data_dir: PathBuf,
    /// The plugin's trusted directory.
    pub directory: String,
    /// The plugin's trusted worktree, if the host gave one.
    pub worktree: Option<String>,
    /// The answer to the root-session lookup per session id; a session not listed is a root.
    pub sessions: BTreeMap<String, SessionLookup>,
}

/// What the host answers when the plugin asks for a session (`client.session.get`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionLookup {
    /// A root session: no parent.
    Root,
    /// A child session of the given parent.
    Child(String),
    /// The lookup raises with this message.
    Fails(String),
    /// The lookup answers without data.
    Missing,
}

/// Who makes one step, where, and when.
#[derive(Clone, Debug)]
pub struct StepContext {
    /// The session id (`context.sessionID`).
    pub session: String,
    /// The calling agent, if the host names one.
    pub agent: Option<String>,
    /// The step's directory, if given.
    pub directory: Option<String>,
    /// The step's worktree, if given.
    pub worktree: Option<String>,
    /// The clock for every reading during the step: milliseconds since 1970-01-01T00:00:00Z.
    pub now_ms: i64,
}

/// One plugin instance inside one host process.
#[derive(Debug)]
pub struct Workflow {
    host: WorkflowHost,
}

impl Workflow {
    /// A plugin that has seen nothing yet: every session hydrates from its file when first used.
    pub fn new(host: WorkflowHost) -> Workflow {
        Workflow { host }
    }

    /// The host this plugin runs in.
    pub fn host(&self) -> &WorkflowHost {
        &self.host
    }

    /// Calls `tool` with `input`: the returned text (`JSON.stringify(result, null, 2)`), or the
    /// raised message.
    pub fn call(&mut self, tool: Tool, input: &Json, cx: &StepContext) -> Result<JsString, JsString> {
        let _ = (tool, input, cx);
        Err(JsString::from("the reference does not execute the workflow tools yet"))
    }

    /// The host is about to run its `task` tool with `args` (`tool.execute.before`): `Err` is
    /// the hook refusing the launch with that message.
    pub fn task_launch(&mut self, cx: &StepContext, call_id: &str, args: &Json) -> Result<(), JsString> {
        let _ = (cx, call_id, args);
        Err(JsString::from("the reference does not execute the workflow tools yet"))
    }

    /// The host's `task` tool returned `output` (`tool.execute.after`, `output.output`) with
    /// `metadata`: `Err` is the hook raising that message.
    pub fn task_result(
        &mut self,
        cx: &StepContext,
        call_id: &str,
        args: &Json,
        output: &Json,
        metadata: Option<&Json>,
    ) -> Result<(), JsString> {
        let _ = (cx, call_id, args, output, metadata);
        Err(JsString::from("the reference does not execute the workflow tools yet"))
    }

    /// A host event as the `event` hook receives it.
    pub fn event(&mut self, cx: &StepContext, event: &Json) -> Result<(), JsString> {
        let _ = (cx, event);
        Ok(())
    }

    /// The host process restarts: everything held in memory is forgotten.
    pub fn restart(&mut self) {
        *self = Workflow::new(self.host.clone());
    }
}
