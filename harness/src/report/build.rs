//! Building the typed `conformance.json` of a run: totals counted once, results sorted by name.

use vvoc_reference::catalog::CONTRACT_VERSION;

use crate::load::builtin::SHORT_DIGEST;
use crate::load::suite::Suite;
use crate::outcome::Outcome;
use crate::report::conformance::{
    Compared, Conformance, FORMAT, ImplementationReport, Stopped, SuiteReport, Tested, ToolId,
    VectorTotals,
};
use crate::report::vectors::results;
use crate::run::result::RunResult;

/// The report of a run: what it tested, totals counted once, results sorted by name, and why it
/// stopped early if it did.
pub fn conformance(run: &RunResult, tested: &Tested, stopped: Option<Stopped>) -> Conformance {
    let i = &run.implementation;
    let tallies = run.tallies();
    let scenarios = crate::report::scenarios::section(run);
    let apart = tallies.all.get(Outcome::Unsupported) + tallies.all.get(Outcome::NotObservable);
    Conformance {
        format: FORMAT,
        tested: tested.clone(),
        implementation: ImplementationReport {
            name: i.name.clone(),
            version: i.version.clone(),
            language: i.language.clone(),
            tools: i.tools.clone(),
            scenarios: scenarios.as_ref().map(|_| i.scenarios.clone()),
        },
        vectors: Compared {
            count: run.records.len(),
            asked: run.records.len() - apart,
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
        stopped,
        stderr_tail: run.stderr_tail.clone(),
        mcp: None,
    }
}

/// What a run of `suite` against `peer` (`None`: the in-process reference) tests.
pub fn tested(suite: &Suite, peer: Option<&str>) -> Tested {
    Tested {
        conform: env!("CARGO_PKG_VERSION").to_owned(),
        contract: CONTRACT_VERSION.to_owned(),
        suite: SuiteReport {
            digest: format!(
                "sha256:{}",
                suite.digest.get(..SHORT_DIGEST).unwrap_or(&suite.digest)
            ),
            files: suite.files.0 + suite.files.1,
        },
        peer: peer.map(str::to_owned),
    }
}
