//! The three reports of a fixed run, snapshot-tested: every outcome appears once.

use std::collections::HashSet;
use std::time::Duration;

use vvoc_harness::Level;
use vvoc_harness::load::suite::parse_vector_file;
use vvoc_harness::outcome::{Answer, Failure};
use vvoc_harness::protocol::hello::Implementation;
use vvoc_harness::report::build::conformance;
use vvoc_harness::report::conformance::{Conformance, Stopped, SuiteReport, Tested};
use vvoc_harness::report::junit::junit;
use vvoc_harness::report::markdown::{DEFAULT_LIMIT, markdown};
use vvoc_harness::run::result::{Record, RunResult};
use vvoc_reference::{Json, Verdict, validate_json};

const VECTORS: &str = r#"{"tool": "web_search", "vectors": [
  {"id": "pass", "input": {"query": "q"}, "accept": {"query": "q", "count": 8}},
  {"id": "fail", "input": {"query": "q", "count": 0}, "reject": [{"code": "too_small", "path": "count", "message": "Too small: expected number to be >=1"}]},
  {"id": "error", "input": {"query": "q"}, "accept": {"query": "q", "count": 8}},
  {"id": "timeout", "input": {"query": "q"}, "accept": {"query": "q", "count": 8}},
  {"id": "crash", "input": {"query": "q"}, "accept": {"query": "q", "count": 8}},
  {"id": "protocol-error", "input": {"query": "q"}, "accept": {"query": "q", "count": 8}},
  {"id": "known-fail", "input": {"query": "q", "count": 21}, "reject": [{"code": "too_big", "path": "count", "message": "Too big: expected number to be <=20"}]},
  {"id": "fixed", "input": {"query": "q"}, "accept": {"query": "q", "count": 8}}
]}"#;

