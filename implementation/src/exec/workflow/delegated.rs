//! Delegated work items (upstream's `delegated.ts`): attempts bound to host call ids, their budget, results, failures, rejected reports and the controller's decisions.

use super::js::number_text;
use super::record::{array, count, js, number, obj, object, string, text, text_is, truthy};
use super::store::{Refusal, StoreData, allowed_next_agents, state_text};
use crate::js_string::JsString;
use crate::js_text::js;
use crate::json::{Json, Object};
use crate::text::trim;

/// `DELEGATED_BASE_ATTEMPTS`.
pub(crate) const BASE_ATTEMPTS: usize = 2;
const RATIONALE_MAX_CHARS: usize = 2000;
const EVIDENCE_MAX_CHARS: usize = 512;
const EVIDENCE_MAX_REFS: usize = 8;
const RECOVERY_CODE_MAX_CHARS: usize = 128;

/// `DelegatedProgressSummary`.
#[derive(Clone, Debug)]
pub(crate) struct Progress {
    pub(crate) budget: usize,
    pub(crate) remaining: usize,
    pub(crate) grants: usize,
    pub(crate) autonomous_consumed: bool,
    pub(crate) report_rejected: usize,
    pub(crate) next_action: &'static str,
}

/// A decision's input (`DecideDelegatedWorkItemInput`).
#[derive(Clone, Debug)]
pub(crate) struct Decision {
    pub(crate) attempt: f64,
    pub(crate) accept: bool,
    pub(crate) rationale: JsString,
    pub(crate) evidence: Vec<JsString>,
    pub(crate) concerns: Option<JsString>,
}

/// The delegated part of a record.
pub(crate) fn delegated(record: &Object) -> Option<&Object> {
    object(record, "delegated")
}

/// The attempts of a delegated part.
pub(crate) fn attempts(d: &Object) -> &[Json] {
    array(d, "attempts").unwrap_or(&[])
}

fn attempt_objects(d: &Object) -> impl Iterator<Item = &Object> {
    attempts(d).iter().filter_map(Json::as_object)
}

/// `delegatedRecoveryGrantCount`.
pub(crate) fn grant_count(d: &Object) -> usize {
    array(d, "recoveryHistory")
        .unwrap_or(&[])
        .iter()
        .filter_map(Json::as_object)
        .filter(|e| {
            text_is(e, "kind", "autonomous_grant")
                || text_is(e, "kind", "user_grant")
                || text_is(e, "kind", "advance_grant")
        })
        .count()
}

/// `delegatedAttemptBudget`.
pub(crate) fn attempt_budget(d: &Object) -> usize {
    BASE_ATTEMPTS + array(d, "reworkHistory").map_or(0, <[Json]>::len) + grant_count(d)
}

fn autonomous_consumed(d: &Object) -> bool {
    array(d, "recoveryHistory")
        .unwrap_or(&[])
        .iter()
        .filter_map(Json::as_object)
        .any(|e| text_is(e, "kind", "autonomous_grant"))
}

fn in_flight(d: &Object) -> bool {
    attempt_objects(d).any(|a| text_is(a, "status", "in_flight"))
}

/// `delegatedOrdinaryLaunchGate`: the reason and message an ordinary implementer launch is
/// refused with, if it is.
pub(crate) fn launch_gate(record: &Object) -> Result<(), (&'static str, JsString)> {
    let id = text(record, "workItemId").cloned().unwrap_or_default();
    if text_is(record, "state", "closed") {
        return Err((
            "WORK_ITEM_ALREADY_CLOSED",
            js!["WORK_ITEM_ALREADY_CLOSED: ", &id, " is already closed"],
        ));
    }
    let Some(d) = delegated(record).filter(|_| text_is(record, "mode", "delegated")) else {
        return Err((
            "WRONG_MODE",
            js![
                "WRONG_MODE: ",
                &id,
                " is ",
                &mode_text(record),
                ", not delegated"
            ],
        ));
    };
    if !allowed_next_agents(record).contains(&"vv-implementer") {
        return Err((
            "INVALID_STATE",
            js![
                "INVALID_STATE: ",
                &id,
                " is ",
                &state_text(record),
                " and cannot start an implementation attempt"
            ],
        ));
    }
    if in_flight(d) {
        return Err((
            "ATTEMPT_IN_FLIGHT",
            js![
                "ATTEMPT_IN_FLIGHT: ",
                &id,
                " already has an in-flight implementation attempt"
            ],
        ));
    }
    let used = attempts(d).len();
    let budget = attempt_budget(d);
    if used >= budget {
        return Err((
            "ATTEMPTS_EXHAUSTED",
            js![
                "ATTEMPTS_EXHAUSTED: ",
                &id,
                " consumed ",
                used,
                " of ",
                budget,
                " allowed attempts; explicit recovery or checkpoint-authorized rework is required"
            ],
        ));
    }
    Ok(())
}

