//! Web scenarios (formats.md, "Web scenario file"): one call of `web_fetch` or `web_search`
//! against a fixture server on 127.0.0.1, and what it must give.

pub mod compare;
pub mod model;
pub mod play;
pub mod server;
