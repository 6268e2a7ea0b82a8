//! What `web_fetch` makes of what it fetched: the HTML conversions, ported from upstream.

pub mod html;
