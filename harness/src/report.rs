//! Run reports (interfaces.md §6): `conformance.json`, `conformance.md` and `junit.xml`; the
//! scenarios' parts come from `scenario_report`.
//!
//! Everything but durations is deterministic: results sorted by vector name, no absolute paths.

use std::fmt::Write as _;
use std::path::Path;

use vvoc_reference::Json;

use crate::compare::{describe, strongest_match};
use crate::conformance::{
    Compared, Conformance, FORMAT, ImplementationReport, Received, ToolId, VectorDetail,
    VectorResult, VectorTotals,
};
use crate::json_ser::{Embedded, to_json};
use crate::outcome::{Answer, Outcome};
use crate::run::{Record, RunResult};

pub use crate::junit::junit;

/// What happened to a known failure that passes.
pub(crate) const FIXED: &str =
    "listed as a known failure but passes: remove it from the known-failure file";

/// How many non-passing vectors the Markdown report shows in full.
pub const MARKDOWN_DETAILS: usize = 200;

/// Writes the three reports into `dir`, creating it.
pub fn write_reports(dir: &Path, run: &RunResult) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let report = conformance(run);
    std::fs::write(
        dir.join("conformance.json"),
        format!("{}\n", report.to_json().to_pretty()),
    )?;
    std::fs::write(dir.join("conformance.md"), render_markdown(&report, run))?;
    std::fs::write(dir.join("junit.xml"), junit(run))?;
    Ok(())
}

/// `conformance.json`.
pub fn json(run: &RunResult) -> Json {
    conformance(run).to_json()
}

/// The report of a run: totals counted once, results sorted by name.
pub fn conformance(run: &RunResult) -> Conformance {
    let i = &run.implementation;
    let tallies = run.tallies();
    let scenarios = crate::scenario_report::section(run);
    Conformance {
        format: FORMAT,
        implementation: ImplementationReport {
            name: i.name.clone(),
            version: i.version.clone(),
            language: i.language.clone(),
            tools: i.tools.clone(),
            scenarios: scenarios.as_ref().map(|_| i.scenarios.clone()),
        },
        vectors: Compared {
            count: run.records.len(),
            tools: tallies.by_tool.keys().copied().map(ToolId).collect(),
        },
        level: run.level,
        totals: VectorTotals::from(tallies.all),
        levels: run.level_passes().into_iter().collect(),
        tools: tallies
            .by_tool
            .into_iter()
            .map(|(tool, tally)| (ToolId(tool), VectorTotals::from(tally)))
            .collect(),
        results: sorted(run).into_iter().map(result).collect(),
        scenarios,
        stderr_tail: run.stderr_tail.clone(),
    }
}

/// `conformance.md`: what a reviewer reads in a pull request.
pub fn markdown(run: &RunResult) -> String {
    render_markdown(&conformance(run), run)
}

fn render_markdown(report: &Conformance, run: &RunResult) -> String {
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
        out.push_str(&crate::scenario_report::markdown(section, run));
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
pub(crate) fn outcome_table<'a>(
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

/// One line on what happened to a vector.
pub fn what_happened(record: &Record) -> String {
    match (&record.outcome, &record.answer) {
        (Outcome::Pass, _) => "passed".to_owned(),
        (Outcome::Fixed, _) => FIXED.to_owned(),
        (Outcome::Unsupported, _) => "the implementation does not implement this tool".to_owned(),
        (_, Answer::Verdict(received)) => describe(&record.vector.expected, received),
        (_, Answer::Error(text)) => format!("the implementation answered error: {text}"),
        (_, Answer::Timeout) => "no answer within the timeout; the peer was restarted".to_owned(),
        (_, Answer::Crash(text)) => format!("{text}; the peer was restarted"),
        (_, Answer::ProtocolError(text)) => {
            format!("protocol error: {text}; the peer was restarted")
        }
        (_, Answer::Unsupported) => "the implementation does not implement this tool".to_owned(),
    }
}

fn result(record: &Record) -> VectorResult {
    let detail = (record.outcome != Outcome::Pass).then(|| VectorDetail {
        what: what_happened(record),
        expected: Embedded(record.vector.expected.to_json()),
        received: received(&record.answer),
        passes_at: match &record.answer {
            Answer::Verdict(received) => strongest_match(&record.vector.expected, received),
            Answer::Error(_)
            | Answer::Timeout
            | Answer::Crash(_)
            | Answer::ProtocolError(_)
            | Answer::Unsupported => None,
        },
    });
    VectorResult {
        vector: record.vector.name(),
        file: record.vector.source.clone(),
        outcome: record.outcome,
        duration_ms: milliseconds(record.duration),
        detail,
    }
}

/// Milliseconds with three decimals: enough to rank, few enough digits to read.
pub(crate) fn milliseconds(duration: std::time::Duration) -> f64 {
    (duration.as_secs_f64() * 1e6).round() / 1e3
}

fn received(answer: &Answer) -> Received {
    match answer {
        Answer::Verdict(verdict) => Received::Verdict(Embedded(verdict.to_json())),
        Answer::Error(text) => Received::Error(text.clone()),
        Answer::Timeout => Received::Timeout(true),
        Answer::Crash(text) => Received::Crash(text.clone()),
        Answer::ProtocolError(text) => Received::ProtocolError(text.clone()),
        Answer::Unsupported => Received::Unsupported(true),
    }
}

fn sorted(run: &RunResult) -> Vec<&Record> {
    let mut records: Vec<&Record> = run.records.iter().collect();
    records.sort_by_key(|r| r.vector.name());
    records
}
