//! Vector files: loading `vectors/**/*.json` in sorted path order, refusing any malformed file
//! with its path, the vector's index and id, and what is wrong (interfaces.md §3).

use std::fmt;
use std::path::{Path, PathBuf};

use vvoc_reference::json::ParseError;
use vvoc_reference::{Issue, Json, Tool, Verdict};

use crate::scenarios::ScenarioProblem;

/// One vector: an input of a tool and its expected verdict.
#[derive(Clone, Debug)]
pub struct Vector {
    /// The tool.
    pub tool: Tool,
    /// The id, unique within the tool.
    pub id: String,
    /// Whether the vector is a checked example of the reference document.
    pub doc: bool,
    /// Why the vector exists.
    pub note: Option<String>,
    /// The input.
    pub input: Json,
    /// The expected verdict.
    pub expected: Verdict,
    /// The file it came from: the vectors folder as given, joined with the file's relative path.
    pub file: PathBuf,
    /// The file's path relative to its vectors folder, with `/` separators (`web_search/count.json`).
    pub source: String,
    /// Its 0-based position in the file.
    pub index: usize,
}

impl Vector {
    /// The full name, `<tool>:<id>`.
    pub fn name(&self) -> String {
        format!("{}:{}", self.tool, self.id)
    }

    /// `accept` or `reject`.
    pub fn kind(&self) -> &'static str {
        if self.expected.is_accept() {
            "accept"
        } else {
            "reject"
        }
    }
}

/// Why a vector file, or a vectors folder, cannot be used.
#[derive(Debug)]
pub enum LoadError {
    /// The folder does not exist or cannot be read.
    Folder { dir: PathBuf, reason: String },
    /// The folder holds no `*.json` file.
    EmptyFolder { dir: PathBuf },
    /// The file cannot be read.
    Read { file: PathBuf, reason: String },
    /// The file is not JSON.
    Json { file: PathBuf, error: ParseError },
    /// The file's top level is wrong.
    File { file: PathBuf, problem: FileProblem },
    /// One vector is wrong.
    Vector {
        file: PathBuf,
        index: usize,
        id: Option<String>,
        problem: VectorProblem,
    },
    /// One scenario is wrong.
    Scenario {
        file: PathBuf,
        index: usize,
        id: Option<String>,
        problem: Box<ScenarioProblem>,
    },
}

/// What is wrong with a file's top level.
#[derive(Debug)]
pub enum FileProblem {
    /// Not an object.
    NotObject,
    /// A member other than `tool` and `vectors`.
    UnknownMember(String),
    /// `tool` is absent or not a string.
    MissingTool,
    /// `tool` names no tool.
    UnknownTool(String),
    /// `vectors` is absent or not an array.
    MissingVectors,
    /// Both `vectors` and `scenarios`.
    BothKinds,
    /// A member other than `tool` and `scenarios` in a scenario file.
    UnknownScenarioFileMember(String),
    /// `scenarios` is not an array.
    MissingScenarios,
    /// Scenarios of a tool the reference does not execute.
    NotExecuted(Tool),
}

/// What is wrong with one vector.
#[derive(Debug)]
pub enum VectorProblem {
    /// Not an object.
    NotObject,
    /// A member other than `id`, `doc`, `note`, `input`, `accept`, `reject`.
    UnknownMember(String),
    /// `id` is absent or not a string.
    MissingId,
    /// `id` does not match `[a-z0-9][a-z0-9-]*`.
    BadId,
    /// `id` is already used by another vector of the tool.
    DuplicateId {
        first_kind: &'static str,
        first_file: PathBuf,
        first_index: usize,
    },
    /// `input` is absent.
    MissingInput,
    /// Both `accept` and `reject`.
    BothOutcomes,
    /// Neither `accept` nor `reject`.
    NoOutcome,
    /// `accept` is not an object.
    AcceptNotObject,
    /// `reject` is not an array of 1 to 8 issues.
    RejectCount,
    /// An issue of `reject` is malformed.
    BadIssue { position: usize, reason: String },
    /// `doc` is not a boolean, or `note` not a string.
    WrongType {
        member: &'static str,
        expected: &'static str,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Folder { dir, reason } => {
                write!(f, "{}: cannot read the folder: {reason}", dir.display())
            }
            LoadError::EmptyFolder { dir } => {
                write!(f, "{}: the folder holds no *.json file", dir.display())
            }
            LoadError::Read { file, reason } => {
                write!(f, "{}: cannot read the file: {reason}", file.display())
            }
            LoadError::Json { file, error } => {
                write!(
                    f,
                    "{}:{}:{}: not valid JSON: {}",
                    file.display(),
                    error.line,
                    error.column,
                    error.message
                )
            }
            LoadError::File { file, problem } => write!(f, "{}: {problem}", file.display()),
            LoadError::Vector {
                file,
                index,
                id,
                problem,
            } => {
                write!(f, "{}: vector {index}", file.display())?;
                if let Some(id) = id {
                    write!(f, " ({id:?})")?;
                }
                write!(f, ": {problem}")
            }
            LoadError::Scenario {
                file,
                index,
                id,
                problem,
            } => {
                write!(f, "{}: scenario {index}", file.display())?;
                if let Some(id) = id {
                    write!(f, " ({id:?})")?;
                }
                write!(f, ": {problem}")
            }
        }
    }
}

