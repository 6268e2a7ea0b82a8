//! The nine result families (execution-web.md §5) as one table, their closed JSON Schemas, and a result's family.

use super::provider::object;
use crate::catalog::{MAX_SAFE_INTEGER, Tool};
use crate::json::{Json, Object};

/// The kind of one metadata member.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Literal(&'static str),
    /// Zod `int()`: a safe integer; `nonnegative()` when the flag is set.
    Int {
        nonnegative: bool,
    },
    Number,
    String,
    Enum(&'static [&'static str]),
}

/// The envelope of a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Envelope {
    /// `{title, output, metadata}`, no `attachments`.
    Text,
    /// `{title, output, metadata, attachments}` with at least one attachment.
    Media,
}

const CREDENTIAL: Kind = Kind::Enum(&["env", "config"]);
const FORMAT: Kind = Kind::Enum(&["markdown", "text", "html"]);
const REGION: Kind = Kind::Enum(&["international", "china"]);

/// One member: name, kind, required.
type Member = (&'static str, Kind, bool);

/// One family: its name, tool, envelope, provider literal and metadata members.
struct Family {
    name: &'static str,
    tool: Tool,
    envelope: Envelope,
    provider: &'static str,
    metadata: &'static [Member],
}

const SEARCH_PLAIN: &[Member] = &[
    ("resultCount", Kind::Int { nonnegative: true }, true),
    ("credentialSource", CREDENTIAL, true),
];
const SEARCH_ZAI: &[Member] = &[
    ("region", REGION, true),
    ("resultCount", Kind::Int { nonnegative: true }, true),
    ("credentialSource", CREDENTIAL, true),
];
const NATIVE: &[Member] = &[
    ("format", FORMAT, true),
    ("status", Kind::Int { nonnegative: false }, true),
];
const SPIDER: &[Member] = &[
    ("format", FORMAT, true),
    ("credentialSource", CREDENTIAL, true),
    ("status", Kind::Int { nonnegative: false }, false),
    ("durationMs", Kind::Number, false),
];
const ZAI_TEXT: &[Member] = &[
    ("region", REGION, true),
    ("format", FORMAT, true),
    ("credentialSource", CREDENTIAL, true),
    ("status", Kind::Int { nonnegative: false }, true),
    ("requestId", Kind::String, false),
    ("model", Kind::String, false),
    ("created", Kind::Number, false),
    ("title", Kind::String, false),
];
const ZAI_MEDIA: &[Member] = &[
    ("region", REGION, true),
    ("format", FORMAT, true),
    ("credentialSource", CREDENTIAL, true),
];

/// The table of §5.1 and §5.2.
const FAMILIES: [Family; 9] = [
    Family {
        name: "web_search:exa",
        tool: Tool::WebSearch,
        envelope: Envelope::Text,
        provider: "exa",
        metadata: SEARCH_PLAIN,
    },
    Family {
        name: "web_search:brave",
        tool: Tool::WebSearch,
        envelope: Envelope::Text,
        provider: "brave",
        metadata: SEARCH_PLAIN,
    },
    Family {
        name: "web_search:zai",
        tool: Tool::WebSearch,
        envelope: Envelope::Text,
        provider: "zai",
        metadata: SEARCH_ZAI,
    },
    Family {
        name: "web_fetch:text-native",
        tool: Tool::WebFetch,
        envelope: Envelope::Text,
        provider: "native",
        metadata: NATIVE,
    },
    Family {
        name: "web_fetch:text-spider",
        tool: Tool::WebFetch,
        envelope: Envelope::Text,
        provider: "spider",
        metadata: SPIDER,
    },
    Family {
        name: "web_fetch:text-zai",
        tool: Tool::WebFetch,
        envelope: Envelope::Text,
        provider: "zai",
        metadata: ZAI_TEXT,
    },
    Family {
        name: "web_fetch:media-native",
        tool: Tool::WebFetch,
        envelope: Envelope::Media,
        provider: "native",
        metadata: NATIVE,
    },
    Family {
        name: "web_fetch:media-spider",
        tool: Tool::WebFetch,
        envelope: Envelope::Media,
        provider: "spider",
        metadata: SPIDER,
    },
    Family {
        name: "web_fetch:media-zai",
        tool: Tool::WebFetch,
        envelope: Envelope::Media,
        provider: "zai",
        metadata: ZAI_MEDIA,
    },
];

/// Each family's name with its closed JSON Schema (draft 2020-12), in the table's order.
pub fn result_schemas() -> Vec<(&'static str, Json)> {
    FAMILIES.iter().map(|f| (f.name, schema(f))).collect()
}

/// The family of a result: the one whose tool, provider literal and envelope it has (§5).
pub fn family_of(tool: Tool, result: &Json) -> Option<&'static str> {
    let result = result.as_object()?;
    let provider = result
        .get("metadata")
        .and_then(Json::as_object)
        .and_then(|m| m.get("provider"))
        .and_then(Json::as_string)?;
    let envelope = if result.contains("attachments") {
        Envelope::Media
    } else {
        Envelope::Text
    };
    FAMILIES
        .iter()
        .find(|f| f.tool == tool && f.envelope == envelope && provider.eq_str(f.provider))
        .map(|f| f.name)
}

