//! Comparing what a scenario got with what it expects (interfaces.md §9.2), and explaining a
//! difference: the step, its input, both texts with a diff, and the directory file by file.

use std::fmt;
use std::fmt::Write as _;

use crate::compare::Level;
use crate::outcome::{Failure, Outcome, listed};
use crate::preview::{self, QUOTED_CHARS, cut};
use crate::scenario::model::{Reply, Scenario, Step};
use crate::scenario::play::ScenarioAnswer;
use crate::scenario::tree::{Change, differences, render, summarize};

/// How much of a scenario must match, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ScenarioLevel {
    /// Every step's kind, whether each output starts with `Error: `, and the directory.
    Effect,
    /// Every step's kind and text byte for byte, and the directory.
    Exact,
}

impl ScenarioLevel {
    /// Both levels, weakest first.
    pub const ALL: [ScenarioLevel; 2] = [ScenarioLevel::Effect, ScenarioLevel::Exact];

    /// The level's name in reports.
    pub const fn as_str(self) -> &'static str {
        match self {
            ScenarioLevel::Effect => "effect",
            ScenarioLevel::Exact => "exact",
        }
    }

    /// The scenario level of a run judged at `level`: `exact` stays, every weaker one is `effect`.
    pub fn of(level: Level) -> ScenarioLevel {
        match level {
            Level::Exact | Level::Text => ScenarioLevel::Exact,
            Level::Verdict | Level::First | Level::Issues => ScenarioLevel::Effect,
        }
    }
}

