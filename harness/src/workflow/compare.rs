//! Judging a workflow scenario at a scenario level: `exact` wants every returned text byte for
//! byte equal to `JSON.stringify(result, null, 2)`, every raised text, every hook's outcome and
//! the data directory; `effect` wants results equal as JSON values (member order aside), raises
//! where raises are expected, and the data directory.

use std::fmt::Write as _;

use vvoc_reference::{JsString, Json};

use crate::outcome::{Outcome, listed};
use crate::scenario::compare::{ScenarioLevel, fault_text};
use crate::scenario::json_content::{same_value, stringify2, stringify2_js};
use crate::scenario::tree::{differences, render, summarize};
use crate::workflow::model::{Action, Expect, WorkflowScenario};
use crate::workflow::play::{Received, WorkflowAnswer};

/// Whether a step's outcome is the expected one at `level`.
pub fn step_matches(expect: &Expect, received: &Received, level: ScenarioLevel) -> bool {
    match (expect, received) {
        (Expect::Result(value), Received::Returned(text)) => match level {
            ScenarioLevel::Exact => *text == stringify2_js(value),
            ScenarioLevel::Effect => {
                returned_value(text).is_some_and(|got| same_value(value, &got))
            }
        },
        (Expect::Throws(expected), Received::Throws(got)) => {
            level == ScenarioLevel::Effect || expected == got
        }
        (Expect::Done, Received::Done) => true,
        (Expect::Result(_), Received::Throws(_) | Received::Done)
        | (Expect::Throws(_), Received::Returned(_) | Received::Done)
        | (Expect::Done, Received::Returned(_) | Received::Throws(_)) => false,
    }
}

/// A returned text read as JSON, as the host reads it.
fn returned_value(text: &JsString) -> Option<Json> {
    text.to_str().and_then(|text| Json::parse(&text).ok())
}

/// The 0-based steps whose outcomes differ at `level`, among those answered.
pub fn differing_steps(
    scenario: &WorkflowScenario,
    replies: &[Received],
    level: ScenarioLevel,
) -> Vec<usize> {
    scenario
        .steps
        .iter()
        .zip(replies)
        .enumerate()
        .filter(|(_, (step, got))| !step_matches(&step.expect, got, level))
        .map(|(i, _)| i)
        .collect()
}

/// Whether the scenario got what it expects at `level`.
pub fn passes(scenario: &WorkflowScenario, answer: &WorkflowAnswer, level: ScenarioLevel) -> bool {
    match answer {
        WorkflowAnswer::Ran { replies, after } => {
            replies.len() == scenario.steps.len()
                && differing_steps(scenario, replies, level).is_empty()
                && differences(scenario.expected_after(), after).is_empty()
        }
        WorkflowAnswer::Stopped { .. }
        | WorkflowAnswer::Runner(_)
        | WorkflowAnswer::Unsupported
        | WorkflowAnswer::NotObservable(_) => false,
    }
}

/// The outcome of a workflow scenario, with the policy of the other scenarios: an unsupported or
/// unobservable one is never a failure, a listed known failure is `known-fail` or `fixed`, a
/// fault is its own outcome, and the comparison decides the rest.
pub fn classify(
    scenario: &WorkflowScenario,
    answer: &WorkflowAnswer,
    level: ScenarioLevel,
    known_failure: bool,
) -> Outcome {
    match answer {
        WorkflowAnswer::Unsupported => return Outcome::Unsupported,
        WorkflowAnswer::NotObservable(_) => return Outcome::NotObservable,
        WorkflowAnswer::Ran { .. } | WorkflowAnswer::Stopped { .. } | WorkflowAnswer::Runner(_) => {
        }
    }
    let passed = passes(scenario, answer, level);
    if known_failure {
        return listed(passed);
    }
    match answer {
        WorkflowAnswer::Ran { .. } if passed => Outcome::Pass,
        WorkflowAnswer::Ran { .. } | WorkflowAnswer::Runner(_) => Outcome::Fail,
        WorkflowAnswer::Stopped { fault, .. } => fault.outcome(),
        WorkflowAnswer::Unsupported => Outcome::Unsupported,
        WorkflowAnswer::NotObservable(_) => Outcome::NotObservable,
    }
}

/// `step 2 of 5 (steps[1], task launch)`.
pub fn step_label(scenario: &WorkflowScenario, index: usize) -> String {
    let kind = scenario
        .steps
        .get(index)
        .map_or("step", |s| s.action.kind());
    format!(
        "step {} of {} (steps[{index}], {kind})",
        index + 1,
        scenario.steps.len()
    )
}

/// What a step expects, as a kind and a text: `result` and the text it returns, `throws` and the
/// message, `ok`.
pub fn expected_text(expect: &Expect) -> (&'static str, String) {
    match expect {
        Expect::Result(value) => ("result", stringify2(value)),
        Expect::Throws(text) => ("throws", text.to_string_lossy()),
        Expect::Done => ("ok", String::new()),
    }
}

/// What a step got, as [`expected_text`] shows what it expects.
pub fn received_text(received: &Received) -> (&'static str, String) {
    match received {
        Received::Returned(text) | Received::Throws(text) => {
            (received.kind(), text.to_string_lossy())
        }
        Received::Done => (received.kind(), String::new()),
    }
}

