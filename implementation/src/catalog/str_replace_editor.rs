//! The catalog entry of `str_replace_editor`.

use super::shapes::*;
use super::*;

/// The catalog entry of `str_replace_editor`, under `id`, which the tool table of `catalog/mod.rs` gives.
pub fn spec(id: &'static str) -> ToolSpec {
    ToolSpec {
        id,
        summary: "View, create, exactly replace, or insert into a file with the dsh command surface.",
        // The full model-facing description of 1.6.0 (upstream's STR_REPLACE_EDITOR_DESCRIPTION,
        // which upstream takes verbatim from deepseek-ai/deepseek-harness, MIT); the reference
        // document shows its first line and counts all of its bytes.
        description: include_str!("descriptions/str_replace_editor.txt"),
        fields: vec![
            field("command", REQ).of(Node::Enum(&["view", "create", "str_replace", "insert"])).describe("The command to run: view, create, str_replace, or insert"),
            field("path", REQ).of(RAW).describe("Absolute path to file or directory"),
            field("file_text", OPT).of(RAW).describe("create only: content of the new file; an explicitly empty string is allowed"),
            field("old_str", OPT).of(RAW).describe("str_replace only: the exact, non-empty text to replace (whitespace is significant)"),
            field("new_str", OPT).of(RAW).describe("str_replace replacement text (omitted defaults to empty deletion; explicit empty is valid); required for insert"),
            field("insert_line", OPT).of(Node::Integer(Range { min: Some(Limit::Inclusive(0)), max: None })).describe("insert only: integer line index >= 0; new_str is inserted AFTER this line (the file-dependent upper bound is enforced by the editor)"),
            field("view_range", OPT).of(Node::array(Node::Integer(Range { min: None, max: None }), Count::Exactly(2))).describe("view only: exact [start, end] line range. The length is fixed at 2; start >= 1 and end is -1 (end of file) or >= start are runtime-checked."),
        ],
        matrix: Some(Matrix {
            selector: "command",
            rows: vec![
                MatrixRow { value: "view", consumes: &["command", "path", "view_range"] },
                MatrixRow { value: "create", consumes: &["command", "path", "file_text"] },
                MatrixRow { value: "str_replace", consumes: &["command", "path", "old_str", "new_str"] },
                MatrixRow { value: "insert", consumes: &["command", "path", "new_str", "insert_line"] },
            ],
        }),
        vocabularies: &["command"],
        prerequisites: &[
            "path existence and directory checks in the editor",
            "current-file freshness for str_replace and insert",
        ],
        conditional_requirements: &[
            "create requires file_text (explicit empty allowed)",
            "str_replace requires a non-empty old_str; omitted new_str deletes",
            "insert requires insert_line >= 0 and new_str; view_range length is exactly 2",
        ],
        path_kinds: vec![PathKindDecl::new(
            "path",
            PathKind::AbsoluteFile,
            "absolute file or directory path; non-empty",
        )],
        result_families: &[("ok", "successful ok/output envelope"), ("error", "error envelope")],
        representative_failures: &[
            ("path", "blank paths are rejected before any mutation"),
            ("view_range", "a non-two-element range is diagnosed"),
        ],
    }
}
