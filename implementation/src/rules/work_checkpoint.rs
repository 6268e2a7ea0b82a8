//! The branch rules of `work_checkpoint` (§4.5).

use super::items::{ItemMode, check_item, generic_names};
use super::{Input, matrix, per_field, require, require_list};
use crate::catalog::Tool;
use crate::collector::Collector;
use crate::issue::Code;
use crate::path::Path;

rule_names! {
    ACTION_REQUIRES_RUNID = "action-requires-runid";
    REGISTER_ONE_ROUTE = "register-one-route";
    GENERIC_REGISTER_REQUIRES_RUNID = "generic-register-requires-runid";
    AUTHORIZE_REQUIRES_STAGES = "authorize-requires-stages";
    RECORD_APPROVAL_REQUIRES_STAGE = "record-approval-requires-stage";
    GENERIC_REGISTER_REQUIRES_AMENDMENT_ID = "generic-register-requires-amendment-id";
    GENERIC_REGISTER_REQUIRES_RATIONALE = "generic-register-requires-rationale";
    RECOVER_REQUIRES_RUNID = "recover-requires-runid";
    RECOVER_REQUIRES_CHECKPOINT_ID = "recover-requires-checkpoint-id";
    RECOVER_REQUIRES_RECOVERY_ID = "recover-requires-recovery-id";
    RECOVER_REQUIRES_DIAGNOSIS = "recover-requires-diagnosis";
    RECOVER_REQUIRES_CHANGED_CONDITION = "recover-requires-changed-condition";
    RECOVER_REQUIRES_VERIFICATION = "recover-requires-verification";
    AMEND_REQUIRES_RUNID = "amend-requires-runid";
    AMEND_REQUIRES_AMENDMENT_ID = "amend-requires-amendment-id";
    AMEND_REQUIRES_RATIONALE = "amend-requires-rationale";
    AUTHORIZE_REQUIRES_AUTHORITY_ID = "authorize-requires-authority-id";
    AUTHORIZE_REQUIRES_MESSAGE_ID = "authorize-requires-message-id";
    RECORD_APPROVAL_REQUIRES_AUTHORITY_ID = "record-approval-requires-authority-id";
    RECORD_APPROVAL_REQUIRES_APPROVAL_ID = "record-approval-requires-approval-id";
    RECORD_APPROVAL_REQUIRES_ARTIFACT_PATH = "record-approval-requires-artifact-path";
    RECORD_APPROVAL_REQUIRES_ARTIFACT_SHA256 = "record-approval-requires-artifact-sha256";
    REVOKE_AUTHORITY_REQUIRES_AUTHORITY_ID = "revoke-authority-requires-authority-id";
    REVOKE_AUTHORITY_REQUIRES_REVOCATION_ID = "revoke-authority-requires-revocation-id";
    START_REQUIRES_CHECKPOINT_ID = "start-requires-checkpoint-id";
    VERIFY_REQUIRES_CHECKPOINT_ID = "verify-requires-checkpoint-id";
    REVIEW_REQUIRES_CHECKPOINT_ID = "review-requires-checkpoint-id";
    BIND_REQUIRES_CHECKPOINT_ID = "bind-requires-checkpoint-id";
}

/// The generic registration context a native `planPath` registration may not carry, in order.
const GENERIC_REGISTRATION_FIELDS: [&str; 4] = ["amendmentId", "rationale", "tasks", "checkpoints"];

const NATIVE_REGISTER_FORBIDS: &str = "native-register-forbids";

pub(crate) fn names() -> Vec<String> {
    let mut names: Vec<String> = NAMES.iter().map(|n| (*n).to_owned()).collect();
    names.extend(
        GENERIC_REGISTRATION_FIELDS
            .iter()
            .map(|f| per_field(NATIVE_REGISTER_FORBIDS, f)),
    );
    names.extend(generic_names());
    names
}

selector! {
    /// The checkpoint and authority actions.
    Action {
        Register = "register",
        Start = "start",
        Verify = "verify",
        Recover = "recover",
        Review = "review",
        Bind = "bind",
        Complete = "complete",
        Amend = "amend",
        Authorize = "authorize",
        RecordApproval = "record_approval",
        RevokeAuthority = "revoke_authority",
    }
}

