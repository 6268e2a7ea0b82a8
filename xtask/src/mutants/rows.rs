//! Mutation rows (interfaces.md §7): loading `mutants/**/*.json`, checking them, and naming the
//! refusal each row breaks.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{Deserializer, Error as _};
use serde_json::Value;
use walkdir::WalkDir;

use super::workspace::ROWS;

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
    let dir = root.join(ROWS);
    let mut files: Vec<PathBuf> = row_files(&dir);
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

/// A row file: `{"rows": [...]}`.
#[derive(Deserialize)]
struct RowFile {
    rows: Vec<Value>,
}

/// A row as its file writes it; each member is refused in the words of the row file's format.
#[derive(Deserialize)]
struct RowSpec {
    #[serde(default, deserialize_with = "text::<ID, _>")]
    id: Option<String>,
    #[serde(default, deserialize_with = "text::<FILE, _>")]
    file: Option<String>,
    #[serde(default, deserialize_with = "text::<FIND, _>")]
    find: Option<String>,
    #[serde(default, deserialize_with = "text::<REPLACE, _>")]
    replace: Option<String>,
    #[serde(default, deserialize_with = "names")]
    caught_by: Vec<String>,
    #[serde(default)]
    retired: Option<String>,
}

/// The row members that hold one text each, by their index in [`TEXTS`].
const ID: usize = 0;
const FILE: usize = 1;
const FIND: usize = 2;
const REPLACE: usize = 3;
const TEXTS: [&str; 4] = ["id", "file", "find", "replace"];

/// A member that must be a string (`null` reads as absent).
fn text<'de, const MEMBER: usize, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    Option::<String>::deserialize(deserializer)
        .map_err(|_| D::Error::custom(must_be_a_string(TEXTS[MEMBER])))
}

/// `caught_by`: vector and scenario names.
fn names<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    Vec::<Value>::deserialize(deserializer)
        .map_err(|_| D::Error::custom("\"caught_by\" must be an array of vector names"))?
        .into_iter()
        .map(|name| match name {
            Value::String(name) => Ok(name),
            _ => Err(D::Error::custom("\"caught_by\" holds vector names")),
        })
        .collect()
}

fn must_be_a_string(member: &str) -> String {
    format!("{member:?} must be a string")
}

/// The rows of one file's text.
pub fn parse(file: &Path, source: &str, text: &str) -> Result<Vec<Row>, RowsError> {
    let read_error = |reason: String| RowsError::Read {
        file: file.to_owned(),
        reason,
    };
    let value: Value =
        serde_json::from_str(text).map_err(|e| read_error(format!("not valid JSON: {e}")))?;
    let RowFile { rows } = RowFile::deserialize(value)
        .map_err(|_| read_error("a row file is {\"rows\": [...]}".to_owned()))?;
    rows.into_iter()
        .enumerate()
        .map(|(index, row)| {
            let error = |reason: String| RowsError::Row {
                file: file.to_owned(),
                index,
                reason,
            };
            let spec = RowSpec::deserialize(row).map_err(|e| error(e.to_string()))?;
            let required = |member: Option<String>, name: usize| {
                member.ok_or_else(|| error(must_be_a_string(TEXTS[name])))
            };
            let row = Row {
                id: required(spec.id, ID)?,
                file: required(spec.file, FILE)?,
                find: required(spec.find, FIND)?,
                replace: required(spec.replace, REPLACE)?,
                caught_by: spec.caught_by,
                retired: spec.retired,
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

/// The `*.json` files under `dir` (following links), in no particular order.
fn row_files(dir: &Path) -> Vec<PathBuf> {
    WalkDir::new(dir)
        .follow_links(true)
        .into_iter()
        .flatten()
        .filter(|e| !e.file_type().is_dir() && e.path().extension().is_some_and(|x| x == "json"))
        .map(walkdir::DirEntry::into_path)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(row: &str) -> String {
        let text = format!("{{\"rows\": [{row}]}}");
        match parse(Path::new("m.json"), "m.json", &text) {
            Ok(rows) => format!("accepted: {rows:?}"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn each_member_is_refused_in_the_formats_words() {
        let row = r#""id": "r", "file": "a.rs", "find": "x", "replace": "y""#;
        assert_eq!(
            refusal(r#"{"id": 3, "file": "a.rs", "find": "x", "replace": "y"}"#),
            "m.json: row 0: \"id\" must be a string"
        );
        assert_eq!(
            refusal(r#"{"id": "r", "file": "a.rs", "replace": "y"}"#),
            "m.json: row 0: \"find\" must be a string"
        );
        assert_eq!(
            refusal(&format!(r#"{{{row}, "caught_by": "v"}}"#)),
            "m.json: row 0: \"caught_by\" must be an array of vector names"
        );
        assert_eq!(
            refusal(&format!(r#"{{{row}, "caught_by": ["v", 1]}}"#)),
            "m.json: row 0: \"caught_by\" holds vector names"
        );
        assert_eq!(
            refusal(r#"{"id": "r", "file": "../a.rs", "find": "x", "replace": "y"}"#),
            "m.json: row 0: \"file\" \"../a.rs\" must be a workspace-relative path without `..` (a row never touches anything outside the workspace)"
        );
        assert!(refusal(&format!(r#"{{{row}, "retired": true}}"#)).starts_with("m.json: row 0: "));
        let file = |text: &str| match parse(Path::new("m.json"), "m.json", text) {
            Ok(_) => String::new(),
            Err(error) => error.to_string(),
        };
        assert_eq!(
            file("{\"rows\": {}}"),
            "m.json: a row file is {\"rows\": [...]}"
        );
        assert!(file("{").starts_with("m.json: not valid JSON: "));
    }

    #[test]
    fn a_row_reads_with_its_source() {
        let text = r#"{"rows": [{"id": "r: x", "file": "a.rs", "find": "x", "replace": "", "caught_by": ["t:v"], "note": "kept"}]}"#;
        let rows = parse(Path::new("m.json"), "mutants/m.json", text).expect("a row");
        assert_eq!(
            rows,
            [Row {
                id: "r: x".to_owned(),
                file: "a.rs".to_owned(),
                find: "x".to_owned(),
                replace: String::new(),
                caught_by: vec!["t:v".to_owned()],
                retired: None,
                source: "mutants/m.json".to_owned(),
            }]
        );
    }
}