impl fmt::Display for ScenarioLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for ScenarioLevel {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for ScenarioLevel {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> Result<ScenarioLevel, D::Error> {
        crate::json::ser::by_name(deserializer, &ScenarioLevel::ALL, ScenarioLevel::as_str)
    }
}

/// Whether a received reply matches the expected one at `level`.
pub(crate) fn reply_matches(expected: &Reply, received: &Reply, level: ScenarioLevel) -> bool {
    match (expected, received) {
        (Reply::Output(e), Reply::Output(r)) => match level {
            ScenarioLevel::Exact => e == r,
            ScenarioLevel::Effect => expected.is_error_text() == received.is_error_text(),
        },
        (Reply::Throws(e), Reply::Throws(r)) => level == ScenarioLevel::Effect || e == r,
        (Reply::Output(_), Reply::Throws(_)) | (Reply::Throws(_), Reply::Output(_)) => false,
    }
}

/// The expected reply of a step (`None` for a `write` step).
pub(crate) fn expected_reply(step: &Step) -> Option<Reply> {
    match step {
        Step::Call { expect, .. } => Some(expect.clone()),
        Step::Anchors { expect, .. } => Some(Reply::Output(expect.clone())),
        Step::Write(_) => None,
    }
}

/// The 0-based steps whose replies differ at `level`, among those answered.
pub(crate) fn differing_steps(
    scenario: &Scenario,
    replies: &[Option<Reply>],
    level: ScenarioLevel,
) -> Vec<usize> {
    scenario
        .steps
        .iter()
        .zip(replies)
        .enumerate()
        .filter(
            |(_, (step, received))| match (expected_reply(step), received) {
                (Some(e), Some(r)) => !reply_matches(&e, r, level),
                (None, None) => false,
                (Some(_), None) | (None, Some(_)) => true,
            },
        )
        .map(|(i, _)| i)
        .collect()
}

/// Whether the scenario got what it expects at `level`.
pub fn passes(scenario: &Scenario, answer: &ScenarioAnswer, level: ScenarioLevel) -> bool {
    match answer {
        ScenarioAnswer::Ran { replies, after } => {
            replies.len() == scenario.steps.len()
                && differing_steps(scenario, replies, level).is_empty()
                && scenario.expected_after() == after
        }
        ScenarioAnswer::Stopped { .. }
        | ScenarioAnswer::Runner(_)
        | ScenarioAnswer::Unsupported
        | ScenarioAnswer::NotObservable(_) => false,
    }
}

/// The outcome of a scenario's answer, with the policy of vectors (interfaces.md §4).
pub fn classify(
    scenario: &Scenario,
    answer: &ScenarioAnswer,
    level: ScenarioLevel,
    known_failure: bool,
) -> Outcome {
    match answer {
        ScenarioAnswer::Unsupported => return Outcome::Unsupported,
        ScenarioAnswer::NotObservable(_) => return Outcome::NotObservable,
        ScenarioAnswer::Ran { .. } | ScenarioAnswer::Stopped { .. } | ScenarioAnswer::Runner(_) => {
        }
    }
    let passed = passes(scenario, answer, level);
    if known_failure {
        return listed(passed);
    }
    match answer {
        ScenarioAnswer::Ran { .. } if passed => Outcome::Pass,
        ScenarioAnswer::Ran { .. } | ScenarioAnswer::Runner(_) => Outcome::Fail,
        ScenarioAnswer::Stopped { fault, .. } => fault.outcome(),
        ScenarioAnswer::Unsupported => Outcome::Unsupported,
        ScenarioAnswer::NotObservable(_) => Outcome::NotObservable,
    }
}

/// `step 2 of 3 (steps[1], call)`.
pub(crate) fn step_label(scenario: &Scenario, index: usize) -> String {
    let kind = scenario.steps.get(index).map_or("step", Step::kind);
    format!(
        "step {} of {} (steps[{index}], {kind})",
        index + 1,
        scenario.steps.len()
    )
}

/// A reply in a few words: its kind and the start of its text.
pub fn short(reply: &Reply) -> String {
    let text = reply.text().to_string_lossy();
    let cut: String = text.chars().take(60).collect();
    let more = if cut.len() < text.len() { "…" } else { "" };
    format!("{} {cut:?}{more}", reply.kind())
}

/// One line on what went wrong, for summaries and reports.
pub fn describe(scenario: &Scenario, answer: &ScenarioAnswer, level: ScenarioLevel) -> String {
    match answer {
        ScenarioAnswer::Unsupported => "the implementation does not execute this tool".to_owned(),
        ScenarioAnswer::NotObservable(why) => format!("not observable over MCP: {why}"),
        ScenarioAnswer::Runner(text) => {
            format!("the runner could not carry the scenario out: {text}")
        }
        ScenarioAnswer::Stopped { step, fault, .. } => {
            format!("{}: {}", step_label(scenario, *step), fault_text(fault))
        }
        ScenarioAnswer::Ran { replies, after } => {
            let steps = differing_steps(scenario, replies, level);
            let changes = differences(scenario.expected_after(), after);
            let step = steps.first().map(|&i| {
                let expected = scenario.steps.get(i).and_then(expected_reply);
                let received = replies.get(i).cloned().flatten();
                format!(
                    "{}: expected {}, received {}",
                    step_label(scenario, i),
                    expected.as_ref().map_or("nothing".to_owned(), short),
                    received.as_ref().map_or("nothing".to_owned(), short)
                )
            });
            match (step, changes.is_empty()) {
                (None, true) => "every step and the directory as expected".to_owned(),
                (Some(step), true) => step,
                (None, false) => format!(
                    "the directory after the last step differs: {}",
                    summarize(&changes)
                ),
                (Some(step), false) => {
                    format!("{step}; the directory differs too: {}", summarize(&changes))
                }
            }
        }
    }
}

/// What a failed step means, in words.
pub(crate) fn fault_text(fault: &Failure) -> String {
    match fault {
        Failure::Error(text) => format!(
            "the implementation answered error: {}",
            preview::quoted(text)
        ),
        Failure::Timeout => "no answer within the timeout".to_owned(),
        Failure::Crash(text) => text.clone(),
        Failure::ProtocolError(text) => format!("protocol error: {}", cut(text, 2 * QUOTED_CHARS)),
    }
}

/// The whole story of a failure: the first differing step with its input, the expected and
/// received texts and their diff, the other differing steps, and the directory file by file.
pub fn explain(scenario: &Scenario, answer: &ScenarioAnswer, level: ScenarioLevel) -> String {
    let mut out = format!(
        "{} (vectors/{}, scenario {}): {}\n",
        scenario.name(),
        scenario.source,
        scenario.index,
        describe(scenario, answer, level)
    );
    match answer {
        ScenarioAnswer::Unsupported
        | ScenarioAnswer::NotObservable(_)
        | ScenarioAnswer::Runner(_) => {}
        ScenarioAnswer::Stopped { step, .. } => show_step(&mut out, scenario, *step, None),
        ScenarioAnswer::Ran { replies, after } => {
            let steps = differing_steps(scenario, replies, level);
            if let Some(&first) = steps.first() {
                show_step(
                    &mut out,
                    scenario,
                    first,
                    replies.get(first).cloned().flatten(),
                );
            }
            if steps.len() > 1 {
                let others: Vec<String> = steps[1..].iter().map(|i| (i + 1).to_string()).collect();
                let _ = writeln!(out, "\nthe steps {} differ too", others.join(", "));
            }
            let changes: Vec<Change> = differences(scenario.expected_after(), after);
            if !changes.is_empty() {
                let _ = write!(
                    out,
                    "\nthe directory after the last step differs:\n{}",
                    render(&changes)
                );
            }
        }
    }
    out
}

/// The input of a step, and for a received reply both texts and their diff.
fn show_step(out: &mut String, scenario: &Scenario, index: usize, received: Option<Reply>) {
    let Some(step) = scenario.steps.get(index) else {
        return;
    };
    let _ = writeln!(out, "\n{}:", step_label(scenario, index));
    match step {
        Step::Call { input, .. } => {
            let _ = writeln!(out, "input:\n{}", input.to_pretty());
        }
        Step::Anchors { path, .. } => {
            let _ = writeln!(out, "anchors of {path}");
        }
        Step::Write(_) => {}
    }
    let (Some(expected), Some(received)) = (expected_reply(step), received) else {
        return;
    };
    let (e, r) = (
        expected.text().to_string_lossy(),
        received.text().to_string_lossy(),
    );
    let _ = writeln!(
        out,
        "\nexpected {}:\n{}\n\nreceived {}:\n{}\n\n{}",
        expected.kind(),
        quoted(&e),
        received.kind(),
        quoted(&r),
        similar_asserts::SimpleDiff::from_str(&e, &r, "expected", "received")
    );
}

/// A text as a JSON string (so that CRs, tabs and trailing spaces show), cut when long.
fn quoted(text: &str) -> String {
    const SHOWN: usize = 2000;
    let cut: String = text.chars().take(SHOWN).collect();
    if cut.len() < text.len() {
        format!(
            "{cut:?}… ({} characters in all; see the diff)",
            text.chars().count()
        )
    } else {
        format!("{cut:?}")
    }
}

/// `text` without ANSI colour sequences (for reports written to files).
pub fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}
