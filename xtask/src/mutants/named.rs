//! Named mutants: the `"mutants"` every row file may declare, one name space across the folder,
//! and the rows of all files resolved against them: each mutant declared once, each name known
//! and used, no row spelling out a declared change.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::row_file::{self, Change, FileSpec, Form};
use super::rows::{Row, RowSet, RowText};
use super::rows_error::RowsError;

/// A mutant declared by name in a row file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedMutant {
    /// Its name, unique across all row files.
    pub name: String,
    /// What it changes.
    pub change: Change,
    /// The row file that declares it, relative to the workspace root.
    pub source: String,
}

/// The rows of all `files` (in their order), each with its change, and the named mutants.
pub fn resolve(files: &[RowText]) -> Result<RowSet, RowsError> {
    let specs = files
        .iter()
        .map(|file| Ok((file, row_file::read(&file.path, &file.text)?)))
        .collect::<Result<Vec<(&RowText, FileSpec)>, RowsError>>()?;
    let declared = Declared::of(&specs)?;
    let mut set = RowSet::default();
    let mut used: BTreeSet<&str> = BTreeSet::new();
    let mut ids: BTreeMap<String, &Path> = BTreeMap::new();
    for (file, spec) in &specs {
        for row in &spec.rows {
            let change = match &row.form {
                Form::Named(name) => {
                    let Some((mutant, _)) = declared.mutants.get(name.as_str()) else {
                        return Err(RowsError::UnknownMutant {
                            file: file.path.clone(),
                            id: row.id.clone(),
                            mutant: name.clone(),
                        });
                    };
                    used.insert(&mutant.name);
                    set.names.insert(row.id.clone(), name.clone());
                    mutant.change.clone()
                }
                Form::Inline(change) => {
                    if let Some(name) = declared.by_change.get(change) {
                        return Err(RowsError::SpelledOut {
                            file: file.path.clone(),
                            id: row.id.clone(),
                            mutant: (*name).to_owned(),
                            declared_in: declared.mutants[name].1.to_owned(),
                        });
                    }
                    change.clone()
                }
            };
            if let Some(first) = ids.insert(row.id.clone(), &file.path) {
                return Err(RowsError::DuplicateId {
                    id: row.id.clone(),
                    first: first.to_owned(),
                    second: file.path.clone(),
                });
            }
            set.rows.push(Row {
                id: row.id.clone(),
                file: change.file,
                find: change.find,
                replace: change.replace,
                caught_by: row.caught_by.clone(),
                retired: row.retired.clone(),
                source: file.source.clone(),
            });
        }
    }
    if let Some(unused) = declared.order.iter().find(|name| !used.contains(*name)) {
        return Err(RowsError::UnusedMutant {
            file: declared.mutants[unused].1.to_owned(),
            mutant: (*unused).to_owned(),
        });
    }
    set.mutants = declared
        .mutants
        .into_values()
        .map(|(mutant, _)| (mutant.name.clone(), mutant))
        .collect();
    Ok(set)
}

/// Every declaration of every file, checked: names unique, changes unique.
struct Declared<'a> {
    /// Each mutant by name, with the path of the file declaring it.
    mutants: BTreeMap<&'a str, (NamedMutant, &'a Path)>,
    /// The name of each declared change.
    by_change: BTreeMap<&'a Change, &'a str>,
    /// The names in declaration order.
    order: Vec<&'a str>,
}

impl<'a> Declared<'a> {
    fn of(specs: &'a [(&'a RowText, FileSpec)]) -> Result<Declared<'a>, RowsError> {
        let mut declared = Declared {
            mutants: BTreeMap::new(),
            by_change: BTreeMap::new(),
            order: Vec::new(),
        };
        for (file, spec) in specs {
            for (name, change) in &spec.mutants {
                if let Some((_, first)) = declared.mutants.get(name.as_str()) {
                    return Err(RowsError::DuplicateMutant {
                        mutant: name.clone(),
                        first: first.to_path_buf(),
                        second: file.path.clone(),
                    });
                }
                if let Some(earlier) = declared.by_change.get(change) {
                    return Err(RowsError::SameChange {
                        mutant: name.clone(),
                        file: file.path.clone(),
                        earlier: (*earlier).to_owned(),
                        earlier_file: path_of(&declared, earlier),
                    });
                }
                let mutant = NamedMutant {
                    name: name.clone(),
                    change: change.clone(),
                    source: file.source.clone(),
                };
                declared.mutants.insert(name, (mutant, &file.path));
                declared.by_change.insert(change, name);
                declared.order.push(name);
            }
        }
        Ok(declared)
    }
}

