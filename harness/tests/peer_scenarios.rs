//! Scenarios over the peer protocol: the reference served as a peer passes them exactly, and a
//! fake peer that misbehaves mid-scenario is classified (timeout, crash, protocol-error) without a
//! hang; no scratch directory outlives a run, whatever the peer did.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

mod common;

use common::{CONFORM, scenario_folder, still_running_after, text};

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

/// `conform run` of `dir` against `peer`, with scratch directories in `scratch`, bounded in time;
/// the timeout is 2 s unless `extra` gives one.
fn run(dir: &Path, peer: &str, scratch: &Path, extra: &[&str]) -> Output {
    let started = Instant::now();
    let timeout = match extra.contains(&"--timeout-ms") {
        true => &[][..],
        false => &["--timeout-ms", "2000"][..],
    };
    let output = Command::new(CONFORM)
        .args([
            "run",
            "--no-builtin",
            "--vectors",
            dir.to_str().expect("UTF-8"),
            "--peer",
            peer,
        ])
        .args(["--scratch", scratch.to_str().expect("UTF-8")])
        .args(timeout)
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
    let dir = scenario_folder("hashline_edit", &scenarios);
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

const FAKE: &str = env!("CARGO_BIN_EXE_fake-peer");

/// The worked example §3.2 with `fake` riding on its call, which comes after the write step.
fn stale_anchors(fake: &str) -> String {
    STALE_ANCHORS.replace(
        r#"{"op": "replace", "pos": "9#VK#VT", "lines": ["nine"]}]}"#,
        &format!(
            r#"{{"op": "replace", "pos": "9#VK#VT", "lines": ["nine"]}}], "fake": "{fake}"}}"#
        ),
    )
}

#[test]
fn misbehaviour_mid_scenario_is_classified_without_a_hang_and_leaves_no_directory() {
    let scenarios: Vec<(&str, String)> = vec![
        ("fine", replace_one_line(None)),
        ("hang", replace_one_line(Some("hang"))),
        (
            "crash-after-write",
            replace_one_line(Some("crash-after-write")),
        ),
        ("crash-after-a-write-step", stale_anchors("crash")),
        ("wrong-seq", replace_one_line(Some("wrong-seq"))),
        ("verdict", replace_one_line(Some("verdict"))),
        ("garbage", stale_anchors("garbage")),
        ("error", replace_one_line(Some("error"))),
    ];
    let dir = scenario_folder("hashline_edit", &scenarios);
    let scratch = tempfile::tempdir().expect("a scratch parent");
    let report = tempfile::tempdir().expect("a report folder");
    let started = Instant::now();
    let output = run(
        dir.path(),
        FAKE,
        scratch.path(),
        &[
            "--jobs",
            "2",
            "--report",
            report.path().to_str().expect("UTF-8"),
            // The hanging scenario waits this long; the others answer at once.
            "--timeout-ms",
            "200",
        ],
    );
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    let counts: Vec<(&str, usize)> = ["pass", "timeout", "crash", "protocol-error", "error"]
        .into_iter()
        .map(|o| (o, scenario_total(&output, o)))
        .collect();
    assert_eq!(
        counts,
        [
            ("pass", 1),
            ("timeout", 1),
            ("crash", 2),
            ("protocol-error", 3),
            ("error", 1)
        ],
        "{}",
        text(&output)
    );
    assert_eq!(left_behind(scratch.path()), Vec::<String>::new());
    let json = std::fs::read_to_string(report.path().join("conformance.json")).expect("a report");
    for part in [
        "a verdict (accept or reject) answers a check, not an exec",
        "an answer for seq",
        "the implementation answered error: fake-peer cannot run this",
        "fake-peer: crashing after running exec",
        "\"step\": 2",
    ] {
        assert!(json.contains(part), "{part:?} in {json}");
    }
}

#[test]
fn a_peer_that_executes_nothing_leaves_scenarios_unsupported_and_a_bad_list_is_a_bad_hello() {
    let dir = scenario_folder("hashline_edit", &[("fine", replace_one_line(None))]);
    let scratch = tempfile::tempdir().expect("a scratch parent");
    let output = run(
        dir.path(),
        &format!("{FAKE} --scenarios none"),
        scratch.path(),
        &[],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert_eq!(
        scenario_total(&output, "unsupported"),
        1,
        "{}",
        text(&output)
    );
    let output = run(
        dir.path(),
        &format!("{FAKE} --scenarios hashline-edit"),
        scratch.path(),
        &[],
    );
    assert_eq!(output.status.code(), Some(3), "{}", text(&output));
    assert!(
        text(&output).contains("\"scenarios\" names an unknown tool \"hashline-edit\""),
        "{}",
        text(&output)
    );
}

#[test]
fn too_many_restarts_in_scenarios_make_the_peer_unusable_and_still_clean_up() {
    let scenarios: Vec<(&str, String)> = vec![
        ("crash-1", replace_one_line(Some("crash"))),
        ("crash-2", replace_one_line(Some("crash"))),
        ("crash-3", replace_one_line(Some("crash"))),
    ];
    let dir = scenario_folder("hashline_edit", &scenarios);
    let scratch = tempfile::tempdir().expect("a scratch parent");
    let output = run(dir.path(), FAKE, scratch.path(), &["--max-restarts", "1"]);
    assert_eq!(output.status.code(), Some(3), "{}", text(&output));
    assert!(
        text(&output).contains("the peer failed 2 times"),
        "{}",
        text(&output)
    );
    assert!(
        text(&output).contains("of the 3 selected scenarios were not run"),
        "{}",
        text(&output)
    );
    assert_eq!(left_behind(scratch.path()), Vec::<String>::new());
}

#[test]
fn an_interrupt_mid_scenario_leaves_no_directory_and_no_peer() {
    interrupt_mid_scenario(nix::sys::signal::Signal::SIGINT);
}

/// SIGTERM is how an interrupted mutation run stops the suites it started.
#[test]
fn a_termination_mid_scenario_leaves_no_directory_and_no_peer() {
    interrupt_mid_scenario(nix::sys::signal::Signal::SIGTERM);
}

fn interrupt_mid_scenario(signal: nix::sys::signal::Signal) {
    let dir = scenario_folder("hashline_edit", &[("hang", replace_one_line(Some("hang")))]);
    let scratch = tempfile::tempdir().expect("a scratch parent");
    let marker = format!("interrupt-marker-{}-{signal}", std::process::id());
    let mut child = Command::new(CONFORM)
        .args([
            "run",
            "--no-builtin",
            "--vectors",
            dir.path().to_str().expect("UTF-8"),
        ])
        .args([
            "--peer",
            &format!("{FAKE} --marker {marker}"),
            "--timeout-ms",
            "60000",
        ])
        .args(["--scratch", scratch.path().to_str().expect("UTF-8")])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("conform starts");
    let started = Instant::now();
    // Wait until the hanging scenario has its directory.
    while left_behind(scratch.path()).is_empty() && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        left_behind(scratch.path()).len(),
        1,
        "the scenario is running"
    );
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("a pid"));
    nix::sys::signal::kill(pid, signal).expect("signalled");
    let status = child.wait().expect("conform ends");
    assert_eq!(status.code(), Some(130), "{signal}");
    assert_eq!(left_behind(scratch.path()), Vec::<String>::new());
    assert!(
        !still_running_after(&marker, Duration::from_millis(100)),
        "the peer outlived the run"
    );
}
