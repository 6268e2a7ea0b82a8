//! One row file's text, read with serde: its rows (each naming a mutant or spelling out its change)
//! and the mutants it declares, every member refused in the words of the format (interfaces.md §7).

use std::path::Path;

use serde::Deserialize;
use serde::de::{Deserializer, Error as _, IgnoredAny, MapAccess, Visitor};
use serde_json::{Map, Value};

use super::rows_error::RowsError;

/// A change: the file, the text that occurs once in it, and the text put there instead.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Change {
    /// The workspace-relative file.
    pub file: String,
    /// The text it replaces.
    pub find: String,
    /// The text it puts there.
    pub replace: String,
}

/// How a row says what it changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Form {
    /// By the name of a declared mutant.
    Named(String),
    /// With `file`, `find` and `replace` of its own (the first form of the format).
    Inline(Change),
}

/// A row as its file writes it, its members checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowSpec {
    /// Its id.
    pub id: String,
    /// Its change.
    pub form: Form,
    /// The vectors and scenarios that must fail.
    pub caught_by: Vec<String>,
    /// Why it is retired, if it is.
    pub retired: Option<String>,
}

/// What one row file holds, in file order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileSpec {
    /// Its rows.
    pub rows: Vec<RowSpec>,
    /// The mutants it declares, by name.
    pub mutants: Vec<(String, Change)>,
}

/// The rows and mutants of one file's text (`file` names it in errors).
pub fn read(file: &Path, text: &str) -> Result<FileSpec, RowsError> {
    let read_error = |reason: String| RowsError::Read {
        file: file.to_owned(),
        reason,
    };
    let value: Value =
        serde_json::from_str(text).map_err(|e| read_error(format!("not valid JSON: {e}")))?;
    let shape = || read_error(SHAPE.to_owned());
    let RawFile { rows, mutants } = RawFile::deserialize(value).map_err(|_| shape())?;
    if rows.is_none() && mutants.is_none() {
        return Err(shape());
    }
    if let Some(name) = repeated_name(text) {
        return Err(RowsError::DuplicateMutant {
            mutant: name,
            first: file.to_owned(),
            second: file.to_owned(),
        });
    }
    let mutants = mutants
        .unwrap_or_default()
        .into_iter()
        .map(|(name, spec)| {
            let error = |reason: String| RowsError::Mutant {
                file: file.to_owned(),
                mutant: name.clone(),
                reason,
            };
            if name.is_empty() {
                return Err(error("a mutant's name must not be empty".to_owned()));
            }
            let RawChange {
                file: path,
                find,
                replace,
            } = RawChange::deserialize(spec).map_err(|e| error(e.to_string()))?;
            let change = change(path, find, replace).map_err(error)?;
            Ok((name, change))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let rows = rows
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(index, row)| row_spec(file, index, row))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(FileSpec { rows, mutants })
}

/// What a row file must look like, said when it does not.
const SHAPE: &str =
    "a row file is {\"rows\": [...]}, {\"mutants\": {\"<name>\": {...}}} or both in one object";

/// A row file: rows, named mutants, or both.
#[derive(Deserialize)]
struct RawFile {
    #[serde(default)]
    rows: Option<Vec<Value>>,
    #[serde(default)]
    mutants: Option<Map<String, Value>>,
}

/// A row as its file writes it; each member is refused in the words of the row file's format.
#[derive(Deserialize)]
struct RawRow {
    #[serde(default, deserialize_with = "text::<ID, _>")]
    id: Option<String>,
    #[serde(default, deserialize_with = "text::<MUTANT, _>")]
    mutant: Option<String>,
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

/// A declared mutant as its file writes it.
#[derive(Deserialize)]
struct RawChange {
    #[serde(default, deserialize_with = "text::<FILE, _>")]
    file: Option<String>,
    #[serde(default, deserialize_with = "text::<FIND, _>")]
    find: Option<String>,
    #[serde(default, deserialize_with = "text::<REPLACE, _>")]
    replace: Option<String>,
}

/// The members that hold one text each, by their index in [`TEXTS`].
const ID: usize = 0;
const FILE: usize = 1;
const FIND: usize = 2;
const REPLACE: usize = 3;
const MUTANT: usize = 4;
const TEXTS: [&str; 5] = ["id", "file", "find", "replace", "mutant"];

/// One row of a file, checked.
fn row_spec(file: &Path, index: usize, row: Value) -> Result<RowSpec, RowsError> {
    let error = |reason: String| RowsError::Row {
        file: file.to_owned(),
        index,
        reason,
    };
    let raw = RawRow::deserialize(row).map_err(|e| error(e.to_string()))?;
    let id = raw.id.ok_or_else(|| error(must_be_a_string(TEXTS[ID])))?;
    let spelled = raw.file.is_some() || raw.find.is_some() || raw.replace.is_some();
    let form = match raw.mutant {
        Some(mutant) if spelled => {
            return Err(RowsError::BothForms {
                file: file.to_owned(),
                id,
                mutant,
            });
        }
        Some(mutant) => Form::Named(mutant),
        None if !spelled => {
            return Err(RowsError::NoChange {
                file: file.to_owned(),
                id,
            });
        }
        None => Form::Inline(change(raw.file, raw.find, raw.replace).map_err(error)?),
    };
    Ok(RowSpec {
        id,
        form,
        caught_by: raw.caught_by,
        retired: raw.retired,
    })
}

/// A change from its three members, or why they make none.
fn change(
    file: Option<String>,
    find: Option<String>,
    replace: Option<String>,
) -> Result<Change, String> {
    let required =
        |member: Option<String>, name: usize| member.ok_or_else(|| must_be_a_string(TEXTS[name]));
    let change = Change {
        file: required(file, FILE)?,
        find: required(find, FIND)?,
        replace: required(replace, REPLACE)?,
    };
    if change.find.is_empty() {
        return Err("\"find\" must not be empty".to_owned());
    }
    if !super::rows::inside_the_workspace(&change.file) {
        return Err(format!(
            "\"file\" {:?} must be a workspace-relative path without `..` (a row never touches anything outside the workspace)",
            change.file
        ));
    }
    Ok(change)
}

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

/// A name that `"mutants"` declares twice in the text (a JSON object would keep only the last).
fn repeated_name(text: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Top {
        #[serde(default)]
        mutants: Option<Names>,
    }
    let names = serde_json::from_str::<Top>(text).ok()?.mutants?.0;
    let mut seen = std::collections::BTreeSet::new();
    names.into_iter().find(|name| !seen.insert(name.clone()))
}

/// The member names of an object, repeated ones included, in text order.
struct Names(Vec<String>);

impl<'de> Deserialize<'de> for Names {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Names, D::Error> {
        struct Keys;
        impl<'de> Visitor<'de> for Keys {
            type Value = Names;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Names, A::Error> {
                let mut names = Vec::new();
                while let Some(name) = map.next_key::<String>()? {
                    map.next_value::<IgnoredAny>()?;
                    names.push(name);
                }
                Ok(Names(names))
            }
        }
        deserializer.deserialize_map(Keys)
    }
}
