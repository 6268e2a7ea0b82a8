//! The branch rules of `hashline_edit` (§4.6).

use super::declare::Rules;
use super::input::Input;
use crate::collector::Collector;
use crate::issue::Code;
use crate::path::Path;
use crate::rule::BranchRule;
use crate::text::{is_blank, trim};

rules! {
    /// The rules of `hashline_edit`, in inventory order.
    fn names {
        FILE_PATH_NOT_BLANK = "file-path-not-blank";
        RENAME_NOT_BLANK = "rename-not-blank";
        DELETE_FORBIDS_RENAME = "delete-forbids-rename";
        DELETE_REQUIRES_NO_EDITS = "delete-requires-no-edits";
        EDITS_NOT_EMPTY = "edits-not-empty";
        REPLACE_REQUIRES_POS = "replace-requires-pos";
        INSERT_ANCHORS_AGREE = "insert-anchors-agree";
        POS_NOT_BLANK = "pos-not-blank";
        END_NOT_BLANK = "end-not-blank";
        REPLACE_RANGE_REQUIRES_POS = "replace-range-requires-pos";
        REPLACE_RANGE_REQUIRES_END = "replace-range-requires-end";
    }
}

/// The branch rules of `hashline_edit`.
pub(super) const RULES: Rules = Rules { run, names };

selector! {
    /// The edit operations.
    Op {
        Replace = "replace",
        ReplaceRange = "replace_range",
        Append = "append",
        Prepend = "prepend",
    }
}

fn run(input: Input<'_>, out: &mut Collector) {
    let blank = |field: &str| input.string(field).is_some_and(|s| is_blank(s.units()));
    if blank("filePath") {
        out.branch(
            FILE_PATH_NOT_BLANK,
            Code::MissingValue,
            &Path::ROOT.field("filePath"),
            "filePath must be a non-empty path",
            "a non-empty file path (spaces inside the name are preserved)",
        );
    }
    if blank("rename") {
        out.branch(
            RENAME_NOT_BLANK,
            Code::MissingValue,
            &Path::ROOT.field("rename"),
            "rename must be a non-empty path when provided",
            "a non-empty destination path, or omit rename",
        );
    }
    let delete = input.is_true("delete");
    if delete && input.has("rename") {
        out.branch(
            DELETE_FORBIDS_RENAME,
            Code::InvalidValue,
            &Path::ROOT.field("rename"),
            "delete and rename cannot be used together",
            "either delete:true or rename, not both",
        );
    }
    let no_edits = input.absent_or_empty("edits");
    if delete && !no_edits {
        out.branch(
            DELETE_REQUIRES_NO_EDITS,
            Code::InvalidValue,
            &Path::ROOT.field("edits"),
            "delete mode requires edits to be an empty array",
            "[]",
        );
    }
    if !delete && no_edits {
        out.branch(
            EDITS_NOT_EMPTY,
            Code::MissingValue,
            &Path::ROOT.field("edits"),
            "edits parameter must be a non-empty array",
            "at least one edit operation",
        );
    }
    let edits = Path::ROOT.field("edits");
    for (i, edit) in input.objects("edits") {
        check_edit(edit, &edits.index(i), out);
    }
}

fn check_edit(edit: Input<'_>, base: &Path<'_>, out: &mut Collector) {
    // An anchor that is present but blank is reported, then counts as absent.
    let mut anchor = |field: &'static str, rule: BranchRule| -> Option<&[u16]> {
        let value = edit.string(field)?;
        if is_blank(value.units()) {
            out.branch(
                rule,
                Code::InvalidValue,
                &base.field(field),
                format!("{field} was provided but is blank"),
                format!("a full three-part anchor, or omit {field}"),
            );
            return None;
        }
        Some(trim(value.units()))
    };
    let pos = anchor("pos", POS_NOT_BLANK);
    let end = anchor("end", END_NOT_BLANK);
    let Some(op) = edit.string("op").and_then(Op::parse) else {
        return;
    };
    match op {
        Op::Replace => {
            if pos.is_none() {
                out.branch(
                    REPLACE_REQUIRES_POS,
                    Code::MissingValue,
                    &base.field("pos"),
                    "replace requires a pos anchor",
                    "a three-part LINE#HASH#ANCHOR reference",
                );
            }
        }
        Op::ReplaceRange => {
            for (field, anchor, rule) in [
                ("pos", pos, REPLACE_RANGE_REQUIRES_POS),
                ("end", end, REPLACE_RANGE_REQUIRES_END),
            ] {
                if anchor.is_none() {
                    out.branch(
                        rule,
                        Code::MissingValue,
                        &base.field(field),
                        "replace_range requires both pos and end anchors",
                        format!("a three-part {field} anchor"),
                    );
                }
            }
        }
        Op::Append | Op::Prepend => {
            if let (Some(pos), Some(end)) = (pos, end)
                && pos != end
            {
                out.branch(
                    INSERT_ANCHORS_AGREE,
                    Code::InvalidValue,
                    &base.field("end"),
                    "pos and end anchors reference different lines for an insert operation",
                    "one anchor, or identical pos and end",
                );
            }
        }
    }
}
