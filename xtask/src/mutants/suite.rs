//! Building a scratch copy and running its vector suite, within time limits.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use vvoc_harness::outcome::Outcome;
use vvoc_harness::report::conformance::Conformance;

use super::interrupt;
use super::scratch::Scratch;
use super::switch;
use super::workspace::{PROFILE, RUNNER_BIN, RUNNER_PACKAGE, VECTORS};

/// What a build or a suite run came to.
#[derive(Clone, Debug)]
pub enum Step<T> {
    /// It finished with this result.
    Done(T),
    /// It did not finish in time and was killed.
    TimedOut,
}

/// The suite's verdict on one build.
#[derive(Clone, Debug, Default)]
pub struct SuiteResult {
    /// Failing vectors by name, each with its expectation, what came back, and a one-line summary.
    pub failures: BTreeMap<String, Failure>,
    /// How many vectors and scenarios ran.
    pub vectors: usize,
}

/// One failing vector.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The expected verdict.
    pub expected: Value,
    /// What the mutant answered.
    pub received: Value,
    /// One line on the difference, such as `expected reject at count, received accept`.
    pub what: String,
}

/// The output of a build that failed.
#[derive(Clone, Debug)]
pub struct BuildFailure {
    /// The compiler's messages.
    pub log: String,
}

/// A compiler error: where it points, and the compiler's rendering.
#[derive(Clone, Debug)]
pub struct CompileError {
    /// The places it points at, its primary ones first (none when it points nowhere).
    pub spans: Vec<ErrorSpan>,
    /// The message as the compiler prints it.
    pub rendered: String,
}

/// A place a compiler error points at.
#[derive(Clone, Debug)]
pub struct ErrorSpan {
    /// The workspace-relative file.
    pub file: String,
    /// The bytes of the file.
    pub range: Range<usize>,
    /// Whether it is where the error is (not a label on a cause).
    pub primary: bool,
}

/// How much of a failed build's log stands for an error that points nowhere.
const UNLOCATED_LOG_CHARS: usize = 4000;

/// Builds the suite's runner (`conform`) in the copy with the test build's profile.
pub fn build(scratch: &Scratch, limit: Duration) -> Result<Step<Result<String, BuildFailure>>> {
    let mut command = cargo_build(scratch, false);
    match run_bounded(&mut command, limit)? {
        Step::TimedOut => Ok(Step::TimedOut),
        Step::Done((true, log)) => Ok(Step::Done(Ok(log))),
        Step::Done((false, log)) => Ok(Step::Done(Err(BuildFailure { log }))),
    }
}

/// Builds like [`build`], reading the compiler's errors with the places they point at (none when
/// the build succeeds).
pub fn build_located(scratch: &Scratch, limit: Duration) -> Result<Step<Vec<CompileError>>> {
    /// One line of `cargo build --message-format=json`.
    #[derive(Deserialize)]
    struct CargoMessage {
        reason: String,
        message: Option<Diagnostic>,
    }
    #[derive(Deserialize)]
    struct Diagnostic {
        level: String,
        #[serde(default)]
        rendered: Option<String>,
        #[serde(default)]
        spans: Vec<DiagnosticSpan>,
    }
    #[derive(Deserialize)]
    struct DiagnosticSpan {
        file_name: String,
        byte_start: usize,
        byte_end: usize,
        #[serde(default)]
        is_primary: bool,
    }
    let mut command = cargo_build(scratch, true);
    let Step::Done((success, log)) = run_bounded(&mut command, limit)? else {
        return Ok(Step::TimedOut);
    };
    if success {
        return Ok(Step::Done(Vec::new()));
    }
    let mut errors = Vec::new();
    for line in log.lines().filter(|l| l.starts_with('{')) {
        let Ok(CargoMessage {
            reason,
            message: Some(diagnostic),
        }) = serde_json::from_str::<CargoMessage>(line)
        else {
            continue;
        };
        if reason != "compiler-message" || diagnostic.level != "error" {
            continue;
        }
        let mut spans: Vec<ErrorSpan> = diagnostic
            .spans
            .into_iter()
            .map(|s| ErrorSpan {
                file: s.file_name,
                range: s.byte_start..s.byte_end,
                primary: s.is_primary,
            })
            .collect();
        spans.sort_by_key(|s| !s.primary);
        errors.push(CompileError {
            spans,
            rendered: diagnostic.rendered.unwrap_or_default(),
        });
    }
    if errors.is_empty() {
        // A failure without a located error (a linker failure, say) blames no mutant in particular.
        let skip = log.chars().count().saturating_sub(UNLOCATED_LOG_CHARS);
        errors.push(CompileError {
            spans: Vec::new(),
            rendered: log.chars().skip(skip).collect(),
        });
    }
    Ok(Step::Done(errors))
}

