//! Building a scratch copy and running its vector suite, within time limits.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use serde_json::Value;

use super::scratch::Scratch;

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

/// Builds the suite's runner (`conform`) in the copy with the `mutants` profile.
pub fn build(scratch: &Scratch, limit: Duration) -> Result<Step<Result<String, BuildFailure>>> {
    let mut command = cargo_build(scratch, false);
    match run_bounded(&mut command, limit)? {
        Step::TimedOut => Ok(Step::TimedOut),
        Step::Done((true, log)) => Ok(Step::Done(Ok(log))),
        Step::Done((false, log)) => Ok(Step::Done(Err(BuildFailure { log }))),
    }
}

/// `cargo build` of the suite's runner in a copy, with its own target directory; `json` asks for
/// the compiler's messages as JSON.
fn cargo_build(scratch: &Scratch, json: bool) -> Command {
    let mut command = Command::new(env!("CARGO"));
    command
        .current_dir(&scratch.tree)
        .args(["build", "--profile", "mutants", "--offline"]);
    if json {
        command.arg("--message-format=json");
    }
    command
        .args(["-p", "vvoc-harness", "--bin", "conform", "--target-dir"])
        .arg(&scratch.target)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("RUSTFLAGS");
    command
}

/// Runs the built suite over the copy's vectors and scenarios; `mutant` selects a switched mutant.
///
/// With `needed` (the names a mutant's rows must fail), the vectors run first, and the scenarios
/// only when the vectors did not already fail on every needed name: the rows' outcome cannot
/// change then, and most rows break input rules, which vectors catch without the scenarios'
/// file work. Without `needed` (the baselines) everything runs.
pub fn run(
    scratch: &Scratch,
    report: &Path,
    limit: Duration,
    mutant: Option<u32>,
    needed: Option<&[String]>,
) -> Result<Step<SuiteResult>> {
    let Some(needed) = needed else {
        return run_kind(scratch, report, limit, mutant, None);
    };
    let Step::Done(vectors) = run_kind(scratch, report, limit, mutant, Some("vectors"))? else {
        return Ok(Step::TimedOut);
    };
    let caught = !vectors.failures.is_empty()
        && needed
            .iter()
            .all(|name| vectors.failures.contains_key(name));
    if caught {
        return Ok(Step::Done(vectors));
    }
    let Step::Done(scenarios) = run_kind(scratch, report, limit, mutant, Some("scenarios"))? else {
        return Ok(Step::TimedOut);
    };
    let mut failures = vectors.failures;
    failures.extend(scenarios.failures);
    Ok(Step::Done(SuiteResult {
        failures,
        vectors: vectors.vectors + scenarios.vectors,
    }))
}

