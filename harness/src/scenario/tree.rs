//! Directory trees of scenarios: the expected form (`files`, `after`), writing it, reading a scratch
//! directory back without ever following a symbolic link, and the per-file differences of two trees.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

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
}

/// A directory's content: every file, every empty directory, every link, by key.
pub(crate) type Tree = BTreeMap<String, Entry>;

/// How far a `write` step moves a written file's modification time past its previous one and now.
pub(crate) const MTIME_STEP: Duration = Duration::from_secs(2);

/// Writes one entry under `root`: a file (creating its parent directories), an empty directory, or,
/// for `None`, deletes what the key names. Symbolic links on the way are refused, never followed.
/// With `move_mtime`, a written file's modification time ends [`MTIME_STEP`] past both its previous
/// one and now.
pub(crate) fn write_entry(
    root: &Path,
    key: &str,
    entry: Option<&Entry>,
    move_mtime: bool,
) -> io::Result<()> {
    let path = inside(root, key)?;
    let previous = std::fs::symlink_metadata(&path).ok();
    if previous
        .as_ref()
        .is_some_and(|m| m.file_type().is_symlink())
    {
        return Err(io::Error::other(format!(
            "{key} is a symbolic link; the runner never writes through one"
        )));
    }
    match entry {
        Some(Entry::File(bytes)) => {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&path, bytes)?;
            if move_mtime {
                let before = previous.and_then(|m| m.modified().ok());
                let now = SystemTime::now();
                let base = before.map_or(now, |b| b.max(now));
                std::fs::File::options()
                    .write(true)
                    .open(&path)?
                    .set_modified(base + MTIME_STEP)?;
            }
            Ok(())
        }
        Some(Entry::EmptyDir) => std::fs::create_dir_all(&path),
        Some(Entry::Symlink(_) | Entry::Special) => Err(io::Error::other(format!(
            "{key}: a scenario cannot create links or special files"
        ))),
        None => match previous {
            Some(m) if m.is_dir() => std::fs::remove_dir_all(&path),
            Some(_) => std::fs::remove_file(&path),
            None => Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("{key} does not exist, so it cannot be deleted"),
            )),
        },
    }
}

/// The path of `key` under `root`, refusing a symbolic link or a file among its parents.
fn inside(root: &Path, key: &str) -> io::Result<PathBuf> {
    let body = key.trim_end_matches('/');
    let mut path = root.to_owned();
    let segments: Vec<&str> = body.split('/').collect();
    for (i, segment) in segments.iter().enumerate() {
        path.push(segment);
        if i + 1 < segments.len() {
            match std::fs::symlink_metadata(&path) {
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(io::Error::other(format!(
                        "{} is a symbolic link; the runner never writes through one",
                        segments[..=i].join("/")
                    )));
                }
                Ok(_) | Err(_) => {}
            }
        }
    }
    Ok(path)
}

/// Everything under `root`, read without following symbolic links.
pub(crate) fn read_tree(root: &Path) -> io::Result<Tree> {
    let mut tree = Tree::new();
    for entry in walkdir::WalkDir::new(root).min_depth(1) {
        // Not following links, the walk meets no loop: its errors are the file system's.
        let entry = entry.map_err(|e| {
            let text = e.to_string();
            e.into_io_error().unwrap_or_else(|| io::Error::other(text))
        })?;
        let names: Vec<String> = entry
            .path()
            .strip_prefix(root)
            .unwrap_or(entry.path())
            .iter()
            .map(|name| name.to_string_lossy().into_owned())
            .collect();
        let key = names.join("/");
        // A directory stays an entry only while nothing was found in it.
        if let Some((_, parents)) = names.split_last().filter(|(_, p)| !p.is_empty()) {
            tree.remove(&format!("{}/", parents.join("/")));
        }
        // The walk does not follow links, so this is the entry's own type.
        let kind = entry.file_type();
        if kind.is_symlink() {
            let target = std::fs::read_link(entry.path())?;
            tree.insert(key, Entry::Symlink(target.to_string_lossy().into_owned()));
        } else if kind.is_dir() {
            tree.insert(format!("{key}/"), Entry::EmptyDir);
        } else if kind.is_file() {
            tree.insert(key, Entry::File(std::fs::read(entry.path())?));
        } else {
            tree.insert(key, Entry::Special);
        }
    }
    Ok(tree)
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
            (Some(e), Some(r)) if e == r => None,
            (Some(e), Some(r)) => Some(Change::Different(key.clone(), e.clone(), r.clone())),
            (Some(e), None) => Some(Change::Missing(key.clone(), e.clone())),
            (None, Some(r)) => Some(Change::Extra(key.clone(), r.clone())),
            (None, None) => None,
        })
        .collect()
}

/// One line on the differences: `a.txt different, b.txt missing, c.txt extra`.
pub(crate) fn summarize(changes: &[Change]) -> String {
    let shown: Vec<String> = changes
        .iter()
        .take(5)
        .map(|c| match c {
            Change::Missing(key, _) => format!("{key} missing"),
            Change::Extra(key, _) => format!("{key} extra"),
            Change::Different(key, _, _) => format!("{key} different"),
        })
        .collect();
    let more = changes.len().saturating_sub(shown.len());
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
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
                        similar_asserts::SimpleDiff::from_str(e, r, "expected", "received")
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
    }
}

fn text_of(entry: &Entry) -> Option<&str> {
    match entry {
        Entry::File(bytes) => std::str::from_utf8(bytes).ok(),
        Entry::EmptyDir | Entry::Symlink(_) | Entry::Special => None,
    }
}

/// An entry as scenario files and reports write it: a text, `{"base64": ...}` for bytes that are
/// not UTF-8, `null` for an empty directory, `{"symlink": target}`, `{"special": true}`.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Written {
    Text(String),
    Bytes { base64: String },
    EmptyDir,
    Symlink { symlink: String },
    Special { special: bool },
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
        })
    }
}
