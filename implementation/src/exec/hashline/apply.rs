//! Applying the ordered edits to the line list: payload prefixes, echoes, warnings, no-ops (§1.9.6–§1.9.7).

use super::anchors::is_hash_letter;
use super::edits::{Edit, Op, Payload};
use crate::exec::text::{LF, is_digit, number, text};
use crate::text::is_trim_unit;

/// What applying a batch produced.
#[derive(Clone, Debug, Default)]
pub(crate) struct Applied {
    /// The resulting line list.
    pub(crate) lines: Vec<Vec<u16>>,
    /// Warnings, in the order of application.
    pub(crate) warnings: Vec<Vec<u16>>,
    /// How many edits left the list as it was.
    pub(crate) no_ops: usize,
}

/// Applies `edits`, already ordered and checked, to `lines`; a failure is the call's text.
pub(crate) fn apply(lines: Vec<Vec<u16>>, edits: &[Edit]) -> Result<Applied, Vec<u16>> {
    let mut applied = Applied {
        lines,
        ..Applied::default()
    };
    for edit in edits {
        let payload = payload_lines(&edit.payload);
        let next = apply_one(&applied.lines, edit, payload, &mut applied.warnings)?;
        if next == applied.lines {
            applied.no_ops += 1;
        } else {
            applied.lines = next;
        }
    }
    Ok(applied)
}

/// The payload as lines, with prefixes copied from a view or a diff stripped (§1.9.6).
pub(crate) fn payload_lines(payload: &Payload) -> Vec<Vec<u16>> {
    let mut lines: Vec<Vec<u16>> = match payload {
        Payload::List(lines) => lines.clone(),
        Payload::Text(text) => text.split(|&u| u == LF).map(<[u16]>::to_vec).collect(),
    };
    let counted = lines.iter().filter(|l| !l.is_empty()).count();
    let hashed = lines.iter().filter(|l| hash_prefix(l).is_some()).count();
    let plussed = lines.iter().filter(|l| is_plus_prefixed(l)).count();
    if hashed >= 1 && 2 * hashed >= counted {
        for line in &mut lines {
            if let Some(len) = hash_prefix(line) {
                line.drain(..len);
            }
        }
    } else if plussed >= 1 && 2 * plussed >= counted {
        for line in lines.iter_mut().filter(|l| is_plus_prefixed(l)) {
            line.remove(0);
        }
    }
    lines
}

/// The result of one edit on `list` (§1.9.7).
fn apply_one(
    list: &[Vec<u16>],
    edit: &Edit,
    mut p: Vec<Vec<u16>>,
    warnings: &mut Vec<Vec<u16>>,
) -> Result<Vec<Vec<u16>>, Vec<u16>> {
    let len = list.len();
    let at = |n: f64| (n.max(1.0) as usize).min(len + 1);
    let mut out = list.to_vec();
    match (edit.op, &edit.pos) {
        (Op::Replace, _) => {
            let n = at(edit.start());
            out.splice(n - 1..n.min(len), p);
        }
        (Op::ReplaceRange, _) => {
            let (s, e) = (edit.start(), edit.end_line());
            if s > e {
                return Err(text(&format!(
                    "Invalid range: start line {} cannot be greater than end line {}",
                    number(s),
                    number(e)
                ))
                .0);
            }
            let (s, e) = (at(s), at(e).min(len));
            let mut dropped = 0;
            if p.len() > e + 1 - s {
                if s >= 2 && p.first() == list.get(s - 2) {
                    p.remove(0);
                    dropped += 1;
                }
                if e < len && !p.is_empty() && p.last() == list.get(e) {
                    p.pop();
                    dropped += 1;
                }
            }
            if dropped >= 1 {
                warnings.push(text(&format!(
                    "replace_range lines {s}-{e}: dropped {dropped} exact boundary echo line(s) duplicating surviving neighbors; the rest of the payload was applied literally"
                )).0);
            }
            out.splice(s - 1..e, p);
        }
        (Op::Append, Some(anchor)) => {
            let a = at(anchor.line).min(len);
            if a == 0 {
                return Err(out_of_bounds(anchor.line, len));
            }
            if !p.is_empty() && p.first() == list.get(a - 1) {
                p.remove(0);
                warnings.push(
                    text(&format!(
                        "append at line {a}: dropped payload line identical to the anchor line"
                    ))
                    .0,
                );
            }
            if p.is_empty() {
                return Err(requires_text("append", &edit.anchor_text));
            }
            let k = p.len();
            if list
                .get(a..a + k)
                .is_some_and(|following| following == p.as_slice())
            {
                warnings.push(text(&format!("append at line {a}: payload duplicates the {k} line(s) already following the anchor; applying literally creates a duplicate block")).0);
            }
            out.splice(a..a, p);
        }
        (Op::Prepend, Some(anchor)) => {
            let a = at(anchor.line).min(len);
            if a == 0 {
                return Err(out_of_bounds(anchor.line, len));
            }
            if !p.is_empty() && p.last() == list.get(a - 1) {
                p.pop();
                warnings.push(
                    text(&format!(
                        "prepend at line {a}: dropped payload line identical to the anchor line"
                    ))
                    .0,
                );
            }
            if p.is_empty() {
                return Err(requires_text("prepend", &edit.anchor_text));
            }
            let k = p.len();
            if a > k && list[a - 1 - k..a - 1] == p[..] {
                warnings.push(text(&format!("prepend at line {a}: payload duplicates the {k} line(s) already preceding the anchor; applying literally creates a duplicate block")).0);
            }
            out.splice(a - 1..a - 1, p);
        }
        (Op::Append, None) => {
            if p.is_empty() {
                return Err(text("append requires non-empty text").0);
            }
            if is_one_empty_line(list) {
                return Ok(p);
            }
            if len >= 2 && list.last().is_some_and(Vec::is_empty) {
                out.splice(len - 1..len - 1, p);
            } else {
                out.extend(p);
            }
        }
        (Op::Prepend, None) => {
            if p.is_empty() {
                return Err(text("prepend requires non-empty text").0);
            }
            if is_one_empty_line(list) {
                return Ok(p);
            }
            out.splice(0..0, p);
        }
    }
    Ok(out)
}