pub(crate) fn run(input: &Input<'_>, out: &mut Collector) {
    let input = *input;
    matrix(Tool::WorkCheckpoint, input, out);
    let Some(action) = input.string("action").and_then(Action::parse) else {
        return;
    };
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
                ACTION_REQUIRES_RUNID,
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
                REGISTER_ONE_ROUTE,
                Code::InvalidValue,
                &run_id,
                "register accepts either planPath (native package) or runId (generic amend context), not both",
                "exactly one registration route",
            );
        }
        for field in GENERIC_REGISTRATION_FIELDS {
            if input.has(field) {
                out.branch(
                    per_field(NATIVE_REGISTER_FORBIDS, field),
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
                GENERIC_REGISTER_REQUIRES_RUNID,
                Code::MissingValue,
                &run_id,
                "generic register requires the target runId of an existing execution",
                "the existing execution runId",
            );
        }
        require(
            GENERIC_REGISTER_REQUIRES_AMENDMENT_ID,
            input,
            "amendmentId",
            out,
        );
        require(GENERIC_REGISTER_REQUIRES_RATIONALE, input, "rationale", out);
    }
}

/// Rule 4: what each action requires.
fn per_action(action: Action, input: Input<'_>, out: &mut Collector) {
    match action {
        Action::Start => require(START_REQUIRES_CHECKPOINT_ID, input, "checkpointId", out),
        Action::Verify => require(VERIFY_REQUIRES_CHECKPOINT_ID, input, "checkpointId", out),
        Action::Review => require(REVIEW_REQUIRES_CHECKPOINT_ID, input, "checkpointId", out),
        Action::Bind => require(BIND_REQUIRES_CHECKPOINT_ID, input, "checkpointId", out),
        Action::Recover => {
            require(RECOVER_REQUIRES_RUNID, input, "runId", out);
            require(RECOVER_REQUIRES_CHECKPOINT_ID, input, "checkpointId", out);
            require(RECOVER_REQUIRES_RECOVERY_ID, input, "recoveryId", out);
            require(RECOVER_REQUIRES_DIAGNOSIS, input, "diagnosis", out);
            require(
                RECOVER_REQUIRES_CHANGED_CONDITION,
                input,
                "changedCondition",
                out,
            );
            require_list(RECOVER_REQUIRES_VERIFICATION, input, "verification", out);
        }
        Action::Amend => {
            require(AMEND_REQUIRES_RUNID, input, "runId", out);
            require(AMEND_REQUIRES_AMENDMENT_ID, input, "amendmentId", out);
            require(AMEND_REQUIRES_RATIONALE, input, "rationale", out);
        }
        Action::Complete | Action::Register => {}
        Action::Authorize => {
            require(AUTHORIZE_REQUIRES_AUTHORITY_ID, input, "authorityId", out);
            require(AUTHORIZE_REQUIRES_MESSAGE_ID, input, "messageId", out);
            if input.absent_or_empty("stages") {
                out.branch(
                    AUTHORIZE_REQUIRES_STAGES,
                    Code::MissingValue,
                    &Path::ROOT.field("stages"),
                    "authorize requires explicit delegatable stages",
                    "at least one canonical authority stage",
                );
            }
        }
        Action::RecordApproval => {
            require(
                RECORD_APPROVAL_REQUIRES_AUTHORITY_ID,
                input,
                "authorityId",
                out,
            );
            require(
                RECORD_APPROVAL_REQUIRES_APPROVAL_ID,
                input,
                "approvalId",
                out,
            );
            if !input.has("stage") {
                out.branch(
                    RECORD_APPROVAL_REQUIRES_STAGE,
                    Code::MissingValue,
                    &Path::ROOT.field("stage"),
                    "record_approval requires an authority stage",
                    "a canonical authority stage",
                );
            }
            require(
                RECORD_APPROVAL_REQUIRES_ARTIFACT_PATH,
                input,
                "artifactPath",
                out,
            );
            require(
                RECORD_APPROVAL_REQUIRES_ARTIFACT_SHA256,
                input,
                "artifactSha256",
                out,
            );
        }
        Action::RevokeAuthority => {
            require(
                REVOKE_AUTHORITY_REQUIRES_AUTHORITY_ID,
                input,
                "authorityId",
                out,
            );
            require(
                REVOKE_AUTHORITY_REQUIRES_REVOCATION_ID,
                input,
                "revocationId",
                out,
            );
        }
    }
}
