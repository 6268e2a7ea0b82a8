//! The catalog entry of `work_item_list`.

use super::*;

/// The catalog entry of `work_item_list`, under `id`, which the tool table of `catalog/mod.rs` gives.
pub fn spec(id: &'static str) -> ToolSpec {
    ToolSpec {
        id,
        summary: "List current-session work items, native plan runs, and generic executions with contract identity.",
        description: "List workflow work items for the current session.",
        fields: vec![
            field("includeClosed", OPT)
                .of(Node::Boolean)
                .describe("Include closed work items in the listing; defaults to false."),
        ],
        matrix: None,
        vocabularies: &[],
        prerequisites: &["same-session store hydration from the plugin context"],
        conditional_requirements: &["includeClosed defaults to false and is optional"],
        path_kinds: vec![],
        result_families: &[
            ("view", "inspection view with loaded contract identity"),
            ("failure", "bounded owned failure"),
        ],
        representative_failures: &[(
            "includeClosed",
            "a non-boolean value is rejected rather than coerced",
        )],
    }
}
