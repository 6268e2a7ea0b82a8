//! One session's store and the work-item transitions of upstream's `state.ts`: open, close, tracked launches and results, review rounds.

use super::js::{is, number_text};
use super::protocol::{Agent, ResultBlock, reviewer_agent};
use super::record::{
    array, count, includes, js, number, obj, object, object_mut, string, text, text_is, truthy,
};
use crate::js_string::JsString;
use crate::js_text::js;
use crate::json::{Json, Object};
use crate::to_number::to_number;

/// `MAX_REVIEW_ROUNDS`.
pub(crate) const MAX_REVIEW_ROUNDS: f64 = 2.0;

/// `WorkItemStoreData`: what one session's store holds, and what its file persists.
#[derive(Clone, Debug)]
pub(crate) struct StoreData {
    /// The next work item's number (a number, as the file gave it).
    pub(crate) next_id: Json,
    /// `sessionId::workItemId` → record, in insertion order (a JavaScript `Map`).
    pub(crate) records: Vec<(JsString, Object)>,
    /// Session → key → work item id, in insertion order.
    pub(crate) key_index: Vec<(JsString, Vec<(JsString, Json)>)>,
    /// Registered plan runs, as the file gave them.
    pub(crate) plan_runs: Vec<Json>,
    /// The common execution registry, as the file gave it.
    pub(crate) executions: Vec<Json>,
    /// Root-message claims, as the file gave them.
    pub(crate) message_claims: Vec<Json>,
}

impl Default for StoreData {
    fn default() -> Self {
        StoreData {
            next_id: Json::Number(1.0),
            records: Vec::new(),
            key_index: Vec::new(),
            plan_runs: Vec::new(),
            executions: Vec::new(),
            message_claims: Vec::new(),
        }
    }
}

/// What `work_item_open` asks of the store for one item (`OpenWorkItemInput`).
#[derive(Clone, Debug)]
pub(crate) struct OpenInput {
    pub(crate) session: JsString,
    pub(crate) key: JsString,
    pub(crate) title: JsString,
    pub(crate) mode: JsString,
    pub(crate) reviewers: Vec<Json>,
    pub(crate) write_scope: Option<Vec<Json>>,
    pub(crate) plan_run_id: Option<JsString>,
    pub(crate) plan_task_id: Option<JsString>,
}

/// A refusal of a store operation: its code and message.
#[derive(Clone, Debug)]
pub(crate) struct Refusal {
    pub(crate) code: &'static str,
    pub(crate) message: JsString,
}

/// A successful open: whether it reused an item, and the record.
#[derive(Clone, Debug)]
pub(crate) struct Opened {
    pub(crate) reused: bool,
    pub(crate) record: Object,
}

/// A failed open, with the conflicting item's id for a key conflict.
#[derive(Clone, Debug)]
pub(crate) struct OpenRefusal {
    pub(crate) refusal: Refusal,
    pub(crate) existing: Option<JsString>,
}

/// A refused tracked launch (`BeginTrackedLaunchResult` failure).
#[derive(Clone, Debug)]
pub(crate) struct LaunchRefusal {
    pub(crate) refusal: Refusal,
    pub(crate) allowed: Vec<&'static str>,
}

impl StoreData {
    /// `createRecordLookupKey`.
    pub(crate) fn lookup_key(session: &JsString, id: &[u16]) -> JsString {
        js![session, "::", id]
    }

    /// The live record of a session's work item.
    pub(crate) fn record(&self, session: &JsString, id: &[u16]) -> Option<&Object> {
        let key = Self::lookup_key(session, id);
        self.records.iter().find(|(k, _)| *k == key).map(|(_, r)| r)
    }

    /// `getWorkItem`: a copy of the record as `cloneRecord` makes it.
    pub(crate) fn work_item(&self, session: &JsString, id: &[u16]) -> Option<Object> {
        self.record(session, id).map(clone_record)
    }

    /// `records.set(key, record)`: replaces in place, or appends.
    pub(crate) fn set_record(&mut self, session: &JsString, id: &[u16], record: Object) {
        let key = Self::lookup_key(session, id);
        match self.records.iter_mut().find(|(k, _)| *k == key) {
            Some((_, r)) => *r = record,
            None => self.records.push((key, record)),
        }
    }

