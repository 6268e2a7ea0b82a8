//! The host's `task` hooks and events (upstream's `index.ts`): tracked launches, tracked results, failed delegated launches, and the bindings between them.

use super::delegated::delegated;
use super::inspection::guidance;
use super::js::{iso, number_text};
use super::protocol::{
    Agent, explicit_hard_stop, parse_result_block, parse_work_item_header, repair_eligible,
    unwrap_task_result,
};
use super::record::{array, excerpt, object, text, text_is, truthy};
use super::store::{
    MAX_REVIEW_ROUNDS, StoreData, attempted_implementation_round, js_string, review_round_number,
    state_text,
};
use super::{StepContext, Workflow, persistence};
use crate::js_string::JsString;
use crate::js_text::js;
use crate::json::{Json, Object};

/// Prefix of the unknown-work-item launch rejection (`WORK_ITEM_MISSING_MARKER`).
const WORK_ITEM_MISSING_MARKER: &str = "__VVOC_SECRET_BEARER_TOKEN_a6f582092f05__";
/// Prefix of the invalid-transition launch rejection (`INVALID_NEXT_AGENT_MARKER`).
const INVALID_NEXT_AGENT_MARKER: &str = "__VVOC_SECRET_BEARER_TOKEN_513fa2de603d__";

/// What the plugin remembers about host task calls (`delegatedLaunchBindings`,
/// `resumedChildSessions`, `childPromptMessageIds`).
#[derive(Debug, Default)]
pub(crate) struct Bindings {
    launches: Vec<Binding>,
    resumed_children: Vec<JsString>,
    child_prompts: Vec<(JsString, Vec<JsString>)>,
}

/// `DelegatedLaunchBinding`.
#[derive(Debug)]
struct Binding {
    session: JsString,
    call_id: JsString,
    work_item_id: JsString,
    eligible: bool,
    after_hook_entered: bool,
    child: Option<JsString>,
    settled: bool,
}

/// `tool.execute.before` for the host's `task` tool.
pub(crate) fn launch(
    wf: &mut Workflow,
    cx: &StepContext,
    call_id: &str,
    args: &Json,
) -> Result<(), JsString> {
    let session = JsString::from(cx.session.as_str());
    let now = iso(cx.now_ms);
    let call_id = JsString::from(call_id);
    let eligibility = eligibility(args);
    if let Some(resumed) = &eligibility.resumed {
        wf.tasks.resumed_children.push(resumed.clone());
        wf.tasks.taint_child(resumed);
    }
    let Some(agent) = tracked_agent(args) else {
        return Ok(());
    };
    wf.hydrated(&session, &now)?;
    let id = match parse_work_item_header(prompt(args).units()) {
        Ok(id) => id,
        Err(e) => return Err(js!["LAUNCH_REJECTED_MISSING_HEADER: ", &e.message]),
    };
    let store = wf.store(&session, &now);
    let work_item = store
        .work_item(&session, id.units())
        .filter(|r| !text_is(r, "state", "closed"));
    let Some(work_item) = work_item else {
        return Err(js![
            WORK_ITEM_MISSING_MARKER,
            " LAUNCH_REJECTED_UNKNOWN_WORK_ITEM: no open work item ",
            &id,
            " exists in this session. Use work_item_open first or check state with work_item_list."
        ]);
    };
    let state = state_text(&work_item);
    let attempted = if agent == Agent::Implementer {
        attempted_implementation_round(&work_item)
    } else {
        review_round_number(&work_item).as_f64().unwrap_or(f64::NAN)
    };
    if text_is(&work_item, "mode", "implementation")
        && agent == Agent::Implementer
        && attempted > MAX_REVIEW_ROUNDS
    {
        return Err(js![
            "LAUNCH_REJECTED_ROUND_LIMIT: review loop gate blocked tracked launch before entering a disallowed implementation retry round. Work item ",
            &id,
            " is in state ",
            &state,
            " at reviewRound=",
            &js_string(&review_round_number(&work_item)),
            " and cannot start round ",
            number_text(attempted).as_str(),
            ". Next action: call work_item_list for this session, resolve concerns with explicit context, then open/continue a fresh work item instead of retrying the same loop."
        ]);
    }
    if let Err(refused) = store.begin_tracked_launch(&session, id.units(), agent, &now) {
        let allowed = if refused.allowed.is_empty() {
            "no tracked agent".to_owned()
        } else {
            refused.allowed.join(", ")
        };
        return Err(js![
            INVALID_NEXT_AGENT_MARKER,
            " LAUNCH_REJECTED_INVALID_TRANSITION: ",
            &id,
            " in state ",
            &state,
            " only allows ",
            allowed.as_str(),
            ". ",
            &refused.refusal.message
        ]);
    }
    if text_is(&work_item, "mode", "delegated") && agent == Agent::Implementer {
        if let Err(refused) =
            store.begin_delegated_launch(&session, id.units(), call_id.units(), &now)
        {
            return Err(js![
                "LAUNCH_REJECTED_DELEGATED_",
                refused.code,
                ": ",
                &refused.message
            ]);
        }
        let key = (session.clone(), call_id.clone());
        wf.tasks
            .launches
            .retain(|b| (b.session.clone(), b.call_id.clone()) != key);
        wf.tasks.launches.push(Binding {
            session: session.clone(),
            call_id,
            work_item_id: id,
            eligible: eligibility.eligible,
            after_hook_entered: false,
            child: None,
            settled: false,
        });
    }
    let _ = wf.snapshot_session(&session, &now, cx.now_ms);
    Ok(())
}

