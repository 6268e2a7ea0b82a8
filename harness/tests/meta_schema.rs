//! The project's own files against the shipped JSON Schemas of vector files and mutation rows.

use vvoc_harness::default_vectors_dir;
use vvoc_harness::load::lint::{lint_folder, lint_vectors_folder};
use vvoc_harness::meta_schema::{mutation_rows, vector_file};

#[test]
fn every_vector_file_follows_the_vector_file_schema() {
    let lint = lint_vectors_folder(&default_vectors_dir()).expect("the folder is readable");
    assert!(lint.vector_files > 9, "{} files", lint.vector_files);
    assert!(lint.violations.is_empty(), "{:#?}", lint.violations);
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

#[test]
fn scenario_files_are_checked_against_the_scenario_file_schema() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let write =
        |name: &str, text: &str| std::fs::write(dir.path().join(name), text).expect("written");
    write(
        "good.json",
        r#"{"tool": "hashline_edit", "scenarios": [{"id": "ok", "files": {"a.txt": "x", "b": {"base64": "//4A"}, "e/": null},
            "steps": [{"anchors": "{root}/a.txt", "output": "1#AB#CD|x"}, {"write": {"a.txt": null, "d/": null}},
                      {"call": {"filePath": "{root}/a.txt"}, "throws": "t"}]}]}"#,
    );
    write(
        "bad-key.json",
        r#"{"tool": "hashline_edit", "scenarios": [{"id": "k", "files": {"../a": "x"}, "steps": [{"anchors": "{root}/a", "output": ""}]}]}"#,
    );
    write(
        "bad-step.json",
        r#"{"tool": "str_replace_editor", "scenarios": [{"id": "s", "files": {}, "steps": [{"anchors": "{root}/a", "output": ""}, {"call": {}, "output": "", "throws": ""}]}]}"#,
    );
    write(
        "both.json",
        r#"{"tool": "hashline_edit", "vectors": [], "scenarios": []}"#,
    );
    let lint = lint_vectors_folder(dir.path()).expect("readable");
    assert_eq!((lint.vector_files, lint.scenario_files), (0, 3));
    let shown: Vec<String> = lint
        .violations
        .iter()
        .map(|v| {
            v.to_string()
                .replace(&format!("{}/", dir.path().display()), "")
        })
        .collect();
    let files: std::collections::BTreeSet<&str> =
        shown.iter().filter_map(|v| v.split(':').next()).collect();
    assert_eq!(
        files.into_iter().collect::<Vec<_>>(),
        ["bad-key.json", "bad-step.json", "both.json"],
        "{shown:#?}"
    );
    assert!(
        shown
            .iter()
            .any(|v| v.starts_with("bad-key.json: at /scenarios/0/files: ")),
        "{shown:#?}"
    );
    assert!(
        shown
            .iter()
            .any(|v| v.starts_with("bad-step.json: at /scenarios/0/steps/0: ")),
        "an anchors step of str_replace_editor: {shown:#?}"
    );
    assert!(
        shown
            .iter()
            .any(|v| v.starts_with("bad-step.json: at /scenarios/0/steps/1: ")),
        "output and throws: {shown:#?}"
    );
    assert!(
        shown.contains(
            &"both.json: at the top level: a file holds \"vectors\" or \"scenarios\", never both"
                .to_owned()
        ),
        "{shown:#?}"
    );
}
