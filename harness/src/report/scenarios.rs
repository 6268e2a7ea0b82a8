//! The scenarios' part of the reports (interfaces.md §6, §9.2): counted beside the vectors, per
//! tool, with the pass count at `effect` and `exact`; deterministic apart from durations.

use crate::json::ser::Embedded;
use crate::outcome::{Failure, Outcome};
use crate::report::conformance::{
    Change as ChangeKind, Compared, DirectoryChange, FIXED, Observed, ScenarioDetail,
    ScenarioResult, ScenarioSection, ScenarioTotals, StepCameTo, StepReport, ToolId, milliseconds,
};
use crate::run::records::{Played, ScenarioRecord};
use crate::run::result::RunResult;
use crate::scenario::compare::{ScenarioLevel, differing_steps, expected_reply, explain, plain};
use crate::scenario::json_content::stringify2_js;
use crate::scenario::model::{Reply, Scenario, Step};
use crate::scenario::play::ScenarioAnswer;
use crate::scenario::tree::{Change, differences};
use crate::web::compare as web_compare;
use crate::web::model::WebScenario;
use crate::web::play::WebAnswer;
use crate::workflow::compare as workflow_compare;
use crate::workflow::model::{Expect, WorkflowScenario};
use crate::workflow::play::{Received, WorkflowAnswer};

/// The `scenarios` member of `conformance.json`, when the run had scenarios.
pub fn section(run: &RunResult) -> Option<ScenarioSection> {
    if run.scenarios.is_empty() {
        return None;
    }
    let tallies = run.scenario_tallies();
    let level = ScenarioLevel::of(run.level);
    Some(ScenarioSection {
        compared: Compared {
            count: run.scenarios.len(),
            asked: run.scenarios.len()
                - tallies.all.get(Outcome::Unsupported)
                - tallies.all.get(Outcome::NotObservable),
            tools: tallies.by_tool.keys().copied().map(ToolId).collect(),
        },
        level,
        totals: ScenarioTotals::from(tallies.all),
        levels: run.scenario_level_passes().into_iter().collect(),
        by_tool: tallies
            .by_tool
            .into_iter()
            .map(|(tool, tally)| (ToolId(tool), ScenarioTotals::from(tally)))
            .collect(),
        results: sorted(run).into_iter().map(|r| result(r, level)).collect(),
    })
}

fn result(record: &ScenarioRecord, level: ScenarioLevel) -> ScenarioResult {
    let detail = (record.outcome != Outcome::Pass).then(|| match &record.played {
        Played::Editor { scenario, answer } => detail(record, scenario, answer, level),
        Played::Web { scenario, answer } => web_detail(record, scenario, answer, level),
        Played::Workflow { scenario, answer } => workflow_detail(record, scenario, answer, level),
    });
    ScenarioResult {
        scenario: record.name(),
        file: record.source().to_owned(),
        outcome: record.outcome,
        duration_ms: milliseconds(record.duration),
        detail,
    }
}

/// What happened to an editor scenario that did not pass.
fn detail(
    record: &ScenarioRecord,
    scenario: &Scenario,
    answer: &ScenarioAnswer,
    level: ScenarioLevel,
) -> ScenarioDetail {
    let (expected, received) = sides(scenario, answer, level);
    let directory = directory(scenario, answer);
    let passes_at = ScenarioLevel::ALL
        .into_iter()
        .rev()
        .find(|&l| record.passes_at(l));
    let input = match &expected {
        Some(Observed::Step(at)) => scenario
            .steps
            .get(at.step.saturating_sub(1))
            .and_then(step_input),
        Some(
            Observed::After { .. }
            | Observed::Runner { .. }
            | Observed::Unsupported { .. }
            | Observed::NotObservable { .. }
            | Observed::Web { .. },
        )
        | None => None,
    };
    let explanation = unless_fixed(record, format!("{}: {FIXED}\n", scenario.name()), || {
        plain(&explain(scenario, answer, level))
    });
    ScenarioDetail {
        what: what(record, level),
        explanation,
        input,
        expected,
        received,
        directory,
        passes_at,
    }
}

