//! `conform bench`: the reference alone and a peer fed the bench stream, counted and timed.

mod common;

use std::process::Command;

use common::{CONFORM, files_folder, text};

const FAKE: &str = env!("CARGO_BIN_EXE_fake-peer");

const TWO_VECTORS: &str = r#"{"tool": "web_search", "vectors": [
  {"id": "plain", "input": {"query": "q"}, "accept": {"query": "q", "count": 8}},
  {"id": "empty", "input": {}, "reject": [{"code": "invalid_type", "path": "query", "message": "Invalid input: expected string, received undefined", "expected": "string"}]}
]}"#;

fn bench(folder: &std::path::Path, extra: &[&str]) -> std::process::Output {
    Command::new(CONFORM)
        .args(["bench", "--no-builtin", "--vectors"])
        .arg(folder)
        .args(extra)
        .output()
        .expect("conform runs")
}

#[test]
fn every_vector_is_checked_once_per_round_by_the_reference_and_by_the_peer() {
    let folder = files_folder(&[("v.json", TWO_VECTORS)]);
    let peer = format!("{CONFORM} peer");
    let output = bench(
        folder.path(),
        &["--rounds", "3", "--jobs", "2", "--peer", &peer],
    );
    let all = text(&output);
    assert_eq!(output.status.code(), Some(0), "{all}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{all}");
    assert!(
        lines[0].starts_with("reference alone: 6 checks in "),
        "{all}"
    );
    // Three rounds on two threads: every round once in all.
    assert!(
        lines[1].starts_with("reference alone, 2 threads: 6 checks in "),
        "{all}"
    );
    assert!(
        lines[2].starts_with("peer, bench stream: 6 checks in "),
        "{all}"
    );
    assert!(
        lines.iter().all(|l| l.ends_with(" checks per second")),
        "{all}"
    );
}

#[test]
fn a_peer_that_answers_short_is_unusable_and_says_how_many_it_answered() {
    let folder = files_folder(&[("v.json", TWO_VECTORS)]);
    let peer = format!("{FAKE} --hello exit");
    let output = bench(folder.path(), &["--rounds", "2", "--peer", &peer]);
    let all = text(&output);
    assert_eq!(output.status.code(), Some(3), "{all}");
    assert!(
        all.contains("answered 0 of the 4 checks of the bench stream"),
        "{all}"
    );
}

#[test]
fn zero_rounds_is_a_usage_error() {
    let folder = files_folder(&[("v.json", TWO_VECTORS)]);
    let output = bench(folder.path(), &["--rounds", "0"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
}
