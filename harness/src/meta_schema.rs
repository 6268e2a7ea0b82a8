//! The JSON Schemas of the project's own files: vector files and mutation-row files.
//!
//! They are built from the catalog (tool ids, issue codes), shipped in `harness/schemas/` by
//! `cargo xtask docs`, and used by `conform lint`.

use serde_json::{Value, json};
use vvoc_reference::{Code, Tool};

/// The schema of a vector file (interfaces.md §3).
pub fn vector_file() -> Value {
    let tools: Vec<&str> = Tool::ALL.iter().map(|t| t.id()).collect();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "vvoc vector file",
        "description": "Accept and reject vectors of one tool (interfaces.md section 3).",
        "type": "object",
        "properties": {
            "tool": {"description": "The tool the vectors are inputs of.", "enum": tools},
            "vectors": {"type": "array", "items": {"$ref": "#/$defs/vector"}}
        },
        "required": ["tool", "vectors"],
        "additionalProperties": false,
        "$defs": {
            "vector": {
                "type": "object",
                "properties": {
                    "id": {"description": "Unique within the tool.", "type": "string", "pattern": "^[a-z0-9][a-z0-9-]*$"},
                    "doc": {"description": "A checked example of the reference document.", "type": "boolean"},
                    "note": {"description": "Why the vector exists.", "type": "string"},
                    "input": {"description": "Any JSON value."},
                    "accept": {"description": "The expected normalized output.", "type": "object"},
                    "reject": {
                        "description": "The expected issues, complete and in order.",
                        "type": "array",
                        "minItems": 1,
                        "maxItems": 8,
                        "items": {"$ref": "#/$defs/issue"}
                    }
                },
                "required": ["id", "input"],
                "oneOf": [{"required": ["accept"]}, {"required": ["reject"]}],
                "additionalProperties": false
            },
            "issue": issue()
        }
    })
}

/// A clean relative key of `files`, `after` or `write`: not absolute, no empty, `.` or `..`
/// segment, no NUL, no `{root}`.
pub(crate) const KEY_PATTERN: &str = r"^(?!/)(?!.*//)(?!(.*/)?\.\.?(/|$))(?!.*\{root\})[^\u0000]+$";

/// The schema of a scenario file (interfaces.md §9.1).
pub fn scenario_file() -> Value {
    let tools: Vec<&str> = Tool::ALL
        .iter()
        .filter(|t| vvoc_reference::exec::executes(**t))
        .map(|t| t.id())
        .collect();
    let content = json!({
        "oneOf": [
            {"description": "UTF-8 text.", "type": "string"},
            {
                "description": "Bytes that are not UTF-8, in padded base64.",
                "type": "object",
                "properties": {"base64": {"type": "string", "pattern": "^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"}},
                "required": ["base64"],
                "additionalProperties": false
            }
        ]
    });
    let text = json!({"type": "string"});
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "vvoc scenario file",
        "description": "Scenarios of one editor: what valid calls do in a scratch directory (interfaces.md section 9.1).",
        "type": "object",
        "properties": {
            "tool": {"description": "The editor the scenarios call.", "enum": tools},
            "scenarios": {"type": "array", "items": {"$ref": "#/$defs/scenario"}}
        },
        "required": ["tool", "scenarios"],
        "additionalProperties": false,
        "if": {"properties": {"tool": {"const": "str_replace_editor"}}},
        "then": {"properties": {"scenarios": {"items": {"properties": {"steps": {"items": {"not": {"required": ["anchors"]}}}}}}}},
        "$defs": {
            "scenario": {
                "type": "object",
                "properties": {
                    "id": {"description": "Unique within the tool, across vectors and scenarios.", "type": "string", "pattern": "^[a-z0-9][a-z0-9-]*$"},
                    "note": {"description": "Why the scenario exists.", "type": "string"},
                    "files": {"description": "The directory before the first step.", "$ref": "#/$defs/tree"},
                    "steps": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/step"}},
                    "after": {"description": "The complete directory after the last step; omitted: unchanged.", "$ref": "#/$defs/tree"}
                },
                "required": ["id", "files", "steps"],
                "additionalProperties": false
            },
            "key": {
                "description": "A relative path, /-separated; a trailing / names an empty directory.",
                "type": "string",
                "pattern": KEY_PATTERN
            },
            "content": content,
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
                        "description": "A call that returns a text.",
                        "type": "object",
                        "properties": {"call": {"description": "The input; {root} stands for the scenario's directory."}, "output": text},
                        "required": ["call", "output"],
                        "additionalProperties": false
                    },
                    {
                        "description": "A call that raises.",
                        "type": "object",
                        "properties": {"call": {}, "throws": text},
                        "required": ["call", "throws"],
                        "additionalProperties": false
                    },
                    {
                        "description": "The anchored view of a file (hashline_edit only).",
                        "type": "object",
                        "properties": {"anchors": {"type": "string", "pattern": "^\\{root\\}(/|$)"}, "output": text},
                        "required": ["anchors", "output"],
                        "additionalProperties": false
                    },
                    {
                        "description": "Another program writes files (null deletes; \"dir/\": null creates an empty directory).",
                        "type": "object",
                        "properties": {
                            "write": {
                                "type": "object",
                                "propertyNames": {"$ref": "#/$defs/key"},
                                "patternProperties": {
                                    "/$": {"type": "null"},
                                    "[^/]$": {"oneOf": [{"$ref": "#/$defs/content"}, {"type": "null"}]}
                                }
                            }
                        },
                        "required": ["write"],
                        "additionalProperties": false
                    }
                ]
            }
        }
    })
}

