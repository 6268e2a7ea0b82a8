//! Result envelopes (upstream's `results.ts`): failure categories, the guidance table, and the failure normalization that fixes a failure's member order.

use super::record::{obj, string};
use crate::js_string::JsString;
use crate::json::{Json, Object};

/// `MAX_FAILURE_FIELD_CHARS` (= `MAX_ISSUE_MESSAGE_CHARS`).
const MAX_FIELD_CHARS: usize = 200;
/// `MAX_FAILURE_MESSAGE_CHARS` (200 × (8 + 1)).
const MAX_MESSAGE_CHARS: usize = 1800;

/// `categoryForWorkflowErrorCode`: the fixed code sets in order; any other code is `state`.
pub(crate) fn category(code: &str) -> &'static str {
    match code {
        "INVALID_INPUT" => "input",
        "HOST_CONTEXT_UNAVAILABLE" | "PLAN_LOAD_FAILED" => "host_context",
        "PERSISTENCE_FAILED" | "SNAPSHOT_FAILED" => "persistence",
        "RESULT_CONTRACT_INVALID" | "RESULT_SERIALIZATION_FAILED" => "internal",
        "CONTROL_DENIED"
        | "WORKFLOW_TOOL_DENIED"
        | "SESSION_MISMATCH"
        | "AUTHORITY_DENIED"
        | "AUTHORITY_NOT_FOUND"
        | "AUTHORITY_REVOKED"
        | "AUTHORIZATION_LOOKUP_FAILED"
        | "AUTHORIZATION_NOT_FOUND"
        | "AUTHORIZATION_SESSION_MISMATCH"
        | "AUTHORIZATION_NOT_USER_MESSAGE"
        | "AUTHORIZATION_ID_MISMATCH"
        | "AUTHORIZATION_REUSED"
        | "AUTHORIZATION_STALE"
        | "FOREIGN_SESSION"
        | "ASSISTANT_MESSAGE"
        | "IGNORED_MESSAGE"
        | "SYNTHETIC_ONLY"
        | "MISSING_IDENTITY"
        | "EMPTY_MESSAGE"
        | "MESSAGE_REPLAY"
        | "STALE_EXTENSION"
        | "DUPLICATE_GRANT"
        | "DUPLICATE_DEBIT"
        | "RESERVE_EXHAUSTED"
        | "SCOPE_NOT_PRESERVED" => "authorization",
        _ => "state",
    }
}

