//! What the five workflow tools do with a valid call, and the host's `task` events that drive them (`execution-workflow.md`).
//!
//! A [`Workflow`] is one instance of upstream's workflow plugin inside one host process: a store
//! per session, hydrated lazily from the session's state file under the data directory, the
//! live bindings of delegated launches, and the host that answers the root-session lookup.
//! Everything that upstream reads from its surroundings is explicit input here: the session, the
//! agent and the workspace of each step ([`StepContext`]), the clock (`now_ms`), and the data
//! directory, plugin workspace, package root and process id ([`WorkflowHost`]).
//! [`Workflow::restart`] is a process restart.

mod delegated;
mod gates;
mod inspection;
mod js;
mod persistence;
mod protocol;
mod record;
mod results;
mod store;
mod tasks;

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::catalog::Tool;
use crate::issue::{Verdict, one_line};
use crate::js_string::JsString;
use crate::json::{Json, Object};

use persistence::Hydrated;
use record::{obj, string};
use store::{OpenInput, StoreData};

/// The host around the plugin: what stays the same for every step of a scenario.
#[derive(Clone, Debug)]
pub struct WorkflowHost {
    /// The host's data directory (`XDG_DATA_HOME`): state files live under `vvoc/workflow/`.
    pub data_dir: PathBuf,
    /// The plugin's trusted directory.
    pub directory: String,
    /// The plugin's trusted worktree, if the host gave one.
    pub worktree: Option<String>,
    /// The answer to the root-session lookup per session id; a session not listed is a root.
    pub sessions: BTreeMap<String, SessionLookup>,
    /// Where the plugin's package is installed (`work_item_list`'s `contract.referencePath`).
    pub package_root: String,
    /// The host process's id, part of the state file's temporary name.
    pub pid: u32,
}

impl WorkflowHost {
    /// A host over `data_dir` with the defaults of `formats.md`: workspace `/workspace/project`,
    /// every session a root, package at `/opt/vv-opencode`, process 4242.
    pub fn new(data_dir: PathBuf) -> WorkflowHost {
        WorkflowHost {
            data_dir,
            directory: "/workspace/project".to_owned(),
            worktree: Some("/workspace/project".to_owned()),
            sessions: BTreeMap::new(),
            package_root: "/opt/vv-opencode".to_owned(),
            pid: 4242,
        }
    }
}

/// What the host answers when the plugin asks for a session (`client.session.get`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionLookup {
    /// A root session: no parent.
    Root,
    /// A child session of the given parent.
    Child(String),
    /// The lookup raises with this message.
    Fails(String),
    /// The lookup answers without data.
    Missing,
}

/// Who makes one step, where, and when.
#[derive(Clone, Debug)]
pub struct StepContext {
    /// The session id (`context.sessionID`).
    pub session: String,
    /// The calling agent, if the host names one.
    pub agent: Option<String>,
    /// The step's directory, if given.
    pub directory: Option<String>,
    /// The step's worktree, if given.
    pub worktree: Option<String>,
    /// The clock for every reading during the step: milliseconds since 1970-01-01T00:00:00Z.
    pub now_ms: i64,
}

/// One plugin instance inside one host process.
#[derive(Debug)]
pub struct Workflow {
    host: WorkflowHost,
    /// `stores`: one per session, in the order sessions were first used.
    stores: Vec<(JsString, StoreData)>,
    /// `invalidHydrationSessions`, each with why its file did not validate.
    invalid: Vec<(JsString, Vec<String>)>,
    /// The live bindings of delegated implementer launches, and what the event hook observed.
    tasks: tasks::Bindings,
}

impl Workflow {
    /// A plugin that has seen nothing yet: every session hydrates from its file when first used.
    pub fn new(host: WorkflowHost) -> Workflow {
        Workflow {
            host,
            stores: Vec::new(),
            invalid: Vec::new(),
            tasks: tasks::Bindings::default(),
        }
    }

    /// The host this plugin runs in.
    pub fn host(&self) -> &WorkflowHost {
        &self.host
    }

