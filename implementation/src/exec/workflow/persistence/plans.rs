//! Validation of a state file's plan runs and executions (tier 2): `validatePlanRun`,
//! `validateWorkflowExecution`, and the reads `ensureNativeExecutions` makes of a valid file's
//! plan runs, in upstream's order of evaluation, with the engine errors their unchecked reads
//! raise (`engine.rs`). The reference keeps plan runs and executions as the file gave them; only
//! whether they validate, and what the engine raises, is modelled here.

use super::RECOVERY_VERSION;
use super::engine::{
    Method, Raised, Value, callable, get, greater, is_object, map_entry, pair, readable, same,
    spreadable, text,
};
use super::records::{
    EMPTY, check_evidence, check_text, is_integer, is_role, is_str, is_string, one_of,
    recovery_grants, truthy,
};
use crate::js_string::JsString;
use crate::json::{Json, Object};

/// `MAX_CHECKPOINT_REVIEW_ATTEMPTS`.
const MAX_CHECKPOINT_REVIEW_ATTEMPTS: f64 = 2.0;

/// `validatePlanRun`: whether the run validates, its reasons added to `errors`; `records` are the
/// session's valid records by bare id (`recordsByBareId`).
pub(super) fn valid_plan_run(
    run: &Json,
    records: &[(&JsString, &Object)],
    session: &JsString,
    version: f64,
    errors: &mut Vec<String>,
) -> Raised<bool> {
    let c = Some(run);
    if !truthy(c) || !is_object(c) {
        errors.push("plan run entries must be objects".to_owned());
        return Ok(false);
    }
    let run_id = match get(c, "runId") {
        Some(Json::String(s)) if !s.is_empty() => s,
        _ => {
            errors.push("plan run requires a runId".to_owned());
            return Ok(false);
        }
    };
    let rid = run_id.to_string_lossy();
    if !matches!(get(c, "sessionId"), Some(Json::String(s)) if s == session) {
        errors.push(format!("plan run {rid} belongs to another session"));
        return Ok(false);
    }
    if !is_string(get(c, "planPath")) || !is_string(get(c, "specPath")) {
        errors.push(format!(
            "plan run {rid} requires canonical plan and spec paths"
        ));
        return Ok(false);
    }
    let (Some(Json::Array(tasks)), Some(Json::Array(checkpoints))) =
        (get(c, "tasks"), get(c, "checkpoints"))
    else {
        errors.push(format!(
            "plan run {rid} requires task and checkpoint arrays"
        ));
        return Ok(false);
    };
    let definition = get(c, "definition");
    if !truthy(definition) || !is_str(get(definition, "mode"), "delegated") {
        errors.push(format!("plan run {rid} requires its delegated definition"));
        return Ok(false);
    }
    let status = get(c, "status");
    if !one_of(status, &["active", "sealed"]) {
        errors.push(format!(
            "plan run {rid} has invalid status {}",
            text(status)?
        ));
        return Ok(false);
    }
    if is_str(status, "sealed") && !is_string(get(c, "sealedAt")) {
        errors.push(format!("plan run {rid} is sealed without sealedAt"));
        return Ok(false);
    }

    let mut task_ids: Vec<&JsString> = Vec::new();
    for task in tasks {
        // `task.taskId`: a null entry raises.
        readable(Some(task), "task.taskId")?;
        let t = Some(task);
        let (Some(Json::String(task_id)), Some(Json::String(item))) =
            (get(t, "taskId"), get(t, "workItemId"))
        else {
            errors.push(format!("plan run {rid} has a malformed task binding"));
            continue;
        };
        let tid = task_id.to_string_lossy();
        if task_ids.contains(&task_id) {
            errors.push(format!("plan run {rid} binds task {tid} twice"));
        }
        task_ids.push(task_id);
        let record = records
            .iter()
            .rev()
            .find(|(id, _)| *id == item)
            .map(|(_, r)| *r);
        let delegated = record.and_then(|r| r.get("delegated"));
        let bound = record
            .is_some_and(|r| matches!(r.get("mode"), Some(Json::String(m)) if *m == "delegated"))
            && matches!(get(delegated, "planRunId"), Some(Json::String(p)) if p == run_id)
            && matches!(get(delegated, "planTaskId"), Some(Json::String(p)) if p == task_id);
        if !bound {
            errors.push(format!(
                "plan run {rid} task {tid} is not bound to work item {}",
                item.to_string_lossy()
            ));
        }
    }

    for checkpoint in checkpoints {
        // `checkpoint.checkpointId`: a null entry raises.
        readable(Some(checkpoint), "checkpoint.checkpointId")?;
        // `!checkpointIds.add(id)` is never true (`add` returns the set): only a checkpoint id
        // that is not a string is caught, a repeated one is not.
        if !check_checkpoint(checkpoint, version, errors)? {
            errors.push(format!(
                "plan run {rid} has duplicate or malformed checkpoint ids"
            ));
        }
    }

    let finals: Vec<&Json> = checkpoints
        .iter()
        .filter(|cp| is_str(get(Some(cp), "kind"), "final"))
        .collect();
    if finals.len() != 1 {
        errors.push(format!(
            "plan run {rid} must persist exactly one final checkpoint"
        ));
    } else if is_str(status, "sealed") && !is_str(get(Some(finals[0]), "status"), "passed") {
        errors.push(format!(
            "plan run {rid} is sealed without a passed final checkpoint"
        ));
    }
    Ok(errors.is_empty())
}

