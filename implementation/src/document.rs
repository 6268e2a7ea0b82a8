//! The reference document (§8): rendered from the catalog, the published schemas and the
//! documented examples, whose outcomes are computed by running the validators.

/// Kept here for callers that import it from the document; the catalog owns it.
use crate::catalog::vocabulary;
use crate::catalog::{
    CONTRACT_REVISION, CONTRACT_VERSION, PACKAGE, REFERENCE_PATH, Tool, ToolSpec, prose,
};
use crate::json::Json;
use crate::schema::schema_of;
use crate::text::{is_trim_unit, trim};
use crate::{JsString, validate_json};

/// The command that regenerates the published files.
pub const GENERATOR_COMMAND: &str = "cargo xtask docs";

/// A documented example: a checked example of the document.
#[derive(Clone, Copy, Debug)]
pub struct Example<'a> {
    /// The tool.
    pub tool: Tool,
    /// The example's id.
    pub id: &'a str,
    /// The input, with its members in their own order.
    pub input: &'a Json,
}

/// The whole document of the catalog, ending in a single newline.
pub fn render(examples: &[Example<'_>]) -> String {
    let specs: Vec<&ToolSpec> = Tool::ALL.iter().map(|t| t.spec()).collect();
    render_catalog(&specs, examples)
}

/// The whole document of the given catalog entries (one per tool, in document order).
///
/// Taking the entries as a parameter lets a test render a changed copy of the catalog.
pub fn render_catalog(specs: &[&ToolSpec], examples: &[Example<'_>]) -> String {
    let mut lines: Vec<String> = Vec::new();
    header(&mut lines, specs);
    for (tool, spec) in Tool::ALL.into_iter().zip(specs) {
        let own: Vec<&Example<'_>> = examples.iter().filter(|e| e.tool == tool).collect();
        section(&mut lines, tool, spec, &own);
    }
    let text = lines.join("\n");
    format!("{}\n", text.trim_end())
}

/// `<D>` and `<S>` of the size line (§8.6): description bytes and compact schema bytes, summed.
pub fn model_facing_size(specs: &[&ToolSpec]) -> (usize, usize) {
    let descriptions = specs.iter().map(|s| s.description.len()).sum();
    let schemas = specs.iter().map(|s| schema_of(s).to_compact().len()).sum();
    (descriptions, schemas)
}

fn header(lines: &mut Vec<String>, specs: &[&ToolSpec]) {
    let (descriptions, schemas) = model_facing_size(specs);
    let tools: Vec<String> = specs.iter().map(|s| format!("`{}`", s.id)).collect();
    lines.extend([
        prose::TITLE.to_owned(),
        String::new(),
        format!("Generated from the pure tool catalog. Do not edit by hand; run `{GENERATOR_COMMAND}`."),
        String::new(),
        format!("- Package: `{PACKAGE}@{CONTRACT_VERSION}`"),
        format!("- Tool contract revision: `{CONTRACT_REVISION}`"),
        format!("- Reference path: `{REFERENCE_PATH}`"),
        format!(
            "- Current model-facing size: descriptions {descriptions} bytes, published input schemas {schemas} bytes"
        ),
        prose::BASELINE.to_owned(),
        String::new(),
    ]);
    lines.extend(prose::DISCLAIMER.iter().map(|l| (*l).to_owned()));
    lines.extend([
        String::new(),
        "## Reading guide".to_owned(),
        String::new(),
        format!("{}{}.", prose::READING_GUIDE, tools.join(", ")),
        String::new(),
        "## Tools".to_owned(),
        String::new(),
    ]);
}

fn section(lines: &mut Vec<String>, tool: Tool, spec: &ToolSpec, examples: &[&Example<'_>]) {
    lines.push(format!("### `{tool}`"));
    lines.push(String::new());
    lines.push(format!("- Summary: {}", spec.summary));
    lines.push(format!("- Description: {}", first_line(spec.description)));
    lines.push(String::new());
    field_table(lines, spec);
    let vocabularies: Vec<String> = spec
        .vocabularies
        .iter()
        .map(|field| format!("- `{field}`: {}", vocabulary(spec, field).join(" | ")))
        .collect();
    block(lines, "Closed vocabularies:", vocabularies);
    let defaults: Vec<String> = spec
        .fields
        .iter()
        .filter_map(|f| {
            f.default.as_ref().map(|d| {
                format!(
                    "- `{}` = `{}` ({})",
                    f.name,
                    d.value.to_json().to_compact(),
                    d.note
                )
            })
        })
        .collect();
    block(lines, "Execute-time defaults:", defaults);
    block(
        lines,
        "State/host prerequisites:",
        spec.prerequisites
            .iter()
            .map(|p| format!("- {p}"))
            .collect(),
    );
    block(
        lines,
        "Conditional requirements:",
        spec.conditional_requirements
            .iter()
            .map(|c| format!("- {c}"))
            .collect(),
    );
    let path_kinds = spec
        .path_kinds
        .iter()
        .map(|p| format!("- `{}` ({}): {}", p.field, p.kind.name(), p.rules))
        .collect();
    block(lines, "Path kinds:", path_kinds);
    lines.push("Result families:".to_owned());
    lines.extend(
        spec.result_families
            .iter()
            .map(|(id, label)| format!("- `{tool}:{id}`: {label}")),
    );
    lines.push(String::new());
    let failures = spec
        .representative_failures
        .iter()
        .map(|(path, what)| format!("- `{path}`: {what}"))
        .collect();
    block(lines, "Representative failures:", failures);
    lines.push("Checked examples:".to_owned());
    for example in examples {
        let outcome = if validate_json(tool, example.input).is_accept() {
            "accept"
        } else {
            "reject"
        };
        lines.push(format!("- `{tool}:{}` ({outcome}):", example.id));
        lines.push("  ```json".to_owned());
        lines.extend(example.input.to_pretty().lines().map(|l| format!("  {l}")));
        lines.push("  ```".to_owned());
    }
    lines.push(String::new());
}

/// A titled list followed by an empty line, or nothing when the list is empty.
fn block(lines: &mut Vec<String>, title: &str, entries: Vec<String>) {
    if !entries.is_empty() {
        lines.push(title.to_owned());
        lines.extend(entries);
        lines.push(String::new());
    }
}

/// The field table: one row per property of the published schema, in schema order.
fn field_table(lines: &mut Vec<String>, spec: &ToolSpec) {
    lines.push("| field | type | required | description |".to_owned());
    lines.push("| --- | --- | --- | --- |".to_owned());
    let schema = schema_of(spec);
    let schema = schema.as_object().expect("a published schema is an object");
    let required: Vec<&Json> = schema
        .get("required")
        .and_then(Json::as_array)
        .unwrap_or_default()
        .iter()
        .collect();
    let properties = schema
        .get("properties")
        .and_then(Json::as_object)
        .expect("a published schema has properties");
    for (name, property) in properties.iter() {
        let property = property.as_object().expect("a property is an object");
        let text = |key: &str| {
            property
                .get(key)
                .and_then(Json::as_string)
                .map(JsString::to_string_lossy)
        };
        let kind = match property.get("enum").and_then(Json::as_array) {
            Some(values) => {
                let values: Vec<String> = values
                    .iter()
                    .filter_map(Json::as_string)
                    .map(JsString::to_string_lossy)
                    .collect();
                format!("enum({})", values.join(" | "))
            }
            None => text("type").unwrap_or_else(|| {
                if property.contains("anyOf") {
                    "union"
                } else {
                    "object"
                }
                .to_owned()
            }),
        };
        let is_required = required.iter().any(|r| r.as_string() == Some(name));
        let description = cell(&text("description").unwrap_or_default());
        lines.push(format!(
            "| `{}` | {} | {} | {} |",
            escape(&name.to_string_lossy()),
            escape(&kind),
            if is_required { "yes" } else { "no" },
            escape(&description)
        ));
    }
    lines.push(String::new());
}

/// A description as a table cell: whitespace runs collapsed to one space, cut to 160 units.
fn cell(description: &str) -> String {
    let mut units: Vec<u16> = Vec::new();
    let mut in_space = false;
    for u in description.encode_utf16() {
        if is_trim_unit(u) {
            if !in_space {
                units.push(0x20);
            }
            in_space = true;
        } else {
            units.push(u);
            in_space = false;
        }
    }
    units.truncate(160);
    String::from_utf16_lossy(&units)
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('|', "\\|")
}

/// The description up to its first line break, trimmed, cut to 240 units with an ellipsis.
fn first_line(description: &str) -> String {
    let line = description.split(['\n', '\r']).next().unwrap_or_default();
    let units: Vec<u16> = line.encode_utf16().collect();
    crate::text::truncate(trim(&units), 240).to_string_lossy()
}
