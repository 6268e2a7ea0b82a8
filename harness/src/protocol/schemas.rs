//! The JSON Schemas of every protocol message (`harness/schemas/protocol/`), and
//! `--validate-protocol`, which checks every message, both ways, against them.

use serde_json::{Value, json};
use vvoc_reference::{Json, Tool};

use crate::protocol::wire::PROTOCOL;

/// The schema of one message: a closed object with these properties (and, for an answer, which
/// one of its members it has).
fn message_schema(
    title: &str,
    description: &str,
    properties: Value,
    required: Value,
    one_of: Option<Value>,
) -> Value {
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
}

/// The JSON Schemas of every protocol message, by file stem (`runner-hello`, `peer-result`, ...).
pub fn schemas() -> Vec<(&'static str, Value)> {
    let tools: Vec<&str> = Tool::ALL.iter().map(|t| t.id()).collect();
    let schema = message_schema;
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
    .chain(scenario_schemas())
    .chain(workflow_schemas())
    .collect()
}

/// `--validate-protocol`: every message, both ways, checked against its schema.
#[derive(Debug)]
pub(crate) struct ProtocolCheck {
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
        let instance = crate::json::bridge::to_serde_lossy(&json);
        match validator.iter_errors(&instance).next() {
            None => Ok(()),
            Some(error) => Err(format!(
                "breaks the {stem} schema at {:?}: {error}",
                error.instance_path.to_string()
            )),
        }
    }

    /// Checks a message of the runner against the schema `stem`; a violation is the runner's
    /// bug, kept for the end of the run.
    pub(crate) fn check_outgoing(&self, stem: &str, line: &str) {
        if let (Err(violation), Ok(mut list)) =
            (self.check(stem, line), self.runner_violations.lock())
        {
            list.push(violation);
        }
    }

    /// The runner's own violations so far.
    pub(crate) fn runner_violations(&self) -> Vec<String> {
        self.runner_violations
            .lock()
            .map(|l| l.clone())
            .unwrap_or_default()
    }
}

