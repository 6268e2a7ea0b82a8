//! File-system access of the editors, and the runtime's texts for its failures.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::js_string::JsString;

/// The path a tool's path string names: lone surrogates, which no file name can hold, become U+FFFD.
pub(super) fn os_path(path: &JsString) -> PathBuf {
    PathBuf::from(path.to_string_lossy())
}

/// The status of `path`, following symbolic links, when it can be read.
pub(super) fn status(path: &Path) -> Option<fs::Metadata> {
    fs::metadata(path).ok()
}

/// Whether `path` names an existing file that is not a directory (hashline_edit's "exists", §1.5).
pub(super) fn is_non_directory(path: &Path) -> bool {
    status(path).is_some_and(|m| !m.is_dir())
}

/// The runtime's message for a failed file operation: `<CODE>: <description>, <syscall> '<path>'`.
pub(crate) fn message(error: &io::Error, syscall: &str, path: &str) -> String {
    let (code, description) = code_of(error);
    format!("{code}: {description}, {syscall} '{path}'")
}

/// Writes `bytes` to `path`, replacing any old content (no directory is created).
pub(super) fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    fs::write(path, bytes)
}

/// Writes `bytes` to `path`, creating missing parent directories when the first open finds none.
///
/// Opening first, as upstream's runtime does, makes a path through a regular file fail with
/// ENOTDIR (creating its parents first would fail with EEXIST), and a path ending in `/` fail
/// with EISDIR after its missing parents were created.
pub(super) fn write_creating(path: &Path, bytes: &[u8]) -> io::Result<()> {
    match write(path, bytes) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            create_parents(path)?;
            write(path, bytes)
        }
        other => other,
    }
}

/// Creates the missing parent directories of `path`.
fn create_parents(path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => fs::create_dir_all(parent),
        Some(_) | None => Ok(()),
    }
}

/// The error code and libuv's description of an I/O error, as Node and Bun report them.
fn code_of(error: &io::Error) -> (&'static str, &'static str) {
    use io::ErrorKind as K;
    match error.kind() {
        K::NotFound => ("ENOENT", "no such file or directory"),
        K::NotADirectory => ("ENOTDIR", "not a directory"),
        K::IsADirectory => ("EISDIR", "illegal operation on a directory"),
        K::PermissionDenied => ("EACCES", "permission denied"),
        K::AlreadyExists => ("EEXIST", "file already exists"),
        K::InvalidFilename => ("ENAMETOOLONG", "name too long"),
        K::StorageFull => ("ENOSPC", "no space left on device"),
        K::ReadOnlyFilesystem => ("EROFS", "read-only file system"),
        K::DirectoryNotEmpty => ("ENOTEMPTY", "directory not empty"),
        K::ResourceBusy => ("EBUSY", "resource busy or locked"),
        _ => ("EIO", "i/o error"),
    }
}
