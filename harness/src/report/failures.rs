//! The vectors and scenarios of a report that did not pass, each told in full (as `cargo test`
//! tells a failure) or in one line: what the console, `conformance.md` and `junit.xml` show.

use std::fmt::Write as _;

use vvoc_reference::Json;

use crate::json::ser::to_json;
use crate::outcome::Outcome;
use crate::report::conformance::{
    Conformance, Received, ScenarioDetail, ScenarioResult, VectorDetail, VectorResult,
};
use crate::scenario::compare::plain;

/// Values whose compact text is longer than this are shown cut, compact, with what was left out.
pub(crate) const SHOWN_CHARS: usize = 2_000;

/// How many levels of a shown value are indented; deeper levels are written compactly, so a
/// value of any depth shows in linear size.
pub(crate) const INDENTED_LEVELS: usize = 16;

/// The one-line form cuts a description to this many characters.
pub(crate) const LINE_CHARS: usize = 240;

/// One vector or scenario that did not pass.
#[derive(Clone, Copy, Debug)]
pub enum Failure<'a> {
    /// A vector, with what happened to it.
    Vector(&'a VectorResult, &'a VectorDetail),
    /// A scenario, with what happened to it.
    Scenario(&'a ScenarioResult, &'a ScenarioDetail),
}

/// Every vector, then every scenario, that neither passed nor was unsupported (an unsupported
/// tool is counted, not listed: listing its vectors would bury the rest), each in name order.
pub fn failures(report: &Conformance) -> Vec<Failure<'_>> {
    let vectors = report
        .results
        .iter()
        .filter(|r| listed(r.outcome))
        .filter_map(|r| Some(Failure::Vector(r, r.detail.as_ref()?)));
    let scenarios = report
        .scenarios
        .iter()
        .flat_map(|s| &s.results)
        .filter(|r| listed(r.outcome))
        .filter_map(|r| Some(Failure::Scenario(r, r.detail.as_ref()?)));
    vectors.chain(scenarios).collect()
}

impl Failure<'_> {
    /// `<tool>:<id>`.
    pub fn name(&self) -> &str {
        match self {
            Failure::Vector(r, _) => &r.vector,
            Failure::Scenario(r, _) => &r.scenario,
        }
    }

    /// The outcome it earned.
    pub fn outcome(&self) -> Outcome {
        match self {
            Failure::Vector(r, _) => r.outcome,
            Failure::Scenario(r, _) => r.outcome,
        }
    }

    /// Its file, relative to its source.
    pub fn file(&self) -> &str {
        match self {
            Failure::Vector(r, _) => &r.file,
            Failure::Scenario(r, _) => &r.file,
        }
    }

    /// What happened, in one line.
    pub fn what(&self) -> &str {
        match self {
            Failure::Vector(_, d) => &d.what,
            Failure::Scenario(_, d) => &d.what,
        }
    }

    /// `<name> (<outcome>, <file>): <what>`, the description cut to [`LINE_CHARS`].
    pub fn one_line(&self) -> String {
        format!(
            "{} ({}, {}): {}",
            self.name(),
            self.outcome(),
            self.file(),
            cut(self.what(), LINE_CHARS)
        )
    }

    /// The whole story: for a vector its name, file and position, what happened, then the
    /// input, the expected and the received verdict and their diff; for a scenario the step, its
    /// input, both texts with a diff and the directory file by file.
    pub(crate) fn story(&self) -> String {
        match self {
            Failure::Vector(result, detail) => vector_story(result, detail),
            Failure::Scenario(_, detail) => detail.explanation.clone(),
        }
    }
}

/// A value as a failure shows it: indented (to [`INDENTED_LEVELS`]) when its compact text is
/// short, otherwise compact and cut after [`SHOWN_CHARS`] characters, saying how many more
/// there are.
pub fn shown(value: &Json) -> String {
    let compact = value.to_compact();
    let length = compact.chars().count();
    match length > SHOWN_CHARS {
        false => value.to_pretty_to_depth(INDENTED_LEVELS),
        true => {
            let head: String = compact.chars().take(SHOWN_CHARS).collect();
            format!("{head}… ({} more characters)", length - SHOWN_CHARS)
        }
    }
}

/// `text` cut to `max` characters, with an ellipsis when it was longer.
pub fn cut(text: &str, max: usize) -> String {
    match text.chars().nth(max) {
        None => text.to_owned(),
        Some(_) => {
            let head: String = text.chars().take(max).collect();
            format!("{head}…")
        }
    }
}

fn listed(outcome: Outcome) -> bool {
    match outcome {
        Outcome::Pass | Outcome::Unsupported | Outcome::NotObservable => false,
        Outcome::Fail
        | Outcome::Error
        | Outcome::Timeout
        | Outcome::Crash
        | Outcome::ProtocolError
        | Outcome::KnownFail
        | Outcome::Fixed => true,
    }
}

fn vector_story(result: &VectorResult, detail: &VectorDetail) -> String {
    let received = to_json(&detail.received).unwrap_or(Json::Null);
    let (expected, received) = (shown(&detail.expected.0), shown(&received));
    let mut out = format!(
        "{} ({}, vector {}): {}\n\ninput:\n{}\n\nexpected:\n{expected}\n\nreceived:\n{received}\n",
        result.vector,
        result.file,
        detail.index,
        detail.what,
        shown(&detail.input.0),
    );
    // A diff helps where two verdicts differ in detail; beside an error or a timeout it would
    // only repeat both.
    match detail.received {
        Received::Verdict(_) => {
            let diff =
                similar_asserts::SimpleDiff::from_str(&expected, &received, "expected", "received");
            let _ = write!(out, "\n{}\n", plain(&diff.to_string()));
        }
        Received::Error(_)
        | Received::Timeout(_)
        | Received::Crash(_)
        | Received::ProtocolError(_)
        | Received::Unsupported(_)
        | Received::NotObservable(_) => {}
    }
    out
}