/// The schemas of the scenario messages (interfaces.md §9.2), by file stem.
fn scenario_schemas() -> Vec<(&'static str, Value)> {
    let tools: Vec<&str> = Tool::ALL.iter().map(|t| t.id()).collect();
    let schema = |title: &str, description: &str, properties: Value, required: Value| {
        message_schema(title, description, properties, required, None)
    };
    let session = json!({"description": "The scenario's editing session.", "type": "string"});
    let result = message_schema(
        "peer step result",
        "The peer's answer to an exec, anchors, task, event or restart step: the text the tool returns, the message of the error it raises, ok for a workflow step that went through, or an error when the peer could not run the step.",
        json!({
            "type": {"const": "result"},
            "seq": {"type": "integer", "minimum": 0},
            "output": {"description": "The returned text.", "type": "string"},
            "throws": {"description": "The raised error's message (exec only).", "type": "string"},
            "result": {"description": "The object a web tool returns (an exec with a host only).", "type": "object"},
            "asks": {"description": "The permission requests a web call made, in order (with result or throws, for an exec with a host).", "type": "array", "items": {"type": "object"}},
            "ok": {"description": "A task, event or restart went through.", "const": true},
            "error": {"description": "Not a tool outcome: the peer could not run the step.", "type": "string"}
        }),
        json!(["type", "seq"]),
        Some(json!([
            {"required": ["output"], "not": {"anyOf": [{"required": ["result"]}, {"required": ["asks"]}, {"required": ["ok"]}]}},
            {"required": ["throws"], "not": {"anyOf": [{"required": ["result"]}, {"required": ["ok"]}]}},
            {"required": ["result", "asks"], "not": {"anyOf": [{"required": ["throws"]}, {"required": ["ok"]}]}},
            {"required": ["ok"], "not": {"anyOf": [{"required": ["asks"]}, {"required": ["error"]}]}},
            {"required": ["error"]}
        ])),
    );
    vec![
        (
            "runner-exec",
            schema(
                "runner exec",
                "One call of a scenario, in its session; {root} is already substituted. The peer answers with a step result echoing seq (for a workflow tool, with workflow: output, the returned text, or throws).",
                json!({
                    "type": {"const": "exec"},
                    "seq": {"type": "integer", "minimum": 0},
                    "session": session,
                    "tool": {"enum": tools},
                    "input": {"description": "Any JSON value."},
                    "host": {"description": "For web_fetch and web_search: the host configuration (formats.md, Web scenario file), {server} substituted. The peer answers with result or throws, and asks.", "type": "object"},
                    "workflow": workflow_member()
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

/// The `workflow` member of the workflow messages: the host (its data directory included), the
/// step's context, and the clock (`crate::workflow::wire`).
fn workflow_member() -> Value {
    let text = json!({"type": "string"});
    json!({
        "description": "For the workflow tools: the host, the step's context and the clock (protocol.md, Workflow scenarios).",
        "type": "object",
        "properties": {
            "host": {
                "type": "object",
                "properties": {
                    "dataDir": {"description": "The data directory (XDG_DATA_HOME), an absolute path the runner created.", "type": "string"},
                    "directory": {"description": "The plugin's trusted directory.", "type": "string"},
                    "worktree": {"description": "The plugin's trusted worktree, if any.", "type": "string"},
                    "sessions": {
                        "description": "The root-session lookup per session id: null a root, a string the parent's id, {fails} a lookup that raises, {missing} one without data; a session not listed is a root.",
                        "type": "object",
                        "additionalProperties": {
                            "oneOf": [
                                {"type": "null"},
                                {"type": "string"},
                                {"type": "object", "properties": {"fails": text}, "required": ["fails"], "additionalProperties": false},
                                {"type": "object", "properties": {"missing": {"const": true}}, "required": ["missing"], "additionalProperties": false}
                            ]
                        }
                    },
                    "packageRoot": {"description": "Where the plugin's package is installed.", "type": "string"}
                },
                "required": ["dataDir", "directory", "sessions", "packageRoot"],
                "additionalProperties": false
            },
            "context": {
                "description": "The step's context; an absent member is absent for the step.",
                "type": "object",
                "properties": {"session": text, "agent": text, "directory": text, "worktree": text},
                "required": ["session"],
                "additionalProperties": false
            },
            "now": {"description": "The clock for every reading during the step: milliseconds since 1970-01-01T00:00:00Z.", "type": "integer"}
        },
        "required": ["host", "context", "now"],
        "additionalProperties": false
    })
}

/// The schemas of the workflow messages that are not an `exec` (protocol.md, Workflow
/// scenarios), by file stem.
fn workflow_schemas() -> Vec<(&'static str, Value)> {
    let schema = |title: &str, description: &str, properties: Value, required: Value| {
        message_schema(title, description, properties, required, None)
    };
    let session =
        json!({"description": "The scenario's session: one plugin instance.", "type": "string"});
    let seq = json!({"type": "integer", "minimum": 0});
    vec![
        (
            "runner-task",
            schema(
                "runner task",
                "The host is about to run its task tool (phase launch, tool.execute.before) or it returned (phase result, tool.execute.after). The peer answers with a step result: ok, or throws (the hook raised).",
                json!({
                    "type": {"const": "task"},
                    "seq": seq,
                    "session": session,
                    "phase": {"enum": ["launch", "result"]},
                    "callId": {"description": "The host's call id.", "type": "string"},
                    "args": {"description": "The task tool's arguments (subagent_type, prompt, ...).", "type": "object"},
                    "output": {"description": "A result's output.output: a string, or any JSON value."},
                    "metadata": {"description": "A result's output.metadata, if any."},
                    "workflow": workflow_member()
                }),
                json!([
                    "type", "seq", "session", "phase", "callId", "args", "workflow"
                ]),
            ),
        ),
        (
            "runner-event",
            schema(
                "runner event",
                "A host event as the plugin's event hook receives it. The peer answers with a step result: ok, or throws.",
                json!({
                    "type": {"const": "event"},
                    "seq": seq,
                    "session": session,
                    "event": {"type": "object"},
                    "workflow": workflow_member()
                }),
                json!(["type", "seq", "session", "event", "workflow"]),
            ),
        ),
        (
            "runner-restart",
            schema(
                "runner restart",
                "The host process restarts: the session's plugin forgets everything it holds in memory and hydrates each workflow session again from its file when next used. The peer answers with a step result: ok.",
                json!({"type": {"const": "restart"}, "seq": seq, "session": session}),
                json!(["type", "seq", "session"]),
            ),
        ),
    ]
}
