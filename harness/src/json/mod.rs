//! The contract's JSON model and serde: serializing into it (`ser`), and converting to and from
//! `serde_json` without recursion (`bridge`), and reading values deeper than serde can follow
//! (`deep`).

pub mod bridge;
pub mod deep;
pub mod ser;
