//! The branch rules of `work_checkpoint` (§4.5).

use super::declare::Needs::Present;
use super::declare::{PerField, Requirements, Rules};
use super::input::Input;
use super::items::{ItemMode, check_item};
use super::recovery::RECOVERY;
use crate::collector::Collector;
use crate::issue::Code;
use crate::path::Path;

rules! {
    /// The rules of `work_checkpoint`, in inventory order (the matrix's follow).
    fn names {
        ACTION_REQUIRES_RUNID = "action-requires-runid";
        REGISTER_ONE_ROUTE = "register-one-route";
        GENERIC_REGISTER_REQUIRES_RUNID = "generic-register-requires-runid";
        AUTHORIZE_REQUIRES_STAGES = "authorize-requires-stages";
        RECORD_APPROVAL_REQUIRES_STAGE = "record-approval-requires-stage";
        /// What a generic registration requires besides its runId.
        GENERIC_REGISTER: Requirements = Requirements(&[
            ("generic-register-requires-amendment-id", Present("amendmentId")),
            ("generic-register-requires-rationale", Present("rationale")),
        ]);
        /// What `recover` requires before the recovery itself.
        RECOVER: Requirements = Requirements(&[
            ("recover-requires-runid", Present("runId")),
            ("recover-requires-checkpoint-id", Present("checkpointId")),
        ]);
        include super::recovery::names;
        /// What `amend` requires.
        AMEND: Requirements = Requirements(&[
            ("amend-requires-runid", Present("runId")),
            ("amend-requires-amendment-id", Present("amendmentId")),
            ("amend-requires-rationale", Present("rationale")),
        ]);
        /// What `authorize` requires before its stages.
        AUTHORIZE: Requirements = Requirements(&[
            ("authorize-requires-authority-id", Present("authorityId")),
            ("authorize-requires-message-id", Present("messageId")),
        ]);
        /// What `record_approval` requires before its stage.
        RECORD_APPROVAL: Requirements = Requirements(&[
            ("record-approval-requires-authority-id", Present("authorityId")),
            ("record-approval-requires-approval-id", Present("approvalId")),
        ]);
        /// What `record_approval` requires after its stage.
        RECORD_APPROVAL_ARTIFACT: Requirements = Requirements(&[
            ("record-approval-requires-artifact-path", Present("artifactPath")),
            ("record-approval-requires-artifact-sha256", Present("artifactSha256")),
        ]);
        /// What `revoke_authority` requires.
        REVOKE_AUTHORITY: Requirements = Requirements(&[
            ("revoke-authority-requires-authority-id", Present("authorityId")),
            ("revoke-authority-requires-revocation-id", Present("revocationId")),
        ]);
        /// What `start` requires.
        START: Requirements = Requirements(&[
            ("start-requires-checkpoint-id", Present("checkpointId")),
        ]);
        /// What `verify` requires.
        VERIFY: Requirements = Requirements(&[
            ("verify-requires-checkpoint-id", Present("checkpointId")),
        ]);
        /// What `review` requires.
        REVIEW: Requirements = Requirements(&[
            ("review-requires-checkpoint-id", Present("checkpointId")),
        ]);
        /// What `bind` requires.
        BIND: Requirements = Requirements(&[
            ("bind-requires-checkpoint-id", Present("checkpointId")),
        ]);
        /// The generic registration context a native `planPath` registration may not carry, in
        /// the order reported.
        NATIVE_REGISTER_FORBIDS: PerField = PerField {
            prefix: "native-register-forbids",
            fields: &["amendmentId", "rationale", "tasks", "checkpoints"],
        };
        include super::items::generic_names;
    }
}

/// The branch rules of `work_checkpoint`, after its field matrix.
pub(super) const RULES: Rules = Rules { run, names };

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

fn run(input: Input<'_>, out: &mut Collector) {
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
        for (field, rule) in NATIVE_REGISTER_FORBIDS.each() {
            if input.has(field) {
                out.branch(
                    rule,
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
        GENERIC_REGISTER.check(input, out);
    }
}

/// Rule 4: what each action requires.
fn per_action(action: Action, input: Input<'_>, out: &mut Collector) {
    match action {
        Action::Start => START.check(input, out),
        Action::Verify => VERIFY.check(input, out),
        Action::Review => REVIEW.check(input, out),
        Action::Bind => BIND.check(input, out),
        Action::Recover => {
            RECOVER.check(input, out);
            RECOVERY.check(input, out);
        }
        Action::Amend => AMEND.check(input, out),
        Action::Complete | Action::Register => {}
        Action::Authorize => {
            AUTHORIZE.check(input, out);
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
            RECORD_APPROVAL.check(input, out);
            if !input.has("stage") {
                out.branch(
                    RECORD_APPROVAL_REQUIRES_STAGE,
                    Code::MissingValue,
                    &Path::ROOT.field("stage"),
                    "record_approval requires an authority stage",
                    "a canonical authority stage",
                );
            }
            RECORD_APPROVAL_ARTIFACT.check(input, out);
        }
        Action::RevokeAuthority => REVOKE_AUTHORITY.check(input, out),
    }
}
