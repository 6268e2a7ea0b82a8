//! The workflow player and its comparison against a fake executor (so that nothing here depends
//! on the reference's bodies): each step's context from the host and the step's overrides, the
//! clock carried forward, the data directory written before and compared after, and the two
//! scenario levels.

use std::path::PathBuf;

use vvoc_harness::Outcome;
use vvoc_harness::load::suite::load_suite;
use vvoc_harness::outcome::Failure;
use vvoc_harness::scenario::compare::ScenarioLevel;
use vvoc_harness::workflow::compare::{classify, describe, explain, passes};
use vvoc_harness::workflow::model::{Action, WorkflowScenario};
use vvoc_harness::workflow::play::{Received, WorkflowAnswer, WorkflowExecutor, play};
use vvoc_reference::JsString;
use vvoc_reference::exec::workflow::{StepContext, WorkflowHost};

mod common;

use common::files_folder;

/// One scenario of `work_item_open` made of `members` (JSON text after the id).
fn scenario(members: &str) -> WorkflowScenario {
    let text = format!(r#"{{"tool": "work_item_open", "scenarios": [{{"id": "s", {members}}}]}}"#);
    let dir = files_folder(&[("exec-s.json", &text)]);
    let mut suite = load_suite(&[dir.path().to_owned()]).expect("loads");
    suite.workflow.remove(0)
}

/// What the fake saw of one step.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    kind: &'static str,
    session: String,
    agent: Option<String>,
    directory: Option<String>,
    worktree: Option<String>,
    now: i64,
}

/// An executor that answers from a script, records every context, and at each call writes the
/// file `state.json` of the data directory (its text given by the script).
#[derive(Default)]
struct Fake {
    answers: Vec<Result<Received, Failure>>,
    written: Option<String>,
    host: Option<WorkflowHost>,
    seen: Vec<Seen>,
    ended: bool,
}

impl WorkflowExecutor for Fake {
    fn begin(&mut self, host: &WorkflowHost) -> Result<(), Failure> {
        self.host = Some(host.clone());
        Ok(())
    }

    fn step(&mut self, action: &Action, cx: &StepContext) -> Result<Received, Failure> {
        self.seen.push(Seen {
            kind: action.kind(),
            session: cx.session.clone(),
            agent: cx.agent.clone(),
            directory: cx.directory.clone(),
            worktree: cx.worktree.clone(),
            now: cx.now_ms,
        });
        if let (Action::Call { .. }, Some(text), Some(host)) = (action, &self.written, &self.host) {
            std::fs::write(host.data_dir.join("state.json"), text).expect("written");
        }
        if self.answers.is_empty() {
            return Ok(Received::Done);
        }
        self.answers.remove(0)
    }

    fn end(&mut self) {
        self.ended = true;
    }
}

fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().expect("a scratch parent")
}

fn returned(text: &str) -> Result<Received, Failure> {
    Ok(Received::Returned(JsString::from(text)))
}

const LIST: &str = r#"{"call": "work_item_list", "input": {}"#;

#[test]
fn each_step_gets_the_hosts_context_with_its_overrides_and_the_clock_carried_forward() {
    let scenario = scenario(&format!(
        r#""host": {{"session": "h", "agent": null, "worktree": "/t", "now": 10, "sessions": {{"c": "h"}}, "packageRoot": "/p"}},
        "steps": [
          {LIST}, "result": 1}},
          {LIST}, "result": 1, "now": 20, "context": {{"agent": "a", "directory": null}}}},
          {{"task": "launch", "callId": "x", "args": {{}}, "context": {{"session": "c", "worktree": null}}}},
          {{"event": {{}}, "now": 30}},
          {{"restart": true}}
        ]"#
    ));
    let parent = scratch();
    let mut fake = Fake {
        answers: vec![returned("1"), returned("1")],
        ..Fake::default()
    };
    let answer = play(&scenario, parent.path(), &mut fake);
    assert!(
        passes(&scenario, &answer, ScenarioLevel::Exact),
        "{answer:?}"
    );
    let seen = |kind,
                session: &str,
                agent: Option<&str>,
                directory: Option<&str>,
                worktree: Option<&str>,
                now| Seen {
        kind,
        session: session.to_owned(),
        agent: agent.map(str::to_owned),
        directory: directory.map(str::to_owned),
        worktree: worktree.map(str::to_owned),
        now,
    };
    let project = Some("/workspace/project");
    assert_eq!(
        fake.seen,
        vec![
            seen("call", "h", None, project, Some("/t"), 10),
            seen("call", "h", Some("a"), None, Some("/t"), 20),
            seen("task launch", "c", None, project, None, 20),
            seen("event", "h", None, project, Some("/t"), 30),
            seen("restart", "h", None, project, Some("/t"), 30),
        ]
    );
    let host = fake.host.expect("begun");
    assert_eq!(host.directory, "/workspace/project");
    assert_eq!(host.package_root, "/p");
    assert_eq!(host.sessions.len(), 1);
    assert_eq!(
        host.data_dir.to_string_lossy().len(),
        40,
        "a scratch directory"
    );
    assert!(
        !host.data_dir.exists(),
        "the data directory is removed afterwards"
    );
    assert!(fake.ended);
}

