//! The success text's diff summary and first change line, upstream's quirks included (§1.11).

use crate::exec::text::{Text, split_lf};

/// The most rows a diff summary shows before it is cut.
const MAX_ROWS: usize = 40;

/// The summary of a change from `before` to `after` (line lists of §1.9.1).
#[derive(Clone, Debug)]
pub(crate) struct Summary {
    /// Lines added.
    pub(crate) added: usize,
    /// Lines removed.
    pub(crate) removed: usize,
    /// The rows, already cut to 40.
    pub(crate) rows: Vec<Vec<u16>>,
}

/// The diff summary: common prefix and suffix stripped, the trailing context read in `after`
/// at positions computed in `before`, as upstream does.
pub(crate) fn summary(before: &[Vec<u16>], after: &[Vec<u16>]) -> Summary {
    let shorter = before.len().min(after.len());
    let p = before.iter().zip(after).take_while(|(b, a)| b == a).count();
    let q = before
        .iter()
        .rev()
        .zip(after.iter().rev())
        .take(shorter - p)
        .take_while(|(b, a)| b == a)
        .count();
    let removed = &before[p..before.len() - q];
    let added = &after[p..after.len() - q];
    let mut rows: Vec<Vec<u16>> = Vec::new();
    if !removed.is_empty() || !added.is_empty() {
        rows.push(row("", &format!("@@ changed lines {} @@", p + 1)));
        let mut push = |prefix: &str, line: &[u16]| {
            let mut r = Text::default();
            r.s(prefix).u(line);
            rows.push(r.0);
        };
        for line in &before[p.saturating_sub(2)..p] {
            push("  ", line);
        }
        for line in removed {
            push("- ", line);
        }
        for line in added {
            push("+ ", line);
        }
        let t = before.len() - q;
        for i in t..before.len().min(t + 2) {
            match after.get(i) {
                Some(line) => push("  ", line),
                None => push("  undefined", &[]),
            }
        }
    }
    if rows.len() > MAX_ROWS {
        let more = rows.len() - (MAX_ROWS - 1);
        rows.truncate(MAX_ROWS - 1);
        rows.push(row("", &format!("\u{2026} ({more} more diff lines)")));
    }
    Summary {
        added: added.len(),
        removed: removed.len(),
        rows,
    }
}

/// The first change line: the 1-based index of the first differing LF piece, if any.
pub(crate) fn first_change_line(before: &[u16], after: &[u16]) -> Option<usize> {
    let (b, a) = (split_lf(before), split_lf(after));
    (0..b.len().max(a.len()))
        .find(|&i| b.get(i).copied().unwrap_or(&[]) != a.get(i).copied().unwrap_or(&[]))
        .map(|i| i + 1)
}

fn row(prefix: &str, text: &str) -> Vec<u16> {
    let mut r = Text::default();
    r.s(prefix).s(text);
    r.0
}