/// `currentDelegatedAcceptance`: the latest acceptance not revoked.
pub(crate) fn current_acceptance(record: &Object) -> Option<&Object> {
    let d = delegated(record)?;
    array(d, "acceptances")?
        .iter()
        .rev()
        .filter_map(Json::as_object)
        .find(|a| !truthy(a.get("revokedAt")))
}

/// `summarizeDelegatedProgress`.
pub(crate) fn progress(record: &Object) -> Progress {
    let closed = text_is(record, "state", "closed");
    let Some(d) = delegated(record) else {
        return Progress {
            budget: 0,
            remaining: 0,
            grants: 0,
            autonomous_consumed: false,
            report_rejected: 0,
            next_action: if closed {
                "closed"
            } else {
                "launch_implementer"
            },
        };
    };
    let used = attempts(d).len();
    let budget = attempt_budget(d);
    let remaining = budget.saturating_sub(used);
    let autonomous = autonomous_consumed(d);
    let state = |s| text_is(record, "state", s);
    let next_action = if closed {
        "closed"
    } else if state("ready_to_close") {
        "close"
    } else if state("awaiting_acceptance") {
        "decide"
    } else if state("blocked") || state("needs_context") {
        if remaining > 0 || !autonomous {
            "recover"
        } else {
            "recover_with_user_authorization"
        }
    } else if in_flight(d) {
        "await_result"
    } else if remaining > 0 {
        "launch_implementer"
    } else if autonomous {
        "recover_with_user_authorization"
    } else {
        "recover"
    };
    Progress {
        budget,
        remaining,
        grants: grant_count(d),
        autonomous_consumed: autonomous,
        report_rejected: attempt_objects(d)
            .filter(|a| text_is(a, "status", "report_rejected"))
            .count(),
        next_action,
    }
}

/// `latestAttemptView`.
pub(crate) fn latest_attempt_view(record: &Object) -> Option<Object> {
    let latest = attempts(delegated(record)?).last()?;
    let latest = latest.as_object().cloned().unwrap_or_default();
    let mut view = Object::new();
    for name in ["attempt", "status"] {
        if let Some(v) = latest.get(name) {
            view.insert(name, v.clone());
        }
    }
    if let Some(v) = latest.get("resultStatus") {
        view.insert("resultStatus", v.clone());
    }
    if let Some(v) = latest.get("completedAt") {
        view.insert("completedAt", v.clone());
    }
    view.insert(
        "reportRejected",
        Json::Bool(text_is(&latest, "status", "report_rejected")),
    );
    Some(view)
}

impl StoreData {
    /// `beginDelegatedLaunchInStore`: the new attempt's number.
    pub(crate) fn begin_delegated_launch(
        &mut self,
        session: &JsString,
        id: &[u16],
        call_id: &[u16],
        now: &str,
    ) -> Result<usize, Refusal> {
        let call_id = trim(call_id);
        if call_id.is_empty() {
            return Err(Refusal {
                code: "INVALID_STATE",
                message: JsString::from("callId must be a non-empty string"),
            });
        }
        let Some(existing) = self.record(session, id).cloned() else {
            return Err(Refusal {
                code: "WORK_ITEM_NOT_FOUND",
                message: js!["WORK_ITEM_NOT_FOUND: ", id],
            });
        };
        if let Err((code, message)) = launch_gate(&existing) {
            return Err(Refusal { code, message });
        }
        if self.call_id_bindings(session, call_id) > 0 {
            return Err(Refusal {
                code: "CALL_ID_REUSED",
                message: js![
                    "CALL_ID_REUSED: callID ",
                    call_id,
                    " is already bound to a delegated attempt in session ",
                    session
                ],
            });
        }
        let mut updated = existing;
        let number = delegated(&updated).map_or(0, |d| attempts(d).len()) + 1;
        updated.insert("state", string("awaiting_implementer"));
        if let Some(Json::Object(d)) = updated.get_mut("delegated") {
            let mut list = attempts(d).to_vec();
            list.push(Json::Object(obj(vec![
                ("attempt", count(number)),
                ("callId", Json::String(JsString::from_units(call_id))),
                ("launchedAt", string(now)),
                ("status", string("in_flight")),
            ])));
            d.insert("attempts", Json::Array(list));
        }
        updated.insert("updatedAt", string(now));
        self.set_record(session, id, updated);
        Ok(number)
    }

