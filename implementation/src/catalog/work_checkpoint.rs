//! The catalog entry of `work_checkpoint`.

use super::shapes::*;
use super::*;

/// The catalog entry of `work_checkpoint`, under `id`, which the tool table of `catalog/mod.rs` gives.
pub fn spec(id: &'static str) -> ToolSpec {
    ToolSpec {
        id,
        summary: "Register, start, verify, review, bind, amend, complete, or authorize/recover checkpoints and authority.",
        description: "Register an approved delegated plan, start a declared review checkpoint, verify checkpoint outcomes, or recover a stopped or generation-exhausted checkpoint; verify with complete: true seals a finished final checkpoint.",
        fields: vec![
            field("action", REQ).of(Node::Enum(&[
                    "register",
                    "start",
                    "verify",
                    "recover",
                    "review",
                    "bind",
                    "complete",
                    "amend",
                    "authorize",
                    "record_approval",
                    "revoke_authority",
                ])).describe("Checkpoint/authority action to perform."),
            field("planPath", OPT).of(NONBLANK).describe("Workspace-relative approved native plan path (trimmed, non-empty); native register only, never combined with runId."),
            field("runId", OPT).of(NONBLANK).describe("Target execution run. Required for every action except native register with planPath."),
            field("checkpointId", OPT).of(ID).describe("Checkpoint id (trimmed, at most 128 characters); required for start/verify/recover/review/bind."),
            field("complete", OPT).of(Node::Boolean).describe("Seal a finished final checkpoint on verify."),
            field("diagnosis", OPT).of(TEXT).describe("Bounded recovery diagnosis; required non-empty for recover."),
            field("changedCondition", OPT).of(TEXT).describe("Bounded changed condition; required non-empty for recover."),
            field("verification", OPT).of(Node::array(REF, Count::AtMost(8))).describe("Bounded verification references (at most 8); required non-empty for recover and optional completion evidence for complete."),
            field("recoveryId", OPT).of(REF).describe("Stable recovery identity (trimmed, at most 512 characters); required for recover."),
            field("userMessageId", OPT).of(NONBLANK).describe("Root-user authorization message id; native-package checkpoint recovery only, not generic recovery."),
            field("checkpoints", OPT).of(Node::array(checkpoint_contract(), Count::Any)).describe("Typed checkpoint contracts for generic register/amend batches (unbounded count)."),
            field("tasks", OPT).of(Node::array(item(), Count::Any)).describe("Typed task items for generic register/amend batches (unbounded count)."),
            field("amendmentId", OPT).of(ID).describe("Bounded amendment identity (trimmed, at most 128 characters); required for generic register/amend."),
            field("rationale", OPT).of(TEXT).describe("Bounded rationale; required for generic register/amend, optional context for complete/revocation."),
            field("startFingerprint", OPT).of(NONBLANK).describe("Optional expected start fingerprint for generic start."),
            field("reviewer", OPT).of(REVIEWER).describe("Optional canonical reviewer role for generic review/bind/verify."),
            field("authorityId", OPT).of(ID).describe("Recorded advance authority for authorize/approval/revocation or recover."),
            field("messageId", OPT).of(ID).describe("Eligible root-user authorization message id; required for authorize."),
            field("approvalId", OPT).of(ID).describe("Bounded stage-approval identity; required for record_approval."),
            field("stage", OPT).of(STAGE).describe("Authority stage being approved; required for record_approval."),
            field("stages", OPT).of(Node::array(STAGE, Count::Any)).describe("Delegatable stages (unbounded count). Required non-empty for authorize; optional surviving-stage set for revoke_authority narrowing. Every entry must be canonical."),
            field("decisionScope", OPT).of(Node::String(StringKind::Scope)).describe("Bounded decision scope recorded with an authority grant; authorize only. An explicitly empty value keeps the documented empty default."),
            field("fileBoundary", OPT).of(Node::array(NONBLANK, Count::Any)).describe("File boundary recorded with an authority grant (unbounded count); authorize only."),
            field("reservedStops", OPT).of(Node::array(STAGE, Count::Any)).describe("Reserved lifecycle stops retained for explicit user action (unbounded count); every entry must be a canonical stage. authorize only; defaults to none."),
            field("artifactPath", OPT).of(NONBLANK).describe("Approved artifact path; required for record_approval."),
            field("artifactSha256", OPT).of(NONBLANK).describe("Approved artifact hash; required for record_approval."),
            field("revocationId", OPT).of(ID).describe("Bounded revocation identity; required for revoke_authority."),
        ],
        matrix: Some(Matrix {
            selector: "action",
            rows: vec![
                MatrixRow {
                    value: "register",
                    consumes: &["planPath", "runId", "amendmentId", "rationale", "tasks", "checkpoints"],
                },
                MatrixRow { value: "start", consumes: &["runId", "checkpointId", "startFingerprint"] },
                MatrixRow { value: "verify", consumes: &["runId", "checkpointId", "complete", "reviewer"] },
                MatrixRow {
                    value: "recover",
                    consumes: &[
                        "runId",
                        "checkpointId",
                        "recoveryId",
                        "diagnosis",
                        "changedCondition",
                        "verification",
                        "userMessageId",
                        "authorityId",
                    ],
                },
                MatrixRow { value: "review", consumes: &["runId", "checkpointId", "reviewer"] },
                MatrixRow { value: "bind", consumes: &["runId", "checkpointId", "reviewer"] },
                MatrixRow { value: "complete", consumes: &["runId", "rationale", "verification"] },
                MatrixRow { value: "amend", consumes: &["runId", "amendmentId", "rationale", "tasks", "checkpoints"] },
                MatrixRow {
                    value: "authorize",
                    consumes: &[
                        "runId",
                        "authorityId",
                        "messageId",
                        "stages",
                        "decisionScope",
                        "fileBoundary",
                        "reservedStops",
                    ],
                },
                MatrixRow {
                    value: "record_approval",
                    consumes: &["runId", "authorityId", "approvalId", "stage", "artifactPath", "artifactSha256"],
                },
                MatrixRow {
                    value: "revoke_authority",
                    consumes: &["runId", "authorityId", "revocationId", "stages", "rationale"],
                },
            ],
        }),
        vocabularies: &["action"],
        prerequisites: &[
            "source (native planPath or generic runId) resolved before source-dependent validation",
            "eligible root-user authorization message for authorize",
        ],
        conditional_requirements: &[
            "native register uses planPath and rejects runId; generic register appends a task batch to an existing runId with amendmentId and rationale",
            "generic review, bind, and verify consume the linked reviewer items' recorded outcomes; the reviewer callID launch binding happens in the host hook, not through this action",
            "native verify with complete:true seals only an eligible final checkpoint; generic executions seal through the complete action",
            "work_checkpoint recover consumes userMessageId only for native-package checkpoints: a generic checkpoint recover rejects userMessageId (a stopped generation resumes cost-free, an exhausted one needs a recorded advance authorityId with its runId). work_item_decide recover accepts userMessageId for standalone, native, and generic execution tasks",
            "authorize/record_approval/revoke_authority validate every supplied stage/stop before any ledger write",
        ],
        path_kinds: vec![
            PathKindDecl::new(
                "planPath",
                PathKind::ExactFile,
                "workspace-relative approved native plan path; native register only",
            ),
            PathKindDecl::new(
                "fileBoundary[]",
                PathKind::ExactFile,
                "workspace-relative exact files recorded with an authority grant",
            ),
            PathKindDecl::new(
                "artifactPath",
                PathKind::ExactFile,
                "approved artifact path recorded with a stage approval",
            ),
        ],
        result_families: &[
            ("register", "registration/amendment summary"),
            ("amend", "generic amendment view"),
            ("start", "started generation with reviewers to launch"),
            ("verify-native", "native verify outcome"),
            ("review-bind-verify", "generic review/bind/verify outcome"),
            ("recover", "checkpoint recovery outcome"),
            ("complete", "sealed execution"),
            ("authorize", "authority grant/extension"),
            ("record-approval", "stage approval record"),
            ("revoke-authority", "authority revocation"),
            ("failure", "bounded owned failure"),
        ],
        representative_failures: &[
            ("reservedStops[0]", "a misspelled stage rejects and never becomes a silent omission"),
            ("action", "a field consumed by another action is rejected, not ignored"),
        ],
    }
}
