//! The runner against peer processes: the reference served over the protocol, and a fake peer
//! that misbehaves in every way the protocol allows. Every test finishes in bounded time.
//!
//! The fake peer's misbehaviours are a table of cases (`peer_cases!`), each a `#[test]` named as
//! a sentence and run by one driver, [`check`], which reports every expectation a run missed
//! with the case, the command, what was expected and what was received.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use vvoc_harness::{Outcome, default_vectors_dir};

mod common;

use common::{CONFORM, still_running_after, text};

const FAKE: &str = env!("CARGO_BIN_EXE_fake-peer");

/// One `conform run` of a vectors folder (see [`folder`]) against a peer, and what it must show.
#[derive(Clone, Copy, Debug)]
struct Case {
    /// The fake modes the folder holds a vector for.
    modes: &'static [&'static str],
    /// Further files of the folder: a name and its text.
    files: &'static [(&'static str, &'static str)],
    /// The peer the run starts.
    peer: Peer,
    /// The run's arguments after `--peer`; a fake peer's run takes `--timeout-ms 400` unless
    /// they give one, so that a misbehaviour costs little time.
    args: &'static [&'static str],
    /// The exit code.
    exit: i32,
    /// Outcome counts of the vector summary's `total` row: a column and its number.
    totals: &'static [(&'static str, usize)],
    /// Texts the run's output (standard output, then standard error) holds.
    says: &'static [&'static str],
    /// What `conformance.json` must show, when the run writes one (`--report`).
    report: Option<ReportCheck>,
    /// The longest the run may take.
    within: Duration,
}

