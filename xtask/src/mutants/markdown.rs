//! `mutants.md`: the table reviewers read ("refusal | row | caught by | received"), after the
//! problems.

use std::fmt::Write as _;

use super::outcome::RowOutcome;
use super::report::Report;

/// `mutants.md`: the verdict and the totals, the problems, then the caught rows.
pub fn markdown(report: &Report) -> String {
    let mut out = format!("# Mutation check\n\n{}\n\n", report.summary_line());
    let counts: Vec<String> = report
        .totals
        .iter()
        .map(|(outcome, n)| format!("{} {n}", outcome.as_str()))
        .collect();
    let _ = writeln!(out, "Rows by outcome: {}.\n", counts.join(", "));
    let problems: Vec<_> = report
        .rows
        .iter()
        .filter(|r| r.outcome.is_problem())
        .collect();
    if !problems.is_empty() {
        let _ = writeln!(
            out,
            "## Problems\n\n| row | outcome | missing | file |\n| --- | --- | --- | --- |"
        );
        for r in &problems {
            let missing: Vec<String> = r.missing.iter().map(|v| format!("`{v}`")).collect();
            let _ = writeln!(
                out,
                "| {} | {} | {} | `{}` |",
                cell(&r.id),
                r.outcome.as_str(),
                missing.join(", "),
                r.file
            );
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "## Caught\n\n| refusal | row | caught by | received |\n| --- | --- | --- | --- |"
    );
    for r in report
        .rows
        .iter()
        .filter(|r| r.outcome == RowOutcome::Caught)
    {
        let how = r.id.rsplit_once(": ").map_or("", |(_, how)| how);
        let first = r.failing.first();
        let _ = writeln!(
            out,
            "| {} | {} | `{}` | {} |",
            cell(&r.rule),
            cell(how),
            first.map_or("", |f| f.vector.as_str()),
            cell(first.map_or("", |f| f.what.as_str()))
        );
    }
    out
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}
