//! Validation of a state file's work-item records: `isWorkItemRecord` and what it calls
//! (`isWorkflowResultExcerpt`, `isReviewRound`, `validateDelegatedState`), in upstream's order of
//! evaluation, with the engine errors its unchecked reads raise (`engine.rs`).

use super::super::delegated::BASE_ATTEMPTS;
use super::super::js::is;
use super::super::store::normalize_scope_path;
use super::RECOVERY_VERSION;
use super::engine::{
    Method, Raised, Value, callable, get, greater, is_object, length, less_or_equal, number,
    readable, same, string, text,
};
use crate::js_string::JsString;
use crate::json::{Json, Object};
use crate::text::{is_blank, trim};

/// `DELEGATED_RATIONALE_MAX_CHARS`.
const RATIONALE_MAX: usize = 2000;
/// `DELEGATED_EVIDENCE_MAX_REFS`, `DELEGATED_EVIDENCE_MAX_CHARS`.
const EVIDENCE_MAX_REFS: usize = 8;
const EVIDENCE_MAX_CHARS: usize = 512;
/// `DELEGATED_RECOVERY_CODE_MAX_CHARS`.
const RECOVERY_CODE_MAX: usize = 128;

/// `value === "<s>"`.
pub(super) fn is_str(value: Value, s: &str) -> bool {
    matches!(value, Some(Json::String(v)) if is(v.units(), s))
}

/// `value` is one of the strings `set` (`SET.has(value)`).
pub(super) fn one_of(value: Value, set: &[&str]) -> bool {
    set.iter().any(|s| is_str(value, s))
}

/// `typeof value === "string"`.
pub(super) fn is_string(value: Value) -> bool {
    matches!(value, Some(Json::String(_)))
}

/// `Number.isInteger(value)`.
pub(super) fn is_integer(value: Value) -> bool {
    matches!(value, Some(Json::Number(n)) if n.is_finite() && n.fract() == 0.0)
}

/// `isReviewerRole`.
pub(super) fn is_role(value: &Json) -> bool {
    is_str(Some(value), "spec") || is_str(Some(value), "code")
}

/// `Array.isArray(value) && value.every(isReviewerRole)`.
fn roles(value: Value) -> bool {
    matches!(value, Some(Json::Array(items)) if items.iter().all(is_role))
}

/// JavaScript truthiness.
pub(super) fn truthy(value: Value) -> bool {
    super::super::record::truthy(value)
}

/// `isWorkflowResultExcerpt`.
fn is_excerpt(value: Value) -> Raised<bool> {
    if !truthy(value) || !is_object(value) {
        return Ok(false);
    }
    let (source, text_value) = (get(value, "source"), get(value, "text"));
    let (truncated, original, max) = (
        get(value, "truncated"),
        get(value, "originalLength"),
        get(value, "maxLength"),
    );
    // `hasValidLengthMetadata` comes first and reads `excerpt.text.length` unchecked: a missing
    // or null `text` raises there (after `originalLength > maxLength`, itself a conversion that
    // may raise, when `truncated` is truthy).
    let lengths = if truthy(truncated) {
        if greater(original, max)? {
            readable(text_value, "excerpt.text.length")?;
            same(text_value.and_then(length).as_ref(), max)
        } else {
            false
        }
    } else {
        readable(text_value, "excerpt.text.length")?;
        let len = text_value.and_then(length);
        same(original, len.as_ref()) && less_or_equal(len.as_ref(), max)?
    };
    Ok(one_of(source, &["parsed_body", "normalized_output"])
        && is_string(text_value)
        && matches!(truncated, Some(Json::Bool(_)))
        && is_integer(original)
        && is_integer(max)
        && max.and_then(Json::as_f64).is_some_and(|m| m > 0.0)
        && lengths)
}

/// `value === undefined || isWorkflowResultExcerpt(value)`.
fn absent_or_excerpt(value: Value) -> Raised<bool> {
    Ok(value.is_none() || is_excerpt(value)?)
}

/// `isReviewRoundResult`.
fn is_round_result(value: Value) -> Raised<bool> {
    if !truthy(value) || !is_object(value) {
        return Ok(false);
    }
    Ok(get(value, "reviewer").is_some_and(is_role)
        && one_of(
            get(value, "agent"),
            &["vv-spec-reviewer", "vv-code-reviewer"],
        )
        && one_of(get(value, "status"), &["PASS", "FAIL", "NEEDS_CONTEXT"])
        && is_string(get(value, "completedAt"))
        && absent_or_excerpt(get(value, "resultExcerpt"))?)
}

