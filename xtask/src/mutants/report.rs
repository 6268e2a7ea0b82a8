//! The mutation report: `mutants.json` (versioned), `mutants.md` (the table reviewers read) and
//! a log and a diff per row, and the merging of shard reports.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use serde_json::{Value, json};

use super::outcome::{RowOutcome, RowResult, exit_code};
use super::rows::Row;
use super::suite::Failure;

/// The version of the `mutants.json` format.
pub const FORMAT: u64 = 1;

/// How many failing vectors besides `caught_by` a row's entry details.
const OTHER_FAILURES: usize = 3;

/// Writes `mutants.json`, `mutants.md` and `rows/<row>.log|.diff` into `dir` (replacing them).
pub fn write(dir: &Path, results: &[RowResult], baseline: Option<Duration>) -> Result<()> {
    let rows_dir = dir.join("rows");
    let _ = std::fs::remove_dir_all(&rows_dir);
    std::fs::create_dir_all(&rows_dir)
        .with_context(|| format!("cannot create {}", rows_dir.display()))?;
    let mut sorted: Vec<&RowResult> = results.iter().collect();
    sorted.sort_by(|a, b| a.row.id.cmp(&b.row.id));
    let json = to_json(&sorted, baseline);
    std::fs::write(
        dir.join("mutants.json"),
        format!("{}\n", serde_json::to_string_pretty(&json)?),
    )?;
    std::fs::write(dir.join("mutants.md"), markdown(&json))?;
    for result in sorted {
        let slug = slug(&result.row.id);
        std::fs::write(rows_dir.join(format!("{slug}.diff")), diff(&result.row))?;
        std::fs::write(rows_dir.join(format!("{slug}.log")), &result.detail)?;
    }
    Ok(())
}

/// The one-line verdict of a run, such as `PASS mutation-rows 500 rows checked, 0 problems; 5 retired`.
pub fn summary_line(json: &Value) -> String {
    let rows = json
        .get("rows")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let outcome = |r: &Value| {
        r.get("outcome")
            .and_then(Value::as_str)
            .and_then(|o| o.parse::<RowOutcome>().ok())
    };
    let retired = rows
        .iter()
        .filter(|r| outcome(r) == Some(RowOutcome::Retired))
        .count();
    let problems = rows
        .iter()
        .filter(|r| outcome(r).is_some_and(RowOutcome::is_problem))
        .count();
    let checked = rows.len() - retired;
    let verdict = if problems == 0 { "PASS" } else { "FAIL" };
    format!(
        "{verdict} mutation-rows {checked} rows checked, {problems} problems; {retired} retired"
    )
}

/// The report as JSON.
pub fn to_json(results: &[&RowResult], baseline: Option<Duration>) -> Value {
    let mut totals = serde_json::Map::new();
    for outcome in RowOutcome::ALL {
        totals.insert(
            outcome.as_str().to_owned(),
            json!(results.iter().filter(|r| r.outcome == outcome).count()),
        );
    }
    let rows: Vec<Value> = results.iter().map(|r| row_json(r)).collect();
    json!({
        "format": FORMAT,
        "baseline_seconds": baseline.map(|d| round(d.as_secs_f64())),
        "totals": totals,
        "rows": rows,
    })
}

fn row_json(result: &RowResult) -> Value {
    let row = &result.row;
    let mut failing: Vec<Value> = Vec::new();
    let listed = row
        .caught_by
        .iter()
        .filter_map(|v| result.failures.get_key_value(v));
    let others = result
        .failures
        .iter()
        .filter(|(v, _)| !row.caught_by.contains(v))
        .take(OTHER_FAILURES);
    for (vector, failure) in listed.chain(others) {
        failing.push(failure_json(vector, failure));
    }
    json!({
        "id": row.id,
        "rule": row.rule(),
        "file": row.file,
        "source": row.source,
        "outcome": result.outcome.as_str(),
        "mode": result.mode,
        "seconds": round(result.duration.as_secs_f64()),
        "caught_by": row.caught_by,
        "failing_count": result.failures.len(),
        "failing": failing,
        "missing": row.caught_by.iter().filter(|v| !result.failures.contains_key(*v)).collect::<Vec<_>>(),
    })
}