fn fixed_run() -> RunResult {
    let mut vectors = parse_vector_file(std::path::Path::new("web_search/report.json"), VECTORS)
        .expect("valid vectors");
    let known: HashSet<String> = ["web_search:known-fail", "web_search:fixed"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    let accept = |v: &vvoc_harness::Vector| Answer::Verdict(validate_json(v.tool, &v.input));
    let mut fetch = parse_vector_file(
        std::path::Path::new("web_fetch/report.json"),
        r#"{"tool": "web_fetch", "vectors": [{"id": "unsupported", "input": {"url": "https://a.test"}, "accept": {"url": "https://a.test", "format": "markdown", "timeout": 30}}]}"#,
    )
    .expect("valid vectors");
    vectors.append(&mut fetch);
    let records = vectors
        .into_iter()
        .map(|v| {
            let answer = match v.id.as_str() {
                "pass" | "fixed" => accept(&v),
                "fail" | "known-fail" => Answer::Verdict(Verdict::Accept(
                    Json::parse(r#"{"query":"q","count":0}"#).expect("JSON"),
                )),
                "error" => Answer::Failed(Failure::Error("cannot evaluate".to_owned())),
                "timeout" => Answer::Failed(Failure::Timeout),
                "crash" => Answer::Failed(Failure::Crash(
                    "the peer closed its output before answering (exit status: 1)".to_owned(),
                )),
                "protocol-error" => {
                    Answer::Failed(Failure::ProtocolError("not JSON: \"garbage\"".to_owned()))
                }
                _ => Answer::Unsupported,
            };
            Record::new(v, answer, Duration::ZERO, Level::Exact, &known)
        })
        .collect();
    RunResult {
        implementation: Implementation {
            name: "fixture".to_owned(),
            version: "1.0.0".to_owned(),
            language: "none".to_owned(),
            tools: vec!["web_search".to_owned()],
            scenarios: Vec::new(),
        },
        level: Level::Exact,
        records,
        elapsed: Duration::ZERO,
        stderr_tail: "peer: last words\n".to_owned(),
        scenarios: Vec::new(),
        scenario_elapsed: Duration::ZERO,
        over_mcp: false,
    }
}

/// What the fixed runs tested: fixed values, so the snapshots do not move with the suite.
fn tested() -> Tested {
    Tested {
        conform: "0.0.0".to_owned(),
        contract: "1.6.0".to_owned(),
        suite: SuiteReport {
            digest: "sha256:000000000000".to_owned(),
            files: 2,
        },
        peer: Some("./fixture-peer --fast".to_owned()),
    }
}

fn report(run: &RunResult) -> Conformance {
    conformance(run, &tested(), None)
}

#[test]
fn the_markdown_report_shows_totals_levels_and_each_non_pass() {
    insta::assert_snapshot!(markdown(&report(&fixed_run()), DEFAULT_LIMIT));
}

#[test]
fn the_json_report_is_versioned_sorted_and_complete() {
    insta::assert_snapshot!(report(&fixed_run()).to_text());
}

#[test]
fn the_junit_report_has_one_case_per_vector() {
    insta::assert_snapshot!(junit(&report(&fixed_run())));
}

const SCENARIOS: &str = r#"{"tool": "str_replace_editor", "scenarios": [
  {"id": "s-pass", "files": {"a.txt": "x"}, "steps": [{"call": {"command": "view", "path": "{root}/a.txt"}, "output": "ok"}]},
  {"id": "s-fail", "files": {"a.txt": "x"}, "steps": [
    {"call": {"command": "view", "path": "{root}/a.txt"}, "output": "Error: The path {root}/a.txt does not exist."},
    {"write": {"b.txt": "b"}},
    {"call": {"command": "create", "path": "{root}/c.txt", "file_text": "c"}, "throws": "ENOENT"}],
   "after": {"a.txt": "x\n", "b.txt": "b", "c.txt": "c"}},
  {"id": "s-directory", "files": {"a.txt": "x"}, "steps": [{"call": {"command": "view", "path": "{root}/a.txt"}, "output": "ok"}], "after": {"a.txt": "y"}},
  {"id": "s-error", "files": {}, "steps": [{"call": {"command": "view", "path": "{root}"}, "output": "ok"}]},
  {"id": "s-timeout", "files": {}, "steps": [{"call": {"command": "view", "path": "{root}"}, "output": "ok"}, {"call": {"command": "view", "path": "{root}"}, "output": "ok"}]},
  {"id": "s-crash", "files": {}, "steps": [{"call": {"command": "view", "path": "{root}"}, "output": "ok"}]},
  {"id": "s-protocol-error", "files": {}, "steps": [{"call": {"command": "view", "path": "{root}"}, "output": "ok"}]},
  {"id": "s-runner", "files": {}, "steps": [{"write": {"gone.txt": null}}]},
  {"id": "s-known-fail", "files": {}, "steps": [{"call": {"command": "view", "path": "{root}"}, "output": "ok"}]},
  {"id": "s-fixed", "files": {}, "steps": [{"call": {"command": "view", "path": "{root}"}, "output": "ok"}]}
]}"#;

