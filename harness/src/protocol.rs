//! The JSON Lines peer protocol (interfaces.md §4, §9.2): the messages both ways, and their
//! schemas (the scenario messages' own parts are in `protocol_exec`).

use serde_json::{Value, json};
use vvoc_reference::{Issue, JsString, Json, Object, Tool};

use crate::outcome::Answer;
use crate::run::Implementation;

/// The protocol version this runner speaks.
pub const PROTOCOL: u32 = 1;

/// A message from the runner to the peer.
#[derive(Clone, Copy, Debug)]
pub enum ToPeer<'a> {
    /// The opening message.
    Hello,
    /// One input to check.
    Check {
        /// The runner's number for this check; the answer echoes it.
        seq: u64,
        /// The tool.
        tool: Tool,
        /// The input.
        input: &'a Json,
    },
    /// One step of a scenario: a call of `tool`.
    Exec {
        /// The runner's number for this step; the answer echoes it.
        seq: u64,
        /// The scenario's session.
        session: &'a str,
        /// The tool.
        tool: Tool,
        /// The input, `{root}` substituted.
        input: &'a Json,
    },
    /// One step of a scenario: the anchored view of a file.
    Anchors {
        /// The runner's number for this step; the answer echoes it.
        seq: u64,
        /// The scenario's session.
        session: &'a str,
        /// The absolute path of the file.
        path: &'a JsString,
    },
    /// The scenario is over; the peer may forget the session (no answer).
    End {
        /// The scenario's session.
        session: &'a str,
    },
    /// The closing message.
    Bye,
}

impl ToPeer<'_> {
    /// The message as one line of JSON, without the newline.
    pub fn to_line(&self) -> String {
        let mut o = Object::new();
        match self {
            ToPeer::Hello => {
                o.insert("type", Json::str("hello"));
                o.insert("protocol", Json::Number(f64::from(PROTOCOL)));
            }
            ToPeer::Check { seq, tool, input } => {
                o.insert("type", Json::str("check"));
                o.insert("seq", Json::Number(*seq as f64));
                o.insert("tool", Json::str(tool.id()));
                o.insert("input", (*input).clone());
            }
            ToPeer::Exec {
                seq,
                session,
                tool,
                input,
            } => {
                o.insert("type", Json::str("exec"));
                o.insert("seq", Json::Number(*seq as f64));
                o.insert("session", Json::str(session));
                o.insert("tool", Json::str(tool.id()));
                o.insert("input", (*input).clone());
            }
            ToPeer::Anchors { seq, session, path } => {
                o.insert("type", Json::str("anchors"));
                o.insert("seq", Json::Number(*seq as f64));
                o.insert("session", Json::str(session));
                o.insert("path", Json::String((*path).clone()));
            }
            ToPeer::End { session } => {
                o.insert("type", Json::str("end"));
                o.insert("session", Json::str(session));
            }
            ToPeer::Bye => o.insert("type", Json::str("bye")),
        }
        Json::Object(o).to_compact()
    }
}

/// A peer's hello: who it is and which tools it implements.
pub fn parse_hello(line: &str) -> Result<Implementation, String> {
    let message = message(line)?;
    expect_type(&message, "hello")?;
    match message.get("protocol").and_then(Json::as_f64) {
        Some(p) if p == f64::from(PROTOCOL) => {}
        Some(p) => {
            return Err(format!(
                "the peer speaks protocol {p}, this runner speaks {PROTOCOL}"
            ));
        }
        None => return Err("the hello has no numeric \"protocol\"".to_owned()),
    }
    let implementation = message
        .get("implementation")
        .and_then(Json::as_object)
        .ok_or("the hello has no \"implementation\" object")?;
    let text = |name: &str| {
        implementation
            .get(name)
            .and_then(Json::as_string)
            .map(|s| s.to_string())
            .ok_or_else(|| format!("the hello's implementation has no string {name:?}"))
    };
    let tools = message
        .get("tools")
        .and_then(Json::as_array)
        .ok_or("the hello has no \"tools\" array")?;
    let tools = tool_ids("tools", tools)?;
    let scenarios = match message.get("scenarios") {
        None => Vec::new(),
        Some(Json::Array(ids)) => tool_ids("scenarios", ids)?,
        Some(_) => return Err("the hello's \"scenarios\" must be an array of tool ids".to_owned()),
    };
    Ok(Implementation {
        name: text("name")?,
        version: text("version")?,
        language: text("language")?,
        tools,
        scenarios,
    })
}

