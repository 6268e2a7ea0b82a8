//! Where a run's vector and scenario files come from: the built-in set (embedded at build time)
//! and the folders given with `--vectors`, each read as `*.json` files in sorted path order.

use std::path::{Path, PathBuf};

use crate::load::builtin;
use crate::load::error::LoadError;
use crate::load::files::{decode, json_files};

/// One set of vector and scenario files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// The files embedded in `conform` when it was built.
    Builtin,
    /// A folder, read from disk.
    Folder(PathBuf),
}

/// One file of a source, read.
#[derive(Clone, Debug)]
pub struct SuiteFile {
    /// How messages name it: the folder joined with its relative path, or
    /// `<built-in>/<relative path>`.
    pub file: PathBuf,
    /// Its path relative to its source, with `/` separators (`web_search/count.json`).
    pub source: String,
    /// Its text.
    pub text: String,
}

impl Source {
    /// How messages name the source: `built-in vectors (sha256:…)`, or the folder's path.
    pub fn name(&self) -> String {
        match self {
            Source::Builtin => format!("built-in vectors (sha256:{})", builtin::short_digest()),
            Source::Folder(dir) => dir.display().to_string(),
        }
    }

    /// Every `*.json` file, in sorted path order, read as UTF-8 text without a byte order mark;
    /// a folder without one, or with an entry that is no folder, regular file or link to one, is
    /// refused.
    pub fn files(&self) -> Result<Vec<SuiteFile>, LoadError> {
        match self {
            Source::Builtin => builtin::json()
                .map(|f| {
                    let file = builtin::display_path(f.path);
                    let text = decode(&file, f.bytes.to_vec())?;
                    Ok(SuiteFile {
                        file,
                        source: f.path.to_owned(),
                        text,
                    })
                })
                .collect(),
            Source::Folder(dir) => json_files(dir)?
                .into_iter()
                .map(|file| {
                    let bytes = std::fs::read(&file).map_err(|e| LoadError::Read {
                        file: file.clone(),
                        reason: e.to_string(),
                    })?;
                    let text = decode(&file, bytes)?;
                    Ok(SuiteFile {
                        source: relative(dir, &file),
                        file,
                        text,
                    })
                })
                .collect(),
        }
    }
}

/// `file`'s path below `dir`, with `/` separators.
fn relative(dir: &Path, file: &Path) -> String {
    file.strip_prefix(dir)
        .unwrap_or(file)
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// The sources of a run: the built-in set (unless `builtin` is false), then each folder in the
/// order given. A folder that holds exactly the built-in set's files (the workspace's own
/// `vectors/`, or an export) stands for the set, so the same vectors are not read twice.
pub fn sources(folders: &[PathBuf], builtin: bool) -> Vec<Source> {
    let folders: Vec<Source> = folders.iter().cloned().map(Source::Folder).collect();
    let held = |s: &Source| matches!(s, Source::Folder(dir) if builtin::is_held_by(dir));
    match builtin && !folders.iter().any(held) {
        true => [Source::Builtin].into_iter().chain(folders).collect(),
        false => folders,
    }
}
