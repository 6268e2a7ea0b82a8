//! The mutation report: `mutants.json` (versioned) as types, written and read with serde, its
//! totals, the run's verdict, and the merging of shard reports; `markdown.rs` renders it for
//! reviewers, and a log and a diff per row go beside it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::outcome::{Mode, RowOutcome, RowResult, exit_code};
use super::rows::Row;

pub use super::markdown::markdown;

/// The version of the `mutants.json` format.
pub const FORMAT: u64 = 1;

/// How many failing vectors besides `caught_by` a row's entry details.
const OTHER_FAILURES: usize = 3;

/// A whole `mutants.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// [`FORMAT`].
    pub format: u64,
    /// How long the baseline's suite ran, in seconds.
    pub baseline_seconds: Option<f64>,
    /// Whether the run was interrupted, so that the report holds only the rows done before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    /// How many selected rows an interrupted run did not run (none in a whole run).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub not_run: usize,
    /// How many rows have each outcome.
    pub totals: Totals,
    /// One entry per row, sorted by id.
    pub rows: Vec<RowEntry>,
}

/// How many rows have each outcome, every outcome listed in report order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Totals(BTreeMap<RowOutcome, usize>);

impl Totals {
    /// The totals of some rows.
    pub fn of(outcomes: impl IntoIterator<Item = RowOutcome>) -> Totals {
        let mut totals: BTreeMap<RowOutcome, usize> =
            RowOutcome::ALL.into_iter().map(|o| (o, 0)).collect();
        for outcome in outcomes {
            *totals.entry(outcome).or_default() += 1;
        }
        Totals(totals)
    }

    /// How many rows have this outcome.
    pub fn get(&self, outcome: RowOutcome) -> usize {
        self.0.get(&outcome).copied().unwrap_or(0)
    }

    /// How many rows are problems of the run.
    pub fn problems(&self) -> usize {
        self.0
            .iter()
            .filter(|(o, _)| o.is_problem())
            .map(|(_, n)| n)
            .sum()
    }

    /// Each outcome with its count, in report order.
    pub fn iter(&self) -> impl Iterator<Item = (RowOutcome, usize)> + '_ {
        self.0.iter().map(|(o, n)| (*o, *n))
    }
}

/// One row's entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RowEntry {
    /// The row's id.
    pub id: String,
    /// The rule it breaks.
    pub rule: String,
    /// The file it changes.
    pub file: String,
    /// The named mutant it names (absent for a row that spells out its change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutant: Option<String>,
    /// The row file it comes from.
    pub source: String,
    /// Its outcome.
    pub outcome: RowOutcome,
    /// How its mutant was built.
    pub mode: Mode,
    /// Build and suite time of its mutant.
    pub seconds: f64,
    /// The vectors and scenarios that must fail.
    pub caught_by: Vec<String>,
    /// How many failed.
    pub failing_count: usize,
    /// The `caught_by` names that failed, then a few others.
    pub failing: Vec<FailingEntry>,
    /// The `caught_by` names that did not fail.
    pub missing: Vec<String>,
}

/// A failing vector or scenario of a row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FailingEntry {
    /// Its name.
    pub vector: String,
    /// One line on the difference.
    pub what: String,
    /// What it expected.
    pub expected: Value,
    /// What the mutant gave.
    pub received: Value,
}

impl Report {
    /// The report of a run's rows.
    pub fn new(results: &[RowResult], baseline: Option<Duration>) -> Report {
        let mut sorted: Vec<&RowResult> = results.iter().collect();
        sorted.sort_by(|a, b| a.row.id.cmp(&b.row.id));
        Report::of_entries(
            sorted.into_iter().map(RowEntry::new).collect(),
            baseline.map(|d| round(d.as_secs_f64())),
        )
    }

    /// A report of entries (sorted by id), with its totals.
    fn of_entries(rows: Vec<RowEntry>, baseline_seconds: Option<f64>) -> Report {
        Report {
            format: FORMAT,
            baseline_seconds,
            partial: false,
            not_run: 0,
            totals: Totals::of(rows.iter().map(|r| r.outcome)),
            rows,
        }
    }

    /// The report of an interrupted run that did not run `not_run` of its selected rows.
    pub fn interrupted(self, not_run: usize) -> Report {
        Report {
            partial: true,
            not_run,
            ..self
        }
    }

    /// Reads a `mutants.json` of this format.
    pub fn read(path: &Path) -> Result<Report> {
        #[derive(Deserialize)]
        struct Versioned {
            format: Option<u64>,
        }
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let versioned: Versioned = serde_json::from_str(&text)
            .with_context(|| format!("{} is not JSON", path.display()))?;
        if versioned.format != Some(FORMAT) {
            bail!("a report is not of format {FORMAT}; merge reports of the same version");
        }
        serde_json::from_str(&text)
            .with_context(|| format!("{} is not a mutation report", path.display()))
    }

    /// The report as `mutants.json` holds it.
    pub fn to_text(&self) -> Result<String> {
        Ok(format!("{}\n", serde_json::to_string_pretty(self)?))
    }

