//! The batch: duplicates dropped, edits ordered, overlaps and stale anchors refused (§1.9.2–§1.9.5).

use std::cmp::Ordering;

use super::anchors::{anchor_hash, line_hash, push_anchored_row};
use super::edits::{Edit, Op};
use crate::catalog::MAX_SAFE_INTEGER;
use crate::exec::text::{Text, number};
use crate::js_string::JsString;

/// The smallest double from which adding one no longer moves: 2^53. The contract's largest
/// integer, `MAX_SAFE_INTEGER` (2^53 − 1), is the last whose successor a double still holds
/// exactly; one past it, 2^53 + 1 rounds back to 2^53, so a walk counting by one stalls there.
const STALL: f64 = (MAX_SAFE_INTEGER + 1) as f64;

/// The edits without duplicates, and how many were dropped (§1.9.2).
pub(crate) fn dedupe(edits: Vec<Edit>) -> (Vec<Edit>, usize) {
    let mut kept: Vec<Edit> = Vec::with_capacity(edits.len());
    let mut keys = Vec::with_capacity(edits.len());
    let mut duplicates = 0;
    for edit in edits {
        let key = (
            edit.op,
            edit.pos.as_ref().map(|r| r.normalized.clone()),
            edit.end.as_ref().map(|r| r.normalized.clone()),
            edit.payload.key_text(),
        );
        if keys.contains(&key) {
            duplicates += 1;
        } else {
            keys.push(key);
            kept.push(edit);
        }
    }
    (kept, duplicates)
}

/// The edits in the order they apply: bottom-up, ties broken by op and position (§1.9.3).
pub(crate) fn order(edits: Vec<Edit>) -> Vec<Edit> {
    let mut indexed: Vec<(usize, Edit)> = edits.into_iter().enumerate().collect();
    indexed.sort_by(|(ia, a), (ib, b)| {
        key_line(b)
            .partial_cmp(&key_line(a))
            .unwrap_or(Ordering::Equal)
            .then(a.op.cmp(&b.op))
            .then_with(|| {
                let later_first = a.op == Op::Prepend || (a.op == Op::Append && a.pos.is_some());
                if later_first { ib.cmp(ia) } else { ia.cmp(ib) }
            })
    });
    indexed.into_iter().map(|(_, edit)| edit).collect()
}

/// Refuses overlapping replaces and inserts into replaced lines, by line numbers only (§1.9.4).
pub(crate) fn check_overlaps(edits: &[Edit]) -> Result<(), Vec<u16>> {
    // Each claim is the walk's visited values: an interval of integers, all exact below 2^53.
    let mut claims: Vec<(f64, f64, usize, Op)> = Vec::new();
    for (k, edit) in edits.iter().enumerate().filter(|(_, e)| is_replace(e.op)) {
        let (start, end) = (edit.start(), edit.end_line());
        let (from, to) = (start - 1.0, end - 1.0);
        if from > to {
            continue;
        }
        // The walk claims from, from + 1, ... up to `to`; at or above 2^53 it stops moving and
        // meets its own claim on the next step.
        let stall = if from >= STALL {
            Some(from)
        } else if to >= STALL {
            Some(STALL)
        } else {
            None
        };
        let last = stall.unwrap_or(to);
        let earlier = claims
            .iter()
            .filter(|(lo, hi, _, _)| *lo <= last && *hi >= from)
            .map(|(lo, _, j, op)| (lo.max(from), *j, *op))
            .min_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(Ordering::Equal));
        let conflict = match (earlier, stall) {
            (Some((at, j, op)), Some(z)) if at <= z => Some((j, op)),
            (_, Some(_)) => Some((k, edit.op)),
            (Some((_, j, op)), None) => Some((j, op)),
            (None, None) => None,
        };
        if let Some((j, op_j)) = conflict {
            return Err(crate::exec::text::text(&format!(
                "Overlapping edits: edit {} (lines {}-{}, {}) overlaps with edit {} ({})",
                k + 1,
                number(start),
                number(end),
                edit.op.as_str(),
                j + 1,
                op_j.as_str()
            ))
            .0);
        }
        claims.push((from, last, k, edit.op));
    }
    for (k, edit) in edits.iter().enumerate() {
        let Some(anchor) = edit.pos.as_ref().filter(|_| !is_replace(edit.op)) else {
            continue;
        };
        let a = anchor.line;
        if a < 1.0 {
            continue;
        }
        let covers = |e: &Edit| e.start() <= a && a <= e.end_line();
        let replaced = edits
            .iter()
            .position(|e| e.op == Op::ReplaceRange && e.start() != e.end_line() && covers(e))
            .or_else(|| {
                edits
                    .iter()
                    .position(|e| is_replace(e.op) && e.payload.is_empty_list() && covers(e))
            });
        if let Some(j) = replaced {
            let by = &edits[j];
            return Err(crate::exec::text::text(&format!(
                "Conflicting edits: edit {} ({} at line {}) references a line replaced by edit {} (lines {}-{})",
                k + 1,
                edit.op.as_str(),
                number(a),
                j + 1,
                number(by.start()),
                number(by.end_line())
            ))
            .0);
        }
    }
    Ok(())
}

