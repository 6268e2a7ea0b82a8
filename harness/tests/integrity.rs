//! Catalog integrity: each check passes on the catalog and vectors, and fails on a broken copy.

use std::sync::OnceLock;

use vvoc_harness::default_vectors_dir;
use vvoc_harness::load::integrity::{
    defaults_are_observed, schemas_are_closed, tools_have_doc_examples,
    vocabulary_fields_are_refused, vocabulary_values_are_documented,
};
use vvoc_harness::load::suite::load_vectors;
use vvoc_harness::load::vector::Vector;
use vvoc_reference::catalog::{Field, Node, Scalar, Tool, ToolSpec};
use vvoc_reference::schema::published_schema;
use vvoc_reference::{Json, Verdict};

/// The repository's vectors, loaded once for every test of this file.
fn vectors() -> &'static [Vector] {
    static VECTORS: OnceLock<Vec<Vector>> = OnceLock::new();
    VECTORS.get_or_init(|| load_vectors(&[default_vectors_dir()]).expect("the vectors load"))
}

fn specs() -> Vec<ToolSpec> {
    Tool::ALL.iter().map(|t| t.spec().clone()).collect()
}

fn refs(specs: &[ToolSpec]) -> Vec<&ToolSpec> {
    specs.iter().collect()
}

/// The field `name` of `tool` in a copy of the catalog, to break.
fn field<'a>(specs: &'a mut [ToolSpec], tool: Tool, name: &str) -> &'a mut Field {
    specs
        .iter_mut()
        .find(|spec| spec.id == tool.id())
        .and_then(|spec| spec.fields.iter_mut().find(|f| f.name == name))
        .expect("the catalog has the field")
}

#[test]
fn every_vocabulary_value_is_carried_by_an_accepted_doc_vector() {
    let problems = vocabulary_values_are_documented(&refs(&specs()), vectors());
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn an_undocumented_vocabulary_value_is_reported() {
    let mut specs = specs();
    field(&mut specs, Tool::WebSearch, "freshness").node =
        Node::Enum(&["day", "week", "month", "year", "hour"]);
    let problems = vocabulary_values_are_documented(&refs(&specs), vectors());
    assert_eq!(
        problems,
        ["web_search: no accepted doc vector carries \"hour\" at `freshness`"]
    );
}

#[test]
fn every_vocabulary_field_is_refused_at_its_path_by_some_vector() {
    let problems = vocabulary_fields_are_refused(&refs(&specs()), vectors());
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn a_vocabulary_field_without_a_refusal_is_reported() {
    let without: Vec<Vector> = vectors()
        .iter()
        .filter(
            |v| !matches!(&v.expected, Verdict::Reject(issues) if issues.iter().any(|i| i.path.eq_str("freshness"))),
        )
        .cloned()
        .collect();
    let problems = vocabulary_fields_are_refused(&refs(&specs()), &without);
    assert_eq!(
        problems,
        ["web_search: no reject vector has an issue at `freshness`"]
    );
}

#[test]
fn every_default_is_observed_in_an_accepted_output() {
    let problems = defaults_are_observed(&refs(&specs()), vectors());
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn a_default_no_vector_shows_is_reported() {
    let mut specs = specs();
    let count = field(&mut specs, Tool::WebSearch, "count");
    *count = count.clone().with_default(Scalar::Integer(9), "changed");
    let problems = defaults_are_observed(&refs(&specs), vectors());
    assert_eq!(
        problems,
        ["web_search: no accepted vector shows the default `count` = 9 of an absent field"]
    );
}

#[test]
fn every_published_schema_is_closed() {
    let schemas: Vec<(&str, Json)> = Tool::ALL
        .iter()
        .map(|t| (t.id(), published_schema(*t)))
        .collect();
    let problems = schemas_are_closed(&schemas);
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn an_open_nested_object_is_reported_with_its_location() {
    let schema = Json::parse(
        r#"{"type":"object","properties":{"a":{"type":"array","items":{"type":"object","properties":{}}}},"additionalProperties":false}"#,
    )
    .expect("JSON");
    assert_eq!(
        schemas_are_closed(&[("broken", schema)]),
        ["broken: the object at #/properties/a/items is not closed"]
    );
}

#[test]
fn every_tool_has_accept_and_reject_doc_vectors() {
    let problems = tools_have_doc_examples(vectors());
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn a_tool_without_reject_doc_vectors_is_reported() {
    let without: Vec<Vector> = vectors()
        .iter()
        .filter(|v| !(v.tool == Tool::WorkItemClose && v.doc && !v.expected.is_accept()))
        .cloned()
        .collect();
    assert_eq!(
        tools_have_doc_examples(&without),
        ["work_item_close: no reject doc vector"]
    );
}