/// One step of the loop over a plan run's checkpoints (not `null`); `false` when its id is not a
/// string (the caller reports it).
fn check_checkpoint(checkpoint: &Json, version: f64, errors: &mut Vec<String>) -> Raised<bool> {
    let k = Some(checkpoint);
    let Some(Json::String(cid)) = get(k, "checkpointId") else {
        return Ok(false);
    };
    let cid = cid.to_string_lossy();
    let (kind, status) = (get(k, "kind"), get(k, "status"));
    if !one_of(kind, &["milestone", "final"]) {
        errors.push(format!("checkpoint {cid} has invalid kind {}", text(kind)?));
    }
    let reviewers = get(k, "reviewers");
    if !matches!(reviewers, Some(Json::Array(r)) if !r.is_empty() && r.iter().all(is_role)) {
        errors.push(format!(
            "checkpoint {cid} requires a non-empty spec/code reviewer set"
        ));
    }
    if !one_of(status, &["pending", "in_review", "passed", "failed"]) {
        errors.push(format!(
            "checkpoint {cid} has invalid status {}",
            text(status)?
        ));
    }
    let last = get(k, "lastOutcome");
    if last.is_some()
        && !one_of(
            last,
            &["passed", "failed", "stale", "stopped", "incomplete"],
        )
    {
        errors.push(format!(
            "checkpoint {cid} has invalid lastOutcome {}",
            text(last)?
        ));
    }
    let Some(Json::Array(history)) = get(k, "history") else {
        errors.push(format!("checkpoint {cid} requires a history array"));
        return Ok(true);
    };
    for entry in history {
        // `entry.outcome`: a null entry raises.
        readable(Some(entry), "entry.outcome")?;
        let outcome = get(Some(entry), "outcome");
        if !one_of(outcome, &["passed", "failed", "stale", "stopped"]) {
            errors.push(format!(
                "checkpoint {cid} history has invalid outcome {}",
                text(outcome)?
            ));
        }
        if is_str(outcome, "stopped") && version < RECOVERY_VERSION {
            errors.push(format!(
                "checkpoint {cid} stopped history requires persisted version 3"
            ));
        }
        if !matches!(get(Some(entry), "generation"), Some(Json::Number(_)))
            || !is_string(get(Some(entry), "fingerprint"))
        {
            errors.push(format!("checkpoint {cid} history entry is malformed"));
        }
    }
    let attempts = get(k, "attempts");
    match get(k, "recoveryHistory") {
        Some(Json::Array(entries)) if !entries.is_empty() && version < RECOVERY_VERSION => {
            errors.push(format!(
                "checkpoint {cid} recovery history requires persisted version 3"
            ));
        }
        Some(recoveries @ Json::Array(entries)) => {
            check_checkpoint_recoveries(entries, attempts, &cid, errors)?;
            // `checkpoint.attempts > MAX_CHECKPOINT_REVIEW_ATTEMPTS +
            // checkpointRecoveryGrantCount(recoveryHistory)`: a conversion of `attempts`.
            let budget = MAX_CHECKPOINT_REVIEW_ATTEMPTS + recovery_grants(recoveries)? as f64;
            if greater(attempts, Some(&Json::Number(budget)))? {
                errors.push(format!(
                    "checkpoint {cid} generations exceed the ordinary budget plus recovery grants"
                ));
            }
        }
        _ => {
            if version >= RECOVERY_VERSION {
                errors.push(format!(
                    "checkpoint {cid} requires a recovery history at persisted version 3"
                ));
            }
        }
    }
    let review = get(k, "currentReview");
    let next_generation = Json::Number(history.len() as f64 + 1.0);
    if is_str(status, "in_review") {
        if !truthy(review)
            || !same(get(review, "generation"), attempts)
            || !same(get(review, "generation"), Some(&next_generation))
        {
            errors.push(format!(
                "checkpoint {cid} in_review without a consistent current generation"
            ));
        } else {
            check_review_reviewers(review, reviewers, &cid, errors)?;
        }
    } else if review.is_some() {
        errors.push(format!(
            "checkpoint {cid} is {} but still carries a current review",
            text(status)?
        ));
    }
    let last_outcome = history.last().and_then(|e| get(Some(e), "outcome"));
    if is_str(status, "passed") && !is_str(last_outcome, "passed") {
        errors.push(format!(
            "checkpoint {cid} passed without a passing history entry"
        ));
    }
    if is_str(status, "failed") && !one_of(last_outcome, &["failed", "stale", "stopped"]) {
        errors.push(format!(
            "checkpoint {cid} failed without a failing history entry"
        ));
    }
    let in_review = if is_str(status, "in_review") {
        1.0
    } else {
        0.0
    };
    let generations = Json::Number(history.len() as f64 + in_review);
    if !same(attempts, Some(&generations)) {
        errors.push(format!(
            "checkpoint {cid} attempts do not match its generations"
        ));
    }
    Ok(true)
}