/// One `conform run` of the copy: everything, or `--only` one kind.
fn run_kind(
    scratch: &Scratch,
    report: &Path,
    limit: Duration,
    mutant: Option<u32>,
    only: Option<&str>,
) -> Result<Step<SuiteResult>> {
    let conform = scratch.target.join("mutants").join("conform");
    let _ = std::fs::remove_dir_all(report);
    let mut command = Command::new(&conform);
    command
        .current_dir(&scratch.tree)
        .args(["run", "--vectors", "vectors", "--report"])
        .arg(report);
    if let Some(only) = only {
        command.args(["--only", only]);
    }
    match mutant {
        Some(id) => command.env(super::switch::ENV, id.to_string()),
        None => command.env_remove(super::switch::ENV),
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
    // The report may hold lone surrogates (in paths), which serde_json refuses: read it with the
    // contract's parser, then keep a lossy copy, which is all a report needs.
    let report = vvoc_reference::Json::parse(text)
        .map_err(|e| anyhow::anyhow!("the suite's report is not JSON: {e}"))?;
    let report: Value = vvoc_harness::serde_bridge::to_serde_lossy(&report);
    let results = report
        .get("results")
        .and_then(Value::as_array)
        .context("the suite's report has no results")?;
    // Scenarios, when the run had any, have their own section; their names are in "scenario".
    let scenarios = report
        .get("scenarios")
        .and_then(|s| s.get("results"))
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let mut failures = BTreeMap::new();
    let all = results
        .iter()
        .map(|r| ("vector", r))
        .chain(scenarios.iter().map(|r| ("scenario", r)));
    for (key, result) in all {
        let field = |name: &str| result.get(name).cloned().unwrap_or(Value::Null);
        if field("outcome").as_str() == Some("pass") {
            continue;
        }
        let name = field(key).as_str().unwrap_or_default().to_owned();
        let what = field("what").as_str().unwrap_or_default().to_owned();
        failures.insert(
            name,
            Failure {
                expected: field("expected"),
                received: field("received"),
                what,
            },
        );
    }
    Ok(SuiteResult {
        failures,
        vectors: results.len() + scenarios.len(),
    })
}

/// Runs a command with its output captured, killing it after `limit`; whether it succeeded
/// and what it printed.
fn run_bounded(command: &mut Command, limit: Duration) -> Result<Step<(bool, String)>> {
    let log = tempfile::NamedTempFile::new().context("cannot create a log file")?;
    let out = log.reopen().context("cannot open the log file")?;
    let err = log.reopen().context("cannot open the log file")?;
    // In its own process group, so a timeout also kills what it started (cargo's rustc).
    let mut child = vvoc_harness::child::spawn(
        command
            .stdin(Stdio::null())
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err)),
    )
    .with_context(|| format!("cannot start {command:?}"))?;
    let deadline = Instant::now() + limit;
    let mut pause = Duration::from_millis(1);
    let status = loop {
        if let Some(status) = child
            .try_wait()
            .context("cannot wait for a child process")?
        {
            vvoc_harness::child::reap(&child);
            break Some(status);
        }
        if Instant::now() >= deadline {
            vvoc_harness::child::kill(&mut child);
            break None;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    };
    let text = std::fs::read_to_string(log.path()).unwrap_or_default();
    Ok(match status {
        Some(status) => Step::Done((status.success(), text)),
        None => Step::TimedOut,
    })
}

/// A located compiler error: the file, the byte range, and the compiler's rendering.
pub type CompileError = (String, usize, usize, String);

/// Builds like [`build`], reading the compiler's errors: each as the file and byte range it
/// points at (empty when the build succeeds).
pub fn build_json(scratch: &Scratch, limit: Duration) -> Result<Step<Vec<CompileError>>> {
    let mut command = cargo_build(scratch, true);
    let Step::Done((success, log)) = run_bounded(&mut command, limit)? else {
        return Ok(Step::TimedOut);
    };
    if success {
        return Ok(Step::Done(Vec::new()));
    }
    let mut errors = Vec::new();
    for line in log.lines().filter(|l| l.starts_with('{')) {
        let Ok(message) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let diagnostic = &message["message"];
        if message["reason"] != "compiler-message" || diagnostic["level"] != "error" {
            continue;
        }
        let rendered = diagnostic["rendered"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let spans = diagnostic["spans"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        for span in spans {
            let file = span["file_name"].as_str().unwrap_or_default().to_owned();
            let start = span["byte_start"].as_u64().unwrap_or(0) as usize;
            let end = span["byte_end"].as_u64().unwrap_or(0) as usize;
            errors.push((file, start, end, rendered.clone()));
        }
        if spans.is_empty() {
            errors.push((String::new(), 0, 0, rendered));
        }
    }
    if errors.is_empty() {
        // A failure without a located error (a linker failure, say) blames no mutant in particular.
        errors.push((
            String::new(),
            0,
            0,
            log.chars()
                .rev()
                .take(4000)
                .collect::<String>()
                .chars()
                .rev()
                .collect(),
        ));
    }
    Ok(Step::Done(errors))
}