    /// `openWorkItemInStore`.
    ///
    /// The outer `Err` is the engine raising: a `keyIndex` entry hydrated from a file that is an
    /// object with a `toString` member has no text for the record's lookup key
    /// (`createRecordLookupKey`'s template), and the whole call raises `No default value`.
    pub(crate) fn open(
        &mut self,
        input: OpenInput,
        now: &str,
    ) -> Result<Result<Opened, OpenRefusal>, JsString> {
        self.open_item(input, now)
    }

    fn open_item(
        &mut self,
        input: OpenInput,
        now: &str,
    ) -> Result<Result<Opened, OpenRefusal>, JsString> {
        let refuse = |message: &str| OpenRefusal {
            refusal: Refusal {
                code: "INVALID_INPUT",
                message: JsString::from(message),
            },
            existing: None,
        };
        let mode = input.mode.to_string_lossy();
        if !["implementation", "review_only", "delegated"].contains(&mode.as_str()) {
            return Ok(Err(refuse(
                "INVALID_INPUT: mode must be one of implementation, review_only, delegated",
            )));
        }
        let delegated = mode == "delegated";
        let mut delegated_state = None;
        if delegated {
            if !input.reviewers.is_empty() {
                return Ok(Err(refuse(
                    "INVALID_INPUT: delegated mode requires an explicitly empty requiredReviewers array",
                )));
            }
            let run = input.plan_run_id.as_ref();
            let task = input.plan_task_id.as_ref();
            let blank = |v: Option<&JsString>| v.is_some_and(|s| crate::text::is_blank(s.units()));
            if run.is_none_or(|r| r.is_empty()) != task.is_none_or(|t| t.is_empty())
                || blank(run)
                || blank(task)
            {
                return Ok(Err(refuse(
                    "INVALID_INPUT: planRunId and planTaskId must be provided together and non-empty",
                )));
            }
            let scope = input.write_scope.clone().unwrap_or_default();
            if scope.is_empty() {
                return Ok(Err(refuse(
                    "INVALID_INPUT: delegated mode requires a non-empty declared writeScope of workspace-relative files",
                )));
            }
            let mut normalized: Vec<JsString> = Vec::new();
            for declared in &scope {
                let Some(declared) = declared.as_string() else {
                    return Ok(Err(refuse(
                        "INVALID_INPUT: delegated writeScope entries must be strings",
                    )));
                };
                match normalize_scope_path(declared.units()) {
                    Ok(path) => {
                        if normalized.contains(&path) {
                            let mut m = JsString::from("INVALID_INPUT: delegated writeScope path ");
                            m.push_units(crate::text::json_quote(path.units()).units());
                            m.push_str(" is declared more than once");
                            return Ok(Err(OpenRefusal {
                                refusal: Refusal {
                                    code: "INVALID_INPUT",
                                    message: m,
                                },
                                existing: None,
                            }));
                        }
                        normalized.push(path);
                    }
                    Err(reason) => {
                        let mut m = JsString::from("INVALID_INPUT: delegated writeScope path ");
                        m.push_units(crate::text::json_quote(declared.units()).units());
                        m.push_str(" is malformed (");
                        m.push_str(reason);
                        m.push(')');
                        return Ok(Err(OpenRefusal {
                            refusal: Refusal {
                                code: "INVALID_INPUT",
                                message: m,
                            },
                            existing: None,
                        }));
                    }
                }
            }
            let mut state = obj(vec![(
                "writeScope",
                Json::Array(normalized.iter().map(js).collect()),
            )]);
            if let (Some(run), Some(task)) = (run, task)
                && !run.is_empty()
                && !task.is_empty()
            {
                state.insert("planRunId", js(run));
                state.insert("planTaskId", js(task));
            }
            for name in [
                "attempts",
                "decisions",
                "acceptances",
                "reworkHistory",
                "recoveryHistory",
            ] {
                state.insert(name, Json::Array(Vec::new()));
            }
            delegated_state = Some(state);
        }
        let reviewers: Vec<Json> = if delegated {
            Vec::new()
        } else {
            match canonical_reviewers(&input.reviewers) {
                Some(r) => r,
                None => {
                    return Ok(Err(refuse(
                        "INVALID_INPUT: requiredReviewers must be a non-empty canonical set of spec/code reviewers",
                    )));
                }
            }
        };

        let session_at = match self.key_index.iter().position(|(s, _)| *s == input.session) {
            Some(at) => at,
            None => {
                self.key_index.push((input.session.clone(), Vec::new()));
                self.key_index.len() - 1
            }
        };
        let existing_id = self.key_index[session_at]
            .1
            .iter()
            .find(|(k, _)| *k == input.key)
            .map(|(_, id)| id.clone());
        if truthy(existing_id.as_ref()) {
            let existing_id = super::persistence::engine_string(existing_id.as_ref())?;
            match self.record(&input.session, existing_id.units()).cloned() {
                None => self.key_index[session_at]
                    .1
                    .retain(|(k, _)| *k != input.key),
                Some(existing) => {
                    let scope_of = |o: Option<&Object>| {
                        o.and_then(|d| d.get("writeScope"))
                            .map_or_else(|| "[]".to_owned(), Json::to_compact)
                    };
                    let existing_delegated = object(&existing, "delegated");
                    let same = text(&existing, "title") == Some(&input.title)
                        && text(&existing, "mode") == Some(&input.mode)
                        && same_reviewers(array(&existing, "requiredReviewers"), &reviewers)
                        && (!delegated
                            || (existing_delegated.and_then(|d| d.get("planRunId"))
                                == delegated_state.as_ref().and_then(|d| d.get("planRunId"))
                                && existing_delegated.and_then(|d| d.get("planTaskId"))
                                    == delegated_state.as_ref().and_then(|d| d.get("planTaskId"))
                                && scope_of(existing_delegated)
                                    == scope_of(delegated_state.as_ref())));
                    if !same {
                        return Ok(Err(OpenRefusal {
                            refusal: Refusal {
                                code: "WORK_ITEM_KEY_CONFLICT",
                                message: js![
                                    "WORK_ITEM_KEY_CONFLICT: key ",
                                    &input.key,
                                    " is already associated with different workflow intent"
                                ],
                            },
                            existing: Some(
                                text(&existing, "workItemId").cloned().unwrap_or_default(),
                            ),
                        }));
                    }
                    return Ok(Ok(Opened {
                        reused: true,
                        record: clone_record(&existing),
                    }));
                }
            }
        }

        let id = js!["wi-", number_text(next_id_value(&self.next_id)).as_str()];
        self.next_id = Json::Number(next_id_value(&self.next_id) + 1.0);
        let mut record = obj(vec![
            ("sessionId", js(&input.session)),
            ("workItemId", js(&id)),
            ("key", js(&input.key)),
            ("title", js(&input.title)),
            ("mode", js(&input.mode)),
            ("requiredReviewers", Json::Array(reviewers.clone())),
            (
                "state",
                string(if mode == "review_only" {
                    "awaiting_reviews"
                } else {
                    "open"
                }),
            ),
        ]);
        if mode == "review_only" {
            record.insert(
                "currentRound",
                Json::Object(review_round(&reviewers, 1.0, now)),
            );
        }
        if let Some(state) = delegated_state {
            record.insert("delegated", Json::Object(state));
        }
        record.insert("completedReviewRoundCount", count(0));
        record.insert("specReviewCount", count(0));
        record.insert("codeReviewCount", count(0));
        record.insert("createdAt", string(now));
        record.insert("updatedAt", string(now));
        self.key_index[session_at]
            .1
            .push((input.key.clone(), js(&id)));
        self.set_record(&input.session, id.units(), record.clone());
        Ok(Ok(Opened {
            reused: false,
            record: clone_record(&record),
        }))
    }

