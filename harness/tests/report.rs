//! The three reports of a fixed run, snapshot-tested: every outcome appears once.

use std::collections::HashSet;
use std::time::Duration;

use vvoc_harness::Level;
use vvoc_harness::outcome::Answer;
use vvoc_harness::report::{json, junit, markdown};
use vvoc_harness::run::{Implementation, Record, RunResult};
use vvoc_harness::vectors::parse_file;
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
    let mut vectors =
        parse_file(std::path::Path::new("web_search/report.json"), VECTORS).expect("valid vectors");
    let known: HashSet<String> = ["web_search:known-fail", "web_search:fixed"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    let accept = |v: &vvoc_harness::Vector| Answer::Verdict(validate_json(v.tool, &v.input));
    let mut fetch = parse_file(
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
        },
        level: Level::Exact,
        records,
        elapsed: Duration::ZERO,
        stderr_tail: "peer: last words\n".to_owned(),
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