    /// Calls `tool` with `input`: the returned text (`JSON.stringify(result, null, 2)`), or the
    /// raised message. An input the contract refuses raises its one-line form, as upstream's
    /// `tool.execute.before` hook does.
    pub fn call(
        &mut self,
        tool: Tool,
        input: &Json,
        cx: &StepContext,
    ) -> Result<JsString, JsString> {
        let parsed = match crate::validate_json(tool, input) {
            Verdict::Accept(parsed) => parsed,
            Verdict::Reject(issues) => return Err(one_line(&issues)),
        };
        let parsed = parsed.as_object().cloned().unwrap_or_default();
        let session = JsString::from(cx.session.as_str());
        let now = js::iso(cx.now_ms);
        let result = match tool {
            Tool::WorkItemOpen => {
                gates::tool_access(cx.agent.as_deref(), tool)?;
                self.hydrated(&session, &now)?;
                if parsed.contains("execution") || parsed.contains("runId") {
                    return Err(not_yet(
                        tool,
                        "generic execution registration (execution, runId)",
                    ));
                }
                let result = self.open(&session, &parsed, &now)?;
                let _ = self.snapshot_session(&session, &now, cx.now_ms);
                result
            }
            Tool::WorkItemList => {
                gates::tool_access(cx.agent.as_deref(), tool)?;
                self.hydrated(&session, &now)?;
                let include_closed = parsed.get("includeClosed") == Some(&Json::Bool(true));
                let root = self.host.package_root.clone();
                let store = self.store(&session, &now);
                inspection::list_view(store, &session, include_closed, &root)
            }
            Tool::WorkItemClose => {
                gates::tool_access(cx.agent.as_deref(), tool)?;
                self.hydrated(&session, &now)?;
                let result = self.close(&session, &parsed, &now);
                let _ = self.snapshot_session(&session, &now, cx.now_ms);
                result
            }
            Tool::WorkItemDecide => {
                self.hydrated(&session, &now)?;
                self.control_gate(tool, cx, &session)?;
                let decision = record::text(&parsed, "decision")
                    .map(JsString::to_string_lossy)
                    .unwrap_or_default();
                match decision.as_str() {
                    "recover" => return self.recover(&session, &parsed, cx),
                    "rework" => {
                        let result = self
                            .rework_unknown_run(&session, &parsed, &now)
                            .ok_or_else(|| not_yet(tool, "rework of a registered plan run"))?;
                        return Ok(js::stringify(&Json::Object(result)));
                    }
                    _ => {}
                }
                let result = self.decide(&session, &parsed, decision == "accept", &now);
                if result.get("ok") == Some(&Json::Bool(true))
                    && let Err(error) = self.snapshot_session(&session, &now, cx.now_ms)
                {
                    return Err(JsString::from(format!(
                        "PERSISTENCE_FAILED: decision applied in memory but could not be persisted: {error}"
                    )));
                }
                result
            }
            Tool::WorkCheckpoint => {
                self.hydrated(&session, &now)?;
                self.control_gate(tool, cx, &session)?;
                self.checkpoint_unknown_run(&session, &parsed, &now)
                    .ok_or_else(|| not_yet(tool, "actions on registered runs or plan packages"))?
            }
            other => {
                return Err(JsString::from(format!(
                    "{} is not a workflow tool; the workflow plugin runs work_item_open, work_item_list, work_item_close, work_item_decide and work_checkpoint",
                    other.id()
                )));
            }
        };
        Ok(js::stringify(&Json::Object(result)))
    }

    /// The host is about to run its `task` tool with `args` (`tool.execute.before`): `Err` is
    /// the hook refusing the launch with that message.
    pub fn task_launch(
        &mut self,
        cx: &StepContext,
        call_id: &str,
        args: &Json,
    ) -> Result<(), JsString> {
        tasks::launch(self, cx, call_id, args)
    }

    /// The host's `task` tool returned `output` (`tool.execute.after`, `output.output`) with
    /// `metadata`: `Err` is the hook raising that message.
    pub fn task_result(
        &mut self,
        cx: &StepContext,
        call_id: &str,
        args: &Json,
        output: &Json,
        metadata: Option<&Json>,
    ) -> Result<(), JsString> {
        tasks::result(self, cx, call_id, args, output, metadata)
    }

    /// A host event as the `event` hook receives it.
    pub fn event(&mut self, cx: &StepContext, event: &Json) -> Result<(), JsString> {
        tasks::event(self, cx, event);
        Ok(())
    }

    /// The host process restarts: everything held in memory is forgotten.
    pub fn restart(&mut self) {
        *self = Workflow::new(self.host.clone());
    }

