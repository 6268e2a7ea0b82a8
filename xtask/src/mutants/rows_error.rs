//! Why the row files cannot be loaded: one variant per mistake, each message naming the file, the
//! row or mutant, and the fix.

use std::fmt;
use std::path::PathBuf;

use super::workspace::SHARED_MUTANTS;

/// Why the rows cannot be loaded.
#[derive(Debug)]
pub enum RowsError {
    /// A file cannot be read, is not JSON, or is not shaped as a row file.
    Read { file: PathBuf, reason: String },
    /// A row is malformed (a member of the wrong type, a bad `file`).
    Row {
        file: PathBuf,
        index: usize,
        reason: String,
    },
    /// A declared mutant is malformed.
    Mutant {
        file: PathBuf,
        mutant: String,
        reason: String,
    },
    /// A row names a mutant and also spells out a change of its own.
    BothForms {
        file: PathBuf,
        id: String,
        mutant: String,
    },
    /// A row neither names a mutant nor spells out a change.
    NoChange { file: PathBuf, id: String },
    /// A row names a mutant no row file declares.
    UnknownMutant {
        file: PathBuf,
        id: String,
        mutant: String,
    },
    /// A declared mutant no row names.
    UnusedMutant { file: PathBuf, mutant: String },
    /// Two declarations share a name.
    DuplicateMutant {
        mutant: String,
        first: PathBuf,
        second: PathBuf,
    },
    /// Two declared mutants make the same change.
    SameChange {
        mutant: String,
        file: PathBuf,
        earlier: String,
        earlier_file: PathBuf,
    },
    /// A row spells out the change of a declared mutant instead of naming it.
    SpelledOut {
        file: PathBuf,
        id: String,
        mutant: String,
        declared_in: PathBuf,
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
            RowsError::Mutant {
                file,
                mutant,
                reason,
            } => write!(f, "{}: mutant {mutant:?}: {reason}", file.display()),
            RowsError::BothForms { file, id, mutant } => write!(
                f,
                "{}: row {id:?} names the mutant {mutant:?} and also has \"file\", \"find\" or \"replace\"; a row names a mutant or spells out its change, not both: drop the one or the other",
                file.display()
            ),
            RowsError::NoChange { file, id } => write!(
                f,
                "{}: row {id:?} makes no change: name a declared mutant (\"mutant\": \"<name>\") or give \"file\", \"find\" and \"replace\"",
                file.display()
            ),
            RowsError::UnknownMutant { file, id, mutant } => write!(
                f,
                "{}: row {id:?} names the mutant {mutant:?}, which no row file declares; declare it under \"mutants\" (the project's are in {SHARED_MUTANTS}) or correct the name",
                file.display()
            ),
            RowsError::UnusedMutant { file, mutant } => write!(
                f,
                "{}: the mutant {mutant:?} is declared but no row names it; remove it, or name it in a row (\"mutant\": {mutant:?})",
                file.display()
            ),
            RowsError::DuplicateMutant {
                mutant,
                first,
                second,
            } => write!(
                f,
                "{}: the mutant {mutant:?} is already declared in {}; mutant names are unique across all row files: rename one",
                second.display(),
                first.display()
            ),
            RowsError::SameChange {
                mutant,
                file,
                earlier,
                earlier_file,
            } => write!(
                f,
                "{}: the mutant {mutant:?} makes the same change (file, find and replace) as {earlier:?} in {}; a mutant is declared once: remove one and name the other in its rows",
                file.display(),
                earlier_file.display()
            ),
            RowsError::SpelledOut {
                file,
                id,
                mutant,
                declared_in,
            } => write!(
                f,
                "{}: row {id:?} spells out the change of the mutant {mutant:?} (declared in {}); name it instead: \"mutant\": {mutant:?}",
                file.display(),
                declared_in.display()
            ),
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
