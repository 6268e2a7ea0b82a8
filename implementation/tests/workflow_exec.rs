//! The workflow plugin end to end through its API: a review round to close, a delegated attempt to acceptance, the state file and its hydration.

use std::path::Path;

use vvoc_reference::exec::workflow::{SessionLookup, StepContext, Workflow, WorkflowHost};
use vvoc_reference::{Json, Tool};

fn cx(now_ms: i64) -> StepContext {
    StepContext {
        session: "ses-root".to_owned(),
        agent: Some("vv-controller".to_owned()),
        directory: Some("/workspace/project".to_owned()),
        worktree: Some("/workspace/project".to_owned()),
        now_ms,
    }
}

fn json(text: &str) -> Json {
    Json::parse(text).expect("a test's JSON parses")
}

fn call(wf: &mut Workflow, tool: Tool, input: &str) -> Json {
    let out = wf
        .call(tool, &json(input), &cx(1_767_225_600_000))
        .unwrap_or_else(|e| unreachable!("{tool:?} raised {e}"));
    json(&out.to_string_lossy())
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("vvoc-wf-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

fn field<'a>(v: &'a Json, path: &[&str]) -> &'a Json {
    path.iter().fold(v, |v, name| {
        v.as_object()
            .and_then(|o| o.get(name))
            .unwrap_or_else(|| unreachable!("no {name} in {v}"))
    })
}

fn launch(wf: &mut Workflow, call_id: &str, agent: &str, id: &str) -> Result<(), String> {
    let args = json(&format!(
        r#"{{"subagent_type":"{agent}","prompt":"VVOC_WORK_ITEM_ID: {id}\n\nDo it."}}"#
    ));
    wf.task_launch(&cx(1_767_225_601_000), call_id, &args)
        .map_err(|e| e.to_string_lossy())
}

fn finish(
    wf: &mut Workflow,
    call_id: &str,
    agent: &str,
    id: &str,
    output: &str,
) -> Result<(), String> {
    let args = json(&format!(
        r#"{{"subagent_type":"{agent}","prompt":"VVOC_WORK_ITEM_ID: {id}\n\nDo it."}}"#
    ));
    wf.task_result(
        &cx(1_767_225_602_000),
        call_id,
        &args,
        &Json::str(output),
        None,
    )
    .map_err(|e| e.to_string_lossy())
}

