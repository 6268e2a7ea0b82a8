//! The three reports of a fixed run, snapshot-tested: every outcome appears once.

use std::collections::HashSet;
use std::time::Duration;

use vvoc_harness::Level;
use vvoc_harness::load::suite::parse_vector_file;
use vvoc_harness::outcome::Answer;
use vvoc_harness::protocol::hello::Implementation;
use vvoc_harness::report::build::json;
use vvoc_harness::report::junit::junit;
use vvoc_harness::report::markdown::markdown;
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
                "error" => Answer::Error("cannot evaluate".to_owned()),
                "timeout" => Answer::Timeout,
                "crash" => Answer::Crash(
                    "the peer closed its output before answering (exit status: 1)".to_owned(),
                ),
                "protocol-error" => Answer::ProtocolError("not JSON: \"garbage\"".to_owned()),
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
    }
}

#[test]
fn the_markdown_report_shows_totals_levels_and_each_non_pass() {
    insta::assert_snapshot!(markdown(&fixed_run()));
}

#[test]
fn the_json_report_is_versioned_sorted_and_complete() {
    insta::assert_snapshot!(json(&fixed_run()).to_pretty());
}

#[test]
fn the_junit_report_has_one_case_per_vector() {
    insta::assert_snapshot!(junit(&fixed_run()));
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
    use vvoc_harness::scenario::model::Reply;
    use vvoc_harness::scenario::play::{Fault, ScenarioAnswer};
    use vvoc_harness::scenario::records::ScenarioRecord;
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
                "s-error" => stopped(0, Fault::Error("cannot run {root}".to_owned())),
                "s-timeout" => stopped(1, Fault::Timeout),
                "s-crash" => stopped(0, Fault::Crash("the peer closed its output before answering (exit status: 1)".to_owned())),
                "s-protocol-error" => stopped(0, Fault::ProtocolError("a verdict answers no exec".to_owned())),
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
    insta::assert_snapshot!(markdown(&fixed_run_with_scenarios()));
}

#[test]
fn the_json_report_has_a_scenarios_section() {
    insta::assert_snapshot!(json(&fixed_run_with_scenarios()).to_pretty());
}

#[test]
fn the_junit_report_has_one_case_per_scenario() {
    insta::assert_snapshot!(junit(&fixed_run_with_scenarios()));
}

#[test]
fn the_json_report_reads_back_into_the_types_it_was_written_from() {
    use vvoc_harness::report::build::conformance;
    use vvoc_harness::report::conformance::Conformance;
    for run in [fixed_run(), fixed_run_with_scenarios()] {
        let text = json(&run).to_pretty();
        let read = Conformance::read(&text).expect("a conformance report");
        assert_eq!(read, conformance(&run));
        assert_eq!(read.to_json().to_pretty(), text);
    }
}
