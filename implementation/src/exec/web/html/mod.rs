//! `web_fetch`'s HTML conversions as upstream runs them: turndown 7.2.4 for `markdown`, htmlparser2 12 for `text`.
//!
//! Pure functions of the fetched document: no I/O. [`to_markdown`] ports turndown's algorithm on
//! a DOM built by html5ever (the HTML5 tree construction that turndown's DOM, domino, also
//! follows); [`to_text`] ports htmlparser2's tokenizer and its open-element stack, which is not an
//! HTML5 tree builder.

mod dom;
mod js;
mod markdown;
mod text;

pub use markdown::{Thrown, to_markdown};
pub use text::to_text;
