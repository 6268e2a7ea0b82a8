//! Mutation rows (interfaces.md §7): loading `mutants/**/*.json`, checking them, and naming the
//! refusal each row breaks.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// One scripted mutation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// Unique across all files; by convention `<rule id>: <how the rule is broken>`.
    pub id: String,
    /// The workspace-relative file to mutate.
    pub file: String,
    /// Text that must occur exactly once in the file.
    pub find: String,
    /// The text that replaces it.
    pub replace: String,
    /// Vector names that must fail under the mutant.
    pub caught_by: Vec<String>,
    /// Why the row is no longer run, if it is retired.
    pub retired: Option<String>,
    /// The row file it came from, relative to the workspace root.
    pub source: String,
}

impl Row {
    /// The rule the row breaks: the part of its id before the last `": "`.
    pub fn rule(&self) -> &str {
        self.id
            .rsplit_once(": ")
            .map_or(self.id.as_str(), |(rule, _)| rule)
    }

    /// How often `find` occurs in `text`.
    pub fn occurrences(&self, text: &str) -> usize {
        text.matches(self.find.as_str()).count()
    }

    /// The row as JSON, for reports.
    pub fn to_json(&self) -> Value {
        let mut row = serde_json::json!({
            "id": self.id,
            "file": self.file,
            "find": self.find,
            "replace": self.replace,
        });
        if let Some(object) = row.as_object_mut() {
            if !self.caught_by.is_empty() {
                object.insert("caught_by".to_owned(), Value::from(self.caught_by.clone()));
            }
            if let Some(retired) = &self.retired {
                object.insert("retired".to_owned(), Value::from(retired.clone()));
            }
        }
        row
    }
}

/// Why the rows cannot be loaded.
#[derive(Debug)]
pub enum RowsError {
    /// A file cannot be read or is not JSON.
    Read { file: PathBuf, reason: String },
    /// A row is malformed.
    Row {
        file: PathBuf,
        index: usize,
        reason: String,
    },
    /// Two rows share an id.
    DuplicateId {
        id: String,
        first: PathBuf,
        second: PathBuf,
    },
    /// The folder holds no row file.
    Empty { dir: PathBuf },
}

impl fmt::Display for RowsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RowsError::Read { file, reason } => write!(f, "{}: {reason}", file.display()),
            RowsError::Row {
                file,
                index,
                reason,
            } => write!(f, "{}: row {index}: {reason}", file.display()),
            RowsError::DuplicateId { id, first, second } => write!(
                f,
                "{}: the row id {id:?} is already used in {}; ids are unique across all row files",
                second.display(),
                first.display()
            ),
            RowsError::Empty { dir } => write!(f, "{}: no *.json row file", dir.display()),
        }
    }
}

impl std::error::Error for RowsError {}

/// Every row of every `*.json` file under `root/mutants`, files in sorted path order.
pub fn load(root: &Path) -> Result<Vec<Row>, RowsError> {
    let dir = root.join("mutants");
    let mut files: Vec<PathBuf> = walk(&dir);
    files.sort();
    if files.is_empty() {
        return Err(RowsError::Empty { dir });
    }
    let mut rows = Vec::new();
    let mut seen: BTreeMap<String, PathBuf> = BTreeMap::new();
    for file in files {
        let source = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(&file).map_err(|e| RowsError::Read {
            file: file.clone(),
            reason: e.to_string(),
        })?;
        for row in parse(&file, &source, &text)? {
            if let Some(first) = seen.insert(row.id.clone(), file.clone()) {
                return Err(RowsError::DuplicateId {
                    id: row.id,
                    first,
                    second: file,
                });
            }
            rows.push(row);
        }
    }
    Ok(rows)
}

/// The rows of one file's text.
pub fn parse(file: &Path, source: &str, text: &str) -> Result<Vec<Row>, RowsError> {
    let value: Value = serde_json::from_str(text).map_err(|e| RowsError::Read {
        file: file.to_owned(),
        reason: format!("not valid JSON: {e}"),
    })?;
    let list = value
        .get("rows")
        .and_then(Value::as_array)
        .ok_or_else(|| RowsError::Read {
            file: file.to_owned(),
            reason: "a row file is {\"rows\": [...]}".to_owned(),
        })?;
    list.iter()
        .enumerate()
        .map(|(index, row)| {
            let error = |reason: String| RowsError::Row { file: file.to_owned(), index, reason };
            let text = |name: &str| row.get(name).and_then(Value::as_str).map(str::to_owned);
            let required = |name: &str| text(name).ok_or_else(|| error(format!("{name:?} must be a string")));
            let caught_by = match row.get("caught_by") {
                None => Vec::new(),
                Some(Value::Array(names)) => names
                    .iter()
                    .map(|n| {
                        n.as_str()
                            .map(str::to_owned)
                            .ok_or_else(|| error("\"caught_by\" holds vector names".to_owned()))
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err(error("\"caught_by\" must be an array of vector names".to_owned())),
            };
            let row = Row {
                id: required("id")?,
                file: required("file")?,
                find: required("find")?,
                replace: required("replace")?,
                caught_by,
                retired: text("retired"),
                source: source.to_owned(),
            };
            if row.find.is_empty() {
                return Err(error("\"find\" must not be empty".to_owned()));
            }
            if !inside_the_workspace(&row.file) {
                return Err(error(format!(
                    "\"file\" {:?} must be a workspace-relative path without `..` (a row never touches anything outside the workspace)",
                    row.file
                )));
            }
            Ok(row)
        })
        .collect()
}

/// Whether a row's `file` names a file inside the workspace: relative, with only normal parts.
pub fn inside_the_workspace(file: &str) -> bool {
    let path = Path::new(file);
    !file.is_empty()
        && path
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return files;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else if path.extension().is_some_and(|e| e == "json") {
            files.push(path);
        }
    }
    files
}
