//! Web scenarios (formats.md, "Web scenario file"): one call of `web_fetch` or `web_search`
//! against a fixture server on 127.0.0.1, and what it must give.

pub mod compare;
pub mod model;
pub mod play;
pub mod server;

use vvoc_reference::Tool;

/// Whether `tool`'s scenarios are web scenarios: `web_fetch` and `web_search`, which the
/// reference executes against a host configuration (`execution-web.md`).
pub fn is_web(tool: Tool) -> bool {
    matches!(tool, Tool::WebFetch | Tool::WebSearch)
}
