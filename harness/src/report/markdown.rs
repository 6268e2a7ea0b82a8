//! `conformance.md`: what a reviewer reads in a pull request, rendered from the typed report
//! alone, and kept under a size that fits a pull-request comment.

use std::fmt::Write as _;

use crate::outcome::{Outcome, Tally};
use crate::report::conformance::{Conformance, McpSection, ScenarioSection};
use crate::report::failures::{Failure, failures, shown};

/// The default size limit of `conformance.md`, in characters: GitHub takes 65,536 in a
/// comment, and this leaves room for what a workflow puts around the file.
pub const DEFAULT_LIMIT: usize = 60_000;

/// `conformance.md`, at most `limit` bytes (so at most as many characters) whenever the summary
/// and the stderr tail fit: each failure in full while the rest still fit in one line each,
/// then one line each, then a count of those left out, saying so in the file.
pub fn markdown(report: &Conformance, limit: usize) -> String {
    let head = summary(report);
    let tail = stderr_section(report);
    let failures = failures(report);
    let mut out = head;
    if !failures.is_empty() {
        // What the note and the section's heading take at most.
        const RESERVE: usize = 600;
        let budget = limit.saturating_sub(out.len() + tail.len() + RESERVE);
        let full: Vec<String> = failures.iter().map(full_entry).collect();
        let lines: Vec<String> = failures
            .iter()
            .map(|f| format!("- {}\n", f.one_line()))
            .collect();
        let packed = pack(&full, &lines, budget);
        let _ = writeln!(out, "\n## Not passing ({})", failures.len());
        if packed.in_full < failures.len() {
            let _ = writeln!(
                out,
                "\nShown in full: {} of {}; {} more in one line each; {} left out, to keep this \
                 file under {limit} characters (`--md-limit`). `conformance.json` has every entry.",
                packed.in_full,
                failures.len(),
                packed.in_lines,
                failures.len() - packed.in_full - packed.in_lines
            );
        }
        for entry in &full[..packed.in_full] {
            out.push_str(entry);
        }
        if packed.in_lines > 0 {
            out.push('\n');
        }
        for line in &lines[packed.in_full..packed.in_full + packed.in_lines] {
            out.push_str(line);
        }
        let left = failures.len() - packed.in_full - packed.in_lines;
        if left > 0 {
            let _ = writeln!(out, "\n… and {left} more (see `conformance.json`).");
        }
    }
    out.push_str(&tail);
    out
}

/// How many entries go in full, and how many more in one line each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Packed {
    in_full: usize,
    in_lines: usize,
}

/// The most entries in full such that they and every later entry's line fit the budget, then as
/// many lines as fit. When not even every line fits, the first entries in full take up to half
/// the budget, so the first failures are always shown whole if any can be.
fn pack(full: &[String], lines: &[String], budget: usize) -> Packed {
    // later[i]: the size of the lines of entries i.. (later[n] = 0).
    let mut later = vec![0; lines.len() + 1];
    for i in (0..lines.len()).rev() {
        later[i] = later[i + 1] + lines[i].len();
    }
    let mut used = 0;
    let mut in_full = 0;
    let every_line_fits = later[0] <= budget;
    let fits = |used: usize, i: usize| match every_line_fits {
        true => used + full[i].len() + later[i + 1] <= budget,
        false => used + full[i].len() <= budget / 2,
    };
    while in_full < full.len() && fits(used, in_full) {
        used += full[in_full].len();
        in_full += 1;
    }
    let mut in_lines = 0;
    while in_full + in_lines < lines.len() && used + lines[in_full + in_lines].len() <= budget {
        used += lines[in_full + in_lines].len();
        in_lines += 1;
    }
    Packed { in_full, in_lines }
}

