//! Line hashes, anchor hashes and the anchored view of a file (`execution.md` §1.1–§1.3).

use std::fmt;
use std::path::Path;

use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};
use xxhash_rust::xxh32::xxh32;

use super::canonical::canonicalize;
use crate::exec::text::{CR, LF, decode, encode, split_lf, trim_end};
use crate::js_string::JsString;

/// The 16 letters of hashes: letter 0 is `Z`, letter 15 is `H` (§1.1).
pub const ALPHABET: &[u8; 16] = b"ZPMQVRWSNKTXJBYH";

/// U+241E SYMBOL FOR RECORD SEPARATOR, between the three lines of an anchor hash.
const SEPARATOR: u16 = 0x241E;
/// The suffix of a row the host truncated; such a row is shown without anchors.
const TRUNCATED: &str = "... (line truncated to 2000 chars)";

/// Why a file has no anchored view.
#[derive(Debug)]
pub enum AnchorsError {
    /// The path does not exist.
    Missing(String),
    /// The path is a directory.
    Directory(String),
    /// The file could not be read.
    Io(String, std::io::Error),
}

impl fmt::Display for AnchorsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnchorsError::Missing(path) => {
                write!(
                    f,
                    "{path}: no such file; an anchored view needs an existing file"
                )
            }
            AnchorsError::Directory(path) => {
                write!(f, "{path}: is a directory; an anchored view needs a file")
            }
            AnchorsError::Io(path, error) => write!(f, "{path}: cannot be read: {error}"),
        }
    }
}

impl std::error::Error for AnchorsError {}

/// The anchored view of the file at `path` (§1.3).
pub fn anchors(path: &Path) -> Result<JsString, AnchorsError> {
    let shown = || path.display().to_string();
    let metadata = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => AnchorsError::Missing(shown()),
        _ => AnchorsError::Io(shown(), e),
    })?;
    if metadata.is_dir() {
        return Err(AnchorsError::Directory(shown()));
    }
    let bytes = std::fs::read(path).map_err(|e| AnchorsError::Io(shown(), e))?;
    Ok(anchors_of_text(&decode(&bytes)))
}

/// The anchored view of a decoded text (§1.3): one row per canonical line, joined with LF.
pub fn anchors_of_text(text: &[u16]) -> JsString {
    let canonical = canonicalize(text);
    let lines = split_lf(&canonical.text);
    let mut out = JsString::new();
    let mut anchoring = true;
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push_units(&[LF]);
        }
        let n = i + 1;
        anchoring &= !line.iter().any(|&u| u == 0x2028 || u == 0x2029);
        if anchoring && !ends_with_str(line, TRUNCATED) {
            let previous = i.checked_sub(1).map(|p| lines[p]);
            let next = lines.get(n).copied();
            push_anchored_row(&mut out, n, previous, line, next);
        } else {
            out.push_str(&format!("{n}: "));
            out.push_units(line);
        }
    }
    out
}

/// The two-letter line hash of line `n` (1-based) with text `line` (§1.2).
pub fn line_hash(n: usize, line: &[u16]) -> [u8; 2] {
    let s = clean(line);
    let seed = if has_letter_or_digit(&s) { 0 } else { n as u32 };
    letters(xxh32(&encode(&s), seed))
}

/// The two-letter anchor hash of line `n` with its neighbours (§1.2); absent neighbours are `None`.
pub fn anchor_hash(
    n: usize,
    previous: Option<&[u16]>,
    line: &[u16],
    next: Option<&[u16]>,
) -> [u8; 2] {
    let mut t = clean(previous.unwrap_or(&[]));
    t.push(SEPARATOR);
    t.extend(clean(line));
    t.push(SEPARATOR);
    t.extend(clean(next.unwrap_or(&[])));
    letters(xxh32(&encode(&t), n as u32))
}

/// Appends the row `<n>#<HASH>#<ANCHOR>|<line>`.
pub(crate) fn push_anchored_row(
    out: &mut JsString,
    n: usize,
    previous: Option<&[u16]>,
    line: &[u16],
    next: Option<&[u16]>,
) {
    let hash = line_hash(n, line);
    let anchor = anchor_hash(n, previous, line, next);
    out.push_str(&format!("{n}#"));
    out.push_str(&String::from_utf8_lossy(&hash));
    out.push_str("#");
    out.push_str(&String::from_utf8_lossy(&anchor));
    out.push_str("|");
    out.push_units(line);
}

/// Whether a unit is one of the 16 hash letters.
pub(crate) fn is_hash_letter(u: u16) -> bool {
    ALPHABET.iter().any(|&a| u16::from(a) == u)
}

/// clean(x): every CR removed, then trailing whitespace.
fn clean(line: &[u16]) -> Vec<u16> {
    let without_cr: Vec<u16> = line.iter().copied().filter(|&u| u != CR).collect();
    trim_end(&without_cr).to_vec()
}

