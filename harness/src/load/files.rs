//! The `*.json` files of a folder, in sorted path order.

use std::path::{Path, PathBuf};

use crate::load::error::LoadError;

/// Every `*.json` file under `dir`, recursively, in sorted path order; an empty folder is refused.
pub(crate) fn json_files(dir: &Path) -> Result<Vec<PathBuf>, LoadError> {
    let folder_error = |reason: String| LoadError::Folder {
        dir: dir.to_owned(),
        reason,
    };
    if !dir.is_dir() {
        return Err(folder_error("no such folder".to_owned()));
    }
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| folder_error(e.to_string()))?;
        if entry.file_type().is_file() && entry.path().extension().is_some_and(|e| e == "json") {
            files.push(entry.into_path());
        }
    }
    if files.is_empty() {
        return Err(LoadError::EmptyFolder {
            dir: dir.to_owned(),
        });
    }
    Ok(files)
}