/// What happened to a web scenario that did not pass: both sides whole (the result or the raised
/// text, the permission requests, the requests), as the explanation shows them.
fn web_detail(
    record: &ScenarioRecord,
    scenario: &WebScenario,
    answer: &WebAnswer,
    level: ScenarioLevel,
) -> ScenarioDetail {
    let explanation = unless_fixed(record, format!("{}: {FIXED}\n", scenario.name()), || {
        plain(&web_compare::explain(scenario, answer, level))
    });
    let (expected, received) = web_compare::sides(scenario, answer);
    ScenarioDetail {
        what: what(record, level),
        explanation,
        input: Some(Embedded(scenario.call.clone())),
        expected: Some(Observed::Web {
            web: Embedded(expected),
        }),
        received: Observed::Web {
            web: Embedded(received),
        },
        directory: None,
        passes_at: ScenarioLevel::ALL
            .into_iter()
            .rev()
            .find(|&l| record.passes_at(l)),
    }
}

/// What happened to a workflow scenario that did not pass: the first differing step (what it
/// expected and what came) or the data directory, as for an editor's.
fn workflow_detail(
    record: &ScenarioRecord,
    scenario: &WorkflowScenario,
    answer: &WorkflowAnswer,
    level: ScenarioLevel,
) -> ScenarioDetail {
    let explanation = unless_fixed(record, format!("{}: {FIXED}\n", scenario.name()), || {
        plain(&workflow_compare::explain(scenario, answer, level))
    });
    let (at, expected, received) = workflow_sides(scenario, answer, level);
    let directory = match answer {
        WorkflowAnswer::Ran { after, .. } => Some(directory_changes(&differences(
            scenario.expected_after(),
            after,
        ))),
        WorkflowAnswer::Stopped { .. }
        | WorkflowAnswer::Runner(_)
        | WorkflowAnswer::Unsupported
        | WorkflowAnswer::NotObservable(_) => None,
    };
    ScenarioDetail {
        what: what(record, level),
        explanation,
        input: at
            .and_then(|i| scenario.steps.get(i))
            .and_then(|s| workflow_compare::step_input(&s.action))
            .map(Embedded),
        expected,
        received,
        directory,
        passes_at: ScenarioLevel::ALL
            .into_iter()
            .rev()
            .find(|&l| record.passes_at(l)),
    }
}

/// The two sides of a workflow scenario's first difference, and the step where it is (none
/// when it is the data directory, or the scenario never ran).
fn workflow_sides(
    scenario: &WorkflowScenario,
    answer: &WorkflowAnswer,
    level: ScenarioLevel,
) -> (Option<usize>, Option<Observed>, Observed) {
    let step = |index: usize, came_to: Option<StepCameTo>| {
        Observed::Step(StepReport {
            step: index + 1,
            came_to,
        })
    };
    let expected_step = |index: usize| {
        let came_to = scenario.steps.get(index).map(|s| match &s.expect {
            Expect::Result(value) => StepCameTo::Output(Embedded::from(stringify2_js(value))),
            Expect::Throws(text) => StepCameTo::Throws(Embedded::from(text.clone())),
            Expect::Done => StepCameTo::Ok(true),
        });
        Some(step(index, came_to))
    };
    match answer {
        WorkflowAnswer::Ran { replies, after } => {
            match workflow_compare::differing_steps(scenario, replies, level).first() {
                Some(&i) => {
                    let got = replies.get(i).map(|r| match r {
                        Received::Returned(text) => {
                            StepCameTo::Output(Embedded::from(text.clone()))
                        }
                        Received::Throws(text) => StepCameTo::Throws(Embedded::from(text.clone())),
                        Received::Done => StepCameTo::Ok(true),
                    });
                    (Some(i), expected_step(i), step(i, got))
                }
                None => (
                    None,
                    Some(Observed::After {
                        after: scenario.expected_after().clone(),
                    }),
                    Observed::After {
                        after: after.clone(),
                    },
                ),
            }
        }
        WorkflowAnswer::Stopped {
            step: at, fault, ..
        } => (
            Some(*at),
            expected_step(*at),
            step(*at, Some(came_to_fault(fault))),
        ),
        WorkflowAnswer::Runner(text) => (
            None,
            None,
            Observed::Runner {
                runner_error: text.clone(),
            },
        ),
        WorkflowAnswer::Unsupported => (None, None, Observed::Unsupported { unsupported: true }),
        WorkflowAnswer::NotObservable(why) => (
            None,
            None,
            Observed::NotObservable {
                not_observable: why.clone(),
            },
        ),
    }
}

/// What a step that got no outcome came to.
fn came_to_fault(fault: &Failure) -> StepCameTo {
    match fault {
        Failure::Error(text) => StepCameTo::Error(text.clone()),
        Failure::Timeout => StepCameTo::Timeout(true),
        Failure::Crash(text) => StepCameTo::Crash(text.clone()),
        Failure::ProtocolError(text) => StepCameTo::ProtocolError(text.clone()),
    }
}