    /// `applyDelegatedResultInStore`: the state it moved to.
    pub(crate) fn apply_delegated_result(
        &mut self,
        session: &JsString,
        id: &[u16],
        call_id: &[u16],
        status: &str,
        result_excerpt: Option<&Object>,
        now: &str,
    ) -> Result<Object, Refusal> {
        let existing = self.settleable(session, id)?;
        let d = delegated(&existing).cloned().unwrap_or_default();
        let live = attempt_objects(&d).find(|a| text_is(a, "status", "in_flight"));
        let Some(live) = live.filter(|a| text(a, "callId").is_some_and(|c| c.units() == call_id))
        else {
            return Err(stale(call_id, live, id));
        };
        let number = live.get("attempt").cloned();
        let next = match status {
            "DONE" | "DONE_WITH_CONCERNS" => "awaiting_acceptance",
            "NEEDS_CONTEXT" => "needs_context",
            _ => "blocked",
        };
        let mut updated = existing;
        updated.insert("state", string(next));
        if let Some(e) = result_excerpt {
            updated.insert("resultExcerpt", Json::Object(e.clone()));
        }
        map_attempt(&mut updated, number.as_ref(), |a| {
            a.insert("status", string("completed"));
            a.insert("resultStatus", string(status));
            a.insert("completedAt", string(now));
            if let Some(e) = result_excerpt {
                a.insert("resultExcerpt", Json::Object(e.clone()));
            }
        });
        updated.insert("updatedAt", string(now));
        self.set_record(session, id, updated.clone());
        Ok(updated)
    }

    /// `applyDelegatedLaunchFailureInStore`: the failed attempt stays consumed.
    pub(crate) fn apply_launch_failure(
        &mut self,
        session: &JsString,
        id: &[u16],
        call_id: &[u16],
        failure_excerpt: &Object,
        now: &str,
    ) -> Result<(), Refusal> {
        let existing = self.settleable(session, id)?;
        if !text_is(&existing, "state", "awaiting_implementer") {
            return Err(Refusal {
                code: "INVALID_STATE",
                message: js![
                    "INVALID_STATE: ",
                    id,
                    " is ",
                    &state_text(&existing),
                    ", not awaiting_implementer"
                ],
            });
        }
        match self.call_id_owner(session, call_id) {
            Binding::Ambiguous => {
                return Err(Refusal {
                    code: "AMBIGUOUS_CALL_ID",
                    message: js![
                        "AMBIGUOUS_CALL_ID: callID ",
                        call_id,
                        " is bound to more than one delegated attempt in session ",
                        session
                    ],
                });
            }
            Binding::Unique(owner) if owner.units() != id => {
                return Err(Refusal {
                    code: "STALE_CALLBACK",
                    message: js![
                        "STALE_CALLBACK: ",
                        call_id,
                        " is bound to ",
                        &owner,
                        ", not ",
                        id
                    ],
                });
            }
            Binding::Unique(_) | Binding::None => {}
        }
        let d = delegated(&existing).cloned().unwrap_or_default();
        let Some(live) = attempt_objects(&d).find(|a| {
            text_is(a, "status", "in_flight")
                && text(a, "callId").is_some_and(|c| c.units() == call_id)
        }) else {
            return Err(Refusal {
                code: "STALE_CALLBACK",
                message: js![
                    "STALE_CALLBACK: ",
                    call_id,
                    " does not match an in-flight attempt for ",
                    id
                ],
            });
        };
        let number = live.get("attempt").cloned();
        let mut updated = existing;
        updated.insert("state", string("awaiting_implementer"));
        map_attempt(&mut updated, number.as_ref(), |a| {
            a.insert("status", string("failed"));
            a.insert("failureExcerpt", Json::Object(failure_excerpt.clone()));
            a.insert("completedAt", string(now));
        });
        updated.insert("updatedAt", string(now));
        self.set_record(session, id, updated);
        Ok(())
    }