/// `cargo build` of the suite's runner in a copy, with its own target directory and the build
/// directory the workspace's builds use (started as from the shell, so that cargo finds the
/// dependencies fresh there); `json` asks for the compiler's messages as JSON.
fn cargo_build(scratch: &Scratch, json: bool) -> Command {
    let mut command = crate::child::command(env!("CARGO"));
    command
        .current_dir(&scratch.tree)
        .args(["build", "--profile", PROFILE, "--offline"]);
    // The copy's own crates without debug info: they compile in two thirds of the time, and
    // the dependencies, which keep the test build's profile, are still the test build's.
    for package in scratch.naming.packages() {
        command.arg("--config").arg(format!(
            "profile.{PROFILE}.package.\"{package}\".debug=false"
        ));
    }
    if json {
        command.arg("--message-format=json");
    }
    command
        .args(["-p", RUNNER_PACKAGE, "--bin", RUNNER_BIN, "--target-dir"])
        .arg(&scratch.target)
        .env("CARGO_BUILD_BUILD_DIR", &scratch.naming.build_dir)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("RUSTFLAGS");
    command
}

/// Runs the built suite over the copy's vectors and scenarios; `mutant` selects a switched mutant.
///
/// With `needed` (the names a mutant's rows must fail), the vectors run first; then, unless the
/// vectors already failed on every needed name, the needed scenarios alone; and only when one
/// of those passed, every scenario of the needed names' tools, which tells a row the suite
/// catches elsewhere (imprecise) from one it misses. The rows' outcome is decided by the needed
/// names, so the phases give the outcome a whole run would, and a caught row does not wait on
/// the scenarios it does not name (a timer of 30 s, say). Most rows break input rules, which
/// vectors catch without the scenarios' file work. Without `needed` (the baselines) everything
/// runs.
pub fn run(
    scratch: &Scratch,
    report: &Path,
    limit: Duration,
    mutant: Option<u32>,
    needed: Option<&[String]>,
) -> Result<Step<SuiteResult>> {
    let run = |only, tools: &[&str], names: &[&str]| {
        run_kind(scratch, report, limit, mutant, only, tools, names)
    };
    let Some(needed) = needed else {
        return run(None, &[], &[]);
    };
    let Step::Done(vectors) = run(Some("vectors"), &[], &[])? else {
        return Ok(Step::TimedOut);
    };
    let caught = |failures: &BTreeMap<String, Failure>| {
        !failures.is_empty() && needed.iter().all(|name| failures.contains_key(name))
    };
    if caught(&vectors.failures) {
        return Ok(Step::Done(vectors));
    }
    // Only the scenarios of the tools the needed names belong to: whether the row is caught is
    // decided by those names alone, and a row of one tool's execution need not wait for the
    // other tools' scenarios (a web_fetch row no longer plays the editors', and the reverse).
    let mut tools: Vec<&str> = needed
        .iter()
        .filter_map(|name| name.split_once(':').map(|(tool, _)| tool))
        .collect();
    tools.sort_unstable();
    tools.dedup();
    // A name of a tool without scenarios (a vector the vectors phase did not fail) leaves the
    // scenarios unrestricted, so the run still has something to play.
    let plays = |tool: &&str| {
        tool.parse::<vvoc_reference::Tool>()
            .is_ok_and(vvoc_harness::has_scenarios)
    };
    if !tools.iter().all(plays) {
        tools.clear();
    }
    let merged = |vectors: &SuiteResult, scenarios: SuiteResult| {
        let mut failures = vectors.failures.clone();
        failures.extend(scenarios.failures);
        SuiteResult {
            failures,
            vectors: vectors.vectors + scenarios.vectors,
        }
    };
    // The needed names the vectors passed, of the tools whose scenarios play.
    let named: Vec<&str> = needed
        .iter()
        .filter(|name| !vectors.failures.contains_key(*name))
        .filter(|name| {
            name.split_once(':')
                .is_some_and(|(tool, _)| tools.contains(&tool))
        })
        .map(String::as_str)
        .collect();
    if !named.is_empty() {
        let Step::Done(first) = run(Some("scenarios"), &tools, &named)? else {
            return Ok(Step::TimedOut);
        };
        let result = merged(&vectors, first);
        if caught(&result.failures) {
            return Ok(Step::Done(result));
        }
    }
    let Step::Done(scenarios) = run(Some("scenarios"), &tools, &[])? else {
        return Ok(Step::TimedOut);
    };
    Ok(Step::Done(merged(&vectors, scenarios)))
}

