//! Property tests of the workflow store: random sequences of calls, task events and restarts
//! never reuse an id, never change a closed item, and leave, whenever the plugin writes, a state
//! file that hydrates to what it holds in memory (`execution-workflow.md` §2, §3).

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::test_runner::Config;
use vvoc_reference::exec::workflow::{StepContext, Workflow, WorkflowHost};
use vvoc_reference::{JsString, Json, Tool};

/// One thing that happens to the plugin.
#[derive(Clone, Debug)]
enum Step {
    Open {
        key: u8,
        mode: u8,
        reviewers: u8,
    },
    Launch {
        call: u8,
        agent: u8,
        item: u8,
    },
    Result {
        call: u8,
        agent: u8,
        item: u8,
        status: u8,
        shape: u8,
    },
    Decide {
        item: u8,
        accept: bool,
        attempt: u8,
        concerns: bool,
    },
    Close {
        item: u8,
    },
    Restart,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (0..4u8, 0..3u8, 0..3u8).prop_map(|(key, mode, reviewers)| Step::Open {
            key,
            mode,
            reviewers
        }),
        (0..6u8, 0..3u8, 1..5u8).prop_map(|(call, agent, item)| Step::Launch { call, agent, item }),
        (0..6u8, 0..3u8, 1..5u8, 0..7u8, 0..4u8).prop_map(|(call, agent, item, status, shape)| {
            Step::Result {
                call,
                agent,
                item,
                status,
                shape,
            }
        }),
        (1..5u8, any::<bool>(), 1..4u8, any::<bool>()).prop_map(
            |(item, accept, attempt, concerns)| {
                Step::Decide {
                    item,
                    accept,
                    attempt,
                    concerns,
                }
            }
        ),
        (1..5u8).prop_map(|item| Step::Close { item }),
        Just(Step::Restart),
    ]
}

