//! The session's state file (upstream's `persistence.ts`, format version 4): where it lives, how a file hydrates or is found invalid, and the write through a temporary file.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::delegated::BASE_ATTEMPTS;
use super::js::{is, stringify};
use super::record::{array, obj, object, string, text, text_is, truthy};
use super::store::{StoreData, normalize_scope_path};
use crate::exec::fs::message;
use crate::js_string::JsString;
use crate::json::{Json, Object};

/// `PERSISTED_WORKFLOW_STATE_VERSION`.
pub(crate) const VERSION: f64 = 4.0;
/// The version that introduced recovery histories and rejected reports.
const RECOVERY_VERSION: f64 = 3.0;

/// What hydrating a session found (`HydratedWorkflowStateResult`).
#[derive(Debug)]
pub(crate) enum Hydrated {
    /// No file.
    Missing,
    /// A file that validated.
    Valid(StoreData),
    /// A file that did not; the reasons, as upstream collects them.
    Invalid(Vec<String>),
    /// A file upstream's loader raises on: the runtime's message (Bun 1.3.8).
    Raises(JsString),
}

/// The state file of `session` under the data directory (`getWorkflowSessionDir`), or `None`
/// when the session id is not one plain path segment. Upstream joins the id into the path as it
/// is, so `..` or `/` in an id would name a file elsewhere; the reference never reads or writes
/// outside `vvoc/workflow/` and treats such a session as having a file it cannot use.
pub(crate) fn state_path(data_dir: &Path, session: &JsString) -> Option<PathBuf> {
    Some(session_dir(data_dir, session)?.join("workflow-state.json"))
}

fn session_dir(data_dir: &Path, session: &JsString) -> Option<PathBuf> {
    let id = session.to_str()?;
    if id.is_empty() || id == "." || id == ".." || id.contains(['/', '\0']) {
        return None;
    }
    Some(data_dir.join("vvoc").join("workflow").join(id))
}

/// `hydrateWorkflowStateChecked`: reads and validates the session's file; never writes.
pub(crate) fn hydrate(data_dir: &Path, session: &JsString) -> Hydrated {
    let Some(path) = state_path(data_dir, session) else {
        return Hydrated::Invalid(vec![
            "the session id names no file inside the data directory".to_owned(),
        ]);
    };
    if fs::metadata(&path).is_err() {
        return Hydrated::Missing;
    }
    let bytes = match fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            return Hydrated::Invalid(vec![format!(
                "workflow state could not be read: {}",
                message(&e, "read", &path.to_string_lossy())
            )]);
        }
    };
    let raw = String::from_utf8_lossy(&bytes);
    let parsed = match Json::parse(&raw) {
        Ok(v) => v,
        Err(e) => return Hydrated::Invalid(vec![format!("workflow state is not valid JSON: {e}")]),
    };
    if matches!(parsed, Json::Null) {
        return Hydrated::Raises(JsString::from(
            "null is not an object (evaluating 'parsed.version')",
        ));
    }
    let Some(file) = parsed.as_object() else {
        return Hydrated::Invalid(vec!["unsupported persisted version undefined".to_owned()]);
    };
    let version = match file.get("version").and_then(Json::as_f64) {
        Some(v) if [1.0, 2.0, 3.0, 4.0].contains(&v) => v,
        _ => {
            return Hydrated::Invalid(vec![format!(
                "unsupported persisted version {}",
                file.get("version")
                    .map_or("undefined".to_owned(), |v| super::store::js_string(v)
                        .to_string_lossy())
            )]);
        }
    };
    let Some(list) = array(file, "records") else {
        return Hydrated::Invalid(vec!["persisted records must be an array".to_owned()]);
    };
    let mut errors = Vec::new();
    let mut store = StoreData::default();
    for record in list {
        let mut record_errors = Vec::new();
        let Some(valid) = valid_record(record, session, version, &mut record_errors) else {
            if record_errors.is_empty() {
                let id = record
                    .as_object()
                    .and_then(|r| r.get("workItemId"))
                    .filter(|v| !matches!(v, Json::Null))
                    .map_or("(unknown)".to_owned(), |v| {
                        super::store::js_string(v).to_string_lossy()
                    });
                errors.push(format!("record {id} failed base validation"));
            } else {
                errors.extend(record_errors);
            }
            continue;
        };
        let mut valid = valid;
        if version < RECOVERY_VERSION
            && text_is(&valid, "mode", "delegated")
            && truthy(valid.get("delegated"))
            && let Some(Json::Object(d)) = valid.get_mut("delegated")
        {
            d.insert("recoveryHistory", Json::Array(Vec::new()));
        }
        let id = text(&valid, "workItemId").cloned().unwrap_or_default();
        store.set_record(session, id.units(), valid);
    }
    let mut index = Vec::new();
    for (key, id) in entries(file.get("keyIndex")) {
        match index
            .iter_mut()
            .find(|(k, _): &&mut (JsString, Json)| *k == key)
        {
            Some((_, v)) => *v = id,
            None => index.push((key, id)),
        }
    }
    store.key_index.push((session.clone(), index));
    if version >= 2.0 {
        let Some(runs) = array(file, "planRuns") else {
            return Hydrated::Invalid(vec!["version 2 state requires a planRuns array".to_owned()]);
        };
        store.plan_runs = runs.to_vec();
    }
    if version >= VERSION {
        let Some(executions) = array(file, "executions") else {
            return Hydrated::Invalid(vec![
                "version 4 state requires an executions array".to_owned(),
            ]);
        };
        store.executions = executions.to_vec();
        let mut seen: Vec<JsString> = Vec::new();
        for claim in array(file, "messageClaims").unwrap_or(&[]) {
            let field = |name| {
                claim
                    .as_object()
                    .and_then(|c| text(c, name))
                    .filter(|s| !crate::text::is_blank(s.units()))
                    .cloned()
            };
            let (Some(message_id), Some(_)) = (field("messageId"), field("runId")) else {
                errors.push("message claims require messageId and runId".to_owned());
                continue;
            };
            if seen.contains(&message_id) {
                errors.push(format!(
                    "message {} is claimed more than once",
                    message_id.to_string_lossy()
                ));
                continue;
            }
            seen.push(message_id);
            store.message_claims.push(claim.clone());
        }
    }
    if !errors.is_empty() {
        return Hydrated::Invalid(errors);
    }
    store.next_id = match file.get("nextId") {
        Some(Json::Number(n)) => Json::Number(*n),
        _ => Json::Number((store.records.len() + 1) as f64),
    };
    Hydrated::Valid(store)
}

