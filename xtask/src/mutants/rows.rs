//! Mutation rows (interfaces.md §7): loading `mutants/**/*.json` (each row's change its own or a
//! named mutant's, `named.rs`), and naming the refusal each row breaks.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use walkdir::WalkDir;

pub use super::named::{NamedMutant, resolve};
pub use super::rows_error::RowsError;
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

/// The rows of the folder with the named mutants they resolve against.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RowSet {
    /// Every row, its change resolved, files in sorted path order.
    pub rows: Vec<Row>,
    /// Every declared mutant, by name.
    pub mutants: BTreeMap<String, NamedMutant>,
    /// The name of the mutant of each row that names one, by row id.
    pub names: BTreeMap<String, String>,
}

impl RowSet {
    /// The named mutant a row names, if it names one.
    pub fn mutant_of(&self, row: &Row) -> Option<&NamedMutant> {
        self.mutants.get(self.names.get(&row.id)?)
    }
}

/// A row file's text, with its path and its name relative to the workspace root.
#[derive(Clone, Debug)]
pub struct RowText {
    /// The path errors name.
    pub path: PathBuf,
    /// The path relative to the workspace root (a row's `source`).
    pub source: String,
    /// The file's text.
    pub text: String,
}

/// Every row of every `*.json` file under `root/mutants`, files in sorted path order.
pub fn load(root: &Path) -> Result<Vec<Row>, RowsError> {
    Ok(load_set(root)?.rows)
}

/// The rows and named mutants of every `*.json` file under `root/mutants`.
pub fn load_set(root: &Path) -> Result<RowSet, RowsError> {
    let dir = root.join(ROWS);
    let mut files: Vec<PathBuf> = row_files(&dir);
    files.sort();
    if files.is_empty() {
        return Err(RowsError::Empty { dir });
    }
    let texts = files
        .into_iter()
        .map(|file| {
            let source = file
                .strip_prefix(root)
                .unwrap_or(&file)
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&file).map_err(|e| RowsError::Read {
                file: file.clone(),
                reason: e.to_string(),
            })?;
            Ok(RowText {
                path: file,
                source,
                text,
            })
        })
        .collect::<Result<Vec<_>, RowsError>>()?;
    resolve(&texts)
}

/// The rows of one file's text, resolved against the mutants it declares itself.
pub fn parse(file: &Path, source: &str, text: &str) -> Result<Vec<Row>, RowsError> {
    let text = RowText {
        path: file.to_owned(),
        source: source.to_owned(),
        text: text.to_owned(),
    };
    Ok(resolve(&[text])?.rows)
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
        let shape = "m.json: a row file is {\"rows\": [...]}, {\"mutants\": {\"<name>\": {...}}} or both in one object";
        assert_eq!(file("{\"rows\": {}}"), shape);
        assert_eq!(file("{}"), shape);
        assert_eq!(file("{\"mutants\": []}"), shape);
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

    #[test]
    fn a_row_of_the_first_form_still_reads_with_its_own_change() {
        let text = r#"{"rows": [{"id": "r: x", "file": "a.rs", "find": "x", "replace": "y"}]}"#;
        let rows = parse(Path::new("m.json"), "mutants/m.json", text).expect("a row");
        assert_eq!(
            (
                rows[0].file.as_str(),
                rows[0].find.as_str(),
                rows[0].replace.as_str()
            ),
            ("a.rs", "x", "y")
        );
    }

    #[test]
    fn a_row_naming_a_mutant_reads_with_the_mutants_change_and_keeps_its_source() {
        let text = r#"{"mutants": {"a:x-doubled": {"file": "a.rs", "find": "x", "replace": "x * 2"}},
            "rows": [{"id": "r: doubled", "mutant": "a:x-doubled", "caught_by": ["t:v"]},
                     {"id": "q: doubled", "mutant": "a:x-doubled", "retired": "kept"}]}"#;
        let rows = parse(Path::new("m.json"), "mutants/m.json", text).expect("two rows");
        assert_eq!(
            rows,
            [
                Row {
                    id: "r: doubled".to_owned(),
                    file: "a.rs".to_owned(),
                    find: "x".to_owned(),
                    replace: "x * 2".to_owned(),
                    caught_by: vec!["t:v".to_owned()],
                    retired: None,
                    source: "mutants/m.json".to_owned(),
                },
                Row {
                    id: "q: doubled".to_owned(),
                    file: "a.rs".to_owned(),
                    find: "x".to_owned(),
                    replace: "x * 2".to_owned(),
                    caught_by: Vec::new(),
                    retired: Some("kept".to_owned()),
                    source: "mutants/m.json".to_owned(),
                }
            ]
        );
    }

    #[test]
    fn a_declared_mutant_is_refused_in_the_formats_words() {
        let file = |mutants: &str| {
            let text =
                format!(r#"{{"mutants": {mutants}, "rows": [{{"id": "r: x", "mutant": "m"}}]}}"#);
            match parse(Path::new("m.json"), "m.json", &text) {
                Ok(rows) => format!("accepted: {rows:?}"),
                Err(error) => error.to_string(),
            }
        };
        assert_eq!(
            file(r#"{"m": {"file": "a.rs", "find": "x"}}"#),
            "m.json: mutant \"m\": \"replace\" must be a string"
        );
        assert_eq!(
            file(r#"{"m": {"file": "a.rs", "find": "", "replace": ""}}"#),
            "m.json: mutant \"m\": \"find\" must not be empty"
        );
        assert_eq!(
            file(r#"{"m": {"file": "/a.rs", "find": "x", "replace": ""}}"#),
            "m.json: mutant \"m\": \"file\" \"/a.rs\" must be a workspace-relative path without `..` (a row never touches anything outside the workspace)"
        );
        assert_eq!(
            file(r#"{"": {"file": "a.rs", "find": "x", "replace": ""}}"#),
            "m.json: mutant \"\": a mutant's name must not be empty"
        );
        assert_eq!(
            file(
                r#"{"m": {"file": "a.rs", "find": "x", "replace": "1"}, "m": {"file": "a.rs", "find": "x", "replace": "2"}}"#
            ),
            "m.json: the mutant \"m\" is already declared in m.json; mutant names are unique across all row files: rename one",
            "a name given twice in one object is not silently the last one"
        );
        assert!(
            file(r#"{"m": {"file": "a.rs", "find": "x", "replace": ""}}"#).starts_with("accepted")
        );
    }
}