    /// `listWorkItemsInStore`: the session's items by number, closed ones only on request.
    pub(crate) fn list(&self, session: &JsString, include_closed: bool) -> Vec<Object> {
        let mut items: Vec<&Object> = self
            .records
            .iter()
            .map(|(_, r)| r)
            .filter(|r| {
                text(r, "sessionId") == Some(session)
                    && (include_closed || !text_is(r, "state", "closed"))
            })
            .collect();
        // A stable sort by the number after `wi-`; upstream compares with `-`, so an id whose
        // number is not a number (a hand-written file) sorts as JavaScript's sort would not
        // promise anything about: the reference keeps it where it was among its equals.
        items.sort_by(|a, b| {
            let (x, y) = (id_number(a), id_number(b));
            x.partial_cmp(&y).unwrap_or(std::cmp::Ordering::Equal)
        });
        items.into_iter().map(clone_record).collect()
    }

    /// `closeWorkItemInStore`.
    pub(crate) fn close(
        &mut self,
        session: &JsString,
        id: &[u16],
        now: &str,
    ) -> Result<Object, Refusal> {
        let Some(existing) = self.record(session, id).cloned() else {
            return Err(Refusal {
                code: "WORK_ITEM_NOT_FOUND",
                message: js![
                    "WORK_ITEM_NOT_FOUND: no work item ",
                    id,
                    " for session ",
                    session
                ],
            });
        };
        if text_is(&existing, "state", "closed") {
            return Err(Refusal {
                code: "WORK_ITEM_ALREADY_CLOSED",
                message: js!["WORK_ITEM_ALREADY_CLOSED: ", id, " is already closed"],
            });
        }
        if !text_is(&existing, "state", "ready_to_close") {
            return Err(Refusal {
                code: "READY_TO_CLOSE_REQUIRED",
                message: js![
                    "READY_TO_CLOSE_REQUIRED: ",
                    id,
                    " is ",
                    &state_text(&existing),
                    " and cannot be closed"
                ],
            });
        }
        let mut updated = existing;
        updated.insert("state", string("closed"));
        updated.insert("closedAt", string(now));
        updated.insert("updatedAt", string(now));
        self.set_record(session, id, updated.clone());
        Ok(clone_record(&updated))
    }

