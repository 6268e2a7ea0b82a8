//! Folders of a scratch directory by path (off Unix, where there is no `openat`): each name is
//! looked at without following a link, then used by its path. This is the behaviour the runner
//! always had there; it leaves a gap between the look and the use that the Unix side
//! (`folder.rs`, by descriptor) does not have. Same interface as `folder.rs`.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// Why a name could not be opened as what it was to be.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// It is a symbolic link.
    Link,
    /// It is not a folder (a folder was to be there).
    NotFolder,
    /// It is not a regular file (a file was to be written there).
    NotFile,
    /// Nothing has the name.
    Missing,
    /// Another error of the file system.
    Io(io::Error),
}

/// What a name is, seen without following a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A regular file.
    File,
    /// A folder.
    Folder,
    /// A symbolic link.
    Link,
    /// A fifo, socket or device.
    Special,
}

/// A folder, by its path.
#[derive(Debug)]
pub(crate) struct Folder(PathBuf);

impl Folder {
    /// The scratch directory itself.
    pub(crate) fn root(path: &Path) -> io::Result<Folder> {
        match std::fs::symlink_metadata(path)?.is_dir() {
            true => Ok(Folder(path.to_owned())),
            false => Err(io::Error::other(format!(
                "{} is not a folder",
                path.display()
            ))),
        }
    }

    /// The folder `name` in this one, a link refused; with `create`, made first when absent.
    pub(crate) fn folder(&self, name: &OsStr, create: bool) -> Result<Folder, Refusal> {
        let path = self.0.join(name);
        match self.kind(name).map_err(Refusal::Io)? {
            Some(Kind::Folder) => Ok(Folder(path)),
            Some(Kind::Link) => Err(Refusal::Link),
            Some(Kind::File | Kind::Special) => Err(Refusal::NotFolder),
            None if create => match std::fs::create_dir(&path) {
                Ok(()) => Ok(Folder(path)),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => self.folder(name, false),
                Err(e) => Err(Refusal::Io(e)),
            },
            None => Err(Refusal::Missing),
        }
    }

    /// What `name` is, without following a link; `None` when nothing has the name.
    pub(crate) fn kind(&self, name: &OsStr) -> io::Result<Option<Kind>> {
        let metadata = match std::fs::symlink_metadata(self.0.join(name)) {
            Ok(metadata) => metadata,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let kind = metadata.file_type();
        Ok(Some(if kind.is_symlink() {
            Kind::Link
        } else if kind.is_dir() {
            Kind::Folder
        } else if kind.is_file() {
            Kind::File
        } else {
            Kind::Special
        }))
    }

    /// The regular file `name` opened for writing, created when absent, not yet truncated; a
    /// link refused.
    pub(crate) fn file_to_write(&self, name: &OsStr) -> Result<File, Refusal> {
        match self.kind(name).map_err(Refusal::Io)? {
            Some(Kind::Link) => return Err(Refusal::Link),
            Some(Kind::Folder | Kind::Special) => return Err(Refusal::NotFile),
            Some(Kind::File) | None => {}
        }
        File::options()
            .write(true)
            .create(true)
            .truncate(false)
            .open(self.0.join(name))
            .map_err(Refusal::Io)
    }

    /// The regular file `name` opened for reading; `None` when it is no longer a regular file.
    pub(crate) fn file_to_read(&self, name: &OsStr) -> io::Result<Option<File>> {
        match self.kind(name)? {
            Some(Kind::File) => {}
            Some(Kind::Folder | Kind::Link | Kind::Special) | None => return Ok(None),
        }
        let file = File::open(self.0.join(name))?;
        Ok(file.metadata()?.is_file().then_some(file))
    }

    /// The target of the link `name`, as text.
    pub(crate) fn link_target(&self, name: &OsStr) -> io::Result<String> {
        Ok(std::fs::read_link(self.0.join(name))?
            .to_string_lossy()
            .into_owned())
    }

    /// The names in this folder, in the order the file system gives them.
    pub(crate) fn names(&self) -> io::Result<Vec<OsString>> {
        std::fs::read_dir(&self.0)?
            .map(|entry| entry.map(|e| e.file_name()))
            .collect()
    }

    /// Removes the file, link or special file `name`.
    pub(crate) fn remove_file(&self, name: &OsStr) -> io::Result<()> {
        std::fs::remove_file(self.0.join(name))
    }

    /// Removes the folder `name` and everything in it (`std::fs::remove_dir_all` does not follow
    /// links inside it).
    pub(crate) fn remove_folder(&self, name: &OsStr) -> Result<(), Refusal> {
        std::fs::remove_dir_all(self.0.join(name)).map_err(Refusal::Io)
    }
}
