//! A conformance run: what it selects, its records (vectors and scenarios, editor and web) and result, the in-process run, the whole
//! run (vectors then scenarios), known failures, and the summary a person reads.

pub mod all;
pub mod known;
pub mod records;
pub mod reference;
pub mod result;
pub mod selection;
pub mod summary;
