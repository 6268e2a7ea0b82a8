//! Building the typed `conformance.json` of a run: totals counted once, results sorted by name.

use vvoc_reference::Json;

use crate::report::conformance::{
    Compared, Conformance, FORMAT, ImplementationReport, ToolId, VectorTotals,
};
use crate::report::vectors::results;
use crate::run::result::RunResult;

/// `conformance.json`.
pub fn json(run: &RunResult) -> Json {
    conformance(run).to_json()
}

/// The report of a run: totals counted once, results sorted by name.
pub fn conformance(run: &RunResult) -> Conformance {
    let i = &run.implementation;
    let tallies = run.tallies();
    let scenarios = crate::report::scenarios::section(run);
    Conformance {
        format: FORMAT,
        implementation: ImplementationReport {
            name: i.name.clone(),
            version: i.version.clone(),
            language: i.language.clone(),
            tools: i.tools.clone(),
            scenarios: scenarios.as_ref().map(|_| i.scenarios.clone()),
        },
        vectors: Compared {
            count: run.records.len(),
            tools: tallies.by_tool.keys().copied().map(ToolId).collect(),
        },
        level: run.level,
        totals: VectorTotals::from(tallies.all),
        levels: run.level_passes().into_iter().collect(),
        tools: tallies
            .by_tool
            .into_iter()
            .map(|(tool, tally)| (ToolId(tool), VectorTotals::from(tally)))
            .collect(),
        results: results(run),
        scenarios,
        stderr_tail: run.stderr_tail.clone(),
    }
}
