//! The session's state file (upstream's `persistence.ts`, format version 4): where it lives, how a file hydrates, is found invalid or makes upstream's loader raise, and the write through a temporary file.
//!
//! The validators are in `persistence/`: `records.rs` (work items), `plans.rs` (plan runs,
//! executions, and what `ensureNativeExecutions` reads), and `engine.rs`, what the JavaScript
//! engine raises on the values upstream reads without checking their type.

mod engine;
mod plans;
mod records;

use std::borrow::Cow;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use engine::{Raised, get, readable};

/// `String(value)` as the engine converts a value read from a state file (`engine::string`).
pub(crate) use engine::string as engine_string;

use super::js::stringify;
use super::record::{obj, string, text, text_is, truthy};
use super::store::StoreData;
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
    load(&parsed, session).unwrap_or_else(Hydrated::Raises)
}

/// The checks of `hydrateWorkflowStateChecked` on the parsed file, in upstream's order: the
/// first failures return at once, the later ones are collected; `Err` is what the engine raises
/// where upstream reads a member without checking its type (`engine.rs`).
fn load(parsed: &Json, session: &JsString) -> Raised<Hydrated> {
    let file = Some(parsed);
    // `parsed.version` of a file holding `null`.
    readable(file, "parsed.version")?;
    let version = match get(file, "version") {
        Some(Json::Number(v)) if [1.0, 2.0, 3.0, 4.0].contains(v) => *v,
        other => {
            // `String(parsed.version)`: an object with a `toString` member raises.
            return Ok(Hydrated::Invalid(vec![format!(
                "unsupported persisted version {}",
                engine::text(other)?
            )]));
        }
    };
    let Some(Json::Array(list)) = get(file, "records") else {
        return Ok(Hydrated::Invalid(vec![
            "persisted records must be an array".to_owned(),
        ]));
    };
    let mut errors = Vec::new();
    let mut store = StoreData::default();
    for record in list {
        let mut record_errors = Vec::new();
        let Some(mut valid) = records::valid_record(record, session, version, &mut record_errors)?
        else {
            if record_errors.is_empty() {
                // `String(record?.workItemId ?? "(unknown)")`.
                let id = get(Some(record), "workItemId").filter(|v| !matches!(v, Json::Null));
                let id = match id {
                    Some(v) => engine::text(Some(v))?,
                    None => "(unknown)".to_owned(),
                };
                errors.push(format!("record {id} failed base validation"));
            } else {
                errors.extend(record_errors);
            }
            continue;
        };
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
    for (key, id) in entries(get(file, "keyIndex")) {
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
        let Some(Json::Array(runs)) = get(file, "planRuns") else {
            return Ok(Hydrated::Invalid(vec![
                "version 2 state requires a planRuns array".to_owned(),
            ]));
        };
        // `recordsByBareId`: the valid records by work item id.
        let by_id: Vec<(&JsString, &Object)> = store
            .records
            .iter()
            .filter_map(|(_, r)| Some((text(r, "workItemId")?, r)))
            .collect();
        for run in runs {
            let mut run_errors = Vec::new();
            if !plans::valid_plan_run(run, &by_id, session, version, &mut run_errors)? {
                errors.extend(run_errors);
            }
        }
        store.plan_runs = runs.to_vec();
    }
    if version >= VERSION {
        let Some(Json::Array(executions)) = get(file, "executions") else {
            return Ok(Hydrated::Invalid(vec![
                "version 4 state requires an executions array".to_owned(),
            ]));
        };
        for execution in executions {
            let mut execution_errors = Vec::new();
            if !plans::valid_execution(execution, session, &mut execution_errors)? {
                errors.extend(execution_errors);
            }
        }
        store.executions = executions.to_vec();
        // `for (const claim of parsed.messageClaims ?? [])`: not checked to be an array.
        let claims = match get(file, "messageClaims") {
            None | Some(Json::Null) => Cow::Borrowed(&[][..]),
            Some(value) => engine::iterate(value)?,
        };
        let mut seen: Vec<JsString> = Vec::new();
        for claim in claims.iter() {
            let field = |name| match get(Some(claim), name) {
                Some(Json::String(s)) if !crate::text::is_blank(s.units()) => Some(s.clone()),
                _ => None,
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
        return Ok(Hydrated::Invalid(errors));
    }
    store.next_id = match get(file, "nextId") {
        Some(Json::Number(n)) => Json::Number(*n),
        _ => Json::Number((store.records.len() + 1) as f64),
    };
    plans::native_executions(&store.plan_runs, &store.executions)?;
    Ok(Hydrated::Valid(store))
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