    /// `beginTrackedLaunchInStore`.
    pub(crate) fn begin_tracked_launch(
        &mut self,
        session: &JsString,
        id: &[u16],
        agent: Agent,
        now: &str,
    ) -> Result<(), LaunchRefusal> {
        let Some(existing) = self.record(session, id).cloned() else {
            return Err(launch_refusal(
                None,
                "WORK_ITEM_NOT_FOUND",
                js!["WORK_ITEM_NOT_FOUND: ", id],
            ));
        };
        if text_is(&existing, "state", "closed") {
            return Err(launch_refusal(
                Some(&existing),
                "WORK_ITEM_ALREADY_CLOSED",
                js!["WORK_ITEM_ALREADY_CLOSED: ", id, " is already closed"],
            ));
        }
        let Some(role) = agent.role() else {
            if !allowed_next_agents(&existing).contains(&agent.name()) {
                return Err(launch_refusal(
                    Some(&existing),
                    "INVALID_NEXT_AGENT",
                    js![
                        "INVALID_NEXT_AGENT: ",
                        agent.name(),
                        " is not allowed for ",
                        &state_text(&existing)
                    ],
                ));
            }
            return Ok(());
        };
        let round = object(&existing, "currentRound");
        let Some(round) = round.filter(|r| {
            text_is(&existing, "state", "awaiting_reviews") && text_is(r, "status", "active")
        }) else {
            return Err(launch_refusal(
                Some(&existing),
                "REVIEW_ROUND_NOT_ACTIVE",
                js![
                    "REVIEW_ROUND_NOT_ACTIVE: ",
                    id,
                    " has no active review round"
                ],
            ));
        };
        let list = |name: &str| array(round, name).unwrap_or(&[]);
        if !includes(list("requiredReviewers"), role) {
            return Err(launch_refusal(
                Some(&existing),
                "REVIEWER_NOT_REQUIRED",
                js!["REVIEWER_NOT_REQUIRED: ", role, " is not required for ", id],
            ));
        }
        if has_needs_context(round) {
            return Err(launch_refusal(
                Some(&existing),
                "REVIEW_ROUND_NEEDS_CONTEXT",
                js![
                    "REVIEW_ROUND_NEEDS_CONTEXT: ",
                    id,
                    " is waiting for in-flight reviewers after NEEDS_CONTEXT"
                ],
            ));
        }
        if includes(list("inFlightReviewers"), role) {
            return Err(launch_refusal(
                Some(&existing),
                "REVIEWER_ALREADY_IN_FLIGHT",
                js![
                    "REVIEWER_ALREADY_IN_FLIGHT: ",
                    role,
                    " is already in flight for ",
                    id
                ],
            ));
        }
        if includes(list("completedReviewers"), role) {
            return Err(launch_refusal(
                Some(&existing),
                "REVIEWER_ALREADY_COMPLETED",
                js![
                    "REVIEWER_ALREADY_COMPLETED: ",
                    role,
                    " already completed for ",
                    id
                ],
            ));
        }
        if !includes(list("pendingReviewers"), role) {
            return Err(launch_refusal(
                Some(&existing),
                "INVALID_NEXT_AGENT",
                js!["INVALID_NEXT_AGENT: ", role, " is not pending for ", id],
            ));
        }
        let mut updated = existing.clone();
        if let Some(round) = object_mut(&mut updated, "currentRound") {
            let pending = without(array(round, "pendingReviewers").unwrap_or(&[]), role);
            let mut in_flight = array(round, "inFlightReviewers").unwrap_or(&[]).to_vec();
            in_flight.push(string(role));
            round.insert("pendingReviewers", Json::Array(pending));
            round.insert("inFlightReviewers", Json::Array(in_flight));
        }
        updated.insert("updatedAt", string(now));
        self.set_record(session, id, updated);
        Ok(())
    }