#[test]
fn a_review_only_item_closes_after_its_reviewer_passes_and_survives_a_restart() {
    let dir = scratch("review");
    let mut wf = Workflow::new(WorkflowHost::new(dir.clone()));
    let opened = call(
        &mut wf,
        Tool::WorkItemOpen,
        r#"{"items":[{"key":" k ","title":"T","mode":"review_only","requiredReviewers":["code","spec"]}]}"#,
    );
    let item = &field(&opened, &["items"])
        .as_array()
        .expect("the test input holds")[0];
    assert_eq!(field(item, &["workItemId"]), &Json::str("wi-1"));
    assert_eq!(field(item, &["state"]), &Json::str("awaiting_reviews"));
    assert_eq!(
        field(item, &["requiredReviewers"]).to_compact(),
        r#"["spec","code"]"#
    );
    launch(&mut wf, "c1", "vv-spec-reviewer", "wi-1").expect("the test input holds");
    launch(&mut wf, "c2", "vv-code-reviewer", "wi-1").expect("the test input holds");
    finish(
        &mut wf,
        "c2",
        "vv-code-reviewer",
        "wi-1",
        "VVOC_WORK_ITEM_ID: wi-1\nVVOC_STATUS: FAIL\n\nbad",
    )
    .expect("the test input holds");
    finish(
        &mut wf,
        "c1",
        "vv-spec-reviewer",
        "wi-1",
        "VVOC_WORK_ITEM_ID: wi-1\nVVOC_STATUS: PASS\n\nok",
    )
    .expect("the test input holds");
    wf.restart();
    let listed = call(&mut wf, Tool::WorkItemList, "{}");
    let item = &field(&listed, &["items"])
        .as_array()
        .expect("the test input holds")[0];
    assert_eq!(field(item, &["state"]), &Json::str("ready_to_close"));
    let results = field(item, &["currentRound", "results"])
        .as_object()
        .expect("the test input holds");
    let order: Vec<String> = results.iter().map(|(k, _)| k.to_string_lossy()).collect();
    assert_eq!(order, ["spec", "code"], "views list results spec first");
    let closed = call(&mut wf, Tool::WorkItemClose, r#"{"workItemId":"wi-1"}"#);
    assert_eq!(field(&closed, &["state"]), &Json::str("closed"));
    let again = call(&mut wf, Tool::WorkItemClose, r#"{"workItemId":"wi-1"}"#);
    assert_eq!(
        field(&again, &["errorCode"]),
        &Json::str("WORK_ITEM_ALREADY_CLOSED")
    );
    let state = std::fs::read_to_string(dir.join("vvoc/workflow/ses-root/workflow-state.json"))
        .expect("the test input holds");
    assert!(state.contains("\"version\": 4"), "{state}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_delegated_attempt_is_decided_once_and_an_invalid_file_fails_control_closed() {
    let dir = scratch("delegated");
    let mut wf = Workflow::new(WorkflowHost::new(dir.clone()));
    call(
        &mut wf,
        Tool::WorkItemOpen,
        r#"{"items":[{"key":"d","title":"D","mode":"delegated","requiredReviewers":[],"writeScope":["src/a.rs"]}]}"#,
    );
    launch(&mut wf, "c1", "vv-implementer", "wi-1").expect("the test input holds");
    let second = launch(&mut wf, "c2", "vv-implementer", "wi-1").expect_err("the test input fails");
    assert!(
        second.contains("LAUNCH_REJECTED_DELEGATED_ATTEMPT_IN_FLIGHT"),
        "{second}"
    );
    finish(
        &mut wf,
        "c1",
        "vv-implementer",
        "wi-1",
        "VVOC_WORK_ITEM_ID: wi-1\nVVOC_STATUS: DONE\nVVOC_ROUTE: controller\n\ndone",
    )
    .expect("the test input holds");
    let input = r#"{"workItemId":"wi-1","decision":"accept","attempt":1,"rationale":" fine ","evidence":["tests pass"]}"#;
    let decided = call(&mut wf, Tool::WorkItemDecide, input);
    assert_eq!(field(&decided, &["decisionId"]), &Json::str("dec-wi-1-a1"));
    assert_eq!(field(&decided, &["state"]), &Json::str("ready_to_close"));
    let again = call(&mut wf, Tool::WorkItemDecide, input);
    assert_eq!(field(&again, &["errorCode"]), &Json::str("INVALID_STATE"));

    let path = dir.join("vvoc/workflow/ses-root/workflow-state.json");
    std::fs::write(&path, "{\"version\": 9}").expect("the test input holds");
    let mut host = WorkflowHost::new(dir.clone());
    host.sessions
        .insert("other".to_owned(), SessionLookup::Missing);
    let mut wf = Workflow::new(host);
    let refused = wf
        .call(Tool::WorkItemDecide, &json(input), &cx(0))
        .expect_err("the test input fails");
    assert!(refused.to_string_lossy().starts_with(
        "PERSISTENCE_FAILED: persisted workflow state for session ses-root is invalid"
    ));
    assert_eq!(
        wf.invalid_state_reasons("ses-root"),
        Some(&["unsupported persisted version 9".to_owned()][..])
    );
    call(
        &mut wf,
        Tool::WorkItemOpen,
        r#"{"items":[{"key":"x","title":"X","mode":"implementation","requiredReviewers":["spec"]}]}"#,
    );
    assert_eq!(
        std::fs::read_to_string(&path).expect("the test input holds"),
        "{\"version\": 9}",
        "an invalid file is never overwritten"
    );
    let _ = std::fs::remove_dir_all(Path::new(&dir));
}