    /// `getOrCreateStore`: the session's store, hydrated from its file the first time; a valid
    /// file's orphaned in-flight attempts are reverted, an invalid file marks the session. A file
    /// that makes upstream's loader raise (a wrongly typed member it reads without a check)
    /// raises here too, with the runtime's message, and leaves the session without a store, so
    /// the next use reads the file again.
    fn hydrated(&mut self, session: &JsString, now: &str) -> Result<(), JsString> {
        if self.has_store(session) {
            return Ok(());
        }
        let store = match persistence::hydrate(&self.host.data_dir, session) {
            Hydrated::Valid(mut store) => {
                store.revert_in_flight(session, now);
                store
            }
            Hydrated::Invalid(reasons) => {
                self.invalid.push((session.clone(), reasons));
                StoreData::default()
            }
            Hydrated::Missing => StoreData::default(),
            Hydrated::Raises(message) => return Err(message),
        };
        self.stores.push((session.clone(), store));
        Ok(())
    }

    /// The session's store, which [`Workflow::hydrated`] has made (callers call it first; were it
    /// not there, an empty store stands in).
    fn store(&mut self, session: &JsString, now: &str) -> &mut StoreData {
        let _ = self.hydrated(session, now);
        let at = match self.stores.iter().position(|(s, _)| s == session) {
            Some(at) => at,
            None => {
                self.stores.push((session.clone(), StoreData::default()));
                self.stores.len() - 1
            }
        };
        &mut self.stores[at].1
    }

    /// Why the session's state file did not validate, if it was found invalid when the session
    /// was first used (upstream collects these reasons and keeps them to itself).
    pub fn invalid_state_reasons(&self, session: &str) -> Option<&[String]> {
        self.invalid
            .iter()
            .find(|(s, _)| *s == session)
            .map(|(_, reasons)| reasons.as_slice())
    }

    /// Whether the session's state file was found invalid (`invalidHydrationSessions.has`).
    fn is_invalid(&self, session: &JsString) -> bool {
        self.invalid.iter().any(|(s, _)| s == session)
    }

    /// Whether the session's store is in memory already.
    fn has_store(&self, session: &JsString) -> bool {
        self.stores.iter().any(|(s, _)| s == session)
    }

    /// `snapshotSession`: writes the session's state file unless its file was invalid.
    fn snapshot_session(&self, session: &JsString, now: &str, now_ms: i64) -> Result<(), String> {
        let Some((_, store)) = self.stores.iter().find(|(s, _)| s == session) else {
            return Ok(());
        };
        if self.is_invalid(session) {
            return Err(format!(
                "persisted workflow state for session {} is invalid; refusing to overwrite it",
                session.to_string_lossy()
            ));
        }
        persistence::snapshot(
            &self.host.data_dir,
            session,
            store,
            now,
            now_ms,
            self.host.pid,
        )
    }

    /// `assertPrimaryControllerMutation`.
    fn control_gate(
        &self,
        tool: Tool,
        cx: &StepContext,
        session: &JsString,
    ) -> Result<(), JsString> {
        gates::control(&self.host, tool, cx, self.is_invalid(session))
    }

