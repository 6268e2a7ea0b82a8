//! The JSON Lines protocol between the runner and a peer (interfaces.md §4): the wire basics and
//! message schemas, then each message, written by one side and read by the other.

pub mod hello;
pub mod result;
pub mod runner;
pub mod schemas;
pub mod wire;
pub mod workflow;
