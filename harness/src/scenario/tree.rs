//! Directory trees of scenarios: the expected form (`files`, `after`), writing it, reading a scratch
//! directory back without ever following a symbolic link, and the per-file differences of two trees.
//!
//! On Unix every write, creation, removal and read goes through descriptors opened name by name
//! with `O_NOFOLLOW` (`folder.rs`): a folder an implementation swaps for a link at any moment is
//! met as a link, never written or read through. Off Unix the same steps go by path
//! (`folder_by_path.rs`), a link refused where it is seen.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fmt::{self, Write as _};
use std::fs::File;
use std::io::{self, Read as _, Write as _};
use std::path::Path;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[cfg_attr(not(unix), path = "tree/folder_by_path.rs")]
mod folder;

use folder::{Folder, Kind, Refusal};

use crate::json::ser::Embedded;
use crate::scenario::json_content::JsonContent;

/// One entry of a tree, by its key (`a/b.txt`, or `empty/` for an empty directory).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// A regular file and its bytes.
    File(Vec<u8>),
    /// An empty directory (its key ends with `/`).
    EmptyDir,
    /// A symbolic link and its target (only ever read back, never expected).
    Symlink(String),
    /// A fifo, socket or device (only ever read back, never expected).
    Special,
    /// A regular file of more than [`MAX_FILE_BYTES`], not read: its size in bytes (only ever
    /// read back, never expected).
    TooLarge(u64),
    /// A file holding a JSON value (`{"json": VALUE}`, workflow scenarios only): written as
    /// `JSON.stringify(VALUE, null, 2)`, equal to a file whose text is the same value, member
    /// order aside (only ever expected, never read back).
    Json(JsonContent),
}

/// A directory's content: every file, every empty directory, every link, by key.
pub(crate) type Tree = BTreeMap<String, Entry>;

/// How far a `write` step moves a written file's modification time past its previous one and now.
pub(crate) const MTIME_STEP: Duration = Duration::from_secs(2);

/// The most bytes of one file that the runner reads back from a scenario's directory: 16 MiB.
/// A larger file is not read at all (its size is looked up first, and no more than this and one
/// byte are ever read), and it differs from whatever was expected as [`Entry::TooLarge`], its
/// size in the description. Expected files come from scenario files, so they are far smaller;
/// the limit only keeps a run's memory bounded when an implementation leaves a huge file behind.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Why the runner could not write an entry of a scenario's directory, or read the directory back.
#[derive(Debug)]
pub enum TreeError {
    /// `at`, the key or a folder on its way, is a symbolic link, which the runner never follows.
    Link {
        /// The key being written.
        key: String,
        /// The link: the key, or the folder on its way.
        at: String,
    },
    /// `at`, a folder on the way to `key`, is a file or something else that is no folder.
    NotFolder {
        /// The key being written.
        key: String,
        /// What is no folder.
        at: String,
    },
    /// Where the file `key` is to be written there is a folder, fifo, socket or device.
    NotFile {
        /// The key.
        key: String,
    },
    /// The key of a deletion does not exist.
    NotFound {
        /// The key.
        key: String,
    },
    /// A link, special file or too-large entry: only ever read back, never created.
    Uncreatable {
        /// The key.
        key: String,
    },
    /// The file system refused: doing what, to what, and its error.
    Io {
        /// What the runner was doing (`write`, `read`, `open the folder`).
        doing: &'static str,
        /// A key, or the scenario's directory.
        at: String,
        /// The file system's error.
        error: io::Error,
    },
}

/// What an implementation under test must do so that the runner can go on.
const LEAVE_AS_THEY_ARE: &str = "the implementation under test must leave the scenario's folders and files as folders and files";