/// A kind and text in a few words.
fn short((kind, text): (&str, String)) -> String {
    if text.is_empty() {
        return kind.to_owned();
    }
    let cut: String = text.chars().take(60).collect();
    let more = if cut.len() < text.len() { "…" } else { "" };
    format!("{kind} {cut:?}{more}")
}

/// One line on what went wrong, for summaries and reports.
pub fn describe(
    scenario: &WorkflowScenario,
    answer: &WorkflowAnswer,
    level: ScenarioLevel,
) -> String {
    match answer {
        WorkflowAnswer::Unsupported => "the implementation does not execute this tool".to_owned(),
        WorkflowAnswer::NotObservable(why) => format!("not observable over MCP: {why}"),
        WorkflowAnswer::Runner(text) => {
            format!("the runner could not carry the scenario out: {text}")
        }
        WorkflowAnswer::Stopped { step, fault, .. } => {
            format!("{}: {}", step_label(scenario, *step), fault_text(fault))
        }
        WorkflowAnswer::Ran { replies, after } => {
            let changes = differences(scenario.expected_after(), after);
            let step = differing_steps(scenario, replies, level).first().map(|&i| {
                format!(
                    "{}: expected {}, received {}",
                    step_label(scenario, i),
                    scenario
                        .steps
                        .get(i)
                        .map_or("nothing".to_owned(), |s| short(expected_text(&s.expect))),
                    replies
                        .get(i)
                        .map_or("nothing".to_owned(), |r| short(received_text(r)))
                )
            });
            match (step, changes.is_empty()) {
                (None, true) => "every step and the data directory as expected".to_owned(),
                (Some(step), true) => step,
                (None, false) => format!(
                    "the data directory after the last step differs: {}",
                    summarize(&changes)
                ),
                (Some(step), false) => format!(
                    "{step}; the data directory differs too: {}",
                    summarize(&changes)
                ),
            }
        }
    }
}

/// What a step does, as the explanation and the report show it: the call's input, the task's
/// call id and arguments (and output), the event.
pub fn step_input(action: &Action) -> Option<Json> {
    let mut object = vvoc_reference::Object::new();
    match action {
        Action::Call { tool, input } => {
            object.insert("call", Json::str(tool.id()));
            object.insert("input", input.clone());
        }
        Action::Launch { call_id, args } => {
            object.insert("task", Json::str("launch"));
            object.insert("callId", Json::str(call_id));
            object.insert("args", args.clone());
        }
        Action::Result {
            call_id,
            args,
            output,
            metadata,
        } => {
            object.insert("task", Json::str("result"));
            object.insert("callId", Json::str(call_id));
            object.insert("args", args.clone());
            object.insert("output", output.clone());
            if let Some(metadata) = metadata {
                object.insert("metadata", metadata.clone());
            }
        }
        Action::Event(event) => object.insert("event", event.clone()),
        Action::Restart => return None,
    }
    Some(Json::Object(object))
}

/// The whole story of a failure: the first differing step with what it did, the expected and
/// received outcomes with a diff, the other differing steps, and the data directory file by file.
pub fn explain(
    scenario: &WorkflowScenario,
    answer: &WorkflowAnswer,
    level: ScenarioLevel,
) -> String {
    let mut out = format!(
        "{} (vectors/{}, workflow scenario {}) at {}: {}\n",
        scenario.name(),
        scenario.source,
        scenario.index,
        level.as_str(),
        describe(scenario, answer, level)
    );
    match answer {
        WorkflowAnswer::Unsupported
        | WorkflowAnswer::NotObservable(_)
        | WorkflowAnswer::Runner(_) => {}
        WorkflowAnswer::Stopped { step, .. } => show_step(&mut out, scenario, *step, None),
        WorkflowAnswer::Ran { replies, after } => {
            let steps = differing_steps(scenario, replies, level);
            if let Some(&first) = steps.first() {
                show_step(&mut out, scenario, first, replies.get(first));
            }
            if steps.len() > 1 {
                let others: Vec<String> = steps[1..].iter().map(|i| (i + 1).to_string()).collect();
                let _ = writeln!(out, "\nthe steps {} differ too", others.join(", "));
            }
            let changes = differences(scenario.expected_after(), after);
            if !changes.is_empty() {
                let _ = write!(
                    out,
                    "\nthe data directory after the last step differs:\n{}",
                    render(&changes)
                );
            }
        }
    }
    out
}

/// What a step did, and for a received outcome both sides and their diff.
fn show_step(out: &mut String, scenario: &WorkflowScenario, index: usize, got: Option<&Received>) {
    let Some(step) = scenario.steps.get(index) else {
        return;
    };
    let _ = writeln!(out, "\n{}:", step_label(scenario, index));
    if let Some(input) = step_input(&step.action) {
        let _ = writeln!(out, "step:\n{}", input.to_pretty());
    }
    let Some(got) = got else {
        return;
    };
    let (expected_kind, expected) = expected_text(&step.expect);
    let (received_kind, received) = received_text(got);
    let _ = writeln!(
        out,
        "\nexpected {expected_kind}:\n{expected}\n\nreceived {received_kind}:\n{received}\n\n{}",
        similar_asserts::SimpleDiff::from_str(&expected, &received, "expected", "received")
    );
}
