//! The catalog entry of `work_item_decide`.

use super::shapes::*;
use super::*;

/// The catalog entry of `work_item_decide`, under `id`, which the tool table of `catalog/mod.rs` gives.
pub fn spec(id: &'static str) -> ToolSpec {
    ToolSpec {
        id,
        summary: "Accept, request changes, authorize bounded rework, or recover a stopped delegated attempt.",
        description: "Accept or request changes for the current completed delegated attempt, authorize bounded rework of an accepted task from a failed checkpoint, or recover a stopped or exhausted unaccepted task with a bounded diagnosis and changed condition.",
        fields: vec![
            field("workItemId", REQ).of(NONBLANK).describe("Non-empty id of the delegated work item (trimmed)."),
            field("attempt", REQ).of(Node::Integer(Range { min: Some(Limit::Inclusive(1)), max: None })).describe("Positive integer attempt number the decision targets."),
            field("decision", REQ).of(Node::Enum(&["accept", "request_changes", "rework", "recover"])).describe("Controller decision family for this call."),
            field("rationale", OPT).of(TEXT).describe("Bounded rationale (trimmed, at most 2000 characters). Required non-empty for accept/request_changes; optional reason for rework."),
            field("evidence", OPT).of(Node::array(REF, Count::AtMost(8))).describe("Bounded evidence references (at most 8). Required non-empty for accept/request_changes."),
            field("concernsDisposition", OPT).of(TEXT).describe("Bounded disposition of recorded concerns; required by the domain only when the terminal record demands it."),
            field("runId", OPT).of(NONBLANK).describe("Failed-checkpoint run for rework, or authority-owning run for recover."),
            field("checkpointId", OPT).of(ID).describe("Failed checkpoint id; required for rework."),
            field("diagnosis", OPT).of(TEXT).describe("Bounded recovery diagnosis; required non-empty for recover."),
            field("changedCondition", OPT).of(TEXT).describe("Bounded changed condition; required non-empty for recover."),
            field("verification", OPT).of(Node::array(REF, Count::AtMost(8))).describe("Bounded verification references (at most 8); required non-empty for recover."),
            field("recoveryId", OPT).of(REF).describe("Stable recovery identity (trimmed, at most 512 characters); required for recover."),
            field("userMessageId", OPT).of(NONBLANK).describe("Optional root-user authorization message id for recover."),
            field("authorityId", OPT).of(ID).describe("Recorded advance authority funding recover; requires the owning runId."),
        ],
        matrix: Some(Matrix {
            selector: "decision",
            rows: vec![
                MatrixRow { value: "accept", consumes: ACCEPT_OR_REQUEST_CHANGES },
                MatrixRow { value: "request_changes", consumes: ACCEPT_OR_REQUEST_CHANGES },
                MatrixRow {
                    value: "rework",
                    consumes: &["workItemId", "attempt", "decision", "runId", "checkpointId", "rationale"],
                },
                MatrixRow {
                    value: "recover",
                    consumes: &[
                        "workItemId",
                        "attempt",
                        "decision",
                        "recoveryId",
                        "diagnosis",
                        "changedCondition",
                        "verification",
                        "userMessageId",
                        "authorityId",
                        "runId",
                    ],
                },
            ],
        }),
        vocabularies: &["decision"],
        prerequisites: &[
            "latest completed attempt identity and terminal status",
            "recorded concerns disposition when the terminal record requires one",
        ],
        conditional_requirements: &[
            "accept/request_changes require balanced rationale and evidence",
            "rework requires its failed checkpoint binding",
            "recover requires recoveryId, diagnosis, changedCondition, and verification; runId only accompanies authorityId",
            "concernsDisposition is conditional on the recorded terminal status, not a caller-supplied status",
        ],
        path_kinds: vec![],
        result_families: &[
            ("accept-or-request-changes", "decision outcome (accept/request_changes)"),
            ("rework", "rework authorization outcome"),
            ("recover", "recovery outcome"),
            ("failure", "bounded owned failure"),
        ],
        representative_failures: &[
            ("evidence", "missing required evidence names the field"),
            ("runId", "runId without authorityId is a conflict, not silently dropped"),
        ],
    }
}

/// What `accept` and `request_changes` consume.
const ACCEPT_OR_REQUEST_CHANGES: &[&str] = &[
    "workItemId",
    "attempt",
    "decision",
    "rationale",
    "evidence",
    "concernsDisposition",
];
