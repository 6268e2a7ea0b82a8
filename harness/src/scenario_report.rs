//! The scenarios' part of the reports (interfaces.md §6, §9.2): counted beside the vectors, per
//! tool, with the pass count at `effect` and `exact`; deterministic apart from durations.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use vvoc_reference::Tool;

use crate::conformance::{
    Change as ChangeKind, Compared, DirectoryChange, Observed, ScenarioDetail, ScenarioResult,
    ScenarioSection, ScenarioTotals, StepCameTo, StepReport, ToolId,
};
use crate::json_ser::Embedded;
use crate::junit::{junit_case, junit_counts};
use crate::outcome::Outcome;
use crate::report::{FIXED, MARKDOWN_DETAILS, milliseconds, outcome_table};
use crate::run::RunResult;
use crate::scenario_compare::{
    ScenarioLevel, describe, differing_steps, expected_reply, explain, plain,
};
use crate::scenario_records::ScenarioRecord;
use crate::scenario_run::{Fault, ScenarioAnswer};
use crate::scenarios::Reply;
use crate::tree::{Change, differences};

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
    let (scenario, answer) = (&record.scenario, &record.answer);
    let detail = (record.outcome != Outcome::Pass).then(|| {
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
        let (expected, received) = match answer {
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
                let came_to = match fault {
                    Fault::Error(text) => StepCameTo::Error(text.clone()),
                    Fault::Timeout => StepCameTo::Timeout(true),
                    Fault::Crash(text) => StepCameTo::Crash(text.clone()),
                    Fault::ProtocolError(text) => StepCameTo::ProtocolError(text.clone()),
                };
                let received = StepReport {
                    step: step + 1,
                    came_to: Some(came_to),
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
        };
        let directory = match answer {
            ScenarioAnswer::Ran { after, .. } => Some(
                differences(scenario.expected_after(), after)
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
                    .collect(),
            ),
            ScenarioAnswer::Stopped { .. }
            | ScenarioAnswer::Runner(_)
            | ScenarioAnswer::Unsupported => None,
        };
        let passes_at = ScenarioLevel::ALL
            .into_iter()
            .rev()
            .find(|&l| record.passes_at(l));
        ScenarioDetail {
            what: what(record, level),
            expected,
            received,
            directory,
            passes_at,
        }
    });
    ScenarioResult {
        scenario: scenario.name(),
        file: scenario.source.clone(),
        outcome: record.outcome,
        duration_ms: milliseconds(record.duration),
        detail,
    }
}

/// The scenarios' section of `conformance.md`: the counts of the report's `section`, the story
/// of each scenario not passing from the run.
pub fn markdown(section: &ScenarioSection, run: &RunResult) -> String {
    let mut out = String::new();
    let count = section.compared.count;
    let _ = writeln!(out, "\n## Scenarios\n");
    let _ = writeln!(
        out,
        "- Scenarios: {count} compared at level `{}`",
        section.level
    );
    let verdict = match section.totals.outcomes.failing() {
        0 => "PASS".to_owned(),
        n => format!("FAIL ({n} scenarios failed)"),
    };
    let _ = writeln!(out, "- Result: {verdict}");
    let levels: Vec<String> = section
        .levels
        .iter()
        .map(|(l, n)| format!("{l} {n}/{count}"))
        .collect();
    let _ = writeln!(out, "- Passing by level: {}\n", levels.join(", "));
    let rows = section
        .by_tool
        .iter()
        .map(|(tool, totals)| (format!("`{}`", tool.0), &totals.outcomes));
    out.push_str(&outcome_table(
        "scenarios",
        rows.chain([("**total**".to_owned(), &section.totals.outcomes)]),
    ));
    let not_passing: Vec<&ScenarioRecord> = sorted(run)
        .into_iter()
        .filter(|r| !matches!(r.outcome, Outcome::Pass | Outcome::Unsupported))
        .collect();
    if !not_passing.is_empty() {
        let _ = writeln!(out, "\n### Scenarios not passing ({})", not_passing.len());
        for record in not_passing.iter().take(MARKDOWN_DETAILS) {
            let (scenario, answer) = (&record.scenario, &record.answer);
            let story = match record.outcome {
                Outcome::Fixed => format!("{}: {FIXED}\n", scenario.name()),
                _ => plain(&explain(scenario, answer, section.level)),
            };
            let _ = writeln!(
                out,
                "\n#### `{}` ({})\n\n```text\n{story}```",
                scenario.name(),
                record.outcome
            );
        }
        if not_passing.len() > MARKDOWN_DETAILS {
            let _ = writeln!(
                out,
                "\n… and {} more (see `conformance.json`).",
                not_passing.len() - MARKDOWN_DETAILS
            );
        }
    }
    out
}

/// The scenarios' test suites of `junit.xml`, one per tool.
pub fn junit(run: &RunResult) -> String {
    let level = ScenarioLevel::of(run.level);
    let mut out = String::new();
    for (tool, mut records) in by_tool(run) {
        records.sort_by_key(|r| r.scenario.name());
        let outcomes: Vec<Outcome> = records.iter().map(|r| r.outcome).collect();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{tool} scenarios\" {}>",
            junit_counts(&outcomes)
        );
        for record in records {
            out.push_str(&junit_case(
                &format!("{tool}.scenarios"),
                &record.scenario.name(),
                record.duration,
                record.outcome,
                &what(record, level),
            ));
        }
        out.push_str("  </testsuite>\n");
    }
    out
}

/// One line on what happened to a scenario.
fn what(record: &ScenarioRecord, level: ScenarioLevel) -> String {
    match record.outcome {
        Outcome::Fixed => FIXED.to_owned(),
        _ => describe(&record.scenario, &record.answer, level),
    }
}

fn by_tool(run: &RunResult) -> BTreeMap<Tool, Vec<&ScenarioRecord>> {
    let mut tools: BTreeMap<Tool, Vec<&ScenarioRecord>> = BTreeMap::new();
    for record in &run.scenarios {
        tools.entry(record.scenario.tool).or_default().push(record);
    }
    tools
}

fn sorted(run: &RunResult) -> Vec<&ScenarioRecord> {
    let mut records: Vec<&ScenarioRecord> = run.scenarios.iter().collect();
    records.sort_by_key(|r| r.scenario.name());
    records
}