    /// `revertReviewerLaunchInStore`: an in-flight reviewer back to pending, spec first.
    pub(crate) fn revert_reviewer_launch(
        &mut self,
        session: &JsString,
        id: &[u16],
        agent: Agent,
        now: &str,
    ) -> bool {
        let Some(mut updated) = self.record(session, id).cloned() else {
            return false;
        };
        let Some(role) = agent.role() else {
            return false;
        };
        let Some(round) = object_mut(&mut updated, "currentRound") else {
            return false;
        };
        if !text_is(round, "status", "active")
            || !includes(array(round, "inFlightReviewers").unwrap_or(&[]), role)
        {
            return false;
        }
        let in_flight = without(array(round, "inFlightReviewers").unwrap_or(&[]), role);
        let mut pending = array(round, "pendingReviewers").unwrap_or(&[]).to_vec();
        pending.push(string(role));
        pending.sort_by_key(|r| !r.as_string().is_some_and(|s| is(s.units(), "spec")));
        round.insert("inFlightReviewers", Json::Array(in_flight));
        round.insert("pendingReviewers", Json::Array(pending));
        updated.insert("updatedAt", string(now));
        self.set_record(session, id, updated);
        true
    }

    /// `applyTrackedResultInStore`: an implementer's or a reviewer's parsed result.
    pub(crate) fn apply_tracked_result(
        &mut self,
        session: &JsString,
        id: &[u16],
        result: &ResultBlock,
        result_excerpt: Option<&Object>,
        now: &str,
    ) -> Result<Object, Refusal> {
        let Some(existing) = self.record(session, id).cloned() else {
            return Err(Refusal {
                code: "WORK_ITEM_NOT_FOUND",
                message: js![
                    "WORK_ITEM_NOT_FOUND: no work item ",
                    id,
                    " for session ",
                    session
                ],
            });
        };
        if text_is(&existing, "state", "closed") {
            return Err(Refusal {
                code: "WORK_ITEM_ALREADY_CLOSED",
                message: js!["WORK_ITEM_ALREADY_CLOSED: ", id, " is already closed"],
            });
        }
        let updated = match result.agent.role() {
            None => {
                if !text_is(&existing, "mode", "implementation")
                    || !(text_is(&existing, "state", "open")
                        || text_is(&existing, "state", "awaiting_implementer"))
                {
                    return Err(Refusal {
                        code: "INVALID_RESULT_AGENT",
                        message: js![
                            "INVALID_RESULT_AGENT: ",
                            result.agent.name(),
                            " cannot produce a result for ",
                            &state_text(&existing)
                        ],
                    });
                }
                implementer_result(existing, result.status, result_excerpt, now)
            }
            Some(role) => reviewer_result(existing, role, result, result_excerpt, now)?,
        };
        self.set_record(session, id, updated.clone());
        Ok(clone_record(&updated))
    }
}

/// `getReviewRound`: the current round's number, else the completed rounds.
pub(crate) fn review_round_number(record: &Object) -> Json {
    match object(record, "currentRound") {
        Some(round) => round.get("round").cloned().unwrap_or(Json::Null),
        None => record
            .get("completedReviewRoundCount")
            .cloned()
            .unwrap_or(Json::Null),
    }
}

