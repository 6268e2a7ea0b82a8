//! Text semantics of the contract: the trimming set, cuts with an ellipsis, and JSON-quoting (§6).

use std::fmt;

use crate::js_string::JsString;

/// The ellipsis that ends a cut text (U+2026).
pub const ELLIPSIS: u16 = 0x2026;

/// Whether a unit belongs to the trimming set of §6.2.
///
/// The set differs from Rust's `char::is_whitespace` in two characters: U+FEFF is trimmed here
/// and U+0085 is not. Every member is in the Basic Multilingual Plane, so a unit test suffices.
pub fn is_trim_unit(u: u16) -> bool {
    matches!(
        u,
        0x0009..=0x000D
            | 0x0020
            | 0x00A0
            | 0x1680
            | 0x2000..=0x200A
            | 0x2028
            | 0x2029
            | 0x202F
            | 0x205F
            | 0x3000
            | 0xFEFF
    )
}

/// `units` without leading and trailing members of the trimming set.
pub fn trim(units: &[u16]) -> &[u16] {
    let start = units
        .iter()
        .position(|&u| !is_trim_unit(u))
        .unwrap_or(units.len());
    let end = units
        .iter()
        .rposition(|&u| !is_trim_unit(u))
        .map_or(start, |i| i + 1);
    &units[start..end]
}

/// Whether `units` are empty after trimming.
pub fn is_blank(units: &[u16]) -> bool {
    units.iter().all(|&u| is_trim_unit(u))
}

/// truncate(s, n): `s` when it has at most `n` units, else its first `n - 1` units and `…`.
///
/// The cut counts units, so it may fall inside a surrogate pair and leave a lone high surrogate.
pub fn truncate(units: &[u16], n: usize) -> JsString {
    if units.len() <= n {
        return JsString::from_units(units);
    }
    let mut out = Vec::with_capacity(n);
    out.extend_from_slice(&units[..n.saturating_sub(1)]);
    out.push(ELLIPSIS);
    JsString::from_units(out)
}

/// JSON-quote(s) of §6.4: quotes, backslash and C0 controls escaped, lone surrogates as `\uXXXX`.
pub fn json_quote(units: &[u16]) -> JsString {
    let mut out = JsString::new();
    out.push('"');
    push_json_escaped(&mut out, units);
    out.push('"');
    out
}

/// Shows the text JSON-quoted, so lone surrogates and controls stay visible.
impl fmt::Debug for JsString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&json_quote(self.units()).to_string_lossy())
    }
}

/// Appends `units` escaped as the inside of a JSON string literal (§6.4): quotes, backslash and
/// C0 controls escaped, lone surrogates as `\uXXXX`.
pub fn push_json_escaped(out: &mut JsString, units: &[u16]) {
    // Runs of units that stand for themselves (every unit but these, and surrogates in pairs) are
    // copied whole.
    let mut rest = units;
    while let Some(at) = rest
        .iter()
        .position(|&u| u < 0x20 || u == 0x22 || u == 0x5C || (0xD800..=0xDFFF).contains(&u))
    {
        out.push_units(&rest[..at]);
        let u = rest[at];
        let mut taken = 1;
        match u {
            _ if let Some(letter) = short_escape(u) => out.push_units(&[0x5C, u16::from(letter)]),
            0xD800..=0xDBFF => match rest.get(at + 1) {
                Some(&low @ 0xDC00..=0xDFFF) => {
                    out.push_units(&[u, low]);
                    taken = 2;
                }
                _ => push_unit_escape_wide(out, u),
            },
            _ => push_unit_escape_wide(out, u),
        }
        rest = &rest[at + taken..];
    }
    out.push_units(rest);
}

/// Appends `units` escaped as the inside of a JSON string literal (§6.4), as UTF-8.
pub fn push_json_escaped_utf8(out: &mut String, units: &[u16]) {
    let mut block = Utf8Block::new(out);
    let mut rest = units;
    loop {
        // A run of printable ASCII other than `"` and `\` (most text) is copied as it is, found
        // eight units at a time while they all are.
        let mut run = 0;
        while let Some(eight) = rest[run..].first_chunk::<8>()
            && eight.iter().fold(true, |plain, &u| plain & is_plain(u))
        {
            run += 8;
        }
        run += rest[run..].iter().take_while(|&&u| is_plain(u)).count();
        block.ascii(&rest[..run]);
        rest = &rest[run..];
        let Some(&u) = rest.first() else { break };
        let mut taken = 1;
        match u {
            _ if let Some(letter) = short_escape(u) => block.text(&[b'\\', letter]),
            0xD800..=0xDBFF => match rest.get(1) {
                Some(&low @ 0xDC00..=0xDFFF) => {
                    let c = 0x10000 + ((u32::from(u) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                    block.char(char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER));
                    taken = 2;
                }
                _ => block.unit_escape(u),
            },
            0x00..=0x1F | 0xDC00..=0xDFFF => block.unit_escape(u),
            _ => block.char(char::from_u32(u32::from(u)).unwrap_or(char::REPLACEMENT_CHARACTER)),
        }
        rest = &rest[taken..];
    }
    block.flush();
}

/// The letter JSON writes after `\` for a unit with a two-character escape (§6.4): `"`, `\`, and
/// the controls `\b \t \n \f \r`; every other control is written `\uXXXX`.
fn short_escape(u: u16) -> Option<u8> {
    match u {
        0x22 => Some(b'"'),
        0x5C => Some(b'\\'),
        0x08 => Some(b'b'),
        0x09 => Some(b't'),
        0x0A => Some(b'n'),
        0x0C => Some(b'f'),
        0x0D => Some(b'r'),
        _ => None,
    }
}

/// Whether JSON writes the unit as the ASCII character it is: printable, and neither `"` nor `\`.
#[inline]
fn is_plain(u: u16) -> bool {
    (0x20..0x7F).contains(&u) && u != 0x22 && u != 0x5C
}

/// UTF-8 text gathered on the stack and appended to a `String` a block at a time: a `String`
/// takes bytes only as checked UTF-8, and checking a block costs far less than a call per run.
struct Utf8Block<'a> {
    out: &'a mut String,
    bytes: [u8; 256],
    len: usize,
}

