//! Workflow scenarios over the peer protocol (protocol.md, "Workflow scenarios"): every workflow
//! message the runner writes follows its schema and reads back; `conform peer` answers each with
//! a step result that follows its schema, one plugin per session; and a run against `conform
//! peer` records exactly what the in-process run records (the two paths compared with each
//! other, not with fixed texts, so this holds whatever the reference's bodies do).

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use vvoc_harness::load::suite::load_suite;
use vvoc_harness::protocol::runner::ToPeer;
use vvoc_harness::protocol::schemas::schemas;
use vvoc_harness::protocol::wire::Seq;
use vvoc_harness::protocol::workflow::WorkflowMessage;
use vvoc_harness::workflow::model::Action;
use vvoc_harness::workflow::wire::workflow_json;
use vvoc_reference::Json;

mod common;

use common::{CONFORM, conformance_report, files_folder, text};

/// The fixture scenarios of this test (the reference wrote their expectations).
fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/workflow")
}

/// The compiled schema of the protocol message `stem`.
fn validator(stem: &str) -> jsonschema::Validator {
    let (_, schema) = schemas()
        .into_iter()
        .find(|(s, _)| *s == stem)
        .expect("a protocol schema");
    jsonschema::validator_for(&schema).expect("a valid schema")
}

/// The violations of `line` against the schema `stem`.
fn violations(stem: &str, line: &str) -> Vec<String> {
    let json: serde_json::Value = serde_json::from_str(line).expect("JSON");
    validator(stem)
        .iter_errors(&json)
        .map(|e| format!("{stem} at {}: {e}", e.instance_path))
        .collect()
}

#[test]
fn every_workflow_message_of_the_runner_follows_its_schema_and_reads_back() {
    let suite = load_suite(&[fixtures()]).expect("the fixtures load");
    let mut kinds = Vec::new();
    for scenario in &suite.workflow {
        let host = scenario
            .host
            .workflow_host(PathBuf::from("/tmp/vvoc-0123456789012345678901234567890"));
        let mut now = scenario.host.now;
        for (n, step) in scenario.steps.iter().enumerate() {
            now = step.now.unwrap_or(now);
            let cx = scenario.host.context(step, now);
            let workflow = workflow_json(&host, &cx);
            let seq = Seq::from(n as u64);
            let session = Cow::Borrowed("work_item_open:x");
            let message = match (
                &step.action,
                WorkflowMessage::of_step(seq.clone(), session.clone(), &step.action, &workflow),
            ) {
                (_, Some(message)) => ToPeer::Workflow(message),
                (Action::Call { tool, input }, None) => ToPeer::Exec {
                    seq,
                    session,
                    tool: *tool,
                    input: Cow::Borrowed(input),
                    host: None,
                    workflow: Some(Cow::Borrowed(&workflow)),
                },
                (other, None) => unreachable!("{other:?} has a message of its own"),
            };
            let line = message.to_line();
            let stem = format!("runner-{}", message.kind());
            assert_eq!(violations(&stem, &line), Vec::<String>::new(), "{line}");
            assert_eq!(ToPeer::read(&line), Ok(message.clone()), "{line}");
            kinds.push(message.kind());
        }
    }
    kinds.sort_unstable();
    kinds.dedup();
    assert_eq!(kinds, vec!["event", "exec", "restart", "task"]);
}

/// `conform peer`'s answers to `lines`, one per answered line.
fn peer_answers(lines: &[String]) -> Vec<String> {
    let mut input = lines.join("\n");
    input.push('\n');
    let mut out = Vec::new();
    vvoc_harness::serve::serve(std::io::Cursor::new(input.into_bytes()), &mut out).expect("served");
    String::from_utf8(out)
        .expect("UTF-8")
        .lines()
        .map(str::to_owned)
        .collect()
}

/// A `workflow` member over `data_dir`.
fn member(data_dir: &Path, agent: &str) -> String {
    format!(
        r#"{{"host":{{"dataDir":"{}","directory":"/w","sessions":{{}},"packageRoot":"/p"}},"context":{{"session":"ses-root","agent":"{agent}","directory":"/w"}},"now":1767225600000}}"#,
        data_dir.display()
    )
}

