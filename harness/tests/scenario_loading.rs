//! Bad scenario files are refused with their path, the scenario's index and id, and what is wrong;
//! nothing in a scenario may reach outside its directory.

use vvoc_harness::load::suite::load_suite;
use vvoc_harness::scenario::tree::Entry;

mod common;

use common::files_folder;

fn load_error(files: &[(&str, &str)]) -> String {
    let dir = files_folder(files);
    let error = load_suite(&[dir.path().to_owned()]).expect_err("the folder must be refused");
    error
        .to_string()
        .replace(&format!("{}/", dir.path().display()), "")
}

/// A file of one `tool` scenario whose members are `members` (JSON text after the id).
fn scenario(tool: &str, members: &str) -> String {
    format!(r#"{{"tool": "{tool}", "scenarios": [{{"id": "s", {members}}}]}}"#)
}

/// The error of a one-scenario `hashline_edit` file.
fn hashline_error(members: &str) -> String {
    load_error(&[("x.json", &scenario("hashline_edit", members))])
}

fn editor_error(members: &str) -> String {
    load_error(&[("x.json", &scenario("str_replace_editor", members))])
}

const VIEW: &str =
    r#""steps": [{"call": {"command": "view", "path": "{root}/a.txt"}, "output": "x"}]"#;

#[test]
fn a_good_scenario_file_loads_beside_vectors_in_file_order() {
    let vectors = r#"{"tool": "str_replace_editor", "vectors": [{"id": "v", "input": null, "reject": [{"code": "invalid_type", "path": "(root)", "message": "m"}]}]}"#;
    let scenarios = r#"{"tool": "str_replace_editor", "scenarios": [{"id": "s", "note": "n",
      "files": {"a.txt": "x\r\n\ufeff", "bin": {"base64": "//4A"}, "empty/": null},
      "steps": [
        {"call": {"command": "view", "path": "{root}/a.txt"}, "output": "text"},
        {"write": {"a.txt": null, "b/c.txt": "new", "d/": null}},
        {"call": {"command": "create", "path": "{root}/nodir/x", "file_text": ""}, "throws": "ENOENT"}
      ],
      "after": {"bin": {"base64": "//4A"}, "b/c.txt": "new"}}]}"#;
    let dir = files_folder(&[("b.json", vectors), ("a.json", scenarios)]);
    let suite = load_suite(&[dir.path().to_owned()]).expect("a valid folder");
    assert_eq!(
        suite.names,
        ["str_replace_editor:s", "str_replace_editor:v"]
    );
    let s = &suite.scenarios[0];
    assert_eq!(s.source, "a.json");
    assert_eq!(s.files.get("bin"), Some(&Entry::File(vec![0xff, 0xfe, 0])));
    assert_eq!(s.files.get("empty/"), Some(&Entry::EmptyDir));
    assert_eq!(
        s.files.get("a.txt"),
        Some(&Entry::File(b"x\r\n\xef\xbb\xbf".to_vec()))
    );
    assert_eq!(s.steps.len(), 3);
    assert_eq!(s.expected_after().len(), 2);
}

#[test]
fn a_file_with_vectors_and_scenarios_is_refused() {
    let text = r#"{"tool": "hashline_edit", "vectors": [], "scenarios": []}"#;
    assert_eq!(
        load_error(&[("x.json", text)]),
        "x.json: a file holds \"vectors\" or \"scenarios\", never both; put the scenarios in a file of their own"
    );
}

#[test]
fn a_workflow_tools_scenario_file_holds_workflow_scenarios() {
    let text =
        r#"{"tool": "work_item_open", "scenarios": [{"id": "w", "steps": [{"restart": true}]}]}"#;
    let dir = files_folder(&[("x.json", text)]);
    let suite = load_suite(&[dir.path().to_owned()]).expect("loads");
    assert_eq!((suite.scenarios.len(), suite.workflow.len()), (0, 1));
    assert_eq!(suite.files, (0, 1));
}

