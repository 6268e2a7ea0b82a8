//! The vvoc conformance harness: loads the contract vectors, runs them against the in-process
//! reference or a peer process, compares at a chosen level, and reports.

pub mod bench;
pub mod builtin;
pub mod child;
pub mod compare;
pub mod conformance;
pub mod digest;
pub mod fuzz;
pub mod integrity;
pub mod json_ser;
pub mod junit;
pub mod known;
pub mod lint;
pub mod meta_schema;
pub mod outcome;
pub mod parallel;
pub mod peer;
pub mod peer_process;
pub mod peer_run;
pub mod peer_session;
pub mod protocol;
pub mod protocol_hello;
pub mod protocol_result;
pub mod protocol_runner;
pub mod report;
pub mod run;
pub mod run_all;
pub mod scenario_compare;
pub mod scenario_load;
pub mod scenario_paths;
pub mod scenario_peer;
pub mod scenario_records;
pub mod scenario_report;
pub mod scenario_run;
pub mod scenarios;
pub mod scratch;
pub mod serde_bridge;
pub mod serve;
pub mod sources;
pub mod suite;
pub mod tree;
pub mod vectors;

pub use compare::Level;
pub use outcome::{Answer, Outcome};
pub use vectors::{LoadError, Vector};

use std::path::PathBuf;

/// The workspace's own `vectors/` folder (where the built-in set is embedded from; for tests and
/// tasks run inside the workspace).
pub fn default_vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("vectors")
}
