//! The published input schemas (§7): one draft 2020-12 JSON Schema per tool, derived from the catalog.

use crate::catalog::{Field, Limit, MAX_SAFE_INTEGER, Node, Range, Tool, ToolSpec};
use crate::json::{Json, Object};

/// The `$schema` of every published schema.
pub const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The published input schema of `tool`, members in the order of §7.
pub fn published_schema(tool: Tool) -> Json {
    schema_of(tool.spec())
}

/// The published input schema of a catalog entry.
pub fn schema_of(spec: &ToolSpec) -> Json {
    let mut schema = Object::new();
    schema.insert("$schema", Json::str(DRAFT));
    object_body(&mut schema, &spec.fields);
    Json::Object(schema)
}

/// `type`, `properties`, `required` (when any) and `additionalProperties: false`.
fn object_body(schema: &mut Object, fields: &[Field]) {
    schema.insert("type", Json::str("object"));
    let mut properties = Object::new();
    for field in fields {
        let mut property = Object::new();
        property.insert("description", Json::str(field.description));
        if let Some(default) = &field.default {
            property.insert("default", default.value.to_json());
        }
        node_body(&mut property, &field.node);
        properties.insert(field.name, Json::Object(property));
    }
    schema.insert("properties", Json::Object(properties));
    let required: Vec<Json> = fields
        .iter()
        .filter(|f| f.required)
        .map(|f| Json::str(f.name))
        .collect();
    if !required.is_empty() {
        schema.insert("required", Json::Array(required));
    }
    schema.insert("additionalProperties", Json::Bool(false));
}

/// The keywords of a node after its description and default.
fn node_body(schema: &mut Object, node: &Node) {
    match node {
        Node::Object(fields) => object_body(schema, fields),
        Node::Array(element, count) => {
            if let Some(min) = count.min() {
                schema.insert("minItems", Json::Number(f64::from(min)));
            }
            if let Some(max) = count.max() {
                schema.insert("maxItems", Json::Number(f64::from(max)));
            }
            schema.insert("type", Json::str("array"));
            schema.insert("items", element_schema(element));
        }
        Node::String(kind) => {
            schema.insert("type", Json::str("string"));
            let (min, max) = kind.length();
            if let Some(min) = min {
                schema.insert("minLength", Json::Number(f64::from(min)));
            }
            if let Some(max) = max {
                schema.insert("maxLength", Json::Number(f64::from(max)));
            }
        }
        Node::Integer(range) => {
            schema.insert("type", Json::str("integer"));
            // An integer is always held to the safe range, which is its bound where none is declared.
            let safe = Range {
                min: range.min.or(Some(Limit::Inclusive(-MAX_SAFE_INTEGER))),
                max: range.max.or(Some(Limit::Inclusive(MAX_SAFE_INTEGER))),
            };
            bounds(schema, safe);
        }
        Node::Number(range) => {
            schema.insert("type", Json::str("number"));
            bounds(schema, *range);
        }
        Node::Boolean => schema.insert("type", Json::str("boolean")),
        Node::Null => schema.insert("type", Json::str("null")),
        Node::Enum(values) => {
            schema.insert("type", Json::str("string"));
            schema.insert(
                "enum",
                Json::Array(values.iter().map(|v| Json::str(v)).collect()),
            );
        }
        Node::Literal(value) => {
            schema.insert("type", Json::str("string"));
            schema.insert("const", Json::str(value));
        }
        Node::Union(branches) => schema.insert(
            "anyOf",
            Json::Array(branches.iter().map(element_schema).collect()),
        ),
    }
}

/// An array element or union branch: the node without a description.
fn element_schema(node: &Node) -> Json {
    let mut schema = Object::new();
    node_body(&mut schema, node);
    Json::Object(schema)
}

fn bounds(schema: &mut Object, range: Range) {
    match range.min {
        Some(Limit::Inclusive(v)) => schema.insert("minimum", Json::Number(v as f64)),
        Some(Limit::Exclusive(v)) => schema.insert("exclusiveMinimum", Json::Number(v as f64)),
        None => {}
    }
    match range.max {
        Some(Limit::Inclusive(v)) => schema.insert("maximum", Json::Number(v as f64)),
        Some(Limit::Exclusive(v)) => schema.insert("exclusiveMaximum", Json::Number(v as f64)),
        None => {}
    }
}