    /// `work_item_decide` `recover` (`index.ts`: the authority path through a staged
    /// transaction, the others through `executeCommittedRecovery`, which writes a recovery and
    /// rolls it back when the write fails).
    fn recover(
        &mut self,
        session: &JsString,
        parsed: &Object,
        cx: &StepContext,
    ) -> Result<JsString, JsString> {
        let now = js::iso(cx.now_ms);
        let trimmed = |name: &str| {
            record::text(parsed, name).map(|s| JsString::from_units(crate::text::trim(s.units())))
        };
        let id = trimmed("workItemId").unwrap_or_default();
        let base = |tool_failure: Vec<(&str, Json)>| {
            let mut out = obj(vec![
                ("tool", string("work_item_decide")),
                ("sessionId", Json::String(session.clone())),
                ("ok", Json::Bool(false)),
            ]);
            for (name, value) in tool_failure {
                out.insert(name, value);
            }
            results::finalize(out)
        };
        if parsed.contains("authorityId") {
            let authority = trimmed("authorityId").unwrap_or_default();
            if !authority.is_empty() {
                let run = trimmed("runId").unwrap_or_default();
                if run.is_empty() {
                    let out = base(vec![
                        ("errorCode", string("INVALID_INPUT")),
                        (
                            "message",
                            string("INVALID_INPUT: authorityId recovery requires the owning runId"),
                        ),
                    ]);
                    return Ok(js::stringify(&Json::Object(out)));
                }
                let store = self.store(session, &now);
                let known = store.executions.iter().any(|e| {
                    e.as_object()
                        .and_then(|e| record::text(e, "runId"))
                        .is_some_and(|r| *r == run)
                });
                if known {
                    return Err(not_yet(
                        Tool::WorkItemDecide,
                        "recover against a recorded advance authority",
                    ));
                }
                let out = base(vec![
                    ("errorCode", string("AUTHORITY_NOT_FOUND")),
                    (
                        "message",
                        Json::String(crate::js_text::js![
                            "AUTHORITY_NOT_FOUND: no recorded authority ",
                            &authority,
                            " for ",
                            &run
                        ]),
                    ),
                ]);
                return Ok(js::stringify(&Json::Object(out)));
            }
        }
        let strings = |name: &str| -> Vec<JsString> {
            record::array(parsed, name)
                .unwrap_or(&[])
                .iter()
                .filter_map(Json::as_string)
                .cloned()
                .collect()
        };
        let input = delegated::Recovery {
            attempt: record::number(parsed, "attempt").unwrap_or(f64::NAN),
            recovery_id: trimmed("recoveryId").unwrap_or_default(),
            diagnosis: record::text(parsed, "diagnosis")
                .cloned()
                .unwrap_or_default(),
            changed_condition: record::text(parsed, "changedCondition")
                .cloned()
                .unwrap_or_default(),
            verification: strings("verification"),
            user_message_id: record::text(parsed, "userMessageId").cloned(),
        };
        let store = self.store(session, &now);
        let prior = store.record(session, id.units()).cloned();
        match store.recover(session, id.units(), &input, &now) {
            Err(refusal) => {
                let out = failure(store, "work_item_decide", session, id.units(), refusal);
                Ok(js::stringify(&Json::Object(results::finalize(out))))
            }
            Ok(recovered) => {
                let next = inspection::guidance(&store::clone_record(&recovered.record))
                    .get("nextAction")
                    .cloned()
                    .unwrap_or(Json::Null);
                if let Err(error) = self.snapshot_session(session, &now, cx.now_ms) {
                    if let Some(prior) = prior {
                        self.store(session, &now)
                            .set_record(session, id.units(), prior);
                    }
                    return Err(JsString::from(format!(
                        "PERSISTENCE_FAILED: recovery applied in memory but could not be persisted and was rolled back: {error}"
                    )));
                }
                let out = obj(vec![
                    ("tool", string("work_item_decide")),
                    ("sessionId", Json::String(session.clone())),
                    ("ok", Json::Bool(true)),
                    ("action", string("recover")),
                    ("workItemId", Json::String(id.clone())),
                    ("recoveryId", Json::String(input.recovery_id.clone())),
                    ("kind", string(recovered.kind)),
                    ("attemptBudget", Json::Number(recovered.budget as f64)),
                    (
                        "remainingAttempts",
                        Json::Number(recovered.remaining as f64),
                    ),
                    (
                        "state",
                        recovered.record.get("state").cloned().unwrap_or(Json::Null),
                    ),
                    ("nextAction", next),
                ]);
                Ok(js::stringify(&Json::Object(out)))
            }
        }
    }

    /// `work_item_decide` `rework` naming a plan run the session does not have
    /// (`checkpoints.ts` `authorizeReworkFromFailedCheckpointInStore`): `RUN_NOT_FOUND`, with the
    /// item's live context. `None` for a run the store has (tier 2).
    fn rework_unknown_run(
        &mut self,
        session: &JsString,
        parsed: &Object,
        now: &str,
    ) -> Option<Object> {
        let trimmed =
            |name: &str| record::text(parsed, name).map(|s| crate::text::trim(s.units()).to_vec());
        let id = trimmed("workItemId").unwrap_or_default();
        let run = trimmed("runId").unwrap_or_default();
        let store = self.store(session, now);
        let known = store.plan_runs.iter().any(|r| {
            r.as_object()
                .and_then(|r| record::text(r, "runId"))
                .is_some_and(|r| r.units() == &run[..])
        });
        if known {
            return None;
        }
        let refusal = store::Refusal {
            code: "RUN_NOT_FOUND",
            message: crate::js_text::js!["RUN_NOT_FOUND: ", &run[..]],
        };
        Some(results::finalize(failure(
            store,
            "work_item_decide",
            session,
            &id,
            refusal,
        )))
    }

