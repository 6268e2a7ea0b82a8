//! Judging a web call against its scenario at a scenario level: `exact` wants the result (or the
//! raised text), the permission requests and the requests all equal; `effect` wants the result's
//! family (or a raise), and the requests.

use vvoc_reference::{Json, Object};

use crate::outcome::{Outcome, listed};
use crate::scenario::compare::{ScenarioLevel, fault_text};
use crate::web::model::{ExpectedRequest, WebReply, WebScenario};
use crate::web::play::{WebAnswer, WebReceived};
use crate::web::server::Seen;

/// Where a web call differs from its scenario, as sentences; empty when it passes at `level`.
pub fn differences(
    scenario: &WebScenario,
    answer: &WebAnswer,
    level: ScenarioLevel,
) -> Vec<String> {
    let mut found = Vec::new();
    let expect = &scenario.expect;
    match (&expect.reply, &answer.reply) {
        (_, WebReceived::Unsupported) => {
            found.push("the implementation does not execute this tool".to_owned());
        }
        (_, WebReceived::NotObservable(why)) => {
            found.push(format!("not observable over MCP: {why}"));
        }
        (_, WebReceived::Failed(why)) => {
            found.push(format!(
                "the runner could not carry the scenario out: {why}"
            ));
        }
        (_, WebReceived::Fault(fault)) => found.push(fault_text(fault)),
        (WebReply::Result { family, value }, WebReceived::Result(received)) => {
            let received_family = vvoc_reference::exec::web::family_of(scenario.tool, received);
            if received_family != Some(family.as_str()) {
                found.push(format!(
                    "the result is of family {}, not {family}",
                    received_family.unwrap_or("none (it fits no family's schema)")
                ));
            }
            if level == ScenarioLevel::Exact && received != value {
                found.push("the result differs".to_owned());
            }
        }
        (WebReply::Throws(expected), WebReceived::Throws(received)) => {
            if level == ScenarioLevel::Exact && expected != received {
                found.push("the raised text differs".to_owned());
            }
        }
        (WebReply::Result { .. }, WebReceived::Throws(_)) => {
            found.push("the call raised instead of returning a result".to_owned());
        }
        (WebReply::Throws(_), WebReceived::Result(_)) => {
            found.push("the call returned a result instead of raising".to_owned());
        }
    }
    if level == ScenarioLevel::Exact && expect.asks != answer.asks {
        found.push(format!(
            "the permission requests differ ({} expected, {} made)",
            expect.asks.len(),
            answer.asks.len()
        ));
    }
    found.extend(request_differences(&expect.requests, &answer.requests));
    found
}

/// Whether the call passes at `level`.
pub fn passes(scenario: &WebScenario, answer: &WebAnswer, level: ScenarioLevel) -> bool {
    differences(scenario, answer, level).is_empty()
}

/// The outcome of a web scenario; the order of the checks is the policy, as for the editors': an
/// unsupported tool is never a failure, a listed known failure is `known-fail` or `fixed`, then
/// a fault is its own outcome, and the comparison decides the rest.
pub fn classify(
    scenario: &WebScenario,
    answer: &WebAnswer,
    level: ScenarioLevel,
    known_failure: bool,
) -> Outcome {
    match answer.reply {
        WebReceived::Unsupported => return Outcome::Unsupported,
        WebReceived::NotObservable(_) => return Outcome::NotObservable,
        WebReceived::Result(_)
        | WebReceived::Throws(_)
        | WebReceived::Failed(_)
        | WebReceived::Fault(_) => {}
    }
    let passed = passes(scenario, answer, level);
    if known_failure {
        return listed(passed);
    }
    match &answer.reply {
        WebReceived::Fault(fault) => fault.outcome(),
        WebReceived::Result(_) | WebReceived::Throws(_) if passed => Outcome::Pass,
        WebReceived::Result(_) | WebReceived::Throws(_) | WebReceived::Failed(_) => Outcome::Fail,
        WebReceived::Unsupported => Outcome::Unsupported,
        WebReceived::NotObservable(_) => Outcome::NotObservable,
    }
}

/// One line on what went wrong, for summaries and reports: the first difference, and how many
/// more there are.
pub fn describe(scenario: &WebScenario, answer: &WebAnswer, level: ScenarioLevel) -> String {
    let found = differences(scenario, answer, level);
    match found.as_slice() {
        [] => "the result, the permission requests and the requests as expected".to_owned(),
        [only] => only.clone(),
        [first, rest @ ..] => format!("{first} (and {} more differences)", rest.len()),
    }
}

