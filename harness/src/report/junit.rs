//! `junit.xml` (interfaces.md §6), rendered from the typed report alone: one test suite per tool
//! (and one per tool's scenarios), a test case per vector and scenario with its file, and a
//! failure's story in its body; a tool the implementation does not claim is one skipped case.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::outcome::Outcome;
use crate::report::conformance::{Conformance, ScenarioResult, Stopped, VectorResult};
use crate::report::failures::{Failure, failures};

/// `junit.xml`.
pub fn junit(report: &Conformance) -> String {
    let failures = failures(report);
    let stories: BTreeMap<(bool, &str), String> = failures
        .iter()
        .map(|f| ((matches!(f, Failure::Scenario(..)), f.name()), f.story()))
        .collect();
    let mut suites = Vec::new();
    for (tool, results) in by_tool(&report.results, |r: &VectorResult| r.vector.as_str()) {
        let cases = results.iter().map(|r| Case {
            classname: tool.clone(),
            name: &r.vector,
            file: &r.file,
            milliseconds: r.duration_ms,
            outcome: r.outcome,
            what: r.detail.as_ref().map_or("passed", |d| d.what.as_str()),
            story: stories.get(&(false, r.vector.as_str())),
        });
        suites.push(suite(tool.clone(), cases.collect(), "vectors"));
    }
    let scenarios = report.scenarios.iter().flat_map(|s| &s.results);
    for (tool, results) in by_tool(scenarios, |r: &ScenarioResult| r.scenario.as_str()) {
        let cases = results.iter().map(|r| Case {
            classname: format!("{tool}.scenarios"),
            name: &r.scenario,
            file: &r.file,
            milliseconds: r.duration_ms,
            outcome: r.outcome,
            what: r.detail.as_ref().map_or("passed", |d| d.what.as_str()),
            story: stories.get(&(true, r.scenario.as_str())),
        });
        suites.push(suite(
            format!("{tool} scenarios"),
            cases.collect(),
            "scenarios",
        ));
    }
    if let Some(stopped) = &report.stopped {
        suites.push(stopped_suite(stopped));
    }
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(out, "<!-- {} -->", comment(&what_was_tested(report)));
    let total = suites
        .iter()
        .fold(Counts::default(), |a, s| a.plus(s.counts));
    let _ = writeln!(
        out,
        "<testsuites name=\"vvoc conformance\" {}>",
        total.attributes()
    );
    for suite in suites {
        out.push_str(&suite.text);
    }
    out.push_str("</testsuites>\n");
    out
}

/// One line on what the run tested, for the file's opening comment.
fn what_was_tested(report: &Conformance) -> String {
    let t = &report.tested;
    let i = &report.implementation;
    format!(
        "conform {}, contract {}, vectors {} ({} files), peer {}, implementation {} {} ({}), level {}",
        t.conform,
        t.contract,
        t.suite.digest,
        t.suite.files,
        t.peer
            .as_deref()
            .unwrap_or("none (the in-process reference)"),
        i.name,
        i.version,
        i.language,
        report.level
    )
}

/// A suite of one errored case saying why the run stopped early, so CI shows it as a failure.
fn stopped_suite(stopped: &Stopped) -> Suite {
    let counts = Counts::of(Kind::Error);
    let text = format!(
        "  <testsuite name=\"run\" {}>\n    <testcase classname=\"run\" name=\"the run stopped before its end\" time=\"0.000000\">\n      \
         <error message=\"{}\" type=\"stopped\">{} of {} vectors and {} of {} scenarios were not run</error>\n    </testcase>\n  </testsuite>\n",
        counts.attributes(),
        xml(&stopped.reason),
        stopped.vectors_not_run,
        stopped.selected_vectors,
        stopped.scenarios_not_run,
        stopped.selected_scenarios
    );
    Suite { counts, text }
}

