//! The object shapes shared between tools: work items, checkpoint contracts and the execution descriptor.

use super::{Count, Node, OPT, REQ, StringKind, field};

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
pub const STAGE: Node = Node::Enum(&[
    "specification",
    "planning",
    "implementation",
    "verification",
]);

/// A work item of `work_item_open`, also a task of `work_checkpoint`.
pub fn item() -> Node {
    Node::Object(vec![
        field("key", REQ).of(NONBLANK).describe("Idempotency key for this work item within the session (trimmed; non-empty)."),
        field("title", REQ).of(NONBLANK).describe("Human-readable work-item or task title (trimmed; non-empty)."),
        field("mode", REQ).of(Node::Enum(&["implementation", "review_only", "delegated"])).describe("Workflow intent: implementation/review_only for standalone items, delegated for generic task bindings."),
        field("requiredReviewers", REQ).of(Node::array(REVIEWER, Count::AtMost(2))).describe("Explicit reviewer roles (at most 2). Standalone implementation/review_only require a non-empty unique set; delegated and generic tasks accept [] for no independent review."),
        field("writeScope", OPT).of(Node::array(NONBLANK, Count::Any)).describe("Workspace-relative exact file paths this item may write (unbounded count; each trimmed, non-empty, no trailing separator). Required and non-empty for delegated and generic tasks; forbidden for standalone implementation/review_only."),
        field("planRunId", OPT).of(NONBLANK).describe("Native plan-run binding; delegated standalone only, paired with planTaskId."),
        field("planTaskId", OPT).of(NONBLANK).describe("Native plan-task binding; delegated standalone only, paired with planRunId."),
        field("taskId", OPT).of(ID).describe("Generic task id (defaults to key on generic open/append; trimmed, at most 128 characters)."),
        field("goal", OPT).of(TEXT).describe("Generic task goal (defaults to title on generic open/append)."),
        field("acceptanceCriteria", OPT).of(Node::array(TEXT, Count::AtMost(64))).describe("Generic task acceptance criterion texts (at most 64 entries of at most 2000 characters)."),
        field("verification", OPT).of(Node::array(TEXT, Count::AtMost(64))).describe("Generic task verification command references (at most 64 entries of at most 2000 characters)."),
        field("dependsOn", OPT).of(Node::array(ID, Count::AtMost(64))).describe("Generic task dependency ids that must be accepted first (at most 64 canonical ids)."),
        field("blockedBy", OPT).of(Node::array(ID, Count::AtMost(64))).describe("Generic task checkpoint barrier ids that must pass first (at most 64 canonical ids)."),
    ])
}

/// A typed checkpoint contract of `work_item_open` executions and `work_checkpoint`.
pub fn checkpoint_contract() -> Node {
    Node::Object(vec![
        field("checkpointId", REQ)
            .of(ID)
            .describe("Bounded checkpoint identity (trimmed, at most 128 characters)."),
        field("kind", REQ)
            .of(Node::Enum(&["milestone", "final"]))
            .describe("Checkpoint kind."),
        field("covers", REQ)
            .of(Node::array(ID, Count::Between(1, 64)))
            .describe("Non-empty task ids covered by this checkpoint (at most 64 canonical ids)."),
        field("scope", OPT)
            .of(Node::array(NONBLANK, Count::Any))
            .describe(
                "Workspace-relative exact files under review (unbounded count); defaults to none.",
            ),
        field("requiredReviewers", REQ)
            .of(Node::array(REVIEWER, Count::Between(1, 2)))
            .describe("Non-empty canonical reviewer set; every role must pass."),
        field("acceptance", OPT)
            .of(Node::array(TEXT, Count::AtMost(64)))
            .describe("Acceptance criterion texts (at most 64 bounded entries); defaults to none."),
        field("verification", OPT)
            .of(Node::array(TEXT, Count::AtMost(64)))
            .describe(
                "Verification command references (at most 64 bounded entries); defaults to none.",
            ),
        field("origin", REQ)
            .of(Node::Enum(&["source", "user", "controller"]))
            .describe("Obligation origin recorded with the checkpoint."),
        field("dependsOn", OPT)
            .of(Node::array(ID, Count::AtMost(64)))
            .describe(
                "Checkpoint ids that must pass first (at most 64 canonical ids); defaults to none.",
            ),
    ])
}

/// The generic execution descriptor of `work_item_open`.
pub fn execution() -> Node {
    Node::Object(vec![
        field("executionKey", REQ).of(ID).describe("Bounded identity of the generic execution to register (trimmed, at most 128 characters)."),
        field("source", REQ).of(Node::Union(vec![conversation_source(), provided_plan_source()])).describe("Execution source identity. Only conversation-scoped and provided-plan variants are accepted; native packages register through work_checkpoint register with a planPath."),
        field("goal", REQ).of(TEXT).describe("Bounded execution goal."),
        field("boundary", REQ).of(boundary()).describe("Exact files plus named directory subtrees contained by this execution."),
        field("checkpoints", OPT).of(Node::array(checkpoint_contract(), Count::Any)).describe("Typed checkpoint contracts declared with the first task batch (unbounded count)."),
    ])
}

/// The conversation-scoped execution source.
fn conversation_source() -> Node {
    Node::Object(vec![
        field("kind", REQ)
            .of(Node::Literal("conversation-scoped"))
            .describe("Requirements come from this conversation."),
    ])
}

/// The provided-plan execution source.
fn provided_plan_source() -> Node {
    Node::Object(vec![
        field("kind", REQ)
            .of(Node::Literal("provided-plan"))
            .describe("Requirements come from a provided plan document."),
        field("reference", REQ).of(TEXT).describe(
            "Bounded reference to the provided plan document (trimmed, at most 2000 characters).",
        ),
        field("sha256", OPT).of(NONBLANK).describe(
            "Optional integrity hash of the referenced document; must be a non-empty string.",
        ),
    ])
}

/// The execution boundary: exact files and directory subtrees.
fn boundary() -> Node {
    Node::Object(vec![
        field("files", REQ).of(Node::array(NONBLANK, Count::Any)).describe("Normalized workspace-relative exact file paths of the execution boundary (unbounded count and length)."),
        field("directories", REQ).of(Node::array(NONBLANK, Count::Any)).describe("Workspace-relative directory subtrees of the execution boundary (unbounded count); one trailing separator is normalized away."),
    ])
}
