//! A peer's answers (interfaces.md §4, §9.2): the `result` of a check (a verdict, or an error)
//! and of a scenario step (a returned text, a raised error's message, or an error); written by
//! peers, read by the runner, which names what is wrong with a bad one.

use vvoc_reference::issue::MAX_ISSUES;
use vvoc_reference::{Issue, JsString, Json, Object, Verdict};

use crate::protocol::wire::{Seq, expect_type, message};
use crate::scenario::model::Reply;

/// A peer's `result` message: the `seq` it answers, and the answer.
#[derive(Clone, Debug, PartialEq)]
pub struct PeerResult<A> {
    /// The `seq` of the message it answers.
    pub seq: Seq,
    /// The answer.
    pub answer: A,
}

/// A peer's answer to a check.
#[derive(Clone, Debug, PartialEq)]
pub enum CheckAnswer {
    /// A verdict: `accept` with the normalized input, or `reject` with the issues.
    Verdict(Verdict),
    /// The peer could not evaluate the input.
    Error(String),
}

/// A peer's answer to one step.
#[derive(Clone, Debug, PartialEq)]
pub enum StepAnswer {
    /// A tool outcome: a returned text, or a raised error's message.
    Reply(Reply),
    /// A web tool's outcome: the returned object or the raised message, and the permission
    /// requests the call made.
    Web {
        /// The result object, or the raised message.
        reply: Result<Json, JsString>,
        /// Each `context.ask` argument, in order.
        asks: Vec<Json>,
    },
    /// A workflow step that is not a call (a `task`, an `event`, a `restart`) went through.
    Done,
    /// The peer could not run the step (not a tool outcome).
    Error(String),
}

/// Which step an answer is for: a call may return or raise, an anchored view only returns, a
/// web call returns an object or raises, and says what it asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepKind {
    /// An `exec` message of an editor.
    Exec,
    /// An `anchors` message.
    Anchors,
    /// An `exec` message of a web tool (with a `host`).
    Web,
    /// A `task`, `event` or `restart` message: it goes through (`ok`) or raises.
    Hook,
}

impl<A> PeerResult<A> {
    /// The message as an object (a misbehaving peer may add to it).
    fn object(&self, member: &str, value: Json) -> Object {
        let mut reply = Object::new();
        reply.insert("type", Json::str("result"));
        reply.insert("seq", self.seq.0.clone());
        reply.insert(member, value);
        reply
    }

    /// Reads a `result` and its integer `seq`.
    fn read_seq(line: &str) -> Result<(u64, Object), String> {
        let message = message(line)?;
        expect_type(&message, "result")?;
        match message.get("seq").and_then(Json::as_f64) {
            Some(n) if n >= 0.0 && n.fract() == 0.0 && n < 9.007_199_254_740_992e15 => {
                Ok((n as u64, message))
            }
            _ => Err("the result has no integer \"seq\"".to_owned()),
        }
    }
}

impl PeerResult<CheckAnswer> {
    /// The schema of the answer to a check (`--validate-protocol`).
    pub(crate) const SCHEMA: &str = "peer-result";

    /// The message as an object.
    pub fn to_object(&self) -> Object {
        match &self.answer {
            CheckAnswer::Verdict(Verdict::Accept(output)) => self.object("accept", output.clone()),
            CheckAnswer::Verdict(Verdict::Reject(issues)) => self.object(
                "reject",
                Json::Array(issues.iter().map(Issue::to_json).collect()),
            ),
            CheckAnswer::Error(text) => self.object("error", Json::str(text)),
        }
    }

    /// The message as one line of JSON, without the newline.
    pub fn to_line(&self) -> String {
        let mut line = String::new();
        self.write_line(&mut line);
        line
    }

    /// Appends the line of [`PeerResult::to_line`] to `out`, written straight from the answer:
    /// `conform peer` writes one per check, and building the object first copied the output.
    pub(crate) fn write_line(&self, out: &mut String) {
        out.push_str("{\"type\":\"result\",\"seq\":");
        self.seq.0.write_compact(out);
        match &self.answer {
            CheckAnswer::Verdict(Verdict::Accept(output)) => {
                out.push_str(",\"accept\":");
                output.write_compact(out);
            }
            CheckAnswer::Verdict(Verdict::Reject(issues)) => {
                out.push_str(",\"reject\":[");
                for (i, issue) in issues.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    issue.write_compact(out);
                }
                out.push(']');
            }
            CheckAnswer::Error(text) => {
                out.push_str(",\"error\":");
                Json::str(text).write_compact(out);
            }
        }
        out.push('}');
    }

    /// Reads a peer's answer to a check: its integer `seq` and the answer.
    pub fn read(line: &str) -> Result<(u64, CheckAnswer), String> {
        let (seq, message) = Self::read_seq(line)?;
        let answers: Vec<&str> = ["accept", "reject", "error"]
            .into_iter()
            .filter(|k| message.contains(k))
            .collect();
        let answer = match answers[..] {
            ["accept"] => match message.get("accept") {
                Some(output @ Json::Object(_)) => {
                    CheckAnswer::Verdict(Verdict::Accept(output.clone()))
                }
                _ => return Err("\"accept\" must be the normalized output, an object".to_owned()),
            },
            ["reject"] => {
                let issues = message
                    .get("reject")
                    .and_then(Json::as_array)
                    .filter(|issues| (1..=MAX_ISSUES).contains(&issues.len()))
                    .ok_or("\"reject\" must be an array of 1 to 8 issues")?;
                let issues = issues
                    .iter()
                    .map(Issue::from_json)
                    .collect::<Result<Vec<_>, _>>()?;
                CheckAnswer::Verdict(Verdict::Reject(issues))
            }
            ["error"] => match message.get("error").and_then(Json::as_string) {
                Some(text) => CheckAnswer::Error(text.to_string()),
                None => return Err("\"error\" must be a string".to_owned()),
            },
            _ => {
                return Err(
                    "a result has exactly one of \"accept\", \"reject\" and \"error\"".to_owned(),
                );
            }
        };
        Ok((seq, answer))
    }
}

