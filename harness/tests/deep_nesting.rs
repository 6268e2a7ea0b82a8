//! Inputs nested as deep as their text allows (issue 9, class A): `conform peer` answers them
//! with verdicts, and a vector file holding one is linted, loaded, run in process and over the
//! protocol, and reported. Upstream reads a million levels; the reference once refused 512.

use std::io::Write;
use std::process::{Command, Stdio};

mod common;

use common::{CONFORM, files_folder, text};

/// `inner` inside `depth` arrays.
fn nested(depth: usize, inner: &str) -> String {
    format!("{}{inner}{}", "[".repeat(depth), "]".repeat(depth))
}

/// The issue of an unknown member `x`, as a vector or a result writes it.
const UNKNOWN_X: &str = r#"{"code":"unrecognized_keys","path":"x","message":"unrecognized key \"x\"","expected":"a known property of this request object"}"#;

#[test]
fn conform_peer_answers_checks_nested_two_hundred_thousand_deep_with_verdicts() {
    let deep = nested(200_000, "0");
    let lines = [
        r#"{"type":"hello","protocol":1}"#.to_owned(),
        format!(
            r#"{{"type":"check","seq":1,"tool":"web_search","input":{{"query":"q","x":{deep}}}}}"#
        ),
        format!(
            r#"{{"type":"check","seq":2,"tool":"work_item_close","input":{{"workItemId":{deep}}}}}"#
        ),
        r#"{"type":"bye"}"#.to_owned(),
    ];
    let mut peer = Command::new(CONFORM)
        .arg("peer")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("conform peer starts");
    let mut stdin = peer.stdin.take().expect("a pipe");
    let writer = std::thread::spawn(move || stdin.write_all((lines.join("\n") + "\n").as_bytes()));
    let output = peer.wait_with_output().expect("conform peer ends");
    writer.join().expect("the writer ended").expect("written");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let answers: Vec<&str> = stdout.lines().skip(1).collect();
    assert_eq!(
        answers,
        [
            format!(r#"{{"type":"result","seq":1,"reject":[{UNKNOWN_X}]}}"#),
            r#"{"type":"result","seq":2,"reject":[{"code":"invalid_type","path":"workItemId","message":"Invalid input: expected string, received array","expected":"string"}]}"#.to_owned(),
        ],
        "{}",
        text(&output)
    );
}

#[test]
fn a_vector_nested_a_hundred_thousand_deep_is_linted_run_and_reported() {
    let file = format!(
        r#"{{"tool": "web_search", "vectors": [{{"id": "deep", "input": {{"query": "q", "x": {}}}, "reject": [{UNKNOWN_X}]}}]}}"#,
        nested(100_000, r#"{"a": [1, "b", null]}"#)
    );
    let dir = files_folder(&[("web_search/deep.json", &file)]);
    let vectors = dir.path().to_str().expect("UTF-8");
    let conform = |args: &[&str]| {
        let output = Command::new(CONFORM)
            .args(args)
            .output()
            .expect("conform runs");
        assert_eq!(output.status.code(), Some(0), "{args:?}: {}", text(&output));
        text(&output)
    };
    conform(&["lint", "--no-builtin", "--vectors", vectors]);
    let reports = tempfile::tempdir().expect("a temporary folder");
    let report = reports.path().to_str().expect("UTF-8");
    conform(&[
        "run",
        "--no-builtin",
        "--vectors",
        vectors,
        "--report",
        report,
    ]);
    let json = std::fs::read_to_string(reports.path().join("conformance.json")).expect("a report");
    let result = r#""vector": "web_search:deep",
      "file": "web_search/deep.json",
      "outcome": "pass","#;
    assert!(json.contains(result), "{json}");
    let markdown =
        std::fs::read_to_string(reports.path().join("conformance.md")).expect("a report");
    assert!(markdown.contains("web_search"), "{markdown}");
    let peer = format!("{CONFORM} peer");
    let said = conform(&[
        "run",
        "--no-builtin",
        "--vectors",
        vectors,
        "--peer",
        &peer,
        "--validate-protocol",
        "--level",
        "exact",
    ]);
    assert!(said.contains("web_search"), "{said}");
}
