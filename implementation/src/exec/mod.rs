//! Execution of the two editors: what `hashline_edit` and `str_replace_editor` do with a valid input.
//!
//! A call is validated first (the validators of this crate, unchanged); a refused input is returned
//! as `Error: ` and its one-line form. Everything else follows `execution.md`: the texts a call
//! returns, the error it raises, and the files it leaves behind.

mod editor;
pub(crate) mod fs;
mod hashline;
mod listing;
mod rules;
mod text;
pub mod web;
pub mod workflow;

use std::collections::BTreeMap;
use std::fmt;
use std::time::SystemTime;

use crate::catalog::Tool;
use crate::issue::{Verdict, one_line};
use crate::js_string::JsString;
use crate::json::Json;

pub use hashline::anchors::{AnchorsError, anchor_hash, anchors, anchors_of_text, line_hash};
pub use rules::{ExecRule, exec_rules};

/// What one call of an editor did: a returned text, or a raised error's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The text the host shows the model: a success text, or an `Error: ...` text.
    Output(JsString),
    /// The tool raised; the text is the error's message (`execution.md` §2.8).
    Throws(JsString),
}

impl Outcome {
    /// The text, whichever kind it is.
    pub fn text(&self) -> &JsString {
        match self {
            Outcome::Output(text) | Outcome::Throws(text) => text,
        }
    }
}

/// What a tool remembers between calls of one editing session (`execution.md` §2.1).
///
/// `str_replace_editor` keeps a snapshot of each path it viewed, created or edited, keyed by the
/// path exactly as typed; `hashline_edit` keeps nothing.
#[derive(Clone, Debug, Default)]
pub struct Session {
    snapshots: BTreeMap<JsString, Snapshot>,
}

impl Session {
    /// A session that has seen nothing yet.
    pub fn new() -> Self {
        Session::default()
    }
}

/// A tool that the reference validates but does not execute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotExecuted(pub Tool);

impl fmt::Display for NotExecuted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the reference does not execute {}: only hashline_edit and str_replace_editor run (the other tools need a host)",
            self.0.id()
        )
    }
}

impl std::error::Error for NotExecuted {}

/// Whether the reference executes `tool`.
pub fn executes(tool: Tool) -> bool {
    matches!(tool, Tool::HashlineEdit | Tool::StrReplaceEditor)
}

/// Runs one call of `tool` with `input` on the real file system, as a call of `session`.
///
/// The input is validated first; a refused input returns `Error: INVALID_INPUT: ...` and changes
/// nothing. Relative paths resolve against the process's working directory.
pub fn execute(tool: Tool, input: &Json, session: &mut Session) -> Result<Outcome, NotExecuted> {
    let accepted = match crate::validate_json(tool, input) {
        Verdict::Accept(output) => match output.into_object() {
            Some(object) => object,
            None => {
                return Ok(Outcome::Output(JsString::from(
                    "Error: the validator accepted a non-object",
                )));
            }
        },
        Verdict::Reject(issues) => {
            let mut text = JsString::from("Error: ");
            text.push_units(one_line(&issues).units());
            return Ok(Outcome::Output(text));
        }
    };
    Ok(match tool {
        Tool::HashlineEdit => Outcome::Output(hashline::run(&accepted)),
        Tool::StrReplaceEditor => editor::run(&accepted, session),
        Tool::WorkItemOpen
        | Tool::WorkItemList
        | Tool::WorkItemClose
        | Tool::WorkItemDecide
        | Tool::WorkCheckpoint
        | Tool::WebSearch
        | Tool::WebFetch => return Err(NotExecuted(tool)),
    })
}

/// A file's modification time and size, as the editor's freshness check compares them (§2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Snapshot {
    modified: Option<SystemTime>,
    size: u64,
}

impl Snapshot {
    /// The snapshot of a status: the size counts only for a regular file.
    fn of(metadata: &std::fs::Metadata) -> Snapshot {
        Snapshot {
            modified: metadata.modified().ok(),
            size: if metadata.is_file() {
                metadata.len()
            } else {
                0
            },
        }
    }
}
