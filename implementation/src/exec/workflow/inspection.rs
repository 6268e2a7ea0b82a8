//! Read-only views (upstream's `inspection.ts` and the failure context of `tooling.ts`): a work item as results show it, delegated guidance, the list.

use super::delegated::{current_acceptance, delegated, latest_attempt_view, launch_gate, progress};
use super::record::{array, count, obj, object, string, text_is, truthy};
use super::store::{StoreData, review_round_number};
use crate::js_string::JsString;
use crate::js_text::js;
use crate::json::{Json, Object};

/// The package a host loads the plugin from (`PACKAGE_NAME`).
pub(crate) const PACKAGE_NAME: &str = "@osovv/vv-opencode";
/// The version of that package this reference follows.
pub(crate) const PACKAGE_VERSION: &str = "1.6.0";
/// Where the reference document sits inside the package.
const REFERENCE_PATH: &str = "templates/skills/vv-execute/references/tool-contracts.md";

/// `getWorkflowContractIdentity`, for a package installed at `package_root`.
pub(crate) fn contract_identity(package_root: &str) -> Object {
    let root = package_root.trim_end_matches('/');
    obj(vec![
        ("packageName", string(PACKAGE_NAME)),
        ("packageVersion", string(PACKAGE_VERSION)),
        ("toolContractRevision", string("1")),
        ("referencePath", string(&format!("{root}/{REFERENCE_PATH}"))),
    ])
}

/// `getWorkflowInspection`: the `work_item_list` result.
pub(crate) fn list_view(
    store: &StoreData,
    session: &JsString,
    include_closed: bool,
    package_root: &str,
) -> Object {
    let items = store
        .list(session, include_closed)
        .iter()
        .map(|r| Json::Object(work_item_view(r)))
        .collect();
    obj(vec![
        ("tool", string("work_item_list")),
        ("sessionId", Json::String(session.clone())),
        ("includeClosed", Json::Bool(include_closed)),
        ("items", Json::Array(items)),
        ("contract", Json::Object(contract_identity(package_root))),
    ])
}

/// `serializeWorkItem` with its store context.
pub(crate) fn work_item_view(record: &Object) -> Object {
    let get = |name: &str| record.get(name).cloned();
    let mut view = Object::new();
    let put = |view: &mut Object, name: &str, value: Option<Json>| {
        if let Some(v) = value {
            view.insert(name, v);
        }
    };
    put(&mut view, "workItemId", get("workItemId"));
    let id = record
        .get("workItemId")
        .map(super::store::js_string)
        .unwrap_or_else(|| JsString::from("undefined"));
    view.insert("header", Json::String(js!["VVOC_WORK_ITEM_ID: ", &id]));
    for name in ["key", "title", "mode", "requiredReviewers", "state"] {
        put(&mut view, name, get(name));
    }
    put(&mut view, "specReviewCount", get("specReviewCount"));
    put(&mut view, "codeReviewCount", get("codeReviewCount"));
    view.insert("reviewRound", review_round_number(record));
    if truthy(record.get("currentRound")) {
        put(&mut view, "currentRound", get("currentRound"));
    }
    if truthy(record.get("resultExcerpt")) {
        put(&mut view, "resultExcerpt", get("resultExcerpt"));
    }
    put(
        &mut view,
        "completedReviewRoundCount",
        get("completedReviewRoundCount"),
    );
    put(&mut view, "createdAt", get("createdAt"));
    put(&mut view, "updatedAt", get("updatedAt"));
    if truthy(record.get("closedAt")) {
        put(&mut view, "closedAt", get("closedAt"));
    }
    if let Some(d) = delegated(record).filter(|_| truthy(record.get("delegated"))) {
        view.insert("delegated", Json::Object(delegated_view(record, d)));
    }
    view
}

