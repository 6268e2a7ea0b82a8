//! What a newcomer meets when their peer fails: `conform run` against a peer with a planted
//! difference prints each failure as `cargo test` does, writes every report with the input and
//! what was tested, refuses a tool the peer does not claim before anything runs, writes the
//! reports of a run whose peer became unusable, and says what ran when interrupted.

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{CONFORM, text};

const FAKE_PEER: &str = env!("CARGO_BIN_EXE_fake-peer");

fn conform(args: &[&str]) -> Output {
    Command::new(CONFORM)
        .args(args)
        .output()
        .expect("conform runs")
}

fn peer(args: &str) -> String {
    format!("{FAKE_PEER} {args}")
}

fn read(path: &Path) -> String {
    let text = std::fs::read_to_string(path);
    assert!(text.is_ok(), "{} cannot be read: {text:?}", path.display());
    text.unwrap_or_default()
}

#[test]
fn a_failing_run_prints_each_failure_in_full_then_one_line_each_before_the_summary() {
    let dir = tempfile::tempdir().expect("a folder");
    let reports = dir.path().join("reports");
    let command = peer("--plant off-by-one");
    let output = conform(&[
        "run",
        "--peer",
        &command,
        "--tool",
        "web_search",
        "--failures",
        "1",
        "--report",
        reports.to_str().expect("UTF-8"),
    ]);
    let out = text(&output);
    assert_eq!(output.status.code(), Some(2), "{out}");
    // The planted bound (21 accepted) fails the vectors that pin the upper bound of count.
    let first = out.find("---- web_search:").expect("a failure in full");
    let summary = out.find("passing by level").expect("the summary");
    assert!(
        first < summary,
        "the failures come before the summary:\n{out}"
    );
    let full = &out[first..];
    for part in [
        "(fail) ----\n",
        ": expected reject at count, received accept",
        "\ninput:\n",
        "\nexpected:\n",
        "\nreceived:\n",
        "Differences",
    ] {
        assert!(
            full.contains(part),
            "the failure in full lacks {part:?}:\n{out}"
        );
    }
    assert_eq!(
        out.matches("\n---- web_search:").count() + usize::from(out.starts_with("---- ")),
        1,
        "one in full:\n{out}"
    );
    assert!(
        out.contains("  web_search:"),
        "the others one line each:\n{out}"
    );
    assert!(
        out.contains("(fail, web_search/"),
        "a one-line entry names its outcome and file:\n{out}"
    );

    // Every report: the input of each failure, what was tested.
    let json = read(&reports.join("conformance.json"));
    assert!(json.contains(&format!(r#""peer": "{command}""#)), "{json}");
    assert!(json.contains(r#""contract": "1.6.0""#), "{json}");
    assert!(json.contains(r#""input": {"#), "{json}");
    assert!(json.contains(r#""asked": "#), "{json}");
    let md = read(&reports.join("conformance.md"));
    assert!(md.contains("- Peer: `"), "{md}");
    assert!(md.contains("Input:\n\n```json\n"), "{md}");
    assert!(md.len() <= 60_000, "conformance.md has {} bytes", md.len());
    let junit = read(&reports.join("junit.xml"));
    assert!(junit.contains("<failure message=\"expected reject at count, received accept\" type=\"fail\">web_search:"), "{junit}");

    // None: the summary alone.
    let quiet = conform(&[
        "run",
        "--peer",
        &command,
        "--tool",
        "web_search",
        "--failures",
        "none",
    ]);
    let quiet = text(&quiet);
    assert!(!quiet.contains("---- "), "{quiet}");
    assert!(quiet.contains("passing by level"), "{quiet}");
}

#[test]
fn a_failure_list_cut_short_says_how_many_more_and_where_to_find_them() {
    let command = peer("--all accept");
    let output = conform(&[
        "run",
        "--peer",
        &command,
        "--tool",
        "web_search",
        "--only",
        "vectors",
    ]);
    let out = text(&output);
    assert_eq!(output.status.code(), Some(2), "{out}");
    assert_eq!(
        out.matches("\n---- web_search:").count() + usize::from(out.starts_with("---- ")),
        20,
        "twenty in full:\n{out}"
    );
    assert!(
        out.contains(" more: see --report DIR, or --failures all"),
        "the rest are counted:\n{out}"
    );
    let one_lines = out
        .lines()
        .filter(|l| l.starts_with("  web_search:"))
        .count();
    assert_eq!(one_lines, 100, "a hundred one-line entries:\n{out}");
}

#[test]
fn scores_leave_out_what_the_peer_does_not_claim() {
    let command = peer("--tools web_search");
    let output = conform(&["run", "--peer", &command, "--only", "vectors"]);
    let out = text(&output);
    assert_eq!(output.status.code(), Some(0), "{out}");
    let line = out
        .lines()
        .find(|l| l.starts_with("passing by level: "))
        .expect("the levels line");
    let (asked, _) = line
        .trim_start_matches("passing by level: verdict ")
        .split_once('/')
        .expect("a count");
    assert!(
        line.contains(&format!("verdict {asked}/{asked}, ")),
        "every asked vector passes at verdict, and only those are counted: {line}"
    );
    assert!(
        line.contains(
            "vectors of tools the implementation does not claim are counted apart (unsupported)"
        ),
        "{line}"
    );
}

#[test]
fn a_tool_the_peer_does_not_claim_is_a_usage_error_before_anything_runs() {
    let dir = tempfile::tempdir().expect("a folder");
    let reports = dir.path().join("reports");
    let command = peer("--tools web_search");
    let output = conform(&[
        "run",
        "--peer",
        &command,
        "--tool",
        "web_fetch",
        "--report",
        reports.to_str().expect("UTF-8"),
    ]);
    let out = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}");
    assert!(
        out.contains(
            "--tool web_fetch: the peer does not claim this tool (its hello lists: web_search)"
        ),
        "{out}"
    );
    assert!(!out.contains("passing by level"), "nothing ran:\n{out}");
    assert!(!reports.exists(), "nothing was written");
}

#[test]
fn an_unusable_peer_still_gets_its_reports_and_a_line_naming_the_failure_and_the_vector() {
    let dir = tempfile::tempdir().expect("a folder");
    let reports = dir.path().join("reports");
    let command = peer("--plant crash");
    let output = conform(&[
        "run",
        "--peer",
        &command,
        "--tool",
        "web_search",
        "--max-restarts",
        "0",
        "--report",
        reports.to_str().expect("UTF-8"),
    ]);
    let out = text(&output);
    assert_eq!(output.status.code(), Some(3), "{out}");
    assert!(out.contains("error: the peer is unusable: "), "{out}");
    assert!(
        out.contains("; the last failure: crash at web_search:"),
        "{out}"
    );
    let json = read(&reports.join("conformance.json"));
    assert!(json.contains(r#""stopped": {"#), "{json}");
    assert!(
        json.contains(r#""reason": "the peer is unusable: "#),
        "{json}"
    );
    let md = read(&reports.join("conformance.md"));
    assert!(
        md.contains("- Result: STOPPED: the peer is unusable: "),
        "{md}"
    );
    let junit = read(&reports.join("junit.xml"));
    assert!(junit.contains(r#"type="stopped""#), "{junit}");

    // A bad hello: nothing ran, and the reports say so.
    let bad = conform(&[
        "run",
        "--peer",
        &peer("--hello bad"),
        "--report",
        reports.to_str().expect("UTF-8"),
    ]);
    assert_eq!(bad.status.code(), Some(3), "{}", text(&bad));
    let json = read(&reports.join("conformance.json"));
    assert!(json.contains("bad hello from the peer"), "{json}");
    assert!(json.contains(r#""vectors_not_run": "#), "{json}");
}

#[cfg(unix)]
#[test]
fn an_interrupted_run_says_what_ran_and_what_did_not_and_writes_the_reports_of_what_ran() {
    let dir = tempfile::tempdir().expect("a folder");
    let reports = dir.path().join("reports");
    let command = peer("--slow-ms 20 --marker interrupted-run-says-what-ran");
    let child = Command::new(CONFORM)
        .args([
            "run",
            "--peer",
            &command,
            "--tool",
            "web_search",
            "--only",
            "vectors",
        ])
        .args(["--report", reports.to_str().expect("UTF-8")])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("conform starts");
    // Some checks answer before the interrupt: at 20 ms each, about 25 in half a second.
    std::thread::sleep(Duration::from_millis(500));
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("a pid"));
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).expect("SIGINT sent");
    let started = Instant::now();
    let output = child.wait_with_output().expect("conform ends");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "it ended promptly"
    );
    let out = text(&output);
    assert_eq!(output.status.code(), Some(130), "{out}");
    assert!(
        !common::process_running("interrupted-run-says-what-ran"),
        "the peer is gone"
    );
    let line = out.lines().find(|l| l.starts_with("interrupted: "));
    assert!(line.is_some(), "no closing line:\n{out}");
    let line = line.unwrap_or_default();
    let ran: usize = line
        .trim_start_matches("interrupted: ")
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a count of vectors that ran");
    assert!(ran > 0, "{line}");
    let listed = conform(&["list", "--tool", "web_search", "--only", "vectors"]);
    let selected = String::from_utf8_lossy(&listed.stdout).lines().count();
    assert!(ran < selected, "the interrupt came before the end: {line}");
    assert!(
        line.contains(&format!(
            " of {selected} selected vectors and 0 of 0 selected scenarios had run; {} vectors and 0 scenarios were not run",
            selected - ran
        )),
        "{line}"
    );
    // What ran is reported, and no vector is blamed for the peer the interrupt killed.
    assert!(out.contains("passing by level: verdict "), "{out}");
    let json = read(&reports.join("conformance.json"));
    assert!(
        json.contains(r#""reason": "interrupted (SIGINT or SIGTERM)""#),
        "{json}"
    );
    assert!(
        json.contains(&format!(r#""vectors_not_run": {}"#, selected - ran)),
        "{json}"
    );
    assert!(!json.contains(r#""outcome": "crash""#), "{json}");
    let md = read(&reports.join("conformance.md"));
    assert!(
        md.contains("- Result: STOPPED: interrupted (SIGINT or SIGTERM)"),
        "{md}"
    );
}

#[test]
fn a_huge_value_is_quoted_cut_in_one_line_reasons_and_shown_cut_in_the_reports() {
    let dir = tempfile::tempdir().expect("a folder");
    let (sent, expected) = ("q".repeat(1_000_000), "r".repeat(1_000_000));
    let vectors = format!(
        r#"{{"tool": "web_search", "vectors": [{{"id": "huge", "input": {{"query": "{sent}"}}, "accept": {{"query": "{expected}", "count": 8}}}}]}}"#
    );
    std::fs::create_dir_all(dir.path().join("v")).expect("a folder");
    std::fs::write(dir.path().join("v/huge.json"), vectors).expect("a vector file");
    let (known, reports) = (dir.path().join("known.json"), dir.path().join("reports"));
    let output = conform(&[
        "run",
        "--no-builtin",
        "--vectors",
        dir.path().join("v").to_str().expect("UTF-8"),
        "--peer",
        &peer("--all accept"),
        "--write-known-failures",
        known.to_str().expect("UTF-8"),
        "--report",
        reports.to_str().expect("UTF-8"),
    ]);
    let out = text(&output);
    assert_eq!(
        output.status.code(),
        Some(2),
        "{}",
        out.chars().take(2_000).collect::<String>()
    );
    assert!(out.len() < 20_000, "the console shows {} bytes", out.len());
    let reason = read(&known);
    assert!(
        reason.len() < 1_000,
        "the known-failure file has {} bytes",
        reason.len()
    );
    assert!(
        reason.contains(r#"accepted, but the output differs at query: expected \"rrrr"#),
        "{reason}"
    );
    assert!(reason.contains("… (999882 more characters)"), "{reason}");
    let md = read(&reports.join("conformance.md"));
    assert!(md.len() < 60_000, "conformance.md has {} bytes", md.len());
    let junit = read(&reports.join("junit.xml"));
    assert!(junit.len() < 60_000, "junit.xml has {} bytes", junit.len());
}

/// A peer in Python that greets as `web_search`'s and answers every check with `answer`, raw
/// bytes included; `hello` replaces its hello when given.
fn raw_peer(dir: &Path, hello: Option<&str>, answer: &str) -> String {
    let script = format!(
        r#"import sys
out = sys.stdout.buffer
for line in sys.stdin.buffer:
    if b'"hello"' in line:
        out.write({hello} + b"\n")
    elif b'"check"' in line:
        seq = line.split(b'"seq":')[1].split(b',')[0]
        out.write(b'{{"type":"result","seq":' + seq + b',"error":"' + {answer} + b'"}}\n')
    elif b'"bye"' in line:
        break
    out.flush()
"#,
        hello = hello.unwrap_or(
            r#"b'{"type":"hello","protocol":1,"implementation":{"name":"raw","version":"0","language":"python"},"tools":["web_search"],"scenarios":[]}'"#
        ),
    );
    let path = dir.join("raw_peer.py");
    std::fs::write(&path, script).expect("the peer's script");
    format!("python3 {}", path.display())
}

#[test]
fn a_peer_line_that_is_not_utf8_is_a_protocol_error_naming_the_byte_offset() {
    let dir = tempfile::tempdir().expect("a folder");
    // Raw 0xFF where an implementation should have written U+FFFD.
    let command = raw_peer(dir.path(), None, r#"b'\xff'"#);
    let output = conform(&[
        "run",
        "--peer",
        &command,
        "--tool",
        "web_search",
        "--only",
        "vectors",
        "--filter",
        "count",
        "--max-restarts",
        "1000",
    ]);
    let out = text(&output);
    assert_eq!(output.status.code(), Some(2), "{out}");
    assert!(
        out.contains("protocol error: a line that is not UTF-8 (an invalid byte at offset 34)"),
        "{out}"
    );
    let hello = raw_peer(dir.path(), Some(r#"b'{"type":"hello","x":"\xfe"}'"#), "b''");
    let output = conform(&["run", "--peer", &hello, "--tool", "web_search"]);
    let out = text(&output);
    assert_eq!(output.status.code(), Some(3), "{out}");
    assert!(
        out.contains(
            "bad hello from the peer: a line that is not UTF-8 (an invalid byte at offset 21)"
        ),
        "{out}"
    );
}

#[test]
fn list_selects_as_run_does_and_exec_help_says_which_editor_takes_relative_paths() {
    let listed = conform(&[
        "list",
        "--tool",
        "web_search",
        "--filter",
        "count",
        "--only",
        "vectors",
    ]);
    let names = String::from_utf8_lossy(&listed.stdout).to_string();
    assert_eq!(listed.status.code(), Some(0), "{}", text(&listed));
    assert!(!names.is_empty(), "some web_search vector names count");
    assert!(
        names
            .lines()
            .all(|n| n.starts_with("web_search:") && n.contains("count")),
        "{names}"
    );
    let all = conform(&["list"]);
    assert!(String::from_utf8_lossy(&all.stdout).lines().count() > names.lines().count());
    let unknown = conform(&["list", "--tool", "web-search"]);
    assert_eq!(unknown.status.code(), Some(1), "{}", text(&unknown));
    let help = conform(&["exec", "--help"]);
    let help = text(&help);
    assert!(
        help.contains("str_replace_editor takes absolute paths only and refuses a relative one"),
        "{help}"
    );
    assert!(
        !help.contains("Relative paths resolve against the current directory"),
        "{help}"
    );
}