/// `getAllowedNextAgents`.
pub(crate) fn allowed_next_agents(record: &Object) -> Vec<&'static str> {
    let working = text_is(record, "mode", "implementation") || text_is(record, "mode", "delegated");
    if working
        && (text_is(record, "state", "open") || text_is(record, "state", "awaiting_implementer"))
    {
        return vec!["vv-implementer"];
    }
    let Some(round) = object(record, "currentRound") else {
        return Vec::new();
    };
    if !text_is(record, "state", "awaiting_reviews") || !text_is(round, "status", "active") {
        return Vec::new();
    }
    if has_needs_context(round) {
        return Vec::new();
    }
    array(round, "pendingReviewers")
        .unwrap_or(&[])
        .iter()
        .map(|r| reviewer_agent(r.as_string().map_or(&[], |s| s.units())))
        .collect()
}

/// `getAttemptedImplementationRound`: the round an implementer launch would start.
pub(crate) fn attempted_implementation_round(record: &Object) -> f64 {
    number(record, "completedReviewRoundCount").unwrap_or(f64::NAN) + 1.0
}

/// `hasNeedsContextResult`.
pub(crate) fn has_needs_context(round: &Object) -> bool {
    object(round, "results").is_some_and(|results| {
        results.iter().any(|(_, r)| {
            r.as_object()
                .is_some_and(|r| text_is(r, "status", "NEEDS_CONTEXT"))
        })
    })
}

/// The record's state as text (`${record.state}`).
pub(crate) fn state_text(record: &Object) -> JsString {
    record
        .get("state")
        .map(js_string)
        .unwrap_or_else(|| JsString::from("undefined"))
}

/// `String(value)`.
pub(crate) fn js_string(value: &Json) -> JsString {
    match value {
        Json::String(s) => s.clone(),
        Json::Number(n) => JsString::from(number_text(*n)),
        Json::Bool(b) => JsString::from(if *b { "true" } else { "false" }),
        Json::Null => JsString::from("null"),
        Json::Object(_) => JsString::from("[object Object]"),
        Json::Array(items) => {
            let mut out = JsString::new();
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                match item {
                    Json::Null => {}
                    Json::Array(_) => out.push_str(&to_text(item)),
                    other => out.push_units(js_string(other).units()),
                }
            }
            out
        }
    }
}

/// `cloneRecord`: the record as upstream copies it; a copy's round results are rebuilt `spec`
/// then `code`, dropping any other member.
pub(crate) fn clone_record(record: &Object) -> Object {
    let mut copy = record.clone();
    if truthy(record.get("currentRound"))
        && let Some(round) = object_mut(&mut copy, "currentRound")
    {
        let results = object(round, "results");
        let mut rebuilt = Object::new();
        for role in ["spec", "code"] {
            if let Some(r) = results
                .and_then(|o| o.get(role))
                .filter(|r| truthy(Some(r)))
            {
                rebuilt.insert(role, r.clone());
            }
        }
        round.insert("results", Json::Object(rebuilt));
    }
    copy
}

/// `createReviewRound`.
pub(crate) fn review_round(reviewers: &[Json], round: f64, now: &str) -> Object {
    obj(vec![
        ("round", Json::Number(round)),
        ("requiredReviewers", Json::Array(reviewers.to_vec())),
        ("pendingReviewers", Json::Array(reviewers.to_vec())),
        ("inFlightReviewers", Json::Array(Vec::new())),
        ("completedReviewers", Json::Array(Vec::new())),
        ("results", Json::Object(Object::new())),
        ("status", string("active")),
        ("createdAt", string(now)),
    ])
}

