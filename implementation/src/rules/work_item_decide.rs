//! The branch rules of `work_item_decide` (§4.4).

use super::declare::Needs::{NonEmpty, Present};
use super::declare::{Requirements, Rules};
use super::input::Input;
use super::recovery::RECOVERY;
use crate::collector::Collector;
use crate::issue::Code;
use crate::path::Path;

rules! {
    /// The rules of `work_item_decide`, in inventory order (the matrix's follow).
    fn names {
        RECOVER_RUNID_REQUIRES_AUTHORITY = "recover-runid-requires-authority";
        /// What `accept` and `request_changes` require.
        ACCEPT_OR_REQUEST_CHANGES: Requirements = Requirements(&[
            ("accept-or-request-changes-requires-rationale", Present("rationale")),
            ("accept-or-request-changes-requires-evidence", NonEmpty("evidence")),
        ]);
        /// What `rework` requires.
        REWORK: Requirements = Requirements(&[
            ("rework-requires-runid", Present("runId")),
            ("rework-requires-checkpoint-id", Present("checkpointId")),
        ]);
        include super::recovery::names;
        /// What a recovery funded by an authority requires.
        RECOVER_AUTHORITY: Requirements = Requirements(&[
            ("recover-authority-requires-runid", Present("runId")),
        ]);
    }
}

/// The branch rules of `work_item_decide`, after its field matrix.
pub(super) const RULES: Rules = Rules { run, names };

selector! {
    /// The decision families.
    Decision {
        Accept = "accept",
        RequestChanges = "request_changes",
        Rework = "rework",
        Recover = "recover",
    }
}

fn run(input: Input<'_>, out: &mut Collector) {
    let Some(decision) = input.string("decision").and_then(Decision::parse) else {
        return;
    };
    match decision {
        Decision::Accept | Decision::RequestChanges => ACCEPT_OR_REQUEST_CHANGES.check(input, out),
        Decision::Rework => REWORK.check(input, out),
        Decision::Recover => {
            RECOVERY.check(input, out);
            if input.has("authorityId") {
                RECOVER_AUTHORITY.check(input, out);
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