#[test]
fn conform_peer_answers_workflow_messages_with_valid_step_results_and_refuses_bad_ones() {
    let data = tempfile::tempdir().expect("a data directory");
    let w = member(data.path(), "vv-controller");
    let lines = [
        format!(r#"{{"type":"exec","seq":1,"session":"a","tool":"work_item_list","input":{{}},"workflow":{w}}}"#),
        format!(r#"{{"type":"task","seq":2,"session":"a","phase":"launch","callId":"c","args":{{"subagent_type":"general","prompt":"p"}},"workflow":{w}}}"#),
        format!(r#"{{"type":"task","seq":3,"session":"a","phase":"result","callId":"c","args":{{"subagent_type":"general","prompt":"p"}},"output":"x","metadata":{{}},"workflow":{w}}}"#),
        format!(r#"{{"type":"event","seq":4,"session":"a","event":{{"type":"message.updated","properties":{{}}}},"workflow":{w}}}"#),
        r#"{"type":"restart","seq":5,"session":"a"}"#.to_owned(),
        r#"{"type":"restart","seq":6,"session":"never-seen"}"#.to_owned(),
        r#"{"type":"end","session":"a"}"#.to_owned(),
        // What cannot be carried out gets an error, never silence.
        format!(r#"{{"type":"task","seq":7,"session":"a","callId":"c","args":{{}},"workflow":{w}}}"#),
        format!(r#"{{"type":"exec","seq":8,"session":"a","tool":"web_search","input":{{"query":"q"}},"workflow":{w}}}"#),
        r#"{"type":"exec","seq":9,"session":"a","tool":"work_item_list","input":{},"workflow":{"host":{}}}"#.to_owned(),
        r#"{"type":"event","seq":10,"session":"a","event":{}}"#.to_owned(),
    ];
    let answers = peer_answers(&lines);
    assert_eq!(
        answers.len(),
        10,
        "every message but end is answered: {answers:#?}"
    );
    for answer in &answers {
        assert_eq!(
            violations("peer-step-result", answer),
            Vec::<String>::new(),
            "{answer}"
        );
    }
    let field = |i: usize, member: &str| {
        let answer = Json::parse(&answers[i]).expect("JSON");
        answer
            .as_object()
            .and_then(|o| o.get(member))
            .map(Json::to_compact)
    };
    assert!(
        field(0, "output").is_some() || field(0, "throws").is_some(),
        "{}",
        answers[0]
    );
    for (i, seq) in [(4, 5), (5, 6)] {
        assert_eq!(
            field(i, "ok").as_deref(),
            Some("true"),
            "a restart goes through: {}",
            answers[i]
        );
        assert_eq!(field(i, "seq"), Some(seq.to_string()));
    }
    assert_eq!(
        field(6, "error").as_deref(),
        Some(r#""the task's phase must be \"launch\" or \"result\"""#)
    );
    assert_eq!(
        field(7, "error").as_deref(),
        Some(r#""a workflow member goes only with the five workflow tools, not web_search""#)
    );
    assert_eq!(
        field(8, "error").as_deref(),
        Some(r#""workflow.context must be an object""#)
    );
    assert_eq!(
        field(9, "error").as_deref(),
        Some(r#""the event message has no workflow""#)
    );
}

#[test]
fn one_plugin_per_session_each_from_its_own_host() {
    // Two sessions over two data directories: what one opens, the other does not list.
    let (one, two) = (
        tempfile::tempdir().expect("a folder"),
        tempfile::tempdir().expect("a folder"),
    );
    let open = r#"{"items":[{"key":"k","title":"T","mode":"implementation","requiredReviewers":["spec"]}]}"#;
    let exec = |seq: u32, session: &str, tool: &str, input: &str, dir: &Path| {
        format!(
            r#"{{"type":"exec","seq":{seq},"session":"{session}","tool":"{tool}","input":{input},"workflow":{}}}"#,
            member(dir, "vv-controller")
        )
    };
    let answers = peer_answers(&[
        exec(1, "a", "work_item_open", open, one.path()),
        exec(2, "a", "work_item_list", "{}", one.path()),
        exec(3, "b", "work_item_list", "{}", two.path()),
    ]);
    // Whatever the texts are, the second session is not the first: its list differs from the
    // first session's after an open (or both raise the same, where the bodies are missing).
    let text = |i: usize| {
        let answer = Json::parse(&answers[i]).expect("JSON");
        answer
            .as_object()
            .and_then(|o| o.get("output").or(o.get("throws")))
            .map(Json::to_compact)
    };
    let in_process = {
        use vvoc_harness::workflow::play::{Received, reference_step};
        use vvoc_reference::exec::workflow::{StepContext, Workflow, WorkflowHost};
        let dir = tempfile::tempdir().expect("a folder");
        let host = WorkflowHost {
            directory: "/w".to_owned(),
            worktree: None,
            package_root: "/p".to_owned(),
            ..WorkflowHost::new(dir.path().to_owned())
        };
        let cx = StepContext {
            session: "ses-root".to_owned(),
            agent: Some("vv-controller".to_owned()),
            directory: Some("/w".to_owned()),
            worktree: None,
            now_ms: 1_767_225_600_000,
        };
        let mut plugin = Workflow::new(host);
        let list = Action::Call {
            tool: vvoc_reference::Tool::WorkItemList,
            input: Json::parse("{}").expect("JSON"),
        };
        match reference_step(&mut plugin, &list, &cx) {
            Received::Returned(t) | Received::Throws(t) => Some(Json::String(t).to_compact()),
            Received::Done => None,
        }
    };
    assert_eq!(
        text(2),
        in_process,
        "a new session starts from nothing, as a new plugin does"
    );
}

/// `conform run` of `dirs`, in process or against `peer`, writing its report to `report`.
fn run(dirs: &[&Path], peer: Option<&str>, report: &Path, scratch: &Path) -> Output {
    let mut command = Command::new(CONFORM);
    command.args(["run", "--no-builtin"]);
    for dir in dirs {
        command.args(["--vectors", dir.to_str().expect("UTF-8")]);
    }
    if let Some(peer) = peer {
        command.args(["--peer", peer, "--validate-protocol", "--jobs", "2"]);
    }
    command
        .args(["--report", report.to_str().expect("UTF-8")])
        .args(["--scratch", scratch.to_str().expect("UTF-8")])
        .output()
        .expect("conform runs")
}

/// The scenario results of a report, without their durations.
fn results(report: &Path) -> serde_json::Value {
    let mut report = conformance_report(report);
    let results = report
        .pointer_mut("/scenarios/results")
        .and_then(serde_json::Value::as_array_mut)
        .expect("scenario results");
    for result in results.iter_mut() {
        if let Some(object) = result.as_object_mut() {
            object.remove("duration_ms");
        }
    }
    report["scenarios"]["results"].take()
}

#[test]
fn a_run_against_conform_peer_records_what_the_in_process_run_records() {
    // The fixtures, and scenarios whose expectations are wrong on purpose, so that failures'
    // details are compared too.
    let wrong = r#"{"tool": "work_item_list", "scenarios": [
      {"id": "wrong-result", "steps": [{"call": "work_item_list", "input": {}, "result": {"nope": 1}}]},
      {"id": "wrong-raise", "steps": [{"call": "work_item_list", "input": {}, "context": {"agent": "x"}, "throws": "no"}]},
      {"id": "wrong-hook", "steps": [{"task": "launch", "callId": "c", "args": {"subagent_type": "vv-implementer", "prompt": ""}}]},
      {"id": "wrong-after", "files": {"keep": {"json": {"a": 1}}}, "steps": [{"restart": true}], "after": {"keep": {"json": {"a": 2}}}}
    ]}"#;
    let extra = files_folder(&[("work_item_list/exec-wrong.json", wrong)]);
    let dirs = [fixtures(), extra.path().to_owned()];
    let dirs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
    let scratch = tempfile::tempdir().expect("a scratch parent");
    let (alone, served) = (
        tempfile::tempdir().expect("a folder"),
        tempfile::tempdir().expect("a folder"),
    );
    let in_process = run(&dirs, None, alone.path(), scratch.path());
    let peer = format!("{CONFORM} peer");
    let over_peer = run(&dirs, Some(&peer), served.path(), scratch.path());
    assert_eq!(
        in_process.status.code(),
        over_peer.status.code(),
        "{}\n---\n{}",
        text(&in_process),
        text(&over_peer)
    );
    assert!(
        !text(&over_peer).contains("broke the protocol"),
        "{}",
        text(&over_peer)
    );
    let (a, b) = (results(alone.path()), results(served.path()));
    assert_eq!(a.as_array().map(Vec::len), Some(7), "{a:#}");
    assert_eq!(a, b, "the peer's records differ from the in-process ones");
    assert_eq!(
        std::fs::read_dir(scratch.path()).expect("readable").count(),
        0,
        "no directory left"
    );
}

#[test]
fn a_peer_that_does_not_list_the_workflow_tools_gets_their_scenarios_unsupported() {
    let fake = env!("CARGO_BIN_EXE_fake-peer");
    let scratch = tempfile::tempdir().expect("a scratch parent");
    let report = tempfile::tempdir().expect("a folder");
    // One vector of a claimed tool, so that the run has something the peer does.
    let vector = files_folder(&[(
        "v.json",
        r#"{"tool": "web_search", "vectors": [{"id": "plain", "input": {"query": "q"}, "accept": {"query": "q", "count": 8}}]}"#,
    )]);
    let fixtures = fixtures();
    let dirs = [fixtures.as_path(), vector.path()];
    let output = run(&dirs, Some(fake), report.path(), scratch.path());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let results = results(report.path());
    let outcomes: Vec<&str> = results
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|r| r["outcome"].as_str())
        .collect();
    assert_eq!(outcomes, vec!["unsupported"; 3]);
}
