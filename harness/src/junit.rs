//! `junit.xml` (interfaces.md §6): one test case per vector and per scenario, one test suite per
//! tool (and one per tool's scenarios), for CI systems.

use std::fmt::Write as _;

use crate::outcome::Outcome;
use crate::report::what_happened;
use crate::run::{Record, RunResult};

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
    out.push_str(&crate::scenario_report::junit(run));
    out.push_str("</testsuites>\n");
    out
}

fn junit_failure(o: Outcome) -> bool {
    matches!(o, Outcome::Fail | Outcome::Fixed)
}

fn junit_error(o: Outcome) -> bool {
    matches!(
        o,
        Outcome::Error | Outcome::Timeout | Outcome::Crash | Outcome::ProtocolError
    )
}

fn junit_skipped(o: Outcome) -> bool {
    matches!(o, Outcome::Unsupported | Outcome::KnownFail)
}

/// The `tests`, `failures`, `errors` and `skipped` attributes of a suite with these outcomes.
pub(crate) fn junit_counts(outcomes: &[Outcome]) -> String {
    let count = |f: fn(Outcome) -> bool| outcomes.iter().filter(|o| f(**o)).count();
    format!(
        "tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\"",
        outcomes.len(),
        count(junit_failure),
        count(junit_error),
        count(junit_skipped)
    )
}

/// One `<testcase>` element.
pub(crate) fn junit_case(
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
    match outcome {
        Outcome::Pass => out.push_str("/>\n"),
        o if junit_failure(o) => {
            let _ = writeln!(
                out,
                ">\n      <failure message=\"{message}\" type=\"{o}\"/>\n    </testcase>"
            );
        }
        o if junit_error(o) => {
            let _ = writeln!(
                out,
                ">\n      <error message=\"{message}\" type=\"{o}\"/>\n    </testcase>"
            );
        }
        _ => {
            let _ = writeln!(
                out,
                ">\n      <skipped message=\"{message}\"/>\n    </testcase>"
            );
        }
    }
    out
}

fn by_tool(run: &RunResult) -> std::collections::BTreeMap<vvoc_reference::Tool, Vec<&Record>> {
    let mut tools: std::collections::BTreeMap<vvoc_reference::Tool, Vec<&Record>> =
        std::collections::BTreeMap::new();
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