impl std::error::Error for LoadError {}

impl fmt::Display for FileProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileProblem::NotObject => {
                f.write_str(r#"a vector file must be an object {"tool": ..., "vectors": [...]}"#)
            }
            FileProblem::UnknownMember(name) => {
                write!(
                    f,
                    "unknown member {name:?} at the top level; a vector file has only \"tool\" and \"vectors\""
                )
            }
            FileProblem::MissingTool => {
                f.write_str(r#""tool" must be a string naming one of the nine tools"#)
            }
            FileProblem::UnknownTool(name) => {
                write!(f, "{}", vvoc_reference::UnknownTool(name.clone()))
            }
            FileProblem::MissingVectors => f.write_str(r#""vectors" must be an array of vectors"#),
            FileProblem::BothKinds => f.write_str(
                r#"a file holds "vectors" or "scenarios", never both; put the scenarios in a file of their own"#,
            ),
            FileProblem::UnknownScenarioFileMember(name) => write!(
                f,
                "unknown member {name:?} at the top level; a scenario file has only \"tool\" and \"scenarios\""
            ),
            FileProblem::MissingScenarios => {
                f.write_str(r#""scenarios" must be an array of scenarios"#)
            }
            FileProblem::NotExecuted(tool) => write!(
                f,
                "scenarios run only hashline_edit and str_replace_editor; {tool} is not executed (it needs a host)"
            ),
        }
    }
}

impl fmt::Display for VectorProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VectorProblem::NotObject => f.write_str("a vector must be an object"),
            VectorProblem::UnknownMember(name) => write!(
                f,
                "unknown member {name:?}; a vector has only id, doc, note, input, and one of accept and reject"
            ),
            VectorProblem::MissingId => f.write_str(r#""id" must be a string"#),
            VectorProblem::BadId => f.write_str(
                r#""id" must match [a-z0-9][a-z0-9-]* (lowercase letters, digits and dashes)"#,
            ),
            VectorProblem::DuplicateId {
                first_kind,
                first_file,
                first_index,
            } => write!(
                f,
                "the id is already used by {first_kind} {first_index} of {}; ids are unique within a tool",
                first_file.display()
            ),
            VectorProblem::MissingInput => f.write_str(
                r#""input" is missing (any JSON value, null included, is a legal input)"#,
            ),
            VectorProblem::BothOutcomes => {
                f.write_str(r#"a vector has exactly one of "accept" and "reject", not both"#)
            }
            VectorProblem::NoOutcome => f.write_str(
                r#"a vector needs "accept" (the normalized output) or "reject" (the issues)"#,
            ),
            VectorProblem::AcceptNotObject => {
                f.write_str(r#""accept" must be the normalized output, a JSON object"#)
            }
            VectorProblem::RejectCount => {
                f.write_str(r#""reject" must be an array of 1 to 8 issues"#)
            }
            VectorProblem::BadIssue { position, reason } => {
                write!(f, "reject[{position}]: {reason}")
            }
            VectorProblem::WrongType { member, expected } => {
                write!(f, "{member:?} must be {expected}")
            }
        }
    }
}

/// Every `*.json` file under `dir`, recursively, in sorted path order; an empty folder is refused.
pub fn json_files(dir: &Path) -> Result<Vec<PathBuf>, LoadError> {
    let folder_error = |reason: String| LoadError::Folder {
        dir: dir.to_owned(),
        reason,
    };
    if !dir.is_dir() {
        return Err(folder_error("no such folder".to_owned()));
    }
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| folder_error(e.to_string()))?;
        if entry.file_type().is_file() && entry.path().extension().is_some_and(|e| e == "json") {
            files.push(entry.into_path());
        }
    }
    if files.is_empty() {
        return Err(LoadError::EmptyFolder {
            dir: dir.to_owned(),
        });
    }
    Ok(files)
}