/// Whether the text holds a code point of general category L or N (a lone surrogate holds none).
fn has_letter_or_digit(units: &[u16]) -> bool {
    char::decode_utf16(units.iter().copied()).any(|c| {
        c.is_ok_and(|c| {
            matches!(
                c.general_category_group(),
                GeneralCategoryGroup::Letter | GeneralCategoryGroup::Number
            )
        })
    })
}

/// The two letters of the low 8 bits of `h`.
fn letters(h: u32) -> [u8; 2] {
    let b = (h & 0xFF) as usize;
    [ALPHABET[b / 16], ALPHABET[b % 16]]
}

fn ends_with_str(units: &[u16], suffix: &str) -> bool {
    let suffix: Vec<u16> = suffix.encode_utf16().collect();
    units.ends_with(&suffix)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    fn hashes(n: usize, previous: Option<&str>, line: &str, next: Option<&str>) -> String {
        let (p, l, x) = (previous.map(u), u(line), next.map(u));
        let hash = line_hash(n, &l);
        let anchor = anchor_hash(n, p.as_deref(), &l, x.as_deref());
        format!(
            "{}#{}",
            String::from_utf8_lossy(&hash),
            String::from_utf8_lossy(&anchor)
        )
    }

    #[test]
    fn xxh32_agrees_with_the_check_values() {
        assert_eq!(xxh32(b"", 0), 0x02CC_5D05);
        assert_eq!(xxh32(b"abc", 0), 0x32D1_53FF);
        assert_eq!(xxh32(b"abc", 1), 2_856_167_679);
    }

    #[test]
    fn hashes_match_the_function_table_of_the_spec() {
        type Row<'a> = (usize, Option<&'a str>, &'a str, Option<&'a str>, &'a str);
        let rows: &[Row<'_>] = &[
            (1, None, "const x = 1;", Some("const y = 2;"), "BP#RQ"),
            (1, None, "const x = 1;   ", Some("const y = 2;"), "BP#RQ"),
            (1, None, "const x = 1;\r", Some("const y = 2;"), "BP#RQ"),
            (
                1,
                None,
                "const x = 1;\t\u{a0}\u{3000}",
                Some("const y = 2;"),
                "BP#RQ",
            ),
            (2, Some("const x = 1;"), "const y = 2;", None, "NX#HP"),
            (2, Some("const x = 1;"), "const y = 2;", Some(""), "NX#HP"),
            (1, None, "x", None, "YT#HX"),
            (5, None, "x", None, "YT#MB"),
            (1, None, "  x", None, "MY#YW"),
            (1, None, "日本語", None, "XB#YV"),
            (1, None, "\u{e9}", None, "MS#ZV"),
            (1, None, "e\u{301}", None, "VX#BK"),
            (1, None, "\u{feff}x", None, "HY#BM"),
            (1, None, "", None, "KM#VK"),
            (2, None, "", None, "KM#QS"),
            (7, None, "", None, "HN#KP"),
            (3, None, "   ", None, "HW#WH"),
            (3, Some("a"), "}", Some("b"), "RZ#PS"),
            (4, Some("a"), "}", Some("b"), "NN#HT"),
            (300, Some("  return a;"), "}", Some(""), "TP#WW"),
        ];
        for &(n, p, line, x, want) in rows {
            assert_eq!(hashes(n, p, line, x), want, "line {n} {line:?}");
        }
    }

    #[test]
    fn the_category_test_knows_unicode_17() {
        let count = (0..=0x10_FFFF_u32)
            .filter_map(char::from_u32)
            .filter(|c| {
                matches!(
                    c.general_category_group(),
                    GeneralCategoryGroup::Letter | GeneralCategoryGroup::Number
                )
            })
            .count();
        assert_eq!(count, 147_596, "code points in L or N (Unicode 17.0)");
        assert!(
            has_letter_or_digit(&u("\u{10940}")),
            "U+10940 is a letter in 17.0"
        );
    }

    #[test]
    fn the_view_of_a_crlf_file_with_a_bom_hashes_its_canonical_lines() {
        let view = anchors_of_text(&u("\u{feff}alpha\r\nbeta\r\ngamma\r\n"));
        assert_eq!(
            view.to_string_lossy(),
            "1#JN#NJ|alpha\n2#NK#JK|beta\n3#WB#ZT|gamma\n4#RW#PT|"
        );
        assert_eq!(anchors_of_text(&[]).to_string_lossy(), "1#KM#VK|");
        assert_eq!(
            anchors_of_text(&u("\u{feff}")).to_string_lossy(),
            "1#KM#VK|"
        );
    }

    #[test]
    fn a_line_separator_stops_anchoring_from_its_row_on() {
        let view = anchors_of_text(&u("a\nb\u{2028}c\nd"));
        let rows: Vec<String> = view
            .to_string_lossy()
            .split('\n')
            .map(str::to_owned)
            .collect();
        assert!(rows[0].starts_with("1#"), "{rows:?}");
        assert_eq!(rows[1], "2: b\u{2028}c");
        assert_eq!(rows[2], "3: d");
    }
}