impl fmt::Display for TreeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TreeError::Link { key, at } if key.trim_end_matches('/') == at => write!(
                f,
                "{at} is a symbolic link; the runner never writes through one ({LEAVE_AS_THEY_ARE})"
            ),
            TreeError::Link { key, at } => write!(
                f,
                "{at}, a folder on the way to {key}, is a symbolic link; the runner never writes through one ({LEAVE_AS_THEY_ARE})"
            ),
            TreeError::NotFolder { key, at } => write!(
                f,
                "{at}, a folder on the way to {key}, is not a folder ({LEAVE_AS_THEY_ARE})"
            ),
            TreeError::NotFile { key } => write!(
                f,
                "{key} is a folder, fifo, socket or device, not a regular file, so the runner does not write it ({LEAVE_AS_THEY_ARE})"
            ),
            TreeError::NotFound { key } => {
                write!(f, "{key} does not exist, so it cannot be deleted")
            }
            TreeError::Uncreatable { key } => write!(
                f,
                "{key}: a scenario cannot create links, special files or too-large files (they are only ever read back)"
            ),
            TreeError::Io { doing, at, error } => write!(f, "cannot {doing} {at}: {error}"),
        }
    }
}

impl std::error::Error for TreeError {}

/// Writes one entry under `root`: a file (creating its parent directories), an empty directory, or,
/// for `None`, deletes what the key names. Every name on the way is opened without following a
/// symbolic link (a link is refused, never followed, whenever it appeared). With `move_mtime`, a
/// written file's modification time ends [`MTIME_STEP`] past both its previous one and now.
pub fn write_entry(
    root: &Path,
    key: &str,
    entry: Option<&Entry>,
    move_mtime: bool,
) -> Result<(), TreeError> {
    let create = match entry {
        Some(Entry::File(_) | Entry::EmptyDir | Entry::Json(_)) => true,
        None => false,
        Some(Entry::Symlink(_) | Entry::Special | Entry::TooLarge(_)) => {
            return Err(TreeError::Uncreatable {
                key: key.to_owned(),
            });
        }
    };
    let segments: Vec<&str> = key.trim_end_matches('/').split('/').collect();
    let (last, parents) = segments.split_last().unwrap_or((&"", &[]));
    let mut folder = open_root(root)?;
    let doing = match create {
        true => "write",
        false => "delete",
    };
    for (i, name) in parents.iter().enumerate() {
        folder = folder
            .folder(OsStr::new(name), create)
            .map_err(|r| refused(key, segments[..=i].join("/"), r, doing))?;
    }
    let last = OsStr::new(last);
    let body = key.trim_end_matches('/').to_owned();
    let json_text;
    let written = match entry {
        Some(Entry::File(bytes)) => Some(bytes.as_slice()),
        Some(Entry::Json(content)) => {
            json_text = content.bytes();
            Some(json_text.as_slice())
        }
        Some(Entry::EmptyDir | Entry::Symlink(_) | Entry::Special | Entry::TooLarge(_)) | None => {
            None
        }
    };
    match (entry, written) {
        (_, Some(bytes)) => {
            let mut file = folder
                .file_to_write(last)
                .map_err(|r| refused(key, body, r, doing))?;
            write_file(&mut file, bytes, move_mtime).map_err(|error| TreeError::Io {
                doing: "write",
                at: key.to_owned(),
                error,
            })
        }
        (Some(Entry::EmptyDir), None) => folder
            .folder(last, true)
            .map(drop)
            .map_err(|r| refused(key, body, r, doing)),
        (None, None) => delete(&folder, last, key),
        (
            Some(
                Entry::File(_)
                | Entry::Json(_)
                | Entry::Symlink(_)
                | Entry::Special
                | Entry::TooLarge(_),
            ),
            None,
        ) => Err(TreeError::Uncreatable {
            key: key.to_owned(),
        }),
    }
}

/// The scratch directory, opened.
fn open_root(root: &Path) -> Result<Folder, TreeError> {
    Folder::root(root).map_err(|error| TreeError::Io {
        doing: "open the scenario's directory",
        at: root.display().to_string(),
        error,
    })
}

/// The error of a refusal at `at` on the way to (or at) `key`.
fn refused(key: &str, at: String, refusal: Refusal, doing: &'static str) -> TreeError {
    let key = key.to_owned();
    match refusal {
        Refusal::Link => TreeError::Link { key, at },
        Refusal::NotFolder => TreeError::NotFolder { key, at },
        Refusal::NotFile => TreeError::NotFile { key },
        Refusal::Missing if doing == "delete" => TreeError::NotFound { key },
        Refusal::Missing => TreeError::Io {
            doing,
            at: key,
            error: io::Error::new(
                io::ErrorKind::NotFound,
                format!("{at} disappeared while it was being written"),
            ),
        },
        Refusal::Io(error) => TreeError::Io { doing, at, error },
    }
}