/// Text inside an XML comment, which may not hold `--`.
fn comment(text: &str) -> String {
    xml(text).replace("--", "-\u{2010}")
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
            Outcome::Unsupported | Outcome::NotObservable | Outcome::KnownFail => Kind::Skipped,
        }
    }
}

/// The `tests`, `failures`, `errors` and `skipped` counts of a suite.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
}

impl Counts {
    fn of(kind: Kind) -> Counts {
        let one = |k: Kind| usize::from(kind == k);
        Counts {
            tests: 1,
            failures: one(Kind::Failure),
            errors: one(Kind::Error),
            skipped: one(Kind::Skipped),
        }
    }

    fn plus(self, other: Counts) -> Counts {
        Counts {
            tests: self.tests + other.tests,
            failures: self.failures + other.failures,
            errors: self.errors + other.errors,
            skipped: self.skipped + other.skipped,
        }
    }

    fn attributes(self) -> String {
        format!(
            "tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\"",
            self.tests, self.failures, self.errors, self.skipped
        )
    }
}

/// One test case to write.
struct Case<'a> {
    classname: String,
    name: &'a str,
    file: &'a str,
    milliseconds: f64,
    outcome: Outcome,
    what: &'a str,
    story: Option<&'a String>,
}

/// A written suite and its counts.
struct Suite {
    counts: Counts,
    text: String,
}

/// A suite of cases; when every case is unsupported, one skipped case stands for them all.
fn suite(name: String, cases: Vec<Case<'_>>, counted: &str) -> Suite {
    let mut text = String::new();
    let all_unsupported = cases.iter().all(|c| c.outcome == Outcome::Unsupported);
    let counts = match (all_unsupported, cases.first()) {
        (true, Some(first)) => {
            let _ = write!(
                text,
                "    <testcase classname=\"{}\" name=\"{}\" time=\"0.000000\">\n      \
                 <skipped message=\"{} {counted} not run: {}\"/>\n    </testcase>\n",
                xml(&first.classname),
                xml(&format!(
                    "{}: {} {counted} not run",
                    first.classname,
                    cases.len()
                )),
                cases.len(),
                xml(first.what)
            );
            Counts::of(Kind::Skipped)
        }
        (true, None) | (false, _) => {
            let mut counts = Counts::default();
            for case in &cases {
                counts = counts.plus(Counts::of(Kind::of(case.outcome)));
                text.push_str(&case_text(case));
            }
            counts
        }
    };
    let head = format!(
        "  <testsuite name=\"{}\" {}>\n",
        xml(&name),
        counts.attributes()
    );
    Suite {
        counts,
        text: format!("{head}{text}  </testsuite>\n"),
    }
}

fn case_text(case: &Case<'_>) -> String {
    let mut out = format!(
        "    <testcase classname=\"{}\" name=\"{}\" file=\"{}\" time=\"{:.6}\"",
        xml(&case.classname),
        xml(case.name),
        xml(case.file),
        case.milliseconds / 1000.0
    );
    let message = xml(case.what);
    let body = case.story.map_or(String::new(), |s| xml(s));
    let outcome = case.outcome;
    match Kind::of(outcome) {
        Kind::Passed => out.push_str("/>\n"),
        Kind::Failure => {
            let _ = writeln!(
                out,
                ">\n      <failure message=\"{message}\" type=\"{outcome}\">{body}</failure>\n    </testcase>"
            );
        }
        Kind::Error => {
            let _ = writeln!(
                out,
                ">\n      <error message=\"{message}\" type=\"{outcome}\">{body}</error>\n    </testcase>"
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

/// Results grouped by their tool (the part of the name before `:`), each group in input order.
fn by_tool<'a, T: 'a>(
    results: impl IntoIterator<Item = &'a T>,
    name: impl Fn(&T) -> &str,
) -> BTreeMap<String, Vec<&'a T>> {
    let mut tools: BTreeMap<String, Vec<&T>> = BTreeMap::new();
    for result in results {
        let tool = name(result).split(':').next().unwrap_or_default();
        tools.entry(tool.to_owned()).or_default().push(result);
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
