//! `web_fetch`'s HTML conversions as upstream runs them: turndown 7.2.4 for `markdown`, htmlparser2 12 for `text`.

mod dom;
mod js;
mod markdown;
mod text;

pub use markdown::{Thrown, to_markdown};
pub use text::to_text;