/// `tool.execute.after` for the host's `task` tool.
pub(crate) fn result(
    wf: &mut Workflow,
    cx: &StepContext,
    call_id: &str,
    args: &Json,
    output: &Json,
    metadata: Option<&Json>,
) -> Result<(), JsString> {
    let session = JsString::from(cx.session.as_str());
    let now = iso(cx.now_ms);
    let call_id = JsString::from(call_id);
    wf.tasks.observe_after_hook(&session, &call_id, metadata);
    let Some(agent) = tracked_agent(args) else {
        return Ok(());
    };
    let id = match parse_work_item_header(prompt(args).units()) {
        Ok(id) => id,
        Err(e) => return Err(js!["RESULT_PROTOCOL_ERROR: ", &e.message]),
    };
    // Every path below reads the store first (the revert of a refused result, or the result's
    // own lookup), so a file the loader cannot read raises before anything else.
    wf.hydrated(&session, &now)?;
    let revert = |wf: &mut Workflow| {
        wf.store(&session, &now)
            .revert_reviewer_launch(&session, id.units(), agent, &now);
        let _ = wf.snapshot_session(&session, &now, cx.now_ms);
    };
    let Some(output) = output.as_string() else {
        revert(wf);
        return Err(JsString::from(
            "RESULT_PROTOCOL_ERROR: tracked task output must be a string",
        ));
    };
    let (normalized, _envelope) = unwrap_task_result(output.units());
    let parsed = parse_result_block(agent, &normalized, id.units());
    // A bounded continuation (`attemptTrackedResultRepair`) asks the host to prompt the child
    // session again; the reference's host cannot, and upstream then keeps the parse failure.
    let _repairable = parsed
        .as_ref()
        .err()
        .is_some_and(|e| repair_eligible(e.code))
        && explicit_hard_stop(&normalized).is_none();
    let parsed = match parsed {
        Ok(parsed) => parsed,
        Err(error) => {
            let failure_excerpt = excerpt(&normalized, "normalized_output");
            revert(wf);
            let settled = failure_excerpt.as_ref().and_then(|e| {
                settle_rejected_report(
                    wf,
                    cx,
                    &session,
                    &id,
                    agent,
                    &call_id,
                    error.code,
                    e,
                    &normalized,
                )
            });
            let mut message = js!["RESULT_PROTOCOL_ERROR: ", &error.message];
            if let Some(attempt) = settled {
                let store = wf.store(&session, &now);
                let next = store.work_item(&session, id.units()).map(|r| {
                    guidance(&r)
                        .get("nextAction")
                        .map(js_string)
                        .unwrap_or_default()
                });
                let next_text = next
                    .clone()
                    .unwrap_or_else(|| JsString::from("inspect work_item_list"));
                let suffix = if next
                    .as_ref()
                    .is_some_and(|n| *n == "recover" || *n == "recover_with_user_authorization")
                {
                    " through work_item_decide decision \"recover\""
                } else {
                    ""
                };
                message.push_units(
                    js![
                        "\nReport rejected: attempt ",
                        &js_string(&attempt),
                        " of ",
                        &id,
                        " settled as report_rejected with bounded diagnostics retained.\nNext action: ",
                        &next_text,
                        suffix,
                        "."
                    ]
                    .units(),
                );
            }
            message.push('\n');
            message.push_units(excerpt_line(failure_excerpt.as_ref()).units());
            return Err(message);
        }
    };
    let result_excerpt = excerpt(parsed.body.units(), "parsed_body")
        .or_else(|| excerpt(&normalized, "normalized_output"));
    let current = wf
        .store(&session, &now)
        .work_item(&session, parsed.work_item_id.units())
        .filter(|r| !text_is(r, "state", "closed"));
    let Some(current) = current else {
        revert(wf);
        return Err(js![
            "RESULT_PROTOCOL_ERROR: no open work item ",
            &parsed.work_item_id,
            " exists in this session\n",
            &excerpt_line(result_excerpt.as_ref())
        ]);
    };
    if text_is(&current, "mode", "delegated") && agent == Agent::Implementer {
        let applied = wf.store(&session, &now).apply_delegated_result(
            &session,
            parsed.work_item_id.units(),
            call_id.units(),
            parsed.status,
            result_excerpt.as_ref(),
            &now,
        );
        let record = match applied {
            Ok(record) => record,
            Err(refused) => {
                return Err(js![
                    "RESULT_PROTOCOL_ERROR: ",
                    &refused.message,
                    "\n",
                    &excerpt_line(result_excerpt.as_ref())
                ]);
            }
        };
        let _ = wf.snapshot_session(&session, &now, cx.now_ms);
        return hard_stop(
            &super::store::clone_record(&record),
            agent,
            parsed.status,
            result_excerpt.as_ref(),
        );
    }
    let applied = wf.store(&session, &now).apply_tracked_result(
        &session,
        parsed.work_item_id.units(),
        &parsed,
        result_excerpt.as_ref(),
        &now,
    );
    let record = match applied {
        Ok(record) => record,
        Err(refused) => {
            revert(wf);
            return Err(js![
                "RESULT_PROTOCOL_ERROR: ",
                &refused.message,
                "\n",
                &excerpt_line(result_excerpt.as_ref())
            ]);
        }
    };
    let _ = wf.snapshot_session(&session, &now, cx.now_ms);
    hard_stop(&record, agent, parsed.status, result_excerpt.as_ref())
}