impl<'a> Utf8Block<'a> {
    fn new(out: &'a mut String) -> Self {
        Utf8Block {
            out,
            bytes: [0; 256],
            len: 0,
        }
    }

    /// Makes room for `n` more bytes (at most the block's size).
    #[inline]
    fn room(&mut self, n: usize) -> &mut [u8] {
        if self.len + n > self.bytes.len() {
            self.flush();
        }
        let at = self.len;
        self.len += n;
        &mut self.bytes[at..at + n]
    }

    /// Units known to be ASCII, any number of them.
    fn ascii(&mut self, units: &[u16]) {
        for chunk in units.chunks(self.bytes.len()) {
            for (byte, &unit) in self.room(chunk.len()).iter_mut().zip(chunk) {
                *byte = unit as u8;
            }
        }
    }

    /// Bytes known to be ASCII.
    fn text(&mut self, bytes: &[u8]) {
        self.room(bytes.len()).copy_from_slice(bytes);
    }

    fn char(&mut self, c: char) {
        c.encode_utf8(self.room(c.len_utf8()));
    }

    /// `\uXXXX` in lowercase hex, as §6.4 writes controls and lone surrogates.
    fn unit_escape(&mut self, u: u16) {
        for (byte, c) in self.room(6).iter_mut().zip(escape_digits(u)) {
            *byte = c as u8;
        }
    }

    /// Appends the bytes gathered so far: whole characters only, so always UTF-8.
    fn flush(&mut self) {
        self.out
            .push_str(std::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default());
        self.len = 0;
    }
}

/// [`push_unit_escape`] into UTF-16 text.
fn push_unit_escape_wide(out: &mut JsString, u: u16) {
    for c in escape_digits(u) {
        out.push(c);
    }
}

/// The six characters of `\uXXXX` for `u`.
fn escape_digits(u: u16) -> impl Iterator<Item = char> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    ['\\', 'u']
        .into_iter()
        .chain([12, 8, 4, 0].map(|shift| char::from(HEX[usize::from((u >> shift) & 0xF)])))
}

/// Appends a member name escaped for a path (§1.4): controls as `\uXXXX`, `\ . [ ]` preceded by `\`.
pub fn push_path_name(out: &mut JsString, units: &[u16]) {
    // Most names need no escape, which a test of every unit without a branch finds at once.
    if !units
        .iter()
        .fold(false, |any, &u| any | needs_path_escape(u))
    {
        out.push_units(units);
        return;
    }
    // Runs of units that stand for themselves are copied whole.
    let mut rest = units;
    while let Some(at) = rest.iter().position(|&u| needs_path_escape(u)) {
        out.push_units(&rest[..at]);
        let u = rest[at];
        match u {
            0x5C | 0x2E | 0x5B | 0x5D => out.push_units(&[0x5C, u]),
            _ => push_unit_escape_wide(out, u),
        }
        rest = &rest[at + 1..];
    }
    out.push_units(rest);
}

