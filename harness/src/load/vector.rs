//! A vector: an input of a tool and its expected verdict, read from one entry of a vector file
//! (interfaces.md §3).

use std::path::{Path, PathBuf};

use vvoc_reference::{Issue, Json, Tool, Verdict};

use crate::load::error::{LoadError, VectorProblem};

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
pub(crate) fn valid_id(id: &str) -> bool {
    let mut chars = id.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}
