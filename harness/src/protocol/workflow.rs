//! The runner's workflow messages (protocol.md, "Workflow scenarios"): `task` (a launch or a
//! result of the host's `task` tool), `event` and `restart`, each in a scenario's session with
//! the `workflow` member (host, context, clock) where the step has one; a workflow call is an
//! `exec` with that member. Written by the runner, read by peers.

use std::borrow::Cow;

use vvoc_reference::{Json, Object};

use crate::protocol::wire::Seq;
use crate::workflow::model::Action;

/// A workflow message that is not an `exec`.
#[derive(Clone, Debug, PartialEq)]
pub enum WorkflowMessage<'a> {
    /// The host's `task` tool is about to run, or returned.
    Task {
        /// The runner's number for this step; the answer echoes it.
        seq: Seq,
        /// The scenario's session.
        session: Cow<'a, str>,
        /// A launch or a result.
        phase: TaskPhase,
        /// The host's call id.
        call_id: Cow<'a, str>,
        /// The `task` tool's arguments.
        args: Cow<'a, Json>,
        /// A result's `output.output`.
        output: Option<Cow<'a, Json>>,
        /// A result's `output.metadata`, if any.
        metadata: Option<Cow<'a, Json>>,
        /// The host, the context and the clock.
        workflow: Cow<'a, Json>,
    },
    /// A host event, as the `event` hook receives it.
    Event {
        /// The runner's number for this step; the answer echoes it.
        seq: Seq,
        /// The scenario's session.
        session: Cow<'a, str>,
        /// The event.
        event: Cow<'a, Json>,
        /// The host, the context and the clock.
        workflow: Cow<'a, Json>,
    },
    /// The host process restarts: the plugin forgets what it holds in memory.
    Restart {
        /// The runner's number for this step; the answer echoes it.
        seq: Seq,
        /// The scenario's session.
        session: Cow<'a, str>,
    },
}

/// The two moments of a `task` message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskPhase {
    /// `tool.execute.before`.
    Launch,
    /// `tool.execute.after`.
    Result,
}

impl TaskPhase {
    /// `launch` or `result`.
    pub const fn as_str(self) -> &'static str {
        match self {
            TaskPhase::Launch => "launch",
            TaskPhase::Result => "result",
        }
    }
}

/// The message types of [`WorkflowMessage`].
pub const TYPES: [&str; 3] = ["task", "event", "restart"];

