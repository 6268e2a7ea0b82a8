//! The catalog entry of `web_fetch`.

use super::*;

/// The catalog entry of `web_fetch`, under `id`, which the tool table of `catalog/mod.rs` gives.
pub fn spec(id: &'static str) -> ToolSpec {
    ToolSpec {
        id,
        summary: "Fetch a known HTTP(S) URL and return Markdown, text, HTML, or a media attachment.",
        description: "Fetch a known HTTP or HTTPS URL using the configured provider. Returns Markdown, text, raw HTML, or an image/PDF attachment.",
        fields: vec![
            field("url", REQ)
                .of(Node::String(StringKind::Line))
                .describe("The HTTP or HTTPS URL to retrieve; the URL is requested unchanged."),
            field("format", OPT)
                .of(Node::Enum(&["markdown", "text", "html"]))
                .describe("Output format for textual resources: markdown, text, or html. Default markdown.")
                .with_default(Scalar::String("markdown"), REAPPLIED),
            field("timeout", OPT)
                .of(Node::Number(Range { min: Some(Limit::Exclusive(0)), max: Some(Limit::Inclusive(120)) }))
                .describe(
                    "Timeout in seconds: greater than 0 and at most 120; fractional values are allowed. Default 30.",
                )
                .with_default(Scalar::Integer(30), "re-applied at execute time; positive and at most 120"),
        ],
        matrix: None,
        vocabularies: &["format"],
        prerequisites: &["configured provider and permission prompt", "resolved credential for spider/zai providers"],
        conditional_requirements: &["format defaults to markdown; timeout is positive and at most 120"],
        path_kinds: vec![PathKindDecl::new(
            "url",
            PathKind::Url,
            "absolute http(s) URL; the URL is requested unchanged and never echoed in diagnostics",
        )],
        result_families: &[
            ("text-native", "native textual result envelope"),
            ("text-spider", "Spider textual result envelope with request timing"),
            ("text-zai", "regional Z.AI textual result envelope with reader metadata"),
            ("media-native", "native media result envelope with a real attachment"),
            ("media-spider", "Spider media result envelope with request timing"),
            ("media-zai", "regional Z.AI media result envelope with a real attachment"),
        ],
        representative_failures: &[
            ("url", "a non-http(s) URL is rejected without echoing the raw URL"),
            ("timeout", "an out-of-bounds timeout is rejected before dispatch"),
        ],
    }
}