    /// `applyDelegatedReportRejectionInStore`: the settled attempt's number.
    #[expect(
        clippy::too_many_arguments,
        reason = "upstream's input record, field by field"
    )]
    pub(crate) fn apply_report_rejection(
        &mut self,
        session: &JsString,
        id: &[u16],
        call_id: &[u16],
        protocol_error_code: &str,
        excerpt: &Object,
        hard_stop: Option<&'static str>,
        now: &str,
    ) -> Result<Json, Refusal> {
        let code = protocol_error_code.trim();
        if code.is_empty() || code.len() > RECOVERY_CODE_MAX_CHARS {
            return Err(Refusal {
                code: "INVALID_INPUT",
                message: js![
                    "INVALID_INPUT: protocolErrorCode must be 1 to ",
                    RECOVERY_CODE_MAX_CHARS,
                    " characters"
                ],
            });
        }
        let existing = self.settleable(session, id)?;
        let d = delegated(&existing).cloned().unwrap_or_default();
        let live = attempt_objects(&d).find(|a| text_is(a, "status", "in_flight"));
        let Some(live) = live.filter(|a| text(a, "callId").is_some_and(|c| c.units() == call_id))
        else {
            return Err(stale(call_id, live, id));
        };
        let number = live.get("attempt").cloned().unwrap_or(Json::Null);
        let next = match hard_stop {
            Some("BLOCKED") => "blocked",
            Some(_) => "needs_context",
            None => "awaiting_implementer",
        };
        let mut updated = existing;
        updated.insert("state", string(next));
        if hard_stop.is_some() {
            updated.insert("resultExcerpt", Json::Object(excerpt.clone()));
        }
        map_attempt(&mut updated, Some(&number), |a| {
            a.insert("status", string("report_rejected"));
            a.insert(
                "reportRejection",
                Json::Object(obj(vec![
                    ("protocolErrorCode", string(code)),
                    ("excerpt", Json::Object(excerpt.clone())),
                    ("rejectedAt", string(now)),
                ])),
            );
            a.insert("completedAt", string(now));
        });
        updated.insert("updatedAt", string(now));
        self.set_record(session, id, updated);
        Ok(number)
    }

    /// `decideDelegatedWorkItemInStore`: the decision's id and the record after it.
    pub(crate) fn decide(
        &mut self,
        session: &JsString,
        id: &[u16],
        decision: &Decision,
        now: &str,
    ) -> Result<(JsString, Object), Refusal> {
        let invalid = |m: &str| Refusal {
            code: "INVALID_INPUT",
            message: js!["INVALID_INPUT: ", m],
        };
        let rationale = trim(decision.rationale.units());
        if rationale.is_empty() {
            return Err(invalid("rationale must be a non-empty string"));
        }
        if rationale.len() > RATIONALE_MAX_CHARS {
            return Err(invalid("rationale exceeds 2000 characters"));
        }
        if decision.evidence.is_empty() {
            return Err(invalid(
                "evidence must be a non-empty array of reference strings",
            ));
        }
        if decision.evidence.len() > EVIDENCE_MAX_REFS {
            return Err(invalid("evidence exceeds 8 references"));
        }
        for reference in &decision.evidence {
            let r = trim(reference.units());
            if r.is_empty() {
                return Err(invalid("evidence references must be non-empty strings"));
            }
            if r.len() > EVIDENCE_MAX_CHARS {
                return Err(invalid("evidence reference exceeds 512 characters"));
            }
        }
        if let Some(c) = &decision.concerns {
            let c = trim(c.units());
            if c.is_empty() {
                return Err(invalid(
                    "concernsDisposition must be a non-empty string when provided",
                ));
            }
            if c.len() > RATIONALE_MAX_CHARS {
                return Err(invalid("concernsDisposition exceeds 2000 characters"));
            }
        }
        if decision.attempt.fract() != 0.0
            || !decision.attempt.is_finite()
            || decision.attempt < 1.0
        {
            return Err(invalid("attempt must be a positive integer"));
        }
        let Some(existing) = self.record(session, id).cloned() else {
            return Err(not_found(session, id));
        };
        if text_is(&existing, "state", "closed") {
            return Err(already_closed(id));
        }
        let Some(d) = delegated(&existing)
            .filter(|_| text_is(&existing, "mode", "delegated"))
            .cloned()
        else {
            return Err(Refusal {
                code: "WRONG_MODE",
                message: js![
                    "WRONG_MODE: ",
                    id,
                    " is ",
                    &mode_text(&existing),
                    "; only delegated items receive controller decisions"
                ],
            });
        };
        if !text_is(&existing, "state", "awaiting_acceptance") {
            return Err(Refusal {
                code: "INVALID_STATE",
                message: js![
                    "INVALID_STATE: ",
                    id,
                    " is ",
                    &state_text(&existing),
                    ", not awaiting_acceptance"
                ],
            });
        }
        // The completed attempt with the highest number (a stable sort, so the first of equals).
        let mut best: Option<&Object> = None;
        for a in attempt_objects(&d).filter(|a| text_is(a, "status", "completed")) {
            let n = number(a, "attempt").unwrap_or(f64::NAN);
            if best.is_none_or(|b| n > number(b, "attempt").unwrap_or(f64::NAN)) {
                best = Some(a);
            }
        }
        let Some(completed) = best else {
            return Err(Refusal {
                code: "INVALID_STATE",
                message: js!["INVALID_STATE: ", id, " has no completed attempt to decide"],
            });
        };
        let attempt = number_text(decision.attempt);
        let completed_number = completed.get("attempt").cloned().unwrap_or(Json::Null);
        if completed_number.as_f64() != Some(decision.attempt) {
            return Err(Refusal {
                code: "INVALID_ATTEMPT",
                message: js![
                    "INVALID_ATTEMPT: decision targets attempt ",
                    attempt.as_str(),
                    " but the current completed attempt is ",
                    &super::store::js_string(&completed_number)
                ],
            });
        }
        if array(&d, "decisions")
            .unwrap_or(&[])
            .iter()
            .filter_map(Json::as_object)
            .any(|x| number(x, "attempt") == Some(decision.attempt))
        {
            return Err(Refusal {
                code: "DUPLICATE_DECISION",
                message: js![
                    "DUPLICATE_DECISION: attempt ",
                    attempt.as_str(),
                    " already received a controller decision"
                ],
            });
        }
        let concerns = text_is(completed, "resultStatus", "DONE_WITH_CONCERNS");
        if concerns && decision.concerns.is_none() {
            return Err(Refusal {
                code: "CONCERNS_DISPOSITION_REQUIRED",
                message: js![
                    "CONCERNS_DISPOSITION_REQUIRED: attempt ",
                    attempt.as_str(),
                    " completed DONE_WITH_CONCERNS and requires an explicit disposition"
                ],
            });
        }
        if !concerns && decision.concerns.is_some() {
            let status = completed
                .get("resultStatus")
                .map(super::store::js_string)
                .unwrap_or_else(|| JsString::from("undefined"));
            return Err(Refusal {
                code: "UNEXPECTED_CONCERNS_DISPOSITION",
                message: js![
                    "UNEXPECTED_CONCERNS_DISPOSITION: attempt ",
                    attempt.as_str(),
                    " completed ",
                    &status,
                    ", not DONE_WITH_CONCERNS"
                ],
            });
        }
        let record_id = text(&existing, "workItemId").cloned().unwrap_or_default();
        let decision_id = js!["dec-", &record_id, "-a", attempt.as_str()];
        let evidence = Json::Array(
            decision
                .evidence
                .iter()
                .map(|r| Json::String(JsString::from_units(trim(r.units()))))
                .collect(),
        );
        let rationale = Json::String(JsString::from_units(rationale));
        let concerns_text = decision
            .concerns
            .as_ref()
            .map(|c| Json::String(JsString::from_units(trim(c.units()))));
        let mut entry = obj(vec![
            ("decisionId", js(&decision_id)),
            ("attempt", Json::Number(decision.attempt)),
            (
                "decision",
                string(if decision.accept {
                    "accept"
                } else {
                    "request_changes"
                }),
            ),
            ("decidedAt", string(now)),
            ("rationale", rationale.clone()),
            ("evidence", evidence.clone()),
        ]);
        if let Some(c) = &concerns_text {
            entry.insert("concernsDisposition", c.clone());
        }
        let mut updated = existing;
        updated.insert(
            "state",
            string(if decision.accept {
                "ready_to_close"
            } else {
                "awaiting_implementer"
            }),
        );
        if let Some(Json::Object(d)) = updated.get_mut("delegated") {
            let mut decisions = array(d, "decisions").unwrap_or(&[]).to_vec();
            decisions.push(Json::Object(entry));
            d.insert("decisions", Json::Array(decisions));
            if decision.accept {
                let mut acceptance = obj(vec![
                    ("attempt", Json::Number(decision.attempt)),
                    ("decisionId", js(&decision_id)),
                    ("acceptedAt", string(now)),
                    ("rationale", rationale),
                    ("evidence", evidence),
                ]);
                if let Some(c) = concerns_text {
                    acceptance.insert("concernsDisposition", c);
                }
                let mut acceptances = array(d, "acceptances").unwrap_or(&[]).to_vec();
                acceptances.push(Json::Object(acceptance));
                d.insert("acceptances", Json::Array(acceptances));
            }
        }
        updated.insert("updatedAt", string(now));
        self.set_record(session, id, updated.clone());
        Ok((decision_id, updated))
    }

    /// `revertInFlightDelegatedLaunches`: attempts a restart orphaned are dropped (unless the
    /// item is stopped or closed) and their items go back to the launch gate; how many items.
    pub(crate) fn revert_in_flight(&mut self, session: &JsString, now: &str) -> usize {
        let mut reverted = 0;
        for (_, record) in &mut self.records {
            if text(record, "sessionId") != Some(session) || !text_is(record, "mode", "delegated") {
                continue;
            }
            let Some(d) = delegated(record) else { continue };
            if !in_flight(d) {
                continue;
            }
            if ["needs_context", "blocked", "closed"]
                .iter()
                .any(|s| text_is(record, "state", s))
            {
                continue;
            }
            let kept: Vec<Json> = attempts(d)
                .iter()
                .filter(|a| {
                    !a.as_object()
                        .is_some_and(|a| text_is(a, "status", "in_flight"))
                })
                .cloned()
                .collect();
            let decided = array(d, "decisions").is_some_and(|x| !x.is_empty());
            let state = if !kept.is_empty() || decided {
                "awaiting_implementer"
            } else {
                "open"
            };
            record.insert("state", string(state));
            if let Some(Json::Object(d)) = record.get_mut("delegated") {
                d.insert("attempts", Json::Array(kept));
            }
            record.insert("updatedAt", string(now));
            reverted += 1;
        }
        reverted
    }

    /// The record a delegated result, failure or rejection settles on: present, open, delegated.
    fn settleable(&self, session: &JsString, id: &[u16]) -> Result<Object, Refusal> {
        let Some(existing) = self.record(session, id).cloned() else {
            return Err(not_found(session, id));
        };
        if text_is(&existing, "state", "closed") {
            return Err(already_closed(id));
        }
        if !text_is(&existing, "mode", "delegated") || delegated(&existing).is_none() {
            return Err(Refusal {
                code: "WRONG_MODE",
                message: js![
                    "WRONG_MODE: ",
                    id,
                    " is ",
                    &mode_text(&existing),
                    ", not delegated"
                ],
            });
        }
        Ok(existing)
    }

    /// How many delegated attempts of the session are bound to `call_id`.
    fn call_id_bindings(&self, session: &JsString, call_id: &[u16]) -> usize {
        self.delegated_records(session)
            .flat_map(|r| delegated(r).map(attempt_objects).into_iter().flatten())
            .filter(|a| text(a, "callId").is_some_and(|c| c.units() == call_id))
            .count()
    }

    /// `findDelegatedCallIdBinding`: which item owns `call_id`.
    fn call_id_owner(&self, session: &JsString, call_id: &[u16]) -> Binding {
        let mut owners = Vec::new();
        for r in self.delegated_records(session) {
            for a in delegated(r).map(attempt_objects).into_iter().flatten() {
                if text(a, "callId").is_some_and(|c| c.units() == call_id) {
                    owners.push(text(r, "workItemId").cloned().unwrap_or_default());
                }
            }
        }
        match owners.len() {
            0 => Binding::None,
            1 => Binding::Unique(owners.remove(0)),
            _ => Binding::Ambiguous,
        }
    }

    fn delegated_records(&self, session: &JsString) -> impl Iterator<Item = &Object> {
        self.records.iter().map(|(_, r)| r).filter(move |r| {
            text(r, "sessionId") == Some(session)
                && text_is(r, "mode", "delegated")
                && delegated(r).is_some()
        })
    }
}

