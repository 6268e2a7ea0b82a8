//! The branch rules of `str_replace_editor` (§4.7).

use super::declare::Rules;
use super::input::Input;
use crate::collector::Collector;
use crate::issue::Code;
use crate::json::Json;
use crate::path::Path;
use crate::text::is_blank;

rules! {
    /// The rules of `str_replace_editor`, in inventory order (the matrix's follow).
    fn names {
        PATH_NOT_BLANK = "path-not-blank";
        CREATE_REQUIRES_FILE_TEXT = "create-requires-file-text";
        STR_REPLACE_REQUIRES_OLD_STR = "str-replace-requires-old-str";
        STR_REPLACE_OLD_STR_NOT_EMPTY = "str-replace-old-str-not-empty";
        INSERT_REQUIRES_NEW_STR = "insert-requires-new-str";
        INSERT_REQUIRES_INSERT_LINE = "insert-requires-insert-line";
        VIEW_RANGE_START = "view-range-start";
        VIEW_RANGE_ORDER = "view-range-order";
    }
}

/// The branch rules of `str_replace_editor`, after its field matrix.
pub(super) const RULES: Rules = Rules { run, names };

selector! {
    /// The editor commands.
    Command {
        View = "view",
        Create = "create",
        StrReplace = "str_replace",
        Insert = "insert",
    }
}

fn run(input: Input<'_>, out: &mut Collector) {
    if input.string("path").is_some_and(|p| is_blank(p.units())) {
        out.branch(
            PATH_NOT_BLANK,
            Code::MissingValue,
            &Path::ROOT.field("path"),
            "path must be a non-empty path",
            "a non-empty file or directory path (spaces inside the name are preserved)",
        );
    }
    let Some(command) = input.string("command").and_then(Command::parse) else {
        return;
    };
    match command {
        Command::Create => {
            if !input.has("file_text") {
                out.branch(
                    CREATE_REQUIRES_FILE_TEXT,
                    Code::MissingValue,
                    &Path::ROOT.field("file_text"),
                    "create requires file_text (an explicitly empty string is allowed)",
                    "a string, including \"\"",
                );
            }
        }
        Command::StrReplace => match input.string("old_str") {
            None => out.branch(
                STR_REPLACE_REQUIRES_OLD_STR,
                Code::MissingValue,
                &Path::ROOT.field("old_str"),
                "str_replace requires old_str",
                "the exact non-empty text to replace",
            ),
            Some(old) if old.is_empty() => out.branch(
                STR_REPLACE_OLD_STR_NOT_EMPTY,
                Code::InvalidValue,
                &Path::ROOT.field("old_str"),
                "old_str must be a non-empty exact string",
                "a non-empty literal string",
            ),
            Some(_) => {}
        },
        Command::Insert => {
            if !input.has("new_str") {
                out.branch(
                    INSERT_REQUIRES_NEW_STR,
                    Code::MissingValue,
                    &Path::ROOT.field("new_str"),
                    "insert requires new_str (an explicitly empty string is allowed)",
                    "a string, including \"\"",
                );
            }
            if !input.has("insert_line") {
                out.branch(
                    INSERT_REQUIRES_INSERT_LINE,
                    Code::MissingValue,
                    &Path::ROOT.field("insert_line"),
                    "insert requires an integer insert_line >= 0",
                    "an integer >= 0",
                );
            }
        }
        Command::View => {}
    }
    view_range(input, out);
}

/// Rule 6: a `view_range` is checked whatever the command.
fn view_range(input: Input<'_>, out: &mut Collector) {
    let Some([Json::Number(start), Json::Number(end)]) = input.list("view_range") else {
        return;
    };
    // Both are safe integers after the structural phase, so they convert exactly.
    let (s, e) = (*start as i64, *end as i64);
    let path = Path::ROOT.field("view_range");
    if s < 1 {
        out.branch(
            VIEW_RANGE_START,
            Code::TooSmall,
            &path,
            format!("view_range start {s} must be >= 1"),
            "start >= 1",
        );
    }
    if e != -1 && e < s {
        out.branch(
            VIEW_RANGE_ORDER,
            Code::InvalidValue,
            &path,
            format!("view_range end {e} must be -1 or >= start {s}"),
            "end = -1 or end >= start",
        );
    }
}
