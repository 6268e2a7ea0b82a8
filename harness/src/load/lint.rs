//! `conform lint`: every file of a folder (or of the built-in set) checked against its JSON Schema
//! (vector files, scenario files, mutation-row files).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;
use vvoc_reference::Json;

use crate::json::bridge::to_serde_lossy;
use crate::load::error::LoadError;
use crate::load::sources::{Source, SuiteFile};
use crate::parallel::map_in_order;

/// One place where a file breaks its schema, or a file that is not JSON at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Whether the file is not JSON, or breaks its schema.
    pub kind: ViolationKind,
    /// The file.
    pub file: PathBuf,
    /// The JSON pointer of the offending value (empty for the whole file).
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

/// What kind of problem a [`Violation`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViolationKind {
    /// The file is not JSON (so no schema could be checked).
    NotJson,
    /// The file breaks its schema.
    Schema,
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
    let validator = compile(dir, schema)?;
    let files = Source::Folder(dir.to_owned()).files()?;
    let violations = check_files(&files, |_| Ok(&validator));
    Ok((files.len(), violations))
}

/// How many vector files and scenario files a vectors folder holds, and their violations.
#[derive(Debug)]
pub struct SuiteLint {
    /// Files checked against the vector-file schema.
    pub vector_files: usize,
    /// Files checked against the scenario-file schema.
    pub scenario_files: usize,
    /// What breaks the schemas.
    pub violations: Vec<Violation>,
}

/// Checks every file of a vectors folder: a file with `scenarios` against the scenario-file schema
/// (the web scenario-file schema when its tool is `web_fetch` or `web_search`, the workflow one
/// when it is a workflow tool),
/// any other against the vector-file schema; a file with both is a violation of its own.
pub fn lint_vectors_folder(dir: &Path) -> Result<SuiteLint, LoadError> {
    lint_source(&Source::Folder(dir.to_owned()))
}

/// Checks every file of a source (the built-in set, or a folder) like [`lint_vectors_folder`].
pub fn lint_source(source: &Source) -> Result<SuiteLint, LoadError> {
    let dir = match source {
        Source::Builtin => PathBuf::from(crate::load::builtin::PREFIX),
        Source::Folder(dir) => dir.clone(),
    };
    let vectors = compile(&dir, &crate::meta_schema::vector_file())?;
    let scenarios = compile(&dir, &crate::meta_schema::scenario_file())?;
    let web = compile(&dir, &crate::meta_schema_web::web_scenario_file())?;
    let workflow = compile(&dir, &crate::meta_schema_workflow::workflow_scenario_file())?;
    let files = source.files()?;
    let counts = (AtomicUsize::new(0), AtomicUsize::new(0));
    let violations = check_files(&files, |json| {
        let top = json.as_object();
        let has = |name: &str| top.is_some_and(|o| o.contains(name));
        match (has("scenarios"), has("vectors")) {
            (true, true) => Err("a file holds \"vectors\" or \"scenarios\", never both".to_owned()),
            (true, false) => {
                counts.1.fetch_add(1, Ordering::Relaxed);
                let tool = top
                    .and_then(|o| o.get("tool"))
                    .and_then(Json::as_string)
                    .and_then(|t| t.to_string_lossy().parse::<vvoc_reference::Tool>().ok());
                match tool {
                    Some(tool) if crate::web::is_web(tool) => Ok(&web),
                    Some(tool) if crate::workflow::is_workflow(tool) => Ok(&workflow),
                    Some(_) | None => Ok(&scenarios),
                }
            }
            (false, _) => {
                counts.0.fetch_add(1, Ordering::Relaxed);
                Ok(&vectors)
            }
        }
    });
    Ok(SuiteLint {
        vector_files: counts.0.into_inner(),
        scenario_files: counts.1.into_inner(),
        violations,
    })
}

fn compile(dir: &Path, schema: &Value) -> Result<jsonschema::Validator, LoadError> {
    jsonschema::validator_for(schema).map_err(|e| LoadError::Folder {
        dir: dir.to_owned(),
        reason: format!("the project's own schema is invalid: {e}"),
    })
}

/// The violations of each file, in file order (the files are checked on every core), against the
/// validator `choose` picks for its content.
fn check_files<'v>(
    files: &[SuiteFile],
    choose: impl Fn(&Json) -> Result<&'v jsonschema::Validator, String> + Sync,
) -> Vec<Violation> {
    map_in_order(files, |f| check_file(f, &choose))
        .into_iter()
        .flatten()
        .collect()
}

/// The violations of one file.
fn check_file<'v>(
    SuiteFile { file, text, .. }: &SuiteFile,
    choose: impl Fn(&Json) -> Result<&'v jsonschema::Validator, String>,
) -> Vec<Violation> {
    let whole = |kind: ViolationKind, message: String| Violation {
        kind,
        file: file.clone(),
        pointer: String::new(),
        message,
    };
    let json = match Json::parse(text) {
        Ok(json) => json,
        Err(error) => {
            return vec![whole(
                ViolationKind::NotJson,
                format!(
                    "not valid JSON: line {}, column {}: {}",
                    error.line, error.column, error.message
                ),
            )];
        }
    };
    let validator = match choose(&json) {
        Ok(validator) => validator,
        Err(message) => return vec![whole(ViolationKind::Schema, message)],
    };
    let instance = to_serde_lossy(&json);
    validator
        .iter_errors(&instance)
        .map(|error| Violation {
            kind: ViolationKind::Schema,
            file: file.clone(),
            pointer: error.instance_path.to_string(),
            message: error.to_string(),
        })
        .collect()
}
