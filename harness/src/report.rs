//! Run reports (interfaces.md §6): `conformance.json`, `conformance.md` and `junit.xml`; the
//! scenarios' parts come from `scenario_report`.
//!
//! Everything but durations is deterministic: results sorted by vector name, no absolute paths.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use vvoc_reference::{Json, Object, Tool};

use crate::compare::{describe, strongest_match};
use crate::outcome::{Answer, Outcome};
use crate::run::{Record, RunResult};

pub use crate::junit::junit;

/// The version of the `conformance.json` format.
pub const FORMAT: u32 = 1;

/// How many non-passing vectors the Markdown report shows in full.
pub const MARKDOWN_DETAILS: usize = 200;

/// Writes the three reports into `dir`, creating it.
pub fn write_reports(dir: &Path, run: &RunResult) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(
        dir.join("conformance.json"),
        format!("{}\n", json(run).to_pretty()),
    )?;
    std::fs::write(dir.join("conformance.md"), markdown(run))?;
    std::fs::write(dir.join("junit.xml"), junit(run))?;
    Ok(())
}

/// `conformance.json`.
pub fn json(run: &RunResult) -> Json {
    let mut root = Object::new();
    root.insert("format", Json::Number(f64::from(FORMAT)));
    let mut implementation = Object::new();
    implementation.insert("name", Json::str(&run.implementation.name));
    implementation.insert("version", Json::str(&run.implementation.version));
    implementation.insert("language", Json::str(&run.implementation.language));
    implementation.insert(
        "tools",
        Json::Array(
            run.implementation
                .tools
                .iter()
                .map(|t| Json::str(t))
                .collect(),
        ),
    );
    if !run.scenarios.is_empty() {
        implementation.insert(
            "scenarios",
            Json::Array(
                run.implementation
                    .scenarios
                    .iter()
                    .map(|t| Json::str(t))
                    .collect(),
            ),
        );
    }
    root.insert("implementation", Json::Object(implementation));
    let mut vectors = Object::new();
    vectors.insert("count", count(run.records.len()));
    let tools: Vec<Json> = by_tool(run).keys().map(|t| Json::str(t.id())).collect();
    vectors.insert("tools", Json::Array(tools));
    root.insert("vectors", Json::Object(vectors));
    root.insert("level", Json::str(run.level.as_str()));
    root.insert(
        "totals",
        outcome_counts(&run.records.iter().collect::<Vec<_>>()),
    );
    let mut levels = Object::new();
    for (level, passing) in run.level_passes() {
        levels.insert(level.as_str(), count(passing));
    }
    root.insert("levels", Json::Object(levels));
    let mut tools = Object::new();
    for (tool, records) in by_tool(run) {
        tools.insert(tool.id(), outcome_counts(&records));
    }
    root.insert("tools", Json::Object(tools));
    let results: Vec<Json> = sorted(run).into_iter().map(result).collect();
    root.insert("results", Json::Array(results));
    if !run.scenarios.is_empty() {
        root.insert("scenarios", crate::scenario_report::json(run));
    }
    root.insert("stderr_tail", Json::str(&run.stderr_tail));
    Json::Object(root)
}