#[test]
fn exact_wants_the_text_javascript_writes_and_effect_the_same_value() {
    let scenario = scenario(&format!(
        r#""steps": [{LIST}, "result": {{"a": 1, "b": [true, null]}}}}]"#
    ));
    let parent = scratch();
    let play_with = |text: &str| {
        let mut fake = Fake {
            answers: vec![returned(text)],
            ..Fake::default()
        };
        play(&scenario, parent.path(), &mut fake)
    };
    let exact = play_with("{\n  \"a\": 1,\n  \"b\": [\n    true,\n    null\n  ]\n}");
    assert!(passes(&scenario, &exact, ScenarioLevel::Exact));
    let reordered = play_with("{\"b\":[true,null],\"a\":1.0}");
    assert!(!passes(&scenario, &reordered, ScenarioLevel::Exact));
    assert!(passes(&scenario, &reordered, ScenarioLevel::Effect));
    assert_eq!(
        classify(&scenario, &reordered, ScenarioLevel::Exact, false),
        Outcome::Fail
    );
    assert_eq!(
        classify(&scenario, &reordered, ScenarioLevel::Exact, true),
        Outcome::KnownFail
    );
    assert_eq!(
        classify(&scenario, &exact, ScenarioLevel::Exact, true),
        Outcome::Fixed
    );
    let other = play_with("{\"a\":2,\"b\":[true,null]}");
    assert!(!passes(&scenario, &other, ScenarioLevel::Effect));
    let explained = explain(&scenario, &reordered, ScenarioLevel::Exact);
    for part in [
        "work_item_open:s (vectors/exec-s.json, workflow scenario 0) at exact: step 1 of 1 (steps[0], call): expected result",
        "step:\n{\n  \"call\": \"work_item_list\",\n  \"input\": {}\n}",
        "expected result:\n{\n  \"a\": 1,",
        "received result:\n{\"b\":[true,null],\"a\":1.0}",
    ] {
        assert!(explained.contains(part), "{part}\n---\n{explained}");
    }
}

#[test]
fn a_raise_and_a_hook_compare_by_kind_at_effect_and_by_text_at_exact() {
    let scenario = scenario(&format!(
        r#""steps": [{LIST}, "throws": "E1"}}, {{"task": "launch", "callId": "c", "args": {{}}, "throws": "H"}}, {{"event": {{}}}}]"#
    ));
    let parent = scratch();
    let play_with = |answers: Vec<Result<Received, Failure>>| {
        let mut fake = Fake {
            answers,
            ..Fake::default()
        };
        play(&scenario, parent.path(), &mut fake)
    };
    let throws = |t: &str| Ok(Received::Throws(JsString::from(t)));
    let right = play_with(vec![throws("E1"), throws("H"), Ok(Received::Done)]);
    assert!(passes(&scenario, &right, ScenarioLevel::Exact));
    let texts = play_with(vec![throws("E2"), throws("other"), Ok(Received::Done)]);
    assert!(!passes(&scenario, &texts, ScenarioLevel::Exact));
    assert!(passes(&scenario, &texts, ScenarioLevel::Effect));
    let kinds = play_with(vec![throws("E1"), Ok(Received::Done), Ok(Received::Done)]);
    assert!(!passes(&scenario, &kinds, ScenarioLevel::Effect));
    assert_eq!(
        describe(&scenario, &kinds, ScenarioLevel::Effect),
        r#"step 2 of 3 (steps[1], task launch): expected throws "H", received ok"#
    );
    let raised = play_with(vec![returned("1"), throws("H"), throws("no")]);
    assert!(!passes(&scenario, &raised, ScenarioLevel::Effect));
}