/// The `event` hook: failed delegated launches, re-prompted children, deleted sessions.
pub(crate) fn event(wf: &mut Workflow, cx: &StepContext, event: &Json) {
    let Some(event) = event.as_object() else {
        return;
    };
    let kind = text(event, "type").map(JsString::to_string_lossy);
    let empty = Object::new();
    let properties = object(event, "properties").unwrap_or(&empty);
    match kind.as_deref() {
        Some("message.part.updated") => part_updated(wf, cx, properties),
        Some("message.updated") => {
            let Some(info) = object(properties, "info") else {
                return;
            };
            if text_is(info, "role", "user")
                && let Some(session) = text(info, "sessionID")
            {
                let id = text(info, "id").cloned();
                wf.tasks.observe_child_prompt(session, id);
            }
        }
        Some("session.deleted") => {
            let session = text(properties, "sessionID")
                .or_else(|| object(properties, "info").and_then(|i| text(i, "id")))
                .cloned();
            let Some(session) = session.filter(|s| !s.is_empty()) else {
                return;
            };
            wf.tasks.launches.retain(|b| b.session != session);
            wf.tasks.child_prompts.retain(|(s, _)| *s != session);
            wf.tasks.resumed_children.retain(|s| *s != session);
            wf.stores.retain(|(s, _)| *s != session);
            if let Some(path) = persistence::state_path(&wf.host.data_dir, &session)
                && let Some(dir) = path.parent()
            {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
        _ => {}
    }
}

impl Bindings {
    fn taint_child(&mut self, child: &JsString) {
        for b in &mut self.launches {
            if b.child.as_ref() == Some(child) {
                b.eligible = false;
            }
        }
    }

    /// `observeChildPrompt`: a child prompted with a second distinct message is resumed.
    fn observe_child_prompt(&mut self, session: &JsString, message: Option<JsString>) {
        let Some(message) = message.filter(|m| !m.is_empty()) else {
            return;
        };
        let at = match self.child_prompts.iter().position(|(s, _)| s == session) {
            Some(at) => at,
            None => {
                self.child_prompts.push((session.clone(), Vec::new()));
                self.child_prompts.len() - 1
            }
        };
        let ids = &mut self.child_prompts[at].1;
        if ids.contains(&message) {
            return;
        }
        ids.push(message);
        if ids.len() > 1 {
            self.resumed_children.push(session.clone());
            self.taint_child(session);
        }
    }

    /// `observeAfterHookEntry` and `observeAfterHookMetadata`.
    fn observe_after_hook(
        &mut self,
        session: &JsString,
        call_id: &JsString,
        metadata: Option<&Json>,
    ) {
        let Some(b) = self
            .launches
            .iter_mut()
            .find(|b| b.session == *session && b.call_id == *call_id)
        else {
            return;
        };
        b.after_hook_entered = true;
        let Some(m) = metadata.and_then(Json::as_object) else {
            return;
        };
        if let Some(child) = text(m, "sessionId").filter(|c| !crate::text::is_blank(c.units())) {
            match &b.child {
                None => b.child = Some(child.clone()),
                Some(known) if known != child => b.eligible = false,
                Some(_) => {}
            }
        }
        if m.get("background") == Some(&Json::Bool(true))
            || text(m, "jobId").is_some_and(|j| !j.is_empty())
            || m.get("interrupted") == Some(&Json::Bool(true))
        {
            b.eligible = false;
        }
    }
}

/// `readDelegatedLaunchEligibility`.
struct Eligibility {
    eligible: bool,
    resumed: Option<JsString>,
}

fn eligibility(args: &Json) -> Eligibility {
    let no = |resumed| Eligibility {
        eligible: false,
        resumed,
    };
    let Some(args) = args.as_object() else {
        return no(None);
    };
    if args.contains("background") && args.get("background") != Some(&Json::Bool(false)) {
        return no(None);
    }
    if let Some(task) = args.get("task_id") {
        let Some(task) = task
            .as_string()
            .filter(|t| !crate::text::is_blank(t.units()))
        else {
            return no(None);
        };
        return no(Some(JsString::from_units(crate::text::trim(task.units()))));
    }
    if args.contains("command") {
        return no(None);
    }
    Eligibility {
        eligible: true,
        resumed: None,
    }
}

/// `readTaskSubagentType` when it names a tracked agent.
fn tracked_agent(args: &Json) -> Option<Agent> {
    let name = args.as_object().and_then(|a| text(a, "subagent_type"))?;
    Agent::from_name(crate::text::trim(name.units()))
}

/// `readTaskPrompt`.
fn prompt(args: &Json) -> JsString {
    args.as_object()
        .and_then(|a| text(a, "prompt"))
        .cloned()
        .unwrap_or_default()
}

/// `formatResultExcerptForError`.
fn excerpt_line(excerpt: Option<&Object>) -> JsString {
    let Some(e) = excerpt else {
        return JsString::from("Result excerpt: <empty>");
    };
    let source = e.get("source").map(js_string).unwrap_or_default();
    let truncation = if truthy(e.get("truncated")) {
        js![
            ", truncated to ",
            &e.get("maxLength").map(js_string).unwrap_or_default(),
            " of ",
            &e.get("originalLength").map(js_string).unwrap_or_default(),
            " characters"
        ]
    } else {
        JsString::new()
    };
    js![
        "Result excerpt (",
        &source,
        &truncation,
        "):\n",
        &e.get("text").map(js_string).unwrap_or_default()
    ]
}

/// Raises `RESULT_HARD_STOP` when the result left the item in `needs_context` or `blocked`.
fn hard_stop(
    record: &Object,
    agent: Agent,
    status: &str,
    triggering: Option<&Object>,
) -> Result<(), JsString> {
    let state = state_text(record);
    if state != "needs_context" && state != "blocked" {
        return Ok(());
    }
    // `findHardStopRecoveryContext`: a reviewer's NEEDS_CONTEXT excerpt first, then the
    // record's excerpt, then the triggering result's.
    let mut context: (JsString, JsString, Option<Object>) = (
        JsString::from(agent.name()),
        JsString::from(status),
        triggering.cloned(),
    );
    let from_round = (state == "needs_context")
        .then(|| object(record, "currentRound").filter(|_| truthy(record.get("currentRound"))))
        .flatten()
        .and_then(|round| object(round, "results"))
        .and_then(|results| {
            results.iter().find_map(|(_, r)| {
                let r = r.as_object()?;
                text_is(r, "status", "NEEDS_CONTEXT").then_some(r)
            })
        })
        .and_then(|r| {
            let e = object(r, "resultExcerpt").filter(|_| truthy(r.get("resultExcerpt")))?;
            Some((
                r.get("agent").map(js_string).unwrap_or_default(),
                r.get("status").map(js_string).unwrap_or_default(),
                Some(e.clone()),
            ))
        });
    if let Some(found) = from_round {
        context = found;
    } else if let Some(e) =
        object(record, "resultExcerpt").filter(|_| truthy(record.get("resultExcerpt")))
    {
        context.2 = Some(e.clone());
    }
    let id = record.get("workItemId").map(js_string).unwrap_or_default();
    Err(js![
        "RESULT_HARD_STOP: ",
        &state,
        " requires explicit user action for ",
        &id,
        ".\nRecovery context: agent=",
        &context.0,
        "; status=",
        &context.1,
        ".\n",
        &excerpt_line(context.2.as_ref()),
        "\nInspect work_item_list before retrying."
    ])
}

/// `commitDelegatedReportRejection` when the failed result is the bound delegated attempt's:
/// settled on a staged copy, persisted, then committed; the settled attempt's number.
#[allow(clippy::too_many_arguments)]
fn settle_rejected_report(
    wf: &mut Workflow,
    cx: &StepContext,
    session: &JsString,
    id: &JsString,
    agent: Agent,
    call_id: &JsString,
    code: &str,
    failure_excerpt: &Object,
    normalized: &[u16],
) -> Option<Json> {
    let now = iso(cx.now_ms);
    let current = wf.store(session, &now).work_item(session, id.units())?;
    if text_is(&current, "state", "closed")
        || !text_is(&current, "mode", "delegated")
        || agent != Agent::Implementer
    {
        return None;
    }
    let bound = delegated(&current).is_some_and(|d| {
        array(d, "attempts")
            .unwrap_or(&[])
            .iter()
            .filter_map(Json::as_object)
            .any(|a| text_is(a, "status", "in_flight") && text(a, "callId") == Some(call_id))
    });
    if !bound || wf.is_invalid(session) || !wf.has_store(session) {
        return None;
    }
    let hard = explicit_hard_stop(normalized);
    let mut staged: StoreData = wf.store(session, &now).clone();
    let attempt = staged
        .apply_report_rejection(
            session,
            id.units(),
            call_id.units(),
            code,
            failure_excerpt,
            hard,
            &now,
        )
        .ok()?;
    persistence::snapshot(
        &wf.host.data_dir,
        session,
        &staged,
        &now,
        cx.now_ms,
        wf.host.pid,
    )
    .ok()?;
    let committed = staged.record(session, id.units())?.clone();
    wf.store(session, &now)
        .set_record(session, id.units(), committed);
    Some(attempt)
}

/// `handleDelegatedPartUpdated`: a confirmed host failure of a bound, eligible, unsettled
/// foreground launch records a failed attempt.
fn part_updated(wf: &mut Workflow, cx: &StepContext, properties: &Object) {
    let Some(part) = object(properties, "part") else {
        return;
    };
    if !text_is(part, "type", "tool") || !text_is(part, "tool", "task") {
        return;
    }
    let (Some(parent), Some(call_id)) = (
        text(part, "sessionID").filter(|s| !s.is_empty()).cloned(),
        text(part, "callID").filter(|s| !s.is_empty()).cloned(),
    ) else {
        return;
    };
    let Some(at) = wf
        .tasks
        .launches
        .iter()
        .position(|b| b.session == parent && b.call_id == call_id)
    else {
        return;
    };
    let Some(state) = object(part, "state") else {
        return;
    };
    let is_error = text_is(state, "status", "error");
    let resumed = wf.tasks.resumed_children.clone();
    let binding = &mut wf.tasks.launches[at];
    let Some(metadata) = object(state, "metadata") else {
        if is_error {
            binding.eligible = false;
        }
        return;
    };
    if text(metadata, "parentSessionId") != Some(&parent) {
        binding.eligible = false;
        return;
    }
    let Some(child) = text(metadata, "sessionId")
        .filter(|c| !crate::text::is_blank(c.units()))
        .cloned()
    else {
        binding.eligible = false;
        return;
    };
    match &binding.child {
        None => binding.child = Some(child.clone()),
        Some(known) if *known != child => {
            binding.eligible = false;
            return;
        }
        Some(_) => {}
    }
    if metadata.get("background") == Some(&Json::Bool(true))
        || text(metadata, "jobId").is_some_and(|j| !j.is_empty())
        || metadata.get("interrupted") == Some(&Json::Bool(true))
        || resumed.contains(&child)
    {
        binding.eligible = false;
        return;
    }
    if binding.after_hook_entered || !binding.eligible || binding.settled || !is_error {
        return;
    }
    let Some(error) = text(state, "error") else {
        return;
    };
    let prefix = js!["Subagent failed (task_id: ", &child, "): "];
    if !error.units().starts_with(prefix.units()) {
        return;
    }
    let Some(failure_excerpt) = excerpt(error.units(), "normalized_output") else {
        return;
    };
    let work_item_id = binding.work_item_id.clone();
    if !wf.has_store(&parent) || wf.is_invalid(&parent) {
        return;
    }
    let now = iso(cx.now_ms);
    let mut staged = wf.store(&parent, &now).clone();
    if staged
        .apply_launch_failure(
            &parent,
            work_item_id.units(),
            call_id.units(),
            &failure_excerpt,
            &now,
        )
        .is_err()
    {
        wf.tasks.launches[at].settled = true;
        return;
    }
    if persistence::snapshot(
        &wf.host.data_dir,
        &parent,
        &staged,
        &now,
        cx.now_ms,
        wf.host.pid,
    )
    .is_err()
    {
        return;
    }
    if let Some(committed) = staged.record(&parent, work_item_id.units()).cloned() {
        wf.store(&parent, &now)
            .set_record(&parent, work_item_id.units(), committed);
        wf.tasks.launches[at].settled = true;
    }
}
