//! The branch rules of `work_item_decide` (§4.4).

use super::{Input, matrix, require, require_list};
use crate::catalog::Tool;
use crate::collector::Collector;
use crate::issue::Code;
use crate::path::Path;

rule_names! {
    RECOVER_RUNID_REQUIRES_AUTHORITY = "recover-runid-requires-authority";
    ACCEPT_OR_REQUEST_CHANGES_REQUIRES_RATIONALE = "accept-or-request-changes-requires-rationale";
    ACCEPT_OR_REQUEST_CHANGES_REQUIRES_EVIDENCE = "accept-or-request-changes-requires-evidence";
    REWORK_REQUIRES_RUNID = "rework-requires-runid";
    REWORK_REQUIRES_CHECKPOINT_ID = "rework-requires-checkpoint-id";
    RECOVER_REQUIRES_RECOVERY_ID = "recover-requires-recovery-id";
    RECOVER_REQUIRES_DIAGNOSIS = "recover-requires-diagnosis";
    RECOVER_REQUIRES_CHANGED_CONDITION = "recover-requires-changed-condition";
    RECOVER_REQUIRES_VERIFICATION = "recover-requires-verification";
    RECOVER_AUTHORITY_REQUIRES_RUNID = "recover-authority-requires-runid";
}

pub(crate) fn names() -> Vec<String> {
    NAMES.iter().map(|n| (*n).to_owned()).collect()
}

selector! {
    /// The decision families.
    Decision {
        Accept = "accept",
        RequestChanges = "request_changes",
        Rework = "rework",
        Recover = "recover",
    }
}

pub(crate) fn run(input: &Input<'_>, out: &mut Collector) {
    let input = *input;
    matrix(Tool::WorkItemDecide, input, out);
    let Some(decision) = input.string("decision").and_then(Decision::parse) else {
        return;
    };
    match decision {
        Decision::Accept | Decision::RequestChanges => {
            require(
                ACCEPT_OR_REQUEST_CHANGES_REQUIRES_RATIONALE,
                input,
                "rationale",
                out,
            );
            require_list(
                ACCEPT_OR_REQUEST_CHANGES_REQUIRES_EVIDENCE,
                input,
                "evidence",
                out,
            );
        }
        Decision::Rework => {
            require(REWORK_REQUIRES_RUNID, input, "runId", out);
            require(REWORK_REQUIRES_CHECKPOINT_ID, input, "checkpointId", out);
        }
        Decision::Recover => {
            require(RECOVER_REQUIRES_RECOVERY_ID, input, "recoveryId", out);
            require(RECOVER_REQUIRES_DIAGNOSIS, input, "diagnosis", out);
            require(
                RECOVER_REQUIRES_CHANGED_CONDITION,
                input,
                "changedCondition",
                out,
            );
            require_list(RECOVER_REQUIRES_VERIFICATION, input, "verification", out);
            if input.has("authorityId") {
                require(RECOVER_AUTHORITY_REQUIRES_RUNID, input, "runId", out);
            } else if input.has("runId") {
                out.branch(
                    RECOVER_RUNID_REQUIRES_AUTHORITY,
                    Code::InvalidValue,
                    &Path::ROOT.field("runId"),
                    "runId is only consumed by recover together with an authorityId",
                    "authorityId with its owning runId, or neither",
                );
            }
        }
    }
}