fn failure_json(vector: &str, failure: &Failure) -> Value {
    json!({"vector": vector, "what": failure.what, "expected": failure.expected, "received": failure.received})
}

/// `mutants.md`: the caught rows as "refusal | row | caught by | received", then the problems.
pub fn markdown(json: &Value) -> String {
    let rows = json
        .get("rows")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let text = |r: &Value, k: &str| {
        r.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let mut out = format!("# Mutation check\n\n{}\n\n", summary_line(json));
    if let Some(totals) = json.get("totals").and_then(Value::as_object) {
        let counts: Vec<String> = totals.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(out, "Rows by outcome: {}.\n", counts.join(", "));
    }
    let problems: Vec<&Value> = rows
        .iter()
        .filter(|r| text(r, "outcome") != "caught" && text(r, "outcome") != "retired")
        .collect();
    if !problems.is_empty() {
        let _ = writeln!(
            out,
            "## Problems\n\n| row | outcome | missing | file |\n| --- | --- | --- | --- |"
        );
        for r in &problems {
            let missing: Vec<String> = r
                .get("missing")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .filter_map(Value::as_str)
                .map(|v| format!("`{v}`"))
                .collect();
            let _ = writeln!(
                out,
                "| {} | {} | {} | `{}` |",
                cell(&text(r, "id")),
                text(r, "outcome"),
                missing.join(", "),
                text(r, "file")
            );
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "## Caught\n\n| refusal | row | caught by | received |\n| --- | --- | --- | --- |"
    );
    for r in rows.iter().filter(|r| text(r, "outcome") == "caught") {
        let id = text(r, "id");
        let how = id
            .rsplit_once(": ")
            .map_or(String::new(), |(_, how)| how.to_owned());
        let failing = r
            .get("failing")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let first = failing.first();
        let vector = first.map(|f| text(f, "vector")).unwrap_or_default();
        let what = first.map(|f| text(f, "what")).unwrap_or_default();
        let _ = writeln!(
            out,
            "| {} | {} | `{}` | {} |",
            cell(&text(r, "rule")),
            cell(&how),
            vector,
            cell(&what)
        );
    }
    out
}

/// Joins shard reports into one; the same row in two shards must agree.
pub fn merge(reports: &[Value]) -> Result<Value> {
    let mut rows: BTreeMap<String, Value> = BTreeMap::new();
    for report in reports {
        if report.get("format").and_then(Value::as_u64) != Some(FORMAT) {
            bail!("a report is not of format {FORMAT}; merge reports of the same version");
        }
        for row in report
            .get("rows")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            let id = row
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            if let Some(earlier) = rows.get(&id) {
                if earlier.get("outcome") != row.get("outcome") {
                    bail!("the row {id:?} has different outcomes in two reports");
                }
            }
            rows.insert(id, row.clone());
        }
    }
    let mut totals = serde_json::Map::new();
    for outcome in RowOutcome::ALL {
        let n = rows
            .values()
            .filter(|r| r.get("outcome").and_then(Value::as_str) == Some(outcome.as_str()))
            .count();
        totals.insert(outcome.as_str().to_owned(), json!(n));
    }
    let baseline = reports
        .iter()
        .filter_map(|r| r.get("baseline_seconds").and_then(Value::as_f64))
        .fold(None, |m: Option<f64>, b| Some(m.map_or(b, |m| m.max(b))));
    Ok(
        json!({"format": FORMAT, "baseline_seconds": baseline, "totals": totals, "rows": rows.into_values().collect::<Vec<_>>()}),
    )
}

/// The exit code a report stands for.
pub fn exit_code_of(json: &Value) -> u8 {
    let rows = json
        .get("rows")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    exit_code(rows.iter().filter_map(|r| {
        r.get("outcome")
            .and_then(Value::as_str)
            .and_then(|o| o.parse().ok())
    }))
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

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn round(seconds: f64) -> f64 {
    (seconds * 1000.0).round() / 1000.0
}