/// `bytes` as the whole content of `file`; with `move_mtime`, its modification time moved
/// [`MTIME_STEP`] past both its previous one and now (set through the same descriptor).
fn write_file(file: &mut File, bytes: &[u8], move_mtime: bool) -> io::Result<()> {
    // A file just created has now as its time, so the previous time is never later than now.
    let before = file.metadata()?.modified().ok();
    file.set_len(0)?;
    file.write_all(bytes)?;
    if move_mtime {
        let now = SystemTime::now();
        let base = before.map_or(now, |b| b.max(now));
        file.set_modified(base + MTIME_STEP)?;
    }
    Ok(())
}

/// Deletes what `name` is in `folder`: a file, or a folder with everything in it; a link is
/// refused (and never followed).
fn delete(folder: &Folder, name: &OsStr, key: &str) -> Result<(), TreeError> {
    let body = key.trim_end_matches('/').to_owned();
    let failed = |error| TreeError::Io {
        doing: "delete",
        at: key.to_owned(),
        error,
    };
    match folder.kind(name).map_err(failed)? {
        None => Err(TreeError::NotFound {
            key: key.to_owned(),
        }),
        Some(Kind::Link) => Err(TreeError::Link {
            key: key.to_owned(),
            at: body,
        }),
        Some(Kind::Folder) => folder
            .remove_folder(name)
            .map_err(|r| refused(key, body, r, "delete")),
        Some(Kind::File | Kind::Special) => folder.remove_file(name).map_err(failed),
    }
}

/// Everything under `root`, read without following symbolic links: each folder opened name by
/// name from `root` (so a walk holds as many descriptors as the tree is deep, however wide it
/// is), each file read to at most [`MAX_FILE_BYTES`].
pub fn read_tree(root: &Path) -> Result<Tree, TreeError> {
    let top = open_root(root)?;
    let mut tree = Tree::new();
    // The folders still to read, by their names from the root.
    let mut pending: Vec<Vec<OsString>> = vec![Vec::new()];
    'folders: while let Some(names) = pending.pop() {
        let key = key_of(&names);
        let mut opened: Option<Folder> = None;
        for name in &names {
            match opened.as_ref().unwrap_or(&top).folder(name, false) {
                Ok(inner) => opened = Some(inner),
                // Gone or replaced since it was listed: what is there now was read, or will be.
                Err(Refusal::Missing | Refusal::Link | Refusal::NotFolder | Refusal::NotFile) => {
                    continue 'folders;
                }
                Err(Refusal::Io(error)) => {
                    return Err(TreeError::Io {
                        doing: "open the folder",
                        at: key,
                        error,
                    });
                }
            }
        }
        let folder = opened.as_ref().unwrap_or(&top);
        let listed = folder.names().map_err(|error| TreeError::Io {
            doing: "list the folder",
            at: key.clone(),
            error,
        })?;
        if listed.is_empty() && !names.is_empty() {
            tree.insert(format!("{key}/"), Entry::EmptyDir);
        }
        for name in listed {
            let mut inner = names.clone();
            let found = read_entry(folder, &name);
            inner.push(name);
            let key = key_of(&inner);
            match found {
                Ok(Some(Found::Folder)) => pending.push(inner),
                Ok(Some(Found::Entry(entry))) => {
                    tree.insert(key, entry);
                }
                Ok(None) => {}
                Err(error) => {
                    return Err(TreeError::Io {
                        doing: "read",
                        at: key,
                        error,
                    });
                }
            }
        }
    }
    Ok(tree)
}

/// What reading one name gave.
enum Found {
    /// A folder, to be read in turn.
    Folder,
    /// A file, link or special file.
    Entry(Entry),
}

/// The key of a name path: its names, lossily as text, joined with `/`.
fn key_of(names: &[OsString]) -> String {
    let names: Vec<String> = names
        .iter()
        .map(|n| n.to_string_lossy().into_owned())
        .collect();
    names.join("/")
}

