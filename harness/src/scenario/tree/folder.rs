//! Folders of a scratch directory by descriptor (Unix): every name is opened relative to its
//! folder's descriptor with `O_NOFOLLOW`, so a symbolic link is met as a link whenever it was put
//! there, and never followed. There is no check-then-use gap: what is checked is the descriptor
//! that is then used. `rustix` gives `openat`, `mkdirat`, `unlinkat` and `statat` without unsafe
//! code and with owned descriptors (the `nix` of the workspace, 0.29, hands back raw ones).

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::unix::ffi::OsStrExt as _;
use std::path::Path;

use rustix::fd::OwnedFd;
use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags};
use rustix::io::Errno;

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

/// An open folder.
#[derive(Debug)]
pub(crate) struct Folder(OwnedFd);

/// A folder is opened read-only, as a directory, never through a link.
const FOLDER: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

/// A file is opened never through a link, and without waiting (a fifo put in its place must not
/// block the runner), never as the runner's terminal.
const FILE: OFlags = OFlags::NOFOLLOW
    .union(OFlags::NONBLOCK)
    .union(OFlags::NOCTTY)
    .union(OFlags::CLOEXEC);

impl Folder {
    /// The scratch directory itself (its own last component not followed either).
    pub(crate) fn root(path: &Path) -> io::Result<Folder> {
        Ok(Folder(rustix::fs::open(path, FOLDER, Mode::empty())?))
    }

    /// The folder `name` in this one, never through a link; with `create`, made first when absent.
    pub(crate) fn folder(&self, name: &OsStr, create: bool) -> Result<Folder, Refusal> {
        match rustix::fs::openat(&self.0, name, FOLDER, Mode::empty()) {
            Ok(fd) => return Ok(Folder(fd)),
            Err(e) if e == Errno::NOENT && create => {}
            Err(e) => return Err(self.refusal(name, e, Refusal::NotFolder)),
        }
        match rustix::fs::mkdirat(&self.0, name, Mode::from_raw_mode(0o777)) {
            Ok(()) => {}
            // Made meanwhile by someone else: opened below like any other.
            Err(e) if e == Errno::EXIST => {}
            Err(e) => return Err(Refusal::Io(e.into())),
        }
        rustix::fs::openat(&self.0, name, FOLDER, Mode::empty())
            .map(Folder)
            .map_err(|e| self.refusal(name, e, Refusal::NotFolder))
    }

    /// What `name` is, without following a link; `None` when nothing has the name.
    pub(crate) fn kind(&self, name: &OsStr) -> io::Result<Option<Kind>> {
        let stat = match rustix::fs::statat(&self.0, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => stat,
            Err(e) if e == Errno::NOENT => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let kind = FileType::from_raw_mode(stat.st_mode);
        Ok(Some(if kind == FileType::RegularFile {
            Kind::File
        } else if kind == FileType::Directory {
            Kind::Folder
        } else if kind == FileType::Symlink {
            Kind::Link
        } else {
            Kind::Special
        }))
    }

    /// The regular file `name` opened for writing, created (mode 0666 less the umask) when
    /// absent, not yet truncated; never through a link.
    pub(crate) fn file_to_write(&self, name: &OsStr) -> Result<File, Refusal> {
        let flags = FILE | OFlags::WRONLY | OFlags::CREATE;
        let file = rustix::fs::openat(&self.0, name, flags, Mode::from_raw_mode(0o666))
            .map(File::from)
            .map_err(|e| self.refusal(name, e, Refusal::NotFile))?;
        match file.metadata() {
            Ok(m) if m.is_file() => Ok(file),
            Ok(_) => Err(Refusal::NotFile),
            Err(e) => Err(Refusal::Io(e)),
        }
    }

    /// The regular file `name` opened for reading, never through a link; `None` when it is no
    /// longer a regular file.
    pub(crate) fn file_to_read(&self, name: &OsStr) -> io::Result<Option<File>> {
        let file = match rustix::fs::openat(&self.0, name, FILE | OFlags::RDONLY, Mode::empty()) {
            Ok(fd) => File::from(fd),
            Err(e) if e == Errno::LOOP || e == Errno::NOENT || e == Errno::NXIO => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        Ok(file.metadata()?.is_file().then_some(file))
    }

    /// The target of the link `name`, as text.
    pub(crate) fn link_target(&self, name: &OsStr) -> io::Result<String> {
        let target = rustix::fs::readlinkat(&self.0, name, Vec::new())?;
        Ok(target.to_string_lossy().into_owned())
    }

    /// The names in this folder (not `.` and `..`), in the order the file system gives them.
    pub(crate) fn names(&self) -> io::Result<Vec<OsString>> {
        let mut names = Vec::new();
        for entry in Dir::read_from(&self.0)? {
            let entry = entry?;
            let name = entry.file_name().to_bytes();
            if name != b"." && name != b".." {
                names.push(OsStr::from_bytes(name).to_owned());
            }
        }
        Ok(names)
    }

    /// Removes the file, link or special file `name` (a link itself, not what it names).
    pub(crate) fn remove_file(&self, name: &OsStr) -> io::Result<()> {
        Ok(rustix::fs::unlinkat(&self.0, name, AtFlags::empty())?)
    }

    /// Removes the folder `name` and everything in it, never following a link: each folder is
    /// emptied through its own descriptor, deepest first.
    pub(crate) fn remove_folder(&self, name: &OsStr) -> Result<(), Refusal> {
        /// A folder being emptied: it, its name in its parent, the names left to remove.
        struct Emptying(Folder, OsString, Vec<OsString>);
        let failed = Refusal::Io;
        let first = self.folder(name, false)?;
        let names = first.names().map_err(failed)?;
        let mut stack = vec![Emptying(first, name.to_owned(), names)];
        while let Some(Emptying(folder, _, left)) = stack.last_mut() {
            if let Some(child) = left.pop() {
                match folder.kind(&child).map_err(failed)? {
                    Some(Kind::Folder) => {
                        let inner = folder.folder(&child, false)?;
                        let names = inner.names().map_err(failed)?;
                        stack.push(Emptying(inner, child, names));
                    }
                    Some(Kind::File | Kind::Link | Kind::Special) => {
                        folder.remove_file(&child).map_err(failed)?;
                    }
                    None => {}
                }
                continue;
            }
            if let Some(Emptying(done, name, _)) = stack.pop() {
                drop(done);
                let parent = stack.last().map_or(self, |Emptying(f, _, _)| f);
                rustix::fs::unlinkat(&parent.0, &name, AtFlags::REMOVEDIR)
                    .map_err(|e| Refusal::Io(e.into()))?;
            }
        }
        Ok(())
    }

    /// What an error opening `name` means: a link is told apart by a look that does not follow
    /// it (the look only names the refusal; nothing was opened through the link).
    fn refusal(&self, name: &OsStr, error: Errno, otherwise: Refusal) -> Refusal {
        if error == Errno::NOENT {
            return Refusal::Missing;
        }
        if error == Errno::LOOP
            || error == Errno::NOTDIR
            || error == Errno::ISDIR
            || error == Errno::NXIO
        {
            return match self.kind(name) {
                Ok(Some(Kind::Link)) => Refusal::Link,
                Ok(Some(Kind::File | Kind::Folder | Kind::Special) | None) | Err(_) => otherwise,
            };
        }
        Refusal::Io(error.into())
    }
}