/// The fixed run of the vectors, with one scenario per outcome.
fn fixed_run_with_scenarios() -> RunResult {
    use vvoc_harness::outcome::Failure;
    use vvoc_harness::run::records::ScenarioRecord;
    use vvoc_harness::scenario::model::Reply;
    use vvoc_harness::scenario::play::ScenarioAnswer;
    use vvoc_harness::scenario::tree::Entry;
    let mut run = fixed_run();
    run.implementation.scenarios = vec!["str_replace_editor".to_owned()];
    let suite = vvoc_harness::load::suite::parse_suite_file(
        std::path::Path::new("str_replace_editor/exec-report.json"),
        SCENARIOS,
    )
    .expect("valid scenarios");
    let known: HashSet<String> = [
        "str_replace_editor:s-known-fail",
        "str_replace_editor:s-fixed",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let out = |t: &str| Some(Reply::Output(t.into()));
    run.scenarios = suite
        .scenarios
        .into_iter()
        .map(|mut s| {
            s.source = "str_replace_editor/exec-report.json".to_owned();
            let after = s.files.clone();
            let stopped = |step, fault| ScenarioAnswer::Stopped {
                replies: vec![out("ok")],
                step,
                fault,
            };
            let answer = match s.id.as_str() {
                "s-pass" | "s-fixed" => ScenarioAnswer::Ran {
                    replies: vec![out("ok")],
                    after,
                },
                "s-fail" => {
                    let mut after = after;
                    after.insert("b.txt".to_owned(), Entry::File(b"b".to_vec()));
                    after.insert("d.bin".to_owned(), Entry::File(vec![0, 0xff]));
                    ScenarioAnswer::Ran {
                        replies: vec![
                            out("Here's the content of {root}/a.txt with line numbers (which has a total of 1 lines):\n     1  x\n"),
                            None,
                            Some(Reply::Throws("ENOENT".into())),
                        ],
                        after,
                    }
                }
                "s-directory" => ScenarioAnswer::Ran {
                    replies: vec![out("ok")],
                    after,
                },
                "s-error" => stopped(0, Failure::Error("cannot run {root}".to_owned())),
                "s-timeout" => stopped(1, Failure::Timeout),
                "s-crash" => stopped(0, Failure::Crash("the peer closed its output before answering (exit status: 1)".to_owned())),
                "s-protocol-error" => stopped(0, Failure::ProtocolError("a verdict answers no exec".to_owned())),
                "s-runner" => ScenarioAnswer::Runner("step 1 (steps[0], write): cannot write \"gone.txt\": gone.txt does not exist, so it cannot be deleted".to_owned()),
                _ => ScenarioAnswer::Ran {
                    replies: vec![out("not ok")],
                    after,
                },
            };
            ScenarioRecord::new(s, answer, Duration::ZERO, Level::Exact, &known)
        })
        .collect();
    run
}

#[test]
fn the_markdown_report_counts_scenarios_beside_vectors() {
    insta::assert_snapshot!(markdown(
        &report(&fixed_run_with_scenarios()),
        DEFAULT_LIMIT
    ));
}

#[test]
fn the_json_report_has_a_scenarios_section() {
    insta::assert_snapshot!(report(&fixed_run_with_scenarios()).to_text());
}

#[test]
fn the_junit_report_has_one_case_per_scenario() {
    insta::assert_snapshot!(junit(&report(&fixed_run_with_scenarios())));
}

#[test]
fn the_json_report_reads_back_into_the_types_it_was_written_from() {
    for run in [fixed_run(), fixed_run_with_scenarios()] {
        let text = report(&run).to_text();
        let read = Conformance::read(&text).expect("a conformance report");
        assert_eq!(read, report(&run));
        assert_eq!(read.to_text(), text);
    }
}

#[test]
fn every_report_says_what_it_tested() {
    let report = report(&fixed_run());
    let json = report.to_text();
    for member in [
        r#""conform": "0.0.0""#,
        r#""contract": "1.6.0""#,
        r#""digest": "sha256:000000000000""#,
        r#""files": 2"#,
        r#""peer": "./fixture-peer --fast""#,
        r#""name": "fixture""#,
    ] {
        assert!(
            json.contains(member),
            "conformance.json lacks {member}:\n{json}"
        );
    }
    let md = markdown(&report, DEFAULT_LIMIT);
    assert!(
        md.contains("- Tested: `conform` 0.0.0, contract 1.6.0, vectors sha256:000000000000 (2 files)\n- Peer: `./fixture-peer --fast`\n- Implementation: `fixture` 1.0.0 (none), claims `web_search`"),
        "{md}"
    );
    let junit = junit(&report);
    // An XML comment may not hold `--`: the peer's `--fast` shows as `-‐fast` there.
    assert!(junit.contains("<!-- conform 0.0.0, contract 1.6.0, vectors sha256:000000000000 (2 files), peer ./fixture-peer -\u{2010}fast, implementation fixture 1.0.0 (none), level exact -->"), "{junit}");
}

#[test]
fn every_entry_that_did_not_pass_carries_its_input() {
    let vectors = report(&fixed_run());
    for result in &vectors.results {
        match (&result.detail, result.outcome) {
            (None, vvoc_harness::Outcome::Pass) => {}
            (Some(detail), _) => assert_eq!(
                detail.input.0.to_compact(),
                if result.vector == "web_search:fail" {
                    r#"{"query":"q","count":0}"#
                } else if result.vector.starts_with("web_fetch") {
                    r#"{"url":"https://a.test"}"#
                } else if result.vector == "web_search:known-fail" {
                    r#"{"query":"q","count":21}"#
                } else {
                    r#"{"query":"q"}"#
                },
                "{}",
                result.vector
            ),
            (None, outcome) => {
                assert_eq!(outcome, vvoc_harness::Outcome::Pass, "{}", result.vector)
            }
        }
    }
    let scenarios = report(&fixed_run_with_scenarios());
    let failed = scenarios
        .scenarios
        .iter()
        .flat_map(|s| &s.results)
        .find(|r| r.scenario == "str_replace_editor:s-fail")
        .and_then(|r| r.detail.as_ref())
        .expect("s-fail did not pass");
    assert_eq!(
        failed.input.as_ref().map(|i| i.0.to_compact()),
        Some(r#"{"command":"view","path":"{root}/a.txt"}"#.to_owned())
    );
    assert!(
        failed.explanation.contains("str_replace_editor:s-fail"),
        "{}",
        failed.explanation
    );
}

#[test]
fn the_markdown_report_stays_under_its_limit_listing_the_rest_in_one_line_each() {
    let many = many_failures(300);
    let report = report(&many);
    let full = markdown(&report, usize::MAX);
    assert!(
        full.len() > 60_000,
        "the fixture must overflow the limit: {} bytes",
        full.len()
    );
    for limit in [60_000, 20_000, 8_000] {
        let md = markdown(&report, limit);
        assert!(
            md.chars().count() <= limit,
            "{} characters over {limit}",
            md.chars().count()
        );
        assert!(
            md.contains(&format!(
                "to keep this file under {limit} characters (`--md-limit`)"
            )),
            "{md}"
        );
        assert!(
            md.contains("### `web_search:many-000` (fail)"),
            "the first failure is shown in full"
        );
        let last = "web_search:many-299";
        assert!(
            md.contains(last) || md.contains("… and "),
            "the last failure is named or counted"
        );
    }
    // The limit of a small report changes nothing: every failure in full, no note.
    let small = markdown(&report_of_fixed(), 60_000);
    assert!(!small.contains("--md-limit"), "{small}");
}

fn report_of_fixed() -> Conformance {
    report(&fixed_run())
}

/// A run of `n` failing `web_search` vectors, each with a long query.
fn many_failures(n: usize) -> RunResult {
    let vectors: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"id": "many-{i:03}", "input": {{"query": "{}"}}, "reject": [{{"code": "too_small", "path": "count", "message": "Too small: expected number to be >=1"}}]}}"#,
                "q".repeat(300)
            )
        })
        .collect();
    let text = format!(
        r#"{{"tool": "web_search", "vectors": [{}]}}"#,
        vectors.join(",")
    );
    let vectors = parse_vector_file(std::path::Path::new("web_search/many.json"), &text)
        .expect("valid vectors");
    let mut run = fixed_run();
    run.records = vectors
        .into_iter()
        .map(|v| {
            let answer = Answer::Verdict(validate_json(v.tool, &v.input));
            Record::new(v, answer, Duration::ZERO, Level::Exact, &HashSet::new())
        })
        .collect();
    run
}