/// `snapshotWorkflowStateChecked`: the session's part of the store written to a temporary file
/// in its directory, then renamed over the state file; the runtime's message when that fails.
pub(crate) fn snapshot(
    data_dir: &Path,
    session: &JsString,
    store: &StoreData,
    now: &str,
    now_ms: i64,
    pid: u32,
) -> Result<(), String> {
    let Some(dir) = session_dir(data_dir, session) else {
        return Err("the session id names no directory inside the data directory".to_owned());
    };
    if fs::metadata(&dir).is_err() {
        fs::create_dir_all(&dir).map_err(|e| message(&e, "mkdir", &dir.to_string_lossy()))?;
    }
    let records: Vec<Json> = store
        .records
        .iter()
        .filter(|(_, r)| text(r, "sessionId") == Some(session))
        .map(|(_, r)| Json::Object(r.clone()))
        .collect();
    let key_index = store
        .key_index
        .iter()
        .find(|(s, _)| s == session)
        .map(|(_, index)| {
            // `keyIndex[key] = id` with the key `__proto__` sets the object's prototype (to
            // nothing, a string not being an object) instead of a member, so it is not written.
            Object::from_members(index.iter().filter(|(k, _)| *k != "__proto__").cloned())
        })
        .unwrap_or_default();
    let plan_runs: Vec<Json> = store
        .plan_runs
        .iter()
        .filter(|r| {
            r.as_object()
                .is_some_and(|r| text(r, "sessionId") == Some(session))
        })
        .cloned()
        .collect();
    let executions: Vec<Json> = store
        .executions
        .iter()
        .filter(|r| {
            r.as_object()
                .is_some_and(|r| text(r, "sessionId") == Some(session))
        })
        .cloned()
        .collect();
    let run_ids: Vec<&JsString> = executions
        .iter()
        .filter_map(|e| e.as_object().and_then(|e| text(e, "runId")))
        .collect();
    let claims: Vec<Json> = store
        .message_claims
        .iter()
        .filter(|c| {
            c.as_object()
                .and_then(|c| text(c, "runId"))
                .is_some_and(|r| run_ids.contains(&r))
        })
        .cloned()
        .collect();
    let persisted = obj(vec![
        ("version", Json::Number(VERSION)),
        ("updatedAt", string(now)),
        ("sessionId", Json::String(session.clone())),
        ("nextId", store.next_id.clone()),
        ("records", Json::Array(records)),
        ("keyIndex", Json::Object(key_index)),
        ("planRuns", Json::Array(plan_runs)),
        ("executions", Json::Array(executions)),
        ("messageClaims", Json::Array(claims)),
    ]);
    let target = dir.join("workflow-state.json");
    let temporary = dir.join(format!("workflow-state.json.tmp-{pid}-{now_ms}"));
    let text = stringify(&Json::Object(persisted)).to_string_lossy();
    fs::write(&temporary, text.as_bytes())
        .map_err(|e| message(&e, "open", &temporary.to_string_lossy()))?;
    fs::rename(&temporary, &target).map_err(|e| rename_message(&e, &temporary, &target))?;
    Ok(())
}