    /// `work_checkpoint` on a run the session does not have (no plan run, no execution): the
    /// lookup failure each action reports (`tooling.ts` `createWorkCheckpointTool`,
    /// `executeGenericCheckpoint`; `checkpoints.ts` `startDelegatedCheckpointInStore`,
    /// `verifyDelegatedCheckpointInStore`). `None` for what needs a run or a plan package.
    fn checkpoint_unknown_run(
        &mut self,
        session: &JsString,
        parsed: &Object,
        now: &str,
    ) -> Option<Object> {
        let action = record::text(parsed, "action")?.to_string_lossy();
        let run_id = record::text(parsed, "runId").map(|r| crate::text::trim(r.units()).to_vec());
        let store = self.store(session, now);
        let known = |id: &[u16]| {
            store.plan_runs.iter().chain(&store.executions).any(|run| {
                run.as_object()
                    .and_then(|r| record::text(r, "runId"))
                    .is_some_and(|r| r.units() == id)
            })
        };
        if action == "register" && parsed.contains("planPath") {
            return None;
        }
        let run_id = run_id.filter(|r| !r.is_empty())?;
        if known(&run_id) {
            return None;
        }
        let run = Json::String(JsString::from_units(run_id.clone()));
        let failure = |code: &str, message: JsString, with_run: bool| {
            let mut out = obj(vec![
                ("tool", string("work_checkpoint")),
                ("sessionId", Json::String(session.clone())),
            ]);
            if with_run {
                out.insert("runId", run.clone());
            }
            out.insert("ok", Json::Bool(false));
            out.insert("errorCode", string(code));
            out.insert("message", Json::String(message));
            results::finalize(out)
        };
        match action.as_str() {
            "register" | "amend" | "review" | "bind" | "complete" | "authorize"
            | "record_approval" | "revoke_authority" => Some(failure(
                "EXECUTION_NOT_FOUND",
                crate::js_text::js!["no execution ", &run_id[..]],
                true,
            )),
            "start" | "verify" => Some(failure(
                "RUN_NOT_FOUND",
                crate::js_text::js!["RUN_NOT_FOUND: ", &run_id[..]],
                false,
            )),
            _ => None,
        }
    }

    /// `work_item_open` for standalone items: one result per item, in order.
    fn open(&mut self, session: &JsString, parsed: &Object, now: &str) -> Result<Object, JsString> {
        let items: Vec<Json> = record::array(parsed, "items").unwrap_or(&[]).to_vec();
        let mut results = Vec::new();
        for item in &items {
            let item = item.as_object().cloned().unwrap_or_default();
            results.push(Json::Object(self.open_item(session, &item, now)?));
        }
        Ok(results::finalize(obj(vec![
            ("tool", string("work_item_open")),
            ("sessionId", Json::String(session.clone())),
            ("items", Json::Array(results)),
        ])))
    }

    /// `normalizeOpenInputItem`, then the store's open.
    fn open_item(
        &mut self,
        session: &JsString,
        item: &Object,
        now: &str,
    ) -> Result<Object, JsString> {
        let trimmed = |name: &str| {
            record::text(item, name)
                .map(|s| JsString::from_units(crate::text::trim(s.units())))
                .unwrap_or_default()
        };
        let (key, title) = (trimmed("key"), trimmed("title"));
        if key.is_empty() || title.is_empty() {
            return Ok(obj(vec![
                ("ok", Json::Bool(false)),
                ("errorCode", string("INVALID_INPUT")),
                (
                    "message",
                    string("INVALID_INPUT: key and title must be non-empty strings"),
                ),
            ]));
        }
        let mode = record::text(item, "mode").cloned().unwrap_or_default();
        let delegated = mode == "delegated";
        let non_empty = |name: &str| record::text(item, name).filter(|s| !s.is_empty()).cloned();
        let (run, task) = (non_empty("planRunId"), non_empty("planTaskId"));
        let bound = run.is_some() && task.is_some();
        let mut reviewers: Vec<Json> = if delegated {
            Vec::new()
        } else {
            record::array(item, "requiredReviewers")
                .unwrap_or(&[])
                .to_vec()
        };
        reviewers.sort_by_key(|r| r.as_string().is_none_or(|s| *s != "spec"));
        let input = OpenInput {
            session: session.clone(),
            key,
            title,
            mode,
            reviewers,
            write_scope: delegated
                .then(|| record::array(item, "writeScope").unwrap_or(&[]).to_vec()),
            plan_run_id: if delegated && bound { run } else { None },
            plan_task_id: if delegated && bound { task } else { None },
        };
        let store = self.store(session, now);
        Ok(match store.open(input, now)? {
            Ok(opened) => {
                let mut out = obj(vec![
                    ("ok", Json::Bool(true)),
                    ("reused", Json::Bool(opened.reused)),
                ]);
                for (name, value) in inspection::work_item_view(&opened.record).iter() {
                    out.insert(&name.to_string_lossy(), value.clone());
                }
                out
            }
            Err(refusal) => {
                let mut out = obj(vec![
                    ("ok", Json::Bool(false)),
                    ("errorCode", string(refusal.refusal.code)),
                    ("message", Json::String(refusal.refusal.message)),
                ]);
                if let Some(existing) = refusal.existing {
                    out.insert("existingWorkItemId", Json::String(existing));
                }
                out
            }
        })
    }

