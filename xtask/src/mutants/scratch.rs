//! Scratch copies of the workspace: each worker mutates its own copy, never the working tree,
//! and keeps its own target directory warm across rows and runs.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use walkdir::WalkDir;

use super::workspace::NOT_COPIED;

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
        for relative in files(root)? {
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
        for relative in files(&tree)? {
            if !wanted.contains(&relative) {
                fs::remove_file(tree.join(&relative))
                    .with_context(|| format!("cannot remove {}", relative.display()))?;
            }
        }
        Ok(Scratch { tree, target })
    }

    /// Whether the copy at `base` has been built before (its target directory is warm).
    pub fn is_built(base: &Path) -> bool {
        base.join("target").is_dir()
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

/// Every regular file under `root`, relative to it and sorted, skipping the top-level folders
/// that are never copied; links are not followed.
fn files(root: &Path) -> Result<Vec<PathBuf>> {
    let skipped = |entry: &walkdir::DirEntry| {
        entry.depth() == 1
            && entry.file_type().is_dir()
            && NOT_COPIED.iter().any(|s| entry.file_name() == *s)
    };
    let mut found = Vec::new();
    for entry in WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !skipped(e))
    {
        let entry = entry.with_context(|| format!("cannot read {}", root.display()))?;
        if entry.file_type().is_file() {
            let relative = entry.path().strip_prefix(root).unwrap_or(entry.path());
            found.push(relative.to_owned());
        }
    }
    Ok(found)
}
