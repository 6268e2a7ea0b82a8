//! Workflow scenario files (formats.md, "Workflow scenario file"): a good one loads with the
//! host's defaults, its JSON contents and each task result's `args` filled in from its launch;
//! a bad one is refused at load naming the file, the scenario and the fix.

use vvoc_harness::load::lint::lint_vectors_folder;
use vvoc_harness::load::suite::load_suite;
use vvoc_harness::scenario::tree::Entry;
use vvoc_harness::workflow::compare::step_input;
use vvoc_harness::workflow::model::{Action, Expect, Override};
use vvoc_reference::Tool;
use vvoc_reference::exec::workflow::SessionLookup;

mod common;

use common::files_folder;

const OPEN: &str = r#"{"call": "work_item_open", "input": {"items": [{"key": "k", "title": "T", "mode": "implementation", "requiredReviewers": ["spec"]}]}, "result": {"ok": true}}"#;

/// The load error of one scenario of `work_item_open` made of `members` (JSON text after the id),
/// the folder's path left out.
fn error_of(members: &str) -> String {
    let text = format!(r#"{{"tool": "work_item_open", "scenarios": [{{"id": "w", {members}}}]}}"#);
    let dir = files_folder(&[("exec-w.json", &text)]);
    let error = load_suite(&[dir.path().to_owned()]).expect_err("the folder must be refused");
    error
        .to_string()
        .replace(&format!("{}/", dir.path().display()), "")
}

#[test]
fn a_good_workflow_scenario_loads_with_its_defaults_and_the_launch_args_filled_in() {
    let text = format!(
        r#"{{"tool": "work_item_close", "scenarios": [{{"id": "ok", "note": "n",
      "host": {{"agent": null, "sessions": {{"child": "ses-root", "bad": {{"fails": "down"}}, "gone": {{"missing": true}}, "root": null}}, "now": 5}},
      "files": {{"vvoc/workflow/ses-root/workflow-state.json": {{"json": {{"version": 4, "records": []}}}}, "a.txt": "x"}},
      "steps": [
        {OPEN},
        {{"task": "launch", "callId": "c1", "args": {{"subagent_type": "vv-implementer", "prompt": "p"}}}},
        {{"task": "result", "callId": "c1", "output": "done", "now": 9, "context": {{"agent": "vv-controller", "worktree": null, "session": "other"}}}},
        {{"task": "result", "callId": "c1", "args": {{"own": true}}, "output": {{"x": 1}}, "metadata": {{"m": 1}}, "throws": "T"}},
        {{"event": {{"type": "message.updated"}}}},
        {{"restart": true}},
        {{"call": "work_item_close", "input": {{"workItemId": "wi-1"}}, "throws": "E"}}
      ],
      "after": {{"a.txt": "x"}}}}]}}"#
    );
    let dir = files_folder(&[("exec-ok.json", &text)]);
    let suite = load_suite(&[dir.path().to_owned()]).expect("loads");
    assert_eq!(suite.names, vec!["work_item_close:ok".to_owned()]);
    let scenario = &suite.workflow[0];
    assert_eq!(scenario.tool, Tool::WorkItemClose);
    assert_eq!(scenario.host.session, "ses-root");
    assert_eq!(scenario.host.agent, None, "null makes the agent absent");
    assert_eq!(
        scenario.host.worktree.as_deref(),
        Some("/workspace/project")
    );
    assert_eq!(scenario.host.package_root, "/opt/vv-opencode");
    assert_eq!(scenario.host.now, 5);
    assert_eq!(
        scenario.host.sessions.get("bad"),
        Some(&SessionLookup::Fails("down".to_owned()))
    );
    assert_eq!(
        scenario.host.sessions.get("child"),
        Some(&SessionLookup::Child("ses-root".to_owned()))
    );
    assert_eq!(
        scenario.host.sessions.get("gone"),
        Some(&SessionLookup::Missing)
    );
    assert_eq!(
        scenario.host.sessions.get("root"),
        Some(&SessionLookup::Root)
    );
    assert!(matches!(
        scenario
            .files
            .get("vvoc/workflow/ses-root/workflow-state.json"),
        Some(Entry::Json(_))
    ));
    assert_eq!(scenario.steps.len(), 7);
    let step = |i: usize| {
        step_input(&scenario.steps[i].action)
            .map(|j| j.to_compact())
            .unwrap_or_default()
    };
    assert_eq!(
        step(2),
        r#"{"task":"result","callId":"c1","args":{"subagent_type":"vv-implementer","prompt":"p"},"output":"done"}"#,
        "the launch's args"
    );
    assert_eq!(scenario.steps[2].now, Some(9));
    assert_eq!(scenario.steps[2].context.worktree, Override::Absent);
    assert_eq!(scenario.steps[2].context.session.as_deref(), Some("other"));
    assert_eq!(
        step(3),
        r#"{"task":"result","callId":"c1","args":{"own":true},"output":{"x":1},"metadata":{"m":1}}"#
    );
    assert_eq!(scenario.steps[3].expect, Expect::Throws("T".into()));
    assert_eq!(scenario.steps[1].expect, Expect::Done);
    assert!(matches!(scenario.steps[5].action, Action::Restart));
    let lint = lint_vectors_folder(dir.path()).expect("lints");
    assert_eq!(lint.violations, Vec::new(), "the file follows its schema");
}

