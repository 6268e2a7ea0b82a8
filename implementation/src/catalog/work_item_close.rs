//! The catalog entry of `work_item_close`.

use super::shapes::*;
use super::*;

/// The catalog entry of `work_item_close`, under `id`, which the tool table of `catalog/mod.rs` gives.
pub fn spec(id: &'static str) -> ToolSpec {
    ToolSpec {
        id,
        summary: "Close a same-session work item once its reviews are complete and no concerns remain open.",
        description: "Close a workflow work item by id when it is ready_to_close.",
        fields: vec![
            field("workItemId", REQ)
                .of(ID)
                .describe("Non-empty id of the work item to close."),
        ],
        matrix: None,
        vocabularies: &[],
        prerequisites: &["same-session work item in ready_to_close state"],
        conditional_requirements: &[
            "open concerns or pending reviews refuse the close with the unmet prerequisite",
        ],
        path_kinds: vec![],
        result_families: &[
            ("success", "closed work item"),
            ("failure", "bounded owned failure"),
        ],
        representative_failures: &[(
            "workItemId",
            "blank ids are rejected before any state mutation",
        )],
    }
}
