//! `conform run`: select, run the vectors and scenarios, print the failures and the summary,
//! write the reports.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use vvoc_harness::Level;
use vvoc_harness::load::error::NotRegular;
use vvoc_harness::load::files::not_regular;
use vvoc_harness::load::suite::Suite;
use vvoc_harness::load::vector::Vector;
use vvoc_harness::mcp_client::run::{McpPlan, run_mcp};
use vvoc_harness::mcp_client::schemas::section;
use vvoc_harness::mcp_client::servers::{McpOptions, McpServer};
use vvoc_harness::outcome::Outcome;
use vvoc_harness::peer::options::PeerOptions;
use vvoc_harness::peer::process::PeerCommand;
use vvoc_harness::peer::vectors::PeerRunError;
use vvoc_harness::report::build::{conformance, tested};
use vvoc_harness::report::conformance::{Conformance, McpSection, Stopped, Tested};
use vvoc_harness::report::console::failures_text;
use vvoc_harness::run::all::{Plan, claimed_by_peer, run_all};
use vvoc_harness::run::known::KnownFailures;
use vvoc_harness::run::result::RunResult;
use vvoc_harness::run::selection::Selection;
use vvoc_harness::run::summary::summary;
use vvoc_harness::scenario::model::Scenario;
use vvoc_harness::scenario::scratch::{Scratch, default_parent};
use vvoc_harness::web::model::WebScenario;
use vvoc_harness::workflow::model::WorkflowScenario;

use super::{FAILED, INTERRUPTED, OK, RunArgs, UNUSABLE, load_all, write_out};

/// `conform run`.
pub(crate) fn run(args: RunArgs) -> Result<u8> {
    let selection = args.select.selection()?;
    if let Some(file) = &args.write_known_failures {
        KnownFailures::check_target(file)?;
    }
    if let Some(dir) = &args.scratch {
        check_scratch(dir, "--scratch")?;
    }
    let suite = load_all(&args.vectors)?;
    let known = match &args.known_failures {
        Some(file) => KnownFailures::read(file, &suite.names)?,
        None => KnownFailures::default(),
    };
    let (vectors, scenarios, web, workflow) = select(&suite, &selection)?;
    if vectors.is_empty() && scenarios.is_empty() && web.is_empty() && workflow.is_empty() {
        match suite.scenarios.is_empty() && suite.web.is_empty() && suite.workflow.is_empty() {
            true => bail!("no vector matches the selection (--tool, --filter, --name)"),
            false => {
                bail!("no vector matches the selection (--tool, --filter, --name), and no scenario")
            }
        }
    }
    if args.scratch.is_none()
        && (!scenarios.is_empty() || !workflow.is_empty() || args.mcp.is_some())
    {
        check_scratch(&default_parent(), "the default scratch folder (--scratch)")?;
    }
    let level = level_of(&args)?;
    let selected = (vectors.len(), scenarios.len() + web.len() + workflow.len());
    if let Some(server) = mcp_server(&args) {
        let plan = McpPlan {
            vectors,
            scenarios,
            web,
            workflow,
            level,
            known: known.names(),
            options: mcp_options(&args, server),
        };
        return run_over_mcp(&args, &suite, plan, selected);
    }
    let peer = peer_options(&args)?;
    if let Some(options) = &peer {
        claimed_by_peer(&selection.tools, options).map_err(anyhow::Error::msg)?;
    }
    let plan = Plan {
        vectors,
        scenarios,
        web,
        workflow,
        level,
        known: known.names(),
        jobs: args.jobs.max(1),
        scratch: args.scratch.clone().unwrap_or_else(default_parent),
        peer,
    };
    let tested = tested(&suite, args.peer.as_deref());
    let outcome = run_all(plan);
    if vvoc_harness::progress::stopping() {
        let partial = match &outcome {
            Ok(result) => Some(result),
            Err(PeerRunError::Unusable { partial, .. }) => Some(partial.as_ref()),
            Err(PeerRunError::RunnerProtocol(_)) => None,
        };
        if let Some(partial) = partial {
            return interrupted(&args, &tested, partial, selected, None);
        }
    }
    match outcome {
        Ok(result) => finish(&args, &suite, &tested, &result, None),
        Err(PeerRunError::Unusable { reason, partial }) => unusable(
            &args,
            &tested,
            &partial,
            selected,
            &reason.to_string(),
            None,
        ),
        Err(PeerRunError::RunnerProtocol(violations)) => bail!(
            "this runner broke the protocol (a bug, please report it):\n{}",
            violations.join("\n")
        ),
    }
}