#[test]
fn each_refusal_names_the_file_the_scenario_and_the_fix() {
    let cases = [
        (
            r#""steps": [{"call": "web_search", "input": {"query": "q"}, "result": {}}]"#,
            r#"exec-w.json: workflow scenario 0 ("w"): steps[0]: "call" is "web_search", not a workflow tool: call one of work_item_open"#,
        ),
        (
            r#""steps": [{"call": "work_item_close", "input": {}, "result": {}}]"#,
            r#"exec-w.json: workflow scenario 0 ("w"): steps[0]: the input is one work_item_close refuses (INVALID_INPUT: workItemId: Invalid input: expected string, received undefined; expected string); a step's input must be valid (invalid inputs are the vectors' business): fix the input"#,
        ),
        (
            r#""steps": [{"call": "work_item_list", "input": {}, "result": {}, "throws": "t"}]"#,
            r#"steps[0]: a call step has one of "result" and "throws", not both: keep the one the call gives"#,
        ),
        (
            r#""steps": [{"call": "work_item_list", "input": {}}]"#,
            r#"steps[0]: a call step needs "result" (the returned value) or "throws" (the raised message)"#,
        ),
        (
            r#""steps": [{"task": "result", "callId": "c9", "output": "x"}, {"task": "launch", "callId": "c9", "args": {}}]"#,
            r#"steps[0]: a task result without "args" takes the args of the launch with its callId, and no earlier step launches "c9": give "args", or launch it first"#,
        ),
        (
            r#""steps": [{"task": "start", "callId": "c", "args": {}}]"#,
            r#"steps[0]: "task" is "start"; it must be "launch" or "result""#,
        ),
        (
            r#""steps": [{"task": "launch", "callId": "c", "args": {}, "output": "x"}]"#,
            r#"steps[0]: unknown member "output"; a task launch step has only task, callId, args, throws, now and context"#,
        ),
        (
            r#""steps": [{"task": "launch", "callId": "c"}]"#,
            r#"steps[0]: args must be an object (a launch has args)"#,
        ),
        (
            r#""steps": [{"restart": false}]"#,
            r#"steps[0]: "restart" must be true"#,
        ),
        (
            r#""steps": [{"restart": true, "event": {}}]"#,
            r#"steps[0]: a step has one kind, not event and restart; split it into one step each"#,
        ),
        (
            r#""steps": [{"wait": 1}]"#,
            r#"steps[0]: unknown step kind (members: "wait"); a step is"#,
        ),
        (
            r#""steps": [{"event": {}, "output": "x"}]"#,
            r#"steps[0]: unknown member "output"; an event step has only event, now and context"#,
        ),
        (
            r#""steps": [{"event": {}, "now": 1.5}]"#,
            r#"steps[0]: now must be an integer: milliseconds since 1970-01-01T00:00:00Z"#,
        ),
        (
            r#""steps": [{"event": {}, "context": {"session": null}}]"#,
            r#"steps[0]: context.session must be a string (every step has a session)"#,
        ),
        (
            r#""steps": [{"event": {}, "context": {"user": "u"}}]"#,
            r#"steps[0]: unknown member "user"; a context of a step has only session, agent, directory and worktree"#,
        ),
        (
            r#""steps": []"#,
            r#"exec-w.json: workflow scenario 0 ("w"): "steps" must be a non-empty array of steps"#,
        ),
        (
            r#""host": {"user": "u"}, "steps": [{"restart": true}]"#,
            r#"unknown member "user" of host; the host has only session, agent, directory, worktree, sessions, packageRoot and now"#,
        ),
        (
            r#""host": {"sessions": {"s": 1}}, "steps": [{"restart": true}]"#,
            r#"host.sessions["s"] must be null (a root session), a string (the parent's id), {"fails": TEXT} or {"missing": true}"#,
        ),
        (
            r#""host": {"now": "today"}, "steps": [{"restart": true}]"#,
            r#"host.now must be an integer: milliseconds since 1970-01-01T00:00:00Z"#,
        ),
        (
            r#""files": {"a": {"json": 1, "base64": ""}}, "steps": [{"restart": true}]"#,
            r#"files["a"]: an object content is {"base64": "..."} or {"json": VALUE} and nothing else"#,
        ),
        (
            r#""files": {"../a": "x"}, "steps": [{"restart": true}]"#,
            r#"files: the key "../a""#,
        ),
        (
            r#""steps": [{"restart": true}], "expect": {}"#,
            r#"unknown member "expect"; a workflow scenario has only id, note, host, files, steps and after"#,
        ),
    ];
    for (members, expected) in cases {
        let error = error_of(members);
        assert!(
            error.contains(expected),
            "{members}\n  gives: {error}\n  wanted: {expected}"
        );
    }
}

