//! Workflow scenarios (formats.md, "Workflow scenario file"): a host session against one
//! instance of the workflow plugin, step by step (calls of the five workflow tools, the host's
//! `task` events, restarts), and the data directory before and after.

pub mod compare;
pub mod model;
pub mod play;
pub mod wire;

use vvoc_reference::Tool;

/// Whether `tool`'s scenarios are workflow scenarios: the five workflow tools, which the
/// reference executes through `exec::workflow` (`execution-workflow.md`).
pub fn is_workflow(tool: Tool) -> bool {
    match tool {
        Tool::WorkItemOpen
        | Tool::WorkItemList
        | Tool::WorkItemClose
        | Tool::WorkItemDecide
        | Tool::WorkCheckpoint => true,
        Tool::HashlineEdit | Tool::StrReplaceEditor | Tool::WebSearch | Tool::WebFetch => false,
    }
}