/// Whether a path escapes the unit: a control, or one of `\ . [ ]`.
#[inline]
fn needs_path_escape(u: u16) -> bool {
    matches!(u, 0x00..=0x1F | 0x7F | 0x5C | 0x2E | 0x5B | 0x5D)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_escaping_escapes_quotes_backslashes_controls_and_lone_surrogates_only() {
        let cases: Vec<(Vec<u16>, &str)> = vec![
            (js(""), ""),
            (js("plain ascii"), "plain ascii"),
            (
                js("quote \" backslash \\ / slash"),
                r#"quote \" backslash \\ / slash"#,
            ),
            (
                js("\u{0}\u{1}\u{8}\t\n\u{b}\u{c}\r\u{1f}\u{7f}"),
                "\\u0000\\u0001\\b\\t\\n\\u000b\\f\\r\\u001f\u{7f}",
            ),
            (
                js("é ü \u{2028} \u{feff} 😀 a\u{301}"),
                "é ü \u{2028} \u{feff} 😀 a\u{301}",
            ),
            (vec![0xD800], r"\ud800"),
            (vec![0x61, 0xDC00, 0x62], r"a\udc00b"),
            (vec![0xD83D, 0xDE00, 0xD83D], r"😀\ud83d"),
            (
                vec![0xDBFF, 0xDFFF, 0xDC00, 0xD800, 0xD800, 0xDC00],
                "\u{10ffff}\\udc00\\ud800𐀀",
            ),
        ];
        for (units, expected) in cases {
            let mut narrow = String::new();
            push_json_escaped_utf8(&mut narrow, &units);
            assert_eq!(narrow, expected, "{units:x?}");
            let mut wide = JsString::new();
            push_json_escaped(&mut wide, &units);
            assert_eq!(wide, expected, "{units:x?}");
        }
    }

    #[test]
    fn json_escaping_in_utf16_and_in_utf8_write_the_same_text_for_any_units() {
        // Units from an alphabet of every kind the escapers tell apart, in random sequences.
        let alphabet = [
            0x00, 0x01, 0x08, 0x09, 0x0A, 0x0C, 0x0D, 0x1F, 0x20, 0x22, 0x2F, 0x5C, 0x61, 0x7E,
            0x7F, 0x80, 0xE9, 0x2028, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xFEFF, 0xFFFF,
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        for _ in 0..20_000 {
            let mut units = Vec::new();
            // Mostly short, and one in ten longer than the UTF-8 escaper's 256-byte block.
            let len = if state.is_multiple_of(10) {
                250 + state % 400
            } else {
                state % 12
            };
            for _ in 0..len {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                // Three in four plain letters, so that runs of eight plain units come up too.
                units.push(if state.is_multiple_of(4) {
                    alphabet[(state / 4 % alphabet.len() as u64) as usize]
                } else {
                    0x61 + (state / 4 % 26) as u16
                });
            }
            state = state.wrapping_add(1);
            let mut narrow = String::new();
            push_json_escaped_utf8(&mut narrow, &units);
            let mut wide = JsString::new();
            push_json_escaped(&mut wide, &units);
            assert_eq!(wide, narrow.as_str(), "{units:x?}");
        }
    }

    #[test]
    fn json_escaping_in_utf8_is_whole_across_the_edges_of_its_block() {
        // Texts that fill the UTF-8 escaper's 256-byte block exactly, or nearly, before a piece
        // of one byte, an escape, a character of several bytes, or a run longer than the block.
        let mut texts = Vec::new();
        for before in 250..=260 {
            for after in ["b", "\"b\"", "b\"", "é", "\u{1}", "😀b", &"c".repeat(300)] {
                texts.push(format!("{}{after}", "a".repeat(before)));
                texts.push(format!("\"{}{after}", "a".repeat(before)));
            }
        }
        for text in texts {
            let units: Vec<u16> = text.encode_utf16().collect();
            let mut narrow = String::new();
            push_json_escaped_utf8(&mut narrow, &units);
            let mut wide = JsString::new();
            push_json_escaped(&mut wide, &units);
            assert_eq!(wide, narrow.as_str(), "{text:?}");
        }
    }

    fn js(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn trimming_removes_feff_and_keeps_next_line() {
        assert_eq!(trim(&js("\u{feff} a \u{3000}")), js("a").as_slice());
        assert_eq!(trim(&js("\u{85}a\u{85}")), js("\u{85}a\u{85}").as_slice());
        assert!(is_blank(&js("\u{feff}\u{2028}\u{205f}")));
        assert!(!is_blank(&js("\u{200b}")));
        assert!(!is_blank(&js("\u{180e}")));
    }

    #[test]
    fn truncate_keeps_text_at_the_limit_and_cuts_one_past_it() {
        assert_eq!(truncate(&js("abcd"), 4), "abcd");
        assert_eq!(truncate(&js("abcde"), 4), "abc…");
    }

    #[test]
    fn truncate_can_leave_a_lone_high_surrogate() {
        let cut = truncate(&js("a😀😀"), 3);
        assert_eq!(cut.units(), &[0x61, 0xD83D, ELLIPSIS]);
    }

    #[test]
    fn json_quote_escapes_controls_and_lone_surrogates_but_not_del_or_line_separator() {
        let mut s = js("\"\\\u{8}\t\n\u{c}\r\u{1}\u{7f}\u{2028}/é😀");
        s.push(0xDC00);
        let quoted = json_quote(&s);
        assert_eq!(
            quoted,
            "\"\\\"\\\\\\b\\t\\n\\f\\r\\u0001\u{7f}\u{2028}/é😀\\udc00\""
        );
    }

    #[test]
    fn path_names_escape_separators_and_controls() {
        let mut out = JsString::new();
        push_path_name(&mut out, &js("a.b[0]\\c\td\u{7f}\"é"));
        assert_eq!(out, "a\\.b\\[0\\]\\\\c\\u0009d\\u007f\"é");
    }
}