#[test]
fn a_json_content_is_a_workflow_scenarios_form_only() {
    let text = r#"{"tool": "str_replace_editor", "scenarios": [{"id": "e", "files": {"a": {"json": 1}},
      "steps": [{"call": {"command": "view", "path": "{root}/a"}, "output": "x"}]}]}"#;
    let dir = files_folder(&[("exec-e.json", text)]);
    let error = load_suite(&[dir.path().to_owned()]).expect_err("refused");
    assert!(
        error
            .to_string()
            .ends_with(r#"scenario 0 ("e"): files["a"]: an object content is {"base64": "..."} and nothing else"#),
        "{error}"
    );
}

#[test]
fn ids_are_unique_per_tool_across_vectors_and_workflow_scenarios() {
    let vectors =
        r#"{"tool": "work_item_list", "vectors": [{"id": "same", "input": {}, "accept": {}}]}"#;
    let scenarios = r#"{"tool": "work_item_list", "scenarios": [{"id": "same", "steps": [{"restart": true}]}]}"#;
    let dir = files_folder(&[("a.json", vectors), ("exec-b.json", scenarios)]);
    let error = load_suite(&[dir.path().to_owned()])
        .expect_err("refused")
        .to_string();
    assert!(
        error.contains("exec-b.json: scenario 0 (\"same\"): the id is already used by vector 0 of"),
        "{error}"
    );
    // The same id under another tool is another name.
    let other = r#"{"tool": "work_item_open", "scenarios": [{"id": "same", "steps": [{"restart": true}]}]}"#;
    let dir = files_folder(&[("a.json", vectors), ("exec-b.json", other)]);
    let suite = load_suite(&[dir.path().to_owned()]).expect("loads");
    assert_eq!(
        suite.names,
        vec!["work_item_list:same", "work_item_open:same"]
    );
}

#[test]
fn lint_checks_a_workflow_file_against_its_own_schema() {
    let text = r#"{"tool": "work_item_list", "scenarios": [{"id": "l", "steps": [{"restart": true, "now": "x"}]}]}"#;
    let dir = files_folder(&[("exec-l.json", text)]);
    let lint = lint_vectors_folder(dir.path()).expect("lints");
    assert_eq!(lint.scenario_files, 1);
    assert!(
        lint.violations
            .iter()
            .any(|v| v.pointer.starts_with("/scenarios/0/steps/0")),
        "{:?}",
        lint.violations
    );
}

#[test]
fn the_example_of_formats_md_loads_and_follows_its_schema() {
    let formats =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/formats.md"))
            .expect("docs/formats.md");
    let section = formats
        .split("## Workflow scenario file")
        .nth(1)
        .expect("the section");
    let example = section
        .split("```json\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the example");
    let dir = files_folder(&[("work_item_close/exec-example.json", example)]);
    let suite = load_suite(&[dir.path().to_owned()]).expect("the example loads");
    assert_eq!(
        suite.names,
        vec!["work_item_close:close-after-two-passing-reviews"]
    );
    let lint = lint_vectors_folder(dir.path()).expect("lints");
    assert_eq!(lint.violations, Vec::new());
}
