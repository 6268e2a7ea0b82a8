//! Reading a line reference `<LINE>#<HASH>#<ANCHOR>`: tolerant normalization, then parsing (§1.4).

use super::anchors::is_hash_letter;
use crate::exec::text::{CR, LF, is_digit, text};
use crate::text::{is_trim_unit, trim};

/// A parsed reference.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Reference {
    /// The line number, read as a double (§1.4).
    pub(crate) line: f64,
    /// The two letters of the line hash.
    pub(crate) hash: [u16; 2],
    /// The two letters of the anchor hash, when the reference has its third part.
    pub(crate) anchor: Option<[u16; 2]>,
    /// The normalized reference, the text edits are keyed by (§1.9.2).
    pub(crate) normalized: Vec<u16>,
}

/// Reads the trimmed reference `r`; a refusal is the text of §1.4 without `Error: `.
pub(crate) fn read(r: &[u16]) -> Result<Reference, Vec<u16>> {
    let t = trim(r);
    let normalized = normalize(t);
    if let Some(reference) = parse_full(&normalized) {
        return Ok(reference);
    }
    Err(refusal(t, r))
}

/// Steps 1 to 8 of the normalization: the normalized reference, or `t` when nothing matches.
fn normalize(r: &[u16]) -> Vec<u16> {
    let t = trim(r);
    let mut s = strip_marker(t);
    s = join_hashes(&s);
    let tail_start = last_line_break(&s).map_or(0, |i| i + 1);
    if let Some(bar) = s[tail_start..].iter().position(|&u| u == u16::from(b'|')) {
        s.truncate(tail_start + bar);
    }
    let s = trim(&s);
    if parse_full(s).is_some() {
        return s.to_vec();
    }
    match find_embedded(s) {
        Some(found) => found.to_vec(),
        None => t.to_vec(),
    }
}

/// The refusal text of a reference that does not parse (§1.4).
fn refusal(t: &[u16], r: &[u16]) -> Vec<u16> {
    if let Some(p) = t.iter().position(|&u| u == u16::from(b'#'))
        && p > 0
        && !t[..p].iter().all(|&u| is_digit(u))
        && is_letter_tail(&t[p + 1..])
    {
        let mut out = text("Invalid line reference: \"");
        out.u(r).s("\". \"").u(&t[..p]);
        out.s("\" is not a line number. Use the exact line number from the latest read output.");
        return out.0;
    }
    let mut out = text("Invalid line reference format: \"");
    out.u(r).s("\". Expected format: \"{line_number}#{hash_id}\" or \"{line_number}#{hash_id}#{anchor_hash}\"");
    out.0
}

/// `^([0-9]+)#([A]{2})(?:#([A]{2}))?$` over the whole text.
fn parse_full(s: &[u16]) -> Option<Reference> {
    let digits = s.iter().take_while(|&&u| is_digit(u)).count();
    if digits == 0 {
        return None;
    }
    let (hash, anchor, len) = letters_part(&s[digits..])?;
    if digits + len != s.len() {
        return None;
    }
    let line = String::from_utf16_lossy(&s[..digits]).parse::<f64>().ok()?;
    Some(Reference {
        line,
        hash,
        anchor,
        normalized: s.to_vec(),
    })
}

/// `#[A]{2}(?:#[A]{2})?` at the start of `s`, greedy: the two parts and the length matched.
fn letters_part(s: &[u16]) -> Option<([u16; 2], Option<[u16; 2]>, usize)> {
    let pair = |at: usize| -> Option<[u16; 2]> {
        match s.get(at..at + 3)? {
            [h, a, b] if *h == u16::from(b'#') && is_hash_letter(*a) && is_hash_letter(*b) => {
                Some([*a, *b])
            }
            _ => None,
        }
    };
    let hash = pair(0)?;
    match pair(3) {
        Some(anchor) => Some((hash, Some(anchor), 6)),
        None => Some((hash, None, 3)),
    }
}

