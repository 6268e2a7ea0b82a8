//! The project's own files against the shipped JSON Schemas of vector files and mutation rows.

use vvoc_harness::default_vectors_dir;
use vvoc_harness::lint::lint_folder;
use vvoc_harness::meta_schema::{mutation_rows, vector_file};

#[test]
fn every_vector_file_follows_the_vector_file_schema() {
    let (files, violations) =
        lint_folder(&default_vectors_dir(), &vector_file()).expect("the folder is readable");
    assert!(files > 9, "{files} files");
    assert!(violations.is_empty(), "{violations:#?}");
}

#[test]
fn every_row_file_follows_the_mutation_row_schema() {
    let dir = default_vectors_dir().join("../mutants");
    let (files, violations) =
        lint_folder(&dir, &mutation_rows()).expect("the folder is readable and not empty");
    assert!(files > 0);
    assert!(violations.is_empty(), "{violations:#?}");
}

#[test]
fn a_violation_names_the_file_and_the_place() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(
        dir.path().join("bad.json"),
        r#"{"tool": "web_search", "vectors": [{"id": "Bad_Id", "input": {}, "accept": {}, "reject": [{"code": "invalid_type", "path": "", "message": ""}]}]}"#,
    )
    .expect("written");
    let (_, violations) = lint_folder(dir.path(), &vector_file()).expect("readable");
    let shown: Vec<String> = violations
        .iter()
        .map(|v| {
            v.to_string()
                .replace(&format!("{}/", dir.path().display()), "")
        })
        .collect();
    assert!(
        shown
            .iter()
            .any(|v| v.starts_with("bad.json: at /vectors/0/id: ")),
        "{shown:#?}"
    );
    assert!(
        shown
            .iter()
            .any(|v| v.starts_with("bad.json: at /vectors/0: ")),
        "both outcomes break oneOf: {shown:#?}"
    );
}

#[test]
fn a_row_file_with_a_missing_member_is_refused() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(
        dir.path().join("rows.json"),
        r#"{"rows": [{"id": "r", "file": "a.rs", "find": "x"}]}"#,
    )
    .expect("written");
    let (_, violations) = lint_folder(dir.path(), &mutation_rows()).expect("readable");
    assert_eq!(violations.len(), 1, "{violations:#?}");
    assert!(
        violations[0]
            .message
            .contains("\"replace\" is a required property"),
        "{}",
        violations[0]
    );
}

#[test]
fn an_empty_folder_is_refused() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let error = lint_folder(dir.path(), &vector_file()).expect_err("nothing to check");
    assert!(
        error
            .to_string()
            .ends_with("the folder holds no *.json file"),
        "{error}"
    );
}
