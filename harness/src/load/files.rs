//! The `*.json` files of a folder, in sorted path order, and what a file's bytes must be to be
//! read as text.
//!
//! A folder holds folders, regular files and symbolic links to regular files (followed wherever
//! they point, and named by the link's path); anything else (a link to a folder, a dangling link,
//! a link loop, a FIFO, a socket, a device, a folder named `x.json`) is refused, whatever its
//! name, rather than skipped, so that no vector file is left out without a word.

use std::fs::{FileType, Metadata};
use std::io;
use std::path::{Path, PathBuf};

use crate::load::error::{EntryProblem, LoadError, NotRegular, SpecialFile, TextProblem};

/// Every `*.json` file under `dir`, recursively, in sorted path order; an empty folder, or one
/// holding an entry that is not a folder, a regular file or a link to one, is refused.
pub(crate) fn json_files(dir: &Path) -> Result<Vec<PathBuf>, LoadError> {
    let folder_error = |reason: String| LoadError::Folder {
        dir: dir.to_owned(),
        reason,
    };
    if !dir.is_dir() {
        return Err(folder_error("no such folder".to_owned()));
    }
    let mut files = Vec::new();
    // Links below the folder are not followed by the walk: each is looked at on its own.
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| folder_error(e.to_string()))?;
        let named_json = entry.path().extension().is_some_and(|e| e == "json");
        let file_type = entry.file_type();
        let problem = if file_type.is_dir() {
            (named_json && entry.depth() > 0).then_some(EntryProblem::FolderNamedJson)
        } else if file_type.is_file() {
            None
        } else if file_type.is_symlink() {
            link_problem(entry.path())?
        } else {
            Some(EntryProblem::Special {
                kind: special(file_type),
                through_link: false,
            })
        };
        if let Some(problem) = problem {
            return Err(LoadError::Entry {
                path: entry.into_path(),
                problem,
            });
        }
        if named_json && !file_type.is_dir() {
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

/// What is wrong with the symbolic link `link`, followed to its end: nothing when it leads to a
/// regular file.
fn link_problem(link: &Path) -> Result<Option<EntryProblem>, LoadError> {
    match std::fs::metadata(link) {
        Ok(metadata) => Ok(match not_regular(&metadata) {
            None => None,
            Some(NotRegular::Folder) => Some(EntryProblem::LinkToFolder),
            Some(NotRegular::Special(kind)) => Some(EntryProblem::Special {
                kind,
                through_link: true,
            }),
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Some(EntryProblem::DanglingLink {
            target: std::fs::read_link(link).unwrap_or_default(),
        })),
        Err(e) if e.raw_os_error() == Some(nix::errno::Errno::ELOOP as i32) => {
            Ok(Some(EntryProblem::LinkLoop))
        }
        Err(e) => Err(LoadError::Read {
            file: link.to_owned(),
            reason: format!("cannot follow the symbolic link: {e}"),
        }),
    }
}

/// What a file is when it is not a regular file (links already followed): a folder or a special
/// file.
pub fn not_regular(metadata: &Metadata) -> Option<NotRegular> {
    let file_type = metadata.file_type();
    if file_type.is_file() {
        None
    } else if file_type.is_dir() {
        Some(NotRegular::Folder)
    } else {
        Some(NotRegular::Special(special(file_type)))
    }
}

/// Which special file a file type that is no regular file, folder or link names.
fn special(file_type: FileType) -> SpecialFile {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if file_type.is_fifo() {
            return SpecialFile::Fifo;
        }
        if file_type.is_socket() {
            return SpecialFile::Socket;
        }
        if file_type.is_block_device() {
            return SpecialFile::BlockDevice;
        }
        if file_type.is_char_device() {
            return SpecialFile::CharDevice;
        }
    }
    let _ = file_type;
    SpecialFile::Other
}

/// A file's bytes as text: UTF-8, without a byte order mark.
pub fn text(bytes: Vec<u8>) -> Result<String, TextProblem> {
    let text = String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let line = 1 + e.as_bytes()[..offset]
            .iter()
            .filter(|b| **b == b'\n')
            .count();
        TextProblem::NotUtf8 { offset, line }
    })?;
    match text.starts_with('\u{feff}') {
        true => Err(TextProblem::ByteOrderMark),
        false => Ok(text),
    }
}

/// The text of the suite file `file`, read from `bytes` ([`text`]).
pub(crate) fn decode(file: &Path, bytes: Vec<u8>) -> Result<String, LoadError> {
    text(bytes).map_err(|problem| LoadError::Text {
        file: file.to_owned(),
        problem,
    })
}