enum Binding {
    None,
    Unique(JsString),
    Ambiguous,
}

/// Changes the attempt numbered `number` (`attempts.map(a => a.attempt === n ? … : a)`).
fn map_attempt(record: &mut Object, number: Option<&Json>, change: impl Fn(&mut Object)) {
    let Some(Json::Object(d)) = record.get_mut("delegated") else {
        return;
    };
    let Some(Json::Array(list)) = d.get_mut("attempts") else {
        return;
    };
    for a in list.iter_mut() {
        if let Json::Object(a) = a
            && number.is_some_and(|n| a.get("attempt").is_some_and(|x| strict_equal(x, n)))
        {
            change(a);
        }
    }
}

/// `===` on JSON values: primitives by value, containers never (they are distinct objects).
fn strict_equal(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => x == y,
        (Json::String(x), Json::String(y)) => x == y,
        (Json::Bool(x), Json::Bool(y)) => x == y,
        (Json::Null, Json::Null) => true,
        _ => false,
    }
}

fn stale(call_id: &[u16], live: Option<&Object>, id: &[u16]) -> Refusal {
    let shown = live
        .and_then(|a| a.get("callId"))
        .map(super::store::js_string)
        .unwrap_or_else(|| JsString::from("(none)"));
    Refusal {
        code: "STALE_CALLBACK",
        message: js![
            "STALE_CALLBACK: ",
            call_id,
            " does not match the in-flight attempt ",
            &shown,
            " for ",
            id
        ],
    }
}