/// The reviewers of an in-review checkpoint's current review (an object): each key of
/// `review.results ?? {}`, then `Object.keys(review.reviewerCallIds ?? {}).some(…)`, goes to
/// `checkpoint.reviewers.includes(reviewer)`, where `reviewers` was not checked to be an array
/// (a string's `includes` looks for a substring).
fn check_review_reviewers(
    review: Value,
    reviewers: Value,
    cid: &str,
    errors: &mut Vec<String>,
) -> Raised<()> {
    let includes = |reviewer: &JsString| -> Raised<bool> {
        callable(
            reviewers,
            Method::Includes,
            "checkpoint.reviewers.includes",
            "checkpoint.reviewers.includes(reviewer)",
        )?;
        Ok(match reviewers {
            Some(Json::Array(items)) => items
                .iter()
                .any(|r| matches!(r, Json::String(s) if s == reviewer)),
            Some(Json::String(s)) => contains_units(s.units(), reviewer.units()),
            _ => false,
        })
    };
    for reviewer in keys(get(review, "results")) {
        if !includes(&reviewer)? {
            errors.push(format!(
                "checkpoint {cid} recorded an undeclared reviewer {}",
                reviewer.to_string_lossy()
            ));
        }
    }
    for reviewer in keys(get(review, "reviewerCallIds")) {
        if !includes(&reviewer)? {
            errors.push(format!(
                "checkpoint {cid} bound an undeclared reviewer call"
            ));
            break;
        }
    }
    Ok(())
}