/// The peer a case's run starts.
#[derive(Clone, Copy, Debug)]
enum Peer {
    /// The fake peer with these arguments.
    Fake(&'static str),
    /// This command line.
    Command(&'static str),
}

/// A check of a run's `conformance.json`: what it must show, in words, and whether it does
/// (`Err` says what the report showed instead).
#[derive(Clone, Copy, Debug)]
struct ReportCheck {
    expect: &'static str,
    holds: fn(&str) -> Result<(), String>,
}

/// The fields most cases leave as they are: a well-behaved fake peer, a passing run, no report.
const CASE: Case = Case {
    modes: &[],
    files: &[],
    peer: Peer::Fake(""),
    args: &[],
    exit: 0,
    totals: &[],
    says: &[],
    report: None,
    within: Duration::from_secs(30),
};

/// A `web_fetch` vector file, for a peer whose hello lists only `web_fetch`.
const FETCH: (&str, &str) = (
    "fetch.json",
    r#"{"tool": "web_fetch", "vectors": [{"id": "plain", "input": {"url": "https://a.test"}, "accept": {"url": "https://a.test", "format": "markdown", "timeout": 30}}]}"#,
);

/// Declares each case as a `#[test]` of its name that runs [`check`] on it.
macro_rules! peer_cases {
    ($($name:ident: $case:expr;)+) => {
        $(
            #[test]
            fn $name() {
                check(stringify!($name), &$case);
            }
        )+
    };
}

peer_cases! {
    a_peer_that_accepts_everything_fails_the_rejections: Case {
        peer: Peer::Fake("--all accept"),
        exit: 2,
        totals: &[("pass", 0), ("fail", 2)],
        ..CASE
    };
    a_peer_that_rejects_everything_fails_every_vector_at_the_exact_level: Case {
        peer: Peer::Fake("--all reject"),
        exit: 2,
        totals: &[("pass", 0), ("fail", 2)],
        ..CASE
    };
    a_peer_that_rejects_everything_passes_its_rejection_at_the_verdict_level: Case {
        peer: Peer::Fake("--all reject"),
        args: &["--level", "verdict"],
        exit: 2,
        totals: &[("pass", 1), ("fail", 1)],
        ..CASE
    };
    wrong_messages_fail_at_exact: Case {
        peer: Peer::Fake("--all wrong-issues"),
        exit: 2,
        totals: &[("fail", 1)],
        ..CASE
    };
    wrong_messages_pass_at_issues: Case {
        peer: Peer::Fake("--all wrong-issues"),
        args: &["--level", "issues"],
        says: &["passing by level: verdict 2/2, first 2/2, issues 2/2, exact 1/2"],
        ..CASE
    };
    a_crash_is_blamed_on_its_check_and_the_peer_is_restarted: Case {
        modes: &["crash"],
        exit: 2,
        totals: &[("pass", 2), ("crash", 1)],
        report: Some(ReportCheck {
            expect: "the stderr tail kept: \"fake-peer: crashing on check\"",
            holds: |json| holds(json.contains("fake-peer: crashing on check"), json),
        }),
        ..CASE
    };
    // The run waits out the timeout once: a short one.
    a_hang_times_out_and_the_rest_still_runs: Case {
        modes: &["hang"],
        args: &["--timeout-ms", "200"],
        exit: 2,
        totals: &[("pass", 2), ("timeout", 1)],
        within: Duration::from_secs(10),
        ..CASE
    };
    garbage_and_a_wrong_seq_are_protocol_errors: Case {
        modes: &["garbage", "wrong-seq"],
        exit: 2,
        totals: &[("pass", 2), ("protocol-error", 2)],
        ..CASE
    };
    an_error_answer_is_an_error_outcome: Case {
        modes: &["error"],
        exit: 2,
        totals: &[("pass", 2), ("error", 1)],
        ..CASE
    };
    // A split answer is still a correct answer; its vector expects the unknown-key refusal.
    an_answer_split_across_writes_is_reassembled: Case {
        modes: &["split"],
        totals: &[("pass", 3)],
        ..CASE
    };
    a_flood_on_stderr_neither_blocks_nor_grows_the_report: Case {
        peer: Peer::Fake("--flood-stderr"),
        report: Some(ReportCheck {
            expect: "a stderr tail that shows the flood, with under 4296 bytes from it to the end",
            holds: |json| {
                let tail = json.split("\"stderr_tail\": ").nth(1).unwrap_or_default();
                holds(
                    tail.contains("fake-peer floods stderr") && tail.len() < 4096 + 200,
                    &format!("{} bytes from the stderr tail on: {tail}", tail.len()),
                )
            },
        }),
        ..CASE
    };
    a_slow_peer_within_the_timeout_passes: Case {
        peer: Peer::Fake("--slow-ms 100"),
        args: &["--timeout-ms", "2000"],
        ..CASE
    };
    a_peer_that_exits_during_the_hello_is_unusable_and_its_stderr_is_shown: Case {
        peer: Peer::Fake("--hello exit"),
        exit: 3,
        says: &[
            "the peer exited during the hello",
            "fake-peer: exiting during the hello",
        ],
        ..CASE
    };
    a_bad_hello_makes_the_peer_unusable: Case {
        peer: Peer::Fake("--hello bad"),
        exit: 3,
        says: &["the peer speaks protocol 2"],
        ..CASE
    };
    a_peer_that_cannot_start_is_unusable: Case {
        peer: Peer::Command("/no/such/peer --flag"),
        exit: 3,
        says: &["cannot start the peer `/no/such/peer --flag`"],
        ..CASE
    };
    // The run waits out the timeout once: a short one.
    too_many_restarts_make_the_peer_unusable: Case {
        modes: &["crash", "hang", "garbage"],
        args: &["--max-restarts", "1", "--timeout-ms", "200"],
        exit: 3,
        says: &["the peer failed 2 times"],
        ..CASE
    };
    tools_missing_from_the_hello_are_unsupported_not_failures: Case {
        files: &[FETCH],
        peer: Peer::Fake("--tools web_fetch"),
        totals: &[("unsupported", 2), ("pass", 1)],
        ..CASE
    };
    a_peer_that_claims_none_of_the_selected_tools_checked_nothing_which_is_no_success: Case {
        files: &[FETCH],
        peer: Peer::Fake("--tools work_item_list"),
        exit: 1,
        says: &["the peer implements none of the selected tools (its hello lists: work_item_list)"],
        ..CASE
    };
    a_tool_the_peer_does_not_claim_is_refused_before_anything_runs: Case {
        files: &[FETCH],
        peer: Peer::Fake("--tools web_fetch"),
        args: &["--tool", "web_search"],
        exit: 1,
        says: &["--tool web_search: the peer does not claim this tool (its hello lists: web_fetch)"],
        ..CASE
    };
    a_hello_naming_an_unknown_tool_is_a_bad_hello: Case {
        peer: Peer::Fake("--tools web-search"),
        exit: 3,
        says: &["\"tools\" names an unknown tool \"web-search\""],
        ..CASE
    };
    the_lenient_reader_accepts_a_message_with_an_extra_member: Case {
        peer: Peer::Fake("--extra-member"),
        ..CASE
    };
    protocol_validation_refuses_a_message_the_lenient_reader_accepts: Case {
        peer: Peer::Fake("--extra-member"),
        args: &["--validate-protocol", "--max-restarts", "5"],
        exit: 2,
        totals: &[("protocol-error", 2)],
        ..CASE
    };
}

/// Runs `case` (the test `name`) and fails with every expectation the run missed.
fn check(name: &str, case: &Case) {
    let dir = folder(case.modes);
    for (file, text) in case.files {
        std::fs::write(dir.path().join(file), text).expect("written");
    }
    let report = tempfile::tempdir().expect("a report folder");
    let mut args: Vec<String> = ["run", "--no-builtin", "--vectors"]
        .into_iter()
        .map(str::to_owned)
        .collect();
    args.push(dir.path().to_str().expect("UTF-8").to_owned());
    args.push("--peer".to_owned());
    args.push(match case.peer {
        Peer::Fake(peer_args) => format!("{FAKE} {peer_args}"),
        Peer::Command(command) => command.to_owned(),
    });
    if matches!(case.peer, Peer::Fake(_)) && !case.args.contains(&"--timeout-ms") {
        args.extend(["--timeout-ms".to_owned(), "400".to_owned()]);
    }
    args.extend(case.args.iter().map(|a| (*a).to_owned()));
    if case.report.is_some() {
        args.push("--report".to_owned());
        args.push(report.path().to_str().expect("UTF-8").to_owned());
    }
    let started = Instant::now();
    let output = Command::new(CONFORM)
        .args(&args)
        .output()
        .expect("conform runs");
    let run = Run {
        elapsed: started.elapsed(),
        report: std::fs::read_to_string(report.path().join("conformance.json")).ok(),
        output,
    };
    let missed = misses(case, &run);
    assert!(
        missed.is_empty(),
        "case: {}\ncommand: {}\nexpected: {}\nreceived: {}\nmissed:\n{}\noutput:\n{}",
        name.replace('_', " "),
        shell_words::join(std::iter::once(CONFORM.to_owned()).chain(args)),
        expected(case),
        received(case, &run),
        missed
            .iter()
            .map(|m| format!("  - {m}"))
            .collect::<Vec<_>>()
            .join("\n"),
        text(&run.output)
    );
}

/// What a case's run gave.
#[derive(Debug)]
struct Run {
    output: Output,
    elapsed: Duration,
    /// `conformance.json`, when the run wrote one.
    report: Option<String>,
}

/// Every expectation of `case` that `run` misses, each in a line.
fn misses(case: &Case, run: &Run) -> Vec<String> {
    let mut missed = Vec::new();
    if run.elapsed >= case.within {
        missed.push(format!(
            "the run took {:?}, not under {:?}",
            run.elapsed, case.within
        ));
    }
    if run.output.status.code() != Some(case.exit) {
        missed.push(format!(
            "exit code: expected {}, received {:?}",
            case.exit,
            run.output.status.code()
        ));
    }
    let stdout = String::from_utf8_lossy(&run.output.stdout);
    for (outcome, number) in case.totals {
        match read_total(&stdout, outcome) {
            Ok(read) if read == *number => {}
            Ok(read) => missed.push(format!(
                "total {outcome:?}: expected {number}, received {read}"
            )),
            Err(why) => missed.push(format!("total {outcome:?}: expected {number}, but {why}")),
        }
    }
    let all = text(&run.output);
    for words in case.says {
        if !all.contains(words) {
            missed.push(format!("the output does not say {words:?}"));
        }
    }
    if let Some(check) = case.report {
        match run.report.as_deref().map(check.holds) {
            Some(Ok(())) => {}
            Some(Err(instead)) => {
                missed.push(format!(
                    "report: expected {}, received {instead}",
                    check.expect
                ));
            }
            None => missed.push("report: no conformance.json was written".to_owned()),
        }
    }
    missed
}

/// Everything `case` expects, in one line.
fn expected(case: &Case) -> String {
    let mut parts = vec![format!("exit {}", case.exit)];
    parts.extend(case.totals.iter().map(|(o, n)| format!("{o} {n}")));
    parts.extend(case.says.iter().map(|w| format!("says {w:?}")));
    parts.extend(case.report.map(|r| format!("report: {}", r.expect)));
    parts.push(format!("under {:?}", case.within));
    parts.join(", ")
}

/// What `run` gave for everything `case` expects, in one line.
fn received(case: &Case, run: &Run) -> String {
    let stdout = String::from_utf8_lossy(&run.output.stdout);
    let mut parts = vec![format!("exit {:?}", run.output.status.code())];
    parts.extend(
        case.totals
            .iter()
            .map(|(o, _)| match read_total(&stdout, o) {
                Ok(n) => format!("{o} {n}"),
                Err(why) => format!("{o}: {why}"),
            }),
    );
    parts.push(format!("in {:?}", run.elapsed));
    parts.join(", ")
}

/// `Ok` when `condition` holds, else `Err` of what was found instead.
fn holds(condition: bool, instead: &str) -> Result<(), String> {
    match condition {
        true => Ok(()),
        false => Err(instead.to_owned()),
    }
}

#[test]
fn the_case_driver_reports_every_expectation_a_run_misses() {
    use std::os::unix::process::ExitStatusExt as _;
    let summary = "tool                 vectors     pass     fail\n\
                   web_search                 2        1        1\n\
                   total                      2        1        1\n";
    let run = Run {
        output: Output {
            status: std::process::ExitStatus::from_raw(2 << 8),
            stdout: summary.as_bytes().to_vec(),
            stderr: b"the peer said so\n".to_vec(),
        },
        elapsed: Duration::from_secs(1),
        report: Some("{}".to_owned()),
    };
    let met = Case {
        exit: 2,
        totals: &[("pass", 1), ("fail", 1), ("timeout", 0)],
        says: &["the peer said so"],
        report: Some(ReportCheck {
            expect: "an object",
            holds: |json| holds(json == "{}", json),
        }),
        ..CASE
    };
    assert_eq!(misses(&met, &run), Vec::<String>::new());
    let missed = Case {
        exit: 0,
        totals: &[("pass", 2), ("passes", 1)],
        says: &["nothing of the kind"],
        report: Some(ReportCheck {
            expect: "an array",
            holds: |json| holds(json == "[]", json),
        }),
        within: Duration::from_millis(500),
        ..CASE
    };
    assert_eq!(
        misses(&missed, &run),
        [
            "the run took 1s, not under 500ms",
            "exit code: expected 0, received Some(2)",
            "total \"pass\": expected 2, received 1",
            "total \"passes\": expected 1, but the vector summary has no column \"passes\" (only \
             outcome columns other than `pass` are left out, when no vector had them)",
            "the output does not say \"nothing of the kind\"",
            "report: expected an array, received {}",
        ]
    );
    let unwritten = Run {
        report: None,
        ..run
    };
    assert_eq!(
        misses(&met, &unwritten),
        ["report: no conformance.json was written"]
    );
}

/// A vectors folder of `web_search` vectors: two plain ones and one per given fake mode. The
/// fake modes ride on an unknown member, so a well-behaved peer rejects them as expected.
fn folder(modes: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut vectors = vec![
        r#"{"id": "plain-accept", "input": {"query": "q"}, "accept": {"query": "q", "count": 8}}"#.to_owned(),
        r#"{"id": "plain-reject", "input": {"query": "q", "count": 0}, "reject": [{"code": "too_small", "path": "count", "message": "Too small: expected number to be >=1"}]}"#.to_owned(),
    ];
    for mode in modes {
        vectors.push(format!(
            r#"{{"id": "fake-{mode}", "input": {{"query": "q", "fake": "{mode}"}}, "reject": [{{"code": "unrecognized_keys", "path": "fake", "message": "unrecognized key \"fake\"", "expected": "a known property of this request object"}}]}}"#
        ));
    }
    let text = format!(
        r#"{{"tool": "web_search", "vectors": [{}]}}"#,
        vectors.join(",\n")
    );
    std::fs::write(dir.path().join("fake.json"), text).expect("written");
    dir
}

/// Runs `conform run` against the fake peer with `peer_args`, bounded in time.
fn run(dir: &Path, peer_args: &str, extra: &[&str]) -> Output {
    let started = Instant::now();
    let peer = format!("{FAKE} {peer_args}");
    let mut args = vec![
        "run",
        "--no-builtin",
        "--vectors",
        dir.to_str().expect("UTF-8"),
        "--peer",
        &peer,
    ];
    if !extra.contains(&"--timeout-ms") {
        args.extend(["--timeout-ms", "400"]);
    }
    args.extend_from_slice(extra);
    let output = Command::new(CONFORM)
        .args(&args)
        .output()
        .expect("conform runs");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "the run took {:?}",
        started.elapsed()
    );
    output
}

/// Asserts that the run's output mentions `words`, showing the whole output when it does not.
fn says(output: &Output, words: &str) {
    let all = text(output);
    assert!(
        all.contains(words),
        "expected the output to say {words:?}:\n{all}"
    );
}

/// The number in the vector summary's `total` row under the column `outcome`; fails the test
/// when the summary cannot say (see [`read_total`]).
fn total(output: &Output, outcome: &str) -> usize {
    let read = read_total(&String::from_utf8_lossy(&output.stdout), outcome);
    assert!(
        read.is_ok(),
        "{}:\n{}",
        read.as_ref().err().map_or("", String::as_str),
        text(output)
    );
    read.unwrap_or_default()
}

/// The number in the `total` row of the vector summary (the table under `tool vectors ...`)
/// under the column `outcome`. The table leaves out the column of an outcome no vector had, so
/// such a column reads 0; a missing table, `total` row or other column, or a cell that is no
/// number, is an error.
fn read_total(stdout: &str, outcome: &str) -> Result<usize, String> {
    let words = |line: &str| {
        line.split_whitespace()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let mut lines = stdout
        .lines()
        .skip_while(|l| words(l).get(..2) != Some(&["tool".to_owned(), "vectors".to_owned()][..]));
    let header = lines
        .next()
        .map(words)
        .ok_or("the output has no vector summary (no `tool vectors ...` header)")?;
    let row = lines
        .take_while(|l| !l.starts_with("tool "))
        .map(words)
        .find(|row| row.first().is_some_and(|w| w == "total"))
        .ok_or("the vector summary has no `total` row")?;
    let Some(column) = header.iter().position(|h| h == outcome) else {
        let omitted = Outcome::ALL
            .iter()
            .any(|o| *o != Outcome::Pass && o.as_str() == outcome);
        return match omitted {
            true => Ok(0),
            false => Err(format!(
                "the vector summary has no column {outcome:?} (only outcome columns other than \
                 `pass` are left out, when no vector had them)"
            )),
        };
    };
    row.get(column)
        .and_then(|cell| cell.parse().ok())
        .ok_or_else(|| format!("the `total` row has no number under {outcome:?}"))
}

#[test]
fn the_summary_reader_fails_when_what_it_reads_is_missing() {
    let table = "tool                 vectors     pass     fail\n\
                 web_search                 2        1        1\n\
                 total                      2        1        1\n";
    assert_eq!(read_total(table, "vectors"), Ok(2));
    assert_eq!(read_total(table, "fail"), Ok(1));
    assert_eq!(
        read_total(table, "timeout"),
        Ok(0),
        "an omitted outcome column"
    );
    for (stdout, outcome, error) in [
        ("", "pass", "no vector summary"),
        (
            "error: the peer is unusable\n",
            "vectors",
            "no vector summary",
        ),
        (
            "tool                 vectors     pass\nweb_search                 2        2\n",
            "pass",
            "no `total` row",
        ),
        (table, "passes", "no column \"passes\""),
        (
            "tool                 vectors     pass\ntotal                      2\n",
            "pass",
            "no number under \"pass\"",
        ),
    ] {
        let read = read_total(stdout, outcome);
        assert!(
            read.as_ref().is_err_and(|e| e.contains(error)),
            "{stdout:?} at {outcome:?}: {read:?}"
        );
    }
}

#[test]
fn the_reference_served_as_a_peer_passes_every_vector_exactly() {
    let vectors = default_vectors_dir();
    let peer = format!("{CONFORM} peer");
    let output = Command::new(CONFORM)
        .args([
            "run",
            "--vectors",
            vectors.to_str().expect("UTF-8"),
            "--peer",
            &peer,
            "--level",
            "exact",
            "--jobs",
            "2",
        ])
        .output()
        .expect("conform runs");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert_eq!(
        total(&output, "vectors"),
        total(&output, "pass"),
        "{}",
        text(&output)
    );
    assert!(total(&output, "pass") > 2000);
}

#[test]
fn the_fake_peer_refuses_an_argument_it_does_not_know() {
    let output = Command::new(FAKE)
        .arg("--bogus")
        .output()
        .expect("fake-peer runs");
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    says(&output, "unexpected argument '--bogus'");
}

#[test]
fn known_failures_must_keep_failing_and_must_name_vectors() {
    let dir = folder(&[]);
    let list = dir
        .path()
        .parent()
        .expect("a parent")
        .join(format!("known-{}.json", std::process::id()));
    let write = |entries: &str| {
        std::fs::write(&list, format!(r#"{{"known_failures": [{entries}]}}"#)).expect("written")
    };
    let list_arg = list.to_str().expect("UTF-8").to_owned();
    write(r#"{"vector": "web_search:plain-reject", "reason": "the fake peer accepts everything"}"#);
    let output = run(dir.path(), "--all accept", &["--known-failures", &list_arg]);
    assert_eq!(total(&output, "known-fail"), 1, "{}", text(&output));
    write(r#"{"vector": "web_search:plain-accept", "reason": "listed but passing"}"#);
    let output = run(dir.path(), "", &["--known-failures", &list_arg]);
    assert_eq!(
        output.status.code(),
        Some(2),
        "a fixed vector fails the run: {}",
        text(&output)
    );
    assert_eq!(total(&output, "fixed"), 1, "{}", text(&output));
    write(r#"{"vector": "web_search:no-such-vector", "reason": "stale"}"#);
    let output = run(dir.path(), "", &["--known-failures", &list_arg]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(
        text(&output)
            .contains("lists \"web_search:no-such-vector\", which is no vector of this run"),
        "{}",
        text(&output)
    );
    let _ = std::fs::remove_file(&list);
}

#[test]
fn the_current_failures_can_be_written_as_a_starting_list() {
    let dir = folder(&["error"]);
    let list = tempfile::NamedTempFile::new().expect("a file");
    let output = run(
        dir.path(),
        "--all accept",
        &[
            "--write-known-failures",
            list.path().to_str().expect("UTF-8"),
        ],
    );
    assert_eq!(output.status.code(), Some(2));
    let written = std::fs::read_to_string(list.path()).expect("written");
    // Echoing the input is no normalized output, so even the accept vector fails.
    for name in ["plain-accept", "plain-reject", "fake-error"] {
        assert!(
            written.contains(&format!("\"vector\": \"web_search:{name}\"")),
            "{written}"
        );
    }
    let output = run(
        dir.path(),
        "--all accept",
        &["--known-failures", list.path().to_str().expect("UTF-8")],
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "with the list every failure is known: {}",
        text(&output)
    );
}

#[test]
fn several_peer_processes_share_the_work() {
    // The runner's business: the vectors of one tool are enough.
    let vectors = default_vectors_dir().join("web_fetch");
    let output = Command::new(CONFORM)
        .args([
            "run",
            "--no-builtin",
            "--vectors",
            vectors.to_str().expect("UTF-8"),
            "--peer",
            FAKE,
            "--jobs",
            "3",
            "--tool",
            "web_fetch",
        ])
        .output()
        .expect("conform runs");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert_eq!(total(&output, "pass"), total(&output, "vectors"));
}

#[test]
fn a_known_failure_file_listing_a_vector_twice_is_refused() {
    let dir = folder(&[]);
    let list = dir.path().join("known.txt");
    let entry = r#"{"vector": "web_search:plain-reject", "reason": "r"}"#;
    std::fs::write(
        &list,
        format!(r#"{{"known_failures": [{entry}, {entry}]}}"#),
    )
    .expect("written");
    let output = run(
        dir.path(),
        "--all accept",
        &["--known-failures", list.to_str().expect("UTF-8")],
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(
        text(&output).contains("lists \"web_search:plain-reject\" twice; keep one entry"),
        "{}",
        text(&output)
    );
}

#[test]
fn writing_known_failures_after_a_selection_keeps_the_other_entries() {
    let dir = folder(&["error"]);
    let list = dir.path().join("known.txt");
    let list_arg = list.to_str().expect("UTF-8");
    run(
        dir.path(),
        "--all accept",
        &["--write-known-failures", list_arg],
    );
    let all = std::fs::read_to_string(&list).expect("written");
    assert!(
        all.contains("plain-reject") && all.contains("fake-error"),
        "{all}"
    );
    // A run of one vector that now passes drops only that vector's entry.
    run(
        dir.path(),
        "",
        &[
            "--filter",
            "plain-reject",
            "--write-known-failures",
            list_arg,
        ],
    );
    let kept = std::fs::read_to_string(&list).expect("written");
    assert!(
        !kept.contains("plain-reject")
            && kept.contains("fake-error")
            && kept.contains("plain-accept"),
        "{kept}"
    );
}

#[test]
fn what_a_peer_started_is_killed_with_it() {
    let dir = folder(&[]);
    // A shell whose child never answers: the hello times out, and the whole group must go.
    let marker = format!("317.{}", std::process::id());
    let output = Command::new(CONFORM)
        .args([
            "run",
            "--no-builtin",
            "--vectors",
            dir.path().to_str().expect("UTF-8"),
            "--timeout-ms",
            "200",
            "--hello-timeout-ms",
            "200",
            "--peer",
        ])
        .arg(format!("sh -c 'sleep {marker}; true'"))
        .output()
        .expect("conform runs");
    assert_eq!(output.status.code(), Some(3), "{}", text(&output));
    says(&output, "the peer did not answer the hello within 200 ms");
    assert!(
        !still_running_after(&format!("sleep {marker}"), Duration::from_millis(200)),
        "the peer's child outlived the run"
    );
}

#[test]
fn conform_peer_answers_each_check_while_the_client_waits_with_its_input_open() {
    use std::io::{BufRead as _, BufReader, Write as _};
    let (mut peer, mut stdin) = interactive_peer();
    let (lines, received) = std::sync::mpsc::channel();
    let stdout = peer.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if lines.send(line.expect("a line")).is_err() {
                return;
            }
        }
    });
    let wait = Duration::from_secs(10);
    stdin
        .write_all(b"{\"type\":\"hello\",\"protocol\":1}\n")
        .expect("written");
    let hello = received.recv_timeout(wait).expect("the hello is answered");
    assert!(hello.starts_with("{\"type\":\"hello\""), "{hello}");
    for seq in 1..=3 {
        let check = format!(
            "{{\"type\":\"check\",\"seq\":{seq},\"tool\":\"web_search\",\"input\":{{}}}}\n"
        );
        stdin.write_all(check.as_bytes()).expect("written");
        // The input stays open: the answer must come without more input and without its end.
        let answer = received.recv_timeout(wait).expect("the check is answered");
        assert!(
            answer.starts_with(&format!("{{\"type\":\"result\",\"seq\":{seq},\"reject\":")),
            "{answer}"
        );
    }
    stdin.write_all(b"{\"type\":\"bye\"}\n").expect("written");
    let status = peer.wait().expect("the peer ends");
    assert!(status.success(), "{status}");
}

#[test]
fn conform_peer_ends_at_a_bye_spelled_with_escapes_while_its_input_stays_open() {
    use std::io::Write as _;
    let (mut peer, mut stdin) = interactive_peer();
    // Lines are parsed away from the thread that reads them, which must still see this `bye`.
    stdin
        .write_all(b"{\"type\":\"b\\u0079e\"}\n")
        .expect("written");
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        let status = peer.try_wait().expect("the peer's state");
        if status.is_some() || Instant::now() > deadline {
            break status;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let _ = peer.kill();
    assert!(
        status.is_some_and(|s| s.success()),
        "conform peer did not end well within 10 s of an escaped bye, its input open: {status:?}"
    );
    drop(stdin);
}

/// `conform peer` with its input and output piped, and its input.
fn interactive_peer() -> (std::process::Child, std::process::ChildStdin) {
    let mut peer = Command::new(CONFORM)
        .arg("peer")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("conform peer starts");
    let stdin = peer.stdin.take().expect("stdin");
    (peer, stdin)
}

#[test]
fn conform_peer_refuses_a_seq_past_two_to_the_53_echoing_its_exact_text() {
    use std::io::Write as _;
    let mut peer = Command::new(CONFORM)
        .arg("peer")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("conform peer starts");
    let mut stdin = peer.stdin.take().expect("stdin");
    stdin
        .write_all(
            b"{\"type\":\"check\",\"seq\":9007199254740993,\"tool\":\"web_search\",\"input\":{}}\n\
              {\"type\":\"check\",\"seq\":9007199254740991,\"tool\":\"web_search\",\"input\":{}}\n\
              {\"type\":\"bye\"}\n",
        )
        .expect("written");
    drop(stdin);
    let output = peer.wait_with_output().expect("the peer ends");
    let out = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(
        lines[0].starts_with(
            "{\"type\":\"result\",\"seq\":9007199254740993,\"error\":\"the seq 9007199254740993 \
             is beyond 2^53"
        ),
        "not refused with its own seq text: {}",
        lines[0]
    );
    assert!(
        lines[1].starts_with("{\"type\":\"result\",\"seq\":9007199254740991,\"reject\":"),
        "2^53 - 1 is answered as usual: {}",
        lines[1]
    );
}
