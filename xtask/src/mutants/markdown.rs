//! `mutants.md`: the table reviewers read ("refusal | row | caught by | received"), after the
//! problems (a stale named mutant once, with its rows).

use std::fmt::Write as _;

use super::outcome::RowOutcome;
use super::report::Report;
use super::stale::{Problem, problems};

/// `mutants.md`: the verdict and the totals, the problem rows, the stale mutants, then the caught
/// rows.
pub fn markdown(report: &Report) -> String {
    let mut out = format!("# Mutation check\n\n{}\n\n", report.summary_line());
    let counts: Vec<String> = report
        .totals
        .iter()
        .map(|(outcome, n)| format!("{} {n}", outcome.as_str()))
        .collect();
    let _ = writeln!(out, "Rows by outcome: {}.\n", counts.join(", "));
    let mut rows = Vec::new();
    let mut stale = Vec::new();
    for problem in problems(&report.rows, |r| r.outcome, |r| r.mutant.as_deref()) {
        match problem {
            Problem::Row(r) => rows.push(r),
            Problem::Stale { mutant, rows } => stale.push((mutant, rows)),
        }
    }
    if !rows.is_empty() {
        let _ = writeln!(
            out,
            "## Problems\n\n| row | outcome | missing | file |\n| --- | --- | --- | --- |"
        );
        for r in &rows {
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
    if !stale.is_empty() {
        let _ = writeln!(
            out,
            "## Stale mutants\n\nEach mutant's `find` no longer occurs exactly once in its file; \
             fixing the mutant fixes every row naming it.\n\n\
             | mutant | file | rows |\n| --- | --- | --- |"
        );
        for (mutant, rows) in &stale {
            let ids: Vec<String> = rows.iter().map(|r| format!("`{}`", cell(&r.id))).collect();
            let file = rows.first().map_or("", |r| r.file.as_str());
            let _ = writeln!(
                out,
                "| `{}` | `{file}` | {}: {} |",
                cell(mutant),
                ids.len(),
                ids.join(", ")
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutants::report::RowEntry;

    fn entry(id: &str, mutant: Option<&str>, outcome: RowOutcome) -> RowEntry {
        RowEntry {
            id: id.to_owned(),
            rule: id.rsplit_once(": ").map_or(id, |(rule, _)| rule).to_owned(),
            file: "a.rs".to_owned(),
            mutant: mutant.map(str::to_owned),
            source: "mutants/r.json".to_owned(),
            outcome,
            mode: super::super::outcome::Mode::NotRun,
            seconds: 0.0,
            caught_by: Vec::new(),
            failing_count: 0,
            failing: Vec::new(),
            missing: Vec::new(),
        }
    }

    #[test]
    fn a_stale_named_mutant_is_one_line_of_its_own_table_with_all_its_rows() {
        let report = Report {
            format: 1,
            baseline_seconds: None,
            partial: false,
            not_run: 0,
            totals: crate::mutants::report::Totals::of([RowOutcome::Stale; 3]),
            rows: vec![
                entry("r: one", Some("lib:x"), RowOutcome::Stale),
                entry("r: own", None, RowOutcome::Stale),
                entry("s: two", Some("lib:x"), RowOutcome::Stale),
            ],
        };
        let text = markdown(&report);
        assert!(
            text.contains("| row | outcome | missing | file |\n| --- | --- | --- | --- |\n| r: own | stale |  | `a.rs` |\n\n## Stale mutants"),
            "a row of its own change stays a problem row: {text}"
        );
        assert!(
            text.contains("| mutant | file | rows |\n| --- | --- | --- |\n| `lib:x` | `a.rs` | 2: `r: one`, `s: two` |\n\n## Caught"),
            "{text}"
        );
    }

    #[test]
    fn a_partial_report_says_so_in_its_verdict_its_json_and_a_merge() {
        let whole = Report {
            format: 1,
            baseline_seconds: None,
            partial: false,
            not_run: 0,
            totals: crate::mutants::report::Totals::of([RowOutcome::Caught]),
            rows: vec![entry("r: one", None, RowOutcome::Caught)],
        };
        assert!(!whole.to_text().expect("JSON").contains("partial"));
        assert_eq!(whole.exit_code(), 0);
        let partial = whole.clone().interrupted(4);
        assert_eq!(
            partial.summary_line(),
            "PARTIAL mutation-rows interrupted: 1 rows checked, 0 problems; 0 retired; 4 rows not \
             run (run them again for a verdict)"
        );
        assert!(markdown(&partial).contains("PARTIAL mutation-rows interrupted"));
        let json: serde_json::Value =
            serde_json::from_str(&partial.to_text().expect("JSON")).expect("JSON");
        assert_eq!(
            (json["partial"].clone(), json["not_run"].clone()),
            (true.into(), 4.into())
        );
        assert_eq!(partial.exit_code(), 130, "a partial report never passes");
        let merged = crate::mutants::report::merge(&[whole, partial]).expect("merged");
        assert!(
            merged.partial && merged.not_run == 4,
            "a merge keeps it partial"
        );
    }
}