/// `FAILURE_GUIDANCE`: a failure family's prerequisite and next action.
pub(crate) fn guidance(code: &str) -> (Option<&'static str>, Option<&'static str>) {
    let list = "call work_item_list to read the current work item ids";
    match code {
        "WORK_ITEM_NOT_FOUND" => (
            Some("an existing same-session work item for the supplied id"),
            Some(list),
        ),
        "WORK_ITEM_ALREADY_CLOSED" => (Some("a work item that is not closed"), None),
        "READY_TO_CLOSE_REQUIRED" => (
            Some("all assigned reviews complete and no open concerns for this item"),
            Some("call work_item_list to inspect pending reviews or concerns"),
        ),
        "WRONG_MODE" => (
            Some("a work item of the mode this operation targets"),
            Some("call work_item_list to confirm the item mode"),
        ),
        "INVALID_STATE" => (
            Some("the work item in the state this operation requires"),
            Some("call work_item_list to read the current state"),
        ),
        "INVALID_ATTEMPT" => (
            Some("the current completed attempt number for this work item"),
            Some("call work_item_list to read the latest attempt"),
        ),
        "ATTEMPT_MISMATCH" => (
            Some("the latest terminal attempt number for this work item"),
            Some("call work_item_list to read the latest attempt"),
        ),
        "ATTEMPT_NOT_TERMINAL" => (Some("a terminal targeted attempt"), None),
        "ATTEMPT_IN_FLIGHT" => (
            Some("no in-flight attempt for this work item"),
            Some("collect the in-flight attempt result before launching again"),
        ),
        "ATTEMPTS_EXHAUSTED" => (
            Some("an explicit recovery grant or checkpoint-authorized rework"),
            Some("inspect the item with work_item_list before choosing a recovery path"),
        ),
        "AUTONOMOUS_GRANT_EXHAUSTED" => (
            Some("a recorded advance authority or a fresh root-user message"),
            Some("inspect available authority and budgets with work_item_list"),
        ),
        "CONCERNS_DISPOSITION_REQUIRED" => (
            Some("an explicit concernsDisposition for a DONE_WITH_CONCERNS attempt"),
            None,
        ),
        "UNEXPECTED_CONCERNS_DISPOSITION" => (
            Some("an attempt that completed DONE_WITH_CONCERNS"),
            Some("inspect the latest attempt status with work_item_list"),
        ),
        "REVIEW_ROUND_NOT_ACTIVE" => (
            Some("an active review round for this item"),
            Some("inspect review state with work_item_list"),
        ),
        "REVIEW_ROUND_NEEDS_CONTEXT" => (
            Some("resolved reviewer NEEDS_CONTEXT before another review round"),
            Some("inspect review state with work_item_list"),
        ),
        "REVIEWER_NOT_REQUIRED" => (Some("a reviewer role assigned to the active round"), None),
        "REVIEWER_NOT_IN_FLIGHT" => (Some("a launched reviewer for the active round"), None),
        "REVIEWER_ALREADY_COMPLETED" => (Some("an outstanding reviewer result"), None),
        "REVIEWER_ALREADY_IN_FLIGHT" => (Some("a reviewer that has not already launched"), None),
        "AUTHORITY_NOT_FOUND" => (
            Some("a recorded authority matching the supplied authorityId for the owned run"),
            Some("inspect the owned execution and its authority with work_item_list"),
        ),
        "AUTHORITY_DENIED" => (Some("a verified eligible root-user instruction"), None),
        "AUTHORITY_REVOKED" => (Some("an authority that has not been revoked"), None),
        "RESERVE_EXHAUSTED" => (
            Some("a remaining advance unit on the recorded authority"),
            Some("inspect the authority budget with work_item_list"),
        ),
        "CHECKPOINT_NOT_FOUND" => (
            Some("a checkpoint bound to the target run"),
            Some("inspect run checkpoints with work_item_list"),
        ),
        "CHECKPOINT_NOT_FAILED" => (Some("a failed checkpoint for rework authorization"), None),
        "RUN_NOT_FOUND" => (
            Some("an existing owned plan run"),
            Some("call work_item_list to read the current plan runs"),
        ),
        "EXECUTION_NOT_FOUND" => (
            Some("an existing owned generic execution"),
            Some("call work_item_list to read the current executions"),
        ),
        "EXECUTION_SEALED" => (
            Some("an execution that is not sealed"),
            Some("inspect execution status with work_item_list"),
        ),
        "EXECUTION_INCOMPLETE" => (
            Some("accepted covered tasks before the checkpoint may start"),
            Some("inspect task acceptance with work_item_list"),
        ),
        "UNKNOWN_REFERENCE" => (
            Some("a referenced task/checkpoint present in the target run"),
            Some("inspect the run with work_item_list"),
        ),
        "TASK_NOT_FOUND" => (Some("a task present in the target execution"), None),
        "STALE_CALLBACK" => (
            Some("a callback matching the current in-flight attempt"),
            None,
        ),
        "NOT_ACCEPTED" => (Some("a currently applicable acceptance"), None),
        "PREREQUISITES_NOT_ACCEPTED" => (
            Some("accepted dependency tasks"),
            Some("inspect dependency status with work_item_list"),
        ),
        _ => (None, None),
    }
}

/// `normalizeWorkflowResult`: a failure (`ok: false` with a string `errorCode`) is rebuilt by
/// [`normalize_failure`]; a result with `items` has each item normalized; anything else is
/// unchanged.
pub(crate) fn finalize(value: Object) -> Object {
    if value.get("ok") == Some(&Json::Bool(false))
        && value
            .get("errorCode")
            .is_some_and(|c| c.as_string().is_some())
    {
        return normalize_failure(&value);
    }
    let Some(Json::Array(items)) = value.get("items") else {
        return value;
    };
    let items: Vec<Json> = items
        .iter()
        .map(|item| match item {
            Json::Object(o) => Json::Object(finalize(o.clone())),
            other => other.clone(),
        })
        .collect();
    let mut value = value;
    value.insert("items", Json::Array(items));
    value
}