/// `normalizeDeclaredScopePath`: the trimmed path, or why it is malformed.
pub(crate) fn normalize_scope_path(raw: &[u16]) -> Result<JsString, &'static str> {
    let trimmed = crate::text::trim(raw);
    if trimmed.is_empty() {
        return Err("empty path");
    }
    if trimmed.contains(&u16::from(b'\\')) {
        return Err("backslash separator");
    }
    if trimmed.first() == Some(&u16::from(b'/')) {
        return Err("absolute path");
    }
    if trimmed.len() >= 2
        && (trimmed[0] as u8).is_ascii_alphabetic()
        && trimmed[0] < 0x80
        && trimmed[1] == u16::from(b':')
    {
        return Err("drive-absolute path");
    }
    if trimmed.first() == Some(&u16::from(b'~')) {
        return Err("home-relative path");
    }
    if trimmed
        .iter()
        .any(|&u| matches!(u, 0x2A | 0x3F | 0x5B | 0x5D))
    {
        return Err("wildcard characters");
    }
    if trimmed.iter().any(|&u| u < 0x20 || u == 0x7F) {
        return Err("control characters");
    }
    for segment in trimmed.split(|&u| u == u16::from(b'/')) {
        if segment.is_empty() {
            return Err("empty path segment");
        }
        if is(segment, ".") || is(segment, "..") {
            return Err("traversal segment");
        }
    }
    Ok(JsString::from_units(trimmed))
}

/// `canonicalizeReviewers`: a non-empty set of `spec`/`code`, spec first; none otherwise.
fn canonical_reviewers(reviewers: &[Json]) -> Option<Vec<Json>> {
    if reviewers.is_empty() {
        return None;
    }
    let roles: Vec<&str> = reviewers
        .iter()
        .map(|r| match r.as_string() {
            Some(s) if is(s.units(), "spec") => Some("spec"),
            Some(s) if is(s.units(), "code") => Some("code"),
            _ => None,
        })
        .collect::<Option<_>>()?;
    if roles.len() == 2 && roles[0] == roles[1] {
        return None;
    }
    if roles.len() > 2 {
        return None;
    }
    let mut sorted = roles;
    sorted.sort_by_key(|r| *r != "spec");
    Some(sorted.into_iter().map(Json::str).collect())
}

/// `sameReviewerSet`.
fn same_reviewers(existing: Option<&[Json]>, wanted: &[Json]) -> bool {
    existing.is_some_and(|e| e.len() == wanted.len() && e.iter().zip(wanted).all(|(a, b)| a == b))
}

fn launch_refusal(record: Option<&Object>, code: &'static str, message: JsString) -> LaunchRefusal {
    LaunchRefusal {
        refusal: Refusal { code, message },
        allowed: record.map(allowed_next_agents).unwrap_or_default(),
    }
}

/// The array without every string equal to `value` (`filter((r) => r !== value)`).
fn without(items: &[Json], value: &str) -> Vec<Json> {
    items
        .iter()
        .filter(|r| !r.as_string().is_some_and(|s| is(s.units(), value)))
        .cloned()
        .collect()
}

/// `Number(workItemId.slice(3))`.
fn id_number(record: &Object) -> f64 {
    let id = text(record, "workItemId").map_or(&[][..], |s| s.units());
    let rest = id.get(3..).unwrap_or(&[]);
    to_number(&Json::String(JsString::from_units(rest)))
}

/// The next id's number: the file's `nextId` when it was a number.
fn next_id_value(next: &Json) -> f64 {
    next.as_f64().unwrap_or(f64::NAN)
}

fn to_text(value: &Json) -> String {
    js_string(value).to_string_lossy()
}

/// `applyImplementerResult`.
fn implementer_result(
    mut existing: Object,
    status: &str,
    result_excerpt: Option<&Object>,
    now: &str,
) -> Object {
    if status == "DONE" || status == "DONE_WITH_CONCERNS" {
        let reviewers = array(&existing, "requiredReviewers")
            .unwrap_or(&[])
            .to_vec();
        let round = number(&existing, "completedReviewRoundCount").unwrap_or(f64::NAN) + 1.0;
        existing.insert("state", string("awaiting_reviews"));
        existing.insert(
            "currentRound",
            Json::Object(review_round(&reviewers, round, now)),
        );
        existing.insert("updatedAt", string(now));
        return existing;
    }
    existing.insert(
        "state",
        string(if status == "NEEDS_CONTEXT" {
            "needs_context"
        } else {
            "blocked"
        }),
    );
    if let Some(e) = result_excerpt {
        existing.insert("resultExcerpt", Json::Object(e.clone()));
    }
    existing.insert("updatedAt", string(now));
    existing
}