fn summary(report: &Conformance) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Conformance report\n");
    let t = &report.tested;
    let _ = writeln!(
        out,
        "- Tested: `conform` {}, contract {}, vectors {} ({} files)",
        t.conform, t.contract, t.suite.digest, t.suite.files
    );
    match &t.peer {
        Some(command) => {
            let _ = writeln!(out, "- Peer: `{command}`");
        }
        None => {
            let _ = writeln!(out, "- Peer: none (the in-process reference)");
        }
    }
    let i = &report.implementation;
    let _ = writeln!(
        out,
        "- Implementation: `{}` {} ({}), claims {}",
        i.name,
        i.version,
        i.language,
        claims(&i.tools)
    );
    let v = &report.vectors;
    let _ = writeln!(
        out,
        "- Vectors: {} compared at level `{}`{}",
        v.asked,
        report.level,
        not_asked(&report.totals.outcomes)
    );
    let _ = writeln!(out, "- Result: {}", verdict(report));
    if let Some(mcp) = &report.mcp {
        let schemas: Vec<String> = mcp
            .schemas
            .iter()
            .map(|(tool, s)| match s.paths.is_empty() {
                true => format!("`{}` {}", tool.0, s.outcome),
                false => format!("`{}` {} at `{}`", tool.0, s.outcome, s.paths.join("`, `")),
            })
            .collect();
        let _ = writeln!(out, "- Schemas in tools/list: {}", schemas.join("; "));
    }
    let levels: Vec<String> = report
        .levels
        .iter()
        .map(|(l, n)| format!("{l} {n}/{}", v.asked))
        .collect();
    let _ = writeln!(out, "- Passing by level: {}\n", levels.join(", "));
    let rows = report
        .tools
        .iter()
        .map(|(tool, totals)| (format!("`{}`", tool.0), &totals.outcomes));
    out.push_str(&outcome_table(
        "vectors",
        rows.chain([("**total**".to_owned(), &report.totals.outcomes)]),
    ));
    if let Some(section) = &report.scenarios {
        out.push_str(&scenario_summary(section));
    }
    out
}

fn verdict(report: &Conformance) -> String {
    let failed = report.totals.outcomes.failing();
    let failed_scenarios = report
        .scenarios
        .as_ref()
        .map_or(0, |s| s.totals.outcomes.failing());
    let schemas = report.mcp.as_ref().map_or(0, McpSection::differing);
    let judged = match (failed, failed_scenarios, schemas) {
        (0, 0, 0) => "PASS".to_owned(),
        (_, 0, 0) => format!("FAIL ({failed} vectors failed)"),
        (_, n, 0) => format!("FAIL ({failed} vectors and {n} scenarios failed)"),
        (_, n, s) => format!("FAIL ({failed} vectors, {n} scenarios and {s} tool schemas failed)"),
    };
    match &report.stopped {
        None => judged,
        Some(stopped) => format!(
            "STOPPED: {} ({} of {} vectors and {} of {} scenarios not run); of what ran: {judged}",
            stopped.reason,
            stopped.vectors_not_run,
            stopped.selected_vectors,
            stopped.scenarios_not_run,
            stopped.selected_scenarios
        ),
    }
}

fn scenario_summary(section: &ScenarioSection) -> String {
    let mut out = String::new();
    let asked = section.compared.asked;
    let _ = writeln!(out, "\n## Scenarios\n");
    let _ = writeln!(
        out,
        "- Scenarios: {asked} compared at level `{}`{}",
        section.level,
        not_asked(&section.totals.outcomes)
    );
    let verdict = match section.totals.outcomes.failing() {
        0 => "PASS".to_owned(),
        n => format!("FAIL ({n} scenarios failed)"),
    };
    let _ = writeln!(out, "- Result: {verdict}");
    let levels: Vec<String> = section
        .levels
        .iter()
        .map(|(l, n)| format!("{l} {n}/{asked}"))
        .collect();
    let _ = writeln!(out, "- Passing by level: {}\n", levels.join(", "));
    let rows = section
        .by_tool
        .iter()
        .map(|(tool, totals)| (format!("`{}`", tool.0), &totals.outcomes));
    out.push_str(&outcome_table(
        "scenarios",
        rows.chain([("**total**".to_owned(), &section.totals.outcomes)]),
    ));
    out
}

