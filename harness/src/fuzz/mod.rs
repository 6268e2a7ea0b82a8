//! `conform fuzz`: generative differential conformance. Inputs grown from the catalog and from
//! mutated vectors go to the peer and to the reference in process (or a second peer), the
//! answers are compared at a level, each disagreement is classed, and one example per class is
//! shrunk to a smallest input that disagrees the same way.
//!
//! Input `i` of a seed is the same input whatever the number of jobs, and each class keeps the
//! input of its lowest `i` as its example, so a run of `--count N` finds the same classes, counts
//! and minimal examples with one job or several.

pub mod align;
pub mod class;
pub mod classify;
pub mod dictionary;
pub mod edit;
pub mod error;
pub(crate) mod found;
pub mod fuzzed;
pub mod generate;
pub(crate) mod grow;
pub mod mcp_side;
pub mod mutate;
pub mod names;
pub mod options;
pub(crate) mod oracle;
pub mod pair;
pub mod report;
pub mod rng;
pub(crate) mod rules;
pub mod run;
pub(crate) mod shape;
pub mod shrink;
pub(crate) mod sources;
pub(crate) mod work;