impl<'a> WorkflowMessage<'a> {
    /// The message of a workflow step that is not a call (`None` for a call, which is an
    /// `exec`), with `workflow`, the host, the step's context and the clock.
    pub fn of_step(
        seq: Seq,
        session: Cow<'a, str>,
        action: &'a Action,
        workflow: &'a Json,
    ) -> Option<WorkflowMessage<'a>> {
        let workflow = Cow::Borrowed(workflow);
        Some(match action {
            Action::Call { .. } => return None,
            Action::Launch { call_id, args } => WorkflowMessage::Task {
                seq,
                session,
                phase: TaskPhase::Launch,
                call_id: Cow::Borrowed(call_id),
                args: Cow::Borrowed(args),
                output: None,
                metadata: None,
                workflow,
            },
            Action::Result {
                call_id,
                args,
                output,
                metadata,
            } => WorkflowMessage::Task {
                seq,
                session,
                phase: TaskPhase::Result,
                call_id: Cow::Borrowed(call_id),
                args: Cow::Borrowed(args),
                output: Some(Cow::Borrowed(output)),
                metadata: metadata.as_ref().map(Cow::Borrowed),
                workflow,
            },
            Action::Event(event) => WorkflowMessage::Event {
                seq,
                session,
                event: Cow::Borrowed(event),
                workflow,
            },
            Action::Restart => WorkflowMessage::Restart { seq, session },
        })
    }

    /// The message's `type`.
    pub const fn kind(&self) -> &'static str {
        match self {
            WorkflowMessage::Task { .. } => "task",
            WorkflowMessage::Event { .. } => "event",
            WorkflowMessage::Restart { .. } => "restart",
        }
    }

    /// The step this message asks for, as the reference's plugin takes it.
    pub fn action(&self) -> Action {
        match self {
            WorkflowMessage::Task {
                phase: TaskPhase::Launch,
                call_id,
                args,
                ..
            } => Action::Launch {
                call_id: call_id.to_string(),
                args: args.as_ref().clone(),
            },
            WorkflowMessage::Task {
                phase: TaskPhase::Result,
                call_id,
                args,
                output,
                metadata,
                ..
            } => Action::Result {
                call_id: call_id.to_string(),
                args: args.as_ref().clone(),
                output: output.as_deref().cloned().unwrap_or(Json::Null),
                metadata: metadata.as_deref().cloned(),
            },
            WorkflowMessage::Event { event, .. } => Action::Event(event.as_ref().clone()),
            WorkflowMessage::Restart { .. } => Action::Restart,
        }
    }

    /// Its `seq`.
    pub fn seq(&self) -> &Seq {
        match self {
            WorkflowMessage::Task { seq, .. }
            | WorkflowMessage::Event { seq, .. }
            | WorkflowMessage::Restart { seq, .. } => seq,
        }
    }

    /// Its scenario's session.
    pub fn session(&self) -> &str {
        match self {
            WorkflowMessage::Task { session, .. }
            | WorkflowMessage::Event { session, .. }
            | WorkflowMessage::Restart { session, .. } => session,
        }
    }

    /// Its `workflow` member (a restart has none).
    pub fn workflow(&self) -> Option<&Json> {
        match self {
            WorkflowMessage::Task { workflow, .. } | WorkflowMessage::Event { workflow, .. } => {
                Some(workflow)
            }
            WorkflowMessage::Restart { .. } => None,
        }
    }

    /// Writes the members after `type` into `o`.
    pub(crate) fn write(&self, o: &mut Object) {
        o.insert("seq", self.seq().0.clone());
        o.insert("session", Json::str(self.session()));
        match self {
            WorkflowMessage::Task {
                phase,
                call_id,
                args,
                output,
                metadata,
                workflow,
                ..
            } => {
                o.insert("phase", Json::str(phase.as_str()));
                o.insert("callId", Json::str(call_id));
                o.insert("args", args.as_ref().clone());
                if let Some(output) = output {
                    o.insert("output", output.as_ref().clone());
                }
                if let Some(metadata) = metadata {
                    o.insert("metadata", metadata.as_ref().clone());
                }
                o.insert("workflow", workflow.as_ref().clone());
            }
            WorkflowMessage::Event {
                event, workflow, ..
            } => {
                o.insert("event", event.as_ref().clone());
                o.insert("workflow", workflow.as_ref().clone());
            }
            WorkflowMessage::Restart { .. } => {}
        }
    }

    /// Reads a message of type `kind` (one of [`TYPES`]) from its members, as a peer: the
    /// reason when it cannot be carried out.
    pub(crate) fn read(
        kind: &str,
        message: &Object,
        workflow: Option<Json>,
        seq: Seq,
        session: Cow<'static, str>,
    ) -> Result<WorkflowMessage<'static>, String> {
        let take = |name: &str| message.get(name).cloned().map(Cow::Owned);
        let workflow = workflow.map(Cow::Owned);
        match kind {
            "restart" => Ok(WorkflowMessage::Restart { seq, session }),
            "event" => Ok(WorkflowMessage::Event {
                event: take("event").ok_or("the event message has no event")?,
                workflow: workflow.ok_or("the event message has no workflow")?,
                seq,
                session,
            }),
            _ => {
                let phase = match take("phase").as_deref().and_then(Json::as_string) {
                    Some(p) if p.eq_str("launch") => TaskPhase::Launch,
                    Some(p) if p.eq_str("result") => TaskPhase::Result,
                    _ => return Err("the task's phase must be \"launch\" or \"result\"".to_owned()),
                };
                let call_id = match take("callId").as_deref() {
                    Some(Json::String(id)) => Cow::Owned(id.to_string_lossy()),
                    _ => return Err("the task has no string callId".to_owned()),
                };
                let output = take("output");
                if phase == TaskPhase::Result && output.is_none() {
                    return Err("a task result has an output".to_owned());
                }
                Ok(WorkflowMessage::Task {
                    phase,
                    call_id,
                    args: take("args").ok_or("the task has no args")?,
                    output,
                    metadata: take("metadata"),
                    workflow: workflow.ok_or("the task has no workflow")?,
                    seq,
                    session,
                })
            }
        }
    }
}
