//! The built-in vector set: the workspace's `vectors/` files, embedded at build time
//! (`harness/build.rs`), their digest, and writing them out (`conform vectors export`).

use std::fmt;
use std::path::{Path, PathBuf};

use crate::load::files::json_files;

/// One embedded file.
#[derive(Debug)]
pub struct BuiltinFile {
    /// Its path relative to the set's folder, with `/` separators (`web_search/count.json`).
    pub path: &'static str,
    /// Its bytes, exactly as in the folder.
    pub bytes: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/builtin_vectors.rs"));

/// How messages name the set's folder: its files are `<built-in>/<relative path>`.
pub const PREFIX: &str = "<built-in>";

/// How many hex digits of the digest `conform --version` shows.
pub const SHORT_DIGEST: usize = 12;

/// Every embedded file, vector and scenario files and the rest (notes), in the order the suite
/// reads them.
pub fn files() -> &'static [BuiltinFile] {
    FILES
}

/// The embedded `*.json` files (the ones the suite reads), in order.
pub fn json() -> impl Iterator<Item = &'static BuiltinFile> {
    FILES.iter().filter(|f| f.path.ends_with(".json"))
}

/// The set's digest, 64 hex digits (`digest::set_digest` of every embedded file).
pub fn digest() -> &'static str {
    DIGEST
}

/// The digest's first [`SHORT_DIGEST`] hex digits.
pub fn short_digest() -> &'static str {
    DIGEST.get(..SHORT_DIGEST).unwrap_or(DIGEST)
}

/// How messages name an embedded file: `<built-in>/web_search/count.json`.
pub(crate) fn display_path(relative: &str) -> PathBuf {
    PathBuf::from(PREFIX).join(relative)
}

/// Whether `dir` holds exactly the built-in set's `*.json` files: the same relative paths with
/// the same bytes (an export of the set, or the workspace's own `vectors/`).
pub(crate) fn is_held_by(dir: &Path) -> bool {
    let Ok(found) = json_files(dir) else {
        return false;
    };
    let mut expected = json();
    for file in &found {
        let Some(builtin) = expected.next() else {
            return false;
        };
        let same_path = file
            .strip_prefix(dir)
            .is_ok_and(|relative| relative == Path::new(builtin.path));
        if !same_path || std::fs::read(file).ok().as_deref() != Some(builtin.bytes) {
            return false;
        }
    }
    expected.next().is_none()
}

/// What an export did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Exported {
    /// Files written.
    pub written: usize,
    /// Files that were already there with the same bytes.
    pub unchanged: usize,
}

/// Why an export stopped.
#[derive(Debug)]
pub enum ExportError {
    /// A file is already there with other bytes (and `force` was not given).
    Differs(PathBuf),
    /// A file or folder cannot be written.
    Write { path: PathBuf, reason: String },
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::Differs(path) => write!(
                f,
                "{} already exists with other content; nothing was overwritten (--force overwrites)",
                path.display()
            ),
            ExportError::Write { path, reason } => {
                write!(f, "cannot write {}: {reason}", path.display())
            }
        }
    }
}

impl std::error::Error for ExportError {}

/// Writes every embedded file under `dir` at its relative path, byte for byte, creating folders.
/// A file already there with the same bytes is left alone; one with other bytes stops the export
/// before anything is written, unless `force`.
pub fn export(dir: &Path, force: bool) -> Result<Exported, ExportError> {
    let target = |file: &BuiltinFile| dir.join(file.path);
    if !force
        && let Some(file) = FILES.iter().find(|f| {
            std::fs::read(target(f)).is_ok_and(|bytes| bytes != f.bytes) || target(f).is_dir()
        })
    {
        return Err(ExportError::Differs(target(file)));
    }
    let mut done = Exported::default();
    for file in FILES {
        let path = target(file);
        if std::fs::read(&path).is_ok_and(|bytes| bytes == file.bytes) {
            done.unchanged += 1;
            continue;
        }
        let write_error = |path: &Path, error: std::io::Error| ExportError::Write {
            path: path.to_owned(),
            reason: error.to_string(),
        };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| write_error(parent, e))?;
        }
        std::fs::write(&path, file.bytes).map_err(|e| write_error(&path, e))?;
        done.written += 1;
    }
    Ok(done)
}
