//! The scenario messages of the peer protocol (interfaces.md §9.2): the answer to an `exec` or an
//! `anchors` step, and the schemas of `exec`, `anchors`, `end` and that answer.

use serde_json::{Value, json};
use vvoc_reference::{Json, Tool};

use crate::protocol::{expect_type, message};
use crate::scenarios::Reply;

/// A peer's answer to one step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepAnswer {
    /// A tool outcome: a returned text, or a raised error's message.
    Reply(Reply),
    /// The peer could not run the step (not a tool outcome).
    Error(String),
}

/// Which step an answer is for: a call may return or raise, an anchored view only returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepKind {
    /// An `exec` message.
    Exec,
    /// An `anchors` message.
    Anchors,
}

/// A peer's answer to a step: its `seq` and the answer.
pub fn parse_step_result(line: &str, kind: StepKind) -> Result<(u64, StepAnswer), String> {
    let message = message(line)?;
    expect_type(&message, "result")?;
    let seq = match message.get("seq").and_then(Json::as_f64) {
        Some(n) if n >= 0.0 && n.fract() == 0.0 && n < 9.007_199_254_740_992e15 => n as u64,
        _ => return Err("the result has no integer \"seq\"".to_owned()),
    };
    if message.contains("accept") || message.contains("reject") {
        return Err(format!(
            "a verdict (accept or reject) answers a check, not {}: expected \"output\", {}or \"error\"",
            match kind {
                StepKind::Exec => "an exec",
                StepKind::Anchors => "an anchors step",
            },
            match kind {
                StepKind::Exec => "\"throws\" ",
                StepKind::Anchors => "",
            }
        ));
    }
    let answers: Vec<&str> = ["output", "throws", "error"]
        .into_iter()
        .filter(|k| message.contains(k))
        .collect();
    let text = |name: &str| {
        message
            .get(name)
            .and_then(Json::as_string)
            .cloned()
            .ok_or_else(|| format!("{name:?} must be a string"))
    };
    let answer = match (&answers[..], kind) {
        (&["output"], _) => StepAnswer::Reply(Reply::Output(text("output")?)),
        (&["throws"], StepKind::Exec) => StepAnswer::Reply(Reply::Throws(text("throws")?)),
        (&["throws"], StepKind::Anchors) => {
            return Err("an anchored view never throws: answer \"output\" or \"error\"".to_owned());
        }
        (&["error"], _) => StepAnswer::Error(text("error")?.to_string()),
        _ => {
            return Err(
                "a result of a step has exactly one of \"output\", \"throws\" and \"error\""
                    .to_owned(),
            );
        }
    };
    Ok((seq, answer))
}

/// The schemas of the scenario messages, by file stem.
pub fn schemas() -> Vec<(&'static str, Value)> {
    let tools: Vec<&str> = Tool::ALL.iter().map(|t| t.id()).collect();
    let schema = |title: &str, description: &str, properties: Value, required: Value| {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": title,
            "description": description,
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false
        })
    };
    let session = json!({"description": "The scenario's editing session.", "type": "string"});
    let mut result = schema(
        "peer step result",
        "The peer's answer to an exec or anchors step: the text the tool returns, the message of the error it raises, or an error when the peer could not run the step.",
        json!({
            "type": {"const": "result"},
            "seq": {"type": "integer", "minimum": 0},
            "output": {"description": "The returned text.", "type": "string"},
            "throws": {"description": "The raised error's message (exec only).", "type": "string"},
            "error": {"description": "Not a tool outcome: the peer could not run the step.", "type": "string"}
        }),
        json!(["type", "seq"]),
    );
    if let Some(map) = result.as_object_mut() {
        map.insert(
            "oneOf".to_owned(),
            json!([{"required": ["output"]}, {"required": ["throws"]}, {"required": ["error"]}]),
        );
    }
    vec![
        (
            "runner-exec",
            schema(
                "runner exec",
                "One call of a scenario, in its session; {root} is already substituted. The peer answers with a step result echoing seq.",
                json!({
                    "type": {"const": "exec"},
                    "seq": {"type": "integer", "minimum": 0},
                    "session": session,
                    "tool": {"enum": tools},
                    "input": {"description": "Any JSON value."}
                }),
                json!(["type", "seq", "session", "tool", "input"]),
            ),
        ),
        (
            "runner-anchors",
            schema(
                "runner anchors",
                "The anchored view of a file (execution.md section 1.3); the peer answers with an output or an error.",
                json!({
                    "type": {"const": "anchors"},
                    "seq": {"type": "integer", "minimum": 0},
                    "session": session,
                    "path": {"description": "An absolute path.", "type": "string"}
                }),
                json!(["type", "seq", "session", "path"]),
            ),
        ),
        (
            "runner-end",
            schema(
                "runner end",
                "The scenario is over: the peer may forget the session. No answer.",
                json!({"type": {"const": "end"}, "session": session}),
                json!(["type", "session"]),
            ),
        ),
        ("peer-step-result", result),
    ]
}

#[cfg(test)]
mod tests {
    use super::{StepAnswer, StepKind, parse_step_result};
    use crate::scenarios::Reply;

    #[test]
    fn answers_of_steps_are_read_and_verdicts_refused() {
        let out = parse_step_result(r#"{"type":"result","seq":4,"output":"x"}"#, StepKind::Exec);
        assert_eq!(out, Ok((4, StepAnswer::Reply(Reply::Output("x".into())))));
        let raised = parse_step_result(r#"{"type":"result","seq":4,"throws":"E"}"#, StepKind::Exec);
        assert_eq!(
            raised,
            Ok((4, StepAnswer::Reply(Reply::Throws("E".into()))))
        );
        let error = parse_step_result(
            r#"{"type":"result","seq":1,"error":"no"}"#,
            StepKind::Anchors,
        );
        assert_eq!(error, Ok((1, StepAnswer::Error("no".to_owned()))));
        let verdict = parse_step_result(r#"{"type":"result","seq":1,"accept":{}}"#, StepKind::Exec);
        assert!(
            verdict.is_err_and(|e| e.starts_with("a verdict (accept or reject) answers a check"))
        );
        let thrown = parse_step_result(
            r#"{"type":"result","seq":1,"throws":"E"}"#,
            StepKind::Anchors,
        );
        assert!(thrown.is_err());
        let both = parse_step_result(
            r#"{"type":"result","seq":1,"output":"a","error":"b"}"#,
            StepKind::Exec,
        );
        assert!(both.is_err());
    }
}