fn not_found(session: &JsString, id: &[u16]) -> Refusal {
    Refusal {
        code: "WORK_ITEM_NOT_FOUND",
        message: js![
            "WORK_ITEM_NOT_FOUND: no work item ",
            id,
            " for session ",
            session
        ],
    }
}

fn already_closed(id: &[u16]) -> Refusal {
    Refusal {
        code: "WORK_ITEM_ALREADY_CLOSED",
        message: js!["WORK_ITEM_ALREADY_CLOSED: ", id, " is already closed"],
    }
}

fn mode_text(record: &Object) -> JsString {
    record
        .get("mode")
        .map(super::store::js_string)
        .unwrap_or_else(|| JsString::from("undefined"))
}

/// A recovery's input (`RecoverDelegatedWorkItemInput`, without the authority path).
#[derive(Clone, Debug)]
pub(crate) struct Recovery {
    pub(crate) attempt: f64,
    pub(crate) recovery_id: JsString,
    pub(crate) diagnosis: JsString,
    pub(crate) changed_condition: JsString,
    pub(crate) verification: Vec<JsString>,
    pub(crate) user_message_id: Option<JsString>,
}

/// A recorded recovery: its kind, the budget after it, and the record.
#[derive(Clone, Debug)]
pub(crate) struct Recovered {
    pub(crate) kind: &'static str,
    pub(crate) budget: usize,
    pub(crate) remaining: usize,
    pub(crate) record: Object,
}