/// `isReviewRound`.
fn is_round(value: Value) -> Raised<bool> {
    if !truthy(value) || !is_object(value) {
        return Ok(false);
    }
    let results = get(value, "results");
    let result_ok = |role| -> Raised<bool> {
        let result = get(results, role);
        Ok(result.is_none() || is_round_result(result)?)
    };
    Ok(is_integer(get(value, "round"))
        && roles(get(value, "requiredReviewers"))
        && roles(get(value, "pendingReviewers"))
        && roles(get(value, "inFlightReviewers"))
        && roles(get(value, "completedReviewers"))
        && truthy(results)
        && is_object(results)
        && result_ok("spec")?
        && result_ok("code")?
        && one_of(get(value, "status"), &["active", "completed"])
        && is_string(get(value, "createdAt")))
}

/// `isWorkItemRecord`: the record when it validates; `None` with the reasons found otherwise
/// (none when the base checks failed).
pub(super) fn valid_record(
    value: &Json,
    session: &JsString,
    version: f64,
    errors: &mut Vec<String>,
) -> Raised<Option<Object>> {
    // An array passes `typeof value === "object"` but fails the first check below.
    let Some(record) = value.as_object() else {
        return Ok(None);
    };
    let r = Some(value);
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
    let base = matches!(get(r, "sessionId"), Some(Json::String(s)) if s == session)
        && is_string(get(r, "workItemId"))
        && is_string(get(r, "key"))
        && is_string(get(r, "title"))
        && one_of(
            get(r, "mode"),
            &["implementation", "review_only", "delegated"],
        )
        && roles(get(r, "requiredReviewers"))
        && one_of(get(r, "state"), &states)
        && is_integer(get(r, "completedReviewRoundCount"))
        && is_integer(get(r, "specReviewCount"))
        && is_integer(get(r, "codeReviewCount"))
        && absent_or_excerpt(get(r, "resultExcerpt"))?
        && is_string(get(r, "createdAt"))
        && is_string(get(r, "updatedAt"))
        && (get(r, "currentRound").is_none() || is_round(get(r, "currentRound"))?);
    if !base {
        return Ok(None);
    }
    let id = text(get(r, "workItemId"))?;
    let mode = text(get(r, "mode"))?;
    let reviewers = get(r, "requiredReviewers").and_then(Json::as_array);
    if mode == "delegated" {
        let before = errors.len();
        validate_delegated(r, &id, version, errors)?;
        return Ok((errors.len() == before).then(|| record.clone()));
    }
    if reviewers.is_some_and(<[Json]>::is_empty) {
        errors.push(format!(
            "{id}: {mode} records require non-empty requiredReviewers"
        ));
        return Ok(None);
    }
    if record.contains("delegated") {
        errors.push(format!(
            "{id}: delegated state on a {mode} record is contradictory"
        ));
        return Ok(None);
    }
    Ok(Some(record.clone()))
}

/// `isValidScopeList`.
fn is_scope_list(value: Value) -> bool {
    let Some(Json::Array(scope)) = value else {
        return false;
    };
    !scope.is_empty()
        && scope.iter().enumerate().all(|(i, entry)| {
            entry.as_string().is_some_and(|s| {
                normalize_scope_path(s.units()).is_ok_and(|p| p == *s)
                    && !scope[..i].contains(entry)
            })
        })
}

