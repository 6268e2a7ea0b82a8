//! The tools `conform mcp` serves (`--tools`), and each one's entry of `tools/list`: name, description, published schema, hints.

use std::fmt;
use std::sync::Arc;

use rmcp::model::ToolAnnotations;
use vvoc_reference::Tool;
use vvoc_reference::schema::published_schema;

use crate::json::bridge::to_serde;

/// The tools served, in document order (`Tool::ALL`), each once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Served(Vec<Tool>);

/// Why a `--tools` list was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolsError {
    /// A name that is no tool of the contract.
    Unknown(String),
    /// No name at all.
    Empty,
}

impl fmt::Display for ToolsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let valid = Tool::ALL.map(Tool::id).join(", ");
        match self {
            ToolsError::Unknown(name) => {
                write!(f, "--tools: unknown tool {name:?}; the tools are {valid}")
            }
            ToolsError::Empty => write!(f, "--tools: names no tool; the tools are {valid}"),
        }
    }
}

impl std::error::Error for ToolsError {}

impl Served {
    /// All nine tools.
    pub fn all() -> Served {
        Served(Tool::ALL.to_vec())
    }

    /// The tools of a comma-separated list (spaces around names ignored, repeats allowed).
    ///
    /// # Errors
    ///
    /// A name that is not a tool's, or a list without any name.
    pub fn parse(list: &str) -> Result<Served, ToolsError> {
        let mut picked = Vec::new();
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let tool: Tool = name
                .parse()
                .map_err(|_| ToolsError::Unknown(name.to_owned()))?;
            picked.push(tool);
        }
        if picked.is_empty() {
            return Err(ToolsError::Empty);
        }
        Ok(Served(
            Tool::ALL
                .into_iter()
                .filter(|t| picked.contains(t))
                .collect(),
        ))
    }

    /// The served tools, in document order.
    pub fn tools(&self) -> &[Tool] {
        &self.0
    }

    /// The served tool of this name.
    pub fn get(&self, name: &str) -> Option<Tool> {
        self.0.iter().copied().find(|t| t.id() == name)
    }
}

/// The `tools/list` entry of `tool`: its id, the catalog's model-facing description, the
/// published input schema, and the hints the catalog's facts give.
pub fn entry(tool: Tool) -> rmcp::model::Tool {
    let schema = to_serde(&published_schema(tool))
        .map(crate::json::bridge::SerdeValue::into_inner)
        .and_then(|value| match value {
            serde_json::Value::Object(map) => Some(map),
            _ => None,
        })
        // Never taken: a published schema is an object of plain strings and finite numbers.
        .unwrap_or_default();
    let mut entry = rmcp::model::Tool::new(tool.id(), tool.spec().description, Arc::new(schema));
    entry.annotations = annotations(tool);
    entry
}

/// The hints of `tool`: read-only for the tools that change nothing (listing work items,
/// searching, fetching; the web tools also open-world), destructive for the editors (they overwrite, rename and delete files).
/// The workflow tools that record state get none: their hints' defaults already say "may
/// change its environment", and the reference does not execute them yet.
pub fn annotations(tool: Tool) -> Option<ToolAnnotations> {
    match tool {
        Tool::WorkItemList => Some(ToolAnnotations::new().read_only(true)),
        // They reach hosts on the open web (or a configured provider).
        Tool::WebSearch | Tool::WebFetch => {
            Some(ToolAnnotations::new().read_only(true).open_world(true))
        }
        Tool::HashlineEdit | Tool::StrReplaceEditor => {
            Some(ToolAnnotations::new().read_only(false).destructive(true))
        }
        Tool::WorkItemOpen | Tool::WorkItemClose | Tool::WorkItemDecide | Tool::WorkCheckpoint => {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tools_list_keeps_document_order_and_refuses_an_unknown_name_naming_the_valid_ones() {
        let served = Served::parse(" web_fetch,hashline_edit,web_fetch ");
        assert_eq!(
            served.as_ref().map(Served::tools),
            Ok(&[Tool::HashlineEdit, Tool::WebFetch][..])
        );
        let error = Served::parse("hashline_edit,bash").map(|_| ());
        let text = error.as_ref().map_err(ToString::to_string);
        assert!(
            matches!(&text, Err(t) if t.contains("\"bash\"") && t.contains("str_replace_editor")),
            "{text:?}"
        );
        assert_eq!(Served::parse(" , "), Err(ToolsError::Empty));
    }
}