impl StoreData {
    /// `recoverDelegatedWorkItemInStore`: a stopped item resumes, an exhausted one is granted one
    /// attempt (the item's single autonomous grant; a user grant needs a message the host's
    /// message store has, and the reference's host has none, so it is never found).
    pub(crate) fn recover(
        &mut self,
        session: &JsString,
        id: &[u16],
        input: &Recovery,
        now: &str,
    ) -> Result<Recovered, Refusal> {
        let invalid = |m: &str| Refusal {
            code: "INVALID_INPUT",
            message: js!["INVALID_INPUT: ", m],
        };
        let recovery_id = trim(input.recovery_id.units());
        if recovery_id.is_empty() {
            return Err(invalid("recoveryId must be a non-empty string"));
        }
        if recovery_id.len() > EVIDENCE_MAX_CHARS {
            return Err(invalid("recoveryId exceeds 512 characters"));
        }
        for (text, name) in [
            (&input.diagnosis, "diagnosis"),
            (&input.changed_condition, "changedCondition"),
        ] {
            let t = trim(text.units());
            if t.is_empty() {
                return Err(invalid(&format!("{name} must be a non-empty string")));
            }
            if t.len() > RATIONALE_MAX_CHARS {
                return Err(invalid(&format!("{name} exceeds 2000 characters")));
            }
        }
        if input.verification.is_empty() {
            return Err(invalid(
                "verification must be a non-empty array of reference strings",
            ));
        }
        if input.verification.len() > EVIDENCE_MAX_REFS {
            return Err(invalid("verification exceeds 8 references"));
        }
        for reference in &input.verification {
            let r = trim(reference.units());
            if r.is_empty() {
                return Err(invalid("verification references must be non-empty strings"));
            }
            if r.len() > EVIDENCE_MAX_CHARS {
                return Err(invalid("verification reference exceeds 512 characters"));
            }
        }
        let (record, needs_grant, autonomous_available) =
            self.recovery_precheck(session, id, input)?;
        let kind = if !needs_grant {
            "resume"
        } else if let Some(message) = &input.user_message_id {
            let message = trim(message.units());
            if message.is_empty() {
                return Err(invalid(
                    "userMessageId must be a non-empty string when provided",
                ));
            }
            let reused = delegated(&record).is_some_and(|d| {
                array(d, "recoveryHistory")
                    .unwrap_or(&[])
                    .iter()
                    .filter_map(Json::as_object)
                    .any(|e| text(e, "userMessageId").is_some_and(|m| m.units() == message))
            });
            if reused {
                return Err(Refusal {
                    code: "AUTHORIZATION_REUSED",
                    message: js![
                        "AUTHORIZATION_REUSED: message ",
                        message,
                        " already authorized recovery of ",
                        id,
                        "; each message grants at most one unit per target"
                    ],
                });
            }
            // `validateRecoveryUserAuthorization`: the host's message lookup finds nothing.
            return Err(Refusal {
                code: "AUTHORIZATION_NOT_FOUND",
                message: js![
                    "AUTHORIZATION_NOT_FOUND: no message ",
                    message,
                    " is observable in session ",
                    session
                ],
            });
        } else if autonomous_available {
            "autonomous_grant"
        } else {
            return Err(Refusal {
                code: "AUTONOMOUS_GRANT_EXHAUSTED",
                message: js![
                    "AUTONOMOUS_GRANT_EXHAUSTED: the single autonomous recovery grant for ",
                    id,
                    " is consumed; one further unit requires a recorded advance authority or a fresh root-user message referenced by userMessageId"
                ],
            });
        };
        let trimmed = |t: &JsString| Json::String(JsString::from_units(trim(t.units())));
        let entry = obj(vec![
            ("recoveryId", js(&input.recovery_id)),
            ("targetAttempt", Json::Number(input.attempt)),
            ("kind", string(kind)),
            ("diagnosis", trimmed(&input.diagnosis)),
            ("changedCondition", trimmed(&input.changed_condition)),
            (
                "verification",
                Json::Array(input.verification.iter().map(trimmed).collect()),
            ),
            ("recoveredAt", string(now)),
        ]);
        let mut updated = record;
        updated.insert("state", string("awaiting_implementer"));
        if let Some(Json::Object(d)) = updated.get_mut("delegated") {
            let mut history = array(d, "recoveryHistory").unwrap_or(&[]).to_vec();
            history.push(Json::Object(entry));
            d.insert("recoveryHistory", Json::Array(history));
        }
        updated.insert("updatedAt", string(now));
        self.set_record(session, id, updated.clone());
        let d = delegated(&updated).cloned().unwrap_or_default();
        let budget = attempt_budget(&d);
        Ok(Recovered {
            kind,
            budget,
            remaining: budget.saturating_sub(attempts(&d).len()),
            record: updated,
        })
    }

