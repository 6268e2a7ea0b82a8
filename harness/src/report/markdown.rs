//! `conformance.md`: what a reviewer reads in a pull request.

use std::fmt::Write as _;

use vvoc_reference::Json;

use crate::json::ser::to_json;
use crate::outcome::Outcome;
use crate::report::conformance::{Conformance, FIXED, ScenarioSection, VectorDetail, VectorResult};
use crate::run::result::RunResult;
use crate::scenario::compare::{explain, plain};
use crate::scenario::records::ScenarioRecord;

/// How many non-passing vectors the Markdown report shows in full.
pub const MARKDOWN_DETAILS: usize = 200;

/// `conformance.md`: what a reviewer reads in a pull request.
pub fn markdown(run: &RunResult) -> String {
    render_markdown(&crate::report::build::conformance(run), run)
}

pub(crate) fn render_markdown(report: &Conformance, run: &RunResult) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Conformance report\n");
    let i = &report.implementation;
    let _ = writeln!(
        out,
        "- Implementation: `{}` {} ({})",
        i.name, i.version, i.language
    );
    let count = report.vectors.count;
    let _ = writeln!(
        out,
        "- Vectors: {count} compared at level `{}`",
        report.level
    );
    let failed = report.totals.outcomes.failing();
    let failed_scenarios = report
        .scenarios
        .as_ref()
        .map_or(0, |s| s.totals.outcomes.failing());
    let verdict = match (failed, failed_scenarios) {
        (0, 0) => "PASS".to_owned(),
        (_, 0) => format!("FAIL ({failed} vectors failed)"),
        (_, n) => format!("FAIL ({failed} vectors and {n} scenarios failed)"),
    };
    let _ = writeln!(out, "- Result: {verdict}");
    let levels: Vec<String> = report
        .levels
        .iter()
        .map(|(l, n)| format!("{l} {n}/{count}"))
        .collect();
    let _ = writeln!(out, "- Passing by level: {}\n", levels.join(", "));
    let rows = report
        .tools
        .iter()
        .map(|(tool, totals)| (format!("`{}`", tool.0), &totals.outcomes));
    out.push_str(&outcome_table(
        "vectors",
        rows.chain([("**total**".to_owned(), &report.totals.outcomes)]),
    ));
    // Unsupported tools are counted in the table; listing each of their vectors would bury the rest.
    let not_passing: Vec<(&VectorResult, &VectorDetail)> = report
        .results
        .iter()
        .filter(|r| !matches!(r.outcome, Outcome::Pass | Outcome::Unsupported))
        .filter_map(|r| Some((r, r.detail.as_ref()?)))
        .collect();
    if !not_passing.is_empty() {
        let _ = writeln!(out, "\n## Not passing ({})", not_passing.len());
        for (result, detail) in not_passing.iter().take(MARKDOWN_DETAILS) {
            let _ = writeln!(out, "\n### `{}` ({})\n", result.vector, result.outcome);
            let _ = writeln!(out, "{} (`{}`)\n", detail.what, result.file);
            let _ = writeln!(
                out,
                "Expected:\n\n```json\n{}\n```\n",
                detail.expected.0.to_pretty()
            );
            let received = to_json(&detail.received).unwrap_or(Json::Null);
            let _ = writeln!(out, "Received:\n\n```json\n{}\n```", received.to_pretty());
        }
        if not_passing.len() > MARKDOWN_DETAILS {
            let _ = writeln!(
                out,
                "\n… and {} more (see `conformance.json`).",
                not_passing.len() - MARKDOWN_DETAILS
            );
        }
    }
    if let Some(section) = &report.scenarios {
        out.push_str(&scenario_markdown(section, run));
    }
    if !report.stderr_tail.trim().is_empty() {
        let _ = writeln!(
            out,
            "\n## The peer's stderr (last bytes)\n\n```text\n{}\n```",
            report.stderr_tail.trim_end()
        );
    }
    out
}

/// The Markdown table of outcomes: a row per tool (name, counts), then the total row.
fn outcome_table<'a>(
    counted: &str,
    rows: impl Iterator<Item = (String, &'a crate::outcome::Tally)>,
) -> String {
    let mut out = format!("| tool | {counted} |");
    for outcome in Outcome::ALL {
        let _ = write!(out, " {} |", outcome.as_str());
    }
    let _ = write!(out, "\n| --- | ---: |");
    for _ in Outcome::ALL {
        out.push_str(" ---: |");
    }
    out.push('\n');
    for (name, tally) in rows {
        let _ = write!(out, "| {name} | {} |", tally.total());
        for outcome in Outcome::ALL {
            let _ = write!(out, " {} |", tally.get(outcome));
        }
        out.push('\n');
    }
    out
}

/// The scenarios' section of `conformance.md`: the counts of the report's `section`, the story
/// of each scenario not passing from the run.
fn scenario_markdown(section: &ScenarioSection, run: &RunResult) -> String {
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
    let not_passing: Vec<&ScenarioRecord> = crate::report::scenarios::sorted(run)
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
