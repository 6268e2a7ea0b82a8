//! Scenarios (interfaces.md §9.1): what a valid call of an editor does, step by step, in a scratch
//! directory; and what can be wrong with one in a scenario file.

use std::fmt;
use std::path::PathBuf;

use vvoc_reference::{JsString, Json, Tool};

use crate::scenario::tree::{Entry, Tree};

/// One scenario: a directory, steps run in one editing session, and the directory afterwards.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The tool its calls go to.
    pub tool: Tool,
    /// The id, unique within the tool across vectors and scenarios.
    pub id: String,
    /// Why the scenario exists.
    pub note: Option<String>,
    /// The directory before the first step.
    pub files: Tree,
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// The directory after the last step (`None`: unchanged, the same as `files`).
    pub after: Option<Tree>,
    /// The file it came from: the vectors folder as given, joined with the file's relative path.
    pub file: PathBuf,
    /// The file's path relative to its vectors folder, with `/` separators.
    pub source: String,
    /// Its 0-based position in the file.
    pub index: usize,
}

impl Scenario {
    /// The full name, `<tool>:<id>`.
    pub fn name(&self) -> String {
        format!("{}:{}", self.tool, self.id)
    }

    /// The directory expected after the last step.
    pub fn expected_after(&self) -> &Tree {
        self.after.as_ref().unwrap_or(&self.files)
    }
}

/// One step of a scenario.
#[derive(Clone, Debug)]
pub enum Step {
    /// A call of the scenario's tool and what it must give.
    Call {
        /// The input, `{root}` unsubstituted.
        input: Json,
        /// The expected reply.
        expect: Reply,
    },
    /// The anchored view of a file (`hashline_edit` only); always an output.
    Anchors {
        /// The path, `{root}` unsubstituted.
        path: JsString,
        /// The expected view.
        expect: JsString,
    },
    /// Another program changes files: each key written (or, for `None`, deleted), in order.
    Write(Vec<(String, Option<Entry>)>),
}

impl Step {
    /// `call`, `anchors` or `write`.
    pub fn kind(&self) -> &'static str {
        match self {
            Step::Call { .. } => "call",
            Step::Anchors { .. } => "anchors",
            Step::Write(_) => "write",
        }
    }
}

/// What a step gives: a returned text, or a raised error's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// A returned text (a success text or an `Error: ...` text).
    Output(JsString),
    /// The tool raised; the error's message.
    Throws(JsString),
}

impl Reply {
    /// `output` or `throws`.
    pub fn kind(&self) -> &'static str {
        match self {
            Reply::Output(_) => "output",
            Reply::Throws(_) => "throws",
        }
    }

    /// The text.
    pub fn text(&self) -> &JsString {
        match self {
            Reply::Output(text) | Reply::Throws(text) => text,
        }
    }

    /// Whether this is an output starting with `Error: `.
    pub(crate) fn is_error_text(&self) -> bool {
        match self {
            Reply::Output(text) => text
                .units()
                .starts_with(&"Error: ".encode_utf16().collect::<Vec<_>>()),
            Reply::Throws(_) => false,
        }
    }
}

/// What is wrong with one scenario.
#[derive(Debug)]
pub enum ScenarioProblem {
    /// Not an object.
    NotObject,
    /// A member other than `id`, `note`, `files`, `steps`, `after`.
    UnknownMember(String),
    /// `id` is absent or not a string.
    MissingId,
    /// `id` does not match `[a-z0-9][a-z0-9-]*`.
    BadId,
    /// `id` is already used by a vector or scenario of the tool.
    DuplicateId {
        first_kind: &'static str,
        first_file: PathBuf,
        first_index: usize,
    },
    /// `note` is not a string.
    NoteNotString,
    /// `files` or `after` is absent (files only) or not an object.
    TreeNotObject(&'static str),
    /// A key of `files`, `after` or a `write` step is not a clean relative path.
    BadKey {
        at: String,
        key: String,
        reason: String,
    },
    /// A value of `files`, `after` or a `write` step is wrong.
    BadContent {
        at: String,
        key: String,
        reason: String,
    },
    /// Two keys of one tree contradict each other (a file with something inside it, an "empty"
    /// directory that holds a file).
    Conflict { at: String, reason: String },
    /// `steps` is absent, not an array, or empty.
    NoSteps,
    /// One step is wrong.
    BadStep { step: usize, reason: String },
}

impl fmt::Display for ScenarioProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScenarioProblem::NotObject => f.write_str("a scenario must be an object"),
            ScenarioProblem::UnknownMember(name) => write!(
                f,
                "unknown member {name:?}; a scenario has only id, note, files, steps and after"
            ),
            ScenarioProblem::MissingId => f.write_str(r#""id" must be a string"#),
            ScenarioProblem::BadId => f.write_str(
                r#""id" must match [a-z0-9][a-z0-9-]* (lowercase letters, digits and dashes)"#,
            ),
            ScenarioProblem::DuplicateId {
                first_kind,
                first_file,
                first_index,
            } => write!(
                f,
                "the id is already used by {first_kind} {first_index} of {}; ids are unique within a tool, across vectors and scenarios",
                first_file.display()
            ),
            ScenarioProblem::NoteNotString => f.write_str(r#""note" must be a string"#),
            ScenarioProblem::TreeNotObject(member) => write!(
                f,
                "{member:?} must be an object of relative paths to contents (a string, {{\"base64\": ...}}, or null for an empty directory \"dir/\")"
            ),
            ScenarioProblem::BadKey { at, key, reason } => {
                write!(f, "{at}: the key {key:?} {reason}")
            }
            ScenarioProblem::BadContent { at, key, reason } => write!(f, "{at}[{key:?}]: {reason}"),
            ScenarioProblem::Conflict { at, reason } => write!(f, "{at}: {reason}"),
            ScenarioProblem::NoSteps => {
                f.write_str(r#""steps" must be a non-empty array of steps"#)
            }
            ScenarioProblem::BadStep { step, reason } => write!(f, "steps[{step}]: {reason}"),
        }
    }
}
