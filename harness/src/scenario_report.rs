//! The scenarios' part of the reports (interfaces.md §6, §9.2): counted beside the vectors, per
//! tool, with the pass count at `effect` and `exact`; deterministic apart from durations.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use vvoc_reference::{Json, Object, Tool};

use crate::junit::{junit_case, junit_counts};
use crate::outcome::Outcome;
use crate::report::MARKDOWN_DETAILS;
use crate::run::RunResult;
use crate::scenario_compare::{
    ScenarioLevel, describe, differing_steps, expected_reply, explain, plain,
};
use crate::scenario_records::ScenarioRecord;
use crate::scenario_run::{Fault, ScenarioAnswer};
use crate::scenarios::Reply;
use crate::tree::{Change, differences, to_json};

const FIXED: &str = "listed as a known failure but passes: remove it from the known-failure file";

/// The `scenarios` member of `conformance.json`.
pub fn json(run: &RunResult) -> Json {
    let mut o = Object::new();
    o.insert("count", count(run.scenarios.len()));
    let tools: Vec<Json> = by_tool(run).keys().map(|t| Json::str(t.id())).collect();
    o.insert("tools", Json::Array(tools));
    o.insert("level", Json::str(ScenarioLevel::of(run.level).as_str()));
    o.insert(
        "totals",
        outcome_counts(&run.scenarios.iter().collect::<Vec<_>>()),
    );
    let mut levels = Object::new();
    for (level, passing) in run.scenario_level_passes() {
        levels.insert(level.as_str(), count(passing));
    }
    o.insert("levels", Json::Object(levels));
    let mut tools = Object::new();
    for (tool, records) in by_tool(run) {
        tools.insert(tool.id(), outcome_counts(&records));
    }
    o.insert("by_tool", Json::Object(tools));
    let level = ScenarioLevel::of(run.level);
    let results: Vec<Json> = sorted(run).into_iter().map(|r| result(r, level)).collect();
    o.insert("results", Json::Array(results));
    Json::Object(o)
}

fn result(record: &ScenarioRecord, level: ScenarioLevel) -> Json {
    let (scenario, answer) = (&record.scenario, &record.answer);
    let mut o = Object::new();
    o.insert("scenario", Json::str(&scenario.name()));
    o.insert("file", Json::str(&scenario.source));
    o.insert("outcome", Json::str(record.outcome.as_str()));
    o.insert(
        "duration_ms",
        Json::Number((record.duration.as_secs_f64() * 1e6).round() / 1e3),
    );
    if record.outcome == Outcome::Pass {
        return Json::Object(o);
    }
    let what = match record.outcome {
        Outcome::Fixed => FIXED.to_owned(),
        _ => describe(scenario, answer, level),
    };
    o.insert("what", Json::str(&what));
    let step_of = |index: usize, reply: Option<&Reply>| {
        let mut s = Object::new();
        s.insert("step", count(index + 1));
        if let Some(reply) = reply {
            s.insert(reply.kind(), Json::String(reply.text().clone()));
        }
        s
    };
    let expected_step = |index: usize| {
        let reply = scenario.steps.get(index).and_then(expected_reply);
        Json::Object(step_of(index, reply.as_ref()))
    };
    let after = |tree| {
        let mut s = Object::new();
        s.insert("after", to_json(tree));
        Json::Object(s)
    };
    let (expected, received) = match answer {
        ScenarioAnswer::Ran {
            replies,
            after: got,
        } => match differing_steps(scenario, replies, level).first() {
            Some(&i) => (
                expected_step(i),
                Json::Object(step_of(i, replies.get(i).and_then(Option::as_ref))),
            ),
            None => (after(scenario.expected_after()), after(got)),
        },
        ScenarioAnswer::Stopped { step, fault, .. } => {
            let mut s = step_of(*step, None);
            match fault {
                Fault::Error(text) => s.insert("error", Json::str(text)),
                Fault::Timeout => s.insert("timeout", Json::Bool(true)),
                Fault::Crash(text) => s.insert("crash", Json::str(text)),
                Fault::ProtocolError(text) => s.insert("protocol_error", Json::str(text)),
            }
            (expected_step(*step), Json::Object(s))
        }
        ScenarioAnswer::Runner(text) => (Json::Null, single("runner_error", Json::str(text))),
        ScenarioAnswer::Unsupported => (Json::Null, single("unsupported", Json::Bool(true))),
    };
    o.insert("expected", expected);
    o.insert("received", received);
    if let ScenarioAnswer::Ran { after: got, .. } = answer {
        let changes: Vec<Json> = differences(scenario.expected_after(), got)
            .iter()
            .map(|c| {
                let (path, change) = match c {
                    Change::Missing(path, _) => (path, "missing"),
                    Change::Extra(path, _) => (path, "extra"),
                    Change::Different(path, _, _) => (path, "different"),
                };
                let mut e = Object::new();
                e.insert("path", Json::str(path));
                e.insert("change", Json::str(change));
                Json::Object(e)
            })
            .collect();
        o.insert("directory", Json::Array(changes));
    }
    let passes_at = ScenarioLevel::ALL
        .into_iter()
        .rev()
        .find(|&l| record.passes_at(l));
    o.insert(
        "passes_at",
        passes_at.map_or(Json::Null, |l| Json::str(l.as_str())),
    );
    Json::Object(o)
}