/// The tool ids of the hello's member `member`.
fn tool_ids(member: &str, ids: &[Json]) -> Result<Vec<String>, String> {
    ids.iter()
        .map(|t| {
            let id = t
                .as_string()
                .map(|s| s.to_string())
                .ok_or_else(|| format!("{member:?} must hold tool ids"))?;
            id.parse::<Tool>()
                .map(|_| id)
                .map_err(|unknown| format!("{member:?} names an {unknown}"))
        })
        .collect()
}

/// A peer's answer to a check: its `seq` and the answer.
pub fn parse_result(line: &str) -> Result<(u64, Answer), String> {
    let message = message(line)?;
    expect_type(&message, "result")?;
    let seq = match message.get("seq").and_then(Json::as_f64) {
        Some(n) if n >= 0.0 && n.fract() == 0.0 && n < 9.007_199_254_740_992e15 => n as u64,
        _ => return Err("the result has no integer \"seq\"".to_owned()),
    };
    let answers: Vec<&str> = ["accept", "reject", "error"]
        .into_iter()
        .filter(|k| message.contains(k))
        .collect();
    let answer = match answers[..] {
        ["accept"] => match message.get("accept") {
            Some(output @ Json::Object(_)) => {
                Answer::Verdict(vvoc_reference::Verdict::Accept(output.clone()))
            }
            _ => return Err("\"accept\" must be the normalized output, an object".to_owned()),
        },
        ["reject"] => {
            let issues = message
                .get("reject")
                .and_then(Json::as_array)
                .filter(|issues| (1..=vvoc_reference::issue::MAX_ISSUES).contains(&issues.len()))
                .ok_or("\"reject\" must be an array of 1 to 8 issues")?;
            let issues = issues
                .iter()
                .map(Issue::from_json)
                .collect::<Result<Vec<_>, _>>()?;
            Answer::Verdict(vvoc_reference::Verdict::Reject(issues))
        }
        ["error"] => match message.get("error").and_then(Json::as_string) {
            Some(text) => Answer::Error(text.to_string()),
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

/// A message's `type` (empty when it has none).
pub fn message_type(message: &Object) -> String {
    message
        .get("type")
        .and_then(Json::as_string)
        .map(|t| t.to_string())
        .unwrap_or_default()
}

/// A message line as an object.
pub(crate) fn message(line: &str) -> Result<Object, String> {
    let json = Json::parse(line).map_err(|e| format!("not JSON ({e}): {}", preview(line)))?;
    match json {
        Json::Object(o) => Ok(o),
        other => Err(format!(
            "a message must be an object, found {}",
            other.type_name()
        )),
    }
}

/// Whether the message has the `type` `expected`.
pub(crate) fn expect_type(message: &Object, expected: &str) -> Result<(), String> {
    match message.get("type").and_then(Json::as_string) {
        Some(t) if t.eq_str(expected) => Ok(()),
        Some(t) => Err(format!(
            "expected a {expected:?} message, received {:?}",
            t.to_string()
        )),
        None => Err(format!(
            "expected a {expected:?} message, received one without a string \"type\""
        )),
    }
}

/// The start of a line, for messages about it.
pub fn preview(line: &str) -> String {
    let cut: String = line.chars().take(80).collect();
    if cut.len() < line.len() {
        format!("{cut:?}…")
    } else {
        format!("{cut:?}")
    }
}

/// The JSON Schemas of every protocol message, by file stem (`runner-hello`, `peer-result`, ...).
pub fn schemas() -> Vec<(&'static str, Value)> {
    let tools: Vec<&str> = Tool::ALL.iter().map(|t| t.id()).collect();
    let schema = |title: &str,
                  description: &str,
                  properties: Value,
                  required: Value,
                  one_of: Option<Value>| {
        let mut s = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": title,
            "description": description,
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false
        });
        if let (Some(one_of), Some(map)) = (one_of, s.as_object_mut()) {
            map.insert("oneOf".to_owned(), one_of);
        }
        s
    };
    let issue = crate::meta_schema::issue();
    vec![
        (
            "runner-hello",
            schema(
                "runner hello",
                "The runner's first message.",
                json!({"type": {"const": "hello"}, "protocol": {"const": PROTOCOL}}),
                json!(["type", "protocol"]),
                None,
            ),
        ),
        (
            "runner-check",
            schema(
                "runner check",
                "One input to check; the peer answers with a result echoing seq.",
                json!({
                    "type": {"const": "check"},
                    "seq": {"type": "integer", "minimum": 0},
                    "tool": {"enum": tools},
                    "input": {"description": "Any JSON value."}
                }),
                json!(["type", "seq", "tool", "input"]),
                None,
            ),
        ),
        (
            "runner-bye",
            schema(
                "runner bye",
                "The runner's last message.",
                json!({"type": {"const": "bye"}}),
                json!(["type"]),
                None,
            ),
        ),
        (
            "peer-hello",
            schema(
                "peer hello",
                "The peer's answer to hello: who it is and which tools it implements.",
                json!({
                    "type": {"const": "hello"},
                    "protocol": {"const": PROTOCOL},
                    "implementation": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string"},
                            "version": {"type": "string"},
                            "language": {"type": "string"}
                        },
                        "required": ["name", "version", "language"],
                        "additionalProperties": false
                    },
                    "tools": {"type": "array", "items": {"enum": tools}, "uniqueItems": true},
                    "scenarios": {
                        "description": "The tools the peer executes (scenarios of other tools are unsupported).",
                        "type": "array",
                        "items": {"enum": tools},
                        "uniqueItems": true
                    }
                }),
                json!(["type", "protocol", "implementation", "tools"]),
                None,
            ),
        ),
        (
            "peer-result",
            schema(
                "peer result",
                "The peer's answer to one check: a verdict, or an error when it could not evaluate the input.",
                json!({
                    "type": {"const": "result"},
                    "seq": {"type": "integer", "minimum": 0},
                    "accept": {"description": "The normalized input.", "type": "object"},
                    "reject": {"type": "array", "minItems": 1, "maxItems": 8, "items": issue},
                    "error": {"type": "string"}
                }),
                json!(["type", "seq"]),
                Some(
                    json!([{"required": ["accept"]}, {"required": ["reject"]}, {"required": ["error"]}]),
                ),
            ),
        ),
    ]
    .into_iter()
    .chain(crate::protocol_exec::schemas())
    .collect()
}