/// `validateDelegatedState`: every contradiction of a delegated record's ledger, in upstream's
/// order, or what the engine raises on the way.
fn validate_delegated(
    record: Value,
    id: &str,
    version: f64,
    errors: &mut Vec<String>,
) -> Raised<()> {
    let delegated = get(record, "delegated");
    if !truthy(delegated) || !is_object(delegated) {
        errors.push(format!(
            "{id}: delegated records require a delegated state object"
        ));
        return Ok(());
    }
    if get(record, "requiredReviewers")
        .and_then(Json::as_array)
        .is_some_and(|r| !r.is_empty())
    {
        errors.push(format!(
            "{id}: delegated records must persist an empty requiredReviewers array"
        ));
    }
    if get(delegated, "planRunId").is_none() != get(delegated, "planTaskId").is_none() {
        errors.push(format!(
            "{id}: planRunId and planTaskId must be persisted together or absent"
        ));
    }
    if !is_scope_list(get(delegated, "writeScope")) {
        errors.push(format!(
            "{id}: delegated writeScope must be a non-empty canonical path list"
        ));
    }
    let Some(Json::Array(attempts)) = get(delegated, "attempts") else {
        errors.push(format!("{id}: delegated attempts must be an array"));
        return Ok(());
    };
    let mut in_flight = 0;
    for (index, attempt) in attempts.iter().enumerate() {
        check_attempt(attempt, index, id, version, &mut in_flight, errors)?;
    }
    if in_flight > 1 {
        errors.push(format!(
            "{id}: at most one delegated attempt may be in flight"
        ));
    }
    // `delegated.reworkHistory.some((rework) => !rework.reworkId || !rework.authorizedByCheckpoint)`:
    // not checked to be an array; stops at the first entry lacking either.
    let reworks_value = get(delegated, "reworkHistory");
    callable(
        reworks_value,
        Method::Some,
        "delegated.reworkHistory.some",
        "delegated.reworkHistory.some((rework) => !rework.reworkId || !rework.authorizedByCheckpoint)",
    )?;
    let reworks = reworks_value.and_then(Json::as_array).unwrap_or(&[]);
    for rework in reworks {
        readable(Some(rework), "rework.reworkId")?;
        let r = Some(rework);
        if !truthy(get(r, "reworkId")) || !truthy(get(r, "authorizedByCheckpoint")) {
            errors.push(format!(
                "{id}: rework history entries require ids and checkpoint authorization"
            ));
            break;
        }
    }
    let history = get(delegated, "recoveryHistory");
    match history {
        Some(Json::Array(entries)) if !entries.is_empty() && version < RECOVERY_VERSION => {
            errors.push(format!(
                "{id}: recovery history requires persisted version 3"
            ));
        }
        Some(Json::Array(entries)) => check_recoveries(entries, attempts, id, errors)?,
        _ => {
            if version >= RECOVERY_VERSION {
                errors.push(format!(
                    "{id}: version 3 delegated records require a recovery history"
                ));
            }
        }
    }
    // `attempts.length > DELEGATED_BASE_ATTEMPTS + delegated.reworkHistory.length +
    // delegatedRecoveryGrantCount(delegated.recoveryHistory ?? [])`: the history, whatever it
    // is, goes to `history.filter((entry) => entry.kind === …)`.
    let grants = match history {
        None | Some(Json::Null) => 0,
        Some(h) => recovery_grants(h)?,
    };
    if attempts.len() > BASE_ATTEMPTS + reworks.len() + grants {
        errors.push(format!(
            "{id}: attempts exceed the base budget plus authorized rework and recovery grants"
        ));
    }
    let Some(Json::Array(decisions)) = get(delegated, "decisions") else {
        errors.push(format!("{id}: delegated decisions must be an array"));
        return Ok(());
    };
    let mut decided: Vec<Value> = Vec::new();
    for decision in decisions {
        // `decision.decision`.
        readable(Some(decision), "decision.decision")?;
        let x = Some(decision);
        let (did, attempt) = (get(x, "decisionId"), get(x, "attempt"));
        if !one_of(get(x, "decision"), &["accept", "request_changes"]) {
            errors.push(format!(
                "{id}: decision {} has an invalid decision value",
                text(did)?
            ));
            continue;
        }
        // `dec-${record.workItemId}-a${decision.attempt}`, compared unit for unit.
        let mut expected = JsString::from("dec-");
        if let Some(Json::String(w)) = get(record, "workItemId") {
            expected.push_units(w.units());
        }
        expected.push_str("-a");
        expected.push_units(string(attempt)?.units());
        if !matches!(did, Some(Json::String(s)) if *s == expected) {
            errors.push(format!(
                "{id}: decision id {} does not match its attempt",
                text(did)?
            ));
        }
        if decided.iter().any(|d| same(*d, attempt)) {
            errors.push(format!(
                "{id}: attempt {} has more than one decision",
                text(attempt)?
            ));
        }
        decided.push(attempt);
        let completed = attempts.iter().any(|a| {
            let a = Some(a);
            same(get(a, "attempt"), attempt) && is_str(get(a, "status"), "completed")
        });
        if !completed {
            errors.push(format!(
                "{id}: decision {} targets a non-completed attempt",
                text(did)?
            ));
        }
        let did = text(did)?;
        check_text(
            get(x, "rationale"),
            &format!("{id}: decision {did} rationale"),
            errors,
        );
        check_evidence(
            get(x, "evidence"),
            &format!("{id}: decision {did} evidence"),
            errors,
        );
        if get(x, "concernsDisposition").is_some() {
            check_text(
                get(x, "concernsDisposition"),
                &format!("{id}: decision {did} concernsDisposition"),
                errors,
            );
        }
    }
    let Some(Json::Array(acceptances)) = get(delegated, "acceptances") else {
        errors.push(format!("{id}: delegated acceptances must be an array"));
        return Ok(());
    };
    // `new Set(delegated.reworkHistory.map((rework) => rework.reworkId))`: every entry now,
    // where `.some` above may have stopped early.
    let mut rework_ids: Vec<Value> = Vec::new();
    for rework in reworks {
        readable(Some(rework), "rework.reworkId")?;
        rework_ids.push(get(Some(rework), "reworkId"));
    }
    // `currentAcceptance = [...acceptances].reverse().find((acceptance) => !acceptance.revokedAt)`,
    // later tested for truthiness (an entry `false` is found, and is no acceptance).
    let mut current = false;
    for acceptance in acceptances.iter().rev() {
        readable(Some(acceptance), "acceptance.revokedAt")?;
        if !truthy(get(Some(acceptance), "revokedAt")) {
            current = truthy(Some(acceptance));
            break;
        }
    }
    for acceptance in acceptances {
        let a = Some(acceptance);
        // `decisions.find((decision) => decision.decisionId === acceptance.decisionId && …)`,
        // then `${acceptance.decisionId}`: either reads the member of a null acceptance.
        let mut matching = false;
        for decision in decisions {
            readable(a, "acceptance.decisionId")?;
            let x = Some(decision);
            if same(get(x, "decisionId"), get(a, "decisionId"))
                && is_str(get(x, "decision"), "accept")
            {
                matching = true;
                break;
            }
        }
        readable(a, "acceptance.decisionId")?;
        let did = get(a, "decisionId");
        if !matching {
            errors.push(format!(
                "{id}: acceptance {} has no matching accept decision",
                text(did)?
            ));
        }
        let by = get(a, "revokedByReworkId");
        if get(a, "revokedAt").is_some()
            && (by.is_none() || !rework_ids.iter().any(|r| same(*r, by)))
        {
            errors.push(format!(
                "{id}: revoked acceptance {} references an unknown rework",
                text(did)?
            ));
        }
        if get(a, "concernsDisposition").is_some() {
            check_text(
                get(a, "concernsDisposition"),
                &format!("{id}: acceptance {} concernsDisposition", text(did)?),
                errors,
            );
        }
    }
    let state = get(record, "state");
    // `[...attempts].filter(completed).sort((left, right) => right.attempt - left.attempt)[0]`.
    let latest = latest_completed(attempts)?;
    if is_str(state, "awaiting_acceptance") {
        match latest {
            None => errors.push(format!(
                "{id}: awaiting_acceptance without a completed attempt"
            )),
            Some(n) if decided.iter().any(|d| same(*d, get(Some(n), "attempt"))) => {
                errors.push(format!(
                    "{id}: awaiting_acceptance but the latest attempt already has a decision"
                ));
            }
            Some(_) => {}
        }
    }
    if is_str(state, "ready_to_close") && !current {
        errors.push(format!(
            "{id}: ready_to_close without a currently applicable acceptance"
        ));
    }
    // `sessionId !== record.sessionId` cannot hold: the base checks compared them.
    Ok(())
}