    /// `precheckDelegatedRecovery`: the record, whether the recovery needs a grant, and whether
    /// the autonomous grant is still there.
    fn recovery_precheck(
        &self,
        session: &JsString,
        id: &[u16],
        input: &Recovery,
    ) -> Result<(Object, bool, bool), Refusal> {
        let Some(existing) = self.record(session, id).cloned() else {
            return Err(not_found(session, id));
        };
        if text_is(&existing, "state", "closed") {
            return Err(already_closed(id));
        }
        let Some(d) = delegated(&existing)
            .filter(|_| text_is(&existing, "mode", "delegated"))
            .cloned()
        else {
            return Err(Refusal {
                code: "WRONG_MODE",
                message: js![
                    "WRONG_MODE: ",
                    id,
                    " is ",
                    &mode_text(&existing),
                    ", not delegated"
                ],
            });
        };
        let target_state = |why: JsString| Refusal {
            code: "INVALID_TARGET_STATE",
            message: js!["INVALID_TARGET_STATE: ", id, &why],
        };
        if current_acceptance(&existing).is_some() {
            return Err(target_state(JsString::from(
                " is currently accepted; checkpoint-authorized rework is the path for accepted items, not recovery",
            )));
        }
        if in_flight(&d) {
            return Err(target_state(JsString::from(
                " has a live in-flight attempt; recovery never interrupts live work",
            )));
        }
        let stopped =
            text_is(&existing, "state", "blocked") || text_is(&existing, "state", "needs_context");
        let exhausted = text_is(&existing, "state", "awaiting_implementer")
            && attempts(&d).len() >= attempt_budget(&d);
        if !stopped && !exhausted {
            return Err(target_state(js![
                " is ",
                &state_text(&existing),
                " and is neither stopped nor out of implementation budget"
            ]));
        }
        let Some(target) = attempts(&d).last() else {
            return Err(target_state(JsString::from(
                " has no terminal attempt to recover",
            )));
        };
        let target = target.as_object().cloned().unwrap_or_default();
        let target_number = target.get("attempt").cloned().unwrap_or(Json::Null);
        if text_is(&target, "status", "in_flight") {
            return Err(Refusal {
                code: "ATTEMPT_NOT_TERMINAL",
                message: js![
                    "ATTEMPT_NOT_TERMINAL: attempt ",
                    &super::store::js_string(&target_number),
                    " of ",
                    id,
                    " is still in flight"
                ],
            });
        }
        if target_number.as_f64() != Some(input.attempt) {
            return Err(Refusal {
                code: "ATTEMPT_MISMATCH",
                message: js![
                    "ATTEMPT_MISMATCH: recovery targets attempt ",
                    number_text(input.attempt).as_str(),
                    " but the latest terminal attempt is ",
                    &super::store::js_string(&target_number)
                ],
            });
        }
        let duplicate = array(&d, "recoveryHistory")
            .unwrap_or(&[])
            .iter()
            .filter_map(Json::as_object)
            .any(|e| text(e, "recoveryId") == Some(&input.recovery_id));
        if duplicate {
            return Err(Refusal {
                code: "DUPLICATE_RECOVERY_ID",
                message: js![
                    "DUPLICATE_RECOVERY_ID: recoveryId ",
                    &input.recovery_id,
                    " is already recorded for ",
                    id
                ],
            });
        }
        let needs_grant = attempts(&d).len() >= attempt_budget(&d);
        Ok((existing, needs_grant, !autonomous_consumed(&d)))
    }
}