/// Loads every vector of every folder, in folder order then sorted path order (scenario files are
/// checked as well, and their ids count, but only the vectors are returned).
pub fn load(dirs: &[PathBuf]) -> Result<Vec<Vector>, LoadError> {
    crate::suite::load_suite(dirs).map(|suite| suite.vectors)
}

/// Parses the text of one vector file (a scenario file gives no vector).
pub fn parse_file(file: &Path, text: &str) -> Result<Vec<Vector>, LoadError> {
    crate::suite::parse_suite_file(file, text).map(|suite| suite.vectors)
}

const MEMBERS: [&str; 6] = ["id", "doc", "note", "input", "accept", "reject"];

pub(crate) fn parse_vector(
    tool: Tool,
    file: &Path,
    index: usize,
    item: &Json,
) -> Result<Vector, LoadError> {
    let id = item
        .as_object()
        .and_then(|o| o.get("id"))
        .and_then(Json::as_string)
        .map(|s| s.to_string());
    let error = |problem| LoadError::Vector {
        file: file.to_owned(),
        index,
        id: id.clone(),
        problem,
    };
    let object = item
        .as_object()
        .ok_or_else(|| error(VectorProblem::NotObject))?;
    if let Some((name, _)) = object
        .iter()
        .find(|(k, _)| !MEMBERS.iter().any(|m| k.eq_str(m)))
    {
        return Err(error(VectorProblem::UnknownMember(name.to_string())));
    }
    let id = id.clone().ok_or_else(|| error(VectorProblem::MissingId))?;
    if !valid_id(&id) {
        return Err(error(VectorProblem::BadId));
    }
    let doc = match object.get("doc") {
        None => false,
        Some(Json::Bool(b)) => *b,
        Some(_) => {
            return Err(error(VectorProblem::WrongType {
                member: "doc",
                expected: "a boolean",
            }));
        }
    };
    let note = match object.get("note") {
        None => None,
        Some(Json::String(s)) => Some(s.to_string()),
        Some(_) => {
            return Err(error(VectorProblem::WrongType {
                member: "note",
                expected: "a string",
            }));
        }
    };
    let input = object
        .get("input")
        .cloned()
        .ok_or_else(|| error(VectorProblem::MissingInput))?;
    let expected = match (object.get("accept"), object.get("reject")) {
        (Some(_), Some(_)) => return Err(error(VectorProblem::BothOutcomes)),
        (None, None) => return Err(error(VectorProblem::NoOutcome)),
        (Some(accept @ Json::Object(_)), None) => Verdict::Accept(accept.clone()),
        (Some(_), None) => return Err(error(VectorProblem::AcceptNotObject)),
        (None, Some(reject)) => {
            let issues = reject
                .as_array()
                .filter(|a| (1..=8).contains(&a.len()))
                .ok_or_else(|| error(VectorProblem::RejectCount))?;
            let issues = issues
                .iter()
                .enumerate()
                .map(|(position, issue)| {
                    Issue::from_json(issue)
                        .map_err(|reason| error(VectorProblem::BadIssue { position, reason }))
                })
                .collect::<Result<Vec<_>, _>>()?;
            Verdict::Reject(issues)
        }
    };
    let source = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(Vector {
        tool,
        id,
        doc,
        note,
        input,
        expected,
        file: file.to_owned(),
        source,
        index,
    })
}

/// Whether `id` matches `[a-z0-9][a-z0-9-]*`.
pub fn valid_id(id: &str) -> bool {
    let mut chars = id.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}