/// `deriveDelegatedGuidance`: the next action the real gates allow, and what it needs.
pub(crate) fn guidance(record: &Object) -> Object {
    let mut next = progress(record).next_action;
    let latest = latest_attempt_view(record);
    let mut blockers = Vec::new();
    let concerns = text_is(record, "state", "awaiting_acceptance")
        && latest
            .as_ref()
            .is_some_and(|l| text_is(l, "resultStatus", "DONE_WITH_CONCERNS"));
    if next == "launch_implementer" {
        if let Err((reason, _)) = launch_gate(record) {
            let id = record
                .get("workItemId")
                .map(super::store::js_string)
                .unwrap_or_else(|| JsString::from("undefined"));
            blockers.push(Json::String(js![reason, ":", &id]));
        }
        if !blockers.is_empty() {
            next = "launch_blocked";
        }
    }
    let mut prerequisites: Vec<Json> = Vec::new();
    match next {
        "launch_implementer" => prerequisites.push(string(
            "the snapshot-level dependency/barrier/overlap gate currently accepts; actual launch still needs live host permission and context, which inspection does not assert",
        )),
        "launch_blocked" => prerequisites.push(string(
            "clear the blocking dependency, checkpoint barrier, overlapping review, or sealed/superseded execution",
        )),
        "await_result" => {
            prerequisites.push(string("the in-flight attempt result for the current call"));
        }
        "decide" => {
            let attempt = latest
                .as_ref()
                .and_then(|l| l.get("attempt"))
                .filter(|a| !matches!(a, Json::Null))
                .map(super::store::js_string)
                .unwrap_or_else(|| JsString::from("(unknown)"));
            prerequisites.push(Json::String(js![
                "a controller accept/request_changes decision for attempt ",
                &attempt
            ]));
            if concerns {
                prerequisites.push(string(
                    "an explicit concernsDisposition because the attempt completed DONE_WITH_CONCERNS",
                ));
            }
        }
        "recover" => prerequisites.push(string(
            "a bounded recovery diagnosis, changed condition, and verification",
        )),
        "recover_with_user_authorization" => prerequisites.push(string(
            "a recorded eligible advance authority for this target, or a fresh root-user message; inspection does not verify future message provenance",
        )),
        "close" => prerequisites.push(string("a ready_to_close item carrying a current acceptance")),
        _ => {}
    }
    obj(vec![
        ("nextAction", string(next)),
        (
            "launchEligible",
            Json::Bool(next == "launch_implementer" && blockers.is_empty()),
        ),
        ("blockers", Json::Array(blockers)),
        ("prerequisites", Json::Array(prerequisites)),
        ("requiresConcernsDisposition", Json::Bool(concerns)),
    ])
}

