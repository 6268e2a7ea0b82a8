//! `junit.xml` (interfaces.md §6): one test case per vector and per scenario, one test suite per
//! tool (and one per tool's scenarios), for CI systems.

use std::fmt::Write as _;

use std::collections::BTreeMap;

use vvoc_reference::Tool;

use crate::outcome::Outcome;
use crate::report::vectors::what_happened;
use crate::run::result::{Record, RunResult};
use crate::scenario::compare::ScenarioLevel;
use crate::scenario::records::ScenarioRecord;

/// `junit.xml`: one test case per vector (and scenario), one test suite per tool.
pub fn junit(run: &RunResult) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let all: Vec<Outcome> = run
        .records
        .iter()
        .map(|r| r.outcome)
        .chain(run.scenarios.iter().map(|r| r.outcome))
        .collect();
    let _ = writeln!(
        out,
        "<testsuites name=\"vvoc conformance\" {}>",
        junit_counts(&all)
    );
    for (tool, mut records) in by_tool(run) {
        records.sort_by_key(|r| r.vector.name());
        let outcomes: Vec<Outcome> = records.iter().map(|r| r.outcome).collect();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{tool}\" {}>",
            junit_counts(&outcomes)
        );
        for record in records {
            out.push_str(&junit_case(
                tool.id(),
                &record.vector.name(),
                record.duration,
                record.outcome,
                &what_happened(record),
            ));
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str(&scenario_suites(run));
    out.push_str("</testsuites>\n");
    out
}

/// How JUnit counts an outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Passed,
    Failure,
    Error,
    Skipped,
}

impl Kind {
    /// Every outcome has its kind, so a new outcome cannot silently count as skipped.
    const fn of(outcome: Outcome) -> Kind {
        match outcome {
            Outcome::Pass => Kind::Passed,
            Outcome::Fail | Outcome::Fixed => Kind::Failure,
            Outcome::Error | Outcome::Timeout | Outcome::Crash | Outcome::ProtocolError => {
                Kind::Error
            }
            Outcome::Unsupported | Outcome::KnownFail => Kind::Skipped,
        }
    }
}

/// The `tests`, `failures`, `errors` and `skipped` attributes of a suite with these outcomes.
fn junit_counts(outcomes: &[Outcome]) -> String {
    let count = |kind: Kind| outcomes.iter().filter(|o| Kind::of(**o) == kind).count();
    format!(
        "tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\"",
        outcomes.len(),
        count(Kind::Failure),
        count(Kind::Error),
        count(Kind::Skipped)
    )
}

/// One `<testcase>` element.
fn junit_case(
    classname: &str,
    name: &str,
    duration: std::time::Duration,
    outcome: Outcome,
    what: &str,
) -> String {
    let mut out = format!(
        "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.6}\"",
        xml(classname),
        xml(name),
        duration.as_secs_f64()
    );
    let message = xml(what);
    match Kind::of(outcome) {
        Kind::Passed => out.push_str("/>\n"),
        Kind::Failure => {
            let _ = writeln!(
                out,
                ">\n      <failure message=\"{message}\" type=\"{outcome}\"/>\n    </testcase>"
            );
        }
        Kind::Error => {
            let _ = writeln!(
                out,
                ">\n      <error message=\"{message}\" type=\"{outcome}\"/>\n    </testcase>"
            );
        }
        Kind::Skipped => {
            let _ = writeln!(
                out,
                ">\n      <skipped message=\"{message}\"/>\n    </testcase>"
            );
        }
    }
    out
}

fn by_tool(run: &RunResult) -> BTreeMap<Tool, Vec<&Record>> {
    let mut tools: BTreeMap<Tool, Vec<&Record>> = BTreeMap::new();
    for record in &run.records {
        tools.entry(record.vector.tool).or_default().push(record);
    }
    tools
}

fn xml(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '&' => "&amp;".to_owned(),
            '<' => "&lt;".to_owned(),
            '>' => "&gt;".to_owned(),
            '"' => "&quot;".to_owned(),
            '\'' => "&apos;".to_owned(),
            // XML 1.0 has no way to write the other C0 controls at all.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => "\u{fffd}".to_owned(),
            c => c.to_string(),
        })
        .collect()
}

/// The scenarios' test suites of `junit.xml`, one per tool.
fn scenario_suites(run: &RunResult) -> String {
    let level = ScenarioLevel::of(run.level);
    let mut out = String::new();
    for (tool, mut records) in scenarios_by_tool(run) {
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
                &crate::report::scenarios::what(record, level),
            ));
        }
        out.push_str("  </testsuite>\n");
    }
    out
}

fn scenarios_by_tool(run: &RunResult) -> BTreeMap<Tool, Vec<&ScenarioRecord>> {
    let mut tools: BTreeMap<Tool, Vec<&ScenarioRecord>> = BTreeMap::new();
    for record in &run.scenarios {
        tools.entry(record.scenario.tool).or_default().push(record);
    }
    tools
}