/// One `conform run` of the copy: everything, or `--only` one kind, of every tool or of `tools`,
/// and of only `names` when there are some.
fn run_kind(
    scratch: &Scratch,
    report: &Path,
    limit: Duration,
    mutant: Option<u32>,
    only: Option<&str>,
    tools: &[&str],
    names: &[&str],
) -> Result<Step<SuiteResult>> {
    let _ = std::fs::remove_dir_all(report);
    let mut command = Command::new(&scratch.runner);
    command
        .current_dir(&scratch.tree)
        .args(["run", "--vectors", VECTORS, "--report"])
        .arg(report);
    if let Some(only) = only {
        command.args(["--only", only]);
    }
    for tool in tools {
        command.args(["--tool", tool]);
    }
    for name in names {
        command.args(["--name", name]);
    }
    match mutant {
        Some(id) => command.env(switch::ENV, id.to_string()),
        None => command.env_remove(switch::ENV),
    };
    match run_bounded(&mut command, limit)? {
        Step::TimedOut => Ok(Step::TimedOut),
        Step::Done((_, log)) => {
            let path = report.join("conformance.json");
            let text = std::fs::read_to_string(&path).with_context(|| {
                format!("the suite wrote no report ({}):\n{log}", path.display())
            })?;
            Ok(Step::Done(parse_report(&text)?))
        }
    }
}

/// Reads the failing vectors and scenarios out of a `conformance.json`.
pub fn parse_report(text: &str) -> Result<SuiteResult> {
    let report = Conformance::read(text).map_err(anyhow::Error::msg)?;
    let vectors = report.results.iter().map(|r| {
        let failure = r
            .detail
            .as_ref()
            .map(|d| Failure::new(&d.what, &d.expected, &d.received));
        (r.outcome, &r.vector, failure)
    });
    let scenario_results = report.scenarios.as_ref().map_or(&[][..], |s| &s.results);
    let scenarios = scenario_results.iter().map(|r| {
        let failure = r
            .detail
            .as_ref()
            .map(|d| Failure::new(&d.what, &d.expected, &d.received));
        (r.outcome, &r.scenario, failure)
    });
    let failures = vectors
        .chain(scenarios)
        .filter(|(outcome, _, _)| *outcome != Outcome::Pass)
        .map(|(_, name, failure)| (name.clone(), failure.unwrap_or_else(Failure::unexplained)))
        .collect();
    Ok(SuiteResult {
        failures,
        vectors: report.results.len() + scenario_results.len(),
    })
}

impl Failure {
    /// A failure as the report details it.
    fn new(what: &str, expected: &impl Serialize, received: &impl Serialize) -> Failure {
        Failure {
            expected: serde_json::to_value(expected).unwrap_or_default(),
            received: serde_json::to_value(received).unwrap_or_default(),
            what: what.to_owned(),
        }
    }

    /// A failure the report says nothing more about.
    fn unexplained() -> Failure {
        Failure {
            expected: Value::Null,
            received: Value::Null,
            what: String::new(),
        }
    }
}

/// Runs a command with its output captured, killing it after `limit`; whether it succeeded
/// and what it printed.
fn run_bounded(command: &mut Command, limit: Duration) -> Result<Step<(bool, String)>> {
    let log = tempfile::NamedTempFile::new().context("cannot create a log file")?;
    let out = log.reopen().context("cannot open the log file")?;
    let err = log.reopen().context("cannot open the log file")?;
    // In its own process group, so a timeout also kills what it started (cargo's rustc).
    let mut child = vvoc_harness::peer::child::spawn(
        command
            .stdin(Stdio::null())
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err)),
    )
    .with_context(|| format!("cannot start {command:?}"))?;
    interrupt::watch(child.id());
    // Started as the interrupt came, after its handler signalled the groups it knew.
    let status = if interrupt::stopping() {
        Ok(None)
    } else {
        wait_bounded(&mut child, limit)
    };
    interrupt::forget(child.id());
    // A step the interrupt stopped (or that started as it came) means nothing.
    if interrupt::stopping() {
        vvoc_harness::peer::child::kill(&mut child);
        return Err(interrupt::Interrupted.into());
    }
    let text = std::fs::read_to_string(log.path()).unwrap_or_default();
    Ok(match status? {
        Some(status) => Step::Done((status.success(), text)),
        None => Step::TimedOut,
    })
}

/// Waits for a child until `limit`, then kills its group; its status, or `None` when it was
/// killed.
fn wait_bounded(
    child: &mut std::process::Child,
    limit: Duration,
) -> Result<Option<std::process::ExitStatus>> {
    let deadline = Instant::now() + limit;
    let mut pause = Duration::from_millis(1);
    let status = loop {
        if let Some(status) = child
            .try_wait()
            .context("cannot wait for a child process")?
        {
            vvoc_harness::peer::child::reap(child);
            break Some(status);
        }
        if Instant::now() >= deadline {
            vvoc_harness::peer::child::kill(child);
            break None;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    };
    Ok(status)
}