#[test]
fn the_data_directory_is_written_before_and_compared_after_json_as_a_value() {
    let members = |after: &str| {
        format!(
            r#""files": {{"keep.txt": "k", "old.json": {{"json": {{"z": [1, {{"y": "é"}}], "a": null}}}}}},
            "steps": [{LIST}, "result": 1}}],
            "after": {{"keep.txt": "k", "old.json": {{"json": {{"a": null, "z": [1, {{"y": "é"}}]}}}}, {after}}}"#
        )
    };
    let scenario = scenario(&members(r#""state.json": {"json": {"v": 4, "w": [1]}}"#));
    let parent = scratch();
    let mut seen_old = None;
    let mut play_writing = |written: &str| {
        let mut fake = Fake {
            answers: vec![returned("1")],
            written: Some(written.to_owned()),
            ..Fake::default()
        };
        struct Peek<'a>(&'a mut Fake, &'a mut Option<String>);
        impl WorkflowExecutor for Peek<'_> {
            fn begin(&mut self, host: &WorkflowHost) -> Result<(), Failure> {
                *self.1 = std::fs::read_to_string(host.data_dir.join("old.json")).ok();
                self.0.begin(host)
            }
            fn step(&mut self, action: &Action, cx: &StepContext) -> Result<Received, Failure> {
                self.0.step(action, cx)
            }
            fn end(&mut self) {
                self.0.end();
            }
        }
        play(
            &scenario,
            parent.path(),
            &mut Peek(&mut fake, &mut seen_old),
        )
    };
    let answer = play_writing("{\"w\":[1],\"v\":4}");
    assert!(
        passes(&scenario, &answer, ScenarioLevel::Exact),
        "{answer:?}"
    );
    let answer = play_writing("{\"w\":[1],\"v\":5}");
    assert!(!passes(&scenario, &answer, ScenarioLevel::Effect));
    let text = describe(&scenario, &answer, ScenarioLevel::Exact);
    assert_eq!(
        text,
        "the data directory after the last step differs: state.json different"
    );
    let explained = explain(&scenario, &answer, ScenarioLevel::Exact);
    assert!(explained.contains("different state.json:"), "{explained}");
    assert!(
        explained.contains("\"v\": 4"),
        "the expected side as written: {explained}"
    );
    let answer = play_writing("not JSON");
    assert!(!passes(&scenario, &answer, ScenarioLevel::Effect));
    assert_eq!(
        seen_old.as_deref(),
        Some("{\n  \"z\": [\n    1,\n    {\n      \"y\": \"é\"\n    }\n  ],\n  \"a\": null\n}"),
        "a JSON content is written as JSON.stringify(VALUE, null, 2)"
    );
}

#[test]
fn a_step_without_an_outcome_stops_the_scenario_with_its_fault() {
    let scenario = scenario(&format!(
        r#""steps": [{LIST}, "result": 1}}, {LIST}, "result": 2}}, {{"restart": true}}]"#
    ));
    let parent = scratch();
    for (fault, outcome) in [
        (Failure::Timeout, Outcome::Timeout),
        (Failure::Crash("gone".to_owned()), Outcome::Crash),
        (Failure::Error("no".to_owned()), Outcome::Error),
        (
            Failure::ProtocolError("bad".to_owned()),
            Outcome::ProtocolError,
        ),
    ] {
        let mut fake = Fake {
            answers: vec![returned("1"), Err(fault)],
            ..Fake::default()
        };
        let answer = play(&scenario, parent.path(), &mut fake);
        assert!(
            matches!(answer, WorkflowAnswer::Stopped { step: 1, .. }),
            "{answer:?}"
        );
        assert_eq!(fake.seen.len(), 2, "nothing after the stopped step");
        assert!(fake.ended);
        assert_eq!(
            classify(&scenario, &answer, ScenarioLevel::Exact, false),
            outcome
        );
        assert!(
            describe(&scenario, &answer, ScenarioLevel::Exact)
                .starts_with("step 2 of 3 (steps[1], call): "),
        );
    }
    let unsupported = WorkflowAnswer::Unsupported;
    assert_eq!(
        classify(&scenario, &unsupported, ScenarioLevel::Exact, true),
        Outcome::Unsupported
    );
}

#[test]
fn the_data_directory_in_a_received_text_is_written_back_as_root() {
    let scenario = scenario(&format!(
        r#""steps": [{LIST}, "throws": "no {{root}}/vvoc"}}]"#
    ));
    let parent = scratch();
    let mut dir: Option<PathBuf> = None;
    struct Says<'a>(&'a mut Option<PathBuf>);
    impl WorkflowExecutor for Says<'_> {
        fn begin(&mut self, host: &WorkflowHost) -> Result<(), Failure> {
            *self.0 = Some(host.data_dir.clone());
            Ok(())
        }
        fn step(&mut self, _: &Action, _: &StepContext) -> Result<Received, Failure> {
            let dir = self
                .0
                .as_ref()
                .map(|d| d.display().to_string())
                .unwrap_or_default();
            Ok(Received::Throws(JsString::from(
                format!("no {dir}/vvoc").as_str(),
            )))
        }
        fn end(&mut self) {}
    }
    let answer = play(&scenario, parent.path(), &mut Says(&mut dir));
    assert!(
        passes(&scenario, &answer, ScenarioLevel::Exact),
        "{answer:?}"
    );
}
