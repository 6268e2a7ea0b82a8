//! The object shapes shared between tools: work items, checkpoint contracts and the execution descriptor.

use super::{Count, Field, Node, StringKind};

/// An identifier: trimmed, 1 to 128 units.
pub const ID: Node = Node::String(StringKind::Id);
/// A text: trimmed, 1 to 2000 units.
pub const TEXT: Node = Node::String(StringKind::Text);
/// A reference: trimmed, 1 to 512 units.
pub const REF: Node = Node::String(StringKind::Ref);
/// A trimmed, non-blank string without a maximum.
pub const NONBLANK: Node = Node::String(StringKind::Nonblank);
/// A verbatim string.
pub const RAW: Node = Node::String(StringKind::Raw);
/// The canonical reviewer roles.
pub const REVIEWER: Node = Node::Enum(&["spec", "code"]);
/// The canonical authority stages.
pub const STAGE: Node = Node::Enum(&["specification", "planning", "implementation", "verification"]);

/// A work item of `work_item_open`, also a task of `work_checkpoint`.
pub fn item() -> Node {
    Node::Object(vec![
        Field::required("key", NONBLANK, "Idempotency key for this work item within the session (trimmed; non-empty)."),
        Field::required("title", NONBLANK, "Human-readable work-item or task title (trimmed; non-empty)."),
        Field::required(
            "mode",
            Node::Enum(&["implementation", "review_only", "delegated"]),
            "Workflow intent: implementation/review_only for standalone items, delegated for generic task bindings.",
        ),
        Field::required(
            "requiredReviewers",
            Node::array(REVIEWER, Count::AtMost(2)),
            "Explicit reviewer roles (at most 2). Standalone implementation/review_only require a non-empty unique set; delegated and generic tasks accept [] for no independent review.",
        ),
        Field::optional(
            "writeScope",
            Node::array(NONBLANK, Count::Any),
            "Workspace-relative exact file paths this item may write (unbounded count; each trimmed, non-empty, no trailing separator). Required and non-empty for delegated and generic tasks; forbidden for standalone implementation/review_only.",
        ),
        Field::optional(
            "planRunId",
            NONBLANK,
            "Native plan-run binding; delegated standalone only, paired with planTaskId.",
        ),
        Field::optional(
            "planTaskId",
            NONBLANK,
            "Native plan-task binding; delegated standalone only, paired with planRunId.",
        ),
        Field::optional(
            "taskId",
            ID,
            "Generic task id (defaults to key on generic open/append; trimmed, at most 128 characters).",
        ),
        Field::optional("goal", TEXT, "Generic task goal (defaults to title on generic open/append)."),
        Field::optional(
            "acceptanceCriteria",
            Node::array(TEXT, Count::AtMost(64)),
            "Generic task acceptance criterion texts (at most 64 entries of at most 2000 characters).",
        ),
        Field::optional(
            "verification",
            Node::array(TEXT, Count::AtMost(64)),
            "Generic task verification command references (at most 64 entries of at most 2000 characters).",
        ),
        Field::optional(
            "dependsOn",
            Node::array(ID, Count::AtMost(64)),
            "Generic task dependency ids that must be accepted first (at most 64 canonical ids).",
        ),
        Field::optional(
            "blockedBy",
            Node::array(ID, Count::AtMost(64)),
            "Generic task checkpoint barrier ids that must pass first (at most 64 canonical ids).",
        ),
    ])
}

/// A typed checkpoint contract of `work_item_open` executions and `work_checkpoint`.
pub fn checkpoint_contract() -> Node {
    Node::Object(vec![
        Field::required("checkpointId", ID, "Bounded checkpoint identity (trimmed, at most 128 characters)."),
        Field::required("kind", Node::Enum(&["milestone", "final"]), "Checkpoint kind."),
        Field::required(
            "covers",
            Node::array(ID, Count::Between(1, 64)),
            "Non-empty task ids covered by this checkpoint (at most 64 canonical ids).",
        ),
        Field::optional(
            "scope",
            Node::array(NONBLANK, Count::Any),
            "Workspace-relative exact files under review (unbounded count); defaults to none.",
        ),
        Field::required(
            "requiredReviewers",
            Node::array(REVIEWER, Count::Between(1, 2)),
            "Non-empty canonical reviewer set; every role must pass.",
        ),
        Field::optional(
            "acceptance",
            Node::array(TEXT, Count::AtMost(64)),
            "Acceptance criterion texts (at most 64 bounded entries); defaults to none.",
        ),
        Field::optional(
            "verification",
            Node::array(TEXT, Count::AtMost(64)),
            "Verification command references (at most 64 bounded entries); defaults to none.",
        ),
        Field::required(
            "origin",
            Node::Enum(&["source", "user", "controller"]),
            "Obligation origin recorded with the checkpoint.",
        ),
        Field::optional(
            "dependsOn",
            Node::array(ID, Count::AtMost(64)),
            "Checkpoint ids that must pass first (at most 64 canonical ids); defaults to none.",
        ),
    ])
}

/// The generic execution descriptor of `work_item_open`.
pub fn execution() -> Node {
    Node::Object(vec![
        Field::required(
            "executionKey",
            ID,
            "Bounded identity of the generic execution to register (trimmed, at most 128 characters).",
        ),
        Field::required(
            "source",
            Node::Union(vec![conversation_source(), provided_plan_source()]),
            "Execution source identity. Only conversation-scoped and provided-plan variants are accepted; native packages register through work_checkpoint register with a planPath.",
        ),
        Field::required("goal", TEXT, "Bounded execution goal."),
        Field::required(
            "boundary",
            boundary(),
            "Exact files plus named directory subtrees contained by this execution.",
        ),
        Field::optional(
            "checkpoints",
            Node::array(checkpoint_contract(), Count::Any),
            "Typed checkpoint contracts declared with the first task batch (unbounded count).",
        ),
    ])
}

/// The conversation-scoped execution source.
fn conversation_source() -> Node {
    Node::Object(vec![Field::required(
        "kind",
        Node::Literal("conversation-scoped"),
        "Requirements come from this conversation.",
    )])
}

/// The provided-plan execution source.
fn provided_plan_source() -> Node {
    Node::Object(vec![
        Field::required("kind", Node::Literal("provided-plan"), "Requirements come from a provided plan document."),
        Field::required(
            "reference",
            TEXT,
            "Bounded reference to the provided plan document (trimmed, at most 2000 characters).",
        ),
        Field::optional(
            "sha256",
            NONBLANK,
            "Optional integrity hash of the referenced document; must be a non-empty string.",
        ),
    ])
}

/// The execution boundary: exact files and directory subtrees.
fn boundary() -> Node {
    Node::Object(vec![
        Field::required(
            "files",
            Node::array(NONBLANK, Count::Any),
            "Normalized workspace-relative exact file paths of the execution boundary (unbounded count and length).",
        ),
        Field::required(
            "directories",
            Node::array(NONBLANK, Count::Any),
            "Workspace-relative directory subtrees of the execution boundary (unbounded count); one trailing separator is normalized away.",
        ),
    ])
}
