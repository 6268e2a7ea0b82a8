//! `conform` with scenarios: `run` counts them beside vectors (selection, known failures, reports,
//! scratch directories), `anchors` prints a file's anchored view, `exec` runs one call for real.

use std::path::Path;
use std::process::{Command, Output};

mod common;

use common::{CONFORM, scenario_folder, text};

fn conform(args: &[&str], dir: Option<&Path>) -> Output {
    let mut command = Command::new(CONFORM);
    command.args(args);
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    command.output().expect("conform runs")
}

const CREATE: &str = r#""files": {}, "steps": [{"call": {"command": "create", "path": "{root}/n.txt", "file_text": "n"}, "output": "New file created successfully at: {root}/n.txt"}], "after": {"n.txt": "n"}"#;
const WRONG: &str = r#""files": {"a.txt": "a"}, "steps": [{"call": {"command": "view", "path": "{root}/missing"}, "output": "Error: something else"}]"#;

#[test]
fn run_counts_scenarios_beside_vectors_and_leaves_no_scratch_directory() {
    let dir = scenario_folder(
        "str_replace_editor",
        &[("create", CREATE), ("create-2", CREATE), ("wrong", WRONG)],
    );
    let scratch = tempfile::tempdir().expect("a scratch parent");
    let report = tempfile::tempdir().expect("a report folder");
    let args = [
        "run",
        "--no-builtin",
        "--vectors",
        dir.path().to_str().expect("UTF-8"),
        "--scratch",
        scratch.path().to_str().expect("UTF-8"),
        "--jobs",
        "2",
        "--report",
        report.path().to_str().expect("UTF-8"),
    ];
    let output = conform(&args, None);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    let said = text(&output);
    for part in [
        "tool                 scenarios     pass     fail\nstr_replace_editor           3        2        1\ntotal                        3        2        1\n",
        "scenarios passing by level: effect 3/3, exact 2/3 (judged at exact)",
        "3 scenarios in ",
    ] {
        assert!(said.contains(part), "{part:?} in:\n{said}");
    }
    assert_eq!(
        std::fs::read_dir(scratch.path()).expect("readable").count(),
        0
    );
    let json = std::fs::read_to_string(report.path().join("conformance.json")).expect("a report");
    assert!(
        json.contains("\"scenario\": \"str_replace_editor:wrong\""),
        "{json}"
    );
    let md = std::fs::read_to_string(report.path().join("conformance.md")).expect("a report");
    assert!(
        md.contains("- Result: FAIL (0 vectors and 1 scenarios failed)"),
        "{md}"
    );
    // At a weaker level both texts are errors: the scenario passes at effect.
    let output = conform(&[&args[..6], &["--level", "issues"]].concat(), None);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
}

