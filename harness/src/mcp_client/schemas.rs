//! The `tools/list` comparison: each tool of the suite that the server serves has its
//! `inputSchema` compared with the published 1.6.0 schema, equal as JSON values (member order
//! aside, numbers by value); a difference is told by the JSON pointers (RFC 6901) where the two
//! differ.

use vvoc_reference::schema::published_schema;
use vvoc_reference::{JsString, Json, Object, Tool};

use crate::mcp_client::session::ListedTool;
use crate::report::conformance::{McpSection, SchemaReport, ToolId};

/// At most this many differing paths are kept per tool; the rest are only counted.
pub const MAX_PATHS: usize = 20;

/// How one tool's schema compares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchemaOutcome {
    /// Equal to the published schema.
    Equal,
    /// Different: the first [`MAX_PATHS`] JSON pointers where the two differ (`""` is the
    /// whole schema), in the published schema's order, and how many more there are.
    Differs {
        /// The pointers.
        paths: Vec<String>,
        /// How many more differ.
        more: usize,
    },
    /// The server does not serve the tool.
    NotServed,
}

/// One tool's schema comparison.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolSchema {
    /// The tool.
    pub tool: Tool,
    /// How its schema compares.
    pub outcome: SchemaOutcome,
}

impl ToolSchema {
    /// One line on it: `<tool>: equal`, `<tool>: differs at /a, /b (and N more)` or
    /// `<tool>: not served`.
    pub fn line(&self) -> String {
        let tool = self.tool.id();
        match &self.outcome {
            SchemaOutcome::Equal => format!("{tool}: equal to the published schema"),
            SchemaOutcome::NotServed => format!("{tool}: not served (unsupported)"),
            SchemaOutcome::Differs { paths, more } => {
                let shown: Vec<String> = paths
                    .iter()
                    .map(|p| match p.is_empty() {
                        true => "(root)".to_owned(),
                        false => p.clone(),
                    })
                    .collect();
                let more = match more {
                    0 => String::new(),
                    n => format!(" (and {n} more)"),
                };
                format!(
                    "{tool}: inputSchema differs from the published schema at {}{more}",
                    shown.join(", ")
                )
            }
        }
    }

    /// Whether the schema fails the run.
    pub fn fails(&self) -> bool {
        matches!(self.outcome, SchemaOutcome::Differs { .. })
    }
}

/// The schemas as `conformance.json` holds them.
pub fn section(schemas: &[ToolSchema]) -> McpSection {
    let report = |outcome: &SchemaOutcome| match outcome {
        SchemaOutcome::Equal => SchemaReport {
            outcome: "equal".to_owned(),
            paths: Vec::new(),
            more: 0,
        },
        SchemaOutcome::NotServed => SchemaReport {
            outcome: "not-served".to_owned(),
            paths: Vec::new(),
            more: 0,
        },
        SchemaOutcome::Differs { paths, more } => SchemaReport {
            outcome: SchemaReport::DIFFERS.to_owned(),
            paths: paths.clone(),
            more: *more,
        },
    };
    McpSection {
        schemas: schemas
            .iter()
            .map(|s| (ToolId(s.tool), report(&s.outcome)))
            .collect(),
    }
}

/// Compares the schema of each of `tools` as `listed` serves it (the first tool of a name) with
/// the published one.
pub fn compare_schemas(listed: &[ListedTool], tools: &[Tool]) -> Vec<ToolSchema> {
    tools
        .iter()
        .map(|&tool| {
            let served = listed.iter().find(|l| l.name == tool.id());
            let outcome = match served {
                None => SchemaOutcome::NotServed,
                Some(listed) => {
                    let published = published_schema(tool);
                    let paths = differences(&published, listed.input_schema.as_ref());
                    match paths.is_empty() {
                        true => SchemaOutcome::Equal,
                        false => SchemaOutcome::Differs {
                            more: paths.len().saturating_sub(MAX_PATHS),
                            paths: paths.into_iter().take(MAX_PATHS).collect(),
                        },
                    }
                }
            };
            ToolSchema { tool, outcome }
        })
        .collect()
}

/// Every JSON pointer where `received` differs from `expected` (a member or element that only
/// one side has is a difference at its own pointer), walked with a stack of its own so that a
/// schema of any depth is compared without recursion.
pub fn differences(expected: &Json, received: Option<&Json>) -> Vec<String> {
    let mut found = Vec::new();
    let mut tasks: Vec<(String, Option<&Json>, Option<&Json>)> =
        vec![(String::new(), Some(expected), received)];
    while let Some((at, expected, received)) = tasks.pop() {
        let (Some(expected), Some(received)) = (expected, received) else {
            found.push(at);
            continue;
        };
        match (expected, received) {
            (Json::Object(e), Json::Object(r)) => {
                let names: Vec<_> = e
                    .iter()
                    .map(|(k, _)| k)
                    .chain(
                        r.iter()
                            .map(|(k, _)| k)
                            .filter(|k| !e.iter().any(|(n, _)| n == *k)),
                    )
                    .collect();
                for name in names.into_iter().rev() {
                    let pointer = format!("{at}/{}", escape(&name.to_string_lossy()));
                    tasks.push((pointer, member(e, name), member(r, name)));
                }
            }
            (Json::Array(e), Json::Array(r)) => {
                for i in (0..e.len().max(r.len())).rev() {
                    tasks.push((format!("{at}/{i}"), e.get(i), r.get(i)));
                }
            }
            _ => {
                if !expected.same_as(received) {
                    found.push(at);
                }
            }
        }
    }
    found
}

fn member<'a>(object: &'a Object, name: &JsString) -> Option<&'a Json> {
    object.iter().find(|(k, _)| *k == name).map(|(_, v)| v)
}

/// A member name as a JSON pointer's reference token: `~` is `~0`, `/` is `~1`.
fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Json {
        Json::parse(text).expect("JSON")
    }

    #[test]
    fn equal_schemas_differ_nowhere_whatever_their_member_order() {
        let a =
            json(r#"{"type":"object","properties":{"a":{"type":"string"},"b":{"maximum":20}}}"#);
        let b =
            json(r#"{"properties":{"b":{"maximum":20.0},"a":{"type":"string"}},"type":"object"}"#);
        assert_eq!(differences(&a, Some(&b)), Vec::<String>::new());
    }

    #[test]
    fn a_difference_is_named_by_its_json_pointer() {
        let a = json(r#"{"properties":{"count":{"maximum":20},"a/b~":{"enum":["x","y"]}}}"#);
        let b = json(r#"{"properties":{"count":{"maximum":21},"a/b~":{"enum":["x"]}},"extra":1}"#);
        assert_eq!(
            differences(&a, Some(&b)),
            [
                "/properties/count/maximum",
                "/properties/a~1b~0/enum/1",
                "/extra"
            ]
        );
        assert_eq!(differences(&a, Some(&json("true"))), [""]);
        assert_eq!(differences(&a, None), [""]);
    }

    #[test]
    fn a_tool_not_listed_is_not_served_and_a_listed_one_is_compared() {
        let listed = [ListedTool {
            name: "web_search".to_owned(),
            input_schema: Some(published_schema(Tool::WebSearch)),
        }];
        let compared = compare_schemas(&listed, &[Tool::WebSearch, Tool::WebFetch]);
        assert_eq!(compared[0].outcome, SchemaOutcome::Equal);
        assert_eq!(compared[1].outcome, SchemaOutcome::NotServed);
        assert!(!compared.iter().any(ToolSchema::fails));
    }
}
