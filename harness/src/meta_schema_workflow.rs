//! The JSON Schema of a workflow scenario file (formats.md, "Workflow scenario file"), which
//! `conform lint` checks and `cargo xtask docs` publishes beside the other file schemas.

use serde_json::{Value, json};
use vvoc_reference::Tool;

use crate::meta_schema::KEY_PATTERN;
use crate::workflow::model::{
    DEFAULT_AGENT, DEFAULT_DIRECTORY, DEFAULT_NOW, DEFAULT_PACKAGE_ROOT, DEFAULT_SESSION,
};

/// The schema of a workflow scenario file.
pub fn workflow_scenario_file() -> Value {
    let tools: Vec<&str> = Tool::ALL
        .iter()
        .filter(|t| crate::workflow::is_workflow(**t))
        .map(|t| t.id())
        .collect();
    let text = json!({"type": "string"});
    let nullable = json!({"type": ["string", "null"]});
    let clock = json!({"description": "Milliseconds since 1970-01-01T00:00:00Z.", "type": "integer", "minimum": -8.64e15, "maximum": 8.64e15});
    let common = json!({"now": {"$ref": "#/$defs/clock"}, "context": {"$ref": "#/$defs/context"}});
    let with = |members: Value| {
        let mut all = common.clone();
        if let (Some(all), Value::Object(members)) = (all.as_object_mut(), members) {
            all.extend(members);
        }
        all
    };
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "vvoc workflow scenario file",
        "description": "Scenarios of the workflow tools: a host session against one instance of the workflow plugin, and the data directory before and after (formats.md, Workflow scenario file).",
        "type": "object",
        "properties": {
            "tool": {"description": "The tool that names the scenarios; their steps may call any workflow tool.", "enum": tools},
            "scenarios": {"type": "array", "items": {"$ref": "#/$defs/scenario"}}
        },
        "required": ["tool", "scenarios"],
        "additionalProperties": false,
        "$defs": {
            "scenario": {
                "type": "object",
                "properties": {
                    "id": {"description": "Unique within the tool, across vectors and scenarios.", "type": "string", "pattern": "^[a-z0-9][a-z0-9-]*$"},
                    "note": {"description": "Why the scenario exists.", "type": "string"},
                    "host": {"$ref": "#/$defs/host"},
                    "files": {"description": "The data directory (XDG_DATA_HOME) before the first step.", "$ref": "#/$defs/tree"},
                    "steps": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/step"}},
                    "after": {"description": "The whole data directory after the last step; omitted: unchanged.", "$ref": "#/$defs/tree"}
                },
                "required": ["id", "steps"],
                "additionalProperties": false
            },
            "clock": clock,
            "host": {
                "description": "The host (execution-workflow.md section 1.1); every member optional.",
                "type": "object",
                "properties": {
                    "session": {"description": "The session of every step that names none.", "type": "string", "default": DEFAULT_SESSION},
                    "agent": {"description": "The calling agent; null for none.", "type": ["string", "null"], "default": DEFAULT_AGENT},
                    "directory": {"description": "The plugin's trusted directory, and every step's.", "type": "string", "default": DEFAULT_DIRECTORY},
                    "worktree": {"description": "The plugin's trusted worktree, and every step's; null for none.", "type": ["string", "null"], "default": DEFAULT_DIRECTORY},
                    "sessions": {
                        "description": "The root-session lookup per session id; a session not listed is a root session.",
                        "type": "object",
                        "additionalProperties": {"$ref": "#/$defs/lookup"}
                    },
                    "packageRoot": {"description": "Where the plugin's package is installed (work_item_list's contract.referencePath).", "type": "string", "default": DEFAULT_PACKAGE_ROOT},
                    "now": {"$ref": "#/$defs/clock", "default": DEFAULT_NOW}
                },
                "additionalProperties": false
            },
            "lookup": {
                "oneOf": [
                    {"description": "A root session.", "type": "null"},
                    {"description": "The parent's id.", "type": "string"},
                    {"description": "The lookup raises this message.", "type": "object", "properties": {"fails": text}, "required": ["fails"], "additionalProperties": false},
                    {"description": "The lookup answers without data.", "type": "object", "properties": {"missing": {"const": true}}, "required": ["missing"], "additionalProperties": false}
                ]
            },
            "context": {
                "description": "Members overriding the host's for this step; null makes one absent.",
                "type": "object",
                "properties": {"session": text, "agent": nullable, "directory": nullable, "worktree": nullable},
                "additionalProperties": false
            },
            "key": {
                "description": "A relative path, /-separated; a trailing / names an empty directory.",
                "type": "string",
                "pattern": KEY_PATTERN
            },
            "content": {
                "oneOf": [
                    {"description": "UTF-8 text.", "type": "string"},
                    {
                        "description": "Bytes that are not UTF-8, in padded base64.",
                        "type": "object",
                        "properties": {"base64": {"type": "string", "pattern": "^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"}},
                        "required": ["base64"],
                        "additionalProperties": false
                    },
                    {
                        "description": "JSON.stringify(VALUE, null, 2); after the last step, compared as a JSON value (member order ignored).",
                        "type": "object",
                        "properties": {"json": {}},
                        "required": ["json"],
                        "additionalProperties": false
                    }
                ]
            },
            "tree": {
                "type": "object",
                "propertyNames": {"$ref": "#/$defs/key"},
                "patternProperties": {
                    "/$": {"description": "An empty directory.", "type": "null"},
                    "[^/]$": {"$ref": "#/$defs/content"}
                }
            },
            "step": {
                "oneOf": [
                    {
                        "description": "A call of a workflow tool with a valid input: it returns JSON.stringify(result, null, 2), or raises.",
                        "type": "object",
                        "properties": with(json!({"call": {"enum": tools}, "input": {}, "result": {}, "throws": text})),
                        "required": ["call", "input"],
                        "oneOf": [{"required": ["result"]}, {"required": ["throws"]}],
                        "additionalProperties": false
                    },
                    {
                        "description": "The host is about to run its task tool (tool.execute.before); throws: the hook refuses.",
                        "type": "object",
                        "properties": with(json!({"task": {"const": "launch"}, "callId": text, "args": {"type": "object"}, "throws": text})),
                        "required": ["task", "callId", "args"],
                        "additionalProperties": false
                    },
                    {
                        "description": "The host's task tool returned (tool.execute.after); args default to the launch's with the same callId.",
                        "type": "object",
                        "properties": with(json!({"task": {"const": "result"}, "callId": text, "args": {"type": "object"}, "output": {}, "metadata": {}, "throws": text})),
                        "required": ["task", "callId", "output"],
                        "additionalProperties": false
                    },
                    {
                        "description": "A host event, as the event hook receives it.",
                        "type": "object",
                        "properties": with(json!({"event": {"type": "object"}})),
                        "required": ["event"],
                        "additionalProperties": false
                    },
                    {
                        "description": "The host process restarts: the plugin forgets what it holds in memory.",
                        "type": "object",
                        "properties": with(json!({"restart": {"const": true}})),
                        "required": ["restart"],
                        "additionalProperties": false
                    }
                ]
            }
        }
    })
}