#[test]
fn filter_tool_and_known_failures_apply_to_scenarios() {
    let dir = scenario_folder(
        "str_replace_editor",
        &[("create", CREATE), ("wrong", WRONG)],
    );
    let vectors = dir.path().to_str().expect("UTF-8");
    let output = conform(
        &[
            "run",
            "--no-builtin",
            "--vectors",
            vectors,
            "--filter",
            "create",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(
        !text(&output).contains("vectors"),
        "only scenarios ran: {}",
        text(&output)
    );
    let output = conform(
        &[
            "run",
            "--no-builtin",
            "--vectors",
            vectors,
            "--tool",
            "web_search",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(!text(&output).contains("scenarios"), "{}", text(&output));
    let output = conform(
        &[
            "run",
            "--no-builtin",
            "--vectors",
            vectors,
            "--filter",
            "nothing-at-all",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output).contains(
            "no vector matches the selection (--tool, --filter, --name), and no scenario"
        )
    );
    let list = dir.path().join("known.txt");
    std::fs::write(
        &list,
        r#"{"known_failures": [{"vector": "str_replace_editor:wrong", "reason": "r"}]}"#,
    )
    .expect("written");
    let known = [
        "run",
        "--no-builtin",
        "--vectors",
        vectors,
        "--known-failures",
        list.to_str().expect("UTF-8"),
    ];
    let output = conform(&known, None);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(text(&output).contains("known-fail"), "{}", text(&output));
    let written = dir.path().join("written.txt");
    conform(
        &[
            "run",
            "--no-builtin",
            "--vectors",
            vectors,
            "--write-known-failures",
            written.to_str().expect("UTF-8"),
        ],
        None,
    );
    let written = std::fs::read_to_string(&written).expect("written");
    assert!(
        written.contains("\"vector\": \"str_replace_editor:wrong\""),
        "{written}"
    );
    assert!(
        written.contains("step 1 of 1 (steps[0], call): expected output"),
        "{written}"
    );
}

#[test]
fn list_shows_scenarios_and_lint_counts_them() {
    let dir = scenario_folder("str_replace_editor", &[("create", CREATE)]);
    let vectors = dir.path().to_str().expect("UTF-8");
    let output = conform(&["list", "--no-builtin", "--vectors", vectors], None);
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "str_replace_editor:create\nweb_search:plain\n"
    );
    let output = conform(&["lint", "--no-builtin", "--vectors", vectors], None);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(
        text(&output).contains(
            "1 vector files checked against the vector-file schema, 1 scenario files against the scenario-file schema"
        ),
        "{}",
        text(&output)
    );
    assert!(text(&output).contains("ok: 1 vectors in 1 files, 1 scenarios in 1 files"));
}

#[test]
fn anchors_prints_the_anchored_view() {
    let dir = tempfile::tempdir().expect("a folder");
    let file = dir.path().join("a.ts");
    std::fs::write(&file, "function greet() {\n  return \"hi\";\n}\n").expect("written");
    let output = conform(&["anchors", file.to_str().expect("UTF-8")], None);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let view = vvoc_reference::exec::anchors(&file).expect("a view");
    assert_eq!(String::from_utf8_lossy(&output.stdout), format!("{view}\n"));
    let output = conform(
        &["anchors", dir.path().join("none").to_str().expect("UTF-8")],
        None,
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
}

#[test]
fn exec_runs_one_call_in_the_current_directory_and_says_it_changes_files() {
    let dir = tempfile::tempdir().expect("a folder");
    let path = dir.path().join("new.txt");
    let input = format!(
        r#"{{"command": "create", "path": "{}", "file_text": "hello\n"}}"#,
        path.display()
    );
    let output = conform(&["exec", "str_replace_editor", &input], Some(dir.path()));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("New file created successfully at: {}\n", path.display())
    );
    assert_eq!(std::fs::read_to_string(&path).expect("created"), "hello\n");
    let output = conform(&["exec", "str_replace_editor", &input], Some(dir.path()));
    assert_eq!(
        output.status.code(),
        Some(2),
        "an Error: text: {}",
        text(&output)
    );
    // A web call without a credential asks, then raises before any request leaves.
    let output = conform(&["exec", "web_search", r#"{"query": "q"}"#], None);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(
        text(&output).contains(r#"asked: {"permission":"web_search","patterns":["q"]"#)
            && text(&output).contains(
                "raised: missing credential for exa: set EXA_API_KEY or web.search.apiKey"
            ),
        "{}",
        text(&output)
    );
    let output = conform(
        &[
            "exec",
            "web_search",
            r#"{"query": "q"}"#,
            "--host",
            r#"{"search":{"provider":"bing"}}"#,
        ],
        None,
    );
    assert_eq!(
        output.status.code(),
        Some(1),
        "a bad --host: {}",
        text(&output)
    );
    assert!(
        text(&output).contains("--host: host.search"),
        "{}",
        text(&output)
    );
    let output = conform(
        &["exec", "str_replace_editor", &input, "--host", "{}"],
        None,
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    let help = conform(&["exec", "--help"], None);
    assert!(
        text(&help).contains("THIS CHANGES FILES") && text(&help).contains("A WEB CALL IS REAL"),
        "{}",
        text(&help)
    );
    let help = conform(&["--help"], None);
    assert!(
        text(&help).contains("(an editor changes files; a web tool really goes to the network)"),
        "{}",
        text(&help)
    );
}
