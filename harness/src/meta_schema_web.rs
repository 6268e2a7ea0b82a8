//! The JSON Schema of a web scenario file (formats.md, "Web scenario file"), which `conform lint`
//! checks and `cargo xtask docs` publishes beside the other file schemas.

use serde_json::{Value, json};

/// The schema of a web scenario file.
pub fn web_scenario_file() -> Value {
    let text = json!({"type": "string"});
    let object = json!({"type": "object"});
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "vvoc web scenario file",
        "description": "Scenarios of web_fetch or web_search: one call each against a fixture HTTP server on 127.0.0.1 (formats.md, Web scenario file).",
        "type": "object",
        "properties": {
            "tool": {"enum": ["web_fetch", "web_search"]},
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
                    "routes": {"type": "array", "items": {"$ref": "#/$defs/route"}},
                    "call": {"description": "The tool's input; {server} stands for http://127.0.0.1:PORT."},
                    "result": {"description": "The returned object, compared as a JSON value.", "type": "object"},
                    "family": {"description": "The result's family.", "type": "string", "pattern": "^web_(fetch|search):[a-z-]+$"},
                    "throws": {"description": "The raised message.", "type": "string"},
                    "asks": {"description": "The permission requests, in order.", "type": "array", "items": object},
                    "requests": {"description": "The requests the server saw, in order.", "type": "array", "items": {"$ref": "#/$defs/request"}}
                },
                "required": ["id", "call", "asks", "requests"],
                "oneOf": [
                    {"required": ["result", "family"], "not": {"required": ["throws"]}},
                    {"required": ["throws"], "not": {"anyOf": [{"required": ["result"]}, {"required": ["family"]}]}}
                ],
                "additionalProperties": false
            },
            "settings": {
                "type": "object",
                "properties": {
                    "provider": {"enum": ["exa", "brave", "zai", "native", "spider"]},
                    "region": {"enum": ["international", "china"]},
                    "apiKey": text
                },
                "additionalProperties": false
            },
            "host": {
                "description": "The host configuration (execution-web.md section 1.1); every member optional.",
                "type": "object",
                "properties": {
                    "search": {"$ref": "#/$defs/settings"},
                    "fetch": {"$ref": "#/$defs/settings"},
                    "env": {"type": "object", "additionalProperties": text},
                    "now": {"description": "Milliseconds since 1970-01-01T00:00:00Z.", "type": "integer"},
                    "endpoints": {"type": "object", "additionalProperties": text},
                    "permission": {
                        "oneOf": [
                            {"const": "allow"},
                            {"type": "object", "properties": {"deny": text}, "required": ["deny"], "additionalProperties": false}
                        ]
                    },
                    "abortAfterMs": {"description": "When the caller aborts, in milliseconds after the call starts; 0: already aborted.", "type": "integer", "minimum": 0, "maximum": vvoc_reference::exec::web::MAX_ABORT_AFTER_MS}
                },
                "additionalProperties": false
            },
            "route": {
                "type": "object",
                "properties": {
                    "method": {"type": "string", "pattern": "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$"},
                    "path": {"description": "The request target, with its query.", "type": "string", "pattern": "^/"},
                    "status": {"type": "integer", "minimum": 100, "maximum": 999},
                    "headers": {
                        "description": "[name, value] pairs, sent in order.",
                        "type": "array",
                        "items": {"type": "array", "prefixItems": [text, text], "minItems": 2, "maxItems": 2}
                    },
                    "body": {
                        "oneOf": [
                            {"description": "Sent as UTF-8.", "type": "string"},
                            {"type": "object", "properties": {"base64": text}, "required": ["base64"], "additionalProperties": false},
                            {
                                "description": "TEXT repeated N times.",
                                "type": "object",
                                "properties": {"repeat": text, "count": {"type": "integer", "minimum": 0}},
                                "required": ["repeat", "count"],
                                "additionalProperties": false
                            }
                        ]
                    },
                    "delay_ms": {"type": "integer", "minimum": 0, "maximum": 120000}
                },
                "required": ["path"],
                "additionalProperties": false
            },
            "request": {
                "type": "object",
                "properties": {
                    "method": text,
                    "path": text,
                    "headers": {"description": "Lower-case names; only these are compared.", "type": "object", "additionalProperties": text},
                    "body": {"description": "The request body parsed as JSON."}
                },
                "required": ["method", "path"],
                "additionalProperties": false
            }
        }
    })
}