    /// The one-line verdict of a run, such as `PASS mutation-rows 500 rows checked, 0 problems;
    /// 5 retired`.
    pub fn summary_line(&self) -> String {
        let retired = self.totals.get(RowOutcome::Retired);
        let problems = self.totals.problems();
        let checked = self.rows.len() - retired;
        if self.partial {
            return format!(
                "PARTIAL mutation-rows interrupted: {checked} rows checked, {problems} problems; \
                 {retired} retired; {} rows not run (run them again for a verdict)",
                self.not_run
            );
        }
        let verdict = if problems == 0 { "PASS" } else { "FAIL" };
        format!(
            "{verdict} mutation-rows {checked} rows checked, {problems} problems; {retired} retired"
        )
    }

    /// The exit code the report stands for.
    pub fn exit_code(&self) -> u8 {
        if self.partial {
            return super::outcome::exit::INTERRUPTED;
        }
        exit_code(self.rows.iter().map(|r| r.outcome))
    }
}

impl RowEntry {
    fn new(result: &RowResult) -> RowEntry {
        let row = &result.row;
        let listed = row
            .caught_by
            .iter()
            .filter_map(|v| result.failures.get_key_value(v));
        let others = result
            .failures
            .iter()
            .filter(|(v, _)| !row.caught_by.contains(v))
            .take(OTHER_FAILURES);
        RowEntry {
            id: row.id.clone(),
            rule: row.rule().to_owned(),
            file: row.file.clone(),
            mutant: result.mutant.clone(),
            source: row.source.clone(),
            outcome: result.outcome,
            mode: result.mode,
            seconds: round(result.duration.as_secs_f64()),
            caught_by: row.caught_by.clone(),
            failing_count: result.failures.len(),
            failing: listed
                .chain(others)
                .map(|(vector, failure)| FailingEntry {
                    vector: vector.clone(),
                    what: failure.what.clone(),
                    expected: failure.expected.clone(),
                    received: failure.received.clone(),
                })
                .collect(),
            missing: row
                .caught_by
                .iter()
                .filter(|v| !result.failures.contains_key(*v))
                .cloned()
                .collect(),
        }
    }
}

/// Writes `mutants.json`, `mutants.md` and `rows/<row>.log|.diff` into `dir` (replacing them).
pub fn write(dir: &Path, report: &Report, results: &[RowResult]) -> Result<()> {
    let rows_dir = dir.join("rows");
    let _ = std::fs::remove_dir_all(&rows_dir);
    std::fs::create_dir_all(&rows_dir)
        .with_context(|| format!("cannot create {}", rows_dir.display()))?;
    std::fs::write(dir.join("mutants.json"), report.to_text()?)?;
    std::fs::write(dir.join("mutants.md"), markdown(report))?;
    for result in results {
        let slug = slug(&result.row.id);
        std::fs::write(rows_dir.join(format!("{slug}.diff")), diff(&result.row))?;
        std::fs::write(rows_dir.join(format!("{slug}.log")), &result.detail)?;
    }
    Ok(())
}

/// The one-line verdict of a report.
pub fn summary_line(report: &Report) -> String {
    report.summary_line()
}

/// The exit code a report stands for.
pub fn exit_code_of(report: &Report) -> u8 {
    report.exit_code()
}

/// Joins shard reports into one; the same row in two shards must agree.
pub fn merge(reports: &[Report]) -> Result<Report> {
    let mut rows: BTreeMap<String, RowEntry> = BTreeMap::new();
    for report in reports {
        for row in &report.rows {
            if let Some(earlier) = rows.get(&row.id)
                && earlier.outcome != row.outcome
            {
                bail!("the row {:?} has different outcomes in two reports", row.id);
            }
            rows.insert(row.id.clone(), row.clone());
        }
    }
    let baseline = reports
        .iter()
        .filter_map(|r| r.baseline_seconds)
        .fold(None, |m: Option<f64>, b| Some(m.map_or(b, |m| m.max(b))));
    let merged = Report::of_entries(rows.into_values().collect(), baseline);
    Ok(if reports.iter().any(|r| r.partial) {
        let not_run = reports.iter().map(|r| r.not_run).sum();
        merged.interrupted(not_run)
    } else {
        merged
    })
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A unified-style diff of a row: the file, and its find and replace texts.
pub fn diff(row: &Row) -> String {
    let mut out = format!("--- {}\n+++ {} (mutated: {})\n", row.file, row.file, row.id);
    for line in row.find.lines() {
        let _ = writeln!(out, "-{line}");
    }
    for line in row.replace.lines() {
        let _ = writeln!(out, "+{line}");
    }
    out
}

/// A file name for a row id: readable, and unique thanks to a hash of the id.
pub fn slug(id: &str) -> String {
    let mut slug: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    while slug.contains("--") {
        slug = slug.replace("--", "-");
    }
    let readable: String = slug.trim_matches('-').chars().take(120).collect();
    format!(
        "{readable}-{:08x}",
        super::select::fnv1a(id.as_bytes()) as u32
    )
}

fn round(seconds: f64) -> f64 {
    (seconds * 1000.0).round() / 1000.0
}
