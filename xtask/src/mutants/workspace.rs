//! The layout of the workspace a mutation run works on: where its rows, vectors, scratch copies
//! and reports lie, which crate is mutated and which binary runs the suite. Every path the run
//! names comes from here.

use std::path::{Path, PathBuf};

/// The folder of the row files.
pub const ROWS: &str = "mutants";
/// The row file where the project declares its named mutants (any row file may declare some).
pub const SHARED_MUTANTS: &str = "mutants/mutants.json";
/// The folder of the vectors and scenarios.
pub const VECTORS: &str = "vectors";
/// The source folder of the mutated crate (the implementation): only its rows are switched.
pub const MUTATED_SOURCES: &str = "implementation/src/";
/// The mutated crate's library root, where the switch module goes.
pub const MUTATED_LIB: &str = "implementation/src/lib.rs";
/// The package of the suite's runner.
pub const RUNNER_PACKAGE: &str = "vvoc-harness";
/// The suite's runner.
pub const RUNNER_BIN: &str = "conform";
/// The cargo profile of mutants: the one `cargo test` builds with, so that a copy's build takes
/// the dependencies from the workspace's own build directory instead of compiling them again
/// (a minute and a half of a cold check on two cores).
pub const PROFILE: &str = "dev";
/// The folder of a target directory that cargo names after [`PROFILE`].
pub const PROFILE_DIR: &str = "debug";
/// Folders of the workspace that are never copied into a scratch copy.
pub const NOT_COPIED: [&str; 4] = ["target", ".git", "reports", ".notes"];

/// A workspace, by its root.
#[derive(Clone, Debug)]
pub struct Workspace {
    /// The folder of its top-level `Cargo.toml`.
    pub root: PathBuf,
}

impl Workspace {
    /// The workspace at `root`.
    pub fn new(root: &Path) -> Workspace {
        Workspace {
            root: root.to_owned(),
        }
    }

    /// A workspace-relative path, made absolute.
    pub fn path(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    /// Where mutation runs keep their scratch copies and suite reports.
    pub fn scratch(&self) -> PathBuf {
        self.root.join("target").join("mutants")
    }

    /// Worker `n`'s copy of the workspace (worker 0's also holds the switched build).
    pub fn worker(&self, n: usize) -> PathBuf {
        self.scratch().join(format!("worker-{n}"))
    }

    /// Where a suite run of the copies writes its `conformance.json`.
    pub fn suite_report(&self, name: &str) -> PathBuf {
        self.scratch().join(format!("report-{name}"))
    }

    /// The default folder of the mutation report.
    pub fn report(&self) -> PathBuf {
        self.root.join("reports").join("mutants")
    }

    /// Whether a row's file belongs to the mutated crate's sources (and can be switched).
    pub fn is_mutated_source(file: &str) -> bool {
        file.starts_with(MUTATED_SOURCES)
    }
}