/// One step of `attempts.forEach((attempt, index) => …)`.
fn check_attempt(
    attempt: &Json,
    index: usize,
    id: &str,
    version: f64,
    in_flight: &mut usize,
    errors: &mut Vec<String>,
) -> Raised<()> {
    // `attempt.attempt`: a null entry raises.
    readable(Some(attempt), "attempt.attempt")?;
    let a = Some(attempt);
    let number_value = get(a, "attempt");
    // `${attempt.attempt}`, converted each time a message names it.
    let n = || text(number_value);
    if !matches!(number_value, Some(Json::Number(x)) if *x == (index + 1) as f64) {
        errors.push(format!(
            "{id}: delegated attempts must sequence 1..n contiguously"
        ));
    }
    if !matches!(get(a, "callId"), Some(Json::String(s)) if !s.is_empty()) {
        errors.push(format!("{id}: attempt {} requires a bound callId", n()?));
    }
    let has = |name| get(a, name).is_some();
    let status = get(a, "status");
    if is_str(status, "in_flight") {
        *in_flight += 1;
        if has("resultStatus")
            || has("completedAt")
            || has("failureExcerpt")
            || has("reportRejection")
        {
            errors.push(format!(
                "{id}: in-flight attempt {} must not carry a result",
                n()?
            ));
        }
    } else if is_str(status, "completed") {
        let statuses = ["DONE", "DONE_WITH_CONCERNS", "NEEDS_CONTEXT", "BLOCKED"];
        if !one_of(get(a, "resultStatus"), &statuses) {
            errors.push(format!(
                "{id}: completed attempt {} lacks a valid resultStatus",
                n()?
            ));
        }
        if !is_string(get(a, "completedAt")) {
            errors.push(format!(
                "{id}: completed attempt {} requires completedAt",
                n()?
            ));
        }
        if has("failureExcerpt") || has("reportRejection") {
            errors.push(format!(
                "{id}: completed attempt {} must not carry failure or rejection evidence",
                n()?
            ));
        }
    } else if is_str(status, "failed") {
        if !is_string(get(a, "completedAt")) {
            errors.push(format!(
                "{id}: failed attempt {} requires completedAt",
                n()?
            ));
        }
        if has("resultStatus") || has("reportRejection") {
            errors.push(format!(
                "{id}: failed attempt {} must not carry a result or rejection",
                n()?
            ));
        }
        if !has("failureExcerpt") || !is_excerpt(get(a, "failureExcerpt"))? {
            errors.push(format!(
                "{id}: failed attempt {} requires a bounded failure excerpt",
                n()?
            ));
        }
    } else if is_str(status, "report_rejected") {
        if version < RECOVERY_VERSION {
            errors.push(format!(
                "{id}: report_rejected attempts require persisted version 3"
            ));
        }
        if !is_string(get(a, "completedAt")) {
            errors.push(format!(
                "{id}: report_rejected attempt {} requires completedAt",
                n()?
            ));
        }
        if has("resultStatus") || has("failureExcerpt") {
            errors.push(format!(
                "{id}: report_rejected attempt {} must not carry a synthesized result",
                n()?
            ));
        }
        let rejection = get(a, "reportRejection");
        let code = get(rejection, "protocolErrorCode");
        let bounded = truthy(rejection)
            && is_object(rejection)
            && matches!(code, Some(Json::String(c))
                if !is_blank(c.units()) && c.len() <= RECOVERY_CODE_MAX)
            && is_string(get(rejection, "rejectedAt"))
            && is_excerpt(get(rejection, "excerpt"))?;
        if !bounded {
            errors.push(format!(
                "{id}: report_rejected attempt {} requires a bounded rejection record",
                n()?
            ));
        }
    } else {
        errors.push(format!(
            "{id}: attempt {} has invalid status {}",
            n()?,
            text(status)?
        ));
    }
    if has("resultExcerpt")
        && (!is_str(status, "completed") || !is_excerpt(get(a, "resultExcerpt"))?)
    {
        errors.push(format!(
            "{id}: attempt {} carries a malformed excerpt",
            n()?
        ));
    }
    Ok(())
}

