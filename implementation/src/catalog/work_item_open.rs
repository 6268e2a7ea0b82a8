//! The catalog entry of `work_item_open`.

use super::shapes::*;
use super::*;

/// The catalog entry of `work_item_open`, under `id`, which the tool table of `catalog/mod.rs` gives.
pub fn spec(id: &'static str) -> ToolSpec {
    ToolSpec {
        id,
        summary: "Open one or more work items idempotently, or register/append generic execution tasks.",
        description: "Open one or more workflow work items idempotently with explicit mode and requiredReviewers.",
        fields: vec![
            field("items", REQ).of(Node::array(item(), Count::AtLeast(1))).describe("Non-empty batch of work items or generic task bindings (unbounded count)."),
            field("execution", OPT).of(execution()).describe("Generic execution descriptor for registration; mutually exclusive with runId. Requires the trusted workspace root from the plugin context."),
            field("runId", OPT).of(NONBLANK).describe("Existing generic execution to append to; mutually exclusive with execution."),
            field("amendmentId", OPT).of(ID).describe("Bounded amendment identity (trimmed, at most 128 characters); required with runId appends."),
            field("rationale", OPT).of(TEXT).describe("Bounded amendment rationale; required with runId appends."),
        ],
        matrix: None,
        vocabularies: &["items[].mode", "execution.source.kind"],
        prerequisites: &[
            "trusted workspace root from the plugin context for every generic registration",
            "existing generic runId for appends",
        ],
        conditional_requirements: &[
            "execution and runId are mutually exclusive",
            "amendmentId and rationale are only valid with a runId append",
            "generic items require mode delegated and a non-empty write scope of exact files",
            "standalone implementation/review_only require a unique non-empty reviewer set and forbid writeScope",
        ],
        path_kinds: vec![
            PathKindDecl::new(
                "items[].writeScope[]",
                PathKind::ExactFile,
                "workspace-relative exact file paths; wildcards, traversal, absolute/home/drive paths, backslashes, and trailing separators are rejected",
            ),
            PathKindDecl::new(
                "execution.boundary.files[]",
                PathKind::ExactFile,
                "workspace-relative exact file paths inside the execution boundary",
            ),
            PathKindDecl::new(
                "execution.boundary.directories[]",
                PathKind::DirectorySubtree,
                "workspace-relative directory subtrees; one trailing separator is normalized away",
            ),
        ],
        result_families: &[
            ("batch", "standalone batch envelope (per-item ok/failure, no top-level ok)"),
            ("batch-failure", "standalone batch envelope with a per-item failure"),
            ("register", "generic execution registration"),
            ("amend", "generic execution amendment"),
            ("failure", "bounded owned failure"),
        ],
        representative_failures: &[
            ("items[0].typo", "unknown nested item key is rejected with its path"),
            ("execution.source.reference", "provided plan without a reference names the source field"),
        ],
    }
}
