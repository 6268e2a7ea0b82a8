//! A row's change in its file: the bytes it really replaces (its `find` and `replace` without
//! their common head and tail), and the same without whitespace at the ends.

use std::ops::Range;

/// A row's change in its file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change<'a> {
    /// The original bytes it replaces.
    pub range: Range<usize>,
    /// What replaces them.
    pub middle: &'a str,
}

impl<'a> Change<'a> {
    /// The bytes a row really changes in `text` (where `find` occurs), and what it puts there:
    /// its `find` and `replace` without their common head and tail.
    pub fn of(text: &str, find: &str, replace: &'a str) -> Option<Change<'a>> {
        let at = text.find(find)?;
        let prefix = common_prefix(find, replace);
        let suffix = common_suffix(&find[prefix..], &replace[prefix..]);
        Some(Change {
            range: at + prefix..at + find.len() - suffix,
            middle: &replace[prefix..replace.len() - suffix],
        })
    }

    /// The change without whitespace at the ends of its range; an insertion moves left over
    /// whitespace, next to the token before it.
    pub fn trimmed(&self, text: &str) -> Change<'a> {
        let (mut start, mut end) = (self.range.start, self.range.end);
        let last = |i: usize| text[..i].chars().next_back().filter(|c| c.is_whitespace());
        if start == end {
            while let Some(c) = last(start) {
                start -= c.len_utf8();
            }
            end = start;
        } else {
            while let Some(c) = text[start..end]
                .chars()
                .next()
                .filter(|c| c.is_whitespace())
            {
                start += c.len_utf8();
            }
            while let Some(c) = last(end).filter(|_| end > start) {
                end -= c.len_utf8();
            }
        }
        Change {
            range: start..end,
            middle: self.middle,
        }
    }
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map_or(a.len().min(b.len()), |((i, _), _)| i)
}

fn common_suffix(a: &str, b: &str) -> usize {
    let n = a
        .chars()
        .rev()
        .zip(b.chars().rev())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x.len_utf8())
        .sum::<usize>();
    n.min(a.len()).min(b.len())
}
