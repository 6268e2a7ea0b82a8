//! The branch rules of `work_checkpoint` (§4.5).

use super::items::{ItemMode, check_item};
use super::{Input, matrix, require, require_list};
use crate::catalog::Tool;
use crate::collector::Collector;
use crate::issue::Code;
use crate::js_string::JsString;
use crate::path::Path;

/// The checkpoint and authority actions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    Register,
    Start,
    Verify,
    Recover,
    Review,
    Bind,
    Complete,
    Amend,
    Authorize,
    RecordApproval,
    RevokeAuthority,
}

impl Action {
    pub(crate) const ALL: [Action; 11] = [
        Action::Register,
        Action::Start,
        Action::Verify,
        Action::Recover,
        Action::Review,
        Action::Bind,
        Action::Complete,
        Action::Amend,
        Action::Authorize,
        Action::RecordApproval,
        Action::RevokeAuthority,
    ];

    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Action::Register => "register",
            Action::Start => "start",
            Action::Verify => "verify",
            Action::Recover => "recover",
            Action::Review => "review",
            Action::Bind => "bind",
            Action::Complete => "complete",
            Action::Amend => "amend",
            Action::Authorize => "authorize",
            Action::RecordApproval => "record_approval",
            Action::RevokeAuthority => "revoke_authority",
        }
    }

    fn parse(value: &JsString) -> Option<Action> {
        Action::ALL.into_iter().find(|a| value.eq_str(a.as_str()))
    }
}

pub(crate) fn run(input: &Input<'_>, out: &mut Collector) {
    let input = *input;
    matrix(Tool::WorkCheckpoint, input, out);
    let Some(action) = input.string("action").and_then(Action::parse) else { return };
    if matches!(action, Action::Register | Action::Amend) && input.has("runId") {
        let tasks = Path::ROOT.field("tasks");
        for (i, task) in input.objects("tasks") {
            check_item(task, &tasks.index(i), ItemMode::Generic, out);
        }
    }
    route(action, input, out);
    per_action(action, input, out);
}

/// Rule 3: which registration route, or the target `runId` every other action needs.
fn route(action: Action, input: Input<'_>, out: &mut Collector) {
    let run_id = Path::ROOT.field("runId");
    if action != Action::Register {
        if !input.has("runId") {
            out.branch(
                "action-requires-runid",
                Code::MissingValue,
                &run_id,
                format!("action {} requires the target runId", action.as_str()),
                "the target execution runId",
            );
        }
        return;
    }
    if input.has("planPath") {
        if input.has("runId") {
            out.branch(
                "register-one-route",
                Code::InvalidValue,
                &run_id,
                "register accepts either planPath (native package) or runId (generic amend context), not both",
                "exactly one registration route",
            );
        }
        for field in ["amendmentId", "rationale", "tasks", "checkpoints"] {
            if input.has(field) {
                out.branch(
                    "native-register-forbids-generic-fields",
                    Code::InvalidValue,
                    &Path::ROOT.field(field),
                    format!(
                        "{field} is generic register/amend context and conflicts with native planPath registration"
                    ),
                    "no generic registration fields with planPath",
                );
            }
        }
    } else {
        if !input.has("runId") {
            out.branch(
                "generic-register-requires-runid",
                Code::MissingValue,
                &run_id,
                "generic register requires the target runId of an existing execution",
                "the existing execution runId",
            );
        }
        require("generic-register-requires-amendment-id", input, "amendmentId", out);
        require("generic-register-requires-rationale", input, "rationale", out);
    }
}

/// Rule 4: what each action requires.
fn per_action(action: Action, input: Input<'_>, out: &mut Collector) {
    match action {
        Action::Start | Action::Verify | Action::Review | Action::Bind => {
            require(&format!("{}-requires-checkpoint-id", action.as_str()), input, "checkpointId", out);
        }
        Action::Recover => {
            require("recover-requires-runid", input, "runId", out);
            require("recover-requires-checkpoint-id", input, "checkpointId", out);
            require("recover-requires-recovery-id", input, "recoveryId", out);
            require("recover-requires-diagnosis", input, "diagnosis", out);
            require("recover-requires-changed-condition", input, "changedCondition", out);
            require_list("recover-requires-verification", input, "verification", out);
        }
        Action::Amend => {
            require("amend-requires-runid", input, "runId", out);
            require("amend-requires-amendment-id", input, "amendmentId", out);
            require("amend-requires-rationale", input, "rationale", out);
        }
        Action::Complete | Action::Register => {}
        Action::Authorize => {
            require("authorize-requires-authority-id", input, "authorityId", out);
            require("authorize-requires-message-id", input, "messageId", out);
            if input.absent_or_empty("stages") {
                out.branch(
                    "authorize-requires-stages",
                    Code::MissingValue,
                    &Path::ROOT.field("stages"),
                    "authorize requires explicit delegatable stages",
                    "at least one canonical authority stage",
                );
            }
        }
        Action::RecordApproval => {
            require("record-approval-requires-authority-id", input, "authorityId", out);
            require("record-approval-requires-approval-id", input, "approvalId", out);
            if !input.has("stage") {
                out.branch(
                    "record-approval-requires-stage",
                    Code::MissingValue,
                    &Path::ROOT.field("stage"),
                    "record_approval requires an authority stage",
                    "a canonical authority stage",
                );
            }
            require("record-approval-requires-artifact-path", input, "artifactPath", out);
            require("record-approval-requires-artifact-sha256", input, "artifactSha256", out);
        }
        Action::RevokeAuthority => {
            require("revoke-authority-requires-authority-id", input, "authorityId", out);
            require("revoke-authority-requires-revocation-id", input, "revocationId", out);
        }
    }
}