/// `Object.keys(value ?? {})`: an object's member names (in the order parsing gave them, the
/// engine's), the indexes of an array or of a string's UTF-16 units, none for the rest.
fn keys(value: Value) -> Vec<JsString> {
    let indexes = |n: usize| (0..n).map(|i| JsString::from(i.to_string())).collect();
    match value {
        Some(Json::Object(o)) => o.iter().map(|(k, _)| k.clone()).collect(),
        Some(Json::Array(items)) => indexes(items.len()),
        Some(Json::String(s)) => indexes(s.len()),
        _ => Vec::new(),
    }
}

/// `haystack.includes(needle)` of two strings.
fn contains_units(haystack: &[u16], needle: &[u16]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}

/// The loop over a checkpoint's recovery history (version 3 and later, or an empty one).
fn check_checkpoint_recoveries(
    history: &[Json],
    attempts: Value,
    cid: &str,
    errors: &mut Vec<String>,
) -> Raised<()> {
    let mut ids: Vec<Value> = Vec::new();
    let mut messages: Vec<&JsString> = Vec::new();
    let mut autonomous = 0;
    for entry in history {
        // `recovery.recoveryId`: a null entry raises.
        readable(Some(entry), "recovery.recoveryId")?;
        let r = Some(entry);
        let rid_value = get(r, "recoveryId");
        let rid = || text(rid_value);
        if !truthy(rid_value) || ids.iter().any(|i| same(*i, rid_value)) {
            errors.push(format!(
                "checkpoint {cid} recovery entries require unique non-empty recoveryId values"
            ));
        }
        ids.push(match rid_value {
            None | Some(Json::Null) => Some(&EMPTY),
            v => v,
        });
        let kind = get(r, "kind");
        if !one_of(
            kind,
            &["resume", "autonomous_grant", "user_grant", "advance_grant"],
        ) {
            errors.push(format!(
                "checkpoint {cid} recovery {} has an invalid kind",
                rid()?
            ));
        }
        if is_str(kind, "autonomous_grant") {
            autonomous += 1;
        }
        let message = get(r, "userMessageId");
        if is_str(kind, "user_grant") {
            match message {
                Some(Json::String(m)) if !m.is_empty() => {
                    if messages.contains(&m) {
                        errors.push(format!(
                            "checkpoint {cid} message {} authorized more than one recovery unit",
                            m.to_string_lossy()
                        ));
                    } else {
                        messages.push(m);
                    }
                }
                _ => errors.push(format!(
                    "checkpoint {cid} user-grant recovery {} requires its authorizing message id",
                    rid()?
                )),
            }
        } else if message.is_some() {
            errors.push(format!(
                "checkpoint {cid} non-user recovery {} must not persist an authorization reference",
                rid()?
            ));
        }
        // `!Number.isInteger(t) || t < 1 || t > checkpoint.attempts`: the last converts
        // `attempts`.
        let target = get(r, "targetGeneration");
        let unknown = !is_integer(target)
            || target.and_then(Json::as_f64).is_some_and(|t| t < 1.0)
            || greater(target, attempts)?;
        if unknown {
            errors.push(format!(
                "checkpoint {cid} recovery {} targets an unknown generation",
                rid()?
            ));
        }
        let rid = rid()?;
        check_text(
            get(r, "diagnosis"),
            &format!("checkpoint {cid} recovery {rid} diagnosis"),
            errors,
        );
        check_text(
            get(r, "changedCondition"),
            &format!("checkpoint {cid} recovery {rid} changedCondition"),
            errors,
        );
        check_evidence(
            get(r, "verification"),
            &format!("checkpoint {cid} recovery {rid} verification"),
            errors,
        );
    }
    if autonomous > 1 {
        errors.push(format!(
            "checkpoint {cid} has more than one autonomous recovery grant"
        ));
    }
    Ok(())
}

/// `isNonEmptyString`.
fn non_empty(value: Value) -> bool {
    matches!(value, Some(Json::String(s)) if !crate::text::is_blank(s.units()))
}