/// `applyReviewerResult`.
fn reviewer_result(
    mut existing: Object,
    role: &str,
    result: &ResultBlock,
    result_excerpt: Option<&Object>,
    now: &str,
) -> Result<Object, Refusal> {
    let id = text(&existing, "workItemId").cloned().unwrap_or_default();
    let round = object(&existing, "currentRound")
        .filter(|r| {
            text_is(&existing, "state", "awaiting_reviews") && text_is(r, "status", "active")
        })
        .cloned();
    let Some(mut round) = round else {
        return Err(Refusal {
            code: "REVIEW_ROUND_NOT_ACTIVE",
            message: js![
                "REVIEW_ROUND_NOT_ACTIVE: ",
                &id,
                " has no active review round"
            ],
        });
    };
    if !includes(array(&round, "requiredReviewers").unwrap_or(&[]), role) {
        return Err(Refusal {
            code: "REVIEWER_NOT_REQUIRED",
            message: js![
                "REVIEWER_NOT_REQUIRED: ",
                role,
                " is not required for ",
                &id
            ],
        });
    }
    let results = object(&round, "results").cloned().unwrap_or_default();
    if includes(array(&round, "completedReviewers").unwrap_or(&[]), role)
        || truthy(results.get(role))
    {
        return Err(Refusal {
            code: "REVIEWER_ALREADY_COMPLETED",
            message: js![
                "REVIEWER_ALREADY_COMPLETED: ",
                role,
                " already completed for ",
                &id
            ],
        });
    }
    if !includes(array(&round, "inFlightReviewers").unwrap_or(&[]), role) {
        return Err(Refusal {
            code: "REVIEWER_NOT_IN_FLIGHT",
            message: js![
                "REVIEWER_NOT_IN_FLIGHT: ",
                role,
                " was not in flight for ",
                &id
            ],
        });
    }
    let mut reviewer = obj(vec![
        ("reviewer", string(role)),
        ("agent", string(result.agent.name())),
        ("status", string(result.status)),
        ("completedAt", string(now)),
    ]);
    if let Some(e) = result_excerpt {
        reviewer.insert("resultExcerpt", Json::Object(e.clone()));
    }
    let in_flight = without(array(&round, "inFlightReviewers").unwrap_or(&[]), role);
    let mut completed = array(&round, "completedReviewers").unwrap_or(&[]).to_vec();
    completed.push(string(role));
    let mut results = results;
    results.insert(role, Json::Object(reviewer));
    round.insert("inFlightReviewers", Json::Array(in_flight));
    round.insert("completedReviewers", Json::Array(completed));
    round.insert("results", Json::Object(results));

    let settled = array(&round, "inFlightReviewers").unwrap_or(&[]).is_empty()
        && (has_needs_context(&round)
            || array(&round, "pendingReviewers").unwrap_or(&[]).is_empty());
    let next_state = if settled {
        completed_round_state(&existing, &round)
    } else {
        "awaiting_reviews"
    };
    if settled {
        round.insert("status", string("completed"));
        round.insert("completedAt", string(now));
    }
    let round_number = number(&round, "round").unwrap_or(f64::NAN);
    existing.insert("state", string(next_state));
    existing.insert("currentRound", Json::Object(round));
    if settled {
        let before = number(&existing, "completedReviewRoundCount").unwrap_or(f64::NAN);
        existing.insert(
            "completedReviewRoundCount",
            Json::Number(js_max(before, round_number)),
        );
    }
    for (name, which) in [("specReviewCount", "spec"), ("codeReviewCount", "code")] {
        if role == which {
            let before = number(&existing, name).unwrap_or(f64::NAN);
            existing.insert(name, Json::Number(before + 1.0));
        }
    }
    existing.insert("updatedAt", string(now));
    Ok(existing)
}

/// `resolveCompletedRoundState`.
fn completed_round_state(record: &Object, round: &Object) -> &'static str {
    if has_needs_context(round) {
        return "needs_context";
    }
    let results = object(round, "results");
    let all_pass = array(round, "requiredReviewers")
        .unwrap_or(&[])
        .iter()
        .all(|r| {
            let role = r
                .as_string()
                .map(|s| s.to_string_lossy())
                .unwrap_or_default();
            results
                .and_then(|o| o.get(&role))
                .and_then(Json::as_object)
                .is_some_and(|r| text_is(r, "status", "PASS"))
        });
    if all_pass || text_is(record, "mode", "review_only") {
        "ready_to_close"
    } else {
        "awaiting_implementer"
    }
}

/// `Math.max` of two numbers (NaN wins).
fn js_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}
