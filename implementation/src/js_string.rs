//! `JsString`: text as a sequence of UTF-16 code units, the unit in which the contract measures and cuts.

use std::borrow::Cow;
use std::fmt;

/// A string of UTF-16 code units.
///
/// The contract counts lengths, bounds and cuts in UTF-16 units, accepts lone surrogates in its
/// inputs and can produce them in issue paths (a cut inside a surrogate pair), so neither `String`
/// nor `serde_json` strings can carry its text faithfully. Its `Debug` form is the text
/// JSON-quoted (§6.4), written beside JSON-quoting in `text.rs`.
///
/// The units are owned, or borrowed for good from text that lives as long as the program (the
/// catalog's member names, which every normalized output repeats): copying those would cost an
/// allocation per member of every output.
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JsString(Cow<'static, [u16]>);

impl JsString {
    /// The empty string.
    pub const fn new() -> Self {
        JsString(Cow::Borrowed(&[]))
    }

    /// The empty string, with room for `units` units.
    pub fn with_capacity(units: usize) -> Self {
        JsString(Cow::Owned(Vec::with_capacity(units)))
    }

    /// A string made of the given units.
    pub fn from_units(units: impl Into<Vec<u16>>) -> Self {
        JsString(Cow::Owned(units.into()))
    }

    /// A string that borrows units living as long as the program (see `js_static!`).
    pub const fn borrowed(units: &'static [u16]) -> Self {
        JsString(Cow::Borrowed(units))
    }

    /// Whether the units are borrowed rather than owned.
    #[cfg(test)]
    pub(crate) fn is_borrowed(&self) -> bool {
        matches!(self.0, Cow::Borrowed(_))
    }

    /// The same text, borrowing the units of a string that lives as long as the program instead
    /// of copying them.
    pub fn share(&'static self) -> JsString {
        JsString(Cow::Borrowed(&self.0))
    }

    /// The UTF-16 code units.
    pub fn units(&self) -> &[u16] {
        &self.0
    }

    /// The length in UTF-16 code units.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the string has no units.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Appends the UTF-16 encoding of `s`.
    pub fn push_str(&mut self, s: &str) {
        // Most text is ASCII: a unit per byte, without decoding.
        if s.is_ascii() {
            self.0.to_mut().extend(s.bytes().map(u16::from));
            return;
        }
        self.0.to_mut().extend(s.encode_utf16());
    }

    /// Appends raw units.
    pub fn push_units(&mut self, units: &[u16]) {
        self.0.to_mut().extend_from_slice(units);
    }

    /// Appends one character.
    pub fn push(&mut self, c: char) {
        let mut buf = [0u16; 2];
        match c.encode_utf16(&mut buf) {
            [unit] => self.0.to_mut().push(*unit),
            pair => self.0.to_mut().extend_from_slice(pair),
        }
    }

    /// Whether the string equals `s`, unit for unit.
    #[inline]
    pub fn eq_str(&self, s: &str) -> bool {
        units_eq_str(&self.0, s)
    }

    /// The text as a Rust string, when it holds no lone surrogate.
    pub fn to_str(&self) -> Option<String> {
        ascii(&self.0).or_else(|| String::from_utf16(&self.0).ok())
    }

    /// The text as a Rust string, each lone surrogate replaced by U+FFFD.
    pub fn to_string_lossy(&self) -> String {
        ascii(&self.0).unwrap_or_else(|| String::from_utf16_lossy(&self.0))
    }

    /// The characters, each lone surrogate given as `Err(unit)`.
    pub fn chars(&self) -> impl Iterator<Item = Result<char, u16>> + '_ {
        decode(&self.0)
    }
}

/// Whether `units` equal the UTF-16 encoding of `s`.
#[inline]
pub fn units_eq_str(units: &[u16], s: &str) -> bool {
    // Names mostly differ from their first character on, and most are ASCII: an ASCII first
    // byte must be the first unit.
    if let (Some(&u), Some(&b)) = (units.first(), s.as_bytes().first())
        && b.is_ascii()
        && u != u16::from(b)
    {
        return false;
    }
    // A character takes at least as many UTF-8 bytes as UTF-16 units, and as many only when it is
    // ASCII: most names differ in length and are told apart without reading them.
    match units.len().cmp(&s.len()) {
        std::cmp::Ordering::Greater => return false,
        std::cmp::Ordering::Equal => {
            // Equal when every unit is its byte and every byte ASCII, all read without a branch.
            let differs = units.iter().zip(s.bytes()).fold(0, |differs, (&u, b)| {
                differs | (u ^ u16::from(b)) | (u16::from(b) & 0x80)
            });
            return differs == 0;
        }
        // Fewer units than bytes: only text with non-ASCII characters can match.
        std::cmp::Ordering::Less if s.is_ascii() => return false,
        std::cmp::Ordering::Less => {}
    }
    let mut it = units.iter().copied();
    for u in s.encode_utf16() {
        if it.next() != Some(u) {
            return false;
        }
    }
    it.next().is_none()
}

/// The characters of `units`, each lone surrogate given as `Err(unit)`.
pub fn decode(units: &[u16]) -> impl Iterator<Item = Result<char, u16>> + '_ {
    char::decode_utf16(units.iter().copied()).map(|r| r.map_err(|e| e.unpaired_surrogate()))
}

