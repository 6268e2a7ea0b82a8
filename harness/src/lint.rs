//! `conform lint`: every file of a folder checked against its JSON Schema.

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;
use vvoc_reference::Json;

use crate::serde_bridge::to_serde_lossy;
use crate::vectors::{LoadError, json_files};

/// One place where a file breaks its schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The file.
    pub file: PathBuf,
    /// The JSON pointer of the offending value (empty for the whole file).
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            "the top level"
        } else {
            &self.pointer
        };
        write!(f, "{}: at {at}: {}", self.file.display(), self.message)
    }
}

/// Checks every `*.json` file under `dir` against `schema`; how many files were checked, or why
/// the folder cannot be checked at all.
pub fn lint_folder(dir: &Path, schema: &Value) -> Result<(usize, Vec<Violation>), LoadError> {
    let validator = jsonschema::validator_for(schema).map_err(|e| LoadError::Folder {
        dir: dir.to_owned(),
        reason: format!("the project's own schema is invalid: {e}"),
    })?;
    let files = json_files(dir)?;
    let mut violations = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).map_err(|e| LoadError::Read {
            file: file.clone(),
            reason: e.to_string(),
        })?;
        let json = match Json::parse(&text) {
            Ok(json) => json,
            Err(error) => {
                violations.push(Violation {
                    file: file.clone(),
                    pointer: String::new(),
                    message: format!(
                        "not valid JSON: line {}, column {}: {}",
                        error.line, error.column, error.message
                    ),
                });
                continue;
            }
        };
        let instance = to_serde_lossy(&json);
        for error in validator.iter_errors(&instance) {
            violations.push(Violation {
                file: file.clone(),
                pointer: error.instance_path.to_string(),
                message: error.to_string(),
            });
        }
    }
    Ok((files.len(), violations))
}