/// The vectors, editor scenarios, web scenarios and workflow scenarios `selection` takes from
/// `suite`; an error for a `--name` that names nothing.
#[allow(clippy::type_complexity)]
fn select(
    suite: &Suite,
    selection: &Selection,
) -> Result<(
    Vec<Vector>,
    Vec<Scenario>,
    Vec<WebScenario>,
    Vec<WorkflowScenario>,
)> {
    let vectors: Vec<_> = suite
        .vectors
        .iter()
        .filter(|v| selection.keeps(v))
        .cloned()
        .collect();
    let scenarios: Vec<_> = suite
        .scenarios
        .iter()
        .filter(|s| selection.keeps_scenario(s))
        .cloned()
        .collect();
    let web: Vec<_> = suite
        .web
        .iter()
        .filter(|s| selection.keeps_scenario_named(s.tool, &s.name()))
        .cloned()
        .collect();
    let workflow: Vec<_> = suite
        .workflow
        .iter()
        .filter(|s| selection.keeps_scenario_named(s.tool, &s.name()))
        .cloned()
        .collect();
    // A `--name` that names nothing is a mistake, not an empty selection of that one.
    let unknown: Vec<&str> = selection
        .names
        .iter()
        .filter(|n| !suite.names.iter().any(|known| known == *n))
        .map(String::as_str)
        .collect();
    if !unknown.is_empty() {
        bail!(
            "--name {}: no vector or scenario has this name; `conform list` prints the names",
            unknown.join(", --name ")
        );
    }
    Ok((vectors, scenarios, web, workflow))
}

/// A scratch folder that cannot hold scenario directories is a usage error found before anything
/// runs (not a failure of every scenario): it must exist, be a folder (links followed), be short
/// enough for directories of exactly 40 characters, and be writable; the last two are checked
/// by making a scratch directory in it, removed at once.
fn check_scratch(dir: &Path, what: &str) -> Result<()> {
    let named = || format!("{what} {}", dir.display());
    let metadata = std::fs::metadata(dir).map_err(|e| {
        anyhow::anyhow!(
            "{}: {e}; give an existing folder for the scenarios' scratch directories",
            named()
        )
    })?;
    match not_regular(&metadata) {
        Some(NotRegular::Folder) => {}
        None => bail!(
            "{}: a regular file, not a folder; give a folder for the scenarios' scratch directories",
            named()
        ),
        Some(NotRegular::Special(kind)) => bail!(
            "{}: {kind}, not a folder; give a folder for the scenarios' scratch directories",
            named()
        ),
    }
    drop(Scratch::create(dir).map_err(|e| {
        anyhow::anyhow!(
            "{}: cannot hold the scenarios' scratch directories: {e}",
            named()
        )
    })?);
    Ok(())
}

/// The MCP server of `--mcp` or `--mcp-url`, if either is given.
fn mcp_server(args: &RunArgs) -> Option<McpServer> {
    match (&args.mcp, &args.mcp_url) {
        (Some(command), _) => Some(McpServer::Command(command.clone())),
        (None, Some(url)) => Some(McpServer::Url(url.clone())),
        (None, None) => None,
    }
}

/// The options of `--mcp` and `--mcp-url`.
fn mcp_options(args: &RunArgs, server: McpServer) -> McpOptions {
    McpOptions {
        server,
        timeout: Duration::from_millis(args.timeout_ms),
        init_timeout: args.hello_timeout_ms.map(Duration::from_millis),
        jobs: args.jobs.max(1),
        max_restarts: args.max_restarts,
        scratch: args.scratch.clone().unwrap_or_else(default_parent),
    }
}

/// `conform run --mcp`: the run, then its end as a peer run's (finished, unusable, interrupted),
/// with the schema comparison in the console and the reports.
fn run_over_mcp(
    args: &RunArgs,
    suite: &Suite,
    plan: McpPlan,
    selected: (usize, usize),
) -> Result<u8> {
    let tested = tested(suite, Some(plan.options.server.as_str()));
    let run = run_mcp(plan);
    let mcp = Some(section(&run.schemas));
    if vvoc_harness::progress::stopping() {
        return interrupted(args, &tested, &run.result, selected, mcp);
    }
    match run.unusable {
        None => finish(args, suite, &tested, &run.result, mcp),
        Some(reason) => unusable(args, &tested, &run.result, selected, &reason.0, mcp),
    }
}