/// Appends text, so that `write!` builds messages and paths in UTF-16 without a `String` between.
impl fmt::Write for JsString {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.push_str(s);
        Ok(())
    }
}

impl From<&str> for JsString {
    fn from(s: &str) -> Self {
        let mut text = JsString::with_capacity(s.len());
        text.push_str(s);
        text
    }
}

impl From<String> for JsString {
    fn from(s: String) -> Self {
        JsString::from(s.as_str())
    }
}

impl From<&String> for JsString {
    fn from(s: &String) -> Self {
        JsString::from(s.as_str())
    }
}

impl PartialEq<str> for JsString {
    fn eq(&self, other: &str) -> bool {
        self.eq_str(other)
    }
}

impl PartialEq<&str> for JsString {
    fn eq(&self, other: &&str) -> bool {
        self.eq_str(other)
    }
}

/// Shows the text, each lone surrogate as U+FFFD.
impl fmt::Display for JsString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Encoded into a buffer and written a chunk at a time: a formatter call per character
        // costs more than the decoding (tool names and message types go through here).
        let mut buf = [0u8; 256];
        let mut len = 0;
        for c in self.chars() {
            let c = c.unwrap_or(char::REPLACEMENT_CHARACTER);
            if len + c.len_utf8() > buf.len() {
                f.write_str(utf8(&buf[..len]))?;
                len = 0;
            }
            len += c.encode_utf8(&mut buf[len..]).len();
        }
        f.write_str(utf8(&buf[..len]))
    }
}

/// The text of `units` when they are all ASCII (names, tool ids, most messages), a byte per
/// unit without decoding; `None` otherwise.
fn ascii(units: &[u16]) -> Option<String> {
    // Tested and narrowed a whole slice at a time, without a branch per unit.
    if units.iter().fold(0, |all, &u| all | u) >= 0x80 {
        return None;
    }
    String::from_utf8(units.iter().map(|&u| u as u8).collect()).ok()
}

/// The buffer `Display` fills, which holds whole characters only.
fn utf8(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn units_equal_a_str_exactly_when_they_are_its_utf16_encoding() {
        for (a, b) in [
            ("", ""),
            ("query", "query"),
            ("é", "é"),
            ("a😀b", "a😀b"),
            ("naïve", "naïve"),
        ] {
            assert!(units_eq_str(&units(a), b), "{a:?} = {b:?}");
        }
        for (a, b) in [
            ("query", "querY"),
            ("quer", "query"),
            ("query", "quer"),
            ("e", "é"),
            ("ab", "é"),
            ("a😀", "a😁"),
            ("😀", "ab"),
        ] {
            assert!(!units_eq_str(&units(a), b), "{a:?} ≠ {b:?}");
        }
        // A lone surrogate equals no Rust string.
        assert!(!units_eq_str(&[0xd800], "\u{fffd}"));
        assert!(
            !units_eq_str(&[0xc3, 0xa9], "é"),
            "UTF-8 bytes as units are not the text"
        );
        assert!(units_eq_str(&[0xe9, 0x41], "éA"));
        // Units that differ from the UTF-8 bytes only in their top bit: "C)" is 0x43 0x29, "é"
        // is 0xC3 0xA9 in UTF-8.
        assert!(!units_eq_str(&units("C)"), "é"));
    }

    #[test]
    fn from_and_push_str_encode_ascii_and_other_text_alike() {
        for s in ["", "plain", "é😀\u{2028}", "a\u{0}b"] {
            assert_eq!(JsString::from(s).units(), units(s).as_slice(), "{s:?}");
            let mut pushed = JsString::from("x");
            pushed.push_str(s);
            assert_eq!(pushed.units()[1..], units(s)[..], "{s:?}");
        }
    }

    #[test]
    fn rust_strings_of_ascii_and_other_text_are_their_decoding() {
        // "Ã©" is two units that are also the two bytes of "é" in UTF-8: each stays a character.
        for text in ["", "web_search", "\u{7f}", "\u{80}", "é😀", "Āa", "Ã©"] {
            let js = JsString::from(text);
            assert_eq!(js.to_str().as_deref(), Some(text), "{text:?}");
            assert_eq!(js.to_string_lossy(), text, "{text:?}");
        }
        // A unit above ASCII is never cut to a byte: U+0141 is not "A" (0x41), and two of them
        // are not "AA" (units that cancel out when combined by anything but `|`).
        assert_eq!(JsString::from_units([0x141]).to_string_lossy(), "Ł");
        assert_eq!(
            JsString::from_units([0x141, 0x141]).to_str().as_deref(),
            Some("ŁŁ")
        );
        let lone = JsString::from_units([0x61, 0xdc00]);
        assert_eq!(lone.to_str(), None);
        assert_eq!(lone.to_string_lossy(), "a\u{fffd}");
    }

    #[test]
    fn display_shows_long_text_whole_and_lone_surrogates_as_replacement_characters() {
        // Longer than the 256-byte buffer, with multi-byte characters across its edges.
        let mut text = units(&"é😀x".repeat(100));
        text.push(0xd800);
        text.extend(units("end"));
        let shown = JsString::from_units(text.clone()).to_string();
        assert_eq!(shown, String::from_utf16_lossy(&text));
        assert!(shown.ends_with("x\u{fffd}end"));
        assert_eq!(JsString::new().to_string(), "");
    }
}