/// `delegatedRecoveryGrantCount(history)` (and `checkpointRecoveryGrantCount`, the same code):
/// `history.filter((entry) => entry.kind === "autonomous_grant" || …).length`, on a history
/// that is not `null` or `undefined` but not checked to be an array.
pub(super) fn recovery_grants(history: &Json) -> Raised<usize> {
    callable(
        Some(history),
        Method::Filter,
        "history.filter",
        "history.filter((entry) => entry.kind === \"autonomous_grant\" || entry.kind === \"user_grant\" || entry.kind === \"advance_grant\")",
    )?;
    let mut grants = 0;
    for entry in history.as_array().unwrap_or(&[]) {
        readable(Some(entry), "entry.kind")?;
        if one_of(
            get(Some(entry), "kind"),
            &["autonomous_grant", "user_grant", "advance_grant"],
        ) {
            grants += 1;
        }
    }
    Ok(grants)
}

/// The latest completed attempt: `[...attempts].filter((attempt) => attempt.status ===
/// "completed").sort((left, right) => right.attempt - left.attempt)[0]`. With two or more, the
/// comparator converts every one's `attempt` to a number (which raises for an object without a
/// primitive value); the first of the highest numbers comes first (a stable sort; a `NaN`
/// compares as equal, so such an entry is taken only when no number is higher).
fn latest_completed(attempts: &[Json]) -> Raised<Option<&Json>> {
    let completed: Vec<&Json> = attempts
        .iter()
        .filter(|a| is_str(get(Some(a), "status"), "completed"))
        .collect();
    if completed.len() < 2 {
        return Ok(completed.first().copied());
    }
    let mut best: Option<(&Json, f64)> = None;
    for attempt in completed {
        let n = number(get(Some(attempt), "attempt"))?;
        // A later entry comes first only with a higher number (or a number after `NaN`s).
        let higher = match best {
            None => true,
            Some((_, b)) => n > b || (b.is_nan() && !n.is_nan()),
        };
        if higher {
            best = Some((attempt, n));
        }
    }
    Ok(best.map(|(a, _)| a))
}