/// The file declaring a known mutant.
fn path_of(declared: &Declared<'_>, name: &str) -> PathBuf {
    declared
        .mutants
        .get(name)
        .map(|(_, path)| path.to_path_buf())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows of some files (name, text), or the error, as text.
    fn resolved(files: &[(&str, &str)]) -> Result<RowSet, String> {
        let texts: Vec<RowText> = files
            .iter()
            .map(|(name, text)| RowText {
                path: PathBuf::from(name),
                source: format!("mutants/{name}"),
                text: (*text).to_owned(),
            })
            .collect();
        resolve(&texts).map_err(|e| e.to_string())
    }

    fn refusal(files: &[(&str, &str)]) -> String {
        match resolved(files) {
            Ok(set) => format!("accepted: {set:?}"),
            Err(error) => error,
        }
    }

    const SHARED: &str =
        r#"{"mutants": {"lib:doubled": {"file": "a.rs", "find": "n * 2", "replace": "n * 3"}}}"#;

    #[test]
    fn a_mutant_declared_in_one_file_serves_rows_of_every_file() {
        let set = resolved(&[
            ("mutants.json", SHARED),
            ("one.json", r#"{"rows": [{"id": "one: doubled", "mutant": "lib:doubled"}]}"#),
            ("two.json", r#"{"rows": [{"id": "two: doubled", "mutant": "lib:doubled"}, {"id": "two: own", "file": "a.rs", "find": "n", "replace": "m"}]}"#),
        ])
        .expect("resolved");
        let changes: Vec<(&str, &str, &str, &str)> = set
            .rows
            .iter()
            .map(|r| {
                (
                    r.id.as_str(),
                    r.source.as_str(),
                    r.find.as_str(),
                    r.replace.as_str(),
                )
            })
            .collect();
        assert_eq!(
            changes,
            [
                ("one: doubled", "mutants/one.json", "n * 2", "n * 3"),
                ("two: doubled", "mutants/two.json", "n * 2", "n * 3"),
                ("two: own", "mutants/two.json", "n", "m"),
            ]
        );
        assert_eq!(
            set.mutant_of(&set.rows[1]).map(|m| m.source.as_str()),
            Some("mutants/mutants.json")
        );
        assert_eq!(
            set.mutant_of(&set.rows[2]),
            None,
            "a row of the first form names no mutant"
        );
    }

    #[test]
    fn a_row_naming_a_mutant_and_spelling_out_a_change_is_refused() {
        assert_eq!(
            refusal(&[
                ("mutants.json", SHARED),
                (
                    "r.json",
                    r#"{"rows": [{"id": "r: x", "mutant": "lib:doubled", "find": "n"}]}"#
                )
            ]),
            "r.json: row \"r: x\" names the mutant \"lib:doubled\" and also has \"file\", \"find\" or \"replace\"; a row names a mutant or spells out its change, not both: drop the one or the other"
        );
    }

    #[test]
    fn a_row_without_a_mutant_or_a_change_is_refused() {
        assert_eq!(
            refusal(&[(
                "r.json",
                r#"{"rows": [{"id": "r: x", "caught_by": ["t:v"]}]}"#
            )]),
            "r.json: row \"r: x\" makes no change: name a declared mutant (\"mutant\": \"<name>\") or give \"file\", \"find\" and \"replace\""
        );
        assert_eq!(
            refusal(&[("r.json", r#"{"rows": [{"id": "r: x", "mutant": 7}]}"#)]),
            "r.json: row 0: \"mutant\" must be a string"
        );
    }

    #[test]
    fn a_row_naming_an_undeclared_mutant_is_refused() {
        assert_eq!(
            refusal(&[
                ("mutants.json", SHARED),
                (
                    "r.json",
                    r#"{"rows": [{"id": "r: x", "mutant": "lib:dubled"}, {"id": "r: y", "mutant": "lib:doubled"}]}"#
                )
            ]),
            "r.json: row \"r: x\" names the mutant \"lib:dubled\", which no row file declares; declare it under \"mutants\" (the project's are in mutants/mutants.json) or correct the name"
        );
    }

    #[test]
    fn a_declared_mutant_no_row_names_is_refused() {
        assert_eq!(
            refusal(&[
                ("mutants.json", SHARED),
                (
                    "r.json",
                    r#"{"rows": [{"id": "r: x", "file": "a.rs", "find": "n", "replace": "m"}]}"#
                )
            ]),
            "mutants.json: the mutant \"lib:doubled\" is declared but no row names it; remove it, or name it in a row (\"mutant\": \"lib:doubled\")"
        );
    }

    #[test]
    fn a_mutant_is_declared_once_by_name_and_by_change() {
        let again = r#"{"mutants": {"lib:doubled": {"file": "a.rs", "find": "n * 2", "replace": "n * 4"}}, "rows": [{"id": "r: x", "mutant": "lib:doubled"}]}"#;
        assert_eq!(
            refusal(&[("mutants.json", SHARED), ("r.json", again)]),
            "r.json: the mutant \"lib:doubled\" is already declared in mutants.json; mutant names are unique across all row files: rename one"
        );
        let same = r#"{"mutants": {"lib:tripled": {"file": "a.rs", "find": "n * 2", "replace": "n * 3"}}, "rows": [{"id": "r: x", "mutant": "lib:tripled"}]}"#;
        assert_eq!(
            refusal(&[("mutants.json", SHARED), ("r.json", same)]),
            "r.json: the mutant \"lib:tripled\" makes the same change (file, find and replace) as \"lib:doubled\" in mutants.json; a mutant is declared once: remove one and name the other in its rows"
        );
    }

    #[test]
    fn a_row_spelling_out_a_declared_change_is_told_its_name() {
        let spelled =
            r#"{"rows": [{"id": "r: x", "file": "a.rs", "find": "n * 2", "replace": "n * 3"}]}"#;
        assert_eq!(
            refusal(&[("mutants.json", SHARED), ("r.json", spelled)]),
            "r.json: row \"r: x\" spells out the change of the mutant \"lib:doubled\" (declared in mutants.json); name it instead: \"mutant\": \"lib:doubled\""
        );
    }

    #[test]
    fn row_ids_are_unique_across_files_whatever_their_form() {
        assert_eq!(
            refusal(&[
                ("mutants.json", SHARED),
                (
                    "one.json",
                    r#"{"rows": [{"id": "r: x", "mutant": "lib:doubled"}]}"#
                ),
                (
                    "two.json",
                    r#"{"rows": [{"id": "r: x", "file": "a.rs", "find": "n", "replace": "m"}]}"#
                ),
            ]),
            "two.json: the row id \"r: x\" is already used in one.json; ids are unique across all row files"
        );
    }
}
