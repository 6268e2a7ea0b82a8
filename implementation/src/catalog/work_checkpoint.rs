//! The catalog entry of `work_checkpoint`.

use super::shapes::*;
use super::*;

/// The catalog entry of `work_checkpoint`.
pub fn spec() -> ToolSpec {
    ToolSpec {
        id: "work_checkpoint",
        summary: "Register, start, verify, review, bind, amend, complete, or authorize/recover checkpoints and authority.",
        description: "Register an approved delegated plan, start a declared review checkpoint, verify checkpoint outcomes, or recover a stopped or generation-exhausted checkpoint; verify with complete: true seals a finished final checkpoint.",
        fields: vec![
            Field::required(
                "action",
                Node::Enum(&[
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
                ]),
                "Checkpoint/authority action to perform.",
            ),
            Field::optional(
                "planPath",
                NONBLANK,
                "Workspace-relative approved native plan path (trimmed, non-empty); native register only, never combined with runId.",
            ),
            Field::optional(
                "runId",
                NONBLANK,
                "Target execution run. Required for every action except native register with planPath.",
            ),
            Field::optional(
                "checkpointId",
                ID,
                "Checkpoint id (trimmed, at most 128 characters); required for start/verify/recover/review/bind.",
            ),
            Field::optional("complete", Node::Boolean, "Seal a finished final checkpoint on verify."),
            Field::optional("diagnosis", TEXT, "Bounded recovery diagnosis; required non-empty for recover."),
            Field::optional("changedCondition", TEXT, "Bounded changed condition; required non-empty for recover."),
            Field::optional(
                "verification",
                Node::array(REF, Count::AtMost(8)),
                "Bounded verification references (at most 8); required non-empty for recover and optional completion evidence for complete.",
            ),
            Field::optional(
                "recoveryId",
                REF,
                "Stable recovery identity (trimmed, at most 512 characters); required for recover.",
            ),
            Field::optional(
                "userMessageId",
                NONBLANK,
                "Root-user authorization message id; native-package checkpoint recovery only, not generic recovery.",
            ),
            Field::optional(
                "checkpoints",
                Node::array(checkpoint_contract(), Count::Any),
                "Typed checkpoint contracts for generic register/amend batches (unbounded count).",
            ),
            Field::optional(
                "tasks",
                Node::array(item(), Count::Any),
                "Typed task items for generic register/amend batches (unbounded count).",
            ),
            Field::optional(
                "amendmentId",
                ID,
                "Bounded amendment identity (trimmed, at most 128 characters); required for generic register/amend.",
            ),
            Field::optional(
                "rationale",
                TEXT,
                "Bounded rationale; required for generic register/amend, optional context for complete/revocation.",
            ),
            Field::optional("startFingerprint", NONBLANK, "Optional expected start fingerprint for generic start."),
            Field::optional("reviewer", REVIEWER, "Optional canonical reviewer role for generic review/bind/verify."),
            Field::optional(
                "authorityId",
                ID,
                "Recorded advance authority for authorize/approval/revocation or recover.",
            ),
            Field::optional("messageId", ID, "Eligible root-user authorization message id; required for authorize."),
            Field::optional("approvalId", ID, "Bounded stage-approval identity; required for record_approval."),
            Field::optional("stage", STAGE, "Authority stage being approved; required for record_approval."),
            Field::optional(
                "stages",
                Node::array(STAGE, Count::Any),
                "Delegatable stages (unbounded count). Required non-empty for authorize; optional surviving-stage set for revoke_authority narrowing. Every entry must be canonical.",
            ),
            Field::optional(
                "decisionScope",
                Node::String(StringKind::Scope),
                "Bounded decision scope recorded with an authority grant; authorize only. An explicitly empty value keeps the documented empty default.",
            ),
            Field::optional(
                "fileBoundary",
                Node::array(NONBLANK, Count::Any),
                "File boundary recorded with an authority grant (unbounded count); authorize only.",
            ),
            Field::optional(
                "reservedStops",
                Node::array(STAGE, Count::Any),
                "Reserved lifecycle stops retained for explicit user action (unbounded count); every entry must be a canonical stage. authorize only; defaults to none.",
            ),
            Field::optional("artifactPath", NONBLANK, "Approved artifact path; required for record_approval."),
            Field::optional("artifactSha256", NONBLANK, "Approved artifact hash; required for record_approval."),
            Field::optional("revocationId", ID, "Bounded revocation identity; required for revoke_authority."),
        ],
        matrix: Some(Matrix {
            selector: "action",
            rows: &[
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