fn full_entry(failure: &Failure<'_>) -> String {
    let mut out = format!("\n### `{}` ({})\n\n", failure.name(), failure.outcome());
    match failure {
        Failure::Vector(result, detail) => {
            let received =
                crate::json::ser::to_json(&detail.received).unwrap_or(vvoc_reference::Json::Null);
            let _ = writeln!(
                out,
                "{} (`{}`, vector {})\n",
                detail.what, result.file, detail.index
            );
            let blocks: Vec<String> = [
                ("Input", shown(&detail.input.0)),
                ("Expected", shown(&detail.expected.0)),
                ("Received", shown(&received)),
            ]
            .into_iter()
            .map(|(label, value)| format!("{label}:\n\n```json\n{value}\n```\n"))
            .collect();
            out.push_str(&blocks.join("\n"));
        }
        Failure::Scenario(_, detail) => {
            let _ = writeln!(out, "```text\n{}```", detail.explanation);
        }
    }
    out
}

fn stderr_section(report: &Conformance) -> String {
    match report.stderr_tail.trim().is_empty() {
        true => String::new(),
        false => format!(
            "\n## The peer's stderr (last bytes)\n\n```text\n{}\n```\n",
            report.stderr_tail.trim_end()
        ),
    }
}

fn claims(tools: &[String]) -> String {
    match tools.is_empty() {
        true => "no tool".to_owned(),
        false => tools
            .iter()
            .map(|t| format!("`{t}`"))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

fn not_asked(totals: &Tally) -> String {
    let unsupported = match totals.get(Outcome::Unsupported) {
        0 => String::new(),
        n => format!(" ({n} more of tools it does not claim, counted apart as unsupported)"),
    };
    let not_observable = match totals.get(Outcome::NotObservable) {
        0 => String::new(),
        n => format!(" ({n} more not observable over MCP, counted apart as not-observable)"),
    };
    format!("{unsupported}{not_observable}")
}

/// The Markdown table of outcomes: a row per tool (name, counts), then the total row.
/// Every outcome has its column, but `not-observable`, which only runs over MCP have.
fn outcome_table<'a>(counted: &str, rows: impl Iterator<Item = (String, &'a Tally)>) -> String {
    let rows: Vec<(String, &Tally)> = rows.collect();
    let shown: Vec<Outcome> = Outcome::ALL
        .into_iter()
        .filter(|o| {
            *o != Outcome::NotObservable
                || rows.iter().any(|(_, t)| t.get(Outcome::NotObservable) > 0)
        })
        .collect();
    let mut out = format!("| tool | {counted} |");
    for outcome in &shown {
        let _ = write!(out, " {} |", outcome.as_str());
    }
    let _ = write!(out, "\n| --- | ---: |");
    for _ in &shown {
        out.push_str(" ---: |");
    }
    out.push('\n');
    for (name, tally) in rows {
        let _ = write!(out, "| {name} | {} |", tally.total());
        for &outcome in &shown {
            let _ = write!(out, " {} |", tally.get(outcome));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(full: &[usize], lines: &[usize]) -> (Vec<String>, Vec<String>) {
        let text = |n: &usize| "x".repeat(*n);
        (
            full.iter().map(text).collect(),
            lines.iter().map(text).collect(),
        )
    }

    #[test]
    fn packing_puts_entries_in_full_while_every_later_line_still_fits() {
        let (full, lines) = sizes(&[10, 10, 10], &[2, 2, 2]);
        assert_eq!(
            pack(&full, &lines, 30),
            Packed {
                in_full: 3,
                in_lines: 0
            }
        );
        // 10 + 10 + the third's line (2) fits 24; a third in full (30) does not.
        assert_eq!(
            pack(&full, &lines, 24),
            Packed {
                in_full: 2,
                in_lines: 1
            }
        );
        // One in full (10) and two lines (4) fit 14.
        assert_eq!(
            pack(&full, &lines, 14),
            Packed {
                in_full: 1,
                in_lines: 2
            }
        );
        // Not even every line fits 3: one line, the rest left out.
        assert_eq!(
            pack(&full, &lines, 3),
            Packed {
                in_full: 0,
                in_lines: 1
            }
        );
        assert_eq!(
            pack(&full, &lines, 0),
            Packed {
                in_full: 0,
                in_lines: 0
            }
        );
        // Not every line fits 25 after two in full: the first in full takes up to half (10 of
        // 12), then lines while they fit (the remaining 15 hold 7 of them).
        let (full, lines) = sizes(&[10; 20], &[2; 20]);
        assert_eq!(
            pack(&full, &lines, 25),
            Packed {
                in_full: 1,
                in_lines: 7
            }
        );
    }
}
