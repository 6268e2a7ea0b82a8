//! Run reports (interfaces.md §6): the typed `conformance.json` built once from a run, and
//! `conformance.md` and `junit.xml` rendered from it.

pub mod build;
pub mod conformance;
pub mod console;
pub mod failures;
pub mod junit;
pub mod markdown;
pub mod scenarios;
pub mod vectors;
pub mod write;