#[test]
fn the_junit_report_gives_each_failure_a_body_and_its_file_and_sums_up_unsupported_tools() {
    let junit = junit(&report(&fixed_run()));
    assert!(
        junit.contains(r#"name="web_search:fail" file="report.json""#),
        "{junit}"
    );
    let body = junit
        .split(r#"<failure message="expected reject at count, received accept" type="fail">"#)
        .nth(1)
        .and_then(|rest| rest.split("</failure>").next())
        .expect("a failure with a body");
    for part in [
        "input:\n",
        "expected:\n",
        "received:\n",
        "&quot;count&quot;: 0",
    ] {
        assert!(body.contains(part), "the body lacks {part:?}: {body}");
    }
    // The unsupported tool is one skipped case, not one per vector.
    assert!(
        junit.contains(
            r#"<testsuite name="web_fetch" tests="1" failures="0" errors="0" skipped="1">"#
        ),
        "{junit}"
    );
    assert!(junit.contains("web_fetch: 1 vectors not run"), "{junit}");
}

#[test]
fn a_stopped_run_says_why_and_how_much_did_not_run_in_every_report() {
    let stopped = Stopped {
        reason: "the peer is unusable: it crashed 11 times".to_owned(),
        selected_vectors: 20,
        vectors_not_run: 11,
        selected_scenarios: 0,
        scenarios_not_run: 0,
    };
    let report = conformance(&fixed_run(), &tested(), Some(stopped));
    let json = report.to_text();
    assert!(
        json.contains(r#""reason": "the peer is unusable: it crashed 11 times""#),
        "{json}"
    );
    assert!(json.contains(r#""vectors_not_run": 11"#), "{json}");
    let md = markdown(&report, DEFAULT_LIMIT);
    assert!(
        md.contains("- Result: STOPPED: the peer is unusable: it crashed 11 times (11 of 20 vectors and 0 of 0 scenarios not run); of what ran: FAIL"),
        "{md}"
    );
    let junit = junit(&report);
    assert!(
        junit.contains("the peer is unusable: it crashed 11 times"),
        "{junit}"
    );
}

#[test]
fn scores_count_unsupported_vectors_apart() {
    let report = report(&fixed_run());
    assert_eq!(report.vectors.count, 9);
    assert_eq!(report.vectors.asked, 8);
    let md = markdown(&report, DEFAULT_LIMIT);
    assert!(md.contains("- Vectors: 8 compared at level `exact` (1 more of tools it does not claim, counted apart as unsupported)"), "{md}");
    assert!(
        md.contains("/8, "),
        "levels are out of the asked vectors: {md}"
    );
}

#[test]
fn a_report_quoting_an_input_of_any_depth_reads_back_on_a_small_stack() {
    let depth = 200_000;
    let input = format!(
        r#"{{"query": "q", "deep": {}1{}}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let text = format!(
        r#"{{"tool": "web_search", "vectors": [{{"id": "deep", "input": {input}, "accept": {{"query": "q", "count": 8}}}}]}}"#
    );
    let vectors =
        parse_vector_file(std::path::Path::new("web_search/deep.json"), &text).expect("valid");
    let mut run = fixed_run();
    run.records = vectors
        .into_iter()
        .map(|v| {
            let answer = Answer::Verdict(validate_json(v.tool, &v.input));
            Record::new(v, answer, Duration::ZERO, Level::Exact, &HashSet::new())
        })
        .collect();
    let written = report(&run);
    let text = written.to_text();
    // Indented to its first levels only: linear in the depth.
    assert!(text.len() < 3 * depth + 10_000, "{} bytes", text.len());
    let read = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || Conformance::read(&text).map(|r| r == written))
        .expect("a thread")
        .join()
        .expect("read on a small stack");
    assert_eq!(read, Ok(true));
}