/// `conformance.md`: what a reviewer reads in a pull request.
pub fn markdown(run: &RunResult) -> String {
    let mut out = String::new();
    let failed = run.records.iter().filter(|r| r.outcome.fails_run()).count();
    let _ = writeln!(out, "# Conformance report\n");
    let i = &run.implementation;
    let _ = writeln!(
        out,
        "- Implementation: `{}` {} ({})",
        i.name, i.version, i.language
    );
    let _ = writeln!(
        out,
        "- Vectors: {} compared at level `{}`",
        run.records.len(),
        run.level
    );
    let failed_scenarios = run
        .scenarios
        .iter()
        .filter(|r| r.outcome.fails_run())
        .count();
    let verdict = match (failed, failed_scenarios) {
        (0, 0) => "PASS".to_owned(),
        (_, 0) => format!("FAIL ({failed} vectors failed)"),
        (_, n) => format!("FAIL ({failed} vectors and {n} scenarios failed)"),
    };
    let _ = writeln!(out, "- Result: {verdict}");
    let levels: Vec<String> = run
        .level_passes()
        .iter()
        .map(|(l, n)| format!("{l} {n}/{}", run.records.len()))
        .collect();
    let _ = writeln!(out, "- Passing by level: {}\n", levels.join(", "));
    let _ = write!(out, "| tool | vectors |");
    for outcome in Outcome::ALL {
        let _ = write!(out, " {} |", outcome.as_str());
    }
    let _ = write!(out, "\n| --- | ---: |");
    for _ in Outcome::ALL {
        out.push_str(" ---: |");
    }
    out.push('\n');
    let mut row = |name: &str, records: &[&Record]| {
        let _ = write!(out, "| {name} | {} |", records.len());
        for outcome in Outcome::ALL {
            let _ = write!(
                out,
                " {} |",
                records.iter().filter(|r| r.outcome == outcome).count()
            );
        }
        out.push('\n');
    };
    for (tool, records) in by_tool(run) {
        row(&format!("`{tool}`"), &records);
    }
    row("**total**", &run.records.iter().collect::<Vec<_>>());
    // Unsupported tools are counted in the table; listing each of their vectors would bury the rest.
    let not_passing: Vec<&Record> = sorted(run)
        .into_iter()
        .filter(|r| !matches!(r.outcome, Outcome::Pass | Outcome::Unsupported))
        .collect();
    if !not_passing.is_empty() {
        let _ = writeln!(out, "\n## Not passing ({})", not_passing.len());
        for record in not_passing.iter().take(MARKDOWN_DETAILS) {
            let _ = writeln!(
                out,
                "\n### `{}` ({})\n",
                record.vector.name(),
                record.outcome
            );
            let _ = writeln!(
                out,
                "{} (`{}`)\n",
                what_happened(record),
                record.vector.source
            );
            let _ = writeln!(
                out,
                "Expected:\n\n```json\n{}\n```\n",
                record.vector.expected.to_json().to_pretty()
            );
            let _ = writeln!(
                out,
                "Received:\n\n```json\n{}\n```",
                received(&record.answer).to_pretty()
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
    if !run.scenarios.is_empty() {
        out.push_str(&crate::scenario_report::markdown(run));
    }
    if !run.stderr_tail.trim().is_empty() {
        let _ = writeln!(
            out,
            "\n## The peer's stderr (last bytes)\n\n```text\n{}\n```",
            run.stderr_tail.trim_end()
        );
    }
    out
}

/// One line on what happened to a vector.
pub fn what_happened(record: &Record) -> String {
    match (&record.outcome, &record.answer) {
        (Outcome::Pass, _) => "passed".to_owned(),
        (Outcome::Fixed, _) => {
            "listed as a known failure but passes: remove it from the known-failure file".to_owned()
        }
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

fn result(record: &Record) -> Json {
    let mut o = Object::new();
    o.insert("vector", Json::str(&record.vector.name()));
    o.insert("file", Json::str(&record.vector.source));
    o.insert("outcome", Json::str(record.outcome.as_str()));
    // Milliseconds with three decimals: enough to rank, few enough digits to read.
    o.insert(
        "duration_ms",
        Json::Number((record.duration.as_secs_f64() * 1e6).round() / 1e3),
    );
    if record.outcome != Outcome::Pass {
        o.insert("what", Json::str(&what_happened(record)));
        o.insert("expected", record.vector.expected.to_json());
        o.insert("received", received(&record.answer));
        let strongest = match &record.answer {
            Answer::Verdict(received) => strongest_match(&record.vector.expected, received),
            Answer::Error(_)
            | Answer::Timeout
            | Answer::Crash(_)
            | Answer::ProtocolError(_)
            | Answer::Unsupported => None,
        };
        o.insert(
            "passes_at",
            strongest.map_or(Json::Null, |l| Json::str(l.as_str())),
        );
    }
    Json::Object(o)
}

fn received(answer: &Answer) -> Json {
    let mut o = Object::new();
    match answer {
        Answer::Verdict(verdict) => return verdict.to_json(),
        Answer::Error(text) => o.insert("error", Json::str(text)),
        Answer::Timeout => o.insert("timeout", Json::Bool(true)),
        Answer::Crash(text) => o.insert("crash", Json::str(text)),
        Answer::ProtocolError(text) => o.insert("protocol_error", Json::str(text)),
        Answer::Unsupported => o.insert("unsupported", Json::Bool(true)),
    }
    Json::Object(o)
}

fn outcome_counts(records: &[&Record]) -> Json {
    let mut o = Object::new();
    o.insert("vectors", count(records.len()));
    for outcome in Outcome::ALL {
        o.insert(
            outcome.as_str(),
            count(records.iter().filter(|r| r.outcome == outcome).count()),
        );
    }
    Json::Object(o)
}

fn by_tool(run: &RunResult) -> BTreeMap<Tool, Vec<&Record>> {
    let mut tools: BTreeMap<Tool, Vec<&Record>> = BTreeMap::new();
    for record in &run.records {
        tools.entry(record.vector.tool).or_default().push(record);
    }
    tools
}

fn sorted(run: &RunResult) -> Vec<&Record> {
    let mut records: Vec<&Record> = run.records.iter().collect();
    records.sort_by_key(|r| r.vector.name());
    records
}

fn count(n: usize) -> Json {
    Json::Number(n as f64)
}
