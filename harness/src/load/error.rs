//! What can be wrong with a suite's files: the folder, a file, a vector or a scenario, each
//! error naming the file, the vector's index and id, and what is wrong.

use std::fmt;
use std::path::PathBuf;

use vvoc_reference::json::ParseError;

use crate::scenario::model::ScenarioProblem;
use crate::web::model::WebProblem;
use crate::workflow::model::WorkflowProblem;

/// Why a vector file, or a vectors folder, cannot be used.
#[derive(Debug)]
pub enum LoadError {
    /// The folder does not exist or cannot be read.
    Folder { dir: PathBuf, reason: String },
    /// The folder holds no `*.json` file.
    EmptyFolder { dir: PathBuf },
    /// An entry of the folder is neither a folder, a regular file nor a link to a regular file
    /// (or is a folder named like a vector file).
    Entry {
        path: PathBuf,
        problem: EntryProblem,
    },
    /// The file cannot be read.
    Read { file: PathBuf, reason: String },
    /// The file's bytes are not UTF-8 text without a byte order mark.
    Text { file: PathBuf, problem: TextProblem },
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
    /// A web scenario is malformed, or could reach past loopback.
    WebScenario {
        file: PathBuf,
        index: usize,
        id: Option<String>,
        problem: WebProblem,
    },
    /// A workflow scenario is malformed, or calls with an input the contract refuses.
    WorkflowScenario {
        file: PathBuf,
        index: usize,
        id: Option<String>,
        problem: Box<WorkflowProblem>,
    },
}

/// What a folder's entry is, when it is not a folder, a regular file or a link to one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntryProblem {
    /// A folder whose name ends in `.json`.
    FolderNamedJson,
    /// A symbolic link to a folder.
    LinkToFolder,
    /// A symbolic link whose target (as the link holds it) does not exist.
    DanglingLink { target: PathBuf },
    /// A symbolic link that leads back to itself.
    LinkLoop,
    /// A FIFO, socket or device (`through_link`: reached through a symbolic link).
    Special {
        kind: SpecialFile,
        through_link: bool,
    },
}

/// What a file is when it is not a regular file (symbolic links followed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotRegular {
    /// A folder.
    Folder,
    /// A FIFO, socket or device.
    Special(SpecialFile),
}

/// A file that is neither a regular file, a folder nor a symbolic link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecialFile {
    /// A named pipe (reading it waits for a writer).
    Fifo,
    /// A Unix domain socket.
    Socket,
    /// A block device.
    BlockDevice,
    /// A character device.
    CharDevice,
    /// A file type this platform has beyond those.
    Other,
}

/// Why a file's bytes are not the UTF-8 text a JSON file of the suite is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextProblem {
    /// The text starts with U+FEFF, the byte order mark.
    ByteOrderMark,
    /// An invalid UTF-8 sequence at this byte offset (0-based), on this line (1-based).
    NotUtf8 { offset: usize, line: usize },
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
            LoadError::Entry { path, problem } => write!(f, "{}: {problem}", path.display()),
            LoadError::Text { file, problem } => write!(f, "{}: {problem}", file.display()),
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
            LoadError::WebScenario {
                file,
                index,
                id,
                problem,
            } => {
                write!(f, "{}: web scenario {index}", file.display())?;
                if let Some(id) = id {
                    write!(f, " ({id:?})")?;
                }
                write!(f, ": {problem}")
            }
            LoadError::WorkflowScenario {
                file,
                index,
                id,
                problem,
            } => {
                write!(f, "{}: workflow scenario {index}", file.display())?;
                if let Some(id) = id {
                    write!(f, " ({id:?})")?;
                }
                write!(f, ": {problem}")
            }
        }
    }
}

impl std::error::Error for LoadError {}

impl fmt::Display for EntryProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const HOLDS: &str = "a folder conform reads holds only folders, regular files and symbolic links to regular files";
        match self {
            EntryProblem::FolderNamedJson => write!(
                f,
                "a folder named like a vector file (*.json); rename it, or move it out of the vectors folder"
            ),
            EntryProblem::LinkToFolder => write!(
                f,
                "a symbolic link to a folder, which is not followed; {HOLDS}: put the folder itself here, or give it with another --vectors"
            ),
            EntryProblem::DanglingLink { target } => write!(
                f,
                "a dangling symbolic link (its target {} does not exist); {HOLDS}: remove the link or point it at a file",
                target.display()
            ),
            EntryProblem::LinkLoop => write!(
                f,
                "a symbolic link loop (following it leads back to a link on the way); {HOLDS}: remove the link"
            ),
            EntryProblem::Special {
                kind,
                through_link: false,
            } => write!(f, "{kind}, not a regular file; {HOLDS}: remove it"),
            EntryProblem::Special {
                kind,
                through_link: true,
            } => write!(
                f,
                "a symbolic link to {kind}, not to a regular file; {HOLDS}: remove the link"
            ),
        }
    }
}

impl fmt::Display for NotRegular {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotRegular::Folder => f.write_str("a folder"),
            NotRegular::Special(kind) => kind.fmt(f),
        }
    }
}

impl fmt::Display for SpecialFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SpecialFile::Fifo => "a FIFO (named pipe)",
            SpecialFile::Socket => "a socket",
            SpecialFile::BlockDevice => "a block device",
            SpecialFile::CharDevice => "a character device",
            SpecialFile::Other => "a special file",
        })
    }
}

impl fmt::Display for TextProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextProblem::ByteOrderMark => f.write_str(
                "starts with a byte order mark (bytes EF BB BF); JSON files are read without one: save the file as UTF-8 without a BOM",
            ),
            TextProblem::NotUtf8 { offset, line } => write!(
                f,
                "not valid UTF-8: an invalid byte at offset {offset} (line {line}); the file must be UTF-8 text"
            ),
        }
    }
}

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