#[test]
fn ids_are_unique_across_vectors_and_scenarios() {
    let vectors = r#"{"tool": "hashline_edit", "vectors": [{"id": "s", "input": null, "reject": [{"code": "invalid_type", "path": "(root)", "message": "m"}]}]}"#;
    let scenarios = scenario(
        "hashline_edit",
        r#""files": {}, "steps": [{"anchors": "{root}/a", "output": ""}]"#,
    );
    assert_eq!(
        load_error(&[("a.json", vectors), ("b.json", &scenarios)]),
        "b.json: scenario 0 (\"s\"): the id is already used by vector 0 of a.json; ids are unique within a tool, across vectors and scenarios"
    );
    assert_eq!(
        load_error(&[("a.json", &scenarios), ("b.json", vectors)]),
        "b.json: vector 0 (\"s\"): the id is already used by scenario 0 of a.json; ids are unique within a tool"
    );
}

#[test]
fn unclean_keys_are_refused_in_files_after_and_write() {
    for (key, why) in [
        ("/etc/passwd", "is absolute"),
        ("../x", "has a .. segment"),
        ("a/../../x", "has a .. segment"),
        ("a//b", "has an empty segment"),
        ("./a", "has a . segment"),
        ("{root}/a", "holds {root}"),
        ("", "is empty"),
    ] {
        let files = format!(r#""files": {{"{key}": "x"}}, {VIEW}"#);
        let error = editor_error(&files);
        let start = format!("x.json: scenario 0 (\"s\"): files: the key {key:?} {why}");
        assert!(error.starts_with(&start), "{error}");
        let after = format!(r#""files": {{}}, {VIEW}, "after": {{"{key}": "x"}}"#);
        assert!(editor_error(&after).contains("after: the key"), "{key}");
        let write = format!(r#""files": {{}}, "steps": [{{"write": {{"{key}": null}}}}]"#);
        assert!(
            editor_error(&write).contains("steps[0].write: the key"),
            "{key}: {}",
            editor_error(&write)
        );
    }
}

#[test]
fn contents_are_text_base64_or_null_for_an_empty_directory() {
    let cases = [
        (r#"{"d/": "x"}"#, "its value must be null"),
        (r#"{"a": null}"#, "null is only for an empty directory"),
        (r#"{"a": 5}"#, "a content is a string"),
        (
            r#"{"a": {"base64": "YWI"}}"#,
            "the base64 text is malformed: Invalid padding",
        ),
        (
            r#"{"a": {"base64": "YQ==", "x": 1}}"#,
            "{\"base64\": \"...\"} and nothing else",
        ),
        (r#"{"a": "\ud800"}"#, "lone surrogate"),
        (
            r#"{"a": "x", "a/b": "y"}"#,
            "\"a\" is a file, so \"a/b\" cannot be inside it",
        ),
        (
            r#"{"a": "x", "a/": null}"#,
            "\"a\" is a file, so \"a/\" cannot be inside it",
        ),
        (
            r#"{"d/": null, "d/b": "y"}"#,
            "the empty directory \"d/\" holds \"d/b\"",
        ),
    ];
    for (files, why) in cases {
        let error = editor_error(&format!(r#""files": {files}, {VIEW}"#));
        assert!(error.contains(why), "{files}: {error}");
        assert!(
            error.starts_with("x.json: scenario 0 (\"s\"): files"),
            "{error}"
        );
    }
}

#[test]
fn paths_given_to_a_tool_stay_inside_the_scenarios_directory() {
    let call = |field: &str, path: &str| {
        hashline_error(&format!(
            r#""files": {{}}, "steps": [{{"call": {{"filePath": "{{root}}/a", "{field}": "{path}", "edits": [{{"op": "append", "lines": ["x"]}}]}}, "output": "x"}}]"#
        ))
    };
    assert!(
        call("rename", "/etc/x")
            .contains("steps[0]: call.rename /etc/x is an absolute path outside")
    );
    assert!(call("rename", "{root}/../x").contains("climbs out of the scenario's directory"));
    assert!(call("rename", "{root}x").contains("names a sibling of the scenario's directory"));
    // A relative path that hashline_edit would resolve against the runner's working directory.
    assert!(call("rename", "x.txt").contains("call.rename \"x.txt\" is relative"));
    // Judged by the text alone: a relative path is refused even where validation would refuse
    // the call, so a file loads the same whatever implementation runs it.
    let refused_anyway = r#""files": {}, "steps": [{"call": {"filePath": "a", "edits": []}, "output": "Error: INVALID_INPUT: ..."}]"#;
    let dir = files_folder(&[("x.json", &scenario("hashline_edit", refused_anyway))]);
    let error = load_suite(&[dir.path().to_owned()]).expect_err("a relative filePath");
    assert!(
        error
            .to_string()
            .contains("call.filePath \"a\" is relative"),
        "{error}"
    );
    let blank = r#""files": {}, "steps": [{"call": {"filePath": "   ", "edits": [{"op": "append", "lines": ["x"]}]}, "output": "Error: INVALID_INPUT: ..."}]"#;
    let dir = files_folder(&[("x.json", &scenario("hashline_edit", blank))]);
    assert!(
        load_suite(&[dir.path().to_owned()]).is_ok(),
        "a blank path is refused by the contract itself, so it never runs"
    );
    let relative = r#""files": {}, "steps": [{"call": {"command": "view", "path": "a.txt"}, "output": "Error: ..."}]"#;
    let dir = files_folder(&[("x.json", &scenario("str_replace_editor", relative))]);
    assert!(
        load_suite(&[dir.path().to_owned()]).is_ok(),
        "str_replace_editor refuses relative paths itself"
    );
    let outside = editor_error(
        r#""files": {}, "steps": [{"call": {"command": "view", "path": "/tmp"}, "output": "x"}]"#,
    );
    assert!(
        outside.contains("call.path /tmp is an absolute path outside"),
        "{outside}"
    );
}

#[test]
fn steps_have_one_known_kind_and_one_expectation() {
    let step = |text: &str| hashline_error(&format!(r#""files": {{}}, "steps": [{text}]"#));
    assert!(
        step(r#"{"read": "{root}/a", "output": "x"}"#)
            .contains("steps[0]: unknown step kind (members: \"read\", \"output\")")
    );
    assert!(step(r#"{"call": {}, "output": "x", "throws": "y"}"#).contains("not both"));
    assert!(step(r#"{"call": {}}"#).contains("a call step needs \"output\""));
    assert!(
        step(r#"{"call": {}, "anchors": "{root}/a", "output": "x"}"#)
            .contains("a step has one kind, not call and anchors")
    );
    assert!(step(r#"{"call": {}, "output": 5}"#).contains("\"output\" must be a string"));
    assert!(
        step(r#"{"call": {}, "output": "x", "note": "n"}"#).contains("unknown member \"note\"")
    );
    assert!(step(r#"{"anchors": "{root}/a", "throws": "x"}"#).contains("it never throws"));
    assert!(step(r#"{"anchors": "a.txt", "output": "x"}"#).contains("must start with {root}/"));
    assert!(step(r#"{"anchors": "{root}/../a", "output": "x"}"#).contains("climbs out"));
    assert!(
        step(r#"{"write": {"a": "x"}, "output": "x"}"#).contains("a write step has no \"output\"")
    );
    assert!(
        hashline_error(r#""files": {}, "steps": []"#)
            .contains("\"steps\" must be a non-empty array")
    );
    let anchors = editor_error(r#""files": {}, "steps": [{"anchors": "{root}/a", "output": "x"}]"#);
    assert_eq!(
        anchors,
        "x.json: scenario 0 (\"s\"): steps[0]: an anchors step belongs to hashline_edit scenarios; str_replace_editor has no anchored view"
    );
}

#[test]
fn scenario_members_are_checked_like_vector_members() {
    assert!(
        hashline_error(
            r#""files": {}, "steps": [{"anchors": "{root}/a", "output": ""}], "doc": true"#
        )
        .contains("unknown member \"doc\"")
    );
    assert!(
        hashline_error(r#""steps": [{"anchors": "{root}/a", "output": ""}]"#)
            .contains("\"files\" must be an object")
    );
    let bad_id = load_error(&[(
        "x.json",
        r#"{"tool": "hashline_edit", "scenarios": [{"id": "Bad"}]}"#,
    )]);
    assert!(
        bad_id.contains("scenario 0 (\"Bad\"): \"id\" must match"),
        "{bad_id}"
    );
    let top = load_error(&[(
        "x.json",
        r#"{"tool": "hashline_edit", "scenarios": [], "extra": 1}"#,
    )]);
    assert!(
        top.contains("a scenario file has only \"tool\" and \"scenarios\""),
        "{top}"
    );
}
