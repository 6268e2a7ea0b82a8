//! The branch rules of `work_item_decide` (§4.4).

use super::{Input, matrix, require, require_list};
use crate::catalog::Tool;
use crate::collector::Collector;
use crate::issue::Code;
use crate::js_string::JsString;
use crate::path::Path;

/// The decision families.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    Accept,
    RequestChanges,
    Rework,
    Recover,
}

impl Decision {
    pub(crate) const ALL: [Decision; 4] =
        [Decision::Accept, Decision::RequestChanges, Decision::Rework, Decision::Recover];

    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Decision::Accept => "accept",
            Decision::RequestChanges => "request_changes",
            Decision::Rework => "rework",
            Decision::Recover => "recover",
        }
    }

    fn parse(value: &JsString) -> Option<Decision> {
        Decision::ALL.into_iter().find(|d| value.eq_str(d.as_str()))
    }
}

pub(crate) fn run(input: &Input<'_>, out: &mut Collector) {
    let input = *input;
    matrix(Tool::WorkItemDecide, input, out);
    let Some(decision) = input.string("decision").and_then(Decision::parse) else { return };
    match decision {
        Decision::Accept | Decision::RequestChanges => {
            require("accept-or-request-changes-requires-rationale", input, "rationale", out);
            require_list("accept-or-request-changes-requires-evidence", input, "evidence", out);
        }
        Decision::Rework => {
            require("rework-requires-runid", input, "runId", out);
            require("rework-requires-checkpoint-id", input, "checkpointId", out);
        }
        Decision::Recover => {
            require("recover-requires-recovery-id", input, "recoveryId", out);
            require("recover-requires-diagnosis", input, "diagnosis", out);
            require("recover-requires-changed-condition", input, "changedCondition", out);
            require_list("recover-requires-verification", input, "verification", out);
            if input.has("authorityId") {
                require("recover-authority-requires-runid", input, "runId", out);
            } else if input.has("runId") {
                out.branch(
                    "recover-runid-requires-authority",
                    Code::InvalidValue,
                    &Path::ROOT.field("runId"),
                    "runId is only consumed by recover together with an authorityId",
                    "authorityId with its owning runId, or neither",
                );
            }
        }
    }
}
