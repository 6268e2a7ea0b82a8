//! Project tasks behind `cargo xtask`: generating the published files, the mutation check, and
//! the one command that runs every check.

pub mod bench;
pub mod bench_mcp;
pub mod check;
pub mod child;
pub mod docs;
pub mod figures;
pub mod mutants;
pub mod rules_page;

use std::path::PathBuf;

/// The workspace root (the folder of the top-level `Cargo.toml`).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}