/// The run's level: `--level`, by default `exact`, or over MCP `text`; over MCP only `verdict`
/// and `text` can be observed, and `text` only there.
fn level_of(args: &RunArgs) -> Result<Level> {
    match (args.mcp.is_some() || args.mcp_url.is_some(), args.level) {
        (false, None) => Ok(Level::Exact),
        (true, None) => Ok(Level::Text),
        (false, Some(Level::Text)) => bail!(
            "--level text compares the one-line text of an MCP refusal: use it with --mcp or --mcp-url (the levels of a peer or the reference are verdict, first, issues and exact)"
        ),
        (true, Some(level @ (Level::First | Level::Issues | Level::Exact))) => bail!(
            "--level {level}: an MCP result shows a refusal as one text, not its issues one by one; the levels over MCP are verdict and text"
        ),
        (false, Some(level)) | (true, Some(level @ (Level::Verdict | Level::Text))) => Ok(level),
    }
}

/// Prints the schema comparison of a run over MCP, a line per tool.
fn print_schemas(mcp: Option<&McpSection>) {
    let Some(mcp) = mcp else {
        return;
    };
    let mut out = String::from("tools/list inputSchema against the published schemas:\n");
    for (tool, schema) in &mcp.schemas {
        let more = match schema.more {
            0 => String::new(),
            n => format!(" (and {n} more)"),
        };
        let paths: Vec<&str> = schema
            .paths
            .iter()
            .map(|p| if p.is_empty() { "(root)" } else { p.as_str() })
            .collect();
        let _ = match paths.is_empty() {
            true => writeln!(out, "  {}: {}", tool.0, schema.outcome),
            false => writeln!(
                out,
                "  {}: {} at {}{more}",
                tool.0,
                schema.outcome,
                paths.join(", ")
            ),
        };
    }
    write_out(&out);
}

/// The options of `--peer`, or `None` in process.
fn peer_options(args: &RunArgs) -> Result<Option<PeerOptions>> {
    let Some(command) = &args.peer else {
        return Ok(None);
    };
    let mut options = PeerOptions::new(PeerCommand::parse(command).map_err(anyhow::Error::msg)?);
    options.timeout = Duration::from_millis(args.timeout_ms);
    options.hello_timeout = args.hello_timeout_ms.map(Duration::from_millis);
    options.jobs = args.jobs.max(1);
    options.max_restarts = args.max_restarts;
    options.validate_protocol = args.validate_protocol;
    Ok(Some(options))
}

/// A run that finished: the failures and the summary, the reports, the known-failure file.
fn finish(
    args: &RunArgs,
    suite: &Suite,
    tested: &Tested,
    result: &RunResult,
    mcp: Option<McpSection>,
) -> Result<u8> {
    let mut report = conformance(result, tested, None);
    report.mcp = mcp;
    write_out(&failures_text(
        &report,
        args.failures,
        args.report.as_deref(),
    ));
    print_schemas(report.mcp.as_ref());
    write_out(&summary(result));
    let schemas_differ = report.mcp.as_ref().is_some_and(|m| m.differing() > 0);
    if result.checks() + result.scenario_checks() == 0 && report.mcp.is_none() {
        bail!(
            "the peer implements none of the selected tools (its hello lists: {}); select its tools with --tool",
            result.implementation.tools.join(", ")
        );
    }
    write_reports(args, &report)?;
    if let Some(file) = &args.write_known_failures {
        // Entries of vectors this run did not check stay; a broken old file is simply replaced.
        let older = KnownFailures::read(file, &suite.names).unwrap_or_default();
        let list = KnownFailures::from_run(result).keeping(older, result);
        std::fs::write(file, list.to_text())
            .with_context(|| format!("cannot write {}", file.display()))?;
        say!(
            "{} known failures written to {}",
            list.entries.len(),
            file.display()
        );
    }
    Ok(if result.failed() || schemas_differ {
        FAILED
    } else {
        OK
    })
}

