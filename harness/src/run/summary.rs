//! The plain-text summary `conform run` prints: per-tool tables of outcomes, the pass count at
//! every level, the throughput.

use std::fmt::Write as _;

use crate::outcome::{Outcome, Tallies, Tally};
use crate::run::result::RunResult;
use crate::scenario::compare::ScenarioLevel;

/// The plain-text summary: a per-tool table of outcomes, the pass count at every level, and
/// the throughput; then the same for the scenarios, if any (only those when no vector ran).
pub fn summary(run: &RunResult) -> String {
    if run.records.is_empty() && !run.scenarios.is_empty() {
        return scenario_summary(run);
    }
    let mut out = vector_summary(run);
    if !run.scenarios.is_empty() {
        out.push('\n');
        out.push_str(&scenario_summary(run));
    }
    out
}

fn vector_summary(run: &RunResult) -> String {
    let mut out = outcome_table("vectors", &run.tallies());
    let asked = run.checks();
    let levels: Vec<String> = run
        .level_passes()
        .iter()
        .map(|(l, n)| format!("{l} {n}/{asked}"))
        .collect();
    let _ = writeln!(
        out,
        "passing by level: {} (the run is judged at {}){}",
        levels.join(", "),
        run.level,
        not_asked(&run.tallies().all, "vectors")
    );
    let _ = writeln!(
        out,
        "{} checks in {:.3} s: {:.0} vectors per second ({} {} in {})",
        run.checks(),
        run.elapsed.as_secs_f64(),
        run.throughput(),
        run.implementation.name,
        run.implementation.version,
        run.implementation.language
    );
    out
}

/// The summary's table: a row per tool with the count and the outcomes any has (and `pass`),
/// then the total row.
fn outcome_table(counted: &str, tallies: &Tallies) -> String {
    let shown: Vec<Outcome> = Outcome::ALL
        .into_iter()
        .filter(|o| *o == Outcome::Pass || tallies.all.get(*o) > 0)
        .collect();
    let width = counted.len();
    let mut out = format!("{:<20} {counted:>width$}", "tool");
    for o in &shown {
        let _ = write!(out, " {:>8}", o.as_str());
    }
    out.push('\n');
    let rows = tallies
        .by_tool
        .iter()
        .map(|(tool, tally)| (tool.id(), tally));
    for (name, tally) in rows.chain([("total", &tallies.all)]) {
        let _ = write!(out, "{name:<20} {:>width$}", tally.total());
        for o in &shown {
            let _ = write!(out, " {:>8}", tally.get(*o));
        }
        out.push('\n');
    }
    out
}

/// The scenarios' part of the summary: a per-tool table of outcomes, the pass count at `effect`
/// and `exact`, and the throughput. Empty when the run had no scenario.
fn scenario_summary(run: &RunResult) -> String {
    if run.scenarios.is_empty() {
        return String::new();
    }
    let mut out = outcome_table("scenarios", &run.scenario_tallies());
    let played = run.scenario_checks();
    let levels: Vec<String> = run
        .scenario_level_passes()
        .iter()
        .map(|(l, n)| format!("{l} {n}/{played}"))
        .collect();
    let _ = writeln!(
        out,
        "scenarios passing by level: {} (judged at {}){}",
        levels.join(", "),
        ScenarioLevel::of(run.level),
        not_asked(&run.scenario_tallies().all, "scenarios")
    );
    let _ = writeln!(
        out,
        "{played} scenarios in {:.3} s: {:.0} scenarios per second",
        run.scenario_elapsed.as_secs_f64(),
        played as f64 / run.scenario_elapsed.as_secs_f64().max(1e-9)
    );
    out
}

/// `; N <kind> of tools the implementation does not claim are counted apart (unsupported)`, or
/// nothing when it claims every selected tool.
fn not_asked(tally: &Tally, kind: &str) -> String {
    let unsupported = match tally.get(Outcome::Unsupported) {
        0 => String::new(),
        n => format!(
            "; {n} {kind} of tools the implementation does not claim are counted apart (unsupported)"
        ),
    };
    let not_observable = match tally.get(Outcome::NotObservable) {
        0 => String::new(),
        n => format!(
            "; {n} {kind} cannot be observed over MCP and are counted apart (not-observable)"
        ),
    };
    format!("{unsupported}{not_observable}")
}