/// What `name` in `folder` is, read without following a link; `None` when it is gone.
fn read_entry(folder: &Folder, name: &OsStr) -> io::Result<Option<Found>> {
    Ok(Some(match folder.kind(name)? {
        None => return Ok(None),
        Some(Kind::Folder) => Found::Folder,
        Some(Kind::Link) => Found::Entry(Entry::Symlink(folder.link_target(name)?)),
        Some(Kind::Special) => Found::Entry(Entry::Special),
        Some(Kind::File) => match folder.file_to_read(name)? {
            Some(file) => Found::Entry(read_capped(file)?),
            // Replaced since it was looked at: read it as it is now.
            None => match folder.kind(name)? {
                Some(Kind::Link) => Found::Entry(Entry::Symlink(folder.link_target(name)?)),
                Some(Kind::Folder) => Found::Folder,
                Some(Kind::File | Kind::Special) => Found::Entry(Entry::Special),
                None => return Ok(None),
            },
        },
    }))
}

/// The bytes of `file`, or [`Entry::TooLarge`] when it has more than [`MAX_FILE_BYTES`]: its size
/// is looked up first, and at most one byte past the limit is ever read (it may grow meanwhile).
fn read_capped(file: File) -> io::Result<Entry> {
    let size = file.metadata()?.len();
    if size > MAX_FILE_BYTES {
        return Ok(Entry::TooLarge(size));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    let mut limited = (&file).take(MAX_FILE_BYTES + 1);
    limited.read_to_end(&mut bytes)?;
    let read = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if read > MAX_FILE_BYTES {
        return Ok(Entry::TooLarge(file.metadata()?.len().max(read)));
    }
    Ok(Entry::File(bytes))
}

/// How two trees differ at one key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Expected, but not there.
    Missing(String, Entry),
    /// There, but not expected.
    Extra(String, Entry),
    /// There with other content: the key, the expected and the received entry.
    Different(String, Entry, Entry),
}

/// Every key where `received` differs from `expected`, in key order.
pub fn differences(expected: &Tree, received: &Tree) -> Vec<Change> {
    let mut keys: Vec<&String> = expected.keys().chain(received.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter_map(|key| match (expected.get(key), received.get(key)) {
            (Some(e), Some(r)) if same_entry(e, r) => None,
            (Some(e), Some(r)) => Some(Change::Different(key.clone(), e.clone(), r.clone())),
            (Some(e), None) => Some(Change::Missing(key.clone(), e.clone())),
            (None, Some(r)) => Some(Change::Extra(key.clone(), r.clone())),
            (None, None) => None,
        })
        .collect()
}

/// Whether two entries are the same: equal, or a JSON content and a file holding its value.
fn same_entry(a: &Entry, b: &Entry) -> bool {
    match (a, b) {
        (Entry::Json(content), Entry::File(bytes)) | (Entry::File(bytes), Entry::Json(content)) => {
            content.matches_bytes(bytes)
        }
        _ => a == b,
    }
}

/// One line on the differences: `a.txt different, b.txt missing, c.txt extra`.
pub(crate) fn summarize(changes: &[Change]) -> String {
    let shown: Vec<String> = changes
        .iter()
        .take(5)
        .map(|c| match c {
            Change::Missing(key, _) => format!("{key} missing"),
            Change::Extra(key, r) => format!("{key} extra{}", too_large(r)),
            Change::Different(key, _, r) => format!("{key} different{}", too_large(r)),
        })
        .collect();
    let more = changes.len().saturating_sub(shown.len());
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// For a too-large file, its size and the limit, in parentheses; nothing for another entry.
fn too_large(entry: &Entry) -> String {
    match entry {
        Entry::TooLarge(size) => format!(
            " (too large to compare: {size} bytes, over the limit of {} MiB per file)",
            MAX_FILE_BYTES >> 20
        ),
        Entry::File(_) | Entry::EmptyDir | Entry::Symlink(_) | Entry::Special | Entry::Json(_) => {
            String::new()
        }
    }
}

/// The differences, one block per key, with a text diff for text files.
pub fn render(changes: &[Change]) -> String {
    let mut out = String::new();
    for change in changes {
        match change {
            Change::Missing(key, e) => {
                let _ = writeln!(out, "missing {key}: expected {}", show(e));
            }
            Change::Extra(key, r) => {
                let _ = writeln!(out, "extra {key}: {}", show(r));
            }
            Change::Different(key, e, r) => match (text_of(e), text_of(r)) {
                (Some(e), Some(r)) => {
                    let _ = writeln!(
                        out,
                        "different {key}:\n{}",
                        similar_asserts::SimpleDiff::from_str(&e, &r, "expected", "received")
                    );
                }
                _ => {
                    let _ = writeln!(
                        out,
                        "different {key}: expected {}, received {}",
                        show(e),
                        show(r)
                    );
                }
            },
        }
    }
    out
}

/// The entry in a few words: a text file quoted (its start), bytes by size and base64.
pub fn show(entry: &Entry) -> String {
    match entry {
        Entry::File(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) if text.chars().count() <= 200 => format!("the text {text:?}"),
            Ok(text) => {
                let start: String = text.chars().take(200).collect();
                format!("a text of {} bytes starting {start:?}", bytes.len())
            }
            Err(_) if bytes.len() <= 96 => {
                format!(
                    "{} bytes, not UTF-8, base64 {}",
                    bytes.len(),
                    BASE64.encode(bytes)
                )
            }
            Err(_) => format!("{} bytes, not UTF-8", bytes.len()),
        },
        Entry::EmptyDir => "an empty directory".to_owned(),
        Entry::Symlink(target) => format!("a symbolic link to {target:?} (never followed)"),
        Entry::Special => "a special file (fifo, socket or device)".to_owned(),
        Entry::TooLarge(size) => format!(
            "a file of {size} bytes, too large to compare (over the limit of {} MiB per file; not read)",
            MAX_FILE_BYTES >> 20
        ),
        Entry::Json(content) => {
            let text = content.0.to_compact();
            let start: String = text.chars().take(200).collect();
            match start.len() < text.len() {
                true => format!("the JSON value {start}…"),
                false => format!("the JSON value {text}"),
            }
        }
    }
}

/// The text a diff shows for an entry: a text file's, a JSON content's as it is written.
fn text_of(entry: &Entry) -> Option<std::borrow::Cow<'_, str>> {
    match entry {
        Entry::File(bytes) => std::str::from_utf8(bytes).ok().map(Into::into),
        Entry::Json(content) => Some(crate::scenario::json_content::stringify2(&content.0).into()),
        Entry::EmptyDir | Entry::Symlink(_) | Entry::Special | Entry::TooLarge(_) => None,
    }
}

