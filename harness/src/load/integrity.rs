//! Integrity of the catalog against the vectors: every published fact is exercised by some vector.
//!
//! Each check takes the catalog entries and vectors as parameters, so that a test can show it
//! failing on a broken copy. Each returns the problems it found, one sentence each.

use vvoc_reference::catalog::vocabulary;
use vvoc_reference::catalog::{Tool, ToolSpec};
use vvoc_reference::{Json, Verdict};

use crate::load::vector::Vector;

/// Every value of every documented vocabulary is carried by the output of some accepted `doc`
/// vector (an output, so that a default counts as carried).
pub fn vocabulary_values_are_documented(specs: &[&ToolSpec], vectors: &[Vector]) -> Vec<String> {
    let mut problems = Vec::new();
    for (tool, spec) in Tool::ALL.into_iter().zip(specs) {
        for pattern in spec.vocabularies {
            let mut carried = Vec::new();
            for vector in vectors.iter().filter(|v| v.tool == tool && v.doc) {
                if let Verdict::Accept(output) = &vector.expected {
                    values_at(output, pattern, &mut carried);
                }
            }
            for value in vocabulary(spec, pattern) {
                if !carried
                    .iter()
                    .any(|c| c.as_string().is_some_and(|s| s.eq_str(value)))
                {
                    problems.push(format!(
                        "{tool}: no accepted doc vector carries {value:?} at `{pattern}`"
                    ));
                }
            }
        }
    }
    problems
}

/// Every documented vocabulary field is refused at its own path by some reject vector.
pub fn vocabulary_fields_are_refused(specs: &[&ToolSpec], vectors: &[Vector]) -> Vec<String> {
    let mut problems = Vec::new();
    for (tool, spec) in Tool::ALL.into_iter().zip(specs) {
        for pattern in spec.vocabularies {
            let refused = vectors
                .iter()
                .filter(|v| v.tool == tool)
                .any(|v| match &v.expected {
                    Verdict::Reject(issues) => issues
                        .iter()
                        .any(|i| pattern_of(&i.path.to_string()) == *pattern),
                    Verdict::Accept(_) => false,
                });
            if !refused {
                problems.push(format!(
                    "{tool}: no reject vector has an issue at `{pattern}`"
                ));
            }
        }
    }
    problems
}

/// Every execute-time default is observed in an accepted vector's output where the input left
/// the field out.
pub fn defaults_are_observed(specs: &[&ToolSpec], vectors: &[Vector]) -> Vec<String> {
    let mut problems = Vec::new();
    for (tool, spec) in Tool::ALL.into_iter().zip(specs) {
        for field in &spec.fields {
            let Some(default) = &field.default else {
                continue;
            };
            let expected = default.value.to_json();
            let observed = vectors.iter().filter(|v| v.tool == tool).any(|v| {
                let absent = v.input.as_object().is_some_and(|o| !o.contains(field.name));
                let output = match &v.expected {
                    Verdict::Accept(output) => output.as_object().and_then(|o| o.get(field.name)),
                    Verdict::Reject(_) => None,
                };
                absent && output.is_some_and(|o| o.same_as(&expected))
            });
            if !observed {
                problems.push(format!(
                    "{tool}: no accepted vector shows the default `{}` = {} of an absent field",
                    field.name,
                    expected.to_compact()
                ));
            }
        }
    }
    problems
}

/// Every object node of every schema is closed (`additionalProperties: false`).
pub fn schemas_are_closed(schemas: &[(&str, Json)]) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, schema) in schemas {
        open_objects(schema, "#", &mut |at| {
            problems.push(format!("{name}: the object at {at} is not closed"))
        });
    }
    problems
}

/// Every tool has accepted and refused `doc` vectors.
pub fn tools_have_doc_examples(vectors: &[Vector]) -> Vec<String> {
    let mut problems = Vec::new();
    for tool in Tool::ALL {
        for (accept, kind) in [(true, "accept"), (false, "reject")] {
            if !vectors
                .iter()
                .any(|v| v.tool == tool && v.doc && v.expected.is_accept() == accept)
            {
                problems.push(format!("{tool}: no {kind} doc vector"));
            }
        }
    }
    problems
}

/// The values at a field pattern (`items[].mode`), seen through arrays.
fn values_at(value: &Json, pattern: &str, found: &mut Vec<Json>) {
    let (first, rest) = pattern
        .split_once('.')
        .map_or((pattern, None), |(a, b)| (a, Some(b)));
    let name = first.trim_end_matches("[]");
    let Some(mut values) = value.as_object().and_then(|o| o.get(name)).map(|v| vec![v]) else {
        return;
    };
    for _ in 0..(first.len() - name.len()) / 2 {
        values = values
            .into_iter()
            .flat_map(|v| v.as_array().unwrap_or_default())
            .collect();
    }
    for v in values {
        match rest {
            Some(rest) => values_at(v, rest, found),
            None => found.push(v.clone()),
        }
    }
}

/// An issue path as a field pattern: indexes become `[]` (`items[0].mode` → `items[].mode`).
fn pattern_of(path: &str) -> String {
    let mut out = String::new();
    let mut in_index = false;
    for c in path.chars() {
        match c {
            '[' => {
                in_index = true;
                out.push_str("[]");
            }
            ']' => in_index = false,
            _ if in_index => {}
            _ => out.push(c),
        }
    }
    out
}

fn open_objects(schema: &Json, at: &str, report: &mut impl FnMut(String)) {
    let Some(node) = schema.as_object() else {
        return;
    };
    let is_object = node
        .get("type")
        .and_then(Json::as_string)
        .is_some_and(|t| t.eq_str("object"))
        || node.contains("properties");
    if is_object && node.get("additionalProperties") != Some(&Json::Bool(false)) {
        report(at.to_owned());
    }
    if let Some(properties) = node.get("properties").and_then(Json::as_object) {
        for (name, property) in properties.iter() {
            open_objects(property, &format!("{at}/properties/{name}"), report);
        }
    }
    if let Some(items) = node.get("items") {
        open_objects(items, &format!("{at}/items"), report);
    }
    for (i, branch) in node
        .get("anyOf")
        .and_then(Json::as_array)
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        open_objects(branch, &format!("{at}/anyOf/{i}"), report);
    }
}
