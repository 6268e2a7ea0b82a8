//! What an implementation answered for one vector, and the outcome that answer earns.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use vvoc_reference::{Tool, Verdict};

use crate::compare::{Level, ToolResult, matches, matches_mcp};

/// What came back for one check.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// A verdict.
    Verdict(Verdict),
    /// No verdict: how the implementation failed to answer.
    Failed(Failure),
    /// The implementation does not implement the tool.
    Unsupported,
    /// An MCP server's result of a `tools/call`.
    Mcp(ToolResult),
    /// The check cannot be observed over the transport (an accept vector over MCP): why.
    NotObservable(String),
}

/// How an implementation failed to answer a request (a check, a scenario step): the one way
/// the harness says so, whoever failed (a peer process, or the reference in process when it
/// panicked) and whatever was asked. Peers of other kinds and other messages fail the same ways.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Failure {
    /// It said it could not carry the request out (an `error` answer).
    Error(String),
    /// No answer within the timeout.
    Timeout,
    /// It exited or closed its output before answering (or, in process, panicked).
    Crash(String),
    /// The answer broke the protocol.
    ProtocolError(String),
}

impl Failure {
    /// The outcome the failure earns.
    pub const fn outcome(&self) -> Outcome {
        match self {
            Failure::Error(_) => Outcome::Error,
            Failure::Timeout => Outcome::Timeout,
            Failure::Crash(_) => Outcome::Crash,
            Failure::ProtocolError(_) => Outcome::ProtocolError,
        }
    }

    /// Whether the process that failed must be restarted: after anything but an `error` answer.
    pub const fn breaks_process(&self) -> bool {
        match self {
            Failure::Error(_) => false,
            Failure::Timeout | Failure::Crash(_) | Failure::ProtocolError(_) => true,
        }
    }

    /// The same failure without its text, for grouping failures by how they failed.
    pub fn without_text(&self) -> Failure {
        match self {
            Failure::Error(_) => Failure::Error(String::new()),
            Failure::Timeout => Failure::Timeout,
            Failure::Crash(_) => Failure::Crash(String::new()),
            Failure::ProtocolError(_) => Failure::ProtocolError(String::new()),
        }
    }
}

/// The outcome of one vector (interfaces.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// The answer matches at the chosen level.
    Pass,
    /// Answered, but different at the chosen level.
    Fail,
    /// The implementation answered `error`.
    Error,
    /// No answer in time.
    Timeout,
    /// The implementation died before answering.
    Crash,
    /// The answer broke the protocol.
    ProtocolError,
    /// The tool is not implemented.
    Unsupported,
    /// It cannot be observed over the transport (over MCP: an accept vector, a scenario that
    /// asks for anchors or a host configuration); counted apart, like `unsupported`.
    NotObservable,
    /// Listed as a known failure and still failing.
    KnownFail,
    /// Listed as a known failure but passing: the list is stale.
    Fixed,
}

impl Outcome {
    /// Every outcome, in report order.
    pub const ALL: [Outcome; 10] = [
        Outcome::Pass,
        Outcome::Fail,
        Outcome::Error,
        Outcome::Timeout,
        Outcome::Crash,
        Outcome::ProtocolError,
        Outcome::Unsupported,
        Outcome::NotObservable,
        Outcome::KnownFail,
        Outcome::Fixed,
    ];

    /// The outcome's name in summaries and reports.
    pub const fn as_str(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Error => "error",
            Outcome::Timeout => "timeout",
            Outcome::Crash => "crash",
            Outcome::ProtocolError => "protocol-error",
            Outcome::Unsupported => "unsupported",
            Outcome::NotObservable => "not-observable",
            Outcome::KnownFail => "known-fail",
            Outcome::Fixed => "fixed",
        }
    }

    /// Whether the outcome fails the run (exit code 2).
    pub(crate) const fn fails_run(self) -> bool {
        match self {
            Outcome::Fail
            | Outcome::Error
            | Outcome::Timeout
            | Outcome::Crash
            | Outcome::ProtocolError
            | Outcome::Fixed => true,
            Outcome::Pass | Outcome::Unsupported | Outcome::NotObservable | Outcome::KnownFail => {
                false
            }
        }
    }

    /// Whether the check was never put to the implementation: its tool is not claimed, or it
    /// cannot be observed over the transport. Such checks are counted apart from the scores.
    pub const fn counted_apart(self) -> bool {
        match self {
            Outcome::Unsupported | Outcome::NotObservable => true,
            Outcome::Pass
            | Outcome::Fail
            | Outcome::Error
            | Outcome::Timeout
            | Outcome::Crash
            | Outcome::ProtocolError
            | Outcome::KnownFail
            | Outcome::Fixed => false,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Outcome {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Outcome {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Outcome, D::Error> {
        crate::json::ser::by_name(deserializer, &Outcome::ALL, Outcome::as_str)
    }
}

/// How many vectors (or scenarios) have each outcome, every outcome present, in report order;
/// written with `not-observable` only when some are (only runs over MCP have any).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tally(BTreeMap<Outcome, usize>);

impl<'de> Deserialize<'de> for Tally {
    /// An outcome a report leaves out (`not-observable`, in a run not over MCP) counts 0.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Tally, D::Error> {
        let mut counts = BTreeMap::<Outcome, usize>::deserialize(deserializer)?;
        for outcome in Outcome::ALL {
            counts.entry(outcome).or_insert(0);
        }
        Ok(Tally(counts))
    }
}

impl Serialize for Tally {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let shown = self
            .0
            .iter()
            .filter(|(o, n)| **o != Outcome::NotObservable || **n > 0);
        let mut map = serializer.serialize_map(None)?;
        for (outcome, n) in shown {
            map.serialize_entry(outcome, n)?;
        }
        map.end()
    }
}

impl Tally {
    /// Counts `outcomes`.
    pub fn of(outcomes: impl IntoIterator<Item = Outcome>) -> Tally {
        let mut counts: BTreeMap<Outcome, usize> = Outcome::ALL.map(|o| (o, 0)).into();
        for outcome in outcomes {
            *counts.entry(outcome).or_insert(0) += 1;
        }
        Tally(counts)
    }

    /// How many have `outcome`.
    pub fn get(&self, outcome: Outcome) -> usize {
        self.0.get(&outcome).copied().unwrap_or(0)
    }

    /// How many in all.
    pub fn total(&self) -> usize {
        self.0.values().sum()
    }

    /// How many fail the run.
    pub fn failing(&self) -> usize {
        self.0
            .iter()
            .filter(|(o, _)| o.fails_run())
            .map(|(_, n)| n)
            .sum()
    }
}

/// Outcomes counted once for a whole run's vectors (or scenarios): in all, and per tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Tallies {
    /// Every outcome.
    pub all: Tally,
    /// The outcomes of each tool that has any, in tool order.
    pub by_tool: BTreeMap<Tool, Tally>,
}

