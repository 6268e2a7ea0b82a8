//! The catalog entry of `web_search`.

use super::*;

/// The catalog entry of `web_search`, under `id`, which the tool table of `catalog/mod.rs` gives.
pub fn spec(id: &'static str) -> ToolSpec {
    ToolSpec {
        id,
        summary: "Search the configured provider and return ranked Markdown results.",
        description: "Search the web using the configured provider and return ranked results as Markdown. Use for discovering information; returns titles, URLs, snippets, and dates.",
        fields: vec![
            field("query", REQ)
                .of(Node::String(StringKind::Line))
                .describe("The search query; the text is sent unchanged."),
            field("count", OPT)
                .of(Node::Integer(Range {
                    min: Some(Limit::Inclusive(1)),
                    max: Some(Limit::Inclusive(20)),
                }))
                .describe("Number of results, integer 1 through 20, default 8.")
                .with_default(Scalar::Integer(8), REAPPLIED),
            field("freshness", OPT)
                .of(Node::Enum(&["day", "week", "month", "year"]))
                .describe("Optional time window restricting results: day, week, month, or year."),
        ],
        matrix: None,
        vocabularies: &["freshness"],
        prerequisites: &[
            "configured provider and permission prompt",
            "resolved credential (env or config) for non-native providers",
        ],
        conditional_requirements: &["count is an integer 1..20; freshness is optional"],
        path_kinds: vec![],
        result_families: &[
            ("exa", "ranked Markdown result from the Exa provider"),
            ("brave", "ranked Markdown result from the Brave provider"),
            (
                "zai",
                "ranked Markdown result from the regional Z.AI provider",
            ),
        ],
        representative_failures: &[
            ("count", "an out-of-range count is rejected before dispatch"),
            (
                "credential",
                "unknown credential/provider fields are rejected",
            ),
        ],
    }
}