    /// `work_item_close`.
    fn close(&mut self, session: &JsString, parsed: &Object, now: &str) -> Object {
        let id = record::text(parsed, "workItemId")
            .map(|s| crate::text::trim(s.units()).to_vec())
            .unwrap_or_default();
        let store = self.store(session, now);
        let result = match store.close(session, &id, now) {
            Ok(closed) => obj(vec![
                ("tool", string("work_item_close")),
                ("sessionId", Json::String(session.clone())),
                ("ok", Json::Bool(true)),
                (
                    "workItemId",
                    closed.get("workItemId").cloned().unwrap_or(Json::Null),
                ),
                (
                    "header",
                    Json::String(crate::js_text::js!["VVOC_WORK_ITEM_ID: ", &id[..]]),
                ),
                ("state", closed.get("state").cloned().unwrap_or(Json::Null)),
                (
                    "closedAt",
                    closed.get("closedAt").cloned().unwrap_or(Json::Null),
                ),
            ]),
            Err(refusal) => failure(store, "work_item_close", session, &id, refusal),
        };
        results::finalize(result)
    }

    /// `work_item_decide` `accept` and `request_changes`.
    fn decide(&mut self, session: &JsString, parsed: &Object, accept: bool, now: &str) -> Object {
        let id = record::text(parsed, "workItemId")
            .map(|s| crate::text::trim(s.units()).to_vec())
            .unwrap_or_default();
        let strings = |name: &str| -> Vec<JsString> {
            record::array(parsed, name)
                .unwrap_or(&[])
                .iter()
                .filter_map(Json::as_string)
                .cloned()
                .collect()
        };
        let attempt = record::number(parsed, "attempt").unwrap_or(f64::NAN);
        let decision = delegated::Decision {
            attempt,
            accept,
            rationale: record::text(parsed, "rationale")
                .cloned()
                .unwrap_or_default(),
            evidence: strings("evidence"),
            concerns: record::text(parsed, "concernsDisposition").cloned(),
        };
        let store = self.store(session, now);
        let result = match store.decide(session, &id, &decision, now) {
            Ok((decision_id, record)) => obj(vec![
                ("tool", string("work_item_decide")),
                ("sessionId", Json::String(session.clone())),
                ("ok", Json::Bool(true)),
                (
                    "action",
                    string(if accept { "accept" } else { "request_changes" }),
                ),
                ("workItemId", Json::String(JsString::from_units(id.clone()))),
                ("attempt", Json::Number(attempt)),
                ("decisionId", Json::String(decision_id)),
                ("state", record.get("state").cloned().unwrap_or(Json::Null)),
            ]),
            Err(refusal) => failure(store, "work_item_decide", session, &id, refusal),
        };
        results::finalize(result)
    }
}

/// A handler's failure about an owned item: the code and message, then the item's live context.
fn failure(
    store: &StoreData,
    tool: &str,
    session: &JsString,
    id: &[u16],
    refusal: store::Refusal,
) -> Object {
    let mut out = obj(vec![
        ("tool", string(tool)),
        ("sessionId", Json::String(session.clone())),
        ("ok", Json::Bool(false)),
        ("errorCode", string(refusal.code)),
        ("message", Json::String(refusal.message)),
    ]);
    for (name, value) in inspection::failure_context(store, session, id, refusal.code) {
        out.insert(name, value);
    }
    out
}

/// The text a call raises for what the reference does not execute yet (tier 2 of
/// `execution-workflow.md`, §9).
fn not_yet(tool: Tool, what: &str) -> JsString {
    JsString::from(format!(
        "the reference does not execute {} {what} yet (execution-workflow.md, what the reference leaves out)",
        tool.id()
    ))
}