/// The scenarios' section of `conformance.md`.
pub fn markdown(run: &RunResult) -> String {
    let mut out = String::new();
    let failed = run
        .scenarios
        .iter()
        .filter(|r| r.outcome.fails_run())
        .count();
    let level = ScenarioLevel::of(run.level);
    let _ = writeln!(out, "\n## Scenarios\n");
    let _ = writeln!(
        out,
        "- Scenarios: {} compared at level `{level}`",
        run.scenarios.len()
    );
    let verdict = match failed {
        0 => "PASS".to_owned(),
        n => format!("FAIL ({n} scenarios failed)"),
    };
    let _ = writeln!(out, "- Result: {verdict}");
    let levels: Vec<String> = run
        .scenario_level_passes()
        .iter()
        .map(|(l, n)| format!("{l} {n}/{}", run.scenarios.len()))
        .collect();
    let _ = writeln!(out, "- Passing by level: {}\n", levels.join(", "));
    let _ = write!(out, "| tool | scenarios |");
    for outcome in Outcome::ALL {
        let _ = write!(out, " {} |", outcome.as_str());
    }
    let _ = write!(out, "\n| --- | ---: |");
    for _ in Outcome::ALL {
        out.push_str(" ---: |");
    }
    out.push('\n');
    let mut row = |name: &str, records: &[&ScenarioRecord]| {
        let _ = write!(out, "| {name} | {} |", records.len());
        for outcome in Outcome::ALL {
            let n = records.iter().filter(|r| r.outcome == outcome).count();
            let _ = write!(out, " {n} |");
        }
        out.push('\n');
    };
    for (tool, records) in by_tool(run) {
        row(&format!("`{tool}`"), &records);
    }
    row("**total**", &run.scenarios.iter().collect::<Vec<_>>());
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
                _ => plain(&explain(scenario, answer, level)),
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
            let what = match record.outcome {
                Outcome::Fixed => {
                    "listed as a known failure but passes: remove it from the known-failure file"
                        .to_owned()
                }
                _ => describe(&record.scenario, &record.answer, level),
            };
            out.push_str(&junit_case(
                &format!("{tool}.scenarios"),
                &record.scenario.name(),
                record.duration,
                record.outcome,
                &what,
            ));
        }
        out.push_str("  </testsuite>\n");
    }
    out
}

fn outcome_counts(records: &[&ScenarioRecord]) -> Json {
    let mut o = Object::new();
    o.insert("scenarios", count(records.len()));
    for outcome in Outcome::ALL {
        let n = records.iter().filter(|r| r.outcome == outcome).count();
        o.insert(outcome.as_str(), count(n));
    }
    Json::Object(o)
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

fn single(name: &str, value: Json) -> Json {
    let mut o = Object::new();
    o.insert(name, value);
    Json::Object(o)
}

fn count(n: usize) -> Json {
    Json::Number(n as f64)
}
