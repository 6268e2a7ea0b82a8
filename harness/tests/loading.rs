//! Bad vector files are refused with their path, the vector's index and id, and what is wrong.

use std::path::PathBuf;

use vvoc_harness::load::suite::load_vectors;

mod common;

use common::files_folder;

fn load_error(files: &[(&str, &str)]) -> String {
    let dir = files_folder(files);
    let error = load_vectors(&[dir.path().to_owned()]).expect_err("the folder must be refused");
    // Report the file relative to the folder, so the assertions need no temporary path.
    error
        .to_string()
        .replace(&format!("{}/", dir.path().display()), "")
}

const GOOD: &str = r#"{"tool": "web_search", "vectors": [
  {"id": "ok", "input": {"query": "q"}, "accept": {"query": "q", "count": 8}}
]}"#;

#[test]
fn a_good_folder_loads_in_sorted_path_order() {
    let second = GOOD.replace("\"ok\"", "\"second\"");
    let dir = files_folder(&[
        ("b/z.json", &second),
        ("a.json", GOOD),
        ("notes.txt", "ignored"),
    ]);
    let vectors = load_vectors(&[dir.path().to_owned()]).expect("a valid folder");
    let names: Vec<String> = vectors.iter().map(|v| v.name()).collect();
    assert_eq!(names, ["web_search:ok", "web_search:second"]);
    assert_eq!(vectors[1].file, dir.path().join("b/z.json"));
}

#[test]
fn malformed_json_is_refused_with_its_line_and_column() {
    assert_eq!(
        load_error(&[("x.json", "{\"tool\": \"web_search\",\n  \"vectors\": [,]}")]),
        "x.json:2:15: not valid JSON: expected a JSON value"
    );
}

#[test]
fn an_unknown_tool_is_refused_with_the_known_ones() {
    let text = GOOD.replace("web_search", "web_browse");
    assert!(
        load_error(&[("x.json", &text)])
            .starts_with("x.json: unknown tool \"web_browse\": expected one of work_item_open,")
    );
}

#[test]
fn a_vector_with_both_outcomes_is_refused_with_its_index_and_id() {
    let text = r#"{"tool": "web_search", "vectors": [
      {"id": "ok", "input": {}, "reject": [{"code": "invalid_type", "path": "query", "message": "m", "expected": "string"}]},
      {"id": "both", "input": {}, "accept": {}, "reject": []}
    ]}"#;
    assert_eq!(
        load_error(&[("x.json", text)]),
        "x.json: vector 1 (\"both\"): a vector has exactly one of \"accept\" and \"reject\", not both"
    );
}

#[test]
fn a_vector_with_neither_outcome_is_refused() {
    let text = r#"{"tool": "web_search", "vectors": [{"id": "none", "input": {}}]}"#;
    assert!(
        load_error(&[("x.json", text)]).contains("vector 0 (\"none\"): a vector needs \"accept\"")
    );
}

#[test]
fn a_missing_input_is_refused() {
    let text = r#"{"tool": "web_search", "vectors": [{"id": "no-input", "accept": {}}]}"#;
    assert!(
        load_error(&[("x.json", text)]).contains("vector 0 (\"no-input\"): \"input\" is missing")
    );
}

#[test]
fn a_missing_id_is_refused() {
    let text = r#"{"tool": "web_search", "vectors": [{"input": {}, "accept": {}}]}"#;
    assert_eq!(
        load_error(&[("x.json", text)]),
        "x.json: vector 0: \"id\" must be a string"
    );
}

#[test]
fn a_bad_id_is_refused() {
    for id in ["Upper", "-dash-first", "under_score", ""] {
        let text = GOOD.replace("\"ok\"", &format!("{id:?}"));
        assert!(
            load_error(&[("x.json", &text)]).contains("\"id\" must match [a-z0-9][a-z0-9-]*"),
            "{id}"
        );
    }
}

#[test]
fn a_duplicate_id_in_one_file_is_refused_naming_the_first() {
    let text = r#"{"tool": "web_search", "vectors": [
      {"id": "twice", "input": {}, "accept": {}},
      {"id": "twice", "input": {}, "accept": {}}
    ]}"#;
    assert_eq!(
        load_error(&[("x.json", text)]),
        "x.json: vector 1 (\"twice\"): the id is already used by vector 0 of x.json; ids are unique within a tool"
    );
}

#[test]
fn a_duplicate_id_across_files_is_refused_naming_the_first() {
    assert_eq!(
        load_error(&[("a.json", GOOD), ("b.json", GOOD)]),
        "b.json: vector 0 (\"ok\"): the id is already used by vector 0 of a.json; ids are unique within a tool"
    );
}

#[test]
fn the_same_id_in_two_tools_is_fine() {
    let other = GOOD.replace("web_search", "web_fetch");
    let dir = files_folder(&[("a.json", GOOD), ("b.json", &other)]);
    assert_eq!(
        load_vectors(&[dir.path().to_owned()])
            .expect("distinct tools")
            .len(),
        2
    );
}

#[test]
fn unknown_members_are_refused_at_both_levels() {
    let top = GOOD.replace("\"vectors\"", "\"extra\": 1, \"vectors\"");
    assert!(load_error(&[("x.json", &top)]).contains("unknown member \"extra\" at the top level"));
    let vector = GOOD.replace("\"id\": \"ok\"", "\"id\": \"ok\", \"expect\": 1");
    assert!(
        load_error(&[("x.json", &vector)]).contains("vector 0 (\"ok\"): unknown member \"expect\"")
    );
}

#[test]
fn malformed_issues_are_refused_with_their_position() {
    let text = r#"{"tool": "web_search", "vectors": [{"id": "bad-issue", "input": {}, "reject": [
      {"code": "invalid_type", "path": "query", "message": "m"},
      {"code": "wrong_code", "path": "query", "message": "m"}
    ]}]}"#;
    assert!(
        load_error(&[("x.json", text)])
            .contains("vector 0 (\"bad-issue\"): reject[1]: unknown issue code \"wrong_code\"")
    );
    let empty =
        r#"{"tool": "web_search", "vectors": [{"id": "empty", "input": {}, "reject": []}]}"#;
    assert!(
        load_error(&[("x.json", empty)]).contains("\"reject\" must be an array of 1 to 8 issues")
    );
}

#[test]
fn an_empty_or_missing_folder_is_refused() {
    let dir = files_folder(&[("readme.txt", "no vectors here")]);
    let error = load_vectors(&[dir.path().to_owned()])
        .expect_err("no vector file")
        .to_string();
    assert!(
        error.ends_with("the folder holds no *.json file"),
        "{error}"
    );
    let missing: PathBuf = dir.path().join("absent");
    let error = load_vectors(&[missing]).expect_err("no folder").to_string();
    assert!(
        error.contains("cannot read the folder: no such folder"),
        "{error}"
    );
}

#[test]
fn inputs_keep_what_serde_json_cannot_hold() {
    let text = r#"{"tool": "web_search", "vectors": [{"id": "odd", "input": {"query": "\ud800", "count": 1e400, "query": "\udc00"}, "accept": {}}]}"#;
    let dir = files_folder(&[("x.json", text)]);
    let vectors = load_vectors(&[dir.path().to_owned()]).expect("a valid file");
    assert_eq!(
        vectors[0].input.to_compact(),
        r#"{"query":"\udc00","count":1e400}"#
    );
}
