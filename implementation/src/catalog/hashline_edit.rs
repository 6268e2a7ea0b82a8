//! The catalog entry of `hashline_edit`.

use super::shapes::*;
use super::*;

/// The catalog entry of `hashline_edit`, under `id`, which the tool table of `catalog/mod.rs` gives.
pub fn spec(id: &'static str) -> ToolSpec {
    ToolSpec {
        id,
        summary: "Apply exact hash-anchored line edits, range replacements, boundary inserts, delete, or rename.",
        // The full model-facing description of 1.6.0 (upstream's HASHLINE_EDIT_DESCRIPTION); the
        // reference document shows its first line and counts all of its bytes.
        description: include_str!("descriptions/hashline_edit.txt"),
        fields: vec![
            field("filePath", REQ).of(RAW).describe("Absolute path to the file to edit (non-empty; spaces inside the name are preserved)"),
            field("delete", OPT).of(Node::Boolean).describe("Delete the file instead of editing it"),
            field("rename", OPT).of(RAW).describe("Rename the file after edits are applied (non-empty when provided)"),
            field("edits", REQ).of(Node::array(
                    Node::Object(vec![
                        field("op", REQ).of(Node::Enum(&["replace", "replace_range", "append", "prepend"])).describe("Operation: replace one line, replace a pos..end range, append, or prepend."),
                        field("pos", OPT).of(RAW).describe("Primary anchor in LINE#HASH#ANCHOR three-part format. Required for replace/replace_range; optional for append/prepend (no anchor inserts at the file boundary)."),
                        field("end", OPT).of(RAW).describe("Optional inclusive range end anchor. With end, replace covers pos..end; required for replace_range. For append/prepend it is only a fallback when pos is omitted."),
                        field("lines", REQ).of(Node::Union(vec![Node::array(RAW, Count::Any), RAW, Node::Null])).describe("Replacement or inserted lines as plain text content. null or [] deletes for replace/replace_range; [\"\"] is rejected as ambiguous."),
                    ]),
                    Count::Any,
                )).describe("Hash-anchored edit operations to apply to the file"),
        ],
        matrix: None,
        vocabularies: &["edits[].op"],
        prerequisites: &[
            "absolute existing file path and current-file anchor validation",
            "model visibility for the routed edit tool",
        ],
        conditional_requirements: &[
            "replace requires pos; replace_range requires pos and end",
            "append/prepend accept one anchor or none; null/[] deletes for replace/replace_range",
            "delete requires an empty edits list and forbids rename",
        ],
        path_kinds: vec![
            PathKindDecl::new(
                "filePath",
                PathKind::AbsoluteFile,
                "absolute path; spaces inside the name are preserved",
            ),
            PathKindDecl::new("rename", PathKind::AbsoluteFile, "non-empty absolute destination path when provided"),
        ],
        result_families: &[
            ("text-success", "model-visible success text returned to the host"),
            ("text-error", "model-visible Error text for a rejected edit"),
            ("success-metadata", "separately published bounded success metadata with filediff"),
        ],
        representative_failures: &[
            ("edits[0].typo", "unknown nested key names the edit index"),
            ("edits[0].end", "conflicting insert anchors name the offending field"),
        ],
    }
}
