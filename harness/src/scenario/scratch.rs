//! Scratch directories of scenarios: paths of exactly 40 characters, private (mode 0700),
//! registered so that an interrupt removes them, and removed when their guard drops.

use std::collections::BTreeSet;
use std::hash::{BuildHasher as _, Hasher as _};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// The length of every scenario directory's absolute path (interfaces.md §9.1).
pub const PATH_LEN: usize = 40;

/// The start of every scratch directory's name.
pub const PREFIX: &str = "vvoc-";

/// The fewest characters after [`PREFIX`] that keep names unique enough.
const MIN_UNIQUE: usize = 8;

/// The scratch directories that exist now.
static REGISTERED: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Where scratch directories go unless told otherwise: `/dev/shm` where it is a directory (a
/// memory file system: scenarios run about eight times faster there than on a disk), else `/tmp`.
pub fn default_parent() -> PathBuf {
    let shm = Path::new("/dev/shm");
    if std::fs::metadata(shm).is_ok_and(|m| m.is_dir() && !m.permissions().readonly()) {
        return shm.to_path_buf();
    }
    PathBuf::from("/tmp")
}

/// A scratch directory, removed with everything in it when dropped.
#[derive(Debug)]
pub struct Scratch {
    path: PathBuf,
    root: String,
}

impl Scratch {
    /// Creates a new, empty, private directory in `parent` whose absolute path is exactly
    /// [`PATH_LEN`] characters long.
    pub fn create(parent: &Path) -> io::Result<Scratch> {
        let parent = parent.canonicalize().map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("the scratch parent {}: {e}", parent.display()),
            )
        })?;
        let parent_text = parent.to_str().ok_or_else(|| {
            io::Error::other(format!(
                "the scratch parent {} is not valid UTF-8",
                parent.display()
            ))
        })?;
        let prefix = match parent_text.ends_with('/') {
            true => format!("{parent_text}{PREFIX}"),
            false => format!("{parent_text}/{PREFIX}"),
        };
        let Some(unique) = PATH_LEN
            .checked_sub(prefix.len())
            .filter(|n| *n >= MIN_UNIQUE)
        else {
            return Err(io::Error::other(format!(
                "the scratch parent {parent_text} is too long: a scenario directory's path is exactly {PATH_LEN} characters, so the parent may have at most {} characters",
                PATH_LEN - 1 - PREFIX.len() - MIN_UNIQUE
            )));
        };
        for _ in 0..100 {
            let path = format!("{prefix}{}", unique_part(unique));
            let mut builder = std::fs::DirBuilder::new();
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            // Registered first, so an interrupt between the two never leaves it behind.
            register(Path::new(&path));
            match builder.create(&path) {
                Ok(()) => {
                    return Ok(Scratch {
                        path: PathBuf::from(&path),
                        root: path,
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    unregister(Path::new(&path));
                }
                Err(e) => {
                    unregister(Path::new(&path));
                    return Err(io::Error::new(
                        e.kind(),
                        format!("cannot create the scratch directory {path}: {e}"),
                    ));
                }
            }
        }
        Err(io::Error::other(format!(
            "no free scratch directory name in {parent_text} after 100 attempts"
        )))
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The directory as the text that replaces `{root}`.
    pub fn root(&self) -> &str {
        &self.root
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        remove(&self.path);
        unregister(&self.path);
    }
}

/// Removes every scratch directory that exists now (on an interrupt).
pub(crate) fn remove_registered() {
    let paths: Vec<PathBuf> = REGISTERED
        .lock()
        .map(|r| r.iter().cloned().collect())
        .unwrap_or_default();
    for path in paths {
        remove(&path);
        unregister(&path);
    }
}

/// `len` characters: the process id and a counter in hexadecimal, then random hexadecimal digits.
fn unique_part(len: usize) -> String {
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(count);
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    let random = format!(
        "{:016x}{:016x}",
        hasher.finish(),
        hasher.finish().rotate_left(17)
    );
    let mut text = format!("{:x}-{count:x}-", std::process::id());
    text.push_str(&random);
    // Keep the end: the random digits matter more than the process id.
    text[text.len().saturating_sub(len)..].to_owned()
}

fn register(path: &Path) {
    if let Ok(mut registered) = REGISTERED.lock() {
        registered.insert(path.to_owned());
    }
}

fn unregister(path: &Path) {
    if let Ok(mut registered) = REGISTERED.lock() {
        registered.remove(path);
    }
}

/// Removes `path` and everything in it, never following links; a tree made read-only is made
/// writable first.
fn remove(path: &Path) {
    for _ in 0..3 {
        match std::fs::remove_dir_all(path) {
            Ok(()) => return,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return,
            Err(_) => make_writable(path),
        }
    }
}

/// Gives every directory under `path` its owner's permissions back. A walk by hand: a directory
/// must be made readable before its entries can be listed, and a walker opens it to list them
/// as it reaches it.
fn make_writable(path: &Path) {
    let Ok(metadata) = std::fs::symlink_metadata(path) else {
        return;
    };
    if !metadata.is_dir() {
        return;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700));
    }
    for entry in std::fs::read_dir(path).into_iter().flatten().flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            make_writable(&entry.path());
        }
    }
}