fn string() -> Json {
    Json::Object(object([("type", Json::str("string"))]))
}

fn closed(properties: Object, required: &[&str]) -> Json {
    Json::Object(object([
        ("type", Json::str("object")),
        ("properties", Json::Object(properties)),
        (
            "required",
            Json::Array(required.iter().map(|r| Json::str(r)).collect()),
        ),
        ("additionalProperties", Json::Bool(false)),
    ]))
}

fn kind_schema(kind: Kind) -> Json {
    #[expect(clippy::cast_precision_loss, reason = "2^53 - 1 is exact as a double")]
    let safe = MAX_SAFE_INTEGER as f64;
    Json::Object(match kind {
        Kind::Literal(value) => object([("const", Json::str(value))]),
        Kind::Int { nonnegative } => object([
            ("type", Json::str("integer")),
            (
                "minimum",
                Json::Number(if nonnegative { 0.0 } else { -safe }),
            ),
            ("maximum", Json::Number(safe)),
        ]),
        Kind::Number => object([("type", Json::str("number"))]),
        Kind::String => return string(),
        Kind::Enum(values) => object([
            ("type", Json::str("string")),
            (
                "enum",
                Json::Array(values.iter().map(|v| Json::str(v)).collect()),
            ),
        ]),
    })
}

fn schema(family: &Family) -> Json {
    let mut metadata = Object::new();
    let mut metadata_required = vec!["provider"];
    metadata.insert("provider", kind_schema(Kind::Literal(family.provider)));
    for (name, kind, required) in family.metadata {
        metadata.insert(name, kind_schema(*kind));
        if *required {
            metadata_required.push(name);
        }
    }
    let mut properties = object([
        ("title", string()),
        ("output", string()),
        ("metadata", closed(metadata, &metadata_required)),
    ]);
    let mut required = vec!["title", "output", "metadata"];
    if family.envelope == Envelope::Media {
        let attachment = closed(
            object([
                ("type", kind_schema(Kind::Literal("file"))),
                ("mime", string()),
                ("url", string()),
                ("filename", string()),
            ]),
            &["type", "mime", "url"],
        );
        properties.insert(
            "attachments",
            Json::Object(object([
                ("type", Json::str("array")),
                ("items", attachment),
                ("minItems", Json::Number(1.0)),
            ])),
        );
        required.push("attachments");
    }
    let mut out = object([(
        "$schema",
        Json::str("https://json-schema.org/draft/2020-12/schema"),
    )]);
    if let Some(body) = closed(properties, &required).into_object() {
        for (name, value) in body.iter() {
            out.insert(&name.to_string_lossy(), value.clone());
        }
    }
    Json::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nine_closed_schemas() {
        let schemas = result_schemas();
        assert_eq!(schemas.len(), 9);
        for (name, schema) in &schemas {
            let text = schema.to_compact();
            assert!(text.contains("\"additionalProperties\":false"), "{name}");
            assert!(text.contains("2020-12"), "{name}");
        }
        let (_, media_zai) = &schemas[8];
        assert!(media_zai.to_compact().contains("\"minItems\":1"));
        let (_, exa) = &schemas[0];
        assert!(exa.to_compact().contains(
            "\"resultCount\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":9007199254740991}"
        ));
    }

    #[test]
    fn families_by_provider_and_envelope() {
        let parse = |t: &str| Json::parse(t).unwrap_or(Json::Null);
        let text = parse(r#"{"title":"t","output":"o","metadata":{"provider":"native"}}"#);
        let media =
            parse(r#"{"title":"t","output":"o","attachments":[],"metadata":{"provider":"zai"}}"#);
        let exa = parse(r#"{"metadata":{"provider":"exa"}}"#);
        assert_eq!(
            family_of(Tool::WebFetch, &text),
            Some("web_fetch:text-native")
        );
        assert_eq!(
            family_of(Tool::WebFetch, &media),
            Some("web_fetch:media-zai")
        );
        assert_eq!(family_of(Tool::WebSearch, &exa), Some("web_search:exa"));
        assert_eq!(family_of(Tool::WebFetch, &exa), None);
        assert_eq!(family_of(Tool::WebSearch, &Json::Null), None);
    }
}
