//! The `conform` command line: verdicts and exit codes of `check`, `run`, `list` and `lint`.

use std::io::Write as _;
use std::process::{Command, Output, Stdio};

use vvoc_harness::default_vectors_dir;

fn conform(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(args)
        .output()
        .expect("conform runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn check_prints_the_normalized_output_and_exits_0_on_accept() {
    let output = conform(&["check", "web_search", r#"{"freshness":"day","query":"q"}"#]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout(&output),
        "{\n  \"accept\": {\n    \"query\": \"q\",\n    \"count\": 8,\n    \"freshness\": \"day\"\n  }\n}\n"
    );
}

#[test]
fn check_prints_the_issues_and_the_one_line_form_and_exits_2_on_reject() {
    let output = conform(&["check", "web_search", r#"{"query":"q","count":0}"#]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stdout(&output).contains("\"message\": \"Too small: expected number to be >=1\""));
    assert_eq!(
        stderr(&output),
        "INVALID_INPUT: count: Too small: expected number to be >=1\n"
    );
}

#[test]
fn check_reads_standard_input_when_no_input_is_given() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(["check", "work_item_list"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("conform starts");
    child
        .stdin
        .take()
        .expect("a stdin")
        .write_all(b"null")
        .expect("written");
    let output = child.wait_with_output().expect("conform ends");
    assert_eq!(output.status.code(), Some(2));
    assert!(stdout(&output).contains("expected object, received null"));
}

#[test]
fn check_refuses_an_unknown_tool_or_bad_json_with_exit_1() {
    let output = conform(&["check", "web_browse", "{}"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("unknown tool \"web_browse\""));
    let output = conform(&["check", "web_search", "{\"query\":"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("the input is not valid JSON: line 1, column 10"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn run_passes_every_vector_and_prints_totals_and_throughput() {
    // The vectors alone: the scenarios pass whole in installed.rs.
    let dir = default_vectors_dir();
    let output = conform(&[
        "run",
        "--vectors",
        dir.to_str().expect("a UTF-8 path"),
        "--only",
        "vectors",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let text = stdout(&output);
    assert!(text.lines().any(|l| l.starts_with("web_fetch ")), "{text}");
    assert!(text.contains("vectors per second"), "{text}");
    assert!(text.contains("passing by level: verdict"), "{text}");
}

#[test]
fn run_exits_2_when_a_vector_fails() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(
        dir.path().join("wrong.json"),
        r#"{"tool": "web_search", "vectors": [{"id": "wrong", "input": {"query": "q"}, "accept": {"query": "q"}}]}"#,
    )
    .expect("written");
    let output = conform(&[
        "run",
        "--no-builtin",
        "--vectors",
        dir.path().to_str().expect("a UTF-8 path"),
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    assert!(stdout(&output).contains("web_search"));
}

#[test]
fn run_selects_by_tool_and_filter() {
    // Two tools' folders are enough to select from.
    let search = default_vectors_dir().join("web_search");
    let fetch = default_vectors_dir().join("web_fetch");
    let folders = [
        "--no-builtin",
        "--vectors",
        search.to_str().expect("a UTF-8 path"),
        "--vectors",
        fetch.to_str().expect("a UTF-8 path"),
    ];
    let output = conform(
        &[
            &["run"][..],
            &folders,
            &["--tool", "web_search", "--filter", "count"],
        ]
        .concat(),
    );
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    assert!(!text.contains("web_fetch"), "{text}");
    let output = conform(
        &[
            &["run"][..],
            &folders,
            &["--filter", "no-such-vector-anywhere"],
        ]
        .concat(),
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("no vector matches the selection"));
}

#[test]
fn run_selects_exact_names_and_refuses_a_name_that_is_nowhere() {
    let search = default_vectors_dir().join("web_search");
    let folders = [
        "--no-builtin",
        "--vectors",
        search.to_str().expect("a UTF-8 path"),
    ];
    let run_named = |names: &[&str]| {
        let names: Vec<&str> = names.iter().flat_map(|n| ["--name", n]).collect();
        conform(&[&["run"][..], &folders, &names].concat())
    };
    // Names are exact: the two named run, and no other abort scenario.
    let output = run_named(&[
        "web_search:search-abort-already-exa",
        "web_search:search-abort-not-reached",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("2 scenarios in"), "{text}");
    let output = run_named(&["web_search:search-abort-already-exa", "web_search:nope"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("--name web_search:nope: no vector or scenario has this name"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn list_prints_full_names_and_lint_names_a_bad_file() {
    // One tool's folder (the built-in set listed whole is installed.rs's).
    let dir = default_vectors_dir().join("web_search");
    let output = conform(&[
        "list",
        "--no-builtin",
        "--vectors",
        dir.to_str().expect("a UTF-8 path"),
    ]);
    assert_eq!(output.status.code(), Some(0));
    let expected: Vec<String> = vvoc_harness::load::suite::load_suite(&[dir])
        .expect("the vectors load")
        .names;
    let listed: Vec<String> = stdout(&output).lines().map(str::to_owned).collect();
    assert_eq!(listed, expected);
    assert!(listed.iter().any(|l| l == "web_search:default-count"));
    let bad = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(bad.path().join("bad.json"), r#"{"tool": "web_search"}"#).expect("written");
    let output = conform(&[
        "lint",
        "--no-builtin",
        "--vectors",
        bad.path().to_str().expect("a UTF-8 path"),
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("bad.json: at the top level: \"vectors\" is a required property"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_usage_error_exits_1_and_help_and_version_exit_0() {
    for args in [
        &["run", "--level", "bogus"][..],
        &["run", "--no-such-option"],
        &["no-such-command"],
        &["check"],
    ] {
        let output = conform(args);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains("error:"),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    for args in [&["--help"][..], &["run", "--help"], &["--version"]] {
        let output = conform(args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(!stdout(&output).is_empty(), "{args:?}");
    }
}