impl PeerResult<StepAnswer> {
    /// The schema of the answer to a step (`--validate-protocol`).
    pub(crate) const SCHEMA: &str = "peer-step-result";

    /// The message as an object.
    pub fn to_object(&self) -> Object {
        match &self.answer {
            StepAnswer::Reply(Reply::Output(text)) => {
                self.object("output", Json::String(text.clone()))
            }
            StepAnswer::Reply(Reply::Throws(text)) => {
                self.object("throws", Json::String(text.clone()))
            }
            StepAnswer::Web { reply, asks } => {
                let mut object = match reply {
                    Ok(result) => self.object("result", result.clone()),
                    Err(text) => self.object("throws", Json::String(text.clone())),
                };
                object.insert("asks", Json::Array(asks.clone()));
                object
            }
            StepAnswer::Done => self.object("ok", Json::Bool(true)),
            StepAnswer::Error(text) => self.object("error", Json::str(text)),
        }
    }

    /// The message as one line of JSON, without the newline.
    pub fn to_line(&self) -> String {
        Json::Object(self.to_object()).to_compact()
    }

    /// Reads a peer's answer to a step of `kind`: its integer `seq` and the answer.
    pub fn read(line: &str, kind: StepKind) -> Result<(u64, StepAnswer), String> {
        match kind {
            StepKind::Web => return Self::read_web(line),
            StepKind::Hook => return Self::read_hook(line),
            StepKind::Exec | StepKind::Anchors => {}
        }
        let (seq, message) = Self::read_seq(line)?;
        if message.contains("accept") || message.contains("reject") {
            return Err(format!(
                "a verdict (accept or reject) answers a check, not {}: expected \"output\", {}or \"error\"",
                match kind {
                    StepKind::Exec | StepKind::Web | StepKind::Hook => "an exec",
                    StepKind::Anchors => "an anchors step",
                },
                match kind {
                    StepKind::Exec | StepKind::Web | StepKind::Hook => "\"throws\" ",
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
            (&["throws"], StepKind::Exec | StepKind::Web | StepKind::Hook) => {
                StepAnswer::Reply(Reply::Throws(text("throws")?))
            }
            (&["throws"], StepKind::Anchors) => {
                return Err(
                    "an anchored view never throws: answer \"output\" or \"error\"".to_owned(),
                );
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
}

impl PeerResult<StepAnswer> {
    /// Reads a peer's answer to a `task`, `event` or `restart` message: `ok` (`true`), `throws`
    /// (a string), or `error`.
    fn read_hook(line: &str) -> Result<(u64, StepAnswer), String> {
        let (seq, message) = Self::read_seq(line)?;
        let answers: Vec<&str> = ["ok", "throws", "error"]
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
        let answer = match answers[..] {
            ["ok"] => match message.get("ok") {
                Some(Json::Bool(true)) => StepAnswer::Done,
                _ => return Err("\"ok\" must be true".to_owned()),
            },
            ["throws"] => StepAnswer::Reply(Reply::Throws(text("throws")?)),
            ["error"] => StepAnswer::Error(text("error")?.to_string()),
            _ => {
                return Err(
                    "a result of a task, event or restart has exactly one of \"ok\", \"throws\" \
                     and \"error\""
                        .to_owned(),
                );
            }
        };
        Ok((seq, answer))
    }

    /// Reads a peer's answer to a web call: `result` (an object) or `throws` (a string), each
    /// with `asks` (an array of objects), or `error`.
    fn read_web(line: &str) -> Result<(u64, StepAnswer), String> {
        let (seq, message) = Self::read_seq(line)?;
        let answers: Vec<&str> = ["result", "throws", "error"]
            .into_iter()
            .filter(|k| message.contains(k))
            .collect();
        let asks = || {
            match message.get("asks") {
            Some(Json::Array(asks)) if asks.iter().all(|a| a.as_object().is_some()) => {
                Ok(asks.clone())
            }
            _ => Err(
                "a web call's result has \"asks\": the permission requests made, an array of objects"
                    .to_owned(),
            ),
        }
        };
        let answer = match answers[..] {
            ["result"] => match message.get("result") {
                Some(result @ Json::Object(_)) => StepAnswer::Web {
                    reply: Ok(result.clone()),
                    asks: asks()?,
                },
                _ => return Err("\"result\" must be the returned object".to_owned()),
            },
            ["throws"] => match message.get("throws") {
                Some(Json::String(text)) => StepAnswer::Web {
                    reply: Err(text.clone()),
                    asks: asks()?,
                },
                _ => return Err("\"throws\" must be a string".to_owned()),
            },
            ["error"] => match message.get("error").and_then(Json::as_string) {
                Some(text) => StepAnswer::Error(text.to_string()),
                None => return Err("\"error\" must be a string".to_owned()),
            },
            _ => {
                return Err(
                    "a result of a web call has exactly one of \"result\", \"throws\" and \"error\""
                        .to_owned(),
                );
            }
        };
        Ok((seq, answer))
    }
}

#[cfg(test)]
mod tests {
    use vvoc_reference::{Json, Verdict};

    use super::{CheckAnswer, PeerResult, StepAnswer, StepKind};
    use crate::protocol::wire::Seq;
    use crate::scenario::model::Reply;

    #[test]
    fn a_check_answer_is_written_as_its_object_and_read_back() {
        let inputs = [
            r#"{"query":"q\ud800","count":8,"x":[1.5,-0.0,1e21,null,true]}"#,
            r#"{"workItemId":{"length":{"toString":1}}}"#,
            r#"{}"#,
        ];
        for (seq, text) in inputs.iter().enumerate() {
            let input = Json::parse(text).expect("JSON");
            let verdicts = [
                vvoc_reference::validate_json(vvoc_reference::Tool::WebSearch, &input),
                vvoc_reference::validate_json(vvoc_reference::Tool::WorkItemClose, &input),
                Verdict::Accept(input.clone()),
            ];
            let answers = verdicts
                .into_iter()
                .map(CheckAnswer::Verdict)
                .chain([CheckAnswer::Error(format!("cannot read \"{text}\"\u{0}"))]);
            for answer in answers {
                let result = PeerResult {
                    seq: Seq(Json::Number(seq as f64)),
                    answer,
                };
                let line = result.to_line();
                assert_eq!(line, Json::Object(result.to_object()).to_compact());
                let (read_seq, read) = PeerResult::<CheckAnswer>::read(&line).expect("readable");
                assert_eq!((read_seq, read), (seq as u64, result.answer), "{line}");
            }
        }
    }

    #[test]
    fn answers_of_steps_are_read_and_verdicts_refused() {
        let read = PeerResult::<StepAnswer>::read;
        let out = read(r#"{"type":"result","seq":4,"output":"x"}"#, StepKind::Exec);
        assert_eq!(out, Ok((4, StepAnswer::Reply(Reply::Output("x".into())))));
        let raised = read(r#"{"type":"result","seq":4,"throws":"E"}"#, StepKind::Exec);
        assert_eq!(
            raised,
            Ok((4, StepAnswer::Reply(Reply::Throws("E".into()))))
        );
        let error = read(
            r#"{"type":"result","seq":1,"error":"no"}"#,
            StepKind::Anchors,
        );
        assert_eq!(error, Ok((1, StepAnswer::Error("no".to_owned()))));
        let verdict = read(r#"{"type":"result","seq":1,"accept":{}}"#, StepKind::Exec);
        assert!(
            verdict.is_err_and(|e| e.starts_with("a verdict (accept or reject) answers a check"))
        );
        let thrown = read(
            r#"{"type":"result","seq":1,"throws":"E"}"#,
            StepKind::Anchors,
        );
        assert!(thrown.is_err());
        let both = read(
            r#"{"type":"result","seq":1,"output":"a","error":"b"}"#,
            StepKind::Exec,
        );
        assert!(both.is_err());
    }

    #[test]
    fn what_a_peer_writes_the_runner_reads_back() {
        let accept = Verdict::Accept(Json::parse(r#"{"query":"q","count":8}"#).expect("JSON"));
        for answer in [
            CheckAnswer::Verdict(accept),
            CheckAnswer::Error("no".to_owned()),
        ] {
            let line = PeerResult {
                seq: Seq::from(3),
                answer: answer.clone(),
            }
            .to_line();
            assert_eq!(PeerResult::<CheckAnswer>::read(&line), Ok((3, answer)));
        }
        let step = StepAnswer::Reply(Reply::Throws("E".into()));
        let line = PeerResult {
            seq: Seq::from(5),
            answer: step.clone(),
        }
        .to_line();
        assert_eq!(
            PeerResult::<StepAnswer>::read(&line, StepKind::Exec),
            Ok((5, step))
        );
    }
}
