//! The host policy of `conform mcp`: the root directory that every path of an editor's call must stay inside.

use std::fmt;
use std::io;
use std::path::{Component, Path, PathBuf};

use vvoc_reference::{Json, Object, Tool};

use crate::scenario::paths::path_fields;

/// The root the editors are confined to, and the directory relative paths resolve against.
#[derive(Clone, Debug)]
pub struct Policy {
    /// The root with every symbolic link resolved (canonicalized once, at start).
    root: PathBuf,
    /// The process's working directory, as the editors resolve a relative path against it.
    base: PathBuf,
}

/// Why a root cannot confine anything.
#[derive(Debug)]
pub enum PolicyError {
    /// The root does not exist or cannot be resolved.
    Root { root: PathBuf, error: io::Error },
    /// The root is a file, not a directory.
    NotADirectory(PathBuf),
    /// The working directory cannot be read.
    CurrentDir(io::Error),
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicyError::Root { root, error } => {
                write!(f, "--root {}: cannot be resolved: {error}", root.display())
            }
            PolicyError::NotADirectory(root) => {
                write!(f, "--root {}: is not a directory", root.display())
            }
            PolicyError::CurrentDir(error) => {
                write!(f, "cannot read the working directory: {error}")
            }
        }
    }
}

impl std::error::Error for PolicyError {}

/// A call the policy refuses; its text is what the client is shown (nothing was touched).
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A path resolves outside the root (`linked`: through a symbolic link).
    Outside {
        tool: Tool,
        field: &'static str,
        path: String,
        resolved: PathBuf,
        root: PathBuf,
        linked: bool,
    },
    /// A path holds a lone surrogate, so no file name on the host can be checked against it.
    NotUnicode { tool: Tool, field: &'static str },
    /// A path whose resolution failed (a loop of links, an unreadable directory).
    Unresolvable {
        tool: Tool,
        field: &'static str,
        path: String,
        reason: String,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Outside {
                tool,
                field,
                path,
                resolved,
                root,
                linked,
            } => {
                write!(
                    f,
                    "refused by the host policy: {}'s {field} {path:?} ",
                    tool.id()
                )?;
                if *linked {
                    write!(
                        f,
                        "resolves through a symbolic link to {}, ",
                        resolved.display()
                    )?;
                } else if Path::new(path) != resolved {
                    write!(f, "resolves to {}, ", resolved.display())?;
                } else {
                    write!(f, "is ")?;
                }
                write!(
                    f,
                    "outside the root {} (conform mcp --root); nothing was done",
                    root.display()
                )
            }
            Refusal::NotUnicode { tool, field } => write!(
                f,
                "refused by the host policy: {}'s {field} holds a lone surrogate, which names no file; nothing was done",
                tool.id()
            ),
            Refusal::Unresolvable {
                tool,
                field,
                path,
                reason,
            } => write!(
                f,
                "refused by the host policy: {}'s {field} {path:?} cannot be resolved ({reason}); nothing was done",
                tool.id()
            ),
        }
    }
}

/// The most symbolic links one path may go through (as Linux's `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

impl Policy {
    /// A policy confining the editors to `root`, relative paths resolved against the working
    /// directory (where the editors resolve them).
    ///
    /// # Errors
    ///
    /// The root does not resolve or is not a directory, or the working directory is unreadable.
    pub fn new(root: &Path) -> Result<Policy, PolicyError> {
        let resolved = std::fs::canonicalize(root).map_err(|error| PolicyError::Root {
            root: root.to_owned(),
            error,
        })?;
        if !resolved.is_dir() {
            return Err(PolicyError::NotADirectory(root.to_owned()));
        }
        let base = std::env::current_dir().map_err(PolicyError::CurrentDir)?;
        Ok(Policy {
            root: resolved,
            base,
        })
    }

    /// The root, every symbolic link resolved.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Checks every path field of an accepted call of `tool` (the fields its catalog entry
    /// declares absolute-file): each must resolve inside the root.
    ///
    /// # Errors
    ///
    /// The first path that is outside, reaches outside through a link, or cannot be resolved.
    pub fn check(&self, tool: Tool, accepted: &Object) -> Result<(), Refusal> {
        for field in path_fields(tool) {
            let Some(value) = accepted.get(field).and_then(Json::as_string) else {
                continue;
            };
            // `str_replace_editor` answers a path that is not absolute with its own text and
            // touches nothing (execution.md §2.2), so the policy leaves that answer to it.
            if tool == Tool::StrReplaceEditor && value.units().first() != Some(&u16::from(b'/')) {
                continue;
            }
            let path = value.to_str().ok_or(Refusal::NotUnicode { tool, field })?;
            let (resolved, linked) =
                self.resolve(Path::new(&path))
                    .map_err(|error| Refusal::Unresolvable {
                        tool,
                        field,
                        path: path.clone(),
                        reason: error.to_string(),
                    })?;
            if !resolved.starts_with(&self.root) {
                return Err(Refusal::Outside {
                    tool,
                    field,
                    path,
                    resolved,
                    root: self.root.clone(),
                    linked,
                });
            }
        }
        Ok(())
    }

    /// Where `path` leads: every symbolic link on the way followed as the system follows it
    /// (a dangling one too: a file created through it lands at its target), `..` taken after
    /// the link before it, and the part that does not exist yet taken as written. Also whether
    /// a link was followed.
    fn resolve(&self, path: &Path) -> io::Result<(PathBuf, bool)> {
        // The components still to walk, the next one last; a link's target is pushed on top.
        let mut stack: Vec<PathBuf> = components_reversed(&self.base.join(path));
        let mut out = PathBuf::new();
        let mut links = 0;
        while let Some(part) = stack.pop() {
            let Some(component) = part.components().next() else {
                continue;
            };
            match component {
                Component::Prefix(_) | Component::RootDir => out.push(component.as_os_str()),
                Component::CurDir => {}
                Component::ParentDir => {
                    out.pop();
                }
                Component::Normal(name) => {
                    let next = out.join(name);
                    match std::fs::symlink_metadata(&next) {
                        Ok(meta) if meta.file_type().is_symlink() => {
                            links += 1;
                            if links > MAX_LINKS {
                                return Err(io::Error::other("too many levels of symbolic links"));
                            }
                            let target = std::fs::read_link(&next)?;
                            if target.is_absolute() {
                                out = PathBuf::new();
                            }
                            stack.extend(components_reversed(&target));
                        }
                        Ok(_) => out = next,
                        // A part that does not exist yet (or sits under a file, or whose name is
                        // too long to exist) is taken as written: nothing below it can be a
                        // link, and the editor meets the same error and says so itself.
                        Err(error)
                            if matches!(
                                error.kind(),
                                io::ErrorKind::NotFound
                                    | io::ErrorKind::NotADirectory
                                    | io::ErrorKind::InvalidFilename
                            ) =>
                        {
                            out = next;
                        }
                        Err(error) => return Err(error),
                    }
                }
            }
        }
        Ok((out, links > 0))
    }
}

/// The components of `path`, last first (a stack to pop from the front of the path).
fn components_reversed(path: &Path) -> Vec<PathBuf> {
    path.components()
        .rev()
        .map(|c| PathBuf::from(c.as_os_str()))
        .collect()
}
