//! The generated input schemas equal the published 1.6.0 schemas, member order included.

use vvoc_reference::schema::published_schema;
use vvoc_reference::{Json, Tool};

const UPSTREAM: &str = include_str!("upstream/published-schemas-1.6.0.json");

#[test]
fn generated_schemas_equal_the_published_ones_member_for_member() {
    let upstream = Json::parse(UPSTREAM).expect("the published schemas parse");
    let upstream = upstream.as_object().expect("an object of nine schemas");
    let names: Vec<String> = upstream.iter().map(|(name, _)| name.to_string()).collect();
    let ids: Vec<&str> = Tool::ALL.iter().map(|t| t.id()).collect();
    assert_eq!(
        names, ids,
        "the published file lists the nine tools in document order"
    );
    for tool in Tool::ALL {
        let expected = upstream
            .get(tool.id())
            .expect("a published schema")
            .to_pretty();
        let generated = published_schema(tool).to_pretty();
        similar_asserts::assert_eq!(expected: expected, generated: generated, "{tool}");
    }
}