/// The loop over a delegated record's recovery history (version 3 and later, or an empty one).
fn check_recoveries(
    history: &[Json],
    attempts: &[Json],
    id: &str,
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
                "{id}: recovery entries require unique non-empty recoveryId values"
            ));
        }
        // `recoveryIds.add(recovery.recoveryId ?? "")`: `null` and `undefined` count as "".
        ids.push(match rid_value {
            None | Some(Json::Null) => Some(&EMPTY),
            v => v,
        });
        let kind = get(r, "kind");
        if !one_of(
            kind,
            &["resume", "autonomous_grant", "user_grant", "advance_grant"],
        ) {
            errors.push(format!("{id}: recovery {} has an invalid kind", rid()?));
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
                            "{id}: message {} authorized more than one recovery unit",
                            m.to_string_lossy()
                        ));
                    } else {
                        messages.push(m);
                    }
                }
                _ => errors.push(format!(
                    "{id}: user-grant recovery {} requires its authorizing message id",
                    rid()?
                )),
            }
        } else if message.is_some() {
            errors.push(format!(
                "{id}: non-user recovery {} must not persist an authorization reference",
                rid()?
            ));
        }
        let target = get(r, "targetAttempt").and_then(Json::as_f64);
        let terminal = is_integer(get(r, "targetAttempt"))
            && target.is_some_and(|t| {
                t >= 1.0
                    && t <= attempts.len() as f64
                    && one_of(
                        attempts
                            .get(t as usize - 1)
                            .and_then(|a| get(Some(a), "status")),
                        &["completed", "failed", "report_rejected"],
                    )
            });
        if !terminal {
            errors.push(format!(
                "{id}: recovery {} targets a non-terminal attempt",
                rid()?
            ));
        }
        let rid = rid()?;
        check_text(
            get(r, "diagnosis"),
            &format!("{id}: recovery {rid} diagnosis"),
            errors,
        );
        check_text(
            get(r, "changedCondition"),
            &format!("{id}: recovery {rid} changedCondition"),
            errors,
        );
        check_evidence(
            get(r, "verification"),
            &format!("{id}: recovery {rid} verification"),
            errors,
        );
    }
    if autonomous > 1 {
        errors.push(format!(
            "{id}: at most one autonomous recovery grant may be recorded per item"
        ));
    }
    Ok(())
}

/// The empty string, for `recoveryIds.add(recovery.recoveryId ?? "")`.
pub(super) static EMPTY: Json = Json::String(JsString::new());

/// `validateDelegatedText` with the rationale bound.
pub(super) fn check_text(value: Value, label: &str, errors: &mut Vec<String>) {
    match value {
        Some(Json::String(s)) if !is_blank(s.units()) => {
            if trim(s.units()).len() > RATIONALE_MAX {
                errors.push(format!("{label} exceeds {RATIONALE_MAX} characters"));
            }
        }
        _ => errors.push(format!("{label} must be a non-empty string")),
    }
}

/// `validateBoundedEvidence`.
pub(super) fn check_evidence(value: Value, label: &str, errors: &mut Vec<String>) {
    let Some(list) = value
        .and_then(Json::as_array)
        .filter(|l| !l.is_empty() && l.len() <= EVIDENCE_MAX_REFS)
    else {
        errors.push(format!(
            "{label} must contain 1 to {EVIDENCE_MAX_REFS} references"
        ));
        return;
    };
    for reference in list {
        match reference.as_string() {
            Some(s) if !is_blank(s.units()) => {
                if trim(s.units()).len() > EVIDENCE_MAX_CHARS {
                    errors.push(format!(
                        "{label} references exceed {EVIDENCE_MAX_CHARS} characters"
                    ));
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
