//! Peers: child processes in their own group, one peer process, the options and budget a run's
//! peers share, sessions that own the protocol over a process, and the vectors and scenarios run
//! against them.

pub mod child;
pub mod options;
pub mod process;
pub mod pump;
pub mod scenarios;
pub mod session;
pub mod supervision;
pub mod vectors;
