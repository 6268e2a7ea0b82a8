//! Scenarios over the peer protocol: the reference served as a peer passes them exactly, and a
//! fake peer that misbehaves mid-scenario is classified (timeout, crash, protocol-error) without a
//! hang; no scratch directory outlives a run, whatever the peer did.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const CONFORM: &str = env!("CARGO_BIN_EXE_conform");

/// A vectors folder with the given `hashline_edit` scenarios (bodies after the id) and one vector.
fn folder(scenarios: &[(&str, String)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a folder");
    std::fs::write(
        dir.path().join("v.json"),
        r#"{"tool": "web_search", "vectors": [{"id": "plain", "input": {"query": "q"}, "accept": {"query": "q", "count": 8}}]}"#,
    )
    .expect("written");
    let items: Vec<String> = scenarios
        .iter()
        .map(|(id, body)| format!(r#"{{"id": "{id}", {body}}}"#))
        .collect();
    std::fs::write(
        dir.path().join("exec.json"),
        format!(
            r#"{{"tool": "hashline_edit", "scenarios": [{}]}}"#,
            items.join(",\n")
        ),
    )
    .expect("written");
    dir
}

/// The worked example §3.1 of execution.md (anchors, then a replace), with `fake` riding on the
/// call so that the fake peer misbehaves there.
fn replace_one_line(fake: Option<&str>) -> String {
    let fake = fake.map_or(String::new(), |m| format!(r#", "fake": "{m}""#));
    format!(
        r#""files": {{"a.ts": "function greet() {{\n  return \"hi\";\n}}\n"}},
 "steps": [
  {{"anchors": "{{root}}/a.ts",
   "output": "1#WJ#SQ|function greet() {{\n2#ZS#QW|  return \"hi\";\n3#RZ#TP|}}\n4#RW#QH|"}},
  {{"call": {{"filePath": "{{root}}/a.ts", "edits": [{{"op": "replace", "pos": "2#ZS#QW", "lines": ["  return \"hello\";"]}}]{fake}}},
   "output": "Updated {{root}}/a.ts (+1/-1, first change line 2)\n@@ changed lines 2 @@\n  function greet() {{\n-   return \"hi\";\n+   return \"hello\";\n  }}\n  "}}
 ],
 "after": {{"a.ts": "function greet() {{\n  return \"hello\";\n}}\n"}}"#
    )
}

/// The worked example §3.2 of execution.md: anchors, a write by another program, stale anchors.
const STALE_ANCHORS: &str = r#""files": {"b.txt": "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\nline 10\nline 11\nline 12\n"},
 "steps": [
  {"anchors": "{root}/b.txt",
   "output": "1#NJ#ZN|line 1\n2#TW#HK|line 2\n3#YX#XN|line 3\n4#WK#RV|line 4\n5#HK#RQ|line 5\n6#NK#BK|line 6\n7#SB#WY|line 7\n8#KM#ZQ|line 8\n9#VK#VT|line 9\n10#JR#MX|line 10\n11#TR#VW|line 11\n12#SZ#JS|line 12\n13#BQ#YR|"},
  {"write": {"b.txt": "line 1\nLINE 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nLINE 9\nline 10\nline 11\nline 12\n"}},
  {"call": {"filePath": "{root}/b.txt", "edits": [{"op": "replace", "pos": "2#TW#HK", "lines": ["two"]}, {"op": "replace", "pos": "9#VK#VT", "lines": ["nine"]}]},
   "output": "Error: hash mismatch - 2 lines have changed since last read. Use updated {line_number}#{hash_id} references below (>>> marks changed lines).\n\n    1#NJ#KJ|line 1\n>>> 2#VQ#RJ|LINE 2\n    3#YX#VQ|line 3\n    4#WK#RV|line 4\n    ...\n    7#SB#WY|line 7\n    8#KM#ZP|line 8\n>>> 9#PR#ZR|LINE 9\n    10#JR#PP|line 10\n    11#TR#VW|line 11\nTip: reuse LINE#ID#ANCHOR entries from the latest read output or mismatch snippet, or batch related edits in one call."}
 ],
 "after": {"b.txt": "line 1\nLINE 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nLINE 9\nline 10\nline 11\nline 12\n"}"#;

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// `conform run` of `dir` against `peer`, with scratch directories in `scratch`, bounded in time.
fn run(dir: &Path, peer: &str, scratch: &Path, extra: &[&str]) -> Output {
    let started = Instant::now();
    let output = Command::new(CONFORM)
        .args([
            "run",
            "--vectors",
            dir.to_str().expect("UTF-8"),
            "--peer",
            peer,
        ])
        .args([
            "--scratch",
            scratch.to_str().expect("UTF-8"),
            "--timeout-ms",
            "500",
        ])
        .args(extra)
        .output()
        .expect("conform runs");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "the run took {:?}",
        started.elapsed()
    );
    output
}

/// The number in the scenario table's `total` row under the column `outcome`.
fn scenario_total(output: &Output, outcome: &str) -> usize {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut lines = stdout.lines().skip_while(|l| !l.contains(" scenarios "));
    let header: Vec<&str> = lines
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    let row: Vec<&str> = lines
        .find(|l| l.starts_with("total"))
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    header
        .iter()
        .position(|h| *h == outcome)
        .and_then(|i| row.get(i))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

fn left_behind(scratch: &Path) -> Vec<String> {
    std::fs::read_dir(scratch)
        .expect("readable")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn the_reference_served_as_a_peer_passes_scenarios_exactly_with_validated_messages() {
    let scenarios: Vec<(&str, String)> = vec![
        ("replace-1", replace_one_line(None)),
        ("stale-1", STALE_ANCHORS.to_owned()),
        ("replace-2", replace_one_line(None)),
        ("stale-2", STALE_ANCHORS.to_owned()),
        ("replace-3", replace_one_line(None)),
    ];
    let dir = folder(&scenarios);
    let scratch = tempfile::tempdir().expect("a scratch parent");
    let peer = format!("{CONFORM} peer");
    let output = run(
        dir.path(),
        &peer,
        scratch.path(),
        &["--jobs", "2", "--validate-protocol"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert_eq!(scenario_total(&output, "pass"), 5, "{}", text(&output));
    assert!(
        text(&output).contains("scenarios passing by level: effect 5/5, exact 5/5"),
        "{}",
        text(&output)
    );
    assert_eq!(left_behind(scratch.path()), Vec::<String>::new());
}
