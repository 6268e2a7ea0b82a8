//! `conform run`: select, run the vectors and scenarios, print the summary, write the reports.

use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use vvoc_harness::load::vector::Vector;
use vvoc_harness::peer::options::PeerOptions;
use vvoc_harness::peer::process::PeerCommand;
use vvoc_harness::peer::vectors::PeerRunError;
use vvoc_harness::report::write::write_reports;
use vvoc_harness::run::all::{Plan, run_all};
use vvoc_harness::run::known::KnownFailures;
use vvoc_harness::run::selection::Selection;
use vvoc_harness::run::summary::summary;
use vvoc_harness::scenario::model::Scenario;
use vvoc_harness::scenario::scratch::default_parent;
use vvoc_reference::Tool;

use super::{FAILED, OK, RunArgs, UNUSABLE, load_all, write_out};

/// `conform run`.
pub(crate) fn run(args: RunArgs) -> Result<u8> {
    let tools = args
        .tools
        .iter()
        .map(|t| t.parse::<Tool>())
        .collect::<Result<Vec<_>, _>>()?;
    let selection = Selection {
        tools,
        filter: args.filter.clone(),
        only: args.only,
    };
    let suite = load_all(&args.vectors)?;
    let known = match &args.known_failures {
        Some(file) => KnownFailures::read(file, &suite.names)?,
        None => KnownFailures::default(),
    };
    let vectors: Vec<Vector> = suite
        .vectors
        .iter()
        .filter(|v| selection.keeps(v))
        .cloned()
        .collect();
    let scenarios: Vec<Scenario> = suite
        .scenarios
        .iter()
        .filter(|s| selection.keeps_scenario(s))
        .cloned()
        .collect();
    if vectors.is_empty() && scenarios.is_empty() {
        match suite.scenarios.is_empty() {
            true => bail!("no vector matches the selection (--tool, --filter)"),
            false => bail!("no vector matches the selection (--tool, --filter), and no scenario"),
        }
    }
    let selected = (vectors.len(), scenarios.len());
    let peer = match &args.peer {
        None => None,
        Some(command) => {
            let mut options =
                PeerOptions::new(PeerCommand::parse(command).map_err(anyhow::Error::msg)?);
            options.timeout = Duration::from_millis(args.timeout_ms);
            options.hello_timeout = args.hello_timeout_ms.map(Duration::from_millis);
            options.jobs = args.jobs.max(1);
            options.max_restarts = args.max_restarts;
            options.validate_protocol = args.validate_protocol;
            Some(options)
        }
    };
    let plan = Plan {
        vectors,
        scenarios,
        level: args.level,
        known: known.names(),
        jobs: args.jobs.max(1),
        scratch: args.scratch.clone().unwrap_or_else(default_parent),
        peer,
    };
    let result = match run_all(plan) {
        Ok(result) => result,
        Err(PeerRunError::Unusable { reason, partial }) => {
            if !partial.records.is_empty() || !partial.scenarios.is_empty() {
                write_out(&summary(&partial));
            }
            eprintln!("error: the peer is unusable: {reason}");
            eprintln!(
                "{} of the {} selected vectors were not run",
                selected.0 - partial.records.len(),
                selected.0
            );
            if selected.1 > 0 {
                eprintln!(
                    "{} of the {} selected scenarios were not run",
                    selected.1 - partial.scenarios.len(),
                    selected.1
                );
            }
            if !partial.stderr_tail.trim().is_empty() {
                eprintln!("its stderr ends with:\n{}", partial.stderr_tail.trim_end());
            }
            return Ok(UNUSABLE);
        }
        Err(PeerRunError::RunnerProtocol(violations)) => {
            bail!(
                "this runner broke the protocol (a bug, please report it):\n{}",
                violations.join("\n")
            )
        }
    };
    write_out(&summary(&result));
    if result.checks() + result.scenario_checks() == 0 {
        bail!(
            "the peer implements none of the selected tools (its hello lists: {}); select its tools with --tool",
            result.implementation.tools.join(", ")
        );
    }
    if let Some(dir) = &args.report {
        write_reports(dir, &result)
            .with_context(|| format!("cannot write the reports into {}", dir.display()))?;
        say!("reports written to {}", dir.display());
    }
    if let Some(file) = &args.write_known_failures {
        // Entries of vectors this run did not check stay; a broken old file is simply replaced.
        let older = KnownFailures::read(file, &suite.names).unwrap_or_default();
        let list = KnownFailures::from_run(&result).keeping(older, &result);
        std::fs::write(file, list.to_text())
            .with_context(|| format!("cannot write {}", file.display()))?;
        say!(
            "{} known failures written to {}",
            list.entries.len(),
            file.display()
        );
    }
    Ok(if result.failed() { FAILED } else { OK })
}