/// The leftmost match of `[0-9]+#[A]{2}(?:#[A]{2})?` in `s`.
fn find_embedded(s: &[u16]) -> Option<&[u16]> {
    let mut i = 0;
    while i < s.len() {
        if !is_digit(s[i]) {
            i += 1;
            continue;
        }
        let run = s[i..].iter().take_while(|&&u| is_digit(u)).count();
        if let Some((_, _, len)) = letters_part(&s[i + run..]) {
            return Some(&s[i..i + run + len]);
        }
        i += run;
    }
    None
}

/// Step 2: one leading `>>>`, `+` or `-`, and the whitespace after it, removed.
fn strip_marker(t: &[u16]) -> Vec<u16> {
    let marker = if t.starts_with(&[0x3E, 0x3E, 0x3E]) {
        3
    } else if matches!(t.first(), Some(&0x2B) | Some(&0x2D)) {
        1
    } else {
        return t.to_vec();
    };
    let rest = &t[marker..];
    let spaces = rest.iter().take_while(|&&u| is_trim_unit(u)).count();
    rest[spaces..].to_vec()
}

/// Step 3: each `\s*#\s*` replaced by `#`.
fn join_hashes(s: &[u16]) -> Vec<u16> {
    let hash = u16::from(b'#');
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if is_trim_unit(s[i]) {
            let run = s[i..].iter().take_while(|&&u| is_trim_unit(u)).count();
            if s.get(i + run) != Some(&hash) {
                out.extend_from_slice(&s[i..i + run]);
            }
            i += run;
        } else if s[i] == hash {
            out.push(hash);
            i += 1;
            i += s[i..].iter().take_while(|&&u| is_trim_unit(u)).count();
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    out
}

/// The position of the last unit that `.` does not match (LF, CR, U+2028, U+2029).
fn last_line_break(s: &[u16]) -> Option<usize> {
    s.iter()
        .rposition(|&u| u == LF || u == CR || u == 0x2028 || u == 0x2029)
}

/// `^[A]{2}(?:#[A]{2})?$`.
fn is_letter_tail(s: &[u16]) -> bool {
    let letter = |i: usize| s.get(i).is_some_and(|&u| is_hash_letter(u));
    match s.len() {
        2 => letter(0) && letter(1),
        5 => letter(0) && letter(1) && s[2] == u16::from(b'#') && letter(3) && letter(4),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    fn normalized(s: &str) -> String {
        String::from_utf16_lossy(&normalize(&u(s)))
    }

    #[test]
    fn the_normalization_table_of_the_spec_holds() {
        assert_eq!(normalized("  2#ZS#QW  "), "2#ZS#QW");
        assert_eq!(normalized(">>> 2 # ZS # QW|  return \"hi\";"), "2#ZS#QW");
        assert_eq!(normalized("-  2 # ZS # QW"), "2#ZS#QW");
        assert_eq!(normalized("2#ZS#QW#PP"), "2#ZS#QW");
        assert_eq!(normalized("L2#ZS#QW"), "2#ZS#QW");
        assert_eq!(normalized("see 12#ZS here"), "12#ZS");
        assert_eq!(normalized("02#ZS#QW"), "02#ZS#QW");
        assert_eq!(read(&u("02#ZS#QW")).map(|r| r.line), Ok(2.0));
    }

    #[test]
    fn refusals_name_the_prefix_or_the_format() {
        let refused = |s: &str| String::from_utf16_lossy(&read(&u(s)).expect_err("a refusal"));
        let not_a_number = refused("two#ZS#QW");
        assert!(
            not_a_number.starts_with("Invalid line reference: \"two#ZS#QW\". \"two\" is not"),
            "{not_a_number}"
        );
        let format = refused("#ZS#QW");
        assert!(format.starts_with("Invalid line reference format: \"#ZS#QW\". Expected format: \"{line_number}#{hash_id}\""), "{format}");
        assert!(refused("2#zs#qw").starts_with("Invalid line reference format"));
    }

    #[test]
    fn huge_line_numbers_read_as_doubles() {
        assert_eq!(
            read(&u("9007199254740993#ZS#QW")).map(|r| r.line),
            Ok(9_007_199_254_740_992.0)
        );
    }
}
