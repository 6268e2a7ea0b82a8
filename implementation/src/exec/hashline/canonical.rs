//! The canonical text of a file and its restoration: one BOM off, line endings to LF and back (§1.8).

use crate::exec::text::{BOM, CR, LF};

/// A decoded text in canonical form, with what restoration needs to write it back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Canonical {
    /// The text without its leading BOM, every CRLF and lone CR turned into LF.
    pub(crate) text: Vec<u16>,
    /// Whether one leading BOM was removed.
    pub(crate) bom: bool,
    /// Whether the first LF followed a CR, so the file is written back with CRLF.
    pub(crate) crlf: bool,
}

/// Canonicalizes a decoded text (§1.8).
pub(crate) fn canonicalize(decoded: &[u16]) -> Canonical {
    let (bom, rest) = match decoded.split_first() {
        Some((&BOM, rest)) => (true, rest),
        Some(_) | None => (false, decoded),
    };
    let crlf = rest
        .iter()
        .position(|&u| u == LF)
        .is_some_and(|i| i > 0 && rest[i - 1] == CR);
    let mut text = Vec::with_capacity(rest.len());
    let mut units = rest.iter().copied().peekable();
    while let Some(u) = units.next() {
        if u == CR {
            if units.peek() == Some(&LF) {
                units.next();
            }
            text.push(LF);
        } else {
            text.push(u);
        }
    }
    Canonical { text, bom, crlf }
}

/// The text to write for a canonical `text` in the style of `like` (§1.8).
pub(crate) fn restore(text: &[u16], like: &Canonical) -> Vec<u16> {
    let mut out = Vec::with_capacity(text.len() + 1);
    if like.bom {
        out.push(BOM);
    }
    for &u in text {
        if u == LF && like.crlf {
            out.push(CR);
        }
        out.push(u);
    }
    out
}

/// The line list of a canonical text: empty for the empty text, else its LF pieces (§1.9.1).
pub(crate) fn line_list(text: &[u16]) -> Vec<Vec<u16>> {
    if text.is_empty() {
        return Vec::new();
    }
    text.split(|&u| u == LF).map(<[u16]>::to_vec).collect()
}