/// The two sides of a scenario's first difference: what was expected there and what came.
fn sides(
    scenario: &Scenario,
    answer: &ScenarioAnswer,
    level: ScenarioLevel,
) -> (Option<Observed>, Observed) {
    let step_of = |index: usize, reply: Option<&Reply>| {
        Observed::Step(StepReport {
            step: index + 1,
            came_to: reply.map(|reply| match reply {
                Reply::Output(text) => StepCameTo::Output(Embedded::from(text.clone())),
                Reply::Throws(text) => StepCameTo::Throws(Embedded::from(text.clone())),
            }),
        })
    };
    let expected_step = |index: usize| {
        let reply = scenario.steps.get(index).and_then(expected_reply);
        Some(step_of(index, reply.as_ref()))
    };
    match answer {
        ScenarioAnswer::Ran { replies, after } => {
            match differing_steps(scenario, replies, level).first() {
                Some(&i) => (
                    expected_step(i),
                    step_of(i, replies.get(i).and_then(Option::as_ref)),
                ),
                None => (
                    Some(Observed::After {
                        after: scenario.expected_after().clone(),
                    }),
                    Observed::After {
                        after: after.clone(),
                    },
                ),
            }
        }
        ScenarioAnswer::Stopped { step, fault, .. } => {
            let received = StepReport {
                step: step + 1,
                came_to: Some(came_to_fault(fault)),
            };
            (expected_step(*step), Observed::Step(received))
        }
        ScenarioAnswer::Runner(text) => (
            None,
            Observed::Runner {
                runner_error: text.clone(),
            },
        ),
        ScenarioAnswer::Unsupported => (None, Observed::Unsupported { unsupported: true }),
        ScenarioAnswer::NotObservable(why) => (
            None,
            Observed::NotObservable {
                not_observable: why.clone(),
            },
        ),
    }
}

/// The directory's differences, file by file, when every step ran.
fn directory(scenario: &Scenario, answer: &ScenarioAnswer) -> Option<Vec<DirectoryChange>> {
    match answer {
        ScenarioAnswer::Ran { after, .. } => Some(directory_changes(&differences(
            scenario.expected_after(),
            after,
        ))),
        ScenarioAnswer::Stopped { .. }
        | ScenarioAnswer::Runner(_)
        | ScenarioAnswer::Unsupported
        | ScenarioAnswer::NotObservable(_) => None,
    }
}

/// The differences of a directory, file by file, as the report lists them.
fn directory_changes(changes: &[Change]) -> Vec<DirectoryChange> {
    changes
        .iter()
        .map(|c| {
            let (path, change) = match c {
                Change::Missing(path, _) => (path, ChangeKind::Missing),
                Change::Extra(path, _) => (path, ChangeKind::Extra),
                Change::Different(path, _, _) => (path, ChangeKind::Different),
            };
            DirectoryChange {
                path: path.clone(),
                change,
            }
        })
        .collect()
}

/// One line on what happened to a scenario.
pub(crate) fn what(record: &ScenarioRecord, level: ScenarioLevel) -> String {
    unless_fixed(record, FIXED.to_owned(), || record.describe(level))
}

/// `fixed` for a listed known failure that passes (its answer is no failure to tell), else what
/// `told` tells of the answer.
fn unless_fixed(record: &ScenarioRecord, fixed: String, told: impl FnOnce() -> String) -> String {
    match record.outcome {
        Outcome::Fixed => fixed,
        Outcome::Pass
        | Outcome::Fail
        | Outcome::Error
        | Outcome::Timeout
        | Outcome::Crash
        | Outcome::ProtocolError
        | Outcome::Unsupported
        | Outcome::NotObservable
        | Outcome::KnownFail => told(),
    }
}

pub(crate) fn sorted(run: &RunResult) -> Vec<&ScenarioRecord> {
    let mut records: Vec<&ScenarioRecord> = run.scenarios.iter().collect();
    records.sort_by_key(|r| r.name());
    records
}

/// The input of a step, as the report shows it: a call's input, an `anchors` step's path.
fn step_input(step: &Step) -> Option<Embedded> {
    match step {
        Step::Call { input, .. } => Some(Embedded(input.clone())),
        Step::Anchors { path, .. } => Some(Embedded::from(path.clone())),
        Step::Write(_) => None,
    }
}
