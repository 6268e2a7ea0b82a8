//! The vectors' results in `conformance.json`: what happened, expected and received.

use crate::compare::{Level, describe, describe_mcp, matches_mcp, strongest_match};
use crate::json::ser::Embedded;
use crate::outcome::{Answer, Failure, Outcome};
use crate::preview::{QUOTED_CHARS, cut, quoted};
use crate::report::conformance::{FIXED, Received, VectorDetail, VectorResult, milliseconds};
use crate::run::result::{Record, RunResult};

/// One line on what happened to a vector.
pub(crate) fn what_happened(record: &Record) -> String {
    match (&record.outcome, &record.answer) {
        (Outcome::Pass, _) => "passed".to_owned(),
        (Outcome::Fixed, _) => FIXED.to_owned(),
        (Outcome::Unsupported, _) => "the implementation does not implement this tool".to_owned(),
        (_, Answer::NotObservable(why)) => format!("not observable over MCP: {why}"),
        (_, Answer::Verdict(received)) => describe(&record.vector.expected, received),
        (_, Answer::Mcp(received)) => describe_mcp(&record.vector.expected, received),
        (_, Answer::Failed(Failure::Error(text))) => {
            format!("the implementation answered error: {}", quoted(text))
        }
        (_, Answer::Failed(Failure::Timeout)) => {
            "no answer within the timeout; the peer was restarted".to_owned()
        }
        (_, Answer::Failed(Failure::Crash(text))) => format!("{text}; the peer was restarted"),
        (_, Answer::Failed(Failure::ProtocolError(text))) => {
            format!(
                "protocol error: {}; the peer was restarted",
                cut(text, 2 * QUOTED_CHARS)
            )
        }
        (_, Answer::Unsupported) => "the implementation does not implement this tool".to_owned(),
    }
}

/// One result per vector, sorted by name.
pub fn results(run: &RunResult) -> Vec<VectorResult> {
    sorted(run).into_iter().map(result).collect()
}

fn result(record: &Record) -> VectorResult {
    let detail = (record.outcome != Outcome::Pass).then(|| VectorDetail {
        what: what_happened(record),
        index: record.vector.index,
        input: Embedded(record.vector.input.clone()),
        expected: Embedded(record.vector.expected.to_json()),
        received: received(&record.answer),
        passes_at: match &record.answer {
            Answer::Verdict(received) => strongest_match(&record.vector.expected, received),
            Answer::Mcp(received) => Level::MCP
                .into_iter()
                .rev()
                .find(|&l| matches_mcp(&record.vector.expected, received, l)),
            Answer::Failed(_) | Answer::Unsupported | Answer::NotObservable(_) => None,
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

fn received(answer: &Answer) -> Received {
    match answer {
        Answer::Verdict(verdict) => Received::Verdict(Embedded(verdict.to_json())),
        Answer::Failed(Failure::Error(text)) => Received::Error(text.clone()),
        Answer::Failed(Failure::Timeout) => Received::Timeout(true),
        Answer::Failed(Failure::Crash(text)) => Received::Crash(text.clone()),
        Answer::Failed(Failure::ProtocolError(text)) => Received::ProtocolError(text.clone()),
        Answer::Unsupported => Received::Unsupported(true),
        Answer::Mcp(result) => Received::Verdict(Embedded(result.to_json())),
        Answer::NotObservable(why) => Received::NotObservable(why.clone()),
    }
}

fn sorted(run: &RunResult) -> Vec<&Record> {
    let mut records: Vec<&Record> = run.records.iter().collect();
    records.sort_by_key(|r| r.vector.name());
    records
}