/// `--validate-protocol`: every message, both ways, checked against its schema.
#[derive(Debug)]
pub struct ProtocolCheck {
    validators: Vec<(&'static str, jsonschema::Validator)>,
    runner_violations: std::sync::Mutex<Vec<String>>,
}

impl ProtocolCheck {
    /// Compiles the protocol schemas.
    pub fn new() -> Result<ProtocolCheck, String> {
        let validators = schemas()
            .into_iter()
            .map(|(stem, schema)| {
                jsonschema::validator_for(&schema)
                    .map(|v| (stem, v))
                    .map_err(|e| format!("the {stem} schema is invalid: {e}"))
            })
            .collect::<Result<_, _>>()?;
        Ok(ProtocolCheck {
            validators,
            runner_violations: std::sync::Mutex::new(Vec::new()),
        })
    }

    /// Whether `line` follows the schema `stem`; the first violation otherwise.
    pub fn check(&self, stem: &str, line: &str) -> Result<(), String> {
        let Some((_, validator)) = self.validators.iter().find(|(s, _)| *s == stem) else {
            return Err(format!("no protocol schema named {stem}"));
        };
        let json = Json::parse(line).map_err(|e| format!("not JSON ({e})"))?;
        let instance = crate::serde_bridge::to_serde_lossy(&json);
        match validator.iter_errors(&instance).next() {
            None => Ok(()),
            Some(error) => Err(format!(
                "breaks the {stem} schema at {:?}: {error}",
                error.instance_path.to_string()
            )),
        }
    }

    /// Checks a message of the runner; a violation is the runner's bug, kept for the end of the run.
    pub fn check_outgoing(&self, message: &ToPeer<'_>, line: &str) {
        let stem = match message {
            ToPeer::Hello => "runner-hello",
            ToPeer::Check { .. } => "runner-check",
            ToPeer::Exec { .. } => "runner-exec",
            ToPeer::Anchors { .. } => "runner-anchors",
            ToPeer::End { .. } => "runner-end",
            ToPeer::Bye => "runner-bye",
        };
        if let (Err(violation), Ok(mut list)) =
            (self.check(stem, line), self.runner_violations.lock())
        {
            list.push(violation);
        }
    }

    /// The runner's own violations so far.
    pub fn runner_violations(&self) -> Vec<String> {
        self.runner_violations
            .lock()
            .map(|l| l.clone())
            .unwrap_or_default()
    }
}