proptest! {
    #![proptest_config(Config { cases: 256, failure_persistence: None, ..Config::default() })]

    #[test]
    fn ids_are_never_reused_closed_items_never_change_and_a_written_file_hydrates_to_memory(
        steps in prop::collection::vec(step(), 1..40)
    ) {
        let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let host = WorkflowHost::new(dir.path().to_path_buf());
        let mut wf = Workflow::new(host.clone());
        let mut seen_ids: Vec<String> = Vec::new();
        let mut closed: BTreeMap<String, String> = BTreeMap::new();
        for (n, step) in steps.iter().enumerate() {
            let now = 1_767_225_600_000 + 1000 * n as i64;
            let cx = context(now);
            match step {
                Step::Open { key, mode, reviewers } => {
                    let out = call(&mut wf, Tool::WorkItemOpen, &open_input(*key, *mode, *reviewers), &cx)?;
                    for item in array(&out, "items") {
                        if member(item, "ok") == Some(&Json::Bool(true))
                            && member(item, "reused") == Some(&Json::Bool(false))
                        {
                            let id = text(item, "workItemId");
                            prop_assert!(!seen_ids.contains(&id), "{id} was given out twice");
                            seen_ids.push(id);
                        }
                    }
                }
                Step::Launch { call, agent, item } => {
                    let _ = wf.task_launch(&cx, &format!("c{call}"), &task_args(*agent, *item));
                }
                Step::Result { call, agent, item, status, shape } => {
                    let output = Json::str(&result_text(*agent, *item, *status, *shape));
                    let _ = wf.task_result(&cx, &format!("c{call}"), &task_args(*agent, *item), &output, None);
                }
                Step::Decide { item, accept, attempt, concerns } => {
                    let mut input = format!(
                        r#"{{"workItemId":"wi-{item}","decision":"{}","attempt":{attempt},"rationale":"r","evidence":["e"]"#,
                        if *accept { "accept" } else { "request_changes" }
                    );
                    if *concerns {
                        input.push_str(r#","concernsDisposition":"noted""#);
                    }
                    input.push('}');
                    let _ = wf.call(Tool::WorkItemDecide, &parse(&input)?, &cx);
                }
                Step::Close { item } => {
                    call(&mut wf, Tool::WorkItemClose, &format!(r#"{{"workItemId":"wi-{item}"}}"#), &cx)?;
                }
                Step::Restart => wf.restart(),
            }
            let listed = call(&mut wf, Tool::WorkItemList, r#"{"includeClosed":true}"#, &cx)?;
            for item in array(&listed, "items") {
                let id = text(item, "workItemId");
                if text(item, "state") == "closed" {
                    let now_text = item.to_compact();
                    if let Some(before) = closed.get(&id) {
                        prop_assert_eq!(before, &now_text, "closed item {} changed", id);
                    }
                    closed.insert(id, now_text);
                }
            }
            // Open and close write the session's file whatever their outcome (§2.5); right after,
            // a fresh plugin on the same data directory sees what this one holds, but for the
            // in-flight delegated attempts that hydration reverts (§2.9). Between writes the two
            // may differ: a restart's reversions are held in memory until the next write.
            if !matches!(step, Step::Open { .. } | Step::Close { .. }) {
                continue;
            }
            let mut fresh = Workflow::new(host.clone());
            let hydrated = call(&mut fresh, Tool::WorkItemList, r#"{"includeClosed":true}"#, &cx)?;
            let settled = |v: &Json| -> Vec<String> {
                array(v, "items")
                    .iter()
                    .filter(|i| {
                        member(i, "delegated")
                            .and_then(|d| d.as_object())
                            .and_then(|d| d.get("inFlightAttempt"))
                            != Some(&Json::Bool(true))
                    })
                    .map(Json::to_compact)
                    .collect()
            };
            let in_memory = settled(&listed);
            let from_file: Vec<String> = settled(&hydrated)
                .into_iter()
                .filter(|i| in_memory.iter().any(|m| same_id(m, i)))
                .collect();
            prop_assert_eq!(in_memory, from_file, "after step {} ({:?})", n, step);
        }
    }
}

fn context(now_ms: i64) -> StepContext {
    StepContext {
        session: "ses-root".to_owned(),
        agent: Some("vv-controller".to_owned()),
        directory: Some("/workspace/project".to_owned()),
        worktree: Some("/workspace/project".to_owned()),
        now_ms,
    }
}

fn parse(text: &str) -> Result<Json, TestCaseError> {
    Json::parse(text).map_err(|e| TestCaseError::fail(format!("{e}: {text}")))
}

fn call(
    wf: &mut Workflow,
    tool: Tool,
    input: &str,
    cx: &StepContext,
) -> Result<Json, TestCaseError> {
    let out: JsString = wf
        .call(tool, &parse(input)?, cx)
        .map_err(|e| TestCaseError::fail(format!("{tool:?} raised {e}")))?;
    parse(&out.to_string_lossy())
}

fn open_input(key: u8, mode: u8, reviewers: u8) -> String {
    let mode_text = ["implementation", "review_only", "delegated"][usize::from(mode)];
    let reviewers = if mode == 2 {
        "[]"
    } else {
        [r#"["spec"]"#, r#"["code"]"#, r#"["code","spec"]"#][usize::from(reviewers)]
    };
    let scope = if mode == 2 {
        r#","writeScope":["src/a.rs"]"#
    } else {
        ""
    };
    format!(
        r#"{{"items":[{{"key":"k{key}","title":"T{key}","mode":"{mode_text}","requiredReviewers":{reviewers}{scope}}}]}}"#
    )
}

fn agent_name(agent: u8) -> &'static str {
    ["vv-implementer", "vv-spec-reviewer", "vv-code-reviewer"][usize::from(agent)]
}

fn task_args(agent: u8, item: u8) -> Json {
    let mut o = vvoc_reference::Object::new();
    o.insert("subagent_type", Json::str(agent_name(agent)));
    o.insert(
        "prompt",
        Json::str(&format!("VVOC_WORK_ITEM_ID: wi-{item}\n\nWork.")),
    );
    Json::Object(o)
}

fn result_text(agent: u8, item: u8, status: u8, shape: u8) -> String {
    let status = [
        "DONE",
        "DONE_WITH_CONCERNS",
        "NEEDS_CONTEXT",
        "BLOCKED",
        "PASS",
        "FAIL",
        "BOGUS",
    ][usize::from(status)];
    let route = if agent == 0 {
        "\nVVOC_ROUTE: reviewers"
    } else {
        ""
    };
    match shape {
        0 => format!("VVOC_WORK_ITEM_ID: wi-{item}\nVVOC_STATUS: {status}{route}\n\nBody."),
        1 => format!(
            "VVOC_WORK_ITEM_ID: wi-{item}\nVVOC_STATUS: {status}\nBody without a separator."
        ),
        2 => format!(
            "<task id=\"ses_c\" state=\"completed\">\nVVOC_WORK_ITEM_ID: wi-{item}\nVVOC_STATUS: {status}{route}\n\nBody.\n</task>"
        ),
        _ => "no protocol at all".to_owned(),
    }
}

fn member<'a>(v: &'a Json, name: &str) -> Option<&'a Json> {
    v.as_object().and_then(|o| o.get(name))
}

fn array<'a>(v: &'a Json, name: &str) -> &'a [Json] {
    member(v, name).and_then(Json::as_array).unwrap_or(&[])
}

fn text(v: &Json, name: &str) -> String {
    member(v, name)
        .and_then(Json::as_string)
        .map(JsString::to_string_lossy)
        .unwrap_or_default()
}

fn same_id(a: &str, b: &str) -> bool {
    let id = |s: &str| parse(s).map(|v| text(&v, "workItemId")).unwrap_or_default();
    id(a) == id(b)
}
