//! Scratch copies of the workspace: each worker mutates its own copy, never the working tree,
//! and keeps its own target directory warm across rows and runs.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};

/// Folders of the workspace that are never copied.
const SKIPPED: [&str; 4] = ["target", ".git", "reports", ".notes"];

/// A worker's copy: `<base>/tree` holds the sources, `<base>/target` the build.
#[derive(Clone, Debug)]
pub struct Scratch {
    /// The copy of the workspace.
    pub tree: PathBuf,
    /// Its target directory.
    pub target: PathBuf,
}

impl Scratch {
    /// Brings the copy at `base` up to date with `root`: changed files are rewritten, files that
    /// are gone are removed, unchanged files keep their modification time (so builds stay warm).
    pub fn sync(root: &Path, base: &Path) -> Result<Scratch> {
        let tree = base.join("tree");
        let target = base.join("target");
        fs::create_dir_all(&tree).with_context(|| format!("cannot create {}", tree.display()))?;
        let mut wanted = BTreeSet::new();
        for relative in files(root, Path::new(""))? {
            let source = root.join(&relative);
            let copy = tree.join(&relative);
            let content =
                fs::read(&source).with_context(|| format!("cannot read {}", source.display()))?;
            if fs::read(&copy).ok().as_deref() != Some(content.as_slice()) {
                if let Some(parent) = copy.parent() {
                    fs::create_dir_all(parent)
                        .with_context(|| format!("cannot create {}", parent.display()))?;
                }
                fs::write(&copy, &content)
                    .with_context(|| format!("cannot write {}", copy.display()))?;
            }
            wanted.insert(relative);
        }
        for relative in files(&tree, Path::new(""))? {
            if !wanted.contains(&relative) {
                fs::remove_file(tree.join(&relative))
                    .with_context(|| format!("cannot remove {}", relative.display()))?;
            }
        }
        Ok(Scratch { tree, target })
    }

    /// Replaces the text of a file of the copy.
    pub fn write(&self, file: &str, text: &str) -> Result<()> {
        let path = self.tree.join(file);
        fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
    }

    /// The text of a file of the copy.
    pub fn read(&self, file: &str) -> Result<String> {
        let path = self.tree.join(file);
        fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))
    }
}

/// Every file under `dir` (relative to the workspace root), skipping build and VCS folders.
fn files(root: &Path, relative: &Path) -> Result<Vec<PathBuf>> {
    let dir = root.join(relative);
    let mut found = Vec::new();
    let mut entries: Vec<_> = fs::read_dir(&dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .flatten()
        .collect();
    entries.sort_by_key(fs::DirEntry::file_name);
    for entry in entries {
        let name = entry.file_name();
        let path = relative.join(&name);
        let file_type = entry
            .file_type()
            .with_context(|| format!("cannot stat {}", path.display()))?;
        if file_type.is_dir() {
            if relative.as_os_str().is_empty() && SKIPPED.iter().any(|s| name == *s) {
                continue;
            }
            found.extend(files(root, &path)?);
        } else if file_type.is_file() {
            found.push(path);
        }
    }
    Ok(found)
}
