//! Scratch copies of the workspace: each worker mutates its own copy, never the working tree,
//! and its builds stay warm across rows and runs.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use walkdir::WalkDir;

use super::naming::Naming;
use super::workspace::{NOT_COPIED, PROFILE_DIR, RUNNER_BIN};

/// The file a worker's folder holds while its copy is mutated: written before a mutant is written
/// into the copy, removed when a run has put every file back. Found by the next run, it means a
/// run was interrupted with a mutated build under way, whose compiled files (in the shared build
/// directory) the next build might take for fresh; that run removes the copy's sources and
/// target directory first, so that every source is written again newer than anything built.
pub const MUTATING: &str = "mutating";

/// A worker's copy: `<base>/tree` holds the sources, `<base>/target` its binaries; what cargo
/// compiles for it lies in the workspace's build directory.
#[derive(Clone, Debug)]
pub struct Scratch {
    /// The copy of the workspace.
    pub tree: PathBuf,
    /// Its target directory (its binaries).
    pub target: PathBuf,
    /// The suite's runner that a run of the copy starts (the one its build writes, or a copy of
    /// it, see [`Scratch::frozen`]).
    pub runner: PathBuf,
    /// How its own crates are named apart from the workspace's in the build directory they
    /// share (`naming.build_dir`).
    pub naming: Naming,
}

impl Scratch {
    /// Brings the copy at `base` up to date with `root`: changed files are rewritten, files that
    /// are gone are removed, unchanged files keep their modification time (so builds stay warm).
    /// The copy's crates are versioned apart from the workspace's (see [`Naming`]), so that it
    /// can build in the workspace's build directory.
    pub fn sync(root: &Path, base: &Path) -> Result<Scratch> {
        let tree = base.join("tree");
        let target = base.join("target");
        let mark = base.join(MUTATING);
        if mark.is_file() {
            for folder in [&tree, &target] {
                if folder.is_dir() {
                    fs::remove_dir_all(folder).with_context(|| {
                        format!(
                            "cannot remove {}, left by an interrupted run; remove it by hand",
                            folder.display()
                        )
                    })?;
                }
            }
            fs::remove_file(&mark).with_context(|| format!("cannot remove {}", mark.display()))?;
            eprintln!(
                "{}: removed with its target directory, since an earlier run was interrupted \
                 while a mutant was built there ({} was left); it is written and built again",
                tree.display(),
                mark.display()
            );
        }
        fs::create_dir_all(&tree).with_context(|| format!("cannot create {}", tree.display()))?;
        let naming = Naming::read(root, base)?;
        let mut wanted = BTreeSet::new();
        for relative in files(root)? {
            let source = root.join(&relative);
            let copy = tree.join(&relative);
            let content =
                fs::read(&source).with_context(|| format!("cannot read {}", source.display()))?;
            let content = naming.rewrite(&relative, content)?;
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
        naming.check(&tree)?;
        let runner = target.join(PROFILE_DIR).join(RUNNER_BIN);
        Ok(Scratch {
            tree,
            target,
            runner,
            naming,
        })
    }

    /// The copy with its built runner copied to `name` in its target directory: runs of it go on
    /// unchanged while the copy is built again.
    pub fn frozen(&self, name: &str) -> Result<Scratch> {
        let runner = self.target.join(name);
        fs::copy(&self.runner, &runner).with_context(|| {
            format!(
                "cannot copy {} to {}",
                self.runner.display(),
                runner.display()
            )
        })?;
        Ok(Scratch {
            runner,
            ..self.clone()
        })
    }

    /// Whether the copy at `base` has been built before (its target directory holds a binary).
    pub fn is_built(base: &Path) -> bool {
        base.join("target").is_dir()
    }

    /// Marks the copy as mutated (see [`MUTATING`]); call before writing a mutant into it.
    pub fn mark_mutating(&self) -> Result<()> {
        let mark = self.mark();
        fs::write(
            &mark,
            "a mutant is written in tree/; the next run removes target/ unless this run ends\n",
        )
        .with_context(|| format!("cannot write {}", mark.display()))
    }

    /// Takes the mark away once every file of the copy is back to its original text.
    pub fn clear_mark(&self) -> Result<()> {
        let mark = self.mark();
        match fs::remove_file(&mark) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                Err(error).with_context(|| format!("cannot remove {}", mark.display()))
            }
            _ => Ok(()),
        }
    }

    fn mark(&self) -> PathBuf {
        self.tree.parent().unwrap_or(&self.tree).join(MUTATING)
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

/// Takes the mark of [`MUTATING`] from every worker's folder under `scratch`, once the run has put
/// every copy's files back.
pub fn clear_marks(scratch: &Path) -> Result<()> {
    let Ok(entries) = fs::read_dir(scratch) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let mark = entry.path().join(MUTATING);
        if mark.is_file() {
            fs::remove_file(&mark).with_context(|| format!("cannot remove {}", mark.display()))?;
        }
    }
    Ok(())
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
