//! Text conventions of execution: decoding, encoding, splitting and numbers (`execution.md` §0.2).

use crate::json::{Json, Object, format_number};
use crate::text::is_trim_unit;

/// Line feed.
pub(super) const LF: u16 = 0x0A;
/// Carriage return.
pub(super) const CR: u16 = 0x0D;
/// The byte-order mark, U+FEFF.
pub(super) const BOM: u16 = 0xFEFF;

/// The UTF-16 text of a file's bytes: UTF-8 decoded, each maximal ill-formed subsequence one U+FFFD.
pub(super) fn decode(bytes: &[u8]) -> Vec<u16> {
    String::from_utf8_lossy(bytes).encode_utf16().collect()
}

/// The bytes written for a text: UTF-8, a lone surrogate written as U+FFFD.
pub(super) fn encode(units: &[u16]) -> Vec<u8> {
    char::decode_utf16(units.iter().copied())
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect::<String>()
        .into_bytes()
}

/// The pieces of `units` split on LF: k LFs give k + 1 pieces.
pub(super) fn split_lf(units: &[u16]) -> Vec<&[u16]> {
    units.split(|&u| u == LF).collect()
}

/// `parts` joined with LF.
pub(super) fn join_lf<T: AsRef<[u16]>>(parts: &[T]) -> Vec<u16> {
    let mut out = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push(LF);
        }
        out.extend_from_slice(part.as_ref());
    }
    out
}

/// `units` without trailing members of the whitespace set.
pub(super) fn trim_end(units: &[u16]) -> &[u16] {
    let end = units
        .iter()
        .rposition(|&u| !is_trim_unit(u))
        .map_or(0, |i| i + 1);
    &units[..end]
}

/// Whether a unit is a digit `0`–`9`.
pub(super) fn is_digit(u: u16) -> bool {
    (u16::from(b'0')..=u16::from(b'9')).contains(&u)
}

/// The index of the first occurrence of `needle` in `haystack` at or after `from`.
pub(super) fn find(haystack: &[u16], needle: &[u16], from: usize) -> Option<usize> {
    if needle.is_empty() {
        return (from <= haystack.len()).then_some(from);
    }
    haystack
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| i + from)
}

/// A number written as ECMAScript writes it (`Infinity` included).
pub(super) fn number(n: f64) -> String {
    if n.is_infinite() {
        return if n > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
    }
    format_number(n)
}

/// The units of the string member `name` of an accepted input (empty when absent).
pub(super) fn member_units(object: &Object, name: &str) -> Vec<u16> {
    object
        .get(name)
        .and_then(Json::as_string)
        .map(|s| s.units().to_vec())
        .unwrap_or_default()
}

/// A text builder over UTF-16 units, for the texts the tools return.
#[derive(Clone, Debug, Default)]
pub(super) struct Text(pub(super) Vec<u16>);

impl Text {
    /// Appends a Rust string.
    pub(super) fn s(&mut self, s: &str) -> &mut Self {
        self.0.extend(s.encode_utf16());
        self
    }

    /// Appends units.
    pub(super) fn u(&mut self, units: &[u16]) -> &mut Self {
        self.0.extend_from_slice(units);
        self
    }
}

/// A text that starts with `s`.
pub(super) fn text(s: &str) -> Text {
    let mut t = Text::default();
    t.s(s);
    t
}