/// `ownedWorkItemFailureContext`: the live context a failure about an owned item carries.
pub(crate) fn failure_context(
    store: &StoreData,
    session: &JsString,
    id: &[u16],
    code: &str,
) -> Vec<(&'static str, Json)> {
    let Some(record) = store.work_item(session, id) else {
        return Vec::new();
    };
    let mut context: Vec<(&'static str, Json)> = Vec::new();
    if let Some(state) = record.get("state") {
        context.push(("state", state.clone()));
    }
    if let Some(round) =
        object(&record, "currentRound").filter(|_| truthy(record.get("currentRound")))
    {
        context.push((
            "pendingReviewers",
            Json::Array(array(round, "pendingReviewers").unwrap_or(&[]).to_vec()),
        ));
    }
    let mut prerequisite = None;
    if let Some(d) = delegated(&record).filter(|_| truthy(record.get("delegated"))) {
        let p = progress(&record);
        let g = guidance(&record);
        context.push(("attemptBudget", count(p.budget)));
        context.push(("remainingAttempts", count(p.remaining)));
        context.push(("recoveryCount", count(p.grants)));
        let next = g.get("nextAction").cloned().unwrap_or(Json::Null);
        if next == string("launch_blocked")
            && let Some(first) = array(&g, "prerequisites").and_then(|p| p.first())
        {
            prerequisite = Some(first.clone());
        }
        context.push(("nextAction", next));
        if let Some(latest) = array(d, "attempts").and_then(|a| a.last()) {
            let latest = latest.as_object().cloned().unwrap_or_default();
            if let Some(a) = latest.get("attempt") {
                context.push(("attempt", a.clone()));
            }
            if let Some(s) = latest.get("status") {
                context.push(("attemptStatus", s.clone()));
            }
            if let Some(r) = latest.get("resultStatus") {
                context.push(("resultStatus", r.clone()));
            }
        }
    }
    if prerequisite.is_none() {
        prerequisite = owned_prerequisite(&record, code).map(string);
    }
    if let Some(p) = prerequisite {
        context.push(("prerequisite", p));
    }
    context
}

/// `ownedPrerequisite`: the unmet prerequisite of the item's state for a failure code.
fn owned_prerequisite(record: &Object, code: &str) -> Option<&'static str> {
    match code {
        "CONCERNS_DISPOSITION_REQUIRED" => {
            return Some("an explicit concernsDisposition for the DONE_WITH_CONCERNS attempt");
        }
        "UNEXPECTED_CONCERNS_DISPOSITION" => {
            return Some("an attempt that completed DONE_WITH_CONCERNS");
        }
        "INVALID_ATTEMPT" | "ATTEMPT_MISMATCH" => {
            return Some("the current completed attempt number for this work item");
        }
        "ATTEMPT_NOT_TERMINAL" => return Some("a terminal targeted attempt"),
        "ATTEMPTS_EXHAUSTED" => {
            return Some("an explicit recovery grant or checkpoint-authorized rework");
        }
        "AUTONOMOUS_GRANT_EXHAUSTED" => {
            return Some("a recorded advance authority or a fresh root-user message");
        }
        _ => {}
    }
    let state = |s| text_is(record, "state", s);
    let round = object(record, "currentRound").filter(|_| truthy(record.get("currentRound")));
    let pending =
        round.is_some_and(|r| array(r, "pendingReviewers").is_some_and(|p| !p.is_empty()));
    if truthy(record.get("delegated")) {
        if state("ready_to_close") {
            return None;
        }
        if state("awaiting_acceptance") {
            return Some(
                "a controller accept/request_changes decision for the current completed attempt",
            );
        }
        if state("blocked") || state("needs_context") {
            return Some("a bounded recovery (or an authorized advance) for the stopped attempt");
        }
        if pending {
            return Some("a completed review round from every required reviewer");
        }
        if current_acceptance(record).is_none() {
            return Some("a current controller acceptance for the latest completed attempt");
        }
        return Some(
            "a current controller decision, recovery, or rework authorization for this delegated item",
        );
    }
    if state("awaiting_reviews") || pending {
        return Some("a completed review round from every required reviewer");
    }
    None
}

/// The `delegated` member of a work item's view.
fn delegated_view(record: &Object, d: &Object) -> Object {
    let p = progress(record);
    let g = guidance(record);
    let mut view = Object::new();
    view.insert(
        "writeScope",
        Json::Array(array(d, "writeScope").unwrap_or(&[]).to_vec()),
    );
    if truthy(d.get("planRunId")) {
        view.insert(
            "planRunId",
            d.get("planRunId").cloned().unwrap_or(Json::Null),
        );
        if let Some(task) = d.get("planTaskId") {
            view.insert("planTaskId", task.clone());
        }
    }
    let attempts = array(d, "attempts").unwrap_or(&[]);
    view.insert("attempts", count(attempts.len()));
    view.insert(
        "inFlightAttempt",
        Json::Bool(
            attempts
                .iter()
                .filter_map(Json::as_object)
                .any(|a| text_is(a, "status", "in_flight")),
        ),
    );
    view.insert(
        "decisions",
        count(array(d, "decisions").map_or(0, <[Json]>::len)),
    );
    let accepted = current_acceptance(record);
    view.insert("accepted", Json::Bool(accepted.is_some()));
    if let Some(a) = accepted.and_then(|a| a.get("attempt")) {
        view.insert("acceptedAttempt", a.clone());
    }
    view.insert(
        "reworkCount",
        count(array(d, "reworkHistory").map_or(0, <[Json]>::len)),
    );
    view.insert("attemptBudget", count(p.budget));
    view.insert("remainingAttempts", count(p.remaining));
    view.insert("recoveryCount", count(p.grants));
    view.insert("autonomousGrantConsumed", Json::Bool(p.autonomous_consumed));
    view.insert("reportRejectionCount", count(p.report_rejected));
    view.insert(
        "nextAction",
        g.get("nextAction").cloned().unwrap_or(Json::Null),
    );
    if let Some(latest) = latest_attempt_view(record) {
        view.insert("latestAttempt", Json::Object(latest));
    }
    view.insert("guidance", Json::Object(g));
    view
}