/// Only reached if the checks of §1.9.5 were bypassed: an anchor past the current list.
fn out_of_bounds(line: f64, len: usize) -> Vec<u16> {
    text(&format!(
        "Line number {} out of bounds (file has {len} lines)",
        number(line)
    ))
    .0
}

fn requires_text(op: &str, anchor: &[u16]) -> Vec<u16> {
    let mut out = text(&format!("{op} (anchored) requires non-empty text for "));
    out.u(anchor);
    out.0
}

fn is_one_empty_line(list: &[Vec<u16>]) -> bool {
    matches!(list, [only] if only.is_empty())
}

/// The length of the prefix matched by
/// `^\s*(?:>>>|>>)?\s*\d+\s*#\s*[A]{2}(?:\s*#\s*[A]{2})?\|`, if the line has one.
fn hash_prefix(line: &[u16]) -> Option<usize> {
    let spaces = |i: usize| {
        i + line[i.min(line.len())..]
            .iter()
            .take_while(|&&u| is_trim_unit(u))
            .count()
    };
    let is = |i: usize, c: u8| line.get(i) == Some(&u16::from(c));
    let letters = |i: usize| {
        line.get(i).is_some_and(|&u| is_hash_letter(u))
            && line.get(i + 1).is_some_and(|&u| is_hash_letter(u))
    };
    let mut i = spaces(0);
    if is(i, b'>') && is(i + 1, b'>') {
        i += if is(i + 2, b'>') { 3 } else { 2 };
    }
    i = spaces(i);
    let digits = line.get(i..)?.iter().take_while(|&&u| is_digit(u)).count();
    if digits == 0 {
        return None;
    }
    i = spaces(i + digits);
    if !is(i, b'#') {
        return None;
    }
    i = spaces(i + 1);
    if !letters(i) {
        return None;
    }
    i += 2;
    let j = spaces(i);
    if is(j, b'#') {
        let k = spaces(j + 1);
        if letters(k) && is(k + 2, b'|') {
            return Some(k + 3);
        }
    }
    is(i, b'|').then_some(i + 1)
}

/// `^[+](?![+])`.
fn is_plus_prefixed(line: &[u16]) -> bool {
    line.first() == Some(&u16::from(b'+')) && line.get(1) != Some(&u16::from(b'+'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(payload: Payload) -> Vec<String> {
        payload_lines(&payload)
            .iter()
            .map(|l| String::from_utf16_lossy(l))
            .collect()
    }

    fn u(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    fn list(items: &[&str]) -> Payload {
        Payload::List(items.iter().map(|s| s.encode_utf16().collect()).collect())
    }

    #[test]
    fn an_anchor_on_an_empty_list_is_refused_with_the_out_of_bounds_text() {
        // §1.9.5 keeps every anchor within the list by the time it applies, so no call reaches
        // this; the applier still answers upstream's text instead of reaching before line 1.
        let anchor = super::super::reference::read(&u("1#ZZ#ZZ")).expect("a reference");
        let edit = Edit {
            op: Op::Append,
            pos: Some(anchor),
            end: None,
            anchor_text: u("1#ZZ#ZZ"),
            payload: list(&["x"]),
        };
        let refused = apply(Vec::new(), &[edit]).expect_err("an anchor past the list");
        assert_eq!(
            String::from_utf16_lossy(&refused),
            "Line number 1 out of bounds (file has 0 lines)"
        );
    }

    #[test]
    fn the_prefix_table_of_the_spec_holds() {
        assert_eq!(lines(list(&["2#ZS#QW|a", "b"])), ["a", "b"]);
        assert_eq!(lines(list(&["+a", "+b", "c"])), ["a", "b", "c"]);
        assert_eq!(lines(list(&["+a", "b", "c"])), ["+a", "b", "c"]);
        assert_eq!(lines(list(&["++a", "++b"])), ["++a", "++b"]);
        assert_eq!(lines(list(&["+x", "1#ZZ|y"])), ["+x", "y"]);
        assert_eq!(
            lines(list(&[">>> 3 # ZS|x", "   4#ZS#QW|  y", ""])),
            ["x", "  y", ""]
        );
        assert_eq!(
            lines(Payload::Text(
                "2#ZS#QW|one\n3#ZZ#ZZ|two".encode_utf16().collect()
            )),
            ["one", "two"]
        );
    }
}