/// `validateWorkflowExecution` and, for an execution that validates, the `new Map(…)` of its
/// task and checkpoint entries: whether it validates, its reasons added to `errors`.
pub(super) fn valid_execution(
    candidate: &Json,
    session: &JsString,
    errors: &mut Vec<String>,
) -> Raised<bool> {
    // `candidate.runId`: a null entry raises.
    readable(Some(candidate), "candidate.runId")?;
    let c = Some(candidate);
    let before = errors.len();
    let run_id = get(c, "runId");
    // `${candidate.runId}`, converted each time a message names it.
    let rid = || text(run_id);
    if !non_empty(run_id) {
        errors.push("execution requires a runId".to_owned());
    }
    if !matches!(get(c, "sessionId"), Some(Json::String(s)) if s == session) {
        errors.push(format!("execution {} belongs to another session", rid()?));
    }
    for (member, what) in [
        ("workspaceRoot", "a workspaceRoot"),
        ("executionKey", "an executionKey"),
        ("goal", "a goal"),
    ] {
        if !non_empty(get(c, member)) {
            errors.push(format!("execution {} requires {what}", rid()?));
        }
    }
    let state = get(c, "state");
    if !one_of(state, &["preparing", "active", "sealed"]) {
        errors.push(format!(
            "execution {} has invalid state {}",
            rid()?,
            text(state)?
        ));
    }
    let revision = get(c, "revision");
    if !is_integer(revision) || revision.and_then(Json::as_f64).is_some_and(|r| r < 1.0) {
        errors.push(format!("execution {} requires a positive revision", rid()?));
    }
    let source = get(c, "source");
    if !truthy(source) || !is_object(source) {
        errors.push(format!("execution {} requires a source", rid()?));
    } else if !one_of(
        get(source, "kind"),
        &["native-package", "provided-plan", "conversation-scoped"],
    ) {
        errors.push(format!("execution {} has an invalid source kind", rid()?));
    }
    let boundary = get(c, "boundary");
    if !truthy(boundary)
        || !matches!(get(boundary, "files"), Some(Json::Array(_)))
        || !matches!(get(boundary, "directories"), Some(Json::Array(_)))
    {
        errors.push(format!(
            "execution {} requires a boundary with files and directories",
            rid()?
        ));
    }
    match get(c, "tasks") {
        Some(Json::Array(tasks)) if !tasks.is_empty() => {
            let mut ids: Vec<Option<Json>> = Vec::new();
            for entry in tasks {
                // `const [taskId, binding] of candidate.tasks`: each entry is destructured.
                let (task_id, binding) = pair(entry, "const [taskId, binding] of candidate.tasks")?;
                if ids.iter().any(|i| same(i.as_ref(), task_id.as_ref())) {
                    errors.push(format!(
                        "execution {} repeats task {}",
                        rid()?,
                        text(task_id.as_ref())?
                    ));
                }
                ids.push(task_id.clone());
                let binding = binding.as_ref();
                if !truthy(binding) || !same(get(binding, "taskId"), task_id.as_ref()) {
                    errors.push(format!(
                        "execution {} task {} binding mismatch",
                        rid()?,
                        text(task_id.as_ref())?
                    ));
                }
            }
        }
        _ => errors.push(format!(
            "execution {} requires at least one task binding",
            rid()?
        )),
    }
    let is_array = |member| matches!(get(c, member), Some(Json::Array(_)));
    if !is_array("checkpoints") {
        errors.push(format!("execution {} requires a checkpoints array", rid()?));
    }
    if !is_array("lineage") {
        errors.push(format!("execution {} requires a lineage array", rid()?));
    }
    if !is_array("authority") || !is_array("stageApprovals") {
        errors.push(format!(
            "execution {} requires authority and stageApprovals arrays",
            rid()?
        ));
    }
    if !is_array("reserveDebits") {
        errors.push(format!(
            "execution {} requires a reserveDebits array",
            rid()?
        ));
    }
    if errors.len() != before {
        return Ok(false);
    }
    // `executions.set(…, {…, tasks: new Map(serialized.tasks), checkpoints:
    // new Map(serialized.checkpoints)})`: valid task entries are arrays; checkpoint entries were
    // not checked.
    for entry in get(c, "checkpoints")
        .and_then(Json::as_array)
        .unwrap_or(&[])
    {
        map_entry(entry)?;
    }
    Ok(true)
}