/// The schema of an issue (interfaces.md §2), in vector files and in protocol answers.
pub fn issue() -> Value {
    let codes: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
    json!({
        "type": "object",
        "properties": {
            "code": {"enum": codes},
            "path": {"type": "string"},
            "message": {"type": "string"},
            "expected": {"type": "string"},
            "received": {"type": "string"}
        },
        "required": ["code", "path", "message"],
        "additionalProperties": false
    })
}

/// The schema of a mutation-row file (interfaces.md §7): rows, named mutants, or both.
pub fn mutation_rows() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "vvoc mutation rows",
        "description": "Scripted mutation rows and the named mutants they share (interfaces.md section 7).",
        "type": "object",
        "properties": {
            "mutants": {
                "description": "Named mutants, each declared once across all row files; rows name them.",
                "type": "object",
                "propertyNames": {"$ref": "#/$defs/name"},
                "additionalProperties": {"$ref": "#/$defs/mutant"}
            },
            "rows": {"type": "array", "items": {"$ref": "#/$defs/row"}}
        },
        "anyOf": [{"required": ["rows"]}, {"required": ["mutants"]}],
        "additionalProperties": false,
        "$defs": {
            "name": {
                "description": "A mutant's name, unique across all row files: <file>:<what it breaks>, such as structural:object-type-check-removed.",
                "type": "string",
                "pattern": "^[A-Za-z0-9_./-]+(:[A-Za-z0-9_.-]+)*$"
            },
            "file": {
                "description": "Workspace-relative path of the file to mutate (no absolute path, no `..`).",
                "type": "string",
                "pattern": "^(?!/)(?!.*(^|/)\\.\\.(/|$))[^\\\\]+$"
            },
            "find": {"description": "Text that must occur exactly once in the file.", "type": "string", "minLength": 1},
            "replace": {"description": "The text that replaces it (empty deletes it).", "type": "string"},
            "mutant": {
                "description": "One change: a file, the text found once in it, and its replacement.",
                "type": "object",
                "properties": {
                    "file": {"$ref": "#/$defs/file"},
                    "find": {"$ref": "#/$defs/find"},
                    "replace": {"$ref": "#/$defs/replace"}
                },
                "required": ["file", "find", "replace"],
                "additionalProperties": false
            },
            "row": {
                "description": "A row names a declared mutant, or spells out its change with file, find and replace.",
                "type": "object",
                "properties": {
                    "id": {"description": "Unique across all row files.", "type": "string", "minLength": 1},
                    "mutant": {"description": "The name of a mutant declared in some row file.", "$ref": "#/$defs/name"},
                    "file": {"$ref": "#/$defs/file"},
                    "find": {"$ref": "#/$defs/find"},
                    "replace": {"$ref": "#/$defs/replace"},
                    "caught_by": {
                        "description": "Vector names (<tool>:<id>) that must fail under this mutant.",
                        "type": "array",
                        "items": {"type": "string", "pattern": "^[a-z_]+:[a-z0-9][a-z0-9-]*$"}
                    },
                    "retired": {"description": "Why the row is no longer run.", "type": "string", "minLength": 1}
                },
                "required": ["id"],
                "if": {"required": ["mutant"]},
                "then": {"properties": {"file": false, "find": false, "replace": false}},
                "else": {"required": ["file", "find", "replace"]},
                "additionalProperties": false
            }
        }
    })
}