/// Checks every reference against the file's lines; out of bounds or stale refuses (§1.9.5).
pub(crate) fn check_anchors(edits: &[Edit], lines: &[Vec<u16>]) -> Result<(), Vec<u16>> {
    let n_lines = lines.len();
    let mut stale: Vec<usize> = Vec::new();
    let references = edits.iter().flat_map(|e| e.pos.iter().chain(e.end.iter()));
    for reference in references {
        let n = reference.line;
        if n < 1.0 || n > n_lines as f64 {
            return Err(crate::exec::text::text(&format!(
                "Line number {} out of bounds (file has {n_lines} lines)",
                number(n)
            ))
            .0);
        }
        let i = n as usize;
        let line = &lines[i - 1];
        let previous = (i > 1).then(|| lines[i - 2].as_slice());
        let next = lines.get(i).map(Vec::as_slice);
        let hash = line_hash(i, line).map(u16::from);
        let anchor = anchor_hash(i, previous, line, next).map(u16::from);
        if reference.hash != hash || reference.anchor.is_some_and(|a| a != anchor) {
            stale.push(i);
        }
    }
    if stale.is_empty() {
        return Ok(());
    }
    Err(mismatch(&stale, lines))
}

/// The mismatch text: a header, the windows around stale lines, and a tip (§1.9.5).
fn mismatch(stale: &[usize], lines: &[Vec<u16>]) -> Vec<u16> {
    let m = stale.len();
    let mut out = Text::default();
    if m == 1 {
        out.s("hash mismatch - 1 line has changed since last read.");
    } else {
        out.s(&format!(
            "hash mismatch - {m} lines have changed since last read."
        ));
    }
    out.s(" Use updated {line_number}#{hash_id} references below (>>> marks changed lines).\n\n");
    let n_lines = lines.len();
    let mut shown: Vec<usize> = stale
        .iter()
        .flat_map(|&s| s.saturating_sub(2).max(1)..=(s + 2).min(n_lines))
        .collect();
    shown.sort_unstable();
    shown.dedup();
    let mut previous_shown: Option<usize> = None;
    for &n in &shown {
        if previous_shown.is_some_and(|p| p + 1 != n) {
            out.s("    ...\n");
        }
        out.s(if stale.contains(&n) { ">>> " } else { "    " });
        let mut row = JsString::new();
        let previous = (n > 1).then(|| lines[n - 2].as_slice());
        push_anchored_row(
            &mut row,
            n,
            previous,
            &lines[n - 1],
            lines.get(n).map(Vec::as_slice),
        );
        out.u(row.units()).s("\n");
        previous_shown = Some(n);
    }
    out.s("Tip: reuse LINE#ID#ANCHOR entries from the latest read output or mismatch snippet, or batch related edits in one call.");
    out.0
}

/// The line an edit is ordered by: its end for a range, its anchor otherwise.
fn key_line(edit: &Edit) -> f64 {
    match edit.op {
        Op::ReplaceRange => edit.end_line(),
        Op::Replace | Op::Append | Op::Prepend => edit.start(),
    }
}

fn is_replace(op: Op) -> bool {
    matches!(op, Op::Replace | Op::ReplaceRange)
}
