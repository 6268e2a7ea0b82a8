//! Who may call the workflow tools (upstream's `authorization.ts`): the agent gate and the control gate of the two control tools.

use super::{SessionLookup, StepContext, WorkflowHost};
use crate::catalog::Tool;
use crate::js_string::JsString;

/// `WORKFLOW_CONTROLLER_AGENT`.
const CONTROLLER: &str = "vv-controller";
/// `MAX_FAILURE_MESSAGE_CHARS`: a thrown diagnostic's message is cut to this length.
const MAX_MESSAGE_CHARS: usize = 1800;

/// `assertWorkflowToolAccess`: `work_item_open`, `_list` and `_close` are the controller's.
pub(crate) fn tool_access(agent: Option<&str>, tool: Tool) -> Result<(), JsString> {
    if agent == Some(CONTROLLER) {
        return Ok(());
    }
    Err(bounded(format!(
        "WORKFLOW_TOOL_DENIED: {} is only available to {CONTROLLER} sessions. Current agent: {}.",
        tool.id(),
        shown_agent(agent)
    )))
}

/// `assertPrimaryControllerMutation`, its checks in upstream's order: the agent, the worktree,
/// the directory, an invalid state file, the root-session lookup, a parent.
pub(crate) fn control(
    host: &WorkflowHost,
    tool: Tool,
    cx: &StepContext,
    invalid_state: bool,
) -> Result<(), JsString> {
    let tool = tool.id();
    if cx.agent.as_deref() != Some(CONTROLLER) {
        return Err(bounded(format!(
            "CONTROL_DENIED: {tool} is only available to {CONTROLLER} sessions. Current agent: {}.",
            shown_agent(cx.agent.as_deref())
        )));
    }
    let trusted_root = match host.worktree.as_deref() {
        Some(w) if !w.is_empty() => w,
        _ => host.directory.as_str(),
    };
    if let Some(worktree) = cx.worktree.as_deref()
        && Some(worktree) != host.worktree.as_deref()
        && worktree != trusted_root
    {
        return Err(bounded(format!(
            "CONTROL_DENIED: {tool} workspace {worktree} does not match the trusted plugin workspace."
        )));
    }
    if cx.worktree.is_none()
        && let Some(directory) = cx.directory.as_deref()
        && directory != host.directory
    {
        return Err(bounded(format!(
            "CONTROL_DENIED: {tool} directory {directory} does not match the trusted plugin directory."
        )));
    }
    let session = cx.session.as_str();
    if invalid_state {
        return Err(bounded(format!(
            "PERSISTENCE_FAILED: persisted workflow state for session {session} is invalid; resolve or remove it before new control mutations."
        )));
    }
    let unavailable = |why: &str| {
        bounded(format!(
            "HOST_CONTEXT_UNAVAILABLE: {tool} requires root-session identity for {session}, which could not be verified: {why}"
        ))
    };
    match host.sessions.get(session) {
        None | Some(SessionLookup::Root) => Ok(()),
        Some(SessionLookup::Fails(why)) => Err(unavailable(why)),
        Some(SessionLookup::Missing) => Err(unavailable("missing session payload")),
        Some(SessionLookup::Child(parent)) if parent.is_empty() => Ok(()),
        Some(SessionLookup::Child(parent)) => Err(bounded(format!(
            "CONTROL_DENIED: {tool} may only run in the root session; session {session} is a child of {parent}."
        ))),
    }
}

/// `agent?.trim() || "unknown-agent"`.
fn shown_agent(agent: Option<&str>) -> JsString {
    let trimmed = agent
        .map(|a| crate::text::trim(&a.encode_utf16().collect::<Vec<_>>()).to_vec())
        .unwrap_or_default();
    if trimmed.is_empty() {
        JsString::from("unknown-agent")
    } else {
        JsString::from_units(trimmed)
    }
}

/// `WorkflowDiagnosticError`'s message bound: cut to 1,800 units with an ellipsis last.
fn bounded(message: String) -> JsString {
    let text = JsString::from(message);
    if text.len() <= MAX_MESSAGE_CHARS {
        return text;
    }
    let mut units = text.units()[..MAX_MESSAGE_CHARS - 1].to_vec();
    units.push(0x2026);
    JsString::from_units(units)
}

impl std::fmt::Display for SessionLookup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionLookup::Root => f.write_str("root"),
            SessionLookup::Child(parent) => write!(f, "child of {parent}"),
            SessionLookup::Fails(why) => write!(f, "lookup fails: {why}"),
            SessionLookup::Missing => f.write_str("lookup without data"),
        }
    }
}