/// `normalizeWorkflowFailure`: `ok, errorCode, category, message`, then the context members in
/// a fixed order, guidance filling a missing prerequisite or next action.
pub(crate) fn normalize_failure(failure: &Object) -> Object {
    let str_of = |name: &str| -> Option<JsString> {
        failure
            .get(name)
            .and_then(Json::as_string)
            .filter(|s| !s.is_empty())
            .cloned()
    };
    let num_of = |name: &str| {
        failure
            .get(name)
            .and_then(Json::as_f64)
            .filter(|n| n.is_finite())
    };
    let code = bound(
        &str_of("errorCode").unwrap_or_else(|| JsString::from("UNKNOWN_FAILURE")),
        MAX_FIELD_CHARS,
    );
    let code_text = code.to_string_lossy();
    let given_category = failure
        .get("category")
        .and_then(Json::as_string)
        .map(|c| c.to_string_lossy())
        .filter(|c| {
            [
                "input",
                "state",
                "authorization",
                "host_context",
                "persistence",
                "internal",
            ]
            .contains(&c.as_str())
        });
    let category = given_category.unwrap_or_else(|| category(&code_text).to_owned());
    let (prerequisite, next_action) = guidance(&code_text);
    let message = bound(
        &str_of("message").unwrap_or_else(|| code.clone()),
        MAX_MESSAGE_CHARS,
    );
    let outcome = failure
        .get("outcome")
        .and_then(Json::as_string)
        .map(|c| c.to_string_lossy())
        .filter(|c| ["committed", "not_applied", "rolled_back", "unknown"].contains(&c.as_str()));
    let applied = match failure.get("applied") {
        Some(Json::Bool(b)) => Some(*b),
        _ => match outcome.as_deref() {
            Some("committed") => Some(true),
            Some("not_applied" | "rolled_back") => Some(false),
            _ => None,
        },
    };
    let mut out = obj(vec![
        ("ok", Json::Bool(false)),
        ("errorCode", Json::String(code)),
        ("category", string(&category)),
        ("message", Json::String(message)),
    ]);
    let put_str = |out: &mut Object, name: &str| {
        if let Some(v) = str_of(name) {
            out.insert(name, Json::String(bound(&v, MAX_FIELD_CHARS)));
        }
    };
    put_str(&mut out, "tool");
    put_str(&mut out, "sessionId");
    if let Some(Json::Array(issues)) = failure.get("issues") {
        out.insert("issues", Json::Array(issues.clone()));
    }
    put_str(&mut out, "state");
    if let Some(n) = num_of("attempt") {
        out.insert("attempt", Json::Number(n));
    }
    put_str(&mut out, "attemptStatus");
    put_str(&mut out, "resultStatus");
    for name in ["attemptBudget", "remainingAttempts", "recoveryCount"] {
        if let Some(n) = num_of(name) {
            out.insert(name, Json::Number(n));
        }
    }
    if let Some(Json::Array(reviewers)) = failure.get("pendingReviewers") {
        let kept = reviewers
            .iter()
            .filter_map(Json::as_string)
            .map(|s| Json::String(bound(s, MAX_FIELD_CHARS)))
            .collect();
        out.insert("pendingReviewers", Json::Array(kept));
    }
    match str_of("prerequisite") {
        Some(p) => out.insert("prerequisite", Json::String(bound(&p, MAX_FIELD_CHARS))),
        None => {
            if let Some(p) = prerequisite {
                out.insert("prerequisite", string(p));
            }
        }
    }
    match str_of("nextAction") {
        Some(p) => out.insert("nextAction", Json::String(bound(&p, MAX_FIELD_CHARS))),
        None => {
            if let Some(p) = next_action {
                out.insert("nextAction", string(p));
            }
        }
    }
    if let Some(o) = outcome {
        out.insert("outcome", string(&o));
    }
    if let Some(a) = applied {
        out.insert("applied", Json::Bool(a));
    }
    if let Some(Json::Bool(b)) = failure.get("retrySafe") {
        out.insert("retrySafe", Json::Bool(*b));
    }
    put_str(&mut out, "existingWorkItemId");
    put_str(&mut out, "runId");
    out
}

/// `boundText`: a text cut to `max` units with an ellipsis in the last.
fn bound(text: &JsString, max: usize) -> JsString {
    if text.len() <= max {
        return text.clone();
    }
    let mut units = text.units()[..max - 1].to_vec();
    units.push(0x2026);
    JsString::from_units(units)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_is_rebuilt_in_the_fixed_member_order_with_guidance() {
        let failure = obj(vec![
            ("tool", string("work_item_close")),
            ("sessionId", string("s")),
            ("ok", Json::Bool(false)),
            ("errorCode", string("WORK_ITEM_NOT_FOUND")),
            (
                "message",
                string("WORK_ITEM_NOT_FOUND: no work item wi-9 for session s"),
            ),
        ]);
        let out = normalize_failure(&failure);
        let names: Vec<String> = out.iter().map(|(k, _)| k.to_string_lossy()).collect();
        assert_eq!(
            names,
            [
                "ok",
                "errorCode",
                "category",
                "message",
                "tool",
                "sessionId",
                "prerequisite",
                "nextAction"
            ]
        );
        assert_eq!(out.get("category"), Some(&string("state")));
    }

    #[test]
    fn categories_follow_the_code_sets() {
        assert_eq!(category("INVALID_INPUT"), "input");
        assert_eq!(category("CONTROL_DENIED"), "authorization");
        assert_eq!(category("PERSISTENCE_FAILED"), "persistence");
        assert_eq!(category("WORK_ITEM_KEY_CONFLICT"), "state");
    }
}
