//! The branch rules of `str_replace_editor` (§4.7).

use super::{Input, matrix};
use crate::catalog::Tool;
use crate::collector::Collector;
use crate::issue::Code;
use crate::js_string::JsString;
use crate::json::Json;
use crate::path::Path;
use crate::text::is_blank;

/// The editor commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Command {
    View,
    Create,
    StrReplace,
    Insert,
}

impl Command {
    pub(crate) const ALL: [Command; 4] = [Command::View, Command::Create, Command::StrReplace, Command::Insert];

    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Command::View => "view",
            Command::Create => "create",
            Command::StrReplace => "str_replace",
            Command::Insert => "insert",
        }
    }

    fn parse(value: &JsString) -> Option<Command> {
        Command::ALL.into_iter().find(|c| value.eq_str(c.as_str()))
    }
}

pub(crate) fn run(input: &Input<'_>, out: &mut Collector) {
    let input = *input;
    matrix(Tool::StrReplaceEditor, input, out);
    if input.string("path").is_some_and(|p| is_blank(p.units())) {
        out.branch(
            "path-not-blank",
            Code::MissingValue,
            &Path::ROOT.field("path"),
            "path must be a non-empty path",
            "a non-empty file or directory path (spaces inside the name are preserved)",
        );
    }
    let Some(command) = input.string("command").and_then(Command::parse) else { return };
    match command {
        Command::Create => {
            if !input.has("file_text") {
                out.branch(
                    "create-requires-file-text",
                    Code::MissingValue,
                    &Path::ROOT.field("file_text"),
                    "create requires file_text (an explicitly empty string is allowed)",
                    "a string, including \"\"",
                );
            }
        }
        Command::StrReplace => match input.string("old_str") {
            None => out.branch(
                "str-replace-requires-old-str",
                Code::MissingValue,
                &Path::ROOT.field("old_str"),
                "str_replace requires old_str",
                "the exact non-empty text to replace",
            ),
            Some(old) if old.is_empty() => out.branch(
                "str-replace-old-str-not-empty",
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
                    "insert-requires-new-str",
                    Code::MissingValue,
                    &Path::ROOT.field("new_str"),
                    "insert requires new_str (an explicitly empty string is allowed)",
                    "a string, including \"\"",
                );
            }
            if !input.has("insert_line") {
                out.branch(
                    "insert-requires-insert-line",
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
    let Some([Json::Number(start), Json::Number(end)]) = input.list("view_range") else { return };
    // Both are safe integers after the structural phase, so they convert exactly.
    let (s, e) = (*start as i64, *end as i64);
    let path = Path::ROOT.field("view_range");
    if s < 1 {
        out.branch(
            "view-range-start",
            Code::TooSmall,
            &path,
            format!("view_range start {s} must be >= 1"),
            "start >= 1",
        );
    }
    if e != -1 && e < s {
        out.branch(
            "view-range-order",
            Code::InvalidValue,
            &path,
            format!("view_range end {e} must be -1 or >= start {s}"),
            "end = -1 or end >= start",
        );
    }
}