/// The requests as the scenario compares them: method, path, the listed headers, the body.
fn request_differences(expected: &[ExpectedRequest], seen: &[Seen]) -> Vec<String> {
    if expected.len() != seen.len() {
        let paths: Vec<String> = seen
            .iter()
            .map(|s| format!("{} {}", s.method, s.path))
            .collect();
        return vec![format!(
            "the server saw {} requests, not {}: {}",
            seen.len(),
            expected.len(),
            if paths.is_empty() {
                "none".to_owned()
            } else {
                paths.join(", ")
            }
        )];
    }
    let mut found = Vec::new();
    for (index, (expected, seen)) in expected.iter().zip(seen).enumerate() {
        if expected.method != seen.method || expected.path != seen.path {
            found.push(format!(
                "request {index} was {} {}, not {} {}",
                seen.method, seen.path, expected.method, expected.path
            ));
        }
        for (name, value) in &expected.headers {
            let got = seen.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v);
            if got != Some(value) {
                found.push(format!(
                    "request {index}: header {name} is {}, not {value:?}",
                    got.map_or_else(|| "missing".to_owned(), |v| format!("{v:?}"))
                ));
            }
        }
        if let Some(body) = &expected.body {
            let text = String::from_utf8_lossy(&seen.body);
            match Json::parse(&text) {
                Ok(received) if &received == body => {}
                Ok(received) => found.push(format!(
                    "request {index}: the body is {}, not {}",
                    received.to_compact(),
                    body.to_compact()
                )),
                Err(_) => found.push(format!(
                    "request {index}: the body is not JSON: {}",
                    crate::preview::quoted(&text)
                )),
            }
        }
    }
    found
}

/// Explains a web call that does not pass: the scenario, what differs, the call, then what was
/// expected and what came back, with a diff.
pub fn explain(scenario: &WebScenario, answer: &WebAnswer, level: ScenarioLevel) -> String {
    let expected = expected_json(scenario).to_pretty();
    let received = received_json(scenario, answer).to_pretty();
    format!(
        "{name} (vectors/{file}, scenario {index}) at {level}:\n- {what}\n\ncall:\n{call}\n\nhost:\n{host}\n\nexpected:\n{expected}\n\nreceived:\n{received}\n\n{diff}",
        name = scenario.name(),
        file = scenario.source,
        index = scenario.index,
        level = level.as_str(),
        what = differences(scenario, answer, level).join("\n- "),
        call = scenario.call.to_pretty(),
        host = scenario.host.to_pretty(),
        diff = similar_asserts::SimpleDiff::from_str(&expected, &received, "expected", "received"),
    )
}

/// Both sides as the report shows them: what was expected and what came, each one object.
pub fn sides(scenario: &WebScenario, answer: &WebAnswer) -> (Json, Json) {
    (expected_json(scenario), received_json(scenario, answer))
}

/// What the scenario expects, as one object.
fn expected_json(scenario: &WebScenario) -> Json {
    let mut object = Object::new();
    match &scenario.expect.reply {
        WebReply::Result { family, value } => {
            object.insert("family", Json::str(family));
            object.insert("result", value.clone());
        }
        WebReply::Throws(text) => object.insert("throws", Json::String(text.clone())),
    }
    object.insert("asks", Json::Array(scenario.expect.asks.clone()));
    let requests = scenario
        .expect
        .requests
        .iter()
        .map(|r| {
            let headers: Vec<(&str, Json)> = r
                .headers
                .iter()
                .map(|(n, v)| (n.as_str(), Json::str(v)))
                .collect();
            request_json(&r.method, &r.path, headers, r.body.clone())
        })
        .collect();
    object.insert("requests", Json::Array(requests));
    Json::Object(object)
}

/// What came back, as one object shaped like [`expected_json`]'s (request headers only those
/// the scenario names, so the diff shows what is compared).
fn received_json(scenario: &WebScenario, answer: &WebAnswer) -> Json {
    let mut object = Object::new();
    match &answer.reply {
        WebReceived::Result(value) => {
            let family = vvoc_reference::exec::web::family_of(scenario.tool, value);
            object.insert("family", family.map_or(Json::Null, Json::str));
            object.insert("result", value.clone());
        }
        WebReceived::Throws(text) => object.insert("throws", Json::String(text.clone())),
        WebReceived::Failed(why) => object.insert("failed", Json::str(why)),
        WebReceived::Fault(fault) => object.insert("fault", Json::str(&fault_text(fault))),
        WebReceived::Unsupported => object.insert("unsupported", Json::Bool(true)),
        WebReceived::NotObservable(why) => object.insert("not_observable", Json::str(why)),
    }
    object.insert("asks", Json::Array(answer.asks.clone()));
    let requests = answer
        .requests
        .iter()
        .enumerate()
        .map(|(index, seen)| {
            let wanted = scenario.expect.requests.get(index);
            let headers: Vec<(&str, Json)> = wanted
                .map(|w| w.headers.as_slice())
                .unwrap_or_default()
                .iter()
                .map(|(name, _)| {
                    let value = seen.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v);
                    (name.as_str(), value.map_or(Json::Null, |v| Json::str(v)))
                })
                .collect();
            // The body only where the scenario compares one.
            let body = wanted.and_then(|w| w.body.as_ref()).map(|_| {
                let text = String::from_utf8_lossy(&seen.body);
                Json::parse(&text).unwrap_or_else(|_| Json::str(&crate::preview::quoted(&text)))
            });
            request_json(&seen.method, &seen.path, headers, body)
        })
        .collect();
    object.insert("requests", Json::Array(requests));
    Json::Object(object)
}

fn request_json(method: &str, path: &str, headers: Vec<(&str, Json)>, body: Option<Json>) -> Json {
    let mut object = Object::new();
    object.insert("method", Json::str(method));
    object.insert("path", Json::str(path));
    if !headers.is_empty() {
        let mut named = Object::new();
        for (name, value) in headers {
            named.insert(name, value);
        }
        object.insert("headers", Json::Object(named));
    }
    if let Some(body) = body {
        object.insert("body", body);
    }
    Json::Object(object)
}