/// A run whose peer became unusable: what ran, its reports marked as stopped and why, and the
/// line that names the kind of failure and the vector (exit 3).
fn unusable(
    args: &RunArgs,
    tested: &Tested,
    partial: &RunResult,
    (vectors, scenarios): (usize, usize),
    reason: &str,
    mcp: Option<McpSection>,
) -> Result<u8> {
    let who = match mcp.is_some() {
        true => "server",
        false => "peer",
    };
    let stopped = Stopped {
        reason: format!("the {who} is unusable: {reason}"),
        selected_vectors: vectors,
        vectors_not_run: vectors - partial.records.len(),
        selected_scenarios: scenarios,
        scenarios_not_run: scenarios - partial.scenarios.len(),
    };
    let mut report = conformance(partial, tested, Some(stopped.clone()));
    report.mcp = mcp.filter(|m| !m.schemas.is_empty());
    print_schemas(report.mcp.as_ref());
    if !partial.records.is_empty() || !partial.scenarios.is_empty() {
        write_out(&failures_text(
            &report,
            args.failures,
            args.report.as_deref(),
        ));
        write_out(&summary(partial));
    }
    eprintln!("error: {}{}", stopped.reason, last_fault(partial));
    if vectors > 0 {
        eprintln!(
            "{} of the {vectors} selected vectors were not run",
            stopped.vectors_not_run
        );
    }
    if scenarios > 0 {
        eprintln!(
            "{} of the {scenarios} selected scenarios were not run",
            stopped.scenarios_not_run
        );
    }
    if !partial.stderr_tail.trim().is_empty() {
        eprintln!("its stderr ends with:\n{}", partial.stderr_tail.trim_end());
    }
    write_reports(args, &report)?;
    Ok(UNUSABLE)
}

/// A run an interrupt stopped: the failures and summary of what ran, the line saying what did
/// not, its reports marked as stopped; then the program ends with 130, as an interrupted
/// command does.
fn interrupted(
    args: &RunArgs,
    tested: &Tested,
    partial: &RunResult,
    (vectors, scenarios): (usize, usize),
    mcp: Option<McpSection>,
) -> Result<u8> {
    let stopped = Stopped {
        reason: "interrupted (SIGINT or SIGTERM)".to_owned(),
        selected_vectors: vectors,
        vectors_not_run: vectors.saturating_sub(partial.records.len()),
        selected_scenarios: scenarios,
        scenarios_not_run: scenarios.saturating_sub(partial.scenarios.len()),
    };
    let mut report = conformance(partial, tested, Some(stopped.clone()));
    report.mcp = mcp.filter(|m| !m.schemas.is_empty());
    write_out(&failures_text(
        &report,
        args.failures,
        args.report.as_deref(),
    ));
    write_out(&summary(partial));
    eprintln!(
        "interrupted: {} of {vectors} selected vectors and {} of {scenarios} selected scenarios had run; {} vectors and {} scenarios were not run",
        partial.records.len(),
        partial.scenarios.len(),
        stopped.vectors_not_run,
        stopped.scenarios_not_run
    );
    let written = write_reports(args, &report);
    vvoc_harness::progress::end();
    written.map(|()| INTERRUPTED)
}

/// `; the last failure: <kind> at <vector>`, naming the last vector (or scenario) in run order
/// whose peer timed out, crashed or broke the protocol; empty when none did (a bad hello).
fn last_fault(partial: &RunResult) -> String {
    let faulted = |outcome: Outcome| match outcome {
        Outcome::Timeout | Outcome::Crash | Outcome::ProtocolError => true,
        Outcome::Pass
        | Outcome::Fail
        | Outcome::Error
        | Outcome::Unsupported
        | Outcome::NotObservable
        | Outcome::KnownFail
        | Outcome::Fixed => false,
    };
    let vectors = partial.records.iter().map(|r| (r.outcome, r.vector.name()));
    let scenarios = partial.scenarios.iter().map(|r| (r.outcome, r.name()));
    match vectors.chain(scenarios).rfind(|(o, _)| faulted(*o)) {
        Some((outcome, name)) => format!("; the last failure: {outcome} at {name}"),
        None => String::new(),
    }
}

fn write_reports(args: &RunArgs, report: &Conformance) -> Result<()> {
    if let Some(dir) = &args.report {
        vvoc_harness::report::write::write_reports(dir, report, args.md_limit)
            .with_context(|| format!("cannot write the reports into {}", dir.display()))?;
        say!("reports written to {}", dir.display());
    }
    Ok(())
}