/// An entry as scenario files and reports write it: a text, `{"base64": ...}` for bytes that are
/// not UTF-8, `null` for an empty directory, `{"symlink": target}`, `{"special": true}`,
/// `{"too_large": size}`, `{"json": VALUE}`.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Written {
    Text(String),
    Bytes { base64: String },
    EmptyDir,
    Symlink { symlink: String },
    Special { special: bool },
    TooLarge { too_large: u64 },
    Json { json: Embedded },
}

/// A tree serializes in the form of a scenario's `files`, with links and special files marked.
impl Serialize for Entry {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let written = match self {
            Entry::File(bytes) => match std::str::from_utf8(bytes) {
                Ok(text) => Written::Text(text.to_owned()),
                Err(_) => Written::Bytes {
                    base64: BASE64.encode(bytes),
                },
            },
            Entry::EmptyDir => Written::EmptyDir,
            Entry::Symlink(target) => Written::Symlink {
                symlink: target.clone(),
            },
            Entry::Special => Written::Special { special: true },
            Entry::TooLarge(size) => Written::TooLarge { too_large: *size },
            Entry::Json(content) => Written::Json {
                json: Embedded(content.0.clone()),
            },
        };
        written.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Entry, D::Error> {
        Ok(match Written::deserialize(deserializer)? {
            Written::Text(text) => Entry::File(text.into_bytes()),
            Written::Bytes { base64 } => {
                Entry::File(BASE64.decode(base64).map_err(serde::de::Error::custom)?)
            }
            Written::EmptyDir => Entry::EmptyDir,
            Written::Symlink { symlink } => Entry::Symlink(symlink),
            Written::Special { .. } => Entry::Special,
            Written::TooLarge { too_large } => Entry::TooLarge(too_large),
            Written::Json { json } => Entry::Json(JsonContent(json.0)),
        })
    }
}