/// The checkpoint map's source text, as Bun prints the transpiled callback.
const CHECKPOINTS_MAP: &str = "definition.checkpoints.map((checkpoint) => ({\n    checkpointId: checkpoint.checkpointId,\n    kind: checkpoint.kind,\n    covers: [...checkpoint.covers],\n    scope: [...checkpoint.scope],\n    requiredReviewers: [...checkpoint.reviewers],\n    acceptance: [...checkpoint.acceptance],\n    verification: [...checkpoint.verification],\n    origin: scope?.origin ?? \"source\",\n    dependsOn: [...scope?.dependsOn ?? []]\n  }))";

/// `ensureNativeExecutions` on a valid file: for each plan run (the last of those sharing a
/// `runId`, at the first one's place) without an execution of its `runId`, the reads of
/// `taskContractsFromNativeDefinition` and `checkpointContractsFromNativeDefinition` of its
/// `definition`, which was only checked to have `mode` `delegated`. The execution upstream then
/// materializes is not modelled (tier 2).
pub(super) fn native_executions(runs: &[Json], executions: &[Json]) -> Raised<()> {
    let mut unique: Vec<(&Json, &Json)> = Vec::new();
    for run in runs {
        let Some(id) = get(Some(run), "runId") else {
            continue;
        };
        match unique.iter_mut().find(|(i, _)| same(Some(*i), Some(id))) {
            Some((_, r)) => *r = run,
            None => unique.push((id, run)),
        }
    }
    for (id, run) in unique {
        if executions
            .iter()
            .any(|e| same(get(Some(e), "runId"), Some(id)))
        {
            continue;
        }
        let definition = get(Some(run), "definition");
        native_tasks(get(definition, "tasks"))?;
        let checkpoints = get(definition, "checkpoints");
        callable(
            checkpoints,
            Method::Map,
            "definition.checkpoints.map",
            CHECKPOINTS_MAP,
        )?;
        for checkpoint in checkpoints.and_then(Json::as_array).unwrap_or(&[]) {
            readable(Some(checkpoint), "checkpoint.checkpointId")?;
            for member in ["covers", "scope", "reviewers", "acceptance", "verification"] {
                // `[...checkpoint.<member>]`.
                spreadable(get(Some(checkpoint), member))?;
            }
        }
    }
    Ok(())
}

/// `taskContractsFromNativeDefinition`'s reads of `definition.tasks`.
fn native_tasks(tasks: Value) -> Raised<()> {
    // `new Set(definition.tasks.map((task) => task.taskId))`.
    callable(
        tasks,
        Method::Map,
        "definition.tasks.map",
        "definition.tasks.map((task) => task.taskId)",
    )?;
    let tasks = tasks.and_then(Json::as_array).unwrap_or(&[]);
    for task in tasks {
        readable(Some(task), "task.taskId")?;
    }
    for task in tasks {
        let t = Some(task);
        // `(task.<list> ?? []).map((entry) => entry.trim())`.
        for list in ["acceptance", "verification", "dependsOn"] {
            let value = get(t, list).filter(|v| !matches!(v, Json::Null));
            let Some(value) = value else {
                continue;
            };
            let callee = format!("(task.{list} ?? []).map");
            let call = format!("{callee}((entry) => entry.trim())");
            callable(Some(value), Method::Map, &callee, &call)?;
            for entry in value.as_array().unwrap_or(&[]) {
                callable(Some(entry), Method::Trim, "entry.trim", "entry.trim()")?;
            }
        }
        // `(task.title ?? task.taskId).trim()`.
        let title = get(t, "title")
            .filter(|v| !matches!(v, Json::Null))
            .or(get(t, "taskId"));
        callable(
            title,
            Method::Trim,
            "(task.title ?? task.taskId).trim",
            "(task.title ?? task.taskId).trim()",
        )?;
        // `[...task.writeScope]`.
        spreadable(get(t, "writeScope"))?;
    }
    Ok(())
}
