//! Texts holding lone surrogates, which rmcp's strings cannot: a stand-in goes through rmcp, and the stdio writer puts the exact JSON string back in its place.
//!
//! The contract's texts are UTF-16 (behaviour.md §6.1): a refusal that quotes half of a
//! surrogate pair holds a lone surrogate, and a host of the contract hands the model exactly
//! that text. JSON can carry it (`"\ud800"`); a Rust `String` cannot.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher as _;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use vvoc_reference::{JsString, Json};

/// Where exact texts wait for the writer: `None` where no writer puts them back (over HTTP,
/// rmcp writes the answers itself), so texts go as U+FFFD stands for each lone surrogate.
#[derive(Clone, Debug, Default)]
pub struct ExactTexts(Option<Arc<Kept>>);

#[derive(Debug)]
struct Kept {
    /// Each stand-in as a JSON string literal, and the exact text's literal.
    waiting: Mutex<Vec<(String, String)>>,
    next: AtomicU64,
}

impl ExactTexts {
    /// Texts kept exact, for a writer that calls [`ExactTexts::restore`] on every message.
    pub fn kept() -> ExactTexts {
        ExactTexts(Some(Arc::new(Kept {
            waiting: Mutex::new(Vec::new()),
            next: AtomicU64::new(0),
        })))
    }

    /// Texts as rmcp can carry them, lone surrogates replaced.
    pub fn lossy() -> ExactTexts {
        ExactTexts(None)
    }

    /// `text` as it goes through rmcp: itself when it is well-formed, else a stand-in that
    /// [`ExactTexts::restore`] replaces (or, lossy, U+FFFD for each lone surrogate).
    pub fn text(&self, text: &JsString) -> String {
        if let Some(well_formed) = text.to_str() {
            return well_formed;
        }
        let Some(kept) = &self.0 else {
            return text.to_string_lossy();
        };
        let n = kept.next.fetch_add(1, Ordering::Relaxed);
        let stand_in = format!("\u{FDD0}{:016x}-{n}\u{FDD1}", token());
        let exact = Json::String(text.clone()).to_compact();
        if let Ok(mut waiting) = kept.waiting.lock() {
            waiting.push((format!("\"{stand_in}\""), exact));
        }
        stand_in
    }

    /// One message as rmcp wrote it, with every stand-in it holds replaced by its exact text.
    pub fn restore(&self, message: Vec<u8>) -> Vec<u8> {
        let Some(kept) = &self.0 else {
            return message;
        };
        let Ok(mut waiting) = kept.waiting.lock() else {
            return message;
        };
        if waiting.is_empty() {
            return message;
        }
        // rmcp writes each message as UTF-8 JSON, the stand-ins unescaped.
        let Ok(mut line) = String::from_utf8(message) else {
            return Vec::new();
        };
        waiting.retain(|(stand_in, exact)| match line.contains(stand_in.as_str()) {
            true => {
                line = line.replacen(stand_in.as_str(), exact, 1);
                false
            }
            false => true,
        });
        line.into_bytes()
    }
}

/// A number of this process that no client can guess, which the stand-ins of texts and of
/// arguments (`deep.rs`) carry, so that nothing a client sends can pass for one.
pub fn token() -> u64 {
    static TOKEN: OnceLock<u64> = OnceLock::new();
    *TOKEN.get_or_init(|| RandomState::new().hash_one(std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lone() -> JsString {
        JsString::from_units(vec![u16::from(b'a'), 0xD800, u16::from(b'b')])
    }

    #[test]
    fn a_text_with_a_lone_surrogate_comes_back_exact_in_the_message_that_carries_it() {
        let exact = ExactTexts::kept();
        let stand_in = exact.text(&lone());
        let message = serde_json::to_vec(&serde_json::json!({"text": stand_in})).expect("JSON");
        let restored = exact.restore(message);
        assert_eq!(restored, br#"{"text":"a\ud800b"}"#);
        // Once put back, the stand-in is forgotten.
        let again = serde_json::to_vec(&serde_json::json!({"text": stand_in})).expect("JSON");
        assert_eq!(exact.restore(again.clone()), again);
    }

    #[test]
    fn a_well_formed_text_passes_as_it_is_and_lossy_texts_get_the_replacement_character() {
        let exact = ExactTexts::kept();
        assert_eq!(exact.text(&JsString::from("plain")), "plain");
        assert_eq!(ExactTexts::lossy().text(&lone()), "a\u{FFFD}b");
        let message = b"{\"text\":\"plain\"}".to_vec();
        assert_eq!(exact.restore(message.clone()), message);
    }
}