fn rename_message(error: &io::Error, from: &Path, to: &Path) -> String {
    let base = message(error, "rename", &from.to_string_lossy());
    format!("{base} -> '{}'", to.to_string_lossy())
}

/// `Object.entries(value ?? {})` of a hydrated `keyIndex`.
fn entries(value: Option<&Json>) -> Vec<(JsString, Json)> {
    match value {
        Some(Json::Object(o)) => o.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        Some(Json::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (JsString::from(i.to_string()), v.clone()))
            .collect(),
        Some(Json::String(s)) => s
            .units()
            .iter()
            .enumerate()
            .map(|(i, &u)| {
                (
                    JsString::from(i.to_string()),
                    Json::String(JsString::from_units([u])),
                )
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn is_role(v: &Json) -> bool {
    v.as_string()
        .is_some_and(|s| is(s.units(), "spec") || is(s.units(), "code"))
}

fn is_integer(v: Option<&Json>) -> bool {
    v.and_then(Json::as_f64)
        .is_some_and(|n| n.is_finite() && n.fract() == 0.0)
}

fn roles(o: &Object, name: &str) -> bool {
    array(o, name).is_some_and(|a| a.iter().all(is_role))
}

/// `isWorkflowResultExcerpt`.
fn is_excerpt(v: Option<&Json>) -> bool {
    let Some(e) = v.and_then(Json::as_object) else {
        return false;
    };
    let Some(t) = text(e, "text") else {
        return false;
    };
    let (orig, max) = (
        e.get("originalLength").and_then(Json::as_f64),
        e.get("maxLength").and_then(Json::as_f64),
    );
    let len = t.len() as f64;
    let truncated = truthy(e.get("truncated"));
    let lengths = if truncated {
        matches!((orig, max), (Some(o), Some(m)) if o > m && len == m)
    } else {
        matches!((orig, max), (Some(o), Some(m)) if o == len && len <= m)
    };
    (text_is(e, "source", "parsed_body") || text_is(e, "source", "normalized_output"))
        && matches!(e.get("truncated"), Some(Json::Bool(_)))
        && is_integer(e.get("originalLength"))
        && is_integer(e.get("maxLength"))
        && max.is_some_and(|m| m > 0.0)
        && lengths
}

fn is_round_result(v: Option<&Json>) -> bool {
    let Some(r) = v.and_then(Json::as_object) else {
        return false;
    };
    r.get("reviewer").is_some_and(is_role)
        && (text_is(r, "agent", "vv-spec-reviewer") || text_is(r, "agent", "vv-code-reviewer"))
        && ["PASS", "FAIL", "NEEDS_CONTEXT"]
            .iter()
            .any(|s| text_is(r, "status", s))
        && text(r, "completedAt").is_some()
        && (!r.contains("resultExcerpt") || is_excerpt(r.get("resultExcerpt")))
}

fn is_round(v: Option<&Json>) -> bool {
    let Some(r) = v.and_then(Json::as_object) else {
        return false;
    };
    let results_ok = object(r, "results").is_some_and(|res| {
        (!res.contains("spec") || is_round_result(res.get("spec")))
            && (!res.contains("code") || is_round_result(res.get("code")))
    });
    is_integer(r.get("round"))
        && roles(r, "requiredReviewers")
        && roles(r, "pendingReviewers")
        && roles(r, "inFlightReviewers")
        && roles(r, "completedReviewers")
        && results_ok
        && (text_is(r, "status", "active") || text_is(r, "status", "completed"))
        && text(r, "createdAt").is_some()
}

/// `isWorkItemRecord`: the record when it validates; `None` with the reasons found otherwise.
fn valid_record(
    value: &Json,
    session: &JsString,
    version: f64,
    errors: &mut Vec<String>,
) -> Option<Object> {
    let record = value.as_object()?;
    let states = [
        "open",
        "awaiting_implementer",
        "awaiting_reviews",
        "awaiting_acceptance",
        "needs_context",
        "blocked",
        "ready_to_close",
        "closed",
    ];
    let base = text(record, "sessionId") == Some(session)
        && text(record, "workItemId").is_some()
        && text(record, "key").is_some()
        && text(record, "title").is_some()
        && ["implementation", "review_only", "delegated"]
            .iter()
            .any(|m| text_is(record, "mode", m))
        && roles(record, "requiredReviewers")
        && states.iter().any(|s| text_is(record, "state", s))
        && is_integer(record.get("completedReviewRoundCount"))
        && is_integer(record.get("specReviewCount"))
        && is_integer(record.get("codeReviewCount"))
        && (!record.contains("resultExcerpt") || is_excerpt(record.get("resultExcerpt")))
        && text(record, "createdAt").is_some()
        && text(record, "updatedAt").is_some()
        && (!record.contains("currentRound") || is_round(record.get("currentRound")));
    if !base {
        return None;
    }
    let id = text(record, "workItemId")
        .map(JsString::to_string_lossy)
        .unwrap_or_default();
    let mode = text(record, "mode")
        .map(JsString::to_string_lossy)
        .unwrap_or_default();
    if mode == "delegated" {
        let before = errors.len();
        validate_delegated(record, &id, version, errors);
        return (errors.len() == before).then(|| record.clone());
    }
    if array(record, "requiredReviewers").is_some_and(<[Json]>::is_empty) {
        errors.push(format!(
            "{id}: {mode} records require non-empty requiredReviewers"
        ));
        return None;
    }
    if record.contains("delegated") {
        errors.push(format!(
            "{id}: delegated state on a {mode} record is contradictory"
        ));
        return None;
    }
    Some(record.clone())
}

/// `validateDelegatedState`: every contradiction of a delegated record's ledger.
fn validate_delegated(record: &Object, id: &str, version: f64, errors: &mut Vec<String>) {
    let Some(d) = object(record, "delegated") else {
        errors.push(format!(
            "{id}: delegated records require a delegated state object"
        ));
        return;
    };
    if array(record, "requiredReviewers").is_some_and(|r| !r.is_empty()) {
        errors.push(format!(
            "{id}: delegated records must persist an empty requiredReviewers array"
        ));
    }
    if d.contains("planRunId") != d.contains("planTaskId") {
        errors.push(format!(
            "{id}: planRunId and planTaskId must be persisted together or absent"
        ));
    }
    let scope_ok = array(d, "writeScope").is_some_and(|scope| {
        !scope.is_empty()
            && scope.iter().enumerate().all(|(i, entry)| {
                entry.as_string().is_some_and(|s| {
                    normalize_scope_path(s.units()).is_ok_and(|p| p == *s)
                        && !scope[..i].contains(entry)
                })
            })
    });
    if !scope_ok {
        errors.push(format!(
            "{id}: delegated writeScope must be a non-empty canonical path list"
        ));
    }
    let Some(attempts) = array(d, "attempts") else {
        errors.push(format!("{id}: delegated attempts must be an array"));
        return;
    };
    let mut in_flight = 0;
    for (index, attempt) in attempts.iter().enumerate() {
        let a = attempt.as_object().cloned().unwrap_or_default();
        let n = a.get("attempt").map_or("undefined".to_owned(), |v| {
            super::store::js_string(v).to_string_lossy()
        });
        if a.get("attempt").and_then(Json::as_f64) != Some((index + 1) as f64) {
            errors.push(format!(
                "{id}: delegated attempts must sequence 1..n contiguously"
            ));
        }
        if text(&a, "callId").is_none_or(JsString::is_empty) {
            errors.push(format!("{id}: attempt {n} requires a bound callId"));
        }
        let status = text(&a, "status").map(JsString::to_string_lossy);
        match status.as_deref() {
            Some("in_flight") => {
                in_flight += 1;
                if [
                    "resultStatus",
                    "completedAt",
                    "failureExcerpt",
                    "reportRejection",
                ]
                .iter()
                .any(|k| a.contains(k))
                {
                    errors.push(format!(
                        "{id}: in-flight attempt {n} must not carry a result"
                    ));
                }
            }
            Some("completed") => {
                if !["DONE", "DONE_WITH_CONCERNS", "NEEDS_CONTEXT", "BLOCKED"]
                    .iter()
                    .any(|s| text_is(&a, "resultStatus", s))
                {
                    errors.push(format!(
                        "{id}: completed attempt {n} lacks a valid resultStatus"
                    ));
                }
                if text(&a, "completedAt").is_none() {
                    errors.push(format!("{id}: completed attempt {n} requires completedAt"));
                }
                if a.contains("failureExcerpt") || a.contains("reportRejection") {
                    errors.push(format!(
                        "{id}: completed attempt {n} must not carry failure or rejection evidence"
                    ));
                }
            }
            Some("failed") => {
                if text(&a, "completedAt").is_none() {
                    errors.push(format!("{id}: failed attempt {n} requires completedAt"));
                }
                if a.contains("resultStatus") || a.contains("reportRejection") {
                    errors.push(format!(
                        "{id}: failed attempt {n} must not carry a result or rejection"
                    ));
                }
                if !is_excerpt(a.get("failureExcerpt")) {
                    errors.push(format!(
                        "{id}: failed attempt {n} requires a bounded failure excerpt"
                    ));
                }
            }
            Some("report_rejected") => {
                if version < RECOVERY_VERSION {
                    errors.push(format!(
                        "{id}: report_rejected attempts require persisted version 3"
                    ));
                }
                if text(&a, "completedAt").is_none() {
                    errors.push(format!(
                        "{id}: report_rejected attempt {n} requires completedAt"
                    ));
                }
                if a.contains("resultStatus") || a.contains("failureExcerpt") {
                    errors.push(format!(
                        "{id}: report_rejected attempt {n} must not carry a synthesized result"
                    ));
                }
                let rejection_ok = object(&a, "reportRejection").is_some_and(|r| {
                    text(r, "protocolErrorCode")
                        .is_some_and(|c| !crate::text::is_blank(c.units()) && c.len() <= 128)
                        && text(r, "rejectedAt").is_some()
                        && is_excerpt(r.get("excerpt"))
                });
                if !rejection_ok {
                    errors.push(format!(
                        "{id}: report_rejected attempt {n} requires a bounded rejection record"
                    ));
                }
            }
            _ => {
                let shown = a.get("status").map_or("undefined".to_owned(), |v| {
                    super::store::js_string(v).to_string_lossy()
                });
                errors.push(format!("{id}: attempt {n} has invalid status {shown}"));
            }
        }
        if a.contains("resultExcerpt")
            && (status.as_deref() != Some("completed") || !is_excerpt(a.get("resultExcerpt")))
        {
            errors.push(format!("{id}: attempt {n} carries a malformed excerpt"));
        }
    }
    if in_flight > 1 {
        errors.push(format!(
            "{id}: at most one delegated attempt may be in flight"
        ));
    }
    let reworks = array(d, "reworkHistory").unwrap_or(&[]);
    if reworks.iter().any(|r| {
        let r = r.as_object();
        !truthy(r.and_then(|r| r.get("reworkId")))
            || !truthy(r.and_then(|r| r.get("authorizedByCheckpoint")))
    }) {
        errors.push(format!(
            "{id}: rework history entries require ids and checkpoint authorization"
        ));
    }
    match array(d, "recoveryHistory") {
        None => {
            if version >= RECOVERY_VERSION {
                errors.push(format!(
                    "{id}: version 3 delegated records require a recovery history"
                ));
            }
        }
        Some(history) if !history.is_empty() && version < RECOVERY_VERSION => {
            errors.push(format!(
                "{id}: recovery history requires persisted version 3"
            ));
        }
        Some(history) => validate_recoveries(history, attempts, id, errors),
    }
    let grants = array(d, "recoveryHistory")
        .unwrap_or(&[])
        .iter()
        .filter_map(Json::as_object)
        .filter(|e| {
            ["autonomous_grant", "user_grant", "advance_grant"]
                .iter()
                .any(|k| text_is(e, "kind", k))
        })
        .count();
    if attempts.len() > BASE_ATTEMPTS + reworks.len() + grants {
        errors.push(format!(
            "{id}: attempts exceed the base budget plus authorized rework and recovery grants"
        ));
    }
    let Some(decisions) = array(d, "decisions") else {
        errors.push(format!("{id}: delegated decisions must be an array"));
        return;
    };
    let mut decided: Vec<f64> = Vec::new();
    for decision in decisions {
        let x = decision.as_object().cloned().unwrap_or_default();
        let did = x.get("decisionId").map_or("undefined".to_owned(), |v| {
            super::store::js_string(v).to_string_lossy()
        });
        if !(text_is(&x, "decision", "accept") || text_is(&x, "decision", "request_changes")) {
            errors.push(format!(
                "{id}: decision {did} has an invalid decision value"
            ));
            continue;
        }
        let attempt = x.get("attempt").and_then(Json::as_f64);
        let attempt_text = x.get("attempt").map_or("undefined".to_owned(), |v| {
            super::store::js_string(v).to_string_lossy()
        });
        if did != format!("dec-{id}-a{attempt_text}") {
            errors.push(format!(
                "{id}: decision id {did} does not match its attempt"
            ));
        }
        if let Some(n) = attempt {
            if decided.contains(&n) {
                errors.push(format!(
                    "{id}: attempt {attempt_text} has more than one decision"
                ));
            }
            decided.push(n);
        }
        if !attempts.iter().filter_map(Json::as_object).any(|a| {
            a.get("attempt").and_then(Json::as_f64) == attempt
                && attempt.is_some()
                && text_is(a, "status", "completed")
        }) {
            errors.push(format!(
                "{id}: decision {did} targets a non-completed attempt"
            ));
        }
        check_text(
            x.get("rationale"),
            &format!("{id}: decision {did} rationale"),
            errors,
        );
        check_evidence(
            x.get("evidence"),
            &format!("{id}: decision {did} evidence"),
            errors,
        );
        if x.contains("concernsDisposition") {
            check_text(
                x.get("concernsDisposition"),
                &format!("{id}: decision {did} concernsDisposition"),
                errors,
            );
        }
    }
    let Some(acceptances) = array(d, "acceptances") else {
        errors.push(format!("{id}: delegated acceptances must be an array"));
        return;
    };
    let rework_ids: Vec<&Json> = reworks
        .iter()
        .filter_map(|r| r.as_object().and_then(|r| r.get("reworkId")))
        .collect();
    let current = acceptances
        .iter()
        .rev()
        .filter_map(Json::as_object)
        .find(|a| !truthy(a.get("revokedAt")));
    for acceptance in acceptances {
        let a = acceptance.as_object().cloned().unwrap_or_default();
        let did = a.get("decisionId").map_or("undefined".to_owned(), |v| {
            super::store::js_string(v).to_string_lossy()
        });
        let matching = decisions.iter().filter_map(Json::as_object).any(|x| {
            x.get("decisionId") == a.get("decisionId")
                && a.get("decisionId").is_some()
                && text_is(x, "decision", "accept")
        });
        if !matching {
            errors.push(format!(
                "{id}: acceptance {did} has no matching accept decision"
            ));
        }
        if a.contains("revokedAt")
            && a.get("revokedByReworkId")
                .is_none_or(|r| !rework_ids.contains(&r))
        {
            errors.push(format!(
                "{id}: revoked acceptance {did} references an unknown rework"
            ));
        }
        if a.contains("concernsDisposition") {
            check_text(
                a.get("concernsDisposition"),
                &format!("{id}: acceptance {did} concernsDisposition"),
                errors,
            );
        }
    }
    let mut latest: Option<f64> = None;
    for a in attempts
        .iter()
        .filter_map(Json::as_object)
        .filter(|a| text_is(a, "status", "completed"))
    {
        let n = a.get("attempt").and_then(Json::as_f64).unwrap_or(f64::NAN);
        if latest.is_none_or(|l| n > l) {
            latest = Some(n);
        }
    }
    if text_is(record, "state", "awaiting_acceptance") {
        match latest {
            None => errors.push(format!(
                "{id}: awaiting_acceptance without a completed attempt"
            )),
            Some(n) if decided.contains(&n) => errors.push(format!(
                "{id}: awaiting_acceptance but the latest attempt already has a decision"
            )),
            Some(_) => {}
        }
    }
    if text_is(record, "state", "ready_to_close") && current.is_none() {
        errors.push(format!(
            "{id}: ready_to_close without a currently applicable acceptance"
        ));
    }
}

fn validate_recoveries(history: &[Json], attempts: &[Json], id: &str, errors: &mut Vec<String>) {
    let mut ids: Vec<Json> = Vec::new();
    let mut messages: Vec<Json> = Vec::new();
    let mut autonomous = 0;
    for entry in history {
        let r = entry.as_object().cloned().unwrap_or_default();
        let rid = r.get("recoveryId").map_or("undefined".to_owned(), |v| {
            super::store::js_string(v).to_string_lossy()
        });
        let rid_value = r.get("recoveryId").cloned().unwrap_or(Json::Null);
        if !truthy(r.get("recoveryId")) || ids.contains(&rid_value) {
            errors.push(format!(
                "{id}: recovery entries require unique non-empty recoveryId values"
            ));
        }
        ids.push(rid_value);
        let kinds = ["resume", "autonomous_grant", "user_grant", "advance_grant"];
        if !kinds.iter().any(|k| text_is(&r, "kind", k)) {
            errors.push(format!("{id}: recovery {rid} has an invalid kind"));
        }
        if text_is(&r, "kind", "autonomous_grant") {
            autonomous += 1;
        }
        if text_is(&r, "kind", "user_grant") {
            match r
                .get("userMessageId")
                .filter(|m| m.as_string().is_some_and(|s| !s.is_empty()))
            {
                None => errors.push(format!(
                    "{id}: user-grant recovery {rid} requires its authorizing message id"
                )),
                Some(m) if messages.contains(m) => errors.push(format!(
                    "{id}: message {} authorized more than one recovery unit",
                    super::store::js_string(m).to_string_lossy()
                )),
                Some(m) => messages.push(m.clone()),
            }
        } else if r.contains("userMessageId") {
            errors.push(format!(
                "{id}: non-user recovery {rid} must not persist an authorization reference"
            ));
        }
        let target = r.get("targetAttempt").and_then(Json::as_f64);
        let terminal = target.is_some_and(|t| {
            t.fract() == 0.0
                && t >= 1.0
                && t <= attempts.len() as f64
                && attempts
                    .get(t as usize - 1)
                    .and_then(Json::as_object)
                    .is_some_and(|a| {
                        ["completed", "failed", "report_rejected"]
                            .iter()
                            .any(|s| text_is(a, "status", s))
                    })
        });
        if !terminal {
            errors.push(format!(
                "{id}: recovery {rid} targets a non-terminal attempt"
            ));
        }
        check_text(
            r.get("diagnosis"),
            &format!("{id}: recovery {rid} diagnosis"),
            errors,
        );
        check_text(
            r.get("changedCondition"),
            &format!("{id}: recovery {rid} changedCondition"),
            errors,
        );
        check_evidence(
            r.get("verification"),
            &format!("{id}: recovery {rid} verification"),
            errors,
        );
    }
    if autonomous > 1 {
        errors.push(format!(
            "{id}: at most one autonomous recovery grant may be recorded per item"
        ));
    }
}

/// `validateDelegatedText` with the rationale bound.
fn check_text(value: Option<&Json>, label: &str, errors: &mut Vec<String>) {
    match value.and_then(Json::as_string) {
        Some(s) if !crate::text::is_blank(s.units()) => {
            if crate::text::trim(s.units()).len() > 2000 {
                errors.push(format!("{label} exceeds 2000 characters"));
            }
        }
        _ => errors.push(format!("{label} must be a non-empty string")),
    }
}

/// `validateBoundedEvidence`.
fn check_evidence(value: Option<&Json>, label: &str, errors: &mut Vec<String>) {
    let Some(list) = value
        .and_then(Json::as_array)
        .filter(|l| !l.is_empty() && l.len() <= 8)
    else {
        errors.push(format!("{label} must contain 1 to 8 references"));
        return;
    };
    for reference in list {
        match reference.as_string() {
            Some(s) if !crate::text::is_blank(s.units()) => {
                if crate::text::trim(s.units()).len() > 512 {
                    errors.push(format!("{label} references exceed 512 characters"));
                    return;
                }
            }
            _ => {
                errors.push(format!("{label} references must be non-empty strings"));
                return;
            }
        }
    }
}
