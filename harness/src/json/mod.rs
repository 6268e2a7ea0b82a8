//! The contract's JSON model and serde: serializing into it (`ser`), and converting to and from
//! `serde_json` without recursion (`bridge`).

pub mod bridge;
pub mod ser;