impl Tallies {
    /// Counts the outcomes, each with its tool.
    pub fn of(outcomes: impl IntoIterator<Item = (Tool, Outcome)> + Clone) -> Tallies {
        let mut tools: BTreeMap<Tool, Vec<Outcome>> = BTreeMap::new();
        for (tool, outcome) in outcomes.clone() {
            tools.entry(tool).or_default().push(outcome);
        }
        Tallies {
            all: Tally::of(outcomes.into_iter().map(|(_, o)| o)),
            by_tool: tools.into_iter().map(|(t, o)| (t, Tally::of(o))).collect(),
        }
    }
}

/// The outcome of a listed known failure: `fixed` when it passes (the list is stale),
/// `known-fail` however it fails.
pub const fn listed(passed: bool) -> Outcome {
    match passed {
        true => Outcome::Fixed,
        false => Outcome::KnownFail,
    }
}

/// The outcome of an answer. The order of the checks is the policy: an unsupported tool is never
/// a failure; a listed known failure is `known-fail` however it fails and `fixed` when it passes;
/// otherwise the answer decides.
pub fn classify(expected: &Verdict, answer: &Answer, level: Level, known_failure: bool) -> Outcome {
    match answer {
        Answer::Unsupported => return Outcome::Unsupported,
        Answer::NotObservable(_) => return Outcome::NotObservable,
        Answer::Verdict(_) | Answer::Mcp(_) | Answer::Failed(_) => {}
    }
    let passed = answer_matches(expected, answer, level);
    if known_failure {
        return listed(passed);
    }
    match answer {
        Answer::Verdict(_) | Answer::Mcp(_) if passed => Outcome::Pass,
        Answer::Verdict(_) | Answer::Mcp(_) => Outcome::Fail,
        Answer::Failed(failure) => failure.outcome(),
        Answer::Unsupported => Outcome::Unsupported,
        Answer::NotObservable(_) => Outcome::NotObservable,
    }
}

/// Whether an answer matches `expected` at `level`: a verdict as [`matches`] says, an MCP result
/// as [`matches_mcp`] says; no other answer matches.
pub fn answer_matches(expected: &Verdict, answer: &Answer, level: Level) -> bool {
    match answer {
        Answer::Verdict(received) => matches(expected, received, level),
        Answer::Mcp(received) => matches_mcp(expected, received, level),
        Answer::Failed(_) | Answer::Unsupported | Answer::NotObservable(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_earns_its_outcome_and_only_an_error_answer_leaves_the_process_running() {
        let failures = [
            Failure::Error("no".to_owned()),
            Failure::Timeout,
            Failure::Crash("gone".to_owned()),
            Failure::ProtocolError("not JSON".to_owned()),
        ];
        let outcomes = failures.clone().map(|f| f.outcome());
        let expected = [
            Outcome::Error,
            Outcome::Timeout,
            Outcome::Crash,
            Outcome::ProtocolError,
        ];
        assert_eq!(outcomes, expected);
        let broken = failures.clone().map(|f| f.breaks_process());
        assert_eq!(broken, [false, true, true, true]);
        for failure in failures {
            let answer = Answer::Failed(failure.clone());
            let refusal = Verdict::Reject(Vec::new());
            let outcome = classify(&refusal, &answer, Level::Exact, false);
            assert_eq!(outcome, failure.outcome());
            let listed = classify(&refusal, &answer, Level::Exact, true);
            assert_eq!(listed, Outcome::KnownFail);
            assert_eq!(
                failure.without_text(),
                failure.without_text().without_text()
            );
            assert_eq!(failure.without_text().outcome(), failure.outcome());
        }
    }
}
