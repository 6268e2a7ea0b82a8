//! `conform peer`'s workflow sessions: one plugin instance (the reference's `Workflow`) per
//! protocol session, made from the host of the session's first message, answering its calls (an
//! `exec` with a `workflow` member), `task`s, events and restarts, and forgotten at `end`.

use std::collections::HashMap;

use vvoc_reference::exec::workflow::Workflow;
use vvoc_reference::{Json, Tool};

use crate::protocol::result::{PeerResult, StepAnswer};
use crate::protocol::wire::Seq;
use crate::protocol::workflow::WorkflowMessage;
use crate::scenario::model::Reply;
use crate::workflow::model::Action;
use crate::workflow::play::{Received, reference_step};
use crate::workflow::wire::read_workflow;

/// The plugin instance of each protocol session that has had a workflow message.
#[derive(Debug, Default)]
pub(crate) struct WorkflowSessions {
    plugins: HashMap<String, Workflow>,
}

impl WorkflowSessions {
    /// A call of `tool` in `session`, with the message's `workflow` member.
    pub fn call(
        &mut self,
        seq: Seq,
        session: &str,
        tool: Tool,
        input: &Json,
        workflow: &Json,
    ) -> PeerResult<StepAnswer> {
        let answer = match crate::workflow::is_workflow(tool) {
            true => {
                let action = Action::Call {
                    tool,
                    input: input.clone(),
                };
                self.run(session, &action, Some(workflow))
            }
            false => StepAnswer::Error(format!(
                "a workflow member goes only with the five workflow tools, not {}",
                tool.id()
            )),
        };
        PeerResult { seq, answer }
    }

    /// A `task`, `event` or `restart` message.
    pub fn step(&mut self, message: &WorkflowMessage<'_>) -> PeerResult<StepAnswer> {
        let answer = self.run(message.session(), &message.action(), message.workflow());
        PeerResult {
            seq: message.seq().clone(),
            answer,
        }
    }

    /// The session is over: its plugin instance is forgotten.
    pub fn end(&mut self, session: &str) {
        self.plugins.remove(session);
    }

    /// One step in `session`'s plugin, made from the host of `workflow` if the session has
    /// none yet; a restart of a session with no plugin has nothing to forget.
    fn run(&mut self, session: &str, action: &Action, workflow: Option<&Json>) -> StepAnswer {
        let Some(workflow) = workflow else {
            return match (action, self.plugins.get_mut(session)) {
                (Action::Restart, Some(plugin)) => {
                    plugin.restart();
                    StepAnswer::Done
                }
                (Action::Restart, None) => StepAnswer::Done,
                (
                    Action::Call { .. } | Action::Launch { .. } | Action::Result { .. },
                    Some(_) | None,
                )
                | (Action::Event(_), Some(_) | None) => {
                    StepAnswer::Error("the message has no workflow member".to_owned())
                }
            };
        };
        let (host, cx) = match read_workflow(workflow) {
            Ok(read) => read,
            Err(reason) => return StepAnswer::Error(reason),
        };
        let plugin = self
            .plugins
            .entry(session.to_owned())
            .or_insert_with(|| Workflow::new(host));
        match reference_step(plugin, action, &cx) {
            Received::Returned(text) => StepAnswer::Reply(Reply::Output(text)),
            Received::Throws(text) => StepAnswer::Reply(Reply::Throws(text)),
            Received::Done => StepAnswer::Done,
        }
    }
}
