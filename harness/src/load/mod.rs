//! The suite's files: where they come from (the built-in set, `--vectors` folders), reading
//! vector and scenario files into one suite, and checking files and the catalog against them.

pub mod builtin;
pub mod digest;
pub mod error;
pub mod files;
pub mod integrity;
pub mod lint;
pub mod scenario;
pub mod sources;
pub mod suite;
pub mod vector;
pub mod web;
pub mod workflow;
